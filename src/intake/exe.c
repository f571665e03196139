/* SPDX-License-Identifier: ISC */
/*
 * Executables: resolve a name on the trusted path, follow symlinks to the
 * real file, hash it through the descriptor it was opened with, and decide
 * whether someone could replace it between review and run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

/* Open a regular file for reading without following a final symlink and
 * without blocking on a FIFO; -1 with errno when it is anything else. */
int
open_regular(const char *path, struct stat *st)
{
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0) {
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	return fd;
}

/* Find a bare name on the trusted path; 0 with the path in out. */
int
exe_lookup(const char *name, char *out, size_t size)
{
	static const char *const dirs[] = {
		"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin",
		"/sbin", "/bin",
	};
	struct stat st;
	size_t i;

	if (*name == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -1;
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if ((size_t)snprintf(out, size, "%s/%s", dirs[i], name) >= size)
			return -1;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 0111) != 0)
			return 0;
	}
	return -1;
}

/*
 * Resolve argv[0] into exe: the given name, the real path and the SHA-256
 * of the file's content read through one descriptor. Refuses with
 * bad_executable when it cannot be an executable regular file.
 */
int
exe_resolve(const char *name, struct exe *e, struct refusal *r, const char *jpath)
{
	char found[PATH_MAX];
	const char *lookup = name;
	int fd;

	memset(e, 0, sizeof *e);
	if (strlen(name) >= sizeof e->given)
		return refuse(r, "bad_executable", jpath, "the executable path is too long");
	strcpy(e->given, name);
	if (name[0] != '/') {
		if (strchr(name, '/') != NULL)
			return refuse(r, "bad_executable", jpath,
			    "'%s' is a relative path; use an absolute path or a bare name", name);
		if (exe_lookup(name, found, sizeof found) != 0)
			return refuse(r, "bad_executable", jpath,
			    "'%s' is not found on the trusted path " TRUSTED_PATH, name);
		lookup = found;
	}
	if (realpath(lookup, e->path) == NULL)
		return refuse(r, "bad_executable", jpath, "'%s' cannot be resolved: %s",
		    name, strerror(errno));
	if ((fd = open_regular(e->path, &e->st)) < 0)
		return refuse(r, "bad_executable", jpath, "'%s' is not a readable regular file: %s",
		    e->path, strerror(errno));
	if ((e->st.st_mode & 0111) == 0) {
		close(fd);
		return refuse(r, "bad_executable", jpath, "'%s' is not executable", e->path);
	}
	if (sha256_fd(fd, e->sha256) != 0) {
		int saved = errno;

		close(fd);
		return refuse(r, "bad_executable", jpath, "'%s' cannot be read: %s",
		    e->path, strerror(saved));
	}
	close(fd);
	return 0;
}

/* Could p replace the file at path? The shared judgement (path_writable)
 * for a requester. Returns 1 (with a reason in why), 0, or -1. */
int
path_replaceable(const struct requester *p, const char *path, char *why, size_t size)
{
	const struct writer w = { p->uid, p->groups, p->ngroups, p->self };

	return path_writable(&w, path, why, size);
}

/* Could p change what root finds at path, as given (path_changeable)?
 * Returns 1 (with a reason in why), 0, or -1. */
int
path_changeable_by(const struct requester *p, const char *path, char *why, size_t size)
{
	const struct writer w = { p->uid, p->groups, p->ngroups, p->self };

	return path_changeable(&w, path, why, size);
}
