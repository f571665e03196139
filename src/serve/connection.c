/* SPDX-License-Identifier: ISC */
/*
 * One requester connection, and what an operation may do with it: reply
 * (buffered for a slow reader, bounded), fail, wait on a gate, or go on
 * in a worker process (conn_fork), bounded in number per uid and in all.
 * The loop that reads messages and hands them to ops.c is listen.c; this
 * calls neither.
 */
#include <sys/socket.h>
#include <sys/wait.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve.h"
#include "connection.h"

/* every connection, for conn_fork's bounds (conn_track) */
static struct conn **all_conns;
static size_t *all_n;

/* The loop's connections, n of them (serve_run, once). */
void
conn_track(struct conn **all, size_t *n)
{
	all_conns = all;
	all_n = n;
}

const struct peer *
conn_peer(const struct conn *c)
{
	return &c->peer;
}

/* Send what can be sent now; the rest waits for POLLOUT. */
void
conn_flush(struct conn *c)
{
	ssize_t n;

	while (!c->dead && c->outoff < c->outlen) {
		n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0)
			c->outoff += (size_t)n;
		else if (n < 0 && errno == EINTR)
			continue;
		else {
			if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
				c->dead = 1;
			break;
		}
	}
	if (c->outoff == c->outlen)
		c->outoff = c->outlen = 0;
}

/*
 * Queue one reply line. A final one ends the operation: the next message
 * is due within SERVE_MESSAGE_MS.
 */
void
conn_reply(struct conn *c, json_t *reply, int final)
{
	char *line = reply != NULL ? json_dumps(reply, JSON_COMPACT) : NULL;
	size_t len;
	char *n;

	json_decref(reply);
	if (line == NULL) {
		c->dead = 1;
		return;
	}
	len = strlen(line);
	if (c->outlen + len + 1 > SERVE_OUT_MAX ||
	    (n = realloc(c->out, c->outlen + len + 1)) == NULL) {
		warnx("serve: uid %u reads no replies; disconnected", (unsigned)c->peer.uid);
		free(line);
		c->dead = 1;
		return;
	}
	c->out = n;
	memcpy(c->out + c->outlen, line, len);
	c->out[c->outlen + len] = '\n';
	c->outlen += len + 1;
	free(line);
	if (final) {
		c->busy = 0;
		c->wait_id[0] = '\0';
		c->deadline = monotonic_ms() + SERVE_MESSAGE_MS;
	}
	conn_flush(c);
}

/* A final error reply: {"ok":false,"error":{code,message[,path]}}. */
void
conn_error(struct conn *c, const char *code, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	conn_reply(c, json_pack("{s:b,s:{s:s,s:s,s:s?}}", "ok", 0, "error", "code", code,
	    "message", msg, "path", path), 1);
}

/* ops.c: this connection now waits on gate id until epoch second until. */
void
conn_wait(struct conn *c, const char *id, int64_t until)
{
	snprintf(c->wait_id, sizeof c->wait_id, "%s", id);
	c->wait_until = until;
	c->next_beat = monotonic_ms() + SERVE_BEAT_MS;
}

/* A connection of an admitted peer on fd (which it then owns). */
struct conn *
conn_open(int fd, struct peer *p)
{
	struct conn *c = xcalloc(1, sizeof *c);

	c->fd = fd;
	c->peer = *p;
	memset(p, 0, sizeof *p);	/* its groups are the connection's now */
	c->in = xcalloc(1, SERVE_LINE_MAX);
	c->deadline = monotonic_ms() + SERVE_MESSAGE_MS;
	c->child_fd = -1;
	return c;
}

/* How many workers (conn_fork) run now for uid: none before the loop
 * (serve_loop) has its connections, as when ops are driven directly. */
size_t
conn_workers(uid_t uid)
{
	size_t i, n = 0;

	for (i = 0; all_n != NULL && i < *all_n; i++)
		n += all_conns[i]->child > 0 && all_conns[i]->peer.uid == uid;
	return n;
}

/*
 * Go on with c's operation on msg in a child process: 0 in the child,
 * with in (unless -1) as its standard input and *fd where its one line of
 * result goes (then it must exec or _exit); its pid in this process, where
 * ops_child_done gets that line once the child ends; -1 when none may
 * start now (too many at once, for this uid or in all), after replying.
 */
pid_t
conn_fork(struct conn *c, json_t *msg, int in, int *fd)
{
	size_t i, mine = conn_workers(c->peer.uid), total = 0;
	sigset_t none;
	int p[2];
	pid_t pid;

	if (all_n == NULL) {	/* no loop to hear it end (ops driven directly) */
		conn_error(c, "internal", NULL, "no daemon loop runs here to start a worker");
		return -1;
	}
	for (i = 0; i < *all_n; i++)
		total += all_conns[i]->child > 0;
	if (total >= SERVE_CHILDREN_MAX || mine >= SERVE_CHILDREN_PER_UID) {
		warnx("serve: uid %u: %s workers at once; refused busy", (unsigned)c->peer.uid,
		    mine >= SERVE_CHILDREN_PER_UID ? "its" : "too many");
		conn_error(c, "busy", NULL, "%s requests are being worked on (files copied, "
		    "machines asked); nothing was stored: try again shortly",
		    mine >= SERVE_CHILDREN_PER_UID ? "two of your" : "too many");
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) != 0 || (pid = fork()) < 0) {
		warn("serve: cannot start a worker");
		conn_error(c, "internal", NULL, "the daemon cannot start a worker");
		return -1;
	}
	if (pid == 0) {
		/* nothing of the loop's: its signals, its sockets, its store */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(p[0]);
		if (in >= 0 && dup2(in, 0) != 0)
			_exit(1);
		if (p[1] != 3 && (dup2(p[1], 3) != 3 || close(p[1]) != 0))
			_exit(1);
		if (close_fds(4, ~0U) != 0)
			_exit(1);
		*fd = 3;
		return 0;
	}
	close(p[1]);
	if (fcntl(p[0], F_SETFL, O_NONBLOCK) != 0)
		warn("serve: worker pipe");
	c->child = pid;
	c->child_fd = p[0];
	c->child_deadline = monotonic_ms() + SERVE_CHILD_MS;
	c->child_msg = json_incref(msg);
	return pid;
}

/* c's child is done, or given up (ok 0: killed): reaped, its pipe
 * closed. Whether it ended well (exit 0, and ok). */
int
conn_child_reap(struct conn *c, int ok)
{
	int status;

	if (!ok)
		kill(c->child, SIGKILL);
	while (waitpid(c->child, &status, 0) < 0 && errno == EINTR)
		;
	close(c->child_fd);
	c->child = 0;
	c->child_fd = -1;
	return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* What c's child was given and said, let go. */
void
conn_child_forget(struct conn *c)
{
	json_decref(c->child_msg);
	c->child_msg = NULL;
	free(c->child_out);
	c->child_out = NULL;
	c->child_len = 0;
}

void
conn_close(struct conn *c)
{
	if (c->child > 0) {
		(void)conn_child_reap(c, 0);
		conn_child_forget(c);
	}
	close(c->fd);
	peer_free(&c->peer);
	free(c->in);
	free(c->out);
	free(c);
}
