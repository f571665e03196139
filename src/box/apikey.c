/* SPDX-License-Identifier: ISC */
/*
 * The box password route's keys and its memory of seen signatures, in
 * the box directory's "api" subdirectory (root, 0700): NAME.key holds the
 * 32 random bytes the platform signs with for box user NAME (root, 0600),
 * "seen" the signatures accepted within the time window, so that a replay
 * is refused even after the server restarts. Every file is opened without
 * following links and must be root's and closed to everyone else.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "warrant.h"
#include "box/box.h"

/* The api directory, created (0700) when asked; its fd, -2 when absent. */
static int
api_dir(int create)
{
	struct stat st;
	int bfd, fd;

	if ((bfd = box_dir_open(create)) < 0)
		return bfd;
	if (create && mkdirat(bfd, BOX_API_DIR, 0700) != 0 && errno != EEXIST) {
		warnx("cannot create the box api directory: %s", strerror(errno));
		close(bfd);
		return -1;
	}
	fd = openat(bfd, BOX_API_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(bfd);
	if (fd < 0) {
		if (errno == ENOENT && !create)
			return -2;
		warnx("the box api directory: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 077) != 0) {
		warnx("the box api directory must be owned by root with mode 0700");
		close(fd);
		return -1;
	}
	return fd;
}

static void
key_file(const char *name, char out[BOX_NAME_MAX + 8])
{
	snprintf(out, BOX_NAME_MAX + 8, "%s.key", name);
}

/*
 * Create name's key (32 bytes from the CSPRNG) into key; with rotate an
 * existing one is replaced. 0 created, 1 one exists (nothing changed,
 * without rotate), -1 after a message.
 */
int
box_apikey_create(const char *name, int rotate, unsigned char key[BOX_API_KEY_LEN])
{
	char file[BOX_NAME_MAX + 8];
	int dfd, fd, rc = -1;

	if (!box_name_ok(name) || (dfd = api_dir(1)) < 0)
		return -1;
	key_file(name, file);
	if (RAND_bytes(key, BOX_API_KEY_LEN) != 1) {
		warnx("no randomness for a key");
		close(dfd);
		return -1;
	}
	if (rotate) {
		if (box_replace_file(dfd, file, key, BOX_API_KEY_LEN) == 0)
			rc = 0;
		else
			warnx("writing the key %s: %s", file, strerror(errno));
	} else if ((fd = openat(dfd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) < 0) {
		if (errno == EEXIST)
			rc = 1;
		else
			warnx("creating the key %s: %s", file, strerror(errno));
	} else {
		if (write_all(fd, key, BOX_API_KEY_LEN) == 0 && fsync(fd) == 0 &&
		    fsync(dfd) == 0)
			rc = 0;
		else {
			warnx("writing the key %s: %s", file, strerror(errno));
			(void)unlinkat(dfd, file, 0);
		}
		close(fd);
	}
	if (rc != 0)
		OPENSSL_cleanse(key, BOX_API_KEY_LEN);
	close(dfd);
	return rc;
}

/* name's key into key: 0, 1 when there is none, -1 after a message. */
int
box_apikey_load(const char *name, unsigned char key[BOX_API_KEY_LEN])
{
	char file[BOX_NAME_MAX + 8];
	off_t size;
	int dfd, fd, rc = -1;

	if (!box_name_ok(name))
		return 1;
	if ((dfd = api_dir(0)) == -2)
		return 1;
	if (dfd < 0)
		return -1;
	key_file(name, file);
	if ((fd = box_open_private(dfd, file, &size)) < 0) {
		if (errno == ENOENT)
			rc = 1;
		else
			warnx("the key %s: %s (it must be root's, mode 0600)", file,
			    strerror(errno));
	} else if (size != BOX_API_KEY_LEN || box_read_exact(fd, key, BOX_API_KEY_LEN) != 0)
		warnx("the key %s is not %d bytes", file, BOX_API_KEY_LEN);
	else
		rc = 0;
	if (fd >= 0)
		close(fd);
	close(dfd);
	if (rc != 0)
		OPENSSL_cleanse(key, BOX_API_KEY_LEN);
	return rc;
}

/* Remove name's key (box remove), saying so: 0 removed, 1 there was
 * none, -1 after a message. */
int
box_apikey_remove(const char *name)
{
	char file[BOX_NAME_MAX + 8], dir[PATH_MAX];
	int dfd, rc = 0;

	if (!box_name_ok(name) || box_dir_path(dir, sizeof dir) != 0)
		return -1;
	if ((dfd = api_dir(0)) == -2)
		return 1;
	if (dfd < 0)
		return -1;
	key_file(name, file);
	if (unlinkat(dfd, file, 0) == 0) {
		fsync(dfd);
		printf("box password route key %s/%s/%s: removed\n", dir, BOX_API_DIR, file);
	} else if (errno == ENOENT)
		rc = 1;
	else {
		warnx("removing the key %s: %s", file, strerror(errno));
		rc = -1;
	}
	close(dfd);
	return rc;
}

/* The one box user with a key: 0 with its name, 1 when none or several
 * have one, -1 after a message. */
int
box_apikey_only(char name[BOX_NAME_MAX + 1])
{
	struct dirent *e;
	DIR *d;
	size_t n;
	int dfd, count = 0;

	name[0] = '\0';
	if ((dfd = api_dir(0)) == -2)
		return 1;
	if (dfd < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		n = strlen(e->d_name);
		if (n <= 4 || n - 4 > BOX_NAME_MAX || strcmp(e->d_name + n - 4, ".key") != 0)
			continue;
		if (++count == 1) {
			memcpy(name, e->d_name, n - 4);
			name[n - 4] = '\0';
		}
	}
	closedir(d);
	if (count != 1 || !box_name_ok(name)) {
		name[0] = '\0';
		return 1;
	}
	return 0;
}

/* A file of the api directory into buf (at most size bytes): 0 with its
 * length, 1 when absent, -1 after a message. */
int
box_api_read(const char *file, void *buf, size_t size, size_t *len)
{
	off_t fsize;
	int dfd, fd, rc = -1;

	*len = 0;
	if ((dfd = api_dir(0)) == -2)
		return 1;
	if (dfd < 0)
		return -1;
	if ((fd = box_open_private(dfd, file, &fsize)) < 0) {
		if (errno == ENOENT)
			rc = 1;
		else
			warnx("the box api file %s: %s", file, strerror(errno));
	} else if (fsize < 0 || (size_t)fsize > size ||
	    box_read_exact(fd, buf, (size_t)fsize) != 0)
		warnx("the box api file %s is unreadable or too large", file);
	else {
		*len = (size_t)fsize;
		rc = 0;
	}
	if (fd >= 0)
		close(fd);
	close(dfd);
	return rc;
}

/* Replace a file of the api directory atomically (0600); 0, or -1. */
int
box_api_write(const char *file, const void *data, size_t len)
{
	int dfd, rc;

	if ((dfd = api_dir(1)) < 0)
		return -1;
	if ((rc = box_replace_file(dfd, file, data, len)) != 0)
		warnx("writing the box api file %s: %s", file, strerror(errno));
	close(dfd);
	return rc;
}
