/* SPDX-License-Identifier: ISC */
/*
 * `warrant answer --passkey` on the terminal's computer: a security key
 * plugged into it, spoken to through libfido2 directly (no browser). The
 * clientDataJSON is the one a browser at the record's origin would make
 * ({type webauthn.get, challenge, origin, crossOrigin false}); the key
 * signs it with user presence and its own user verification (a built-in
 * fingerprint reader, say). warrant reads no PIN: a key that verifies
 * users only with a PIN is refused here, and the page serves instead.
 * What the key gives goes to the runner, which checks it as it checks
 * the page's (src/root/passkey.c): nothing here is trusted.
 */
#include <stdio.h>
#include <string.h>
#include <fido.h>

#include "batch.h"

#define KEYS_MAX	8

/* Is a security key plugged in? 1, or 0. */
int
fido_key_present(void)
{
	fido_dev_info_t *list;
	size_t n = 0;

	fido_init(0);
	if ((list = fido_dev_info_new(KEYS_MAX)) == NULL)
		return 0;
	if (fido_dev_info_manifest(list, KEYS_MAX, &n) != FIDO_OK)
		n = 0;
	fido_dev_info_free(&list, KEYS_MAX);
	return n > 0;
}

/* The bytes of a CBOR byte string (libfido2 gives the authenticator data
 * wrapped in one): 0 with *p and *n, or -1. */
static int
cbor_bytes(const unsigned char *c, size_t len, const unsigned char **p, size_t *n)
{
	size_t head, v;

	if (len < 1 || (c[0] >> 5) != 2)
		return -1;
	if ((c[0] & 31) < 24) {
		head = 1;
		v = c[0] & 31;
	} else if ((c[0] & 31) == 24 && len >= 2) {
		head = 2;
		v = c[1];
	} else if ((c[0] & 31) == 25 && len >= 3) {
		head = 3;
		v = (size_t)c[1] << 8 | c[2];
	} else
		return -1;
	if (v != len - head)
		return -1;
	*p = c + head;
	*n = v;
	return 0;
}

/* Why libfido2 failed, for the reviewer. */
static const char *
key_failure(int rc)
{
	switch (rc) {
	case FIDO_ERR_PIN_REQUIRED:
	case FIDO_ERR_PIN_NOT_SET:
	case FIDO_ERR_UV_BLOCKED:
	case FIDO_ERR_UNSUPPORTED_OPTION:
		return "the key verifies users only with a PIN, and warrant reads no PIN: use a "
		    "key with built-in verification, or the page";
	case FIDO_ERR_NO_CREDENTIALS:
		return "the key does not hold the enrolled passkey";
	case FIDO_ERR_ACTION_TIMEOUT:
	case FIDO_ERR_USER_ACTION_TIMEOUT:
		return "nobody touched the key in time";
	default:
		return fido_strerr(rc);
	}
}

/*
 * The assertion of the first security key plugged in, over challenge (b64url)
 * for the credential c: {authenticator_data, client_data_json, signature}
 * as JSON (b64url) into out. 0, or -1 with why.
 */
int
fido_key_assert(const struct passkey_cred *c, const char *challenge, char *out, size_t size,
    char *why, size_t wsize)
{
	fido_dev_info_t *list = NULL;
	fido_dev_t *dev = NULL;
	fido_assert_t *a = NULL;
	const unsigned char *ad;
	char cd[1024], b_ad[PASSKEY_AD_MAX * 4 / 3 + 4], b_cd[sizeof cd * 4 / 3 + 4],
	    b_sig[PASSKEY_SIG_MAX * 4 / 3 + 4];
	size_t n = 0, adlen;
	int rc = -1, frc;

	fido_init(0);
	if ((size_t)snprintf(cd, sizeof cd, "{\"type\":\"webauthn.get\",\"challenge\":\"%s\","
	    "\"origin\":\"%s\",\"crossOrigin\":false}", challenge, c->origin) >= sizeof cd) {
		snprintf(why, wsize, "the origin is too long");
		return -1;
	}
	if ((list = fido_dev_info_new(KEYS_MAX)) == NULL || fido_dev_info_manifest(list,
	    KEYS_MAX, &n) != FIDO_OK || n == 0) {
		snprintf(why, wsize, "no security key is plugged in");
		goto out;
	}
	if ((dev = fido_dev_new()) == NULL || (frc = fido_dev_open(dev,
	    fido_dev_info_path(fido_dev_info_ptr(list, 0)))) != FIDO_OK) {
		snprintf(why, wsize, "cannot open the security key: %s", dev == NULL ?
		    "out of memory" : fido_strerr(frc));
		goto out;
	}
	if ((a = fido_assert_new()) == NULL || fido_assert_set_rp(a, c->rp_id) != FIDO_OK ||
	    fido_assert_set_clientdata(a, (const unsigned char *)cd, strlen(cd)) != FIDO_OK ||
	    fido_assert_allow_cred(a, c->id, c->id_len) != FIDO_OK ||
	    fido_assert_set_up(a, FIDO_OPT_TRUE) != FIDO_OK ||
	    fido_assert_set_uv(a, FIDO_OPT_TRUE) != FIDO_OK) {
		snprintf(why, wsize, "cannot prepare the request to the key");
		goto out;
	}
	fprintf(stderr, "warrant: touch your security key (and let it verify you)...\n");
	if ((frc = fido_dev_get_assert(dev, a, NULL)) != FIDO_OK) {
		snprintf(why, wsize, "%s", key_failure(frc));
		goto out;
	}
	if (fido_assert_count(a) != 1 || cbor_bytes(fido_assert_authdata_ptr(a, 0),
	    fido_assert_authdata_len(a, 0), &ad, &adlen) != 0 ||
	    b64url_encode(ad, adlen, b_ad, sizeof b_ad) != 0 ||
	    b64url_encode((const unsigned char *)cd, strlen(cd), b_cd, sizeof b_cd) != 0 ||
	    b64url_encode(fido_assert_sig_ptr(a, 0), fido_assert_sig_len(a, 0), b_sig,
	    sizeof b_sig) != 0) {
		snprintf(why, wsize, "the key's answer is malformed");
		goto out;
	}
	if ((size_t)snprintf(out, size, "{\"authenticator_data\":\"%s\",\"client_data_json\":"
	    "\"%s\",\"signature\":\"%s\"}", b_ad, b_cd, b_sig) >= size) {
		snprintf(why, wsize, "the key's answer is too long");
		goto out;
	}
	rc = 0;
out:
	fido_assert_free(&a);
	if (dev != NULL)
		fido_dev_close(dev);
	fido_dev_free(&dev);
	if (list != NULL)
		fido_dev_info_free(&list, KEYS_MAX);
	return rc;
}
