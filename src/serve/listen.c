/* SPDX-License-Identifier: ISC */
/*
 * The requester socket and its connections. One thread, one poll loop:
 * accept (with the peer's credentials), read newline-framed messages of
 * bounded size within a deadline, hand each whole message to ops.c,
 * buffer replies for slow readers, and call ops.c on a timer for the
 * connections that wait on a gate. An operation that may take long (a
 * request for an enrolled machine, which asks the target over ssh; one
 * with snapshots to read, hash and copy, worker.c) goes on in a child
 * process of its own (conn_fork, connection.c), bounded in number and time,
 * while the loop serves everyone else; its one line of result comes back
 * on a pipe and is handed to ops.c. Nothing here knows what a gate is.
 * SIGINT and SIGTERM stop the loop; the socket is removed if it is still
 * the one bound here.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve.h"
#include "connection.h"

static volatile sig_atomic_t stopping;

static void
on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* Refuse before any message: one error line, best effort, then close. */
static void
turn_away(int fd, const char *code, const char *msg)
{
	json_t *j = json_pack("{s:b,s:{s:s,s:s}}", "ok", 0, "error", "code", code,
	    "message", msg);
	char *line = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;

	if (line != NULL) {
		size_t len = strlen(line);

		line[len] = '\n';	/* the terminating NUL becomes the newline */
		(void)send(fd, line, len + 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	free(line);
	json_decref(j);
	close(fd);
}

/* The child of c is done (or given up): reaped, and its result handed to
 * ops.c. */
static void
child_end(struct daemon *d, struct conn *c, int ok)
{
	ok = conn_child_reap(c, ok);
	ops_child_done(d, c, c->child_msg, ok ? c->child_out : NULL, c->child_len);
	conn_child_forget(c);
}

/* Read what c's child wrote; at its end, the result goes to ops.c. */
static void
child_read(struct daemon *d, struct conn *c)
{
	char buf[16384];
	ssize_t n;

	for (;;) {
		n = read(c->child_fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			child_end(d, c, n == 0);
			return;
		}
		if (c->child_len + (size_t)n + 1 > SERVE_CHILD_OUT_MAX) {
			warnx("serve: a worker said too much; stopped");
			child_end(d, c, 0);
			return;
		}
		c->child_out = realloc(c->child_out, c->child_len + (size_t)n + 1);
		if (c->child_out == NULL)
			err(1, "realloc");
		memcpy(c->child_out + c->child_len, buf, (size_t)n);
		c->child_len += (size_t)n;
		c->child_out[c->child_len] = '\0';
	}
}

/* Hand every whole message in the buffer to ops.c, one at a time. */
static void
conn_messages(struct daemon *d, struct conn *c)
{
	char *nl;
	size_t len;

	while (!c->busy && !c->dead && (nl = memchr(c->in, '\n', c->inlen)) != NULL) {
		len = (size_t)(nl - c->in);
		c->busy = 1;
		c->deadline = 0;
		ops_message(d, c, c->in, len);
		memmove(c->in, nl + 1, c->inlen - len - 1);
		c->inlen -= len + 1;
	}
	if (c->busy || c->dead)
		return;
	if (c->inlen >= SERVE_LINE_MAX) {
		conn_error(c, "message_too_large", NULL, "a message is at most %d bytes "
		    "with its newline", SERVE_LINE_MAX);
		c->dead = 1;
	} else if (c->eof)
		c->dead = 1;	/* nothing more will come; a partial line is dropped */
}

static void
conn_read(struct daemon *d, struct conn *c)
{
	ssize_t n;

	if (c->inlen >= SERVE_LINE_MAX)
		return;
	n = recv(c->fd, c->in + c->inlen, SERVE_LINE_MAX - c->inlen, MSG_DONTWAIT);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			c->dead = 1;
		return;
	}
	if (n == 0)
		c->eof = 1;
	c->inlen += (size_t)n;
	conn_messages(d, c);
}

/*
 * Bind the socket with no moment where others could reach it: under a
 * temporary name in the reviewer's directory with umask 0177, then
 * chmod 0660 and rename over the final name. An existing final name is
 * replaced only if it is a socket of the reviewer's that nobody answers.
 */
static int
listen_socket(struct daemon *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmp[sizeof sa.sun_path];
	struct stat sb;
	mode_t old;
	int fd, rc;

	if (lstat(d->dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		warnx("serve: %s is missing (%s): as root, run `warrant requesters add "
		    "--reviewer %s USER...` (or `warrant box init --user USER --reviewer %s`)",
		    d->dir, errno != 0 ? strerror(errno) : "not a directory", d->name, d->name);
		return -1;
	}
	if (sb.st_uid != d->uid || (sb.st_mode & 07) != 0) {
		warnx("serve: %s must belong to %s and be closed to others (it is uid %u, "
		    "mode %04o): as root, run `warrant requesters add --reviewer %s USER...`",
		    d->dir, d->name, (unsigned)sb.st_uid, (unsigned)(sb.st_mode & 07777),
		    d->name);
		return -1;
	}
	if (lstat(d->path, &sb) == 0) {
		if (!S_ISSOCK(sb.st_mode) || sb.st_uid != d->uid) {
			warnx("serve: %s exists and is not a socket of %s; remove it by hand "
			    "after checking what it is", d->path, d->name);
			return -1;
		}
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			return -1;
		snprintf(sa.sun_path, sizeof sa.sun_path, "%s", d->path);
		rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
		close(fd);
		if (rc == 0) {
			warnx("serve: another warrant serve answers on %s already", d->path);
			return -1;
		}
	}
	if ((size_t)snprintf(tmp, sizeof tmp, "%s/.req.sock.%d", d->dir, (int)getpid()) >=
	    sizeof tmp) {
		warnx("serve: socket path too long: %s", tmp);
		return -1;
	}
	(void)unlink(tmp);	/* ours: the directory belongs to the reviewer */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0) {
		warn("serve: socket");
		return -1;
	}
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", tmp);
	old = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	if (rc != 0 || chmod(tmp, 0660) != 0 || lstat(tmp, &d->bound) != 0 ||
	    listen(fd, SERVE_CONN_MAX) != 0 || rename(tmp, d->path) != 0) {
		warn("serve: cannot listen on %s", d->path);
		(void)unlink(tmp);
		close(fd);
		return -1;
	}
	return fd;
}

/* Remove the socket if the name still points at the one bound here. */
static void
unlink_socket(struct daemon *d)
{
	struct stat there;

	if (lstat(d->path, &there) == 0 && there.st_ino == d->bound.st_ino &&
	    there.st_dev == d->bound.st_dev)
		(void)unlink(d->path);
}

static void
conn_accept(struct daemon *d, int lfd, struct conn **conns, size_t *nconns)
{
	struct peer p;
	char why[512];
	size_t i, same = 0;
	int fd;

	if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		    errno != ECONNABORTED)
			warn("serve: accept");
		return;
	}
	if (peer_read(fd, &p) != 0) {
		warn("serve: cannot read a peer's credentials");
		peer_free(&p);
		close(fd);
		return;
	}
	if (!peer_admitted(d, &p, why, sizeof why)) {
		warnx("serve: refused uid %u (pid %d): %s", (unsigned)p.uid, (int)p.pid, why);
		turn_away(fd, "not_a_requester", why);
		peer_free(&p);
		return;
	}
	for (i = 0; i < *nconns; i++)
		same += conns[i]->peer.uid == p.uid;
	if (*nconns >= SERVE_CONN_MAX || same >= SERVE_CONN_PER_UID) {
		warnx("serve: uid %u: too many connections", (unsigned)p.uid);
		turn_away(fd, "busy", *nconns >= SERVE_CONN_MAX ? "the daemon has too many "
		    "connections; try again shortly" : "this user has too many connections "
		    "open to the daemon; close one first");
		peer_free(&p);
		return;
	}
	conns[(*nconns)++] = conn_open(fd, &p);
}

/* The connections that wait on a gate get their tick (and heartbeat). */
static void
wait_ticks(struct daemon *d, struct conn **conns, size_t n)
{
	int64_t now = monotonic_ms();
	size_t i;
	int any = 0;

	for (i = 0; i < n; i++)
		any |= conns[i]->busy && conns[i]->wait_id[0] != '\0';
	if (!any)
		return;
	(void)refresh_store(&d->st);	/* recover dead attempts, expire */
	for (i = 0; i < n; i++) {
		struct conn *c = conns[i];
		int beat;

		if (c->dead || !c->busy || c->wait_id[0] == '\0')
			continue;
		beat = now >= c->next_beat;
		if (beat)
			c->next_beat = now + SERVE_BEAT_MS;
		(void)ops_wait_tick(d, c, c->wait_id, c->wait_until, beat);
	}
}

/* Serve until SIGINT or SIGTERM. 0 after a clean stop, -1 on failure. */
int
serve_run(struct daemon *d)
{
	struct conn *conns[SERVE_CONN_MAX];
	struct pollfd pfd[2 * SERVE_CONN_MAX + 2];
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t block, orig;
	int64_t now, next_tick, wake;
	size_t n = 0, i, k;
	int lfd, timeout, watch;

	conn_track(conns, &n);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* signals are taken only inside ppoll: no lost wakeup */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &orig);
	if ((lfd = listen_socket(d)) < 0) {
		if (!d->web) {
			sigprocmask(SIG_SETMASK, &orig, NULL);
			return -1;
		}
		warnx("serve: no requester socket: serving the web page only");
	} else
		warnx("serve: %s answers requesters on %s (group %s)", d->name, d->path,
		    d->group);
	/* waits are answered as soon as the store changes; the tick stays as
	 * the fallback (and for expiry, which writes nothing) */
	watch = store_watch(&d->st);
	next_tick = monotonic_ms() + SERVE_TICK_MS;
	while (!stopping) {
		now = monotonic_ms();
		wake = next_tick;
		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (i = 0; i < n; i++) {
			struct conn *c = conns[i];

			pfd[i + 1] = (struct pollfd){ .fd = c->fd };
			if (!c->eof && c->inlen < SERVE_LINE_MAX)
				pfd[i + 1].events |= POLLIN;
			if (c->outlen > 0)
				pfd[i + 1].events |= POLLOUT;
			if (c->deadline > 0 && c->deadline < wake)
				wake = c->deadline;
		}
		pfd[n + 1] = (struct pollfd){ .fd = watch, .events = POLLIN };
		/* the workers' pipes: a negative descriptor is not polled */
		for (i = 0; i < n; i++) {
			pfd[n + 2 + i] = (struct pollfd){ .fd = conns[i]->child_fd,
			    .events = POLLIN };
			if (conns[i]->child > 0 && conns[i]->child_deadline < wake)
				wake = conns[i]->child_deadline;
		}
		timeout = wake > now ? (int)(wake - now) : 0;
		if (ppoll(pfd, 2 * n + 2, &(struct timespec){ timeout / 1000,
		    (timeout % 1000) * 1000000L }, &orig) < 0) {
			if (errno == EINTR)
				continue;
			warn("serve: poll");
			break;
		}
		for (i = 0; i < n; i++) {
			struct conn *c = conns[i];

			if (pfd[i + 1].revents & (POLLIN | POLLHUP | POLLERR))
				conn_read(d, c);
			/* closed both ways: nobody reads what would be sent */
			if (pfd[i + 1].revents & (POLLHUP | POLLERR))
				c->dead = 1;
			if (pfd[i + 1].revents & POLLOUT)
				conn_flush(c);
			if (c->child > 0 && (pfd[n + 2 + i].revents & (POLLIN | POLLHUP | POLLERR)))
				child_read(d, c);
		}
		if ((pfd[n + 1].revents & POLLIN) && store_watch_drain(watch))
			next_tick = 0;	/* look at the waited gates now */
		if (pfd[0].revents & POLLIN)
			conn_accept(d, lfd, conns, &n);
		now = monotonic_ms();
		if (now >= next_tick) {
			wait_ticks(d, conns, n);
			next_tick = now + SERVE_TICK_MS;
		}
		/* pipelined messages, deadlines, and the dead */
		for (i = k = 0; i < n; i++) {
			struct conn *c = conns[i];

			if (!c->dead && !c->busy)
				conn_messages(d, c);
			if (!c->dead && c->deadline > 0 && now >= c->deadline)
				c->dead = 1;	/* too slow: no reply, just closed */
			if (!c->dead && c->child > 0 && now >= c->child_deadline) {
				warnx("serve: a worker for uid %u took too long; stopped",
				    (unsigned)c->peer.uid);
				child_end(d, c, 0);
			}
			/* a peer that sends nothing more is closed once answered */
			if (!c->dead && c->eof && !c->busy && c->outlen == 0)
				c->dead = 1;
			if (c->dead)
				conn_close(c);
			else
				conns[k++] = c;
		}
		n = k;
	}
	for (i = 0; i < n; i++)
		conn_close(conns[i]);
	if (watch >= 0)
		close(watch);
	if (lfd >= 0) {
		unlink_socket(d);
		close(lfd);
	}
	sigprocmask(SIG_SETMASK, &orig, NULL);
	warnx("serve: stopped");
	return 0;
}
