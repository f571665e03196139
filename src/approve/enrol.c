/* SPDX-License-Identifier: ISC */
/*
 * Enrolling a reviewer's passkey (`sudo warrant passkey add`): the page
 * creates the credential and the daemon stages it in the reviewer's state
 * directory (PASSKEY_STAGED); root adopts it only when its registration
 * answers the one-time code root printed on its own terminal. The code is
 * what makes the credential the reviewer's: a process that can write the
 * reviewer's files but cannot read root's terminal cannot stage one that
 * answers it.
 *
 * The registration's challenge is SHA-256 of
 *   "warrant-passkey-enrol-v1" NUL, u32 len, reviewer, u32 len, code
 * and root checks, before adopting anything: clientDataJSON's type
 * (webauthn.create), challenge and origin (https, or http on localhost;
 * its host the RP ID or under it), the RP ID a name and not an address,
 * the authenticator data's RP ID hash, its UP, UV and AT flags, the
 * credential id in it, and its COSE key the very P-256 key the page gave
 * as SPKI. Attestation is "none": the key is the reviewer's word, bound
 * by the code to the person at root's terminal.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "warrant.h"

#define ENROL_DOMAIN	"warrant-passkey-enrol-v1"
#define AD_UP		0x01
#define AD_UV		0x04
#define AD_AT		0x40
#define AD_HEAD		55	/* rpIdHash 32, flags 1, count 4, AAGUID 16, id length 2 */

/* The canonical (CTAP2) COSE_Key of an ES256 key, around its x and y. */
static const unsigned char cose_head[] = { 0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01,
    0x21, 0x58, 0x20 };
static const unsigned char cose_mid[] = { 0x22, 0x58, 0x20 };

static int __attribute__((format(printf, 3, 4)))
enrol_refuse(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}

static int
put_field(EVP_MD_CTX *ctx, const char *s)
{
	unsigned char len[4];
	size_t n = strlen(s);

	len[0] = (unsigned char)(n >> 24);
	len[1] = (unsigned char)(n >> 16);
	len[2] = (unsigned char)(n >> 8);
	len[3] = (unsigned char)n;
	return EVP_DigestUpdate(ctx, len, 4) == 1 && EVP_DigestUpdate(ctx, s, n) == 1;
}

/* The registration's challenge for reviewer and code: 0, or -1. */
int
passkey_enrol_challenge(const char *reviewer, const char *code, unsigned char out[32])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
	    EVP_DigestUpdate(ctx, ENROL_DOMAIN, sizeof ENROL_DOMAIN) == 1 &&
	    put_field(ctx, reviewer) && put_field(ctx, code) &&
	    EVP_DigestFinal_ex(ctx, out, NULL) == 1;

	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -1;
}

static const char code_alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/* A fresh code: 8 characters of Crockford's base32 (40 bits). 0, or -1. */
int
passkey_code_new(char code[PASSKEY_CODE_LEN + 1])
{
	unsigned char raw[PASSKEY_CODE_LEN];
	size_t i;

	if (random_bytes(raw, sizeof raw) != 0)
		return -1;
	for (i = 0; i < PASSKEY_CODE_LEN; i++)
		code[i] = code_alphabet[raw[i] & 31];
	code[PASSKEY_CODE_LEN] = '\0';
	return 0;
}

/* The code as typed (any case, a dash or spaces anywhere) into its
 * canonical 8 characters: 0, or -1 when it is no code. */
int
passkey_code_canon(const char *in, char out[PASSKEY_CODE_LEN + 1])
{
	size_t n = 0;
	char ch;

	for (; *in != '\0'; in++) {
		if (*in == '-' || *in == ' ')
			continue;
		ch = *in >= 'a' && *in <= 'z' ? (char)(*in - 'a' + 'A') : *in;
		if (n == PASSKEY_CODE_LEN || strchr(code_alphabet, ch) == NULL || ch == '\0')
			return -1;
		out[n++] = ch;
	}
	out[n] = '\0';
	return n == PASSKEY_CODE_LEN ? 0 : -1;
}

/* An RP ID WebAuthn takes: a lowercase DNS name, not an address. 1, or 0. */
int
passkey_rp_id_ok(const char *s)
{
	unsigned char a[16];
	size_t i, n = strlen(s);
	int letter = 0;

	if (n == 0 || n > 253 || s[0] == '.' || s[0] == '-' || s[n - 1] == '.' ||
	    s[n - 1] == '-' || inet_pton(AF_INET, s, a) == 1 || strchr(s, ':') != NULL)
		return 0;
	for (i = 0; i < n; i++) {
		if ((s[i] >= 'a' && s[i] <= 'z'))
			letter = 1;
		else if (!(s[i] >= '0' && s[i] <= '9') && s[i] != '-' &&
		    !(s[i] == '.' && s[i + 1] != '.'))
			return 0;
	}
	return letter;	/* all digits and dots is an address too */
}

/* origin is the page's under rp_id: https://HOST[:PORT], or http:// on
 * localhost, HOST the RP ID or a name under it. 1, or 0. */
static int
origin_ok(const char *origin, const char *rp_id)
{
	const char *host, *end;
	size_t n, r = strlen(rp_id);
	int local;

	if (strncmp(origin, "https://", 8) == 0)
		host = origin + 8;
	else if (strncmp(origin, "http://", 7) == 0)
		host = origin + 7;
	else
		return 0;
	end = host + strcspn(host, ":/");
	n = (size_t)(end - host);
	if (*end == ':') {
		const char *p = end + 1;

		if (*p < '1' || *p > '9' || strspn(p, "0123456789") != strlen(p) ||
		    strlen(p) > 5)
			return 0;
	} else if (*end != '\0')
		return 0;
	local = (n == 9 && strncmp(host, "localhost", 9) == 0) ||
	    (n > 10 && strncmp(end - 10, ".localhost", 10) == 0);
	if (host == origin + 7 && !local)
		return 0;
	return (n == r && strncmp(host, rp_id, r) == 0) ||
	    (n > r + 1 && host[n - r - 1] == '.' && strncmp(end - r, rp_id, r) == 0);
}

/* The key's x and y (64 bytes): 0, or -1 when it is no P-256 key. */
static int
key_point(const struct passkey_cred *c, unsigned char xy[64])
{
	EVP_PKEY *k = passkey_key(c);
	unsigned char pt[65];
	size_t n = 0;
	int ok = k != NULL && EVP_PKEY_get_octet_string_param(k,
	    OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, pt, sizeof pt, &n) == 1 && n == 65 &&
	    pt[0] == 0x04;

	if (ok)
		memcpy(xy, pt + 1, 64);
	EVP_PKEY_free(k);
	return ok ? 0 : -1;
}

/* The authenticator data of the registration, against c (its rp_id, id
 * and key set): 0, or -1 with why; the sign count into c. */
static int
auth_data_check(const unsigned char *ad, size_t len, struct passkey_cred *c, char *why,
    size_t size)
{
	unsigned char rp_hash[32], xy[64];
	size_t id_len;
	const unsigned char *cose;

	if (len < AD_HEAD)
		return enrol_refuse(why, size, "the authenticator data is too short");
	if (EVP_Digest(c->rp_id, strlen(c->rp_id), rp_hash, NULL, EVP_sha256(), NULL) != 1 ||
	    CRYPTO_memcmp(ad, rp_hash, 32) != 0)
		return enrol_refuse(why, size, "the authenticator data is for another RP ID than %s",
		    c->rp_id);
	if ((ad[32] & (AD_UP | AD_UV | AD_AT)) != (AD_UP | AD_UV | AD_AT))
		return enrol_refuse(why, size, "the registration was made without the user present "
		    "and verified, or carries no credential");
	id_len = (size_t)ad[53] << 8 | ad[54];
	if (id_len != c->id_len || len < AD_HEAD + id_len + sizeof cose_head + 32 +
	    sizeof cose_mid + 32 || CRYPTO_memcmp(ad + AD_HEAD, c->id, id_len) != 0)
		return enrol_refuse(why, size, "the authenticator data names another credential");
	cose = ad + AD_HEAD + id_len;
	if (key_point(c, xy) != 0)
		return enrol_refuse(why, size, "the public key is not a P-256 key");
	if (memcmp(cose, cose_head, sizeof cose_head) != 0 ||
	    CRYPTO_memcmp(cose + sizeof cose_head, xy, 32) != 0 ||
	    memcmp(cose + sizeof cose_head + 32, cose_mid, sizeof cose_mid) != 0 ||
	    CRYPTO_memcmp(cose + sizeof cose_head + 32 + sizeof cose_mid, xy + 32, 32) != 0)
		return enrol_refuse(why, size, "the authenticator data holds another key than the "
		    "one given (or not an ES256 key)");
	c->sign_count = (uint32_t)ad[33] << 24 | (uint32_t)ad[34] << 16 |
	    (uint32_t)ad[35] << 8 | ad[36];
	return 0;
}

/* Does clientDataJSON answer this enrolment (its challenge)? 1, or 0. */
static int
answers_code(const unsigned char *cd, size_t len, const char *expect_challenge)
{
	json_t *j = json_loadb((const char *)cd, len, JSON_REJECT_DUPLICATES, NULL);
	int yes = json_is_string(json_object_get(j, "challenge")) &&
	    strcmp(json_str(j, "challenge"), expect_challenge) == 0;

	json_decref(j);
	return yes;
}

/* clientDataJSON of the registration: its origin into c; 0, or -1. */
static int
client_data_check(const unsigned char *cd, size_t len, struct passkey_cred *c, char *why,
    size_t size)
{
	json_t *j = json_loadb((const char *)cd, len, JSON_REJECT_DUPLICATES, NULL), *v;
	const char *origin;
	int rc = -1;

	if (!json_is_object(j))
		enrol_refuse(why, size, "clientDataJSON is not a JSON object");
	else if (strcmp(json_str(j, "type"), "webauthn.create") != 0)
		enrol_refuse(why, size, "clientDataJSON is not of a registration");
	else if ((v = json_object_get(j, "crossOrigin")) != NULL && !json_is_false(v))
		enrol_refuse(why, size, "the registration was made in a cross-origin frame");
	else if (!json_is_string(json_object_get(j, "origin")) ||
	    strlen(origin = json_str(j, "origin")) >= sizeof c->origin ||
	    !origin_ok(origin, c->rp_id))
		enrol_refuse(why, size, "the page's origin is not https (or http://localhost) under "
		    "the RP ID %s", c->rp_id);
	else {
		snprintf(c->origin, sizeof c->origin, "%s", origin);
		rc = 0;
	}
	json_decref(j);
	return rc;
}

static int
b64_member(const json_t *o, const char *key, unsigned char *out, size_t size, size_t *n)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) && b64url_decode(json_string_value(v), out, size, n) == 0 &&
	    *n > 0;
}

/*
 * The staged registration (the page's, bytes as read) checked for reviewer
 * and code; the record to write into c. 0, or -1 with why (a sentence).
 * *rp_bad is set when the fault is an RP ID that is no domain name (an address).
 */
int
passkey_enrol_check(const char *buf, size_t len, const char *reviewer, const char *code,
    struct passkey_cred *c, int *rp_bad, char *why, size_t size)
{
	static unsigned char ad[PASSKEY_AD_MAX], cd[PASSKEY_CD_MAX];
	unsigned char challenge[32];
	char expect[48];
	size_t ad_len, cd_len;
	json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
	int rc = -1;

	*rp_bad = 0;
	memset(c, 0, sizeof *c);
	if (passkey_enrol_challenge(reviewer, code, challenge) != 0 ||
	    b64url_encode(challenge, sizeof challenge, expect, sizeof expect) != 0) {
		enrol_refuse(why, size, "cannot compute the enrolment's challenge");
		goto out;
	}
	if (!json_is_object(j) || json_object_size(j) != 5 ||
	    !json_is_string(json_object_get(j, "rp_id")) ||
	    json_string_length(json_object_get(j, "rp_id")) >= sizeof c->rp_id ||
	    !b64_member(j, "credential_id", c->id, sizeof c->id, &c->id_len) ||
	    !b64_member(j, "public_key", c->spki, sizeof c->spki, &c->spki_len) ||
	    !b64_member(j, "authenticator_data", ad, sizeof ad, &ad_len) ||
	    !b64_member(j, "client_data_json", cd, sizeof cd, &cd_len)) {
		enrol_refuse(why, size, "the staged passkey is malformed (it holds exactly rp_id, "
		    "credential_id, public_key, authenticator_data and client_data_json)");
		goto out;
	}
	snprintf(c->rp_id, sizeof c->rp_id, "%s", json_str(j, "rp_id"));
	snprintf(c->reviewer, sizeof c->reviewer, "%s", reviewer);
	/* first: is it this enrolment's at all (an older one may linger) */
	if (!answers_code(cd, cd_len, expect)) {
		enrol_refuse(why, size, "the registration does not answer this enrolment's code");
		goto out;
	}
	if (!passkey_rp_id_ok(c->rp_id)) {
		*rp_bad = 1;
		enrol_refuse(why, size, "the RP ID '%.64s' is not a domain name (a passkey cannot be "
		    "bound to an address): open the page as http://localhost:PORT, or by an "
		    "https name", c->rp_id);
		goto out;
	}
	if (client_data_check(cd, cd_len, c, why, size) != 0 ||
	    auth_data_check(ad, ad_len, c, why, size) != 0)
		goto out;
	c->created = now_seconds();
	rc = 0;
out:
	json_decref(j);
	return rc;
}
