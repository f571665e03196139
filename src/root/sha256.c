/* SPDX-License-Identifier: ISC */
/*
 * SHA-256 through OpenSSL's libcrypto: by descriptor for executables and
 * files (optionally copied or scanned as they are hashed), over bytes for
 * manifests, and a constant-time comparison of hex digests.
 *
 * Through the low-level SHA256_Init/Update/Final (deprecated since OpenSSL
 * 3.0, still built by default): the same assembly as the EVP interface,
 * without it. The first EVP digest of a process makes OpenSSL load its
 * default provider and fill its name tables before it can fetch SHA-256:
 * 1-2 ms, more than the rest of a `warrant request`, and megabytes of the
 * runner's resident memory. A libcrypto built without the deprecated
 * interfaces (OPENSSL_NO_DEPRECATED_3_0) gets the EVP path instead, with
 * the digest fetched once per process (see sha256_md).
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "root.h"

#if !defined(OPENSSL_NO_DEPRECATED_3_0)
#define SHA256_LOW_LEVEL	1
#else
#define SHA256_LOW_LEVEL	0
#include <pthread.h>

static EVP_MD *sha256_fetched;

static void
sha256_fetch(void)
{
	sha256_fetched = EVP_MD_fetch(NULL, "SHA2-256", NULL);
}

/*
 * The digest, fetched once, lazily, and kept for the life of the process:
 * an immutable handle to an algorithm that depends on nothing about who
 * asks, not request state (what the "no static caches" rule is about).
 * EVP_sha256() would fetch it again at every EVP_DigestInit_ex.
 */
static const EVP_MD *
sha256_md(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, sha256_fetch);
	return sha256_fetched;
}
#endif

#define HASH_CHUNK	(256 * 1024)

static void
to_hex(const unsigned char *md, char hex[SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 32; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0xf];
	}
	hex[SHA256_HEX_LEN] = '\0';
}

#if SHA256_LOW_LEVEL
/* Incremental hashing, for sha256_stream: begin (NULL
 * only when out of memory), update, end (frees it). */
static void *
sha256_begin(void)
{
	SHA256_CTX *ctx = malloc(sizeof *ctx);

	if (ctx != NULL)
		SHA256_Init(ctx);
	return ctx;
}

static int
sha256_update(void *ctx, const void *p, size_t n)
{
	return SHA256_Update(ctx, p, n) == 1 ? 0 : -1;
}

static int
sha256_end(void *ctx, char hex[SHA256_HEX_LEN + 1])
{
	unsigned char md[32];

	SHA256_Final(md, ctx);
	explicit_bzero(ctx, sizeof(SHA256_CTX));
	free(ctx);
	to_hex(md, hex);
	return 0;
}

void
sha256_digest(const void *p, size_t n, unsigned char md[32])
{
	SHA256_CTX ctx;

	/* not SHA256(): since OpenSSL 3.0 that one-shot goes through EVP */
	SHA256_Init(&ctx);
	SHA256_Update(&ctx, p, n);
	SHA256_Final(md, &ctx);
}

#else	/* the EVP interface */

static void *
sha256_begin(void)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (ctx != NULL && EVP_DigestInit_ex(ctx, sha256_md(), NULL) != 1) {
		EVP_MD_CTX_free(ctx);
		ctx = NULL;
	}
	return ctx;
}

static int
sha256_update(void *ctx, const void *p, size_t n)
{
	return EVP_DigestUpdate(ctx, p, n) == 1 ? 0 : -1;
}

static int
sha256_end(void *ctx, char hex[SHA256_HEX_LEN + 1])
{
	unsigned char md[32];
	int rc = EVP_DigestFinal_ex(ctx, md, NULL) == 1 ? 0 : -1;

	EVP_MD_CTX_free(ctx);
	if (rc == 0)
		to_hex(md, hex);
	return rc;
}

void
sha256_digest(const void *p, size_t n, unsigned char md[32])
{
	if (EVP_Digest(p, n, md, NULL, sha256_md(), NULL) != 1) {
		/* libcrypto cannot fail here short of memory exhaustion. */
		warnx("SHA-256 failed");
		abort();
	}
}
#endif

void
sha256_bytes(const void *p, size_t n, char hex[SHA256_HEX_LEN + 1])
{
	unsigned char md[32];

	sha256_digest(p, n, md);
	to_hex(md, hex);
}

/*
 * Hash fd's content from its start (pread: the descriptor's offset is
 * neither used nor moved), handing each chunk to sink when there is one
 * (a copy, a scan). Stops once more than limit bytes were read. *total
 * (when given) gets the bytes read. 0 with the digest in hex; 1 when the
 * content is longer than limit (hex is empty); -1 with errno set, when
 * reading, hashing or the sink failed.
 */
int
sha256_stream(int fd, uint64_t limit, sha256_sink sink, void *arg,
    char hex[SHA256_HEX_LEN + 1], uint64_t *total)
{
	unsigned char *buf = xmalloc(HASH_CHUNK);
	void *h = sha256_begin();
	uint64_t done = 0;
	int rc = -1, saved;
	ssize_t n;

	hex[0] = '\0';
	if (h == NULL)
		goto out;
	for (;;) {
		n = pread(fd, buf, HASH_CHUNK, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		done += (uint64_t)n;
		if (done > limit) {
			rc = 1;
			goto out;
		}
		if (sha256_update(h, buf, (size_t)n) != 0 ||
		    (sink != NULL && sink(arg, buf, (size_t)n) != 0))
			goto out;
	}
	rc = sha256_end(h, hex);
	h = NULL;
out:
	saved = errno;
	if (h != NULL) {
		sha256_end(h, hex);
		hex[0] = '\0';
	}
	free(buf);
	if (total != NULL)
		*total = done;
	errno = saved;
	return rc;
}

/* Hash everything in fd; 0 on success, -1 with errno set. */
int
sha256_fd(int fd, char hex[SHA256_HEX_LEN + 1])
{
	return sha256_stream(fd, UINT64_MAX, NULL, NULL, hex, NULL) == 0 ? 0 : -1;
}

/* Equal hex digests, compared in constant time. */
int
digest_equal(const char *a, const char *b)
{
	if (strlen(a) != SHA256_HEX_LEN || strlen(b) != SHA256_HEX_LEN)
		return 0;
	return CRYPTO_memcmp(a, b, SHA256_HEX_LEN) == 0;
}
