/* SPDX-License-Identifier: ISC */
/*
 * Who asks: a uid with every group it may act with, its name and home.
 * requester_self builds it for this process (and refuses a process in a
 * user namespace of its own); requester_lookup for a uid and gid the
 * kernel vouched for, such as a socket peer's credentials.
 */
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

#define PW_BUF_MAX	(1024 * 1024)
#define GROUPS_MAX	65536

/* uid 0 judges for "anyone but root" (path_replaceable). */
const struct requester requester_anyone = { .uid = 0, .gid = 0 };

static int
add_group(struct requester *rq, size_t *cap, gid_t g)
{
	gid_t *n;
	int i;

	for (i = 0; i < rq->ngroups; i++)
		if (rq->groups[i] == g)
			return 0;
	if ((size_t)rq->ngroups == *cap) {
		if (*cap >= GROUPS_MAX ||
		    (n = reallocarray(rq->groups, *cap * 2, sizeof *n)) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		rq->groups = n;
		*cap *= 2;
	}
	rq->groups[rq->ngroups++] = g;
	return 0;
}

/* The groups of the group database for name (primary gid included). */
static int
add_db_groups(struct requester *rq, size_t *cap, const char *name, gid_t gid)
{
	gid_t *list = NULL, *n;
	int count = 64, want, i, rc = -1;

	for (;;) {
		if ((n = reallocarray(list, (size_t)count, sizeof *n)) == NULL)
			goto out;
		list = n;
		want = count;
		if (getgrouplist(name, gid, list, &want) >= 0) {
			count = want;
			break;
		}
		if (want <= count || want > GROUPS_MAX) {
			errno = ENOMEM;
			goto out;
		}
		count = want;
	}
	for (i = 0; i < count; i++)
		if (add_group(rq, cap, list[i]) != 0)
			goto out;
	rc = 0;
out:
	free(list);
	return rc;
}

/*
 * uid and gid with the extra groups given (a process's supplementary
 * groups), the groups the database gives the user, and its name and home.
 * 0, or -1 with errno; a uid without a passwd entry is "unknown" without
 * a home.
 */
int
requester_lookup(struct requester *rq, uid_t uid, gid_t gid, const gid_t *extra,
    int nextra)
{
	struct passwd pw, *res = NULL;
	size_t size = 1024, cap = 16;
	char *buf = NULL, *n;
	int e, i;

	memset(rq, 0, sizeof *rq);
	rq->pid_start = -1;
	rq->uid = uid;
	rq->gid = gid;
	rq->groups = xcalloc(cap, sizeof *rq->groups);
	if (add_group(rq, &cap, gid) != 0)
		goto fail;
	for (i = 0; i < nextra; i++)
		if (add_group(rq, &cap, extra[i]) != 0)
			goto fail;
	for (;;) {
		if ((n = realloc(buf, size)) == NULL)
			goto fail;
		buf = n;
		e = getpwuid_r(uid, &pw, buf, size, &res);
		if (e != ERANGE)
			break;
		if (size >= PW_BUF_MAX) {
			errno = ENOMEM;
			goto fail;
		}
		size *= 2;
	}
	if (e != 0 && e != ENOENT && e != ESRCH) {
		errno = e;
		goto fail;
	}
	if (res != NULL) {
		rq->name = xstrdup(pw.pw_name);
		if (pw.pw_dir != NULL && pw.pw_dir[0] == '/')
			rq->home = xstrdup(pw.pw_dir);
		if (add_db_groups(rq, &cap, pw.pw_name, pw.pw_gid) != 0)
			goto fail;
	} else
		rq->name = xstrdup("unknown");
	free(buf);
	return 0;
fail:
	e = errno;
	free(buf);
	requester_free(rq);
	errno = e;
	return -1;
}

/* Open name under the procfs at procfd, crossing no mount point. */
static int
proc_open(int procfd, const char *name)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS,
	};
	struct statfs sfs;
	struct stat pst, st;
	int fd;

	fd = (int)syscall(SYS_openat2, procfd, name, &how, sizeof how);
	if (fd < 0 && errno == ENOSYS) {
		/* before Linux 5.6: no overmount from another file system */
		fd = openat(procfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
		if (fd >= 0 && (fstat(procfd, &pst) != 0 || fstat(fd, &st) != 0 ||
		    st.st_dev != pst.st_dev)) {
			close(fd);
			errno = EXDEV;
			return -1;
		}
	}
	if (fd >= 0 && (fstatfs(fd, &sfs) != 0 || sfs.f_type != PROC_SUPER_MAGIC)) {
		close(fd);
		errno = EXDEV;
		return -1;
	}
	return fd;
}

/*
 * Does this process run in the system's own user namespace? Inside
 * another one (unshare -U), the uids it sees and the owners of files are
 * what the agent mapped, and with its own mount namespace it can make its
 * own directory look root-owned: no writability judgement made in there
 * holds for root outside. Only the initial namespace (or one root made)
 * maps all 2^32 uids onto themselves, so /proc/self/uid_map must show
 * that, read from the kernel's procfs through no mount point an agent
 * could have stacked on it; and when pid 1's namespace can be seen
 * (pid 1 of this /proc, which a new pid namespace makes the agent's own),
 * it must be this one. 1, 0, or -1 with the reason in why when /proc
 * cannot answer.
 */
static int
initial_user_namespace(char *why, size_t size)
{
	struct statfs sfs;
	struct stat self, init;
	int procfd, fd, rc;

	procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (procfd < 0) {
		snprintf(why, size, "/proc cannot be opened: %s", strerror(errno));
		return -1;
	}
	if (fstatfs(procfd, &sfs) != 0 || sfs.f_type != PROC_SUPER_MAGIC) {
		snprintf(why, size, "/proc is not the kernel's procfs");
		close(procfd);
		return -1;
	}
	if ((fd = proc_open(procfd, "self/uid_map")) < 0) {
		snprintf(why, size, "/proc/self/uid_map %s", errno == EXDEV ?
		    "has a mount stacked on it" : strerror(errno));
		close(procfd);
		return -1;
	}
	rc = uid_map_identity(fd);
	close(fd);
	if (rc == 1 && fstatat(procfd, "self/ns/user", &self, 0) == 0 &&
	    fstatat(procfd, "1/ns/user", &init, 0) == 0 &&
	    (self.st_dev != init.st_dev || self.st_ino != init.st_ino))
		rc = 0;
	close(procfd);
	return rc;
}

/*
 * This process as the requester: its real uid and gid, its groups and
 * those the database gives it. EXIT_OK; EXIT_REFUSED (user_namespace)
 * when it runs in a user namespace of its own, or /proc cannot tell;
 * EXIT_INTERNAL with errno.
 */
int
requester_self(struct requester *rq, struct refusal *r)
{
	char why[128];
	gid_t *groups;
	int n, rc;

	memset(rq, 0, sizeof *rq);
	if ((rc = initial_user_namespace(why, sizeof why)) == 0) {
		refuse(r, "user_namespace", "$", "warrant runs in a user namespace of "
		    "its own (unshare -U, a rootless container): uids and file owners "
		    "there are not the system's, so no request is taken from it; ask "
		    "from the system's namespace");
		return EXIT_REFUSED;
	}
	if (rc < 0) {
		refuse(r, "user_namespace", "$", "warrant cannot tell whether it runs "
		    "in a user namespace of its own (%s), so no request is taken", why);
		return EXIT_REFUSED;
	}
	if ((n = getgroups(0, NULL)) < 0)
		return EXIT_INTERNAL;
	groups = xcalloc((size_t)n + 1, sizeof *groups);
	if ((n = getgroups(n, groups)) < 0) {
		free(groups);
		return EXIT_INTERNAL;
	}
	rc = requester_lookup(rq, getuid(), getgid(), groups, n);
	free(groups);
	if (rc != 0)
		return EXIT_INTERNAL;
	rq->self = 1;
	rq->pid = getpid();
	rq->pid_start = proc_start_time(rq->pid);
	return EXIT_OK;
}

void
requester_free(struct requester *rq)
{
	free(rq->groups);
	free(rq->name);
	free(rq->home);
	memset(rq, 0, sizeof *rq);
}
