/* SPDX-License-Identifier: ISC */
/*
 * The page's signed calls (docs/web.md, "A port anyone may bind"). The
 * daemon gives each session's page a key once, at pairing; the page
 * keeps it where no script can read it back (WebCrypto, non-extractable)
 * and never sends it again. Each call then goes:
 *
 *   1. POST /api/hello with the session's name and a random challenge: the
 *      daemon answers a nonce and the proof, the MAC of
 *      "warrant-server-v1\n" CHALLENGE "\n" NONCE. Whoever holds the port
 *      without the key cannot make it, and the page sends nothing more.
 *   2. The call, with the nonce, the time and the MAC of
 *      "warrant-page-v1\n" METHOD "\n" TARGET "\n" SHA256HEX(BODY) "\n"
 *      TIME "\n" NONCE. A nonce is the daemon's own (a tag under a secret
 *      drawn at its start), bound to the session, spent once, within 60
 *      seconds: a call recorded by someone else is refused by this daemon
 *      and by the next one.
 *   3. The answer, with the MAC of "warrant-answer-v1\n" REQUEST_MAC "\n"
 *      STATUS "\n" SHA256HEX(BODY), which the page checks before it shows
 *      anything.
 *
 * Distinct first lines keep the three apart: no proof is ever a call's MAC.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "root/root.h"
#include "web/pagesig.h"

/* base64url without padding of n bytes into out; 0, or -1 when it does not fit. */
int
pagesig_b64(const unsigned char *in, size_t n, char *out, size_t size)
{
	return b64url_encode(in, n, out, size);
}

/* Exactly n bytes from s, base64url in its one canonical spelling; 0, or -1. */
int
pagesig_unb64(const char *s, unsigned char *out, size_t n)
{
	size_t got;

	return s != NULL && strlen(s) == (n * 4 + 2) / 3 &&
	    b64url_decode(s, out, n, &got) == 0 && got == n ? 0 : -1;
}

/* A session's name or a challenge: 43 base64url characters (32 bytes). */
int
pagesig_token(const char *s)
{
	unsigned char buf[32];
	int ok = pagesig_unb64(s, buf, sizeof buf) == 0;

	OPENSSL_cleanse(buf, sizeof buf);
	return ok;
}

void
pagesig_hmac(const unsigned char key[PAGESIG_KEY_LEN], const void *text, size_t len,
    unsigned char mac[32])
{
	unsigned int n = 0;

	/* fails only without memory; a MAC left unset must never be compared */
	if (HMAC(EVP_sha256(), key, PAGESIG_KEY_LEN, text, len, mac, &n) == NULL || n != 32)
		abort();
}

/* A session's key: the daemon's page secret and the session's name. */
void
pagesig_key(const unsigned char secret[PAGESIG_KEY_LEN], const char *session,
    unsigned char key[PAGESIG_KEY_LEN])
{
	char text[128];
	int n = snprintf(text, sizeof text, "warrant-page-key-v1\n%s", session);

	pagesig_hmac(secret, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1, key);
	OPENSSL_cleanse(text, sizeof text);
}

static void
nonce_tag(const unsigned char boot[PAGESIG_KEY_LEN], const char *sid,
    const unsigned char raw[PAGESIG_NONCE_RAW], unsigned char tag[PAGESIG_TAG_LEN])
{
	unsigned char text[128 + 24], mac[32];
	int n = snprintf((char *)text, 128, "warrant-nonce-v1\n%.100s\n", sid);

	memcpy(text + n, raw, 24);
	pagesig_hmac(boot, text, (size_t)n + 24, mac);
	memcpy(tag, mac, PAGESIG_TAG_LEN);
}

/* A nonce for session sid, under this daemon's boot secret; 0, or -1. */
int
pagesig_nonce_make(const unsigned char boot[PAGESIG_KEY_LEN], const char *sid, int64_t now_ms,
    char out[PAGESIG_NONCE_LEN + 1])
{
	unsigned char raw[PAGESIG_NONCE_RAW];
	int b;

	for (b = 0; b < 8; b++)
		raw[b] = (unsigned char)((uint64_t)now_ms >> (56 - 8 * b));
	if (getrandom(raw + 8, 16, 0) != 16)
		return -1;
	nonce_tag(boot, sid, raw, raw + 24);
	return pagesig_b64(raw, sizeof raw, out, PAGESIG_NONCE_LEN + 1);
}

/* A nonce of this daemon's for session sid, not older than its TTL: NULL
 * and what it says in *out, or the refusal's code. */
const char *
pagesig_nonce_check(const unsigned char boot[PAGESIG_KEY_LEN], const char *sid,
    const char *nonce, int64_t now_ms, struct pagesig_nonce *out)
{
	unsigned char raw[PAGESIG_NONCE_RAW], tag[PAGESIG_TAG_LEN];
	uint64_t t = 0;
	int b;

	if (pagesig_unb64(nonce, raw, sizeof raw) != 0)
		return "bad_signature";
	nonce_tag(boot, sid, raw, tag);
	if (CRYPTO_memcmp(tag, raw + 24, sizeof tag) != 0)
		return "unknown_nonce";
	for (b = 0; b < 8; b++)
		t = t << 8 | raw[b];
	if ((int64_t)t > now_ms || now_ms - (int64_t)t > PAGESIG_NONCE_TTL_MS)
		return "stale_nonce";
	out->issued_ms = (int64_t)t;
	memcpy(out->tag, tag, sizeof tag);
	return NULL;
}

/* The daemon's proof that it holds the session's key. */
void
pagesig_proof(const unsigned char key[PAGESIG_KEY_LEN], const char *challenge,
    const char *nonce, char out[PAGESIG_B64_LEN + 1])
{
	unsigned char mac[32];
	char text[160];
	int n = snprintf(text, sizeof text, "warrant-server-v1\n%.43s\n%.54s", challenge, nonce);

	pagesig_hmac(key, text, (size_t)n, mac);
	(void)pagesig_b64(mac, sizeof mac, out, PAGESIG_B64_LEN + 1);
}

/* The headers of a signed call, their shapes and the time against now
 * (seconds): NULL, or the refusal's code. */
const char *
pagesig_parse(const struct pagesig_req *r, int64_t now)
{
	unsigned char nonce[PAGESIG_NONCE_RAW], mac[32];
	long long t;
	size_t n;

	if (r->session == NULL || r->nonce == NULL || r->time == NULL || r->mac == NULL)
		return "no_signature";
	n = strlen(r->time);
	if (!pagesig_token(r->session) || pagesig_unb64(r->nonce, nonce, sizeof nonce) != 0 ||
	    pagesig_unb64(r->mac, mac, sizeof mac) != 0 || n == 0 || n > 12 ||
	    strspn(r->time, "0123456789") != n)
		return "bad_signature";
	t = strtoll(r->time, NULL, 10);
	if (t < now - PAGESIG_WINDOW_S || t > now + PAGESIG_WINDOW_S)
		return "stale_time";
	return NULL;
}

/* A parsed call's MAC against method, target and body: NULL, or the code. */
const char *
pagesig_check(const unsigned char key[PAGESIG_KEY_LEN], const struct pagesig_req *r,
    const char *method, const char *target, const char *body, size_t len)
{
	unsigned char want[32], got[32];
	char bsha[SHA256_HEX_LEN + 1], *text;
	size_t size;
	int n, same;

	if (strlen(method) > 16 || strlen(target) > PAGESIG_TARGET_MAX ||
	    pagesig_unb64(r->mac, got, sizeof got) != 0)
		return "bad_signature";
	sha256_bytes(body != NULL ? body : "", body != NULL ? len : 0, bsha);
	size = 64 + strlen(method) + strlen(target) + SHA256_HEX_LEN + strlen(r->time) +
	    strlen(r->nonce);
	text = xmalloc(size);
	n = snprintf(text, size, "warrant-page-v1\n%s\n%s\n%s\n%s\n%s", method, target, bsha,
	    r->time, r->nonce);
	pagesig_hmac(key, text, (size_t)n, want);
	free(text);
	same = CRYPTO_memcmp(want, got, sizeof want) == 0;
	OPENSSL_cleanse(want, sizeof want);
	return same ? NULL : "bad_signature";
}

/* The MAC of an answer to the call whose MAC was reqmac. */
void
pagesig_answer(const unsigned char key[PAGESIG_KEY_LEN], const char *reqmac, unsigned status,
    const char *body, size_t len, char out[PAGESIG_B64_LEN + 1])
{
	unsigned char mac[32];
	char bsha[SHA256_HEX_LEN + 1], text[192];
	int n;

	sha256_bytes(body, len, bsha);
	n = snprintf(text, sizeof text, "warrant-answer-v1\n%.43s\n%u\n%s", reqmac, status, bsha);
	pagesig_hmac(key, text, (size_t)n, mac);
	(void)pagesig_b64(mac, sizeof mac, out, PAGESIG_B64_LEN + 1);
}
