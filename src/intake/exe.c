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

/* The denylists (shared/denylist.c) for an executable resolved here. */
enum deny_kind
deny_executable(struct denylist *d, const struct exe *e)
{
	return deny_file(d, e->given, e->path, &e->st, e->sha256);
}

int
deny_is_loader(struct denylist *d, const struct exe *e)
{
	return deny_loader_file(d, e->given, e->path, &e->st, e->sha256);
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

/* Could p reach into process pid (process_touchable)? Returns 1 (with a
 * reason in why), 0, or -1 when it cannot be judged. */
int
process_touchable_by(const struct requester *p, pid_t pid, char *why, size_t size)
{
	const struct writer w = { p->uid, p->groups, p->ngroups, p->self };

	return process_touchable(&w, pid, why, size);
}
