/* SPDX-License-Identifier: ISC */
/*
 * Every child warrant starts goes through spawn(): fork, then in the child
 * only async-signal-safe calls and no allocation (the process may have
 * threads): signal dispositions back to their defaults and the mask
 * empty, the process group or session, stdin/stdout/stderr, every other
 * descriptor closed (close_fds: close_range, or by hand on kernels before
 * 5.9), the directory, the credentials (computed before the fork), the
 * umask, and exec. spawn() returns once the child has exec'd;
 * an exec that failed is reported with its errno, the child reaped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "root.h"
#include "confine/supervise.h"

/* user's groups (getgrouplist, with gid) for a child that runs as
 * uid:gid. 0, or -1 when the groups cannot be found. */
int
spawn_cred_init(struct spawn_cred *c, const char *user, uid_t uid, gid_t gid)
{
	int n = 32;

	memset(c, 0, sizeof *c);
	for (;;) {
		c->groups = xcalloc((size_t)n, sizeof *c->groups);
		c->ngroups = n;
		if (getgrouplist(user, gid, c->groups, &c->ngroups) >= 0)
			break;
		free(c->groups);
		c->groups = NULL;
		if (c->ngroups <= n || n >= 65536)
			return -1;
		n = c->ngroups;
	}
	c->uid = uid;
	c->gid = gid;
	return 0;
}

void
spawn_cred_free(struct spawn_cred *c)
{
	free(c->groups);
	c->groups = NULL;
}

/* close_fds by hand: every descriptor /proc/self/fd lists in [lo, hi],
 * read again until a pass finds none (closing changes the listing), or,
 * without /proc, every number up to the descriptor limit. */
static int
close_by_hand(unsigned lo, unsigned hi)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct dirent64))));
	struct dirent64 *d;
	struct rlimit rl;
	unsigned long fd;
	const char *c;
	ssize_t n, off;
	int dfd, closed;

	if ((dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
			return -1;
		for (fd = lo; fd <= hi && fd < rl.rlim_cur; fd++)
			(void)close((int)fd);
		return 0;
	}
	do {
		closed = 0;
		if (lseek(dfd, 0, SEEK_SET) != 0)
			break;
		while ((n = getdents64(dfd, buf, sizeof buf)) > 0)
			for (off = 0; off < n; off += d->d_reclen) {
				d = (struct dirent64 *)(void *)(buf + off);
				for (fd = 0, c = d->d_name; *c >= '0' && *c <= '9'; c++)
					fd = fd * 10 + (unsigned long)(*c - '0');
				if (*c == '\0' && c != d->d_name && fd >= lo && fd <= hi &&
				    (int)fd != dfd && close((int)fd) == 0)
					closed = 1;
			}
	} while (closed && n == 0);
	close(dfd);
	return n == 0 ? 0 : -1;
}

/*
 * Close every descriptor from lo to hi (~0U: all above lo). Safe in the
 * child of a fork: no allocation. close_range where the kernel has it;
 * before Linux 5.9 (ENOSYS), or where a seccomp filter answers so, by hand.
 */
int
close_fds(unsigned lo, unsigned hi)
{
	if (close_range(lo, hi, 0) == 0)
		return 0;
	return errno == ENOSYS ? close_by_hand(lo, hi) : -1;
}

/* In the child: never returns; errno goes to report when exec fails. */
static void __attribute__((noreturn))
child(const struct spawn *s, int report, int svsock)
{
	const struct spawn_cred *c = s->cred;
	struct sigaction sa;
	sigset_t none;
	int fd[3], exefd = -1, null, next = 3, i, e;

	memset(&sa, 0, sizeof sa);
	for (i = 1; i < NSIG; i++) {
		sa.sa_handler = s->ignore != NULL && sigismember(s->ignore, i) == 1 ?
		    SIG_IGN : SIG_DFL;
		(void)sigaction(i, &sa, NULL);	/* refused: KILL, STOP, glibc's 32, 33 */
	}
	sigemptyset(&none);
	if (pthread_sigmask(SIG_SETMASK, &none, NULL) != 0 ||
	    (s->group == EXEC_SESSION && setsid() < 0) ||
	    (s->group == EXEC_GROUP && setpgid(0, 0) != 0))
		goto fail;
	/* every descriptor to keep goes above 4 first: putting one at 0-4
	 * then cannot overwrite another not yet in place */
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 ||
	    (i = fcntl(report, F_DUPFD_CLOEXEC, 5)) < 0)
		goto fail;
	report = i;
	for (i = 0; i < 3; i++)
		if ((fd[i] = fcntl(s->fd[i] >= 0 ? s->fd[i] : null, F_DUPFD_CLOEXEC, 5)) < 0)
			goto fail;
	if (s->path == NULL && (exefd = fcntl(s->exefd, F_DUPFD_CLOEXEC, 5)) < 0)
		goto fail;
	if (svsock >= 0 && (svsock = fcntl(svsock, F_DUPFD_CLOEXEC, 5)) < 0)
		goto fail;
	for (i = 0; i < 3; i++)
		if (dup2(fd[i], i) < 0)
			goto fail;
	/* a script's interpreter opens /dev/fd/3, so the executable stays
	 * open across exec (dup2 clears close-on-exec); report does not */
	if (exefd >= 0 && (exefd = dup2(exefd, next++)) < 0)
		goto fail;
	if ((i = dup3(report, next, O_CLOEXEC)) < 0)
		goto fail;
	report = i;
	/* the supervisor's socket, if any, stays until the filter is in */
	if (svsock < 0 ? close_fds((unsigned)++next, ~0U) != 0 :
	    ((svsock > next + 1 && close_fds((unsigned)next + 1, (unsigned)svsock - 1) != 0) ||
	    close_fds((unsigned)svsock + 1, ~0U) != 0))
		goto fail;
	if (c != NULL && (setgroups((size_t)c->ngroups, c->groups) != 0 ||
	    setgid(c->gid) != 0 || setuid(c->uid) != 0 || getuid() != c->uid ||
	    geteuid() != c->uid || getgid() != c->gid || getegid() != c->gid))
		goto fail;
	if (s->cwd != NULL && chdir(s->cwd) != 0)
		goto fail;
	if (s->umask != 0)
		umask(s->umask);
	/* last: from here every call that reaches a file goes to the runner */
	if (svsock >= 0 && supervise_child(svsock) != 0)
		goto fail;
	if (s->path != NULL)
		execve(s->path, s->argv, s->envp);
	else
		fexecve(exefd, s->argv, s->envp);
fail:
	e = errno;
	(void)!write(report, &e, sizeof e);
	_exit(127);
}

/* Answer the supervised child's calls until its report pipe has news:
 * end of file (it exec'd) or an errno. */
static void
await_exec(struct supervisor *sv, int report)
{
	struct pollfd pfd[2] = { { report, POLLIN, 0 }, { sv->listener, POLLIN, 0 } };

	while (sv->listener >= 0) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (pfd[0].revents != 0)
			return;
		if (pfd[1].revents & POLLIN)
			supervise_burst(sv);
		else if (pfd[1].revents != 0)
			return;
	}
}

/*
 * Start s. Returns the child's pid once it has exec'd, or -1 with errno
 * set when it could not be started (fork failed, or anything in the
 * child up to and including exec: that child is reaped).
 */
pid_t
spawn(const struct spawn *s)
{
	sigset_t all, old;
	int p[2], sp[2] = { -1, -1 }, e, status;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	if (s->sv != NULL && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	/* no handler of ours may run in the child before it resets them */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if ((pid = fork()) == 0)
		child(s, p[1], sp[1]);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	if (sp[1] >= 0)
		close(sp[1]);
	if (pid < 0) {
		close(p[0]);
		if (sp[0] >= 0)
			close(sp[0]);
		errno = e;
		return -1;
	}
	/* supervised: the child's exec is itself a call to answer */
	if (sp[0] >= 0) {
		(void)supervise_receive(s->sv, sp[0], pid);
		close(sp[0]);
		await_exec(s->sv, p[0]);
	}
	/* end of file: exec succeeded and closed the pipe */
	while ((n = read(p[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (n == (ssize_t)sizeof e) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		errno = e;
		return -1;
	}
	return pid;
}
