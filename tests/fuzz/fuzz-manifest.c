/* SPDX-License-Identifier: ISC */
/* libFuzzer target: a manifest file as the root runner reads it before
 * running anything (manifest_parse: JSON, canonical, well-formed), then
 * sealed as the runner seals the approved subset. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "warrant.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256], sha[SHA256_HEX_LEN + 1], *bytes;
	json_t *m;

	why[0] = '\0';
	if ((m = manifest_parse((const char *)data, size, why, sizeof why)) == NULL) {
		if (why[0] == '\0')
			__builtin_trap();
		return 0;
	}
	/* what was accepted is canonical: its seal is of exactly these bytes */
	bytes = manifest_seal(m, sha);
	if (bytes == NULL || strlen(bytes) != size || memcmp(bytes, data, size) != 0)
		__builtin_trap();
	free(bytes);
	json_object_del(m, "user_env");
	if ((bytes = manifest_seal(m, sha)) == NULL)
		__builtin_trap();
	free(bytes);
	json_decref(m);
	return 0;
}
