/* SPDX-License-Identifier: ISC */
/* libFuzzer target: root's check of a passkey assertion (src/root/passkey.c)
 * against the credential and approval of the recorded Chromium assertion
 * (tests/vectors/passkey/chromium.json, the seed). The input: one byte, the
 * authenticator data's length; two (big-endian), the client data's; those
 * bytes, then the signature. Also read whole as a credential record, as
 * the run directory's passkey.json, and as a staged registration root's
 * `passkey add` checks (src/approve/enrol.c; the seed `registration`,
 * made for alice and the code ABCD2345). Never
 * a crash, a read past a part, or a leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "warrant.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define SPKI	"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAERMwex2aCJ0mwE7V7jEhqVb1Uq5rWx5_fj0TVHMT" \
		"G16v-0o1wjpFy_X0SbX3gZCnMrd1vBswqMr5TXSAieFFV_Q"
#define EXPIRY	2000000000

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ids[] = { "install", "restart" };
	static struct passkey_cred c;
	static struct passkey_file pf;
	struct passkey_cred r;
	static unsigned char ch[32];
	struct passkey_assertion a;
	size_t adlen, cdlen;
	char why[256];
	unsigned char *copy;

	if (c.spki_len == 0) {
		strcpy(c.reviewer, "alice");
		strcpy(c.rp_id, "localhost");
		strcpy(c.origin, "http://localhost:33937");
		if (b64url_decode(SPKI, c.spki, sizeof c.spki, &c.spki_len) != 0 ||
		    passkey_challenge("w-recordedab", "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e"
		    "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e", ids, 2, "recorded-nonce-0123456789",
		    EXPIRY, ch) != 0)
			abort();
	}
	(void)passkey_cred_parse((const char *)data, size, &r, why, sizeof why);
	(void)passkey_file_parse((const char *)data, size, &pf, why, sizeof why);
	{
		int bad_rp;

		(void)passkey_enrol_check((const char *)data, size, "alice", "ABCD2345", &r,
		    &bad_rp, why, sizeof why);
	}
	if (size < 3)
		return 0;
	adlen = data[0];
	cdlen = (size_t)data[1] << 8 | data[2];
	if (adlen + cdlen > size - 3)
		return 0;
	/* each part in its own allocation: ASan sees a read past any of them */
	copy = malloc(size - 3);
	if (copy == NULL)
		return 0;
	memcpy(copy, data + 3, size - 3);
	a.auth_data = adlen > 0 ? memcpy(malloc(adlen), copy, adlen) : NULL;
	a.auth_data_len = adlen;
	a.client_data = cdlen > 0 ? memcpy(malloc(cdlen), copy + adlen, cdlen) : NULL;
	a.client_data_len = cdlen;
	a.sig = copy + adlen + cdlen;
	a.sig_len = size - 3 - adlen - cdlen;
	(void)passkey_verify(&c, &a, ch, EXPIRY - 30, EXPIRY, why, sizeof why);
	free((void *)a.auth_data);
	free((void *)a.client_data);
	free(copy);
	return 0;
}
