/* SPDX-License-Identifier: ISC */
/*
 * Root's check of a passkey approval (src/root/passkey.c): assertions
 * built here with libcrypto (a P-256 key of the test's, authenticatorData,
 * clientDataJSON, the signature) and one recorded from Chromium's virtual
 * authenticator (tests/vectors/passkey/). The good one passes; each forged
 * or replayed one is refused for its own reason; the credential record
 * and the used nonces are believed only in root's files. And enrolment
 * (src/approve/enrol.c): the registration root adopts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "warrant.h"

#define GATE	"w-abcdefghij"
#define SHA	"00000000000000000000000000000000000000000000000000000000000000a1"
#define SHA2	"00000000000000000000000000000000000000000000000000000000000000a2"
#define NONCE	"n0nce-of-the-daemon"
#define NOW	1700000000
#define EXP	(NOW + 60)
#define RP	"localhost"
#define ORIGIN	"http://localhost:8123"

static const char *const ids[] = { "a", "b" };
static EVP_PKEY *p256;

struct fx {
	unsigned char	 ad[64];
	size_t		 adlen;
	char		 cd[512];
	unsigned char	 sig[1024];
	size_t		 siglen;
};

static void
spki_of(EVP_PKEY *k, struct passkey_cred *c)
{
	unsigned char *p = c->spki;
	int n = i2d_PUBKEY(k, NULL);

	assert_true(n > 0 && (size_t)n <= sizeof c->spki);
	assert_int_equal(i2d_PUBKEY(k, &p), n);
	c->spki_len = (size_t)n;
}

static void
cred_init(struct passkey_cred *c, EVP_PKEY *k, uint32_t count)
{
	memset(c, 0, sizeof *c);
	strcpy(c->reviewer, "alice");
	strcpy(c->rp_id, RP);
	strcpy(c->origin, ORIGIN);
	memcpy(c->id, "credential", 10);
	c->id_len = 10;
	c->sign_count = count;
	c->created = NOW - 1000;
	spki_of(k, c);
}

/* An assertion signed by k over clientDataJSON {type, challenge, origin}
 * followed by extra (raw JSON members, or "" for none). */
static void
fx_make(struct fx *f, EVP_PKEY *k, const char *rp, unsigned flags, uint32_t count,
    const char *type, const unsigned char ch[32], const char *origin, const char *extra)
{
	unsigned char md[32];
	char b64[64];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	sha256_digest(rp, strlen(rp), f->ad);
	f->ad[32] = (unsigned char)flags;
	f->ad[33] = count >> 24 & 0xff;
	f->ad[34] = count >> 16 & 0xff;
	f->ad[35] = count >> 8 & 0xff;
	f->ad[36] = count & 0xff;
	f->adlen = 37;
	assert_int_equal(b64url_encode(ch, 32, b64, sizeof b64), 0);
	snprintf(f->cd, sizeof f->cd, "{\"type\":\"%s\",\"challenge\":\"%s\",\"origin\":\"%s\"%s}",
	    type, b64, origin, extra);
	sha256_digest(f->cd, strlen(f->cd), md);
	f->siglen = sizeof f->sig;
	assert_non_null(ctx);
	assert_int_equal(EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, k), 1);
	assert_int_equal(EVP_DigestSignUpdate(ctx, f->ad, f->adlen), 1);
	assert_int_equal(EVP_DigestSignUpdate(ctx, md, 32), 1);
	assert_int_equal(EVP_DigestSignFinal(ctx, f->sig, &f->siglen), 1);
	EVP_MD_CTX_free(ctx);
}

static struct passkey_assertion
fx_assertion(const struct fx *f)
{
	return (struct passkey_assertion){ f->ad, f->adlen, f->cd, strlen(f->cd), f->sig,
	    f->siglen };
}

static void
challenge(unsigned char ch[32])
{
	assert_int_equal(passkey_challenge(GATE, SHA, ids, 2, NONCE, EXP, ch), 0);
}

/* verify f against this gate's challenge at NOW; rc and why's phrase */
static void
expect(const struct passkey_cred *c, const struct fx *f, int rc, const char *phrase)
{
	struct passkey_assertion a = fx_assertion(f);
	unsigned char ch[32];
	char why[256] = "";

	challenge(ch);
	assert_int_equal(passkey_verify(c, &a, ch, NOW, EXP, why, sizeof why), rc);
	if (phrase != NULL && strstr(why, phrase) == NULL)
		fail_msg("\"%s\" does not say \"%s\"", why, phrase);
}

/* a well-formed assertion of p256 with flags, count, and the rest good */
static void
good(struct fx *f, unsigned flags, uint32_t count, const char *extra)
{
	unsigned char ch[32];

	challenge(ch);
	fx_make(f, p256, RP, flags, count, "webauthn.get", ch, ORIGIN, extra);
}

static void
test_good(void **state)
{
	struct passkey_cred c;
	struct passkey_assertion a;
	struct fx f;

	(void)state;
	cred_init(&c, p256, 5);
	good(&f, 0x05, 6, "");
	expect(&c, &f, 0, NULL);
	a = fx_assertion(&f);
	assert_int_equal(passkey_sign_count(&a), 6);
	/* other flags (BE, BS, AT...) and crossOrigin false change nothing */
	good(&f, 0x1d, 7, ",\"crossOrigin\":false,\"other\":1");
	expect(&c, &f, 0, NULL);
}

static void
test_signature(void **state)
{
	struct passkey_cred c;
	struct fx f;
	size_t i;

	(void)state;
	cred_init(&c, p256, 0);
	for (i = 0; i < 3; i++) {
		good(&f, 0x05, 1, "");
		f.sig[i == 0 ? f.siglen - 1 : i == 1 ? f.siglen / 2 : 1] ^= 0x01;
		expect(&c, &f, 1, "the signature does not verify");
	}
	good(&f, 0x05, 1, "");
	f.siglen = 0;
	expect(&c, &f, 1, "the signature does not verify");
	/* signed, then the data changed: the count, the client data */
	good(&f, 0x05, 1, "");
	f.ad[36] = 2;
	expect(&c, &f, 1, "the signature does not verify");
	good(&f, 0x05, 1, "");
	f.cd[strlen(f.cd) - 1] = ' ';
	strcat(f.cd, "}");
	expect(&c, &f, 1, "the signature does not verify");
}

static void
test_flags(void **state)
{
	struct passkey_cred c;
	struct fx f;

	(void)state;
	cred_init(&c, p256, 0);
	good(&f, 0x01, 1, "");
	expect(&c, &f, 1, "did not verify the user (UV)");
	good(&f, 0x04, 1, "");
	expect(&c, &f, 1, "no user presence (UP)");
	good(&f, 0x00, 1, "");
	expect(&c, &f, 1, "(UP)");
}

static void
test_client_data(void **state)
{
	struct passkey_cred c;
	unsigned char ch[32];
	struct fx f;

	(void)state;
	cred_init(&c, p256, 0);
	challenge(ch);
	fx_make(&f, p256, "example.com", 0x05, 1, "webauthn.get", ch, ORIGIN, "");
	expect(&c, &f, 1, "the assertion is for another RP ID");
	fx_make(&f, p256, RP, 0x05, 1, "webauthn.create", ch, ORIGIN, "");
	expect(&c, &f, 1, "type is not webauthn.get");
	fx_make(&f, p256, RP, 0x05, 1, "webauthn.get ", ch, ORIGIN, "");
	expect(&c, &f, 1, "type is not webauthn.get");
	/* a NUL inside a string: no JSON of ours (jansson refuses it) */
	fx_make(&f, p256, RP, 0x05, 1, "webauthn.get\\u0000", ch, ORIGIN, "");
	expect(&c, &f, 1, "the client data is not a JSON object");
	fx_make(&f, p256, RP, 0x05, 1, "webauthn.get", ch, ORIGIN "/", "");
	expect(&c, &f, 1, "the origin is not the enrolled one");
	fx_make(&f, p256, RP, 0x05, 1, "webauthn.get", ch, "http://localhost:8124", "");
	expect(&c, &f, 1, "the origin is not the enrolled one");
	fx_make(&f, p256, RP, 0x05, 1, "webauthn.get", ch, "https://evil.localhost:8123", "");
	expect(&c, &f, 1, "the origin is not the enrolled one");
	fx_make(&f, p256, RP, 0x05, 1, "webauthn.get", ch, ORIGIN, ",\"crossOrigin\":true");
	expect(&c, &f, 1, "cross-origin");
	fx_make(&f, p256, RP, 0x05, 1, "webauthn.get", ch, ORIGIN, ",\"crossOrigin\":\"no\"");
	expect(&c, &f, 1, "cross-origin");
	/* a duplicate key is no JSON object of ours */
	fx_make(&f, p256, RP, 0x05, 1, "webauthn.get", ch, ORIGIN, ",\"type\":\"webauthn.get\"");
	expect(&c, &f, 1, "the client data is not a JSON object");
}

static void
test_malformed(void **state)
{
	static const char *const bad[] = { "{\"type\":", "[]", "", "\"webauthn.get\"",
	    "{\"type\":\"webauthn.get\"} trailing" };
	struct passkey_cred c;
	struct fx f;
	size_t i;

	(void)state;
	cred_init(&c, p256, 0);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		good(&f, 0x05, 1, "");
		strcpy(f.cd, bad[i]);
		expect(&c, &f, 1, "the client data is not a JSON object");
	}
	for (i = 0; i < 37; i++) {
		good(&f, 0x05, 1, "");
		f.adlen = i;
		expect(&c, &f, 1, "the authenticator data is too short");
	}
}

/* An assertion over another approval's challenge is refused. */
static void
test_other_challenge(void **state)
{
	static const char *const one[] = { "a" }, *const swapped[] = { "b", "a" },
	    *const joined[] = { "ab" };
	struct passkey_cred c;
	unsigned char ch[32], other[7][32];
	struct fx f;
	int i;

	(void)state;
	cred_init(&c, p256, 0);
	challenge(ch);
	assert_int_equal(passkey_challenge("w-abcdefghik", SHA, ids, 2, NONCE, EXP, other[0]), 0);
	assert_int_equal(passkey_challenge(GATE, SHA2, ids, 2, NONCE, EXP, other[1]), 0);
	assert_int_equal(passkey_challenge(GATE, SHA, one, 1, NONCE, EXP, other[2]), 0);
	assert_int_equal(passkey_challenge(GATE, SHA, swapped, 2, NONCE, EXP, other[3]), 0);
	assert_int_equal(passkey_challenge(GATE, SHA, joined, 1, NONCE, EXP, other[4]), 0);
	assert_int_equal(passkey_challenge(GATE, SHA, ids, 2, "n0nce-of-the-daemoN", EXP,
	    other[5]), 0);
	assert_int_equal(passkey_challenge(GATE, SHA, ids, 2, NONCE, EXP + 1, other[6]), 0);
	for (i = 0; i < 7; i++) {
		assert_memory_not_equal(ch, other[i], 32);
		fx_make(&f, p256, RP, 0x05, 1, "webauthn.get", other[i], ORIGIN, "");
		expect(&c, &f, 1, "the challenge is not this approval's");
	}
	/* the same inputs, the same challenge; a manifest hash must be one */
	assert_int_equal(passkey_challenge(GATE, SHA, ids, 2, NONCE, EXP, other[0]), 0);
	assert_memory_equal(ch, other[0], 32);
	assert_int_equal(passkey_challenge(GATE, "A1", ids, 2, NONCE, EXP, other[0]), -1);
}

static void
test_expiry(void **state)
{
	struct passkey_cred c;
	struct passkey_assertion a;
	unsigned char ch[32];
	struct fx f;
	char why[256];

	(void)state;
	cred_init(&c, p256, 0);
	good(&f, 0x05, 1, "");
	a = fx_assertion(&f);
	challenge(ch);
	assert_int_equal(passkey_verify(&c, &a, ch, EXP, EXP, why, sizeof why), 0);
	assert_int_equal(passkey_verify(&c, &a, ch, EXP + 1, EXP, why, sizeof why), 1);
	assert_non_null(strstr(why, "the approval expired"));
	assert_int_equal(passkey_verify(&c, &a, ch, EXP - PASSKEY_TTL_MAX - 1, EXP, why,
	    sizeof why), 1);
	assert_non_null(strstr(why, "expiry is too far ahead"));
}

static void
test_sign_count(void **state)
{
	struct passkey_cred c;
	struct fx f;

	(void)state;
	cred_init(&c, p256, 5);
	good(&f, 0x05, 5, "");
	expect(&c, &f, 1, "the sign count did not move forward");
	good(&f, 0x05, 4, "");
	expect(&c, &f, 1, "the sign count did not move forward");
	good(&f, 0x05, 0, "");
	expect(&c, &f, 1, "the sign count did not move forward");
	/* an authenticator that counts nothing: 0 after 0 */
	cred_init(&c, p256, 0);
	good(&f, 0x05, 0, "");
	expect(&c, &f, 0, NULL);
}

static void
test_not_p256(void **state)
{
	EVP_PKEY *keys[2] = { EVP_EC_gen("P-384"), EVP_RSA_gen(2048) };
	struct passkey_cred c;
	unsigned char ch[32];
	struct fx f;
	int i;

	(void)state;
	challenge(ch);
	for (i = 0; i < 2; i++) {
		assert_non_null(keys[i]);
		cred_init(&c, keys[i], 0);
		fx_make(&f, keys[i], RP, 0x05, 1, "webauthn.get", ch, ORIGIN, "");
		expect(&c, &f, 1, "the enrolled key is not an EC P-256 key");
		EVP_PKEY_free(keys[i]);
	}
	/* trailing bytes after the SPKI */
	cred_init(&c, p256, 0);
	c.spki[c.spki_len++] = 0;
	good(&f, 0x05, 1, "");
	expect(&c, &f, 1, "the enrolled key is not an EC P-256 key");
}

static char *
tmpdir(void)
{
	char *d = xstrdup("/tmp/test-passkey.XXXXXX");

	assert_non_null(mkdtemp(d));
	assert_int_equal(chmod(d, 0755), 0);
	return d;
}

/* a test directory and its files (no subdirectories) */
static void
rmdir_all(const char *d)
{
	DIR *dir = opendir(d);
	struct dirent *e;

	assert_non_null(dir);
	while ((e = readdir(dir)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			assert_int_equal(unlinkat(dirfd(dir), e->d_name, 0), 0);
	closedir(dir);
	assert_int_equal(rmdir(d), 0);
}

static void
test_nonce(void **state)
{
	char *d = tmpdir(), why[256], name[SHA256_HEX_LEN + 1], path[512];
	struct timespec old[2] = { { NOW - 1000, 0 }, { NOW - 1000, 0 } };
	int dfd, fd;

	(void)state;
	assert_true((dfd = passkey_dir_open(d, why, sizeof why)) >= 0);
	assert_int_equal(passkey_nonce_use(dfd, NONCE, NOW, why, sizeof why), 0);
	assert_int_equal(passkey_nonce_use(dfd, NONCE, NOW, why, sizeof why), 1);
	assert_non_null(strstr(why, "the nonce was already used"));
	assert_int_equal(passkey_nonce_use(dfd, "", NOW, why, sizeof why), 1);
	/* swept once an assertion with it would be expired anyway */
	sha256_bytes("stale", 5, name);
	assert_true((fd = openat(dfd, name, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);
	assert_int_equal(utimensat(dfd, name, old, 0), 0);
	assert_int_equal(passkey_nonce_use(dfd, "another", NOW, why, sizeof why), 0);
	assert_int_equal(faccessat(dfd, name, F_OK, 0), -1);
	/* the fresh ones stay */
	assert_int_equal(passkey_nonce_use(dfd, NONCE, NOW, why, sizeof why), 1);
	close(dfd);
	/* a directory another user could write is not believed */
	assert_int_equal(chmod(d, 0775), 0);
	assert_int_equal(passkey_dir_open(d, why, sizeof why), -1);
	assert_non_null(strstr(why, "must be a directory of root's"));
	assert_int_equal(chmod(d, 0755), 0);
	assert_int_equal(chown(d, 1000, 1000), 0);
	assert_int_equal(passkey_dir_open(d, why, sizeof why), -1);
	assert_non_null(strstr(why, "must be a directory of root's"));
	snprintf(path, sizeof path, "%s.link", d);
	assert_int_equal(symlink(d, path), 0);
	assert_int_equal(passkey_dir_open(path, why, sizeof why), -1);
	unlink(path);
	rmdir_all(d);
	free(d);
}

static void
load_refused(int dfd, const char *phrase)
{
	struct passkey_cred c;
	char why[256];

	assert_int_equal(passkey_cred_load(dfd, "alice", &c, why, sizeof why), -1);
	if (strstr(why, phrase) == NULL)
		fail_msg("\"%s\" does not say \"%s\"", why, phrase);
}

static void
test_record(void **state)
{
	char *d = tmpdir(), why[256];
	struct passkey_cred c, back;
	struct passkey_assertion a;
	struct fx f;
	int dfd, fd;

	(void)state;
	assert_true((dfd = passkey_dir_open(d, why, sizeof why)) >= 0);
	assert_int_equal(passkey_cred_load(dfd, "alice", &back, why, sizeof why), 1);
	assert_non_null(strstr(why, "no passkey is enrolled for alice"));
	cred_init(&c, p256, 41);
	assert_int_equal(passkey_cred_save(dfd, &c, why, sizeof why), 0);
	assert_int_equal(passkey_cred_load(dfd, "alice", &back, why, sizeof why), 0);
	assert_memory_equal(&c, &back, sizeof c);
	/* the stored count moves with a good assertion, and a replay is refused */
	good(&f, 0x05, 42, "");
	expect(&back, &f, 0, NULL);
	a = fx_assertion(&f);
	back.sign_count = passkey_sign_count(&a);
	assert_int_equal(passkey_cred_save(dfd, &back, why, sizeof why), 0);
	assert_int_equal(passkey_cred_load(dfd, "alice", &c, why, sizeof why), 0);
	assert_int_equal(c.sign_count, 42);
	expect(&c, &f, 1, "the sign count did not move forward");
	assert_int_equal(passkey_cred_load(dfd, "../alice", &c, why, sizeof why), -1);

	assert_int_equal(fchmodat(dfd, "alice.json", 0664, 0), 0);
	load_refused(dfd, "must be a regular file of root's");
	assert_int_equal(fchmodat(dfd, "alice.json", 0646, 0), 0);
	load_refused(dfd, "must be a regular file of root's");
	assert_int_equal(fchmodat(dfd, "alice.json", 0644, 0), 0);
	assert_int_equal(fchownat(dfd, "alice.json", 1000, 0, 0), 0);
	load_refused(dfd, "must be a regular file of root's");
	assert_int_equal(fchownat(dfd, "alice.json", 0, 0, 0), 0);
	assert_int_equal(renameat(dfd, "alice.json", dfd, "real.json"), 0);
	assert_int_equal(symlinkat("real.json", dfd, "alice.json"), 0);
	load_refused(dfd, "must be a regular file of root's");
	assert_int_equal(unlinkat(dfd, "alice.json", 0), 0);
	assert_int_equal(linkat(dfd, "real.json", dfd, "alice.json", 0), 0);
	load_refused(dfd, "must be a regular file of root's");
	assert_int_equal(unlinkat(dfd, "real.json", 0), 0);
	assert_int_equal(passkey_cred_load(dfd, "alice", &c, why, sizeof why), 0);

	/* bob's record copied to alice's name */
	strcpy(c.reviewer, "bob");
	assert_int_equal(passkey_cred_save(dfd, &c, why, sizeof why), 0);
	assert_int_equal(renameat(dfd, "bob.json", dfd, "alice.json"), 0);
	load_refused(dfd, "names another reviewer");
	assert_true((fd = openat(dfd, "alice.json", O_WRONLY | O_TRUNC)) >= 0);
	assert_int_equal(write(fd, "{\"reviewer\":\"alice\"}", 20), 20);
	close(fd);
	load_refused(dfd, "the passkey record is malformed");
	close(dfd);
	rmdir_all(d);
	free(d);
}

static void
test_record_parse(void **state)
{
	static const char *const bad[] = {
		/* an unknown key, a missing one, a negative count, a count past 32 bits,
		 * padding in base64url, an empty id, a NUL in a string */
		"{\"reviewer\":\"a\",\"credential_id\":\"AA\",\"public_key\":\"AA\",\"rp_id\":\"r\","
		    "\"origin\":\"o\",\"sign_count\":0,\"created\":0,\"x\":1}",
		"{\"reviewer\":\"a\",\"credential_id\":\"AA\",\"public_key\":\"AA\",\"rp_id\":\"r\","
		    "\"origin\":\"o\",\"sign_count\":0}",
		"{\"reviewer\":\"a\",\"credential_id\":\"AA\",\"public_key\":\"AA\",\"rp_id\":\"r\","
		    "\"origin\":\"o\",\"sign_count\":-1,\"created\":0}",
		"{\"reviewer\":\"a\",\"credential_id\":\"AA\",\"public_key\":\"AA\",\"rp_id\":\"r\","
		    "\"origin\":\"o\",\"sign_count\":4294967296,\"created\":0}",
		"{\"reviewer\":\"a\",\"credential_id\":\"AA==\",\"public_key\":\"AA\",\"rp_id\":\"r\","
		    "\"origin\":\"o\",\"sign_count\":0,\"created\":0}",
		"{\"reviewer\":\"a\",\"credential_id\":\"\",\"public_key\":\"AA\",\"rp_id\":\"r\","
		    "\"origin\":\"o\",\"sign_count\":0,\"created\":0}",
		"{\"reviewer\":\"a\",\"credential_id\":\"AA\",\"public_key\":\"AA\",\"rp_id\":\"r\\u0000\","
		    "\"origin\":\"o\",\"sign_count\":0,\"created\":0}",
	};
	static const char good_rec[] =
	    "{\"reviewer\":\"a\",\"credential_id\":\"AA\",\"public_key\":\"AQI\",\"rp_id\":\"r\","
	    "\"origin\":\"o\",\"sign_count\":4294967295,\"created\":0}";
	struct passkey_cred c;
	char why[256];
	size_t i;

	(void)state;
	assert_int_equal(passkey_cred_parse(good_rec, strlen(good_rec), &c, why, sizeof why), 0);
	assert_int_equal(c.sign_count, UINT32_MAX);
	assert_int_equal(c.spki_len, 2);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(passkey_cred_parse(bad[i], strlen(bad[i]), &c, why, sizeof why),
		    -1);
		assert_non_null(strstr(why, "the passkey record is malformed"));
	}
}

static unsigned char *
vec_bytes(const json_t *v, const char *key, size_t *n)
{
	const char *s = json_string_value(json_object_get(v, key));
	unsigned char *b;

	assert_non_null(s);
	b = xmalloc(strlen(s));
	assert_int_equal(b64url_decode(s, b, strlen(s), n), 0);
	return b;
}

/* A real assertion of Chromium's virtual authenticator (record.js). */
static void
test_chromium(void **state)
{
	json_t *v, *jids;
	json_error_t err;
	struct passkey_cred c;
	struct passkey_assertion a;
	unsigned char ch[32], *ad, *cd, *sig, *spki, *id, *rec;
	const char *idv[8];
	char why[256];
	size_t adlen, cdlen, siglen, spkilen, idlen, reclen, i, nids;
	int64_t expiry;

	(void)state;
	v = json_load_file(VECTORS_DIR "/passkey/chromium.json", 0, &err);
	assert_non_null(v);
	jids = json_object_get(v, "command_ids");
	nids = json_array_size(jids);
	assert_true(nids > 0 && nids <= 8);
	for (i = 0; i < nids; i++)
		idv[i] = json_string_value(json_array_get(jids, i));
	expiry = json_integer_value(json_object_get(v, "expiry"));
	assert_int_equal(passkey_challenge(json_string_value(json_object_get(v, "gate_id")),
	    json_string_value(json_object_get(v, "manifest_sha256")), idv, nids,
	    json_string_value(json_object_get(v, "nonce")), expiry, ch), 0);
	rec = vec_bytes(v, "challenge", &reclen);
	assert_int_equal(reclen, 32);
	assert_memory_equal(ch, rec, 32);

	memset(&c, 0, sizeof c);
	strcpy(c.reviewer, "alice");
	snprintf(c.rp_id, sizeof c.rp_id, "%s", json_string_value(json_object_get(v, "rp_id")));
	snprintf(c.origin, sizeof c.origin, "%s",
	    json_string_value(json_object_get(v, "origin")));
	spki = vec_bytes(v, "spki", &spkilen);
	id = vec_bytes(v, "credential_id", &idlen);
	memcpy(c.spki, spki, spkilen);
	c.spki_len = spkilen;
	memcpy(c.id, id, idlen);
	c.id_len = idlen;
	ad = vec_bytes(v, "authenticator_data", &adlen);
	cd = vec_bytes(v, "client_data_json", &cdlen);
	sig = vec_bytes(v, "signature", &siglen);
	a = (struct passkey_assertion){ ad, adlen, (char *)cd, cdlen, sig, siglen };
	if (passkey_verify(&c, &a, ch, expiry - 30, expiry, why, sizeof why) != 0)
		fail_msg("the recorded assertion: %s", why);
	/* one byte changed anywhere, and it no longer passes */
	for (i = 0; i < adlen + cdlen + siglen; i++) {
		unsigned char *p = i < adlen ? ad + i : i < adlen + cdlen ? cd + i - adlen :
		    sig + i - adlen - cdlen;

		*p ^= 0x01;
		assert_int_not_equal(passkey_verify(&c, &a, ch, expiry - 30, expiry, why,
		    sizeof why), 0);
		*p ^= 0x01;
	}
	/* another approval's challenge */
	ch[0] ^= 1;
	assert_int_equal(passkey_verify(&c, &a, ch, expiry - 30, expiry, why, sizeof why), 1);
	assert_non_null(strstr(why, "the challenge is not this approval's"));
	free(ad);
	free(cd);
	free(sig);
	free(spki);
	free(id);
	free(rec);
	json_decref(v);
}

/* base64url as WebAuthn spells it (util.c): no padding, one spelling */
static void
test_b64url(void **state)
{
	static const char *const bad[] = { "A", "AB", "AA=", "AA==", "A+", "A/", "AAAAA", "AB" };
	unsigned char in[40], out[40];
	char s[64];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof in; i++)
		in[i] = (unsigned char)(i * 37 + 250);
	for (i = 0; i <= sizeof in; i++) {
		assert_int_equal(b64url_encode(in, i, s, sizeof s), 0);
		assert_int_equal(strlen(s), (i * 4 + 2) / 3);
		assert_int_equal(b64url_decode(s, out, sizeof out, &n), 0);
		assert_int_equal(n, i);
		assert_memory_equal(in, out, i);
	}
	assert_int_equal(b64url_encode(in, 3, s, 4), -1);
	assert_int_equal(b64url_encode(in, 3, s, 5), 0);
	assert_string_equal(s, "-h9E");
	assert_int_equal(b64url_decode("-h9E", out, 2, &n), -1);
	assert_int_equal(b64url_decode("_w", out, 1, &n), 0);
	assert_int_equal(out[0], 0xff);
	assert_int_equal(b64url_decode("", out, 0, &n), 0);
	assert_int_equal(n, 0);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(b64url_decode(bad[i], out, sizeof out, &n), -1);
	assert_int_equal(b64url_decode("AA", out, sizeof out, &n), 0);
	assert_int_equal(b64url_decode("AQ", out, sizeof out, &n), 0);
	assert_int_equal(out[0], 1);
}

/* RUN_PASSKEY: the one shape the runner reads, every other refused */
static void
test_file(void **state)
{
	static struct passkey_file f;
	static const char *const bad[] = {
		"",
		"[]",
		"{\"nonce\":\"bm9uY2U\",\"expires\":1,\"authenticator_data\":\"AQ\","
		    "\"client_data_json\":\"AQ\"}",
		"{\"nonce\":\"bm9uY2U\",\"expires\":1,\"authenticator_data\":\"AQ\","
		    "\"client_data_json\":\"AQ\",\"signature\":\"AQ\",\"x\":1}",
		"{\"nonce\":\"bm9uY2U\",\"nonce\":\"bm9uY2U\",\"expires\":1,"
		    "\"authenticator_data\":\"AQ\",\"client_data_json\":\"AQ\"}",
		"{\"nonce\":\"\",\"expires\":1,\"authenticator_data\":\"AQ\","
		    "\"client_data_json\":\"AQ\",\"signature\":\"AQ\"}",
		"{\"nonce\":\"no nce\",\"expires\":1,\"authenticator_data\":\"AQ\","
		    "\"client_data_json\":\"AQ\",\"signature\":\"AQ\"}",
		"{\"nonce\":\"bm9uY2U\",\"expires\":-1,\"authenticator_data\":\"AQ\","
		    "\"client_data_json\":\"AQ\",\"signature\":\"AQ\"}",
		"{\"nonce\":\"bm9uY2U\",\"expires\":\"1\",\"authenticator_data\":\"AQ\","
		    "\"client_data_json\":\"AQ\",\"signature\":\"AQ\"}",
		"{\"nonce\":\"bm9uY2U\",\"expires\":1.5,\"authenticator_data\":\"AQ\","
		    "\"client_data_json\":\"AQ\",\"signature\":\"AQ\"}",
		"{\"nonce\":\"bm9uY2U\",\"expires\":1,\"authenticator_data\":\"A+\","
		    "\"client_data_json\":\"AQ\",\"signature\":\"AQ\"}",
		"{\"nonce\":\"bm9uY2U\",\"expires\":1,\"authenticator_data\":\"\","
		    "\"client_data_json\":\"AQ\",\"signature\":\"AQ\"}",
		"{\"nonce\":\"bm9uY2U\",\"expires\":1,\"authenticator_data\":\"AQ\","
		    "\"client_data_json\":1,\"signature\":\"AQ\"}",
		"{\"nonce\":\"bm9uY2U\",\"expires\":1,\"authenticator_data\":\"AQ\","
		    "\"client_data_json\":\"AQ\",\"signature\":\"AQ=\"}",
	};
	struct passkey_assertion a;
	char why[128], buf[1024], sig[200];
	size_t i;

	(void)state;
	snprintf(buf, sizeof buf, "{\"nonce\":\"bm9uY2U\",\"expires\":1700000060,"
	    "\"authenticator_data\":\"AQID\",\"client_data_json\":\"eyJhIjoxfQ\","
	    "\"signature\":\"MEU\"}");
	assert_int_equal(passkey_file_parse(buf, strlen(buf), &f, why, sizeof why), 0);
	assert_string_equal(f.nonce, "bm9uY2U");
	assert_int_equal(f.expires, 1700000060);
	assert_int_equal(f.auth_data_len, 3);
	assert_int_equal(f.auth_data[2], 3);
	assert_int_equal(f.client_data_len, 7);
	assert_memory_equal(f.client_data, "{\"a\":1}", 7);
	assert_int_equal(f.sig_len, 2);
	passkey_file_assertion(&f, &a);
	assert_ptr_equal(a.auth_data, f.auth_data);
	assert_int_equal(a.client_data_len, 7);
	assert_int_equal(a.sig_len, 2);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(passkey_file_parse(bad[i], strlen(bad[i]), &f, why,
		    sizeof why), -1);
		assert_string_equal(why, "passkey.json is malformed");
	}
	/* a nonce of 129 bytes, a signature past its bound: refused */
	memset(sig, 'A', sizeof sig);
	sig[PASSKEY_NONCE_MAX + 1] = '\0';
	snprintf(buf, sizeof buf, "{\"nonce\":\"%s\",\"expires\":1,\"authenticator_data\":"
	    "\"AQ\",\"client_data_json\":\"AQ\",\"signature\":\"AQ\"}", sig);
	assert_int_equal(passkey_file_parse(buf, strlen(buf), &f, why, sizeof why), -1);
	sig[PASSKEY_NONCE_MAX] = '\0';
	snprintf(buf, sizeof buf, "{\"nonce\":\"%s\",\"expires\":1,\"authenticator_data\":"
	    "\"AQ\",\"client_data_json\":\"AQ\",\"signature\":\"AQ\"}", sig);
	assert_int_equal(passkey_file_parse(buf, strlen(buf), &f, why, sizeof why), 0);
	memset(sig, 'A', sizeof sig);
	sig[(PASSKEY_SIG_MAX + 1) * 4 / 3 + 1] = '\0';
	snprintf(buf, sizeof buf, "{\"nonce\":\"AA\",\"expires\":1,\"authenticator_data\":"
	    "\"AQ\",\"client_data_json\":\"AQ\",\"signature\":\"%s\"}", sig);
	assert_int_equal(passkey_file_parse(buf, strlen(buf), &f, why, sizeof why), -1);
}

static int
setup(void **state)
{
	(void)state;
	p256 = EVP_EC_gen("P-256");
	return p256 == NULL;
}

static int
teardown(void **state)
{
	(void)state;
	EVP_PKEY_free(p256);
	return 0;
}

/* A registration of key k as the page stages it, for reviewer "alice" and
 * code; what is forged is named in wrong. The JSON, to free. */
static char *
registration(EVP_PKEY *k, const char *code, const char *rp, const char *origin,
    unsigned flags, const char *wrong)
{
	static const unsigned char head[] = { 0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21,
	    0x58, 0x20 }, mid[] = { 0x22, 0x58, 0x20 };
	struct passkey_cred c;
	unsigned char ad[256], pt[65], ch[32], cid[16];
	char b_ad[400], b_cd[800], b_cid[32], b_key[300], b_ch[48], cd[512], *out;
	size_t n = 0, len = 0;

	memset(cid, 7, sizeof cid);
	assert_int_equal(EVP_Digest(rp, strlen(rp), ad, NULL, EVP_sha256(), NULL), 1);
	ad[32] = (unsigned char)flags;
	memset(ad + 33, 0, 4 + 16);
	ad[53] = 0;
	ad[54] = sizeof cid;
	memcpy(ad + 55, cid, sizeof cid);
	len = 55 + sizeof cid;
	assert_int_equal(EVP_PKEY_get_octet_string_param(k, "encoded-pub-key", pt, sizeof pt, &n), 1);
	if (strcmp(wrong, "cose") == 0)
		pt[5] ^= 1;
	memcpy(ad + len, head, sizeof head);
	memcpy(ad + len + sizeof head, pt + 1, 32);
	memcpy(ad + len + sizeof head + 32, mid, sizeof mid);
	memcpy(ad + len + sizeof head + 32 + sizeof mid, pt + 33, 32);
	len += sizeof head + 32 + sizeof mid + 32;
	if (strcmp(wrong, "credid") == 0)
		cid[0] ^= 1;
	assert_int_equal(passkey_enrol_challenge("alice", code, ch), 0);
	assert_int_equal(b64url_encode(ch, 32, b_ch, sizeof b_ch), 0);
	snprintf(cd, sizeof cd, "{\"type\":\"%s\",\"challenge\":\"%s\",\"origin\":\"%s\","
	    "\"crossOrigin\":%s}", strcmp(wrong, "type") == 0 ? "webauthn.get" :
	    "webauthn.create", b_ch, origin, strcmp(wrong, "cross") == 0 ? "true" : "false");
	spki_of(k, &c);
	assert_int_equal(b64url_encode(ad, len, b_ad, sizeof b_ad), 0);
	assert_int_equal(b64url_encode((unsigned char *)cd, strlen(cd), b_cd, sizeof b_cd), 0);
	assert_int_equal(b64url_encode(cid, sizeof cid, b_cid, sizeof b_cid), 0);
	assert_int_equal(b64url_encode(c.spki, c.spki_len, b_key, sizeof b_key), 0);
	assert_true(asprintf(&out, "{\"rp_id\":\"%s\",\"credential_id\":\"%s\",\"public_key\":"
	    "\"%s\",\"authenticator_data\":\"%s\",\"client_data_json\":\"%s\"}", rp, b_cid,
	    b_key, b_ad, b_cd) > 0);
	return out;
}

/* enrol(...): passkey_enrol_check of that registration for code ABCD2345 */
static int
enrol(const char *code, const char *rp, const char *origin, unsigned flags, const char *wrong,
    struct passkey_cred *c, int *bad_rp, char *why, size_t size)
{
	char *r = registration(p256, code, rp, origin, flags, wrong);
	int rc = passkey_enrol_check(r, strlen(r), "alice", "ABCD2345", c, bad_rp, why, size);

	free(r);
	return rc;
}

/* Enrolment (src/approve/enrol.c): root adopts the staged registration
 * only when it answers the code, for a name RP ID, from its origin, made
 * with UP and UV, its key the authenticator data's. */
static void
test_enrol(void **state)
{
	static const struct { const char *code, *rp, *origin, *wrong, *why; unsigned flags; int bad_rp; } bad[] = {
		{ "ABCD2346", RP, ORIGIN, "", "does not answer this enrolment", 0x45, 0 },
		{ "ABCD2345", "127.0.0.1", "http://127.0.0.1:8123", "", "not a domain name", 0x45, 1 },
		{ "ABCD2345", "::1", "http://[::1]:8123", "", "not a domain name", 0x45, 1 },
		{ "ABCD2345", "10.0.0.1", "https://10.0.0.1", "", "not a domain name", 0x45, 1 },
		{ "ABCD2345", "warrant.example", "http://warrant.example", "", "origin", 0x45, 0 },
		{ "ABCD2345", "warrant.example", "https://evil.example", "", "origin", 0x45, 0 },
		{ "ABCD2345", "warrant.example", "https://xwarrant.example", "", "origin", 0x45, 0 },
		{ "ABCD2345", RP, ORIGIN, "", "user present and verified", 0x41, 0 },
		{ "ABCD2345", RP, ORIGIN, "", "user present and verified", 0x44, 0 },
		{ "ABCD2345", RP, ORIGIN, "", "user present and verified", 0x05, 0 },
		{ "ABCD2345", RP, ORIGIN, "cose", "another key", 0x45, 0 },
		{ "ABCD2345", RP, ORIGIN, "credid", "another credential", 0x45, 0 },
		{ "ABCD2345", RP, ORIGIN, "type", "not of a registration", 0x45, 0 },
		{ "ABCD2345", RP, ORIGIN, "cross", "cross-origin", 0x45, 0 },
	};
	struct passkey_cred c;
	char why[512], code[PASSKEY_CODE_LEN + 1];
	EVP_PKEY *key;
	int bad_rp;
	size_t i;

	(void)state;
	assert_int_equal(enrol("ABCD2345", RP, ORIGIN, 0x45, "", &c, &bad_rp, why, sizeof why), 0);
	assert_string_equal(c.reviewer, "alice");
	assert_string_equal(c.rp_id, RP);
	assert_string_equal(c.origin, ORIGIN);
	assert_int_equal(c.id_len, 16);
	key = passkey_key(&c);
	assert_non_null(key);
	EVP_PKEY_free(key);
	assert_int_equal(enrol("ABCD2345", "warrant.example", "https://ph.warrant.example:8443",
	    0x45, "", &c, &bad_rp, why, sizeof why), 0);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why[0] = '\0';
		assert_int_equal(enrol(bad[i].code, bad[i].rp, bad[i].origin, bad[i].flags,
		    bad[i].wrong, &c, &bad_rp, why, sizeof why), -1);
		if (strstr(why, bad[i].why) == NULL || bad_rp != bad[i].bad_rp)
			fail_msg("case %zu: '%s' (bad_rp %d)", i, why, bad_rp);
	}
	/* malformed: not JSON, a member missing, one more */
	assert_int_equal(passkey_enrol_check("[]", 2, "alice", "ABCD2345", &c, &bad_rp, why,
	    sizeof why), -1);
	assert_int_equal(passkey_enrol_check("{\"rp_id\":\"localhost\"}", 21, "alice", "ABCD2345",
	    &c, &bad_rp, why, sizeof why), -1);
	assert_non_null(strstr(why, "malformed"));
	/* the code as typed */
	assert_int_equal(passkey_code_canon("abcd-2345", code), 0);
	assert_string_equal(code, "ABCD2345");
	assert_int_equal(passkey_code_canon(" ab cd 23 45 ", code), 0);
	assert_int_equal(passkey_code_canon("ABCD-234I", code), -1);	/* no I, L, O, U */
	assert_int_equal(passkey_code_canon("ABCD-234", code), -1);
	assert_int_equal(passkey_code_canon("ABCD-23456", code), -1);
	assert_int_equal(passkey_code_new(code), 0);
	assert_int_equal(strlen(code), PASSKEY_CODE_LEN);
	assert_int_equal(passkey_code_canon(code, code), 0);
	/* RP IDs */
	assert_true(passkey_rp_id_ok("localhost"));
	assert_true(passkey_rp_id_ok("host.tail1234.ts.net"));
	assert_false(passkey_rp_id_ok("127.0.0.1"));
	assert_false(passkey_rp_id_ok("1.2.3"));
	assert_false(passkey_rp_id_ok("fe80::1"));
	assert_false(passkey_rp_id_ok("a..b"));
	assert_false(passkey_rp_id_ok("-a.b"));
	assert_false(passkey_rp_id_ok("Host.example"));
	assert_false(passkey_rp_id_ok(""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_client_data),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_other_challenge),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_sign_count),
		cmocka_unit_test(test_not_p256),
		cmocka_unit_test(test_nonce),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_record_parse),
		cmocka_unit_test(test_chromium),
		cmocka_unit_test(test_b64url),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_enrol),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
