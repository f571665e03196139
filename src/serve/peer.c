/* SPDX-License-Identifier: ISC */
/*
 * Who a socket peer is, and whether it may ask this reviewer: the
 * kernel's credentials of the connecting process (SO_PEERCRED,
 * SO_PEERGROUPS), never a name it sends. Root, the overflow uid of an
 * unmapped user namespace and users outside warrant-REVIEWER are
 * refused; the reviewer itself is admitted. Membership is read from the
 * group database at every connection, so `warrant requesters remove`
 * takes effect for the next one.
 */
#include <sys/socket.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve.h"

#define NSS_BUF_MAX	(1024 * 1024)

/* The kernel's overflow uid: what an unmapped uid reads as. */
static uid_t
overflow_uid(void)
{
	char buf[32];
	ssize_t n;
	long v;
	int fd;

	if ((fd = open("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC)) < 0)
		return 65534;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 65534;
	buf[n] = '\0';
	v = strtol(buf, NULL, 10);
	return v > 0 ? (uid_t)v : 65534;
}

/* The passwd entry of uid: its name (and primary gid). 0, or -1. */
static int
user_of(uid_t uid, char *name, size_t size, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	size_t len = 1024;
	char *buf = NULL, *n;
	int e;

	for (;;) {
		if ((n = realloc(buf, len)) == NULL)
			break;
		buf = n;
		if ((e = getpwuid_r(uid, &pw, buf, len, &res)) != ERANGE || len >= NSS_BUF_MAX)
			break;
		len *= 2;
	}
	if (res != NULL && strlen(pw.pw_name) < size) {
		snprintf(name, size, "%s", pw.pw_name);
		if (gid != NULL)
			*gid = pw.pw_gid;
	} else
		res = NULL;
	free(buf);
	return res != NULL ? 0 : -1;
}

/* Read the credentials of the process at the other end of fd. 0, or -1. */
int
peer_read(int fd, struct peer *p)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	gid_t *g;

	memset(p, 0, sizeof *p);
	p->start = -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    len != sizeof cred)
		return -1;
	p->uid = cred.uid;
	p->gid = cred.gid;
	p->pid = cred.pid;
	p->start = cred.pid > 0 ? proc_start_time(cred.pid) : -1;
	len = 64 * sizeof *g;
	for (;;) {
		if ((g = realloc(p->groups, len)) == NULL)
			return -1;
		p->groups = g;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) == 0)
			break;
		if (errno != ERANGE || len > 65536 * sizeof *g)
			return -1;
	}
	p->ngroups = (int)(len / sizeof *g);
	if (user_of(p->uid, p->name, sizeof p->name, NULL) != 0)
		p->name[0] = '\0';
	return 0;
}

void
peer_free(struct peer *p)
{
	free(p->groups);
	p->groups = NULL;
}

/*
 * May p ask this reviewer? 1 yes; 0 no, with the reason in why (for the
 * peer and the daemon's log).
 */
int
peer_admitted(const struct daemon *d, struct peer *p, char *why, size_t size)
{
	gid_t pgid;
	int m;

	if (p->uid == d->uid)
		return 1;
	if (p->uid == 0) {
		snprintf(why, size, "root does not ask: it can run the commands itself");
		return 0;
	}
	if (p->uid == overflow_uid()) {
		snprintf(why, size, "uid %u is the overflow uid: the peer runs in a user "
		    "namespace whose uid is not mapped on this host", (unsigned)p->uid);
		return 0;
	}
	if (user_of(p->uid, p->name, sizeof p->name, &pgid) != 0) {
		snprintf(why, size, "uid %u has no user on this host", (unsigned)p->uid);
		return 0;
	}
	if ((m = group_has_member(d->group, p->name, pgid, NULL)) <= 0) {
		snprintf(why, size, "%s (uid %u) is not a requester of %s: as root, "
		    "`warrant requesters add --reviewer %s %s`", p->name, (unsigned)p->uid,
		    d->name, d->name, p->name);
		return 0;
	}
	return 1;
}

/* This process's user: the reviewer, its group name and socket path. */
int
daemon_identity(struct daemon *d)
{
	struct passwd *pw;

	d->uid = getuid();
	if (d->uid == 0) {
		fprintf(stderr, "warrant serve: runs as the reviewer, not as root\n");
		return -1;
	}
	if (user_of(d->uid, d->name, sizeof d->name, NULL) != 0 ||
	    (pw = getpwuid(d->uid)) == NULL) {
		fprintf(stderr, "warrant serve: uid %u has no user name\n", (unsigned)d->uid);
		return -1;
	}
	d->home = pw->pw_dir != NULL && pw->pw_dir[0] == '/' ? xstrdup(pw->pw_dir) : NULL;
	snprintf(d->group, sizeof d->group, "warrant-%s", d->name);
	if ((size_t)snprintf(d->dir, sizeof d->dir, "%s/%s", WARRANT_RUN_DIR, d->name) >=
	    sizeof d->dir || (size_t)snprintf(d->path, sizeof d->path, "%s/req.sock",
	    d->dir) >= sizeof d->path) {
		fprintf(stderr, "warrant serve: the socket path is too long\n");
		return -1;
	}
	return 0;
}
