/* SPDX-License-Identifier: ISC */
/*
 * Passkey approval of ROOT, checked by root itself: a reviewer's WebAuthn
 * assertion whose challenge is this approval, verified with libcrypto
 * against the credential root enrolled. Nothing here trusts the page or
 * the daemon that carried the assertion: the runner recomputes the
 * challenge from the manifest it is about to run.
 *
 * The challenge is SHA-256 of these bytes (u32, u64: big-endian), every
 * field length-prefixed so that no two approvals share them:
 *   "warrant-passkey-v1" NUL
 *   u32 len, gate id       u32 64, manifest SHA-256 (lowercase hex)
 *   u32 n, then n times: u32 len, command id (the selected ones, in order)
 *   u32 len, nonce         u64 expiry (Unix seconds)
 *
 * A credential's record is root's JSON file DIR/REVIEWER.json:
 *   {"reviewer": NAME, "credential_id": B64URL, "public_key": B64URL of the
 *    SPKI DER (P-256), "rp_id": S, "origin": S, "sign_count": N,
 *    "created": UNIX_SECONDS}
 * read only when it is a regular file of root's that nobody else may
 * write, in a directory of root's that nobody else may write; rewritten
 * whole (temporary file, fsync, rename) when the sign count moves.
 *
 * A used nonce is an empty file, named by the nonce's SHA-256, created
 * O_EXCL in a directory of root's: the kernel decides which of two
 * runners holding one assertion gets it, and a crash leaves it used.
 * Files older than twice PASSKEY_TTL_MAX are swept: an assertion with
 * that nonce is past its expiry by then (expiries further ahead than
 * PASSKEY_TTL_MAX are refused), so forgetting it lets nothing run twice.
 *
 * The assertion reaches the runner as RUN_PASSKEY in the run directory:
 *   {"nonce": B64URL, "expires": UNIX_SECONDS, "authenticator_data":
 *    B64URL, "client_data_json": B64URL, "signature": B64URL}
 * exactly these keys; the nonce is hashed into the challenge as spelled.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "root.h"

#define PK_DOMAIN	"warrant-passkey-v1"
#define PK_RECORD_MAX	8192
#define AD_UP		0x01	/* authenticatorData flags: user present */
#define AD_UV		0x04	/* user verified */

static int __attribute__((format(printf, 4, 5)))
refuse(char *why, size_t size, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return rc;
}

/* v as a big-endian number of n bytes, hashed */
static int
put_be(EVP_MD_CTX *ctx, uint64_t v, int n)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
	return EVP_DigestUpdate(ctx, b, (size_t)n) == 1;
}

static int
field(EVP_MD_CTX *ctx, const char *s)
{
	size_t n = strlen(s);

	return n <= UINT32_MAX && put_be(ctx, n, 4) && EVP_DigestUpdate(ctx, s, n) == 1;
}

/* The challenge of one approval (the format above): 0, or -1. */
int
passkey_challenge(const char *gate, const char *sha, const char *const *ids, size_t n,
    const char *nonce, int64_t expiry, unsigned char out[32])
{
	EVP_MD_CTX *ctx;
	size_t i;
	int ok;

	if (!is_hex64(sha) || n > UINT32_MAX || (ctx = EVP_MD_CTX_new()) == NULL)
		return -1;
	ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
	    EVP_DigestUpdate(ctx, PK_DOMAIN, sizeof PK_DOMAIN) == 1 &&
	    field(ctx, gate) && field(ctx, sha) && put_be(ctx, n, 4);
	for (i = 0; ok && i < n; i++)
		ok = field(ctx, ids[i]);
	ok = ok && field(ctx, nonce) && put_be(ctx, (uint64_t)expiry, 8) &&
	    EVP_DigestFinal_ex(ctx, out, NULL) == 1;
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -1;
}

/* The record's key when it is an EC P-256 key (the whole DER), or NULL. */
EVP_PKEY *
passkey_key(const struct passkey_cred *c)
{
	const unsigned char *p = c->spki;
	EVP_PKEY *k = d2i_PUBKEY(NULL, &p, (long)c->spki_len);
	char g[32];

	if (k != NULL && (p != c->spki + c->spki_len || !EVP_PKEY_is_a(k, "EC") ||
	    EVP_PKEY_get_group_name(k, g, sizeof g, NULL) != 1 ||
	    strcmp(g, "prime256v1") != 0)) {
		EVP_PKEY_free(k);
		k = NULL;
	}
	return k;
}

/* v is the JSON string s, exactly (a NUL inside does not end it) */
static int
json_is(const json_t *v, const char *s)
{
	return json_is_string(v) && json_string_length(v) == strlen(s) &&
	    CRYPTO_memcmp(json_string_value(v), s, strlen(s)) == 0;
}

/* The sign count in the assertion's authenticator data (0 when too short). */
uint32_t
passkey_sign_count(const struct passkey_assertion *a)
{
	const unsigned char *p;

	if (a->auth_data == NULL || a->auth_data_len < 37)
		return 0;
	p = a->auth_data + 33;	/* after the RP ID hash and the flags */
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * Is a the enrolled reviewer's assertion over challenge, before expiry?
 * 0 yes; 1 no, with why (a stable sentence); -1 when it cannot be told.
 * The nonce inside the challenge is the caller's to spend after this
 * (passkey_nonce_use), and the new sign count to store (passkey_cred_save).
 */
int
passkey_verify(const struct passkey_cred *c, const struct passkey_assertion *a,
    const unsigned char challenge[32], int64_t now, int64_t expiry, char *why, size_t size)
{
	unsigned char md[32];
	char want[64];
	json_t *j = NULL, *v;
	json_error_t err;
	EVP_MD_CTX *ctx = NULL;
	EVP_PKEY *k = NULL;
	uint32_t count = passkey_sign_count(a);
	int rc = 1;

	if (now > expiry)
		return refuse(why, size, 1, "the approval expired");
	if (expiry - now > PASSKEY_TTL_MAX)
		return refuse(why, size, 1, "the approval's expiry is too far ahead");
	if (a->auth_data_len < 37)
		return refuse(why, size, 1, "the authenticator data is too short");
	sha256_digest(c->rp_id, strlen(c->rp_id), md);
	if (CRYPTO_memcmp(md, a->auth_data, 32) != 0)
		return refuse(why, size, 1, "the assertion is for another RP ID");
	if (!(a->auth_data[32] & AD_UP))
		return refuse(why, size, 1, "the authenticator saw no user presence (UP)");
	if (!(a->auth_data[32] & AD_UV))
		return refuse(why, size, 1, "the authenticator did not verify the user (UV)");
	if (b64url_encode(challenge, 32, want, sizeof want) != 0)
		return refuse(why, size, -1, "cannot spell the challenge");
	j = json_loadb(a->client_data, a->client_data_len, JSON_REJECT_DUPLICATES, &err);
	if (!json_is_object(j))
		rc = refuse(why, size, 1, "the client data is not a JSON object");
	else if (!json_is(json_object_get(j, "type"), "webauthn.get"))
		rc = refuse(why, size, 1, "the client data's type is not webauthn.get");
	else if (!json_is(json_object_get(j, "challenge"), want))
		rc = refuse(why, size, 1, "the challenge is not this approval's");
	else if (!json_is(json_object_get(j, "origin"), c->origin))
		rc = refuse(why, size, 1, "the origin is not the enrolled one");
	else if ((v = json_object_get(j, "crossOrigin")) != NULL && !json_is_false(v))
		rc = refuse(why, size, 1, "the assertion was made cross-origin");
	else if ((k = passkey_key(c)) == NULL)
		rc = refuse(why, size, 1, "the enrolled key is not an EC P-256 key");
	else if ((ctx = EVP_MD_CTX_new()) == NULL)
		rc = refuse(why, size, -1, "out of memory");
	else {
		/* the signed data: authenticatorData || SHA-256(clientDataJSON) */
		sha256_digest(a->client_data, a->client_data_len, md);
		if (EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, k) != 1 ||
		    EVP_DigestVerifyUpdate(ctx, a->auth_data, a->auth_data_len) != 1 ||
		    EVP_DigestVerifyUpdate(ctx, md, 32) != 1 ||
		    EVP_DigestVerifyFinal(ctx, a->sig, a->sig_len) != 1)
			rc = refuse(why, size, 1, "the signature does not verify");
		else if (!(c->sign_count == 0 && count == 0) && count <= c->sign_count)
			rc = refuse(why, size, 1, "the sign count did not move forward "
			    "(%u after %u): a cloned authenticator?", count, c->sign_count);
		else
			rc = 0;
	}
	ERR_clear_error();
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(k);
	json_decref(j);
	return rc;
}

/* A JSON string without NUL, non-empty, copied into out: 1, or 0. */
static int
str_get(const json_t *v, char *out, size_t size)
{
	size_t n = json_string_length(v);

	if (!json_is_string(v) || n == 0 || n >= size || strlen(json_string_value(v)) != n)
		return 0;
	memcpy(out, json_string_value(v), n + 1);
	return 1;
}

static int
b64_get(const json_t *v, unsigned char *out, size_t size, size_t *n)
{
	return b64url_decode(json_string_value(v), out, size, n) == 0 && *n > 0;
}

static int
uint_get(const json_t *v, json_int_t max, json_int_t *out)
{
	*out = json_integer_value(v);
	return json_is_integer(v) && *out >= 0 && *out <= max;
}

/* A record's bytes (the format above): 0, or -1 with why. */
int
passkey_cred_parse(const char *buf, size_t len, struct passkey_cred *c, char *why,
    size_t size)
{
	json_error_t err;
	json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	json_int_t count, created;
	int ok;

	memset(c, 0, sizeof *c);
	ok = json_is_object(j) && json_object_size(j) == 7 &&
	    str_get(json_object_get(j, "reviewer"), c->reviewer, sizeof c->reviewer) &&
	    id_name_ok(c->reviewer) &&
	    str_get(json_object_get(j, "rp_id"), c->rp_id, sizeof c->rp_id) &&
	    str_get(json_object_get(j, "origin"), c->origin, sizeof c->origin) &&
	    b64_get(json_object_get(j, "credential_id"), c->id, sizeof c->id, &c->id_len) &&
	    b64_get(json_object_get(j, "public_key"), c->spki, sizeof c->spki, &c->spki_len) &&
	    uint_get(json_object_get(j, "sign_count"), UINT32_MAX, &count) &&
	    uint_get(json_object_get(j, "created"), INT64_MAX, &created);
	json_decref(j);
	if (!ok)
		return refuse(why, size, -1, "the passkey record is malformed");
	c->sign_count = (uint32_t)count;
	c->created = created;
	return 0;
}

/* A directory of root's that only root can write (records, nonces): its
 * descriptor, or -1 with why. */
int
passkey_dir_open(const char *path, char *why, size_t size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return refuse(why, size, -1, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 022) != 0) {
		close(fd);
		return refuse(why, size, -1, "%s must be a directory of root's that only root "
		    "can write", path);
	}
	return fd;
}

/* The record of reviewer in directory dfd: 0; 1 when there is none; -1
 * with why when it cannot be used. */
int
passkey_cred_load(int dfd, const char *reviewer, struct passkey_cred *c, char *why,
    size_t size)
{
	char name[80], *buf;
	struct stat st;
	size_t len;
	int fd, rc;

	if (!id_name_ok(reviewer))
		return refuse(why, size, -1, "not a user name: %s", reviewer);
	snprintf(name, sizeof name, "%s.json", reviewer);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return refuse(why, size, 1, "no passkey is enrolled for %s", reviewer);
	if (fd < 0 && errno != ELOOP)
		return refuse(why, size, -1, "cannot open the passkey record of %s: %s",
		    reviewer, strerror(errno));
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) != 0 || st.st_nlink != 1) {
		if (fd >= 0)
			close(fd);
		return refuse(why, size, -1, "the passkey record of %s must be a regular file "
		    "of root's (one link) that only root can write", reviewer);
	}
	rc = read_bounded(fd, &buf, &len, PK_RECORD_MAX);
	close(fd);
	if (rc != 0)
		return refuse(why, size, -1, "cannot read the passkey record of %s", reviewer);
	rc = passkey_cred_parse(buf, len, c, why, size);
	free(buf);
	if (rc == 0 && strcmp(c->reviewer, reviewer) != 0)
		rc = refuse(why, size, -1, "the passkey record of %s names another reviewer",
		    reviewer);
	return rc;
}

/* The record, rewritten whole and durably (after the sign count moved). */
int
passkey_cred_save(int dfd, const struct passkey_cred *c, char *why, size_t size)
{
	char name[80], id[PASSKEY_ID_MAX * 4 / 3 + 4], key[PASSKEY_SPKI_MAX * 4 / 3 + 4];
	json_t *j;
	int rc;

	if (!id_name_ok(c->reviewer) || b64url_encode(c->id, c->id_len, id, sizeof id) != 0 ||
	    b64url_encode(c->spki, c->spki_len, key, sizeof key) != 0)
		return refuse(why, size, -1, "the passkey record is malformed");
	snprintf(name, sizeof name, "%s.json", c->reviewer);
	j = json_pack("{ss ss ss ss ss sI sI}", "reviewer", c->reviewer, "credential_id", id,
	    "public_key", key, "rp_id", c->rp_id, "origin", c->origin,
	    "sign_count", (json_int_t)c->sign_count, "created", (json_int_t)c->created);
	rc = j != NULL ? json_write_atomic(dfd, name, j, 0, 0, 0644, 1) : -1;
	json_decref(j);
	return rc == 0 ? 0 : refuse(why, size, -1, "cannot write the passkey record of %s",
	    c->reviewer);
}

/* Spend nonce: 0 when it was unused (now it is, durably); 1 when it was
 * used before; -1 with why when that cannot be told. Sweeps old ones. */
int
passkey_nonce_use(int dfd, const char *nonce, int64_t now, char *why, size_t size)
{
	char name[SHA256_HEX_LEN + 1];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd, synced;

	if (*nonce == '\0' || strlen(nonce) > PASSKEY_NONCE_MAX)
		return refuse(why, size, 1, "the nonce is empty or too long");
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0 &&
	    (d = fdopendir(fd)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (is_hex64(e->d_name) &&
			    fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    st.st_mtime < now - 2 * PASSKEY_TTL_MAX)
				(void)unlinkat(dfd, e->d_name, 0);
		closedir(d);
	} else if (fd >= 0)
		close(fd);
	sha256_bytes(nonce, strlen(nonce), name);
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST)
		return refuse(why, size, 1, "the nonce was already used");
	if (fd < 0)
		return refuse(why, size, -1, "cannot record the nonce: %s", strerror(errno));
	synced = fsync(fd);
	if (close(fd) != 0 || synced != 0 || fsync(dfd) != 0)
		return refuse(why, size, -1, "cannot record the nonce: %s", strerror(errno));
	return 0;
}

/* A base64url string of 1..size bytes decoded into out. */
static int
b64_field(const json_t *o, const char *key, unsigned char *out, size_t size, size_t *n)
{
	return json_is_string(json_object_get(o, key)) &&
	    b64_get(json_object_get(o, key), out, size, n);
}

/* RUN_PASSKEY's bytes (the format above) into f: 0, or -1 with why. */
int
passkey_file_parse(const char *buf, size_t len, struct passkey_file *f, char *why,
    size_t size)
{
	unsigned char raw[PASSKEY_NONCE_MAX];
	json_error_t err;
	json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	json_int_t expires;
	size_t n;
	int ok;

	memset(f, 0, sizeof *f);
	ok = json_is_object(j) && json_object_size(j) == 5 &&
	    str_get(json_object_get(j, "nonce"), f->nonce, sizeof f->nonce) &&
	    b64url_decode(f->nonce, raw, sizeof raw, &n) == 0 &&
	    uint_get(json_object_get(j, "expires"), INT64_MAX, &expires) &&
	    b64_field(j, "authenticator_data", f->auth_data, sizeof f->auth_data,
	    &f->auth_data_len) &&
	    b64_field(j, "client_data_json", (unsigned char *)f->client_data,
	    sizeof f->client_data, &f->client_data_len) &&
	    b64_field(j, "signature", f->sig, sizeof f->sig, &f->sig_len);
	json_decref(j);
	if (!ok)
		return refuse(why, size, -1, "%s is malformed", RUN_PASSKEY);
	f->expires = expires;
	return 0;
}

/* The assertion inside f (pointing into it). */
void
passkey_file_assertion(const struct passkey_file *f, struct passkey_assertion *a)
{
	*a = (struct passkey_assertion){ .auth_data = f->auth_data,
	    .auth_data_len = f->auth_data_len, .client_data = f->client_data,
	    .client_data_len = f->client_data_len, .sig = f->sig, .sig_len = f->sig_len };
}
