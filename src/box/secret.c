/* SPDX-License-Identifier: ISC */
/*
 * The box password store: one file per box user, NAME.pw, holding
 * nonce (12) || AES-256-GCM ciphertext || tag (16), with the user name as
 * associated data (a file renamed to another user does not decrypt). The
 * key is 32 random bytes in "key", 0600 root, in a 0700 root directory:
 * /var/lib/warrant/box, or $WARRANT_BOX_DIR when running as root (tests).
 * Plaintext lives only in caller buffers that are wiped after use.
 *
 * The same directory holds the records of what warrant made (record.c).
 */
#include <err.h>
#include <sys/file.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "warrant.h"
#include "box/box.h"

#define KEY_LEN		32
#define NONCE_LEN	12
#define TAG_LEN		16
#define SEALED_MAX	(NONCE_LEN + BOX_PW_BYTES + TAG_LEN)

int
box_dir_path(char *out, size_t size)
{
	const char *env = getenv("WARRANT_BOX_DIR");

	/* The override is for tests; it is never honoured for non-root. */
	if (env == NULL || *env == '\0' || getuid() != 0 || geteuid() != 0)
		env = BOX_DIR_DEFAULT;
	if (env[0] != '/' || (size_t)snprintf(out, size, "%s", env) >= size) {
		warnx("box directory '%s' must be a short absolute path", env);
		return -1;
	}
	return 0;
}

/* Open (creating if asked) the box directory and check it is root's alone. */
int
box_dir_open(int create)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (box_dir_path(path, sizeof path) != 0)
		return -1;
	if (create) {
		if (strcmp(path, BOX_DIR_DEFAULT) == 0 &&
		    mkdir("/var/lib/warrant", 0755) != 0 && errno != EEXIST) {
			warnx("cannot create /var/lib/warrant: %s", strerror(errno));
			return -1;
		}
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			warnx("cannot create %s: %s", path, strerror(errno));
			return -1;
		}
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && !create)
			return -2;
		warnx("box directory %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 077) != 0) {
		warnx("box directory %s must be owned by root with mode 0700", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* Serialise box init and passwd runs; returns the lock fd or -1. */
int
box_lock(void)
{
	int dfd, fd;

	if ((dfd = box_dir_open(1)) < 0)
		return -1;
	fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dfd);
	if (fd < 0 || flock(fd, LOCK_EX) != 0) {
		warnx("cannot lock the box directory: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

void
box_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

static void
file_name(const char *name, char out[BOX_NAME_MAX + 8])
{
	snprintf(out, BOX_NAME_MAX + 8, "%s.pw", name);
}

/* A regular file, root's, closed to everyone else; its size in *size. */
int
box_open_private(int dfd, const char *file, off_t *size)
{
	struct stat st;
	int fd;

	if ((fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 077) != 0) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	*size = st.st_size;
	return fd;
}

int
box_read_exact(int fd, void *buf, size_t n)
{
	ssize_t r;
	size_t got = 0;

	while (got < n) {
		r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* Write a whole new file atomically: a temporary name, fsync, rename. */
int
box_replace_file(int dfd, const char *file, const void *data, size_t len)
{
	char tmp[64];
	int fd;

	snprintf(tmp, sizeof tmp, "%s.tmp", file);
	(void)unlinkat(dfd, tmp, 0);	/* a leftover of a crash; we hold the lock */
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		close(fd);
		unlinkat(dfd, tmp, 0);
		return -1;
	}
	close(fd);
	if (renameat(dfd, tmp, dfd, file) != 0) {
		unlinkat(dfd, tmp, 0);
		return -1;
	}
	return fsync(dfd);
}

/* Load the key, creating it once; link(2) makes creation race-free. */
static int
key_load(int dfd, int create, unsigned char key[KEY_LEN])
{
	char tmp[32];
	off_t size;
	int fd;

	if ((fd = box_open_private(dfd, "key", &size)) < 0 && errno == ENOENT && create) {
		if (RAND_bytes(key, KEY_LEN) != 1)
			return -1;
		snprintf(tmp, sizeof tmp, "key.%ld", (long)getpid());
		(void)unlinkat(dfd, tmp, 0);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -1;
		if (write_all(fd, key, KEY_LEN) != 0 || fsync(fd) != 0 ||
		    (linkat(dfd, tmp, dfd, "key", 0) != 0 && errno != EEXIST)) {
			close(fd);
			unlinkat(dfd, tmp, 0);
			OPENSSL_cleanse(key, KEY_LEN);
			return -1;
		}
		close(fd);
		unlinkat(dfd, tmp, 0);
		fsync(dfd);
		fd = box_open_private(dfd, "key", &size);
	}
	if (fd < 0)
		return -1;
	if (size != KEY_LEN || box_read_exact(fd, key, KEY_LEN) != 0) {
		close(fd);
		OPENSSL_cleanse(key, KEY_LEN);
		errno = EINVAL;
		return -1;
	}
	close(fd);
	return 0;
}

/* 1 when a password is stored for name, 0 when not, -1 on error. */
int
box_secret_exists(const char *name)
{
	char file[BOX_NAME_MAX + 8];
	struct stat st;
	int dfd, rc;

	if ((dfd = box_dir_open(0)) == -2)
		return 0;
	if (dfd < 0)
		return -1;
	file_name(name, file);
	rc = fstatat(dfd, file, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (!rc && errno != ENOENT) {
		warnx("box password of %s: %s", name, strerror(errno));
		rc = -1;
	}
	close(dfd);
	return rc;
}

static int
seal(const unsigned char *key, const char *name, const char *pw, size_t len,
    unsigned char *out)
{
	EVP_CIPHER_CTX *ctx;
	int n, rc = -1;

	if (RAND_bytes(out, NONCE_LEN) != 1 || (ctx = EVP_CIPHER_CTX_new()) == NULL)
		return -1;
	if (EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, out) == 1 &&
	    EVP_EncryptUpdate(ctx, NULL, &n, (const unsigned char *)name,
	    (int)strlen(name)) == 1 &&
	    EVP_EncryptUpdate(ctx, out + NONCE_LEN, &n, (const unsigned char *)pw,
	    (int)len) == 1 &&
	    EVP_EncryptFinal_ex(ctx, out + NONCE_LEN + n, &n) == 1 &&
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, TAG_LEN,
	    out + NONCE_LEN + len) == 1)
		rc = 0;
	EVP_CIPHER_CTX_free(ctx);
	return rc;
}

static int
unseal(const unsigned char *key, const char *name, unsigned char *in, size_t inlen,
    char *pw, size_t *len)
{
	EVP_CIPHER_CTX *ctx;
	size_t clen = inlen - NONCE_LEN - TAG_LEN;
	int n, rc = -1;

	if ((ctx = EVP_CIPHER_CTX_new()) == NULL)
		return -1;
	if (EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, in) == 1 &&
	    EVP_DecryptUpdate(ctx, NULL, &n, (const unsigned char *)name,
	    (int)strlen(name)) == 1 &&
	    EVP_DecryptUpdate(ctx, (unsigned char *)pw, &n, in + NONCE_LEN,
	    (int)clen) == 1 &&
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, TAG_LEN,
	    in + NONCE_LEN + clen) == 1 &&
	    EVP_DecryptFinal_ex(ctx, (unsigned char *)pw + n, &n) == 1) {
		*len = clen;
		rc = 0;
	}
	EVP_CIPHER_CTX_free(ctx);
	if (rc != 0)
		OPENSSL_cleanse(pw, clen);
	return rc;
}

/* Encrypt and store pw (already checked); 0, or -1 after saying why. */
int
box_secret_store(const char *name, const char *pw, size_t len)
{
	unsigned char key[KEY_LEN], sealed[SEALED_MAX];
	char file[BOX_NAME_MAX + 8];
	int dfd, rc = -1;

	if (len > BOX_PW_BYTES || (dfd = box_dir_open(1)) < 0)
		return -1;
	file_name(name, file);
	if (key_load(dfd, 1, key) != 0)
		box_fail("store-password", "the box key: %s", strerror(errno));
	else if (seal(key, name, pw, len, sealed) != 0)
		box_fail("store-password", "AES-256-GCM encryption failed");
	else if (box_replace_file(dfd, file, sealed, NONCE_LEN + len + TAG_LEN) != 0)
		box_fail("store-password", "writing %s: %s", file, strerror(errno));
	else
		rc = 0;
	OPENSSL_cleanse(key, sizeof key);
	close(dfd);
	return rc;
}

/*
 * Decrypt the stored password into pw (size >= BOX_PW_BYTES); 0 with its
 * length, 1 when none is stored, -1 after saying why.
 */
int
box_secret_load(const char *name, char *pw, size_t size, size_t *len)
{
	unsigned char key[KEY_LEN], sealed[SEALED_MAX];
	char file[BOX_NAME_MAX + 8];
	off_t fsize;
	int dfd, fd, rc = -1;

	if ((dfd = box_dir_open(0)) == -2)
		return 1;
	if (dfd < 0 || size < BOX_PW_BYTES)
		return -1;
	file_name(name, file);
	if ((fd = box_open_private(dfd, file, &fsize)) < 0) {
		rc = errno == ENOENT ? 1 : -1;
		if (rc < 0)
			box_fail("decrypt-password", "%s: %s", file, strerror(errno));
		close(dfd);
		return rc;
	}
	if (fsize <= NONCE_LEN + TAG_LEN || fsize > SEALED_MAX ||
	    box_read_exact(fd, sealed, (size_t)fsize) != 0)
		box_fail("decrypt-password", "%s: not a sealed box password", file);
	else if (key_load(dfd, 0, key) != 0)
		box_fail("decrypt-password", "the box key: %s", strerror(errno));
	else if (unseal(key, name, sealed, (size_t)fsize, pw, len) != 0)
		box_fail("decrypt-password", "%s does not decrypt with the box key "
		    "(wrong key or altered file)", file);
	else if (box_password_check(pw, *len) != NULL) {
		OPENSSL_cleanse(pw, *len);
		box_fail("decrypt-password", "%s holds an invalid password", file);
	} else
		rc = 0;
	OPENSSL_cleanse(key, sizeof key);
	close(fd);
	close(dfd);
	return rc;
}

/* Remove the stored password; 0 removed, 1 none was stored, -1 error. */
int
box_secret_clear(const char *name)
{
	char file[BOX_NAME_MAX + 8];
	int dfd, rc = 0;

	if ((dfd = box_dir_open(0)) == -2)
		return 1;
	if (dfd < 0)
		return -1;
	file_name(name, file);
	if (unlinkat(dfd, file, 0) != 0) {
		if (errno == ENOENT)
			rc = 1;
		else {
			box_fail("clear-password", "%s: %s", file, strerror(errno));
			rc = -1;
		}
	} else
		fsync(dfd);
	close(dfd);
	return rc;
}
