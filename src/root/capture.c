/* SPDX-License-Identifier: ISC */
/*
 * Run one prepared command and capture its output: a child (spawn.c) in
 * its own process group (or session) with stdin on /dev/null, executed
 * from the descriptor that was hashed; output drained without blocking into a
 * bounded tail and an optional size-capped log, both as the command wrote
 * them (credential shapes are redacted by the unprivileged finisher, from
 * the ledger, never here: this runs in the root runner); a timeout, or
 * the caller's tick saying stop, sends SIGTERM to the whole group and
 * every descendant (stopfile.c), then
 * SIGKILL after a grace; at the caller's hard deadline (the runner's
 * overall bound) SIGKILL at once and no more draining. Memory stays flat
 * however much is printed. An optional sink (the runner's I/O log) sees
 * the raw output as it is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/pidfd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "root.h"
#include "confine/supervise.h"

#define KILL_GRACE_MS	5000
#define DRAIN_AFTER_EXIT_MS 1000

void
capture_init(struct capture *c, int logfd, uint64_t logmax)
{
	memset(c, 0, sizeof *c);
	c->logfd = logfd;
	c->logmax = logmax;
}

/* Keep the last CAPTURE_TAIL bytes: head is where the next byte goes. */
static void
ring_put(struct capture *c, const char *p, size_t n)
{
	size_t first;

	if (n >= CAPTURE_TAIL) {
		p += n - CAPTURE_TAIL;
		n = CAPTURE_TAIL;
	}
	first = CAPTURE_TAIL - c->head < n ? CAPTURE_TAIL - c->head : n;
	memcpy(c->ring + c->head, p, first);
	memcpy(c->ring, p + first, n - first);
	c->head = (c->head + n) % CAPTURE_TAIL;
	c->len = c->len + n > CAPTURE_TAIL ? CAPTURE_TAIL : c->len + n;
}

static void
flush_log(struct capture *c)
{
	if (c->logfd >= 0 && c->logbuflen > 0 && write_all(c->logfd, c->logbuf, c->logbuflen) != 0) {
		close(c->logfd);		/* the log is best effort; stop trying */
		c->logfd = -1;
	}
	c->logbuflen = 0;
}

static void
log_put(struct capture *c, const char *p, size_t n)
{
	if (c->logfd < 0 || c->logged + n > c->logmax)
		return;
	if (c->logbuflen + n > sizeof c->logbuf)
		flush_log(c);
	c->logged += n;
	if (n > sizeof c->logbuf) {	/* more than the buffer: straight through */
		if (c->logfd >= 0 && write_all(c->logfd, p, n) != 0) {
			close(c->logfd);
			c->logfd = -1;
		}
		return;
	}
	memcpy(c->logbuf + c->logbuflen, p, n);
	c->logbuflen += n;
}

/* Take output in: kept in the tail and the log. */
void
capture_feed(struct capture *c, const char *p, size_t n)
{
	c->total += n;
	ring_put(c, p, n);
	log_put(c, p, n);
}

/* The command is done: whatever is pending goes to the log. */
void
capture_finish(struct capture *c)
{
	flush_log(c);
}

/*
 * The last max bytes of the output, as valid UTF-8 text. A tail that does
 * not start the output starts at a line: a line cut at its start (where
 * the finisher would no longer recognise a credential cut in two) is not
 * kept, unless the tail is all one line.
 */
char *
capture_tail(struct capture *c, size_t max)
{
	size_t n = c->len < max ? c->len : max, from = 0, i;
	char *raw, *safe;

	capture_finish(c);
	raw = xmalloc(n + 1);
	for (i = 0; i < n; i++)
		raw[i] = c->ring[(c->head + CAPTURE_TAIL - n + i) % CAPTURE_TAIL];
	/* cut, and not just after a line break (when the ring still has the
	 * byte before the tail) */
	if (c->total > n && !(c->len > n &&
	    c->ring[(c->head + CAPTURE_TAIL - n - 1) % CAPTURE_TAIL] == '\n')) {
		for (i = 0; i < n && raw[i] != '\n'; i++)
			;
		if (i + 1 < n)
			from = i + 1;
	}
	safe = text_json_safe(raw + from, n - from);
	free(raw);
	return safe;
}

/* The command's group, and the batch's tree among our descendants: a
 * process that made its own session or group is still one
 * (descendants_adopt), what was ours before the batch is not
 * (descendants_note). Once the command is reaped its number may be
 * another process's: then only the tree is signalled. */
static void
kill_group(pid_t pid, int reaped, int sig)
{
	if (!reaped && kill(-pid, sig) != 0 && errno == ESRCH)
		kill(pid, sig);
	descendants_signal(sig);
}

/* Make a pipe whose read end (ours) is non-blocking: the command's end
 * stays blocking; without it the loop would stall and timeouts would not
 * be enforced. */
static int
out_pipe(int p[2])
{
	int e;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	if ((e = fcntl(p[0], F_GETFL)) < 0 || fcntl(p[0], F_SETFL, e | O_NONBLOCK) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	return 0;
}

/* Read what is there on the pipe; at its end, close it. */
static void
drain(struct capture *c, struct pollfd *pfd, char *buf, size_t size)
{
	ssize_t n;

	if (pfd->fd < 0)
		return;
	while ((n = read(pfd->fd, buf, size)) > 0) {
		if (c->sink != NULL)
			c->sink(c->sink_arg, buf, (size_t)n);
		capture_feed(c, buf, (size_t)n);
	}
	if (n == 0) {
		close(pfd->fd);
		pfd->fd = -1;
	}
}

/*
 * Run x, feeding its output to c. Returns 0 with the result filled in
 * (a command that could not be started has res->exec_errno), -1 when
 * its output pipe could not be made. stdout and stderr share one pipe,
 * so the output keeps the order it was written in (two pipes read in
 * turn would not: a line to stderr could come after a later one to
 * stdout).
 */
int
exec_capture(const struct exec_spec *x, struct capture *c, struct exec_result *res)
{
	struct spawn s = {
		.exefd = x->exefd, .argv = x->argv, .envp = x->envp, .group = x->group,
		.ignore = x->ignore, .cwd = x->cwd, .cred = x->cred,
		.umask = 022,	/* warrant's own 077 is for its state, not the command's files */
		.sv = x->sv,
	};
	int out[2], status = 0, exited = 0, pidfd;
	int64_t start = monotonic_ms(), deadline, exit_seen = 0, kill_at = 0;
	char buf[65536];
	struct pollfd pfd[3];
	pid_t pid;

	memset(res, 0, sizeof *res);
	res->exit_code = -1;
	if (out_pipe(out) != 0)
		return -1;
	descendants_adopt();
	s.fd[0] = -1;
	s.fd[1] = s.fd[2] = out[1];
	pid = spawn(&s);
	close(out[1]);
	if (pid < 0) {
		res->exec_errno = errno;
		res->duration_ms = monotonic_ms() - start;
		close(out[0]);
		return 0;
	}
	deadline = start + (int64_t)x->timeout * 1000;
	/* the pidfd wakes the loop when the child exits; without one (old
	 * kernels) the loop looks every few milliseconds */
	pidfd = pidfd_open(pid, 0);
	pfd[0].fd = out[0];
	pfd[1].fd = pidfd;
	/* supervised: the command's calls to answer (supervise.c) */
	pfd[2].fd = x->sv != NULL ? x->sv->listener : -1;
	pfd[0].events = pfd[1].events = pfd[2].events = POLLIN;
	for (;;) {
		int64_t now = monotonic_ms(), wait_ms = 200;

		if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
			exited = 1;
			exit_seen = now;
			pfd[1].fd = -1;
		}
		if (x->deadline_ms != 0 && now >= x->deadline_ms && !res->deadline) {
			res->deadline = res->timed_out = 1;
			if (!exited)
				kill_group(pid, exited, SIGKILL);
			kill_at = 0;
		}
		if (exited && (pfd[0].fd < 0 || now - exit_seen >= DRAIN_AFTER_EXIT_MS ||
		    res->deadline))
			break;
		if (!exited && !res->timed_out && !res->stopped && x->tick != NULL &&
		    x->tick(x->tick_arg, c)) {
			res->stopped = 1;
			kill_group(pid, exited, SIGTERM);
			kill_at = now + KILL_GRACE_MS;
		}
		if (!exited && !res->timed_out && !res->stopped && now >= deadline) {
			res->timed_out = 1;
			kill_group(pid, exited, SIGTERM);
			kill_at = now + KILL_GRACE_MS;
		}
		if (!exited && kill_at != 0 && now >= kill_at) {
			kill_group(pid, exited, SIGKILL);
			kill_at = 0;
		}
		if (!exited && !res->timed_out && !res->stopped)
			wait_ms = deadline - now < wait_ms ? deadline - now : wait_ms;
		if (kill_at != 0)
			wait_ms = kill_at - now < wait_ms ? kill_at - now : wait_ms;
		if (exited)
			wait_ms = exit_seen + DRAIN_AFTER_EXIT_MS - now;
		else if (pfd[0].fd < 0 && pidfd < 0)
			wait_ms = 5;
		if (x->deadline_ms != 0 && !res->deadline && x->deadline_ms - now < wait_ms)
			wait_ms = x->deadline_ms - now;
		if (poll(pfd, 3, (int)(wait_ms > 0 ? wait_ms : 0)) < 0 && errno != EINTR)
			break;
		if (pfd[2].fd >= 0 && (pfd[2].revents & POLLIN))
			supervise_burst(x->sv);
		else if (pfd[2].fd >= 0 && pfd[2].revents != 0)
			pfd[2].fd = -1;	/* no process of the command is left under it */
		drain(c, &pfd[0], buf, sizeof buf);
	}
	if (pfd[0].fd >= 0)
		close(pfd[0].fd);
	if (pidfd >= 0)
		close(pidfd);
	if (res->timed_out || res->stopped)
		kill_group(pid, exited, SIGKILL);	/* stragglers of the tree, if any */
	if (!exited)
		waitpid(pid, &status, 0);
	if (res->timed_out || res->stopped)
		descendants_reap();
	res->duration_ms = monotonic_ms() - start;
	if (WIFEXITED(status))
		res->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		res->signal = WTERMSIG(status);
	capture_finish(c);
	return 0;
}
