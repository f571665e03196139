/* SPDX-License-Identifier: ISC */
/*
 * Executables: resolve a name on the trusted path, follow symlinks to the
 * real file, hash it through the descriptor it was opened with, and decide
 * whether someone could replace it between review and run.
 *
 * Paths a requester names are looked up as the requester could
 * (reach_path): the daemon runs as the reviewer and cannot take another
 * uid, so it walks the path itself, one entry at a time, with the
 * requester's uid and groups judging each directory, and what the
 * requester could not look up fails exactly as a missing entry.
 */
#include <sys/xattr.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

/* Symbolic links followed in one lookup: the kernel's own bound (ELOOP). */
#define REACH_LINKS_MAX	40

static int
in_groups(const struct requester *p, gid_t g)
{
	int i;

	for (i = 0; i < p->ngroups; i++)
		if (p->groups[i] == g)
			return 1;
	return 0;
}

/* Does the inode behind fd carry an access ACL (which the mode bits do
 * not tell about)? Through /proc for an O_PATH descriptor. */
static int
has_acl(int fd)
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	n = getxattr(proc, "system.posix_acl_access", NULL, 0);
	return n >= 0 || (errno != ENODATA && errno != ENOTSUP && errno != EOPNOTSUPP);
}

/*
 * May p do what the bits (S_IROTH or S_IXOTH, shifted for its class:
 * owner, group, other) allow on the inode of fd? An ACL, which the bits do
 * not tell about, closes it to anyone but its owner. Root and the process
 * itself (self) may: the kernel judges their own opens.
 */
int
requester_may(const struct requester *p, int fd, mode_t other_bit)
{
	struct stat st;

	if (p == NULL || p->self || p->uid == 0)
		return 1;
	if (fstat(fd, &st) != 0)
		return 0;
	if (st.st_uid == p->uid)
		return (st.st_mode & (other_bit << 6)) != 0;
	if (has_acl(fd))
		return 0;
	if (in_groups(p, st.st_gid))
		return (st.st_mode & (other_bit << 3)) != 0;
	return (st.st_mode & other_bit) != 0;
}

/* Append "/" name to real (PATH_MAX, "" for /). 0, or -1 (ENAMETOOLONG). */
static int
real_append(char *real, const char *name)
{
	size_t len = strlen(real);

	if (len + 1 + strlen(name) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	real[len] = '/';
	strcpy(real + len + 1, name);
	return 0;
}

/*
 * Look the absolute path up as p could: from / one entry at a time, each
 * directory on the way searchable by p (requester_may), symbolic links
 * followed as the kernel would (the last one only when follow), ".."
 * taken physically. What p could not look up fails ENOENT, as a missing
 * entry does: the answer is the same whether anything is there. p NULL
 * or self: the kernel alone judges. An O_PATH descriptor of what path
 * names, its path without links in real (PATH_MAX bytes); -1 with errno.
 */
int
reach_path(const struct requester *p, const char *path, int follow, char *real)
{
	char todo[2 * PATH_MAX], name[NAME_MAX + 1], target[PATH_MAX], *rest;
	struct stat st;
	size_t len, tlen;
	ssize_t n;
	int dfd, fd, links = 0, last, saved;

	real[0] = '\0';
	if (path[0] != '/' || strlen(path) >= PATH_MAX) {
		errno = path[0] != '/' ? EINVAL : ENAMETOOLONG;
		return -1;
	}
	strcpy(todo, path);
	if ((dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	for (;;) {
		for (rest = todo; *rest == '/'; rest++)
			;
		if (*rest == '\0') {
			if (real[0] == '\0')
				strcpy(real, "/");
			return dfd;
		}
		if ((len = strcspn(rest, "/")) > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, rest, len);
		name[len] = '\0';
		memmove(todo, rest + len, strlen(rest + len) + 1);
		/* looking into dfd is what p may not do: as if nothing were there */
		if (!requester_may(p, dfd, S_IXOTH)) {
			errno = ENOENT;
			goto fail;
		}
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			if ((fd = openat(dfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
				goto fail;
			close(dfd);
			dfd = fd;
			if ((rest = strrchr(real, '/')) != NULL)
				*rest = '\0';
			continue;
		}
		last = todo[strspn(todo, "/")] == '\0';
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			goto fail;
		if (S_ISLNK(st.st_mode) && (!last || follow || todo[0] == '/')) {
			if (++links > REACH_LINKS_MAX) {
				errno = ELOOP;
				goto fail;
			}
			if ((n = readlinkat(dfd, name, target, sizeof target)) < 0)
				goto fail;
			tlen = strlen(todo);
			if ((size_t)n >= sizeof target || (size_t)n + tlen >= sizeof todo) {
				errno = ENAMETOOLONG;
				goto fail;
			}
			memmove(todo + n, todo, tlen + 1);
			memcpy(todo, target, (size_t)n);
			if (target[0] == '/') {
				if ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
					goto fail;
				close(dfd);
				dfd = fd;
				real[0] = '\0';
			}
			continue;
		}
		/* a name followed by "/" must be a directory, as for the kernel */
		fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC |
		    (!last || todo[0] == '/' ? O_DIRECTORY : 0));
		if (fd < 0)
			goto fail;
		close(dfd);
		dfd = fd;
		if (real_append(real, name) != 0)
			goto fail;
		if (last)
			return dfd;
	}
fail:
	saved = errno;
	close(dfd);
	real[0] = '\0';
	errno = saved;
	return -1;
}

/* A regular file opened for reading from its O_PATH descriptor (closed),
 * stat in st; -1 with errno (EISDIR, EINVAL: not a regular file), and
 * nothing else ever opened (a FIFO waited for, a device touched). */
int
reopen_regular(int pfd, struct stat *st)
{
	char proc[64];
	int fd = -1;

	if (fstat(pfd, st) != 0)
		fd = -1;
	else if (!S_ISREG(st->st_mode))
		errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
	else {
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
		fd = open(proc, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	}
	if (fd >= 0 && (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))) {
		close(fd);
		errno = EINVAL;
		fd = -1;
	}
	close(pfd);
	return fd;
}

/*
 * Resolve argv[0] into exe for p: the given name, the real path and the
 * SHA-256 of the file's content read through one descriptor. Refuses with
 * bad_executable when it cannot be an executable regular file that p can
 * read (its hash would tell p about a file closed to it), and with
 * executable_too_large over EXE_SIZE_MAX, before anything is read.
 */
int
exe_resolve(const struct requester *p, const char *name, struct exe *e, struct refusal *r,
    const char *jpath)
{
	char found[PATH_MAX];
	const char *lookup = name;
	uint64_t size;
	int fd, rc;

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
	if ((fd = reach_path(p, lookup, 1, e->path)) < 0)
		return refuse(r, "bad_executable", jpath, "'%s' cannot be resolved: %s",
		    name, strerror(errno));
	if ((fd = reopen_regular(fd, &e->st)) >= 0 && !requester_may(p, fd, S_IROTH)) {
		close(fd);
		errno = EACCES;
		fd = -1;
	}
	if (fd < 0)
		return refuse(r, "bad_executable", jpath, "'%s' is not a regular file %s can "
		    "read: %s", e->path, p != NULL && !p->self ? "the requester" : "this user",
		    strerror(errno));
	if ((e->st.st_mode & 0111) == 0) {
		close(fd);
		return refuse(r, "bad_executable", jpath, "'%s' is not executable", e->path);
	}
	/* the size first: a sparse file costs nothing to make and much to hash;
	 * the bound again while hashing, for one that grows meanwhile */
	if (e->st.st_size > EXE_SIZE_MAX ||
	    (rc = sha256_stream(fd, EXE_SIZE_MAX, NULL, NULL, e->sha256, &size)) == 1) {
		close(fd);
		return refuse(r, "executable_too_large", jpath, "'%s' is larger than %lld bytes "
		    "(%lld MiB); it is not hashed", e->path, (long long)EXE_SIZE_MAX,
		    (long long)EXE_SIZE_MAX / 1048576);
	}
	if (rc != 0) {
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

/* deny_word as p sees the word: a path p cannot look up (reach_path) is
 * judged as a missing one is, by its name alone. */
enum deny_kind
deny_word_for(struct denylist *d, const struct requester *p, const char *word)
{
	char real[PATH_MAX];
	int fd;

	if (word[0] == '/' && p != NULL && !p->self) {
		if ((fd = reach_path(p, word, 1, real)) < 0)
			return deny_by_name(d, word);
		close(fd);
	}
	return deny_word(d, word);
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
