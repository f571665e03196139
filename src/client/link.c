/* SPDX-License-Identifier: ISC */
/*
 * Where a requester's gates live, seen from `warrant request`, `wait` and
 * `mcp`: this user's own store, or the reviewer's daemon over the
 * requester socket (docs/protocol.md) when --to REVIEWER or
 * WARRANT_SOCKET says so. Both give the same descriptors, refusals,
 * outcomes and exit codes; a daemon that cannot be reached is said
 * plainly, with how to start it (exit 7), never found out later.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "warrant.h"

#define REPLY_MAX		(16 * 1024 * 1024)	/* one reply line */
#define REPLY_SILENCE_MS	30000	/* no line for this long: the daemon is gone */
#define BUSY_RETRIES		10
#define RECONNECT_MS		10000	/* a daemon restarting under a wait */
#define WAIT_POLL_MS		1000	/* the local wait's fallback to the store's watch */

static int
name_valid(const char *s)
{
	size_t i;

	if (!((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return 0;
	for (i = 1; s[i] != '\0'; i++)
		if (i >= 32 || !((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

static void
unreachable(const struct link *l, int e)
{
	struct passwd *pw = getpwuid(getuid());

	warnx("cannot reach the reviewer's daemon at %s: %s", l->path, strerror(e));
	if (e == EACCES)
		warnx("you are not a requester of that reviewer: root adds you with "
		    "`warrant requesters add --reviewer REVIEWER %s`", pw != NULL ?
		    pw->pw_name : "YOU");
	else
		warnx("the reviewer starts it with `warrant serve` (or `systemctl --user "
		    "start warrant`)%s", e == ENOENT ? "; if the directory is missing, root "
		    "runs `warrant requesters add --reviewer REVIEWER USER`" : "");
}

static int
link_connect(struct link *l, int quiet)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if ((l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", l->path);
	if (connect(l->fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		int e = errno;

		close(l->fd);
		l->fd = -1;
		if (!quiet)
			unreachable(l, e);
		errno = e;
		return -1;
	}
	l->len = 0;
	return 0;
}

/*
 * Open the link: to the daemon of reviewer to, or of WARRANT_SOCKET, or
 * (neither given) to this user's store. EXIT_OK, EXIT_REFUSED for a bad
 * name, EXIT_UNREACHABLE or EXIT_INTERNAL after saying why.
 */
int
link_open(struct link *l, const char *to)
{
	const char *env = getenv("WARRANT_SOCKET");

	memset(l, 0, sizeof *l);
	l->fd = l->watch = -1;
	if (to != NULL) {
		if (!name_valid(to)) {
			warnx("--to takes the reviewer's user name");
			return EXIT_REFUSED;
		}
		snprintf(l->path, sizeof l->path, "%s/%s/req.sock", WARRANT_RUN_DIR, to);
	} else if (env != NULL && *env != '\0') {
		if (env[0] != '/' || strlen(env) >= sizeof l->path) {
			warnx("WARRANT_SOCKET must be an absolute path of at most %zu bytes",
			    sizeof l->path - 1);
			return EXIT_REFUSED;
		}
		snprintf(l->path, sizeof l->path, "%s", env);
	} else {
		l->local = 1;
		return EXIT_OK;
	}
	return link_connect(l, 0) == 0 ? EXIT_OK : EXIT_UNREACHABLE;
}

void
link_close(struct link *l)
{
	if (l->fd >= 0)
		close(l->fd);
	if (l->watch >= 0)
		close(l->watch);
	if (l->st_open)
		store_close(&l->st);
	free(l->buf);
	memset(l, 0, sizeof *l);
	l->fd = l->watch = -1;
}

/* A descriptor readable when this user's store changed (once it is
 * open), or -1: a daemon's link, or no inotify. */
int
link_watch(const struct link *l)
{
	return l->local && l->st_open ? l->watch : -1;
}

/* This user's store, opened on first use, and watched from then on
 * (before anything is read from it: no change is missed). 0, or -1
 * after saying why. */
static int
link_store(struct link *l)
{
	if (!l->st_open && store_open(&l->st) == 0) {
		l->st_open = 1;
		l->watch = store_watch(&l->st);
	}
	return l->st_open ? 0 : -1;
}

/* Send one message line. 0, or -1 with errno. */
static int
send_message(struct link *l, json_t *msg)
{
	char *line = json_dumps(msg, JSON_COMPACT);
	size_t len, off = 0;
	ssize_t n;

	if (line == NULL) {
		errno = ENOMEM;
		return -1;
	}
	len = strlen(line);
	line[len] = '\n';	/* the NUL becomes the newline */
	while (off < len + 1) {
		n = send(l->fd, line + off, len + 1 - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(line);
			return -1;
		}
		off += (size_t)n;
	}
	free(line);
	return 0;
}

/* Read one reply line as JSON. NULL with errno (ECONNRESET: closed). */
static json_t *
read_reply(struct link *l)
{
	struct pollfd p = { .fd = l->fd, .events = POLLIN };
	char *nl, *n;
	json_t *j;
	ssize_t r;
	size_t len;

	for (;;) {
		if (l->buf != NULL && (nl = memchr(l->buf, '\n', l->len)) != NULL) {
			len = (size_t)(nl - l->buf);
			j = json_loadb(l->buf, len, JSON_REJECT_DUPLICATES, NULL);
			memmove(l->buf, nl + 1, l->len - len - 1);
			l->len -= len + 1;
			if (!json_is_object(j) || !json_is_boolean(json_object_get(j, "ok"))) {
				json_decref(j);
				errno = EPROTO;
				return NULL;
			}
			return j;
		}
		if (l->len >= REPLY_MAX) {
			errno = EMSGSIZE;
			return NULL;
		}
		if (l->cap < l->len + 65536) {
			if ((n = realloc(l->buf, l->len + 65536)) == NULL)
				return NULL;
			l->buf = n;
			l->cap = l->len + 65536;
		}
		r = poll(&p, 1, REPLY_SILENCE_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			errno = ETIMEDOUT;
			return NULL;
		}
		if (r < 0)
			return NULL;
		r = recv(l->fd, l->buf + l->len, l->cap - l->len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = ECONNRESET;
			return NULL;
		}
		l->len += (size_t)r;
	}
}

/*
 * Send msg and read the first reply line. A daemon that turned the
 * connection away as busy is asked again a few times, and so is one whose
 * connection was closed before it took the message (a restart). One that
 * took it and went away before answering is asked again only when resend
 * says the operation may safely run twice (not a request: that could make
 * two gates). EXIT_OK with *reply, else EXIT_UNREACHABLE after saying why.
 */
static int
call(struct link *l, json_t *msg, int resend, json_t **reply)
{
	struct timespec pause = { 0, 250 * 1000 * 1000 };
	int tries = 0, sent, e;

	for (;;) {
		if (l->fd < 0 && link_connect(l, 0) != 0)
			return EXIT_UNREACHABLE;
		sent = send_message(l, msg) == 0;
		if (sent && (*reply = read_reply(l)) != NULL) {
			const char *code = json_str(json_object_get(*reply, "error"), "code");

			if (strcmp(code, "busy") != 0 || ++tries > BUSY_RETRIES)
				return EXIT_OK;
			json_decref(*reply);
		} else if ((e = errno) != ECONNRESET && e != EPIPE) {
			unreachable(l, e);
			return EXIT_UNREACHABLE;
		} else if (sent && !resend) {
			warnx("the reviewer's daemon at %s closed the connection before "
			    "answering; the request may or may not be stored: see `warrant "
			    "list` on the reviewer's side before asking again", l->path);
			return EXIT_UNREACHABLE;
		} else if (++tries > BUSY_RETRIES) {
			unreachable(l, e);
			return EXIT_UNREACHABLE;
		}
		close(l->fd);
		l->fd = -1;
		nanosleep(&pause, NULL);
	}
}

/*
 * A final error reply: said on standard error (agent text neutralised),
 * and the exit code for it.
 */
static int
reply_error(const char *what, const json_t *reply, struct refusal *r)
{
	struct refusal own;

	if (r == NULL)
		r = &own;
	if (refusal_from_json(r, reply) != 0) {
		warnx("%s: the daemon's reply makes no sense", what);
		return EXIT_INTERNAL;
	}
	if (strcmp(r->code, "internal") == 0) {
		warnx("%s: the reviewer's daemon failed: %s", what, r->message);
		return EXIT_INTERNAL;
	}
	if (strcmp(r->code, "busy") == 0) {
		warnx("%s: %s", what, r->message);
		return EXIT_UNREACHABLE;
	}
	return EXIT_REFUSED;
}

/*
 * Submit a request's bytes for agent and project. EXIT_OK with the
 * descriptor; EXIT_REFUSED with r filled (nothing stored); otherwise
 * EXIT_INTERNAL or EXIT_UNREACHABLE after saying why.
 */
int
link_submit(struct link *l, const char *bytes, size_t len, const char *agent,
    const char *project, json_t **desc, struct refusal *r)
{
	struct requester me;
	json_t *req, *msg, *reply;
	int rc;

	*desc = NULL;
	if (l->local) {
		if ((rc = requester_self(&me, r)) == EXIT_OK) {
			rc = gate_submit(l->st_open ? &l->st : NULL, bytes, len, &me, agent,
			    project, desc, r);
			requester_free(&me);
		} else if (rc == EXIT_INTERNAL)
			warnx("cannot read your user and groups: %m");
		return rc;
	}
	if ((req = request_load(bytes, len, r)) == NULL)
		return EXIT_REFUSED;
	msg = json_pack("{s:s,s:o,s:s*,s:s*}", "op", "request", "request", req,
	    "agent", agent, "project", project);
	if (msg == NULL)
		return EXIT_INTERNAL;
	rc = call(l, msg, 0, &reply);
	json_decref(msg);
	if (rc != EXIT_OK)
		return rc;
	if (json_is_true(json_object_get(reply, "ok")) &&
	    json_is_object(json_object_get(reply, "gate"))) {
		*desc = json_incref(json_object_get(reply, "gate"));
		rc = EXIT_OK;
	} else
		rc = reply_error("request", reply, r);
	json_decref(reply);
	return rc;
}

/* The local wait: this user's store, read again whenever it changes
 * (and every WAIT_POLL_MS all the same). */
static int
wait_local(struct link *l, const char *arg, long timeout, json_t **outcome)
{
	int64_t deadline = timeout >= 0 ? now_seconds() + timeout : INT64_MAX;
	char id[GATE_ID_LEN + 1];
	json_t *g;
	int rc;

	if (link_store(l) != 0)
		return EXIT_INTERNAL;
	if ((rc = gate_arg(&l->st, arg, id)) != EXIT_OK)
		return rc;
	for (;;) {
		if (refresh_store(&l->st) != 0 || (g = store_gate(&l->st, id, 0)) == NULL)
			return EXIT_INTERNAL;
		if (strcmp(json_str(g, "state"), "pending") != 0 || now_seconds() >= deadline)
			break;
		json_decref(g);
		store_watch_wait(l->watch, l->watch >= 0 ? WAIT_POLL_MS : 200);
	}
	*outcome = gate_outcome(&l->st, g);
	json_decref(g);
	return *outcome != NULL ? outcome_exit(*outcome) : EXIT_INTERNAL;
}

/*
 * Wait up to timeout seconds (-1: until it settles or expires; 0: just
 * look) for the gate arg names (an id or unique prefix). Returns the
 * exit code of `warrant wait` (0, 3-6) with *outcome, or EXIT_REFUSED,
 * EXIT_INTERNAL, EXIT_UNREACHABLE after saying why.
 */
int
link_wait(struct link *l, const char *arg, long timeout, json_t **outcome)
{
	int64_t lost = 0;
	json_t *msg, *reply;
	const char *event;
	int rc;

	*outcome = NULL;
	if (l->local)
		return wait_local(l, arg, timeout, outcome);
	msg = json_pack("{s:s,s:s}", "op", "wait", "id", arg);
	if (msg == NULL)
		return EXIT_INTERNAL;
	if (timeout >= 0)
		json_object_set_new(msg, "timeout", json_integer(timeout));
	if ((rc = call(l, msg, 1, &reply)) != EXIT_OK) {
		json_decref(msg);
		return rc;
	}
	for (;;) {
		if (!json_is_true(json_object_get(reply, "ok"))) {
			rc = reply_error("wait", reply, NULL);
			if (rc == EXIT_REFUSED)
				warnx("wait: %s", json_str(json_object_get(reply, "error"), "message"));
			break;
		}
		event = json_str(reply, "event");
		if (strcmp(event, "outcome") == 0) {
			*outcome = json_incref(json_object_get(reply, "outcome"));
			rc = json_is_object(*outcome) ? outcome_exit(*outcome) : EXIT_INTERNAL;
			break;
		}
		json_decref(reply);
		while ((reply = read_reply(l)) == NULL) {
			/* the daemon went away under the wait: a restart keeps the queue */
			if (lost == 0)
				lost = monotonic_ms();
			close(l->fd);
			l->fd = -1;
			if (monotonic_ms() - lost > RECONNECT_MS) {
				unreachable(l, errno);
				json_decref(msg);
				return EXIT_UNREACHABLE;
			}
			nanosleep(&(struct timespec){ 0, 500 * 1000 * 1000 }, NULL);
			if (link_connect(l, 1) == 0 && send_message(l, msg) != 0) {
				close(l->fd);
				l->fd = -1;
			}
			if (l->fd < 0)
				errno = ECONNREFUSED;
		}
		lost = 0;
	}
	json_decref(reply);
	json_decref(msg);
	return rc;
}

/*
 * Withdraw a pending gate with feedback why. 0 withdrawn, 1 settled or
 * being run (left alone), -1 after saying why.
 */
int
link_withdraw(struct link *l, const char *id, const char *why)
{
	json_t *msg, *reply;
	int rc;

	if (l->local) {
		if (link_store(l) != 0)
			return -1;
		/* an attempt whose executor died is settled first; a live one is left */
		(void)approve_recover(&l->st);
		return gate_deny(&l->st, id, why);
	}
	if ((msg = json_pack("{s:s,s:s,s:s}", "op", "withdraw", "id", id,
	    "feedback", why)) == NULL)
		return -1;
	rc = call(l, msg, 1, &reply);
	json_decref(msg);
	if (rc != EXIT_OK)
		return -1;
	if (json_is_true(json_object_get(reply, "ok")))
		rc = 0;
	else if (strcmp(json_str(json_object_get(reply, "error"), "code"), "not_pending") == 0)
		rc = 1;
	else {
		(void)reply_error("withdraw", reply, NULL);
		rc = -1;
	}
	json_decref(reply);
	return rc;
}

/*
 * One operation with the daemon (a co-reviewer's, safe to send twice).
 * EXIT_OK with *reply when it says ok; EXIT_REFUSED with r filled (its
 * code and message); otherwise EXIT_INTERNAL or EXIT_UNREACHABLE after
 * saying why.
 */
int
link_op(struct link *l, json_t *msg, json_t **reply, struct refusal *r)
{
	int rc = call(l, msg, 1, reply);

	if (rc != EXIT_OK)
		return rc;
	if (json_is_true(json_object_get(*reply, "ok")))
		return EXIT_OK;
	rc = reply_error("the reviewer's daemon", *reply, r);
	json_decref(*reply);
	*reply = NULL;
	return rc;
}
