/* SPDX-License-Identifier: ISC */
/* SHA-256 through OpenSSL's libcrypto: by descriptor for executables, over
 * bytes for manifests, incrementally for copied files, and a constant-time
 * comparison of hex digests. */
#include <err.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "shared.h"

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

/* Hash everything readable from fd; 0 on success, -1 with errno set. */
int
sha256_fd(int fd, char hex[SHA256_HEX_LEN + 1])
{
	static unsigned char buf[HASH_CHUNK];
	unsigned char md[32];
	EVP_MD_CTX *ctx;
	ssize_t n;
	int rc = -1;

	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return -1;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		goto out;
	for (;;) {
		n = read(fd, buf, sizeof buf);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto out;
		}
		if (EVP_DigestUpdate(ctx, buf, (size_t)n) != 1)
			goto out;
	}
	if (EVP_DigestFinal_ex(ctx, md, NULL) != 1)
		goto out;
	to_hex(md, hex);
	rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	return rc;
}

/* Incremental hashing, for content hashed as it is copied: begin (NULL
 * only when libcrypto is out of memory), update, end (frees it). */
void *
sha256_begin(void)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(ctx);
		ctx = NULL;
	}
	return ctx;
}

int
sha256_update(void *ctx, const void *p, size_t n)
{
	return EVP_DigestUpdate(ctx, p, n) == 1 ? 0 : -1;
}

int
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
sha256_bytes(const void *p, size_t n, char hex[SHA256_HEX_LEN + 1])
{
	unsigned char md[32];

	if (EVP_Digest(p, n, md, NULL, EVP_sha256(), NULL) != 1) {
		/* libcrypto cannot fail here short of memory exhaustion. */
		warnx("SHA-256 failed");
		abort();
	}
	to_hex(md, hex);
}

/* Equal hex digests, compared in constant time. */
int
digest_equal(const char *a, const char *b)
{
	if (strlen(a) != SHA256_HEX_LEN || strlen(b) != SHA256_HEX_LEN)
		return 0;
	return CRYPTO_memcmp(a, b, SHA256_HEX_LEN) == 0;
}
