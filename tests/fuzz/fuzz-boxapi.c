/* SPDX-License-Identifier: ISC */
/* libFuzzer target: the box password route's parsers (src/web/boxsig.c).
 * The input is split at its first two newlines into a path, the two
 * signature headers' values and a body; each goes through the path
 * parser, the body parser and the signature check with a fixed key. Never
 * a crash, a leak or a read past the input. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "web/boxapi.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char key[BOXSIG_KEY_LEN] = { 1, 2, 3 };
	unsigned char mac[BOXSIG_MAC_LEN];
	char name[BOX_NAME_MAX + 1], pw[BOX_PW_BYTES + 2], *buf, *path, *sig, *ts, *body, *nl;
	size_t pwlen, blen;
	int clear;

	buf = malloc(size + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	path = buf;
	ts = sig = body = buf + strlen(buf);
	if ((nl = strchr(path, '\n')) != NULL) {
		*nl = '\0';
		ts = nl + 1;
		if ((nl = strchr(ts, '\n')) != NULL) {
			*nl = '\0';
			sig = nl + 1;
			if ((nl = strchr(sig, '\n')) != NULL) {
				*nl = '\0';
				body = nl + 1;
			}
		}
	}
	blen = size - (size_t)(body - buf);
	(void)boxapi_parse_path(path, name);
	if (blen <= BOXAPI_BODY_MAX) {
		(void)boxapi_parse_body(body, blen, pw, sizeof pw, &pwlen, &clear);
		(void)boxsig_verify(key, ts, sig, "POST", path, body, blen, 1700000000, mac);
	}
	free(buf);
	return 0;
}
