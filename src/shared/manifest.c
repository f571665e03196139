/*
 * The manifest (DESIGN §4): the normalised request exactly as it will run,
 * every field present (absent optional values are null), and its seal,
 * the SHA-256 of its canonical bytes.
 */
#include <string.h>

#include "shared.h"

/* The canonical bytes of m, with their SHA-256 in hex. */
char *
manifest_seal(const json_t *m, char hex[SHA256_HEX_LEN + 1])
{
	size_t len;
	char *bytes = canon_dump(m, &len);

	if (bytes != NULL)
		sha256_bytes(bytes, len, hex);
	return bytes;
}
