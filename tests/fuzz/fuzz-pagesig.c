/* SPDX-License-Identifier: ISC */
/* libFuzzer target: the page's signed-call headers (src/web/pagesig.c) as
 * a client sends them, NUL-separated: session, nonce, time, MAC, method,
 * target, then the body. Parsed, the nonce checked and the MAC compared
 * under a fixed key; never a crash, a read past a header, or a leak. A
 * MAC that verifies would be a forgery: abort. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "root/root.h"
#include "web/pagesig.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char key[PAGESIG_KEY_LEN] = { 1, 2, 3 }, boot[PAGESIG_KEY_LEN] = { 4 };
	const char *f[6] = { 0 };
	struct pagesig_req r;
	struct pagesig_nonce n;
	char *buf = malloc(size + 1), *p, *end;
	size_t i;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	p = buf;
	end = buf + size;
	for (i = 0; i < 6 && p <= end; i++) {
		f[i] = p;
		p += strlen(p) + 1;
	}
	if (i == 6) {
		r = (struct pagesig_req){ f[0], f[1], f[2], f[3] };
		if (pagesig_parse(&r, 1700000000) == NULL) {
			(void)pagesig_nonce_check(boot, "sid", r.nonce, 1700000000000LL, &n);
			if (pagesig_check(key, &r, f[4], f[5], p <= end ? p : "",
			    p <= end ? (size_t)(end - p) : 0) == NULL)
				abort();
		}
	}
	free(buf);
	return 0;
}
