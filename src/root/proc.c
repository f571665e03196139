/* SPDX-License-Identifier: ISC */
/*
 * Could someone reach into a process: the judgement shared by request
 * validation (a ROOT command that targets a process by pid: nsenter,
 * gdb, strace, ...) and the runner's supervisor (setns, ptrace, pidfd,
 * process_vm at run time). Root entering or attaching to a process the
 * requester controls would run or read what the requester decides
 * (docs/design.md §1, promise 8). No allocation, bounded buffers.
 */
#include <sys/ioctl.h>
#include <linux/nsfs.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "root.h"

#define PROC_STATUS_MAX	8192
#define STATUS_GROUPS_MAX	(1024 * 1024)	/* /proc/PID/status with 65536 groups */
#define USERNS_DEPTH	40	/* the kernel nests at most 32 */

static int
uid_matches(const struct writer *w, unsigned long uid)
{
	return w->uid == 0 ? uid != 0 : uid == (unsigned long)w->uid;
}

/* The four uids of /proc/PID/status (real, effective, saved, fs); 0, or
 * -1 with errno. */
static int
status_uids(pid_t pid, unsigned long uid[4])
{
	char path[64], buf[PROC_STATUS_MAX], *s, *end;
	ssize_t n;
	int fd, i;

	/* one read: the Uid line is in the first lines, whatever follows */
	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0) {
		errno = n == 0 ? EINVAL : errno;
		return -1;
	}
	buf[n] = '\0';
	if ((s = strstr(buf, "\nUid:")) == NULL) {
		errno = EINVAL;
		return -1;
	}
	s += 5;
	for (i = 0; i < 4; i++) {
		errno = 0;
		uid[i] = strtoul(s, &end, 10);
		if (end == s || errno != 0 || (*end != '\t' && *end != ' ' && *end != '\n')) {
			errno = EINVAL;
			return -1;
		}
		s = end;
	}
	return 0;
}

/*
 * Is fd (a uid_map) the identity map of all 2^32 ids? Only a namespace
 * made by root (or the initial one) maps them all onto the reader's.
 */
int
uid_map_identity(int fd)
{
	char buf[256];
	unsigned long a, b, c;
	ssize_t n;
	int used;

	n = read(fd, buf, sizeof buf - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu %lu%n", &a, &b, &c, &used) != 3)
		return 0;
	return a == 0 && b == 0 && c == 4294967295UL &&
	    buf[used + strspn(buf + used, " \t\n")] == '\0';
}

/*
 * Walk the user namespace of pid and its ancestors up to the one this
 * process is in (whose owner is outside what it can judge; NS_GET_PARENT
 * says EPERM there): 1 with the owner in *owner when one is the
 * writer's, 0, -1 with errno.
 */
static int
userns_owned(const struct writer *w, pid_t pid, unsigned long *owner)
{
	struct stat self, st;
	char path[64];
	uid_t uid;
	int fd, parent, depth;

	if (stat("/proc/self/ns/user", &self) != 0)
		return -1;
	snprintf(path, sizeof path, "/proc/%ld/ns/user", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return -1;
	for (depth = 0; depth < USERNS_DEPTH; depth++) {
		if (fstat(fd, &st) != 0)
			break;
		if (st.st_dev == self.st_dev && st.st_ino == self.st_ino) {
			close(fd);
			return 0;
		}
		if (ioctl(fd, NS_GET_OWNER_UID, &uid) != 0)
			break;
		if (uid_matches(w, uid)) {
			*owner = uid;
			close(fd);
			return 1;
		}
		if ((parent = ioctl(fd, NS_GET_PARENT)) < 0) {
			close(fd);
			return errno == EPERM ? 0 : -1;
		}
		close(fd);
		fd = parent;
	}
	close(fd);
	errno = depth < USERNS_DEPTH ? errno : ELOOP;
	return -1;
}

/*
 * When this process may not open pid's namespace (it is not root and
 * cannot trace pid), pid's uid_map still tells whether pid is in a user
 * namespace that maps every id: the initial one, or one root made. 1
 * when it is, 0 when not, -1.
 */
static int
userns_identity(pid_t pid)
{
	char path[64];
	int fd, rc;

	snprintf(path, sizeof path, "/proc/%ld/uid_map", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)) < 0)
		return -1;
	rc = uid_map_identity(fd);
	close(fd);
	return rc;
}

/*
 * Could w reach into process pid? 1 (with a reason in why) when any of
 * its uids (real, effective, saved, fs) is w's — a process w owns, or a
 * set-user-ID program w started — or its user namespace or an ancestor
 * of it is owned by w (w has every capability there). For uid 0 the
 * question is whether anyone but root could: any non-zero uid or owner.
 * 0 when not; -1 (with why) when it cannot be judged: no such process,
 * or /proc does not answer.
 */
int
process_touchable(const struct writer *w, pid_t pid, char *why, size_t size)
{
	const char *who = w->uid == 0 ? "a non-root user" : "the requester";
	unsigned long uid[4], owner = 0;
	int i, rc, e;

	if (pid <= 0) {
		snprintf(why, size, "%ld is not a process id", (long)pid);
		return -1;
	}
	if (status_uids(pid, uid) != 0) {
		snprintf(why, size, "process %ld cannot be examined: %s", (long)pid,
		    errno == ENOENT ? "no such process" : strerror(errno));
		return -1;
	}
	for (i = 0; i < 4; i++)
		if (uid_matches(w, uid[i])) {
			snprintf(why, size, "process %ld belongs to %s (uid %lu)", (long)pid,
			    who, uid[i]);
			return 1;
		}
	rc = userns_owned(w, pid, &owner);
	e = errno;
	if (rc > 0) {
		snprintf(why, size, "process %ld is in a user namespace owned by %s (uid %lu)",
		    (long)pid, who, owner);
		return 1;
	}
	/* the namespace cannot be opened from here: only one that maps
	 * every id (the initial one, or root's) is known not to be w's */
	if (rc < 0 && (e == EACCES || e == EPERM) && userns_identity(pid) == 1)
		return 0;
	if (rc < 0) {
		snprintf(why, size, "the user namespace of process %ld cannot be examined: %s",
		    (long)pid, strerror(e));
		return -1;
	}
	return 0;
}

static int
by_gid(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and keep each gid once; the new length. */
static int
gids_unique(gid_t *g, int n)
{
	int i, k = 0;

	qsort(g, (size_t)n, sizeof *g, by_gid);
	for (i = 0; i < n; i++)
		if (k == 0 || g[k - 1] != g[i])
			g[k++] = g[i];
	return k;
}

/*
 * The requester's groups as they are now: those it had when it asked
 * (groups, n of them) and every group any process of its uid holds now
 * (an old session keeps a group the account has lost, and can still
 * write through it). A new list (free it) and its length in *n.
 */
gid_t *
requester_groups_live(uid_t uid, const gid_t *groups, int *n)
{
	const int cap = 2 * NGROUPS_MAX;
	char path[64], *buf = xcalloc(1, STATUS_GROUPS_MAX + 1), *s, *end;
	gid_t *all = xcalloc((size_t)cap + (size_t)*n, sizeof *all);
	unsigned long id[4], g;
	struct dirent *d;
	int k = 0, i, fd;
	ssize_t len;
	DIR *dir;

	for (i = 0; i < *n; i++)
		all[k++] = groups[i];
	if ((dir = opendir("/proc")) != NULL) {
		while ((d = readdir(dir)) != NULL) {
			if (d->d_name[0] < '1' || d->d_name[0] > '9' ||
			    status_uids((pid_t)strtol(d->d_name, NULL, 10), id) != 0 ||
			    (id[0] != uid && id[1] != uid && id[2] != uid && id[3] != uid))
				continue;
			snprintf(path, sizeof path, "/proc/%.20s/status", d->d_name);
			if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
				continue;
			len = read(fd, buf, STATUS_GROUPS_MAX);
			close(fd);
			buf[len > 0 ? len : 0] = '\0';
			if ((s = strstr(buf, "\nGroups:")) == NULL)
				continue;
			for (s += 8; ; s = end) {
				g = strtoul(s, &end, 10);
				if (end == s)
					break;
				/* a process holds at most NGROUPS_MAX: room for it */
				if (k >= cap + *n - NGROUPS_MAX)
					k = gids_unique(all, k);
				if (k < cap + *n)
					all[k++] = (gid_t)g;
			}
		}
		closedir(dir);
	}
	free(buf);
	*n = gids_unique(all, k);
	return all;
}
