/* SPDX-License-Identifier: ISC */
/*
 * The pure parts of the box password route: the signed text
 * "v1\n" TS "\n" METHOD "\n" PATH "\n" BODY and its HMAC-SHA256, the
 * check of the X-Warrant-Timestamp and X-Warrant-Signature headers
 * (format, a window of BOXSIG_WINDOW seconds either side of now, a
 * constant-time compare), the route's path (which box user) and its
 * body ({"password": string|null}). No I/O, no clock: the caller gives
 * the time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <jansson.h>

#include "web/boxapi.h"

/* HMAC-SHA256 of the signed text under key into mac; 0, or -1. */
int
boxsig_mac(const unsigned char key[BOXSIG_KEY_LEN], const char *ts, const char *method,
    const char *path, const char *body, size_t len, unsigned char mac[BOXSIG_MAC_LEN])
{
	size_t hl = 3 + strlen(ts) + 1 + strlen(method) + 1 + strlen(path) + 1;
	unsigned char *text;
	unsigned int maclen = 0;
	int n, rc = -1;

	if (len > BOXAPI_BODY_MAX || hl > 1024)
		return -1;
	text = malloc(hl + len + 1);
	if (text == NULL)
		return -1;
	n = snprintf((char *)text, hl + 1, "v1\n%s\n%s\n%s\n", ts, method, path);
	if (n >= 0 && (size_t)n == hl) {
		if (len > 0)
			memcpy(text + hl, body, len);
		if (HMAC(EVP_sha256(), key, BOXSIG_KEY_LEN, text, hl + len, mac, &maclen) != NULL &&
		    maclen == BOXSIG_MAC_LEN)
			rc = 0;
	}
	/* the text holds the body, which may hold a password */
	OPENSSL_cleanse(text, hl + len);
	free(text);
	return rc;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Check one request's headers against key: NULL when the signature is
 * good and fresh (the MAC, to remember as seen, in mac), else the refusal
 * code: missing_signature, bad_timestamp, stale_timestamp, bad_signature.
 */
const char *
boxsig_verify(const unsigned char key[BOXSIG_KEY_LEN], const char *ts, const char *sig,
    const char *method, const char *path, const char *body, size_t len, time_t now,
    unsigned char mac[BOXSIG_MAC_LEN])
{
	unsigned char want[BOXSIG_MAC_LEN], got[BOXSIG_MAC_LEN];
	long long t = 0;
	size_t i, n;
	int hi, lo, same;

	if (ts == NULL || sig == NULL)
		return "missing_signature";
	/* digits only, so the signed text has one reading */
	n = strlen(ts);
	if (n == 0 || n > BOXSIG_TS_DIGITS)
		return "bad_timestamp";
	for (i = 0; i < n; i++) {
		if (ts[i] < '0' || ts[i] > '9')
			return "bad_timestamp";
		t = t * 10 + (ts[i] - '0');
	}
	if (t < (long long)now - BOXSIG_WINDOW || t > (long long)now + BOXSIG_WINDOW)
		return "stale_timestamp";
	if (strncmp(sig, BOXSIG_PREFIX, 3) != 0 || strlen(sig + 3) != 2 * BOXSIG_MAC_LEN)
		return "bad_signature";
	for (i = 0; i < BOXSIG_MAC_LEN; i++) {
		if ((hi = hexval((unsigned char)sig[3 + 2 * i])) < 0 ||
		    (lo = hexval((unsigned char)sig[4 + 2 * i])) < 0)
			return "bad_signature";
		got[i] = (unsigned char)(hi << 4 | lo);
	}
	if (boxsig_mac(key, ts, method, path, body, len, want) != 0)
		return "bad_signature";
	same = CRYPTO_memcmp(want, got, BOXSIG_MAC_LEN) == 0;
	if (!same) {
		OPENSSL_cleanse(want, sizeof want);
		return "bad_signature";
	}
	memcpy(mac, want, BOXSIG_MAC_LEN);
	OPENSSL_cleanse(want, sizeof want);
	return NULL;
}

/*
 * Which box user a path is for: "/box/set-password" (name "": the only
 * key there is) or "/box/NAME/set-password" with NAME a box user name.
 * 0, or -1 for any other path.
 */
int
boxapi_parse_path(const char *url, char name[BOX_NAME_MAX + 1])
{
	static const char tail[] = "/set-password";
	const char *p, *slash;
	size_t n;

	name[0] = '\0';
	if (url == NULL)
		return -1;
	if (strcmp(url, BOXAPI_PATH) == 0)
		return 0;
	if (strncmp(url, "/box/", 5) != 0)
		return -1;
	p = url + 5;
	if ((slash = strchr(p, '/')) == NULL || strcmp(slash, tail) != 0)
		return -1;
	n = (size_t)(slash - p);
	if (n == 0 || n > BOX_NAME_MAX)
		return -1;
	memcpy(name, p, n);
	name[n] = '\0';
	if (!box_name_ok(name)) {
		name[0] = '\0';
		return -1;
	}
	return 0;
}

/*
 * The body {"password": string|null} and nothing else. NULL with the
 * password in pw (*len bytes, NUL-terminated) or *clear set, else the
 * refusal code: invalid_body or bad_password. The parser's copy of the
 * password is wiped before it is freed.
 */
const char *
boxapi_parse_body(const char *body, size_t blen, char *pw, size_t size, size_t *len, int *clear)
{
	json_t *j, *v;
	const char *code = NULL, *s;
	size_t n;

	*len = 0;
	*clear = 0;
	if (size == 0)
		return "invalid_body";
	pw[0] = '\0';
	j = json_loadb(body != NULL ? body : "", blen, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(j) || json_object_size(j) != 1 ||
	    (v = json_object_get(j, "password")) == NULL ||
	    (!json_is_null(v) && !json_is_string(v))) {
		json_decref(j);
		return "invalid_body";
	}
	if (json_is_null(v))
		*clear = 1;
	else {
		s = json_string_value(v);
		n = json_string_length(v);
		if (n + 1 > size || box_password_check(s, n) != NULL)
			code = "bad_password";
		else {
			memcpy(pw, s, n);
			pw[n] = '\0';
			*len = n;
		}
		/* jansson's own copy: wiped in place before it is freed */
		OPENSSL_cleanse((char *)(uintptr_t)s, n);
	}
	json_decref(j);
	return code;
}
