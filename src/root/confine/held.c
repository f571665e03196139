/* SPDX-License-Identifier: ISC */
/*
 * What the requester already holds (promise 8): a file it opened for
 * writing, or mapped shared and writable, before root took it over (a
 * chown -R root: of the tree it built) stays the requester's to change
 * whoever owns it now. The kernel counts every open for writing of an
 * inode, mappings and descriptors in flight in a socket's queue included
 * (i_writecount), and says whether that count is zero to whoever asks
 * for a read lease: F_SETLEASE F_RDLCK fails with EAGAIN while anyone
 * holds the file open for writing. Whose descriptor it is, the kernel
 * does not say: the requester's processes (by uid, or in a user
 * namespace it owns: process_touchable) are searched for it, their
 * descriptors (/proc/PID/task/TID/fd, fdinfo's flags) and shared
 * writable mappings (/proc/PID/maps). The same search finds whether one
 * of them holds a socket (requester_serves): whoever serves a listening
 * socket is whoever holds it, not whoever made it.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "supervise.h"

/* Does anyone hold the regular file fd (open for reading or not) open
 * for writing? 1, 0, or -1 when the kernel cannot say (no leases on that
 * filesystem, or leases disabled). */
int
held_for_write(int fd)
{
	char proc[32];
	int rfd, rc;

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	/* a lease needs a descriptor opened for reading only: a new one
	 * (O_NONBLOCK: a lease another holds is not waited for) */
	if ((rfd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
		return -1;
	if (fcntl(rfd, F_SETLEASE, F_RDLCK) == 0) {
		(void)fcntl(rfd, F_SETLEASE, F_UNLCK);
		rc = 0;
	} else
		rc = errno == EAGAIN || errno == EBUSY ? 1 : -1;
	close(rfd);
	return rc;
}

/* What is looked for in a process: a file held for writing (dev, ino),
 * or a socket (ino). */
struct holding {
	int		 socket;
	dev_t		 dev;
	unsigned long	 ino;
};

/* One task's descriptors: one of h's (a file's: open for writing)? */
static int
task_fds_hold(pid_t pid, pid_t tid, const struct holding *h)
{
	char p[128], info[512];
	struct dirent *d;
	struct stat st;
	unsigned long flags;
	const char *f;
	ssize_t n;
	DIR *dir;
	int fd, found = 0;

	snprintf(p, sizeof p, "/proc/%d/task/%d/fd", (int)pid, (int)tid);
	if ((dir = opendir(p)) == NULL)
		return 0;
	while (!found && (d = readdir(dir)) != NULL) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(p, sizeof p, "/proc/%d/task/%d/fd/%.20s", (int)pid, (int)tid, d->d_name);
		if (stat(p, &st) != 0 || st.st_ino != h->ino)
			continue;
		if (h->socket) {
			found = S_ISSOCK(st.st_mode);
			continue;
		}
		if (st.st_dev != h->dev)
			continue;
		snprintf(p, sizeof p, "/proc/%d/task/%d/fdinfo/%.20s", (int)pid, (int)tid,
		    d->d_name);
		if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, info, sizeof info - 1);
		close(fd);
		if (n <= 0)
			continue;
		info[n] = '\0';
		if ((f = strstr(info, "flags:")) != NULL &&
		    sscanf(f + 6, "%lo", &flags) == 1 && (flags & O_ACCMODE) != O_RDONLY)
			found = 1;
	}
	closedir(dir);
	return found;
}

/* A shared, writable mapping of (dev, ino) in process pid? */
static int
maps_hold(pid_t pid, dev_t dev, ino_t ino)
{
	char p[128], line[1024], perms[8];
	unsigned maj, min;
	unsigned long long inode;
	FILE *fp;
	int found = 0;

	snprintf(p, sizeof p, "/proc/%d/maps", (int)pid);
	if ((fp = fopen(p, "re")) == NULL)
		return 0;
	while (!found && fgets(line, sizeof line, fp) != NULL) {
		if (sscanf(line, "%*s %7s %*s %x:%x %llu", perms, &maj, &min, &inode) != 4)
			continue;
		found = perms[1] == 'w' && perms[3] == 's' && inode == (unsigned long long)ino &&
		    makedev(maj, min) == dev;
	}
	fclose(fp);
	return found;
}

static int
process_holds(pid_t pid, const struct holding *h)
{
	char task[64];
	struct dirent *t;
	DIR *tasks;
	pid_t tid;
	int found = !h->socket && maps_hold(pid, h->dev, (ino_t)h->ino);

	snprintf(task, sizeof task, "/proc/%d/task", (int)pid);
	if (found || (tasks = opendir(task)) == NULL)
		return found;
	/* a thread may have a descriptor table of its own */
	while (!found && (t = readdir(tasks)) != NULL) {
		if (!isdigit((unsigned char)t->d_name[0]))
			continue;
		tid = (pid_t)strtol(t->d_name, NULL, 10);
		found = task_fds_hold(pid, tid, h);
	}
	closedir(tasks);
	return found;
}

/* The first process of the requester's (by uid, or in a user namespace
 * it owns) that holds h; 0 when none does. */
static pid_t
requester_holding(const struct writer *w, const struct holding *h)
{
	char reason[256];
	struct dirent *d;
	DIR *all;
	pid_t pid, found = 0;

	if ((all = opendir("/proc")) == NULL)
		return 0;
	while (found == 0 && (d = readdir(all)) != NULL) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid = (pid_t)strtol(d->d_name, NULL, 10);
		if (pid != getpid() && process_touchable(w, pid, reason, sizeof reason) > 0 &&
		    process_holds(pid, h))
			found = pid;
	}
	closedir(all);
	return found;
}

/*
 * Does a process of the requester hold st's inode open for writing, or
 * map it shared and writable? 1 (with why naming the process), else 0.
 */
int
requester_holds(const struct writer *w, const struct stat *st, char *why, size_t size)
{
	const struct holding h = { 0, st->st_dev, (unsigned long)st->st_ino };
	pid_t pid = requester_holding(w, &h);

	if (pid != 0)
		snprintf(why, size, "%s holds it open for writing (process %d)",
		    w->uid == 0 ? "a non-root user" : "the requester", (int)pid);
	return pid != 0;
}

/*
 * Does a process of the requester hold the socket whose inode is ino (a
 * listening socket root connected through, whoever made it: systemd's
 * socket activation of a service that runs as the requester)? 1 (with
 * why naming the process), else 0.
 */
int
requester_serves(const struct writer *w, unsigned long ino, const char *what, char *why,
    size_t size)
{
	const struct holding h = { 1, 0, ino };
	pid_t pid = requester_holding(w, &h);

	if (pid != 0)
		snprintf(why, size, "%s holds %s (process %d)", w->uid == 0 ?
		    "a non-root user" : "the requester", what, (int)pid);
	return pid != 0;
}
