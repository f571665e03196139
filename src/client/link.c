/* SPDX-License-Identifier: ISC */
/*
 * Where a requester's gates live, seen from `warrant request`, `wait`,
 * `list`, `show`, `withdraw` and `mcp`: this user's own store, or the
 * reviewer's daemon over the requester socket (docs/protocol.md) when --to
 * REVIEWER or WARRANT_SOCKET says so. Both give the same descriptors,
 * refusals, outcomes and exit codes; a daemon that cannot be reached is
 * said plainly, with how to start it (exit 7), never found out later.
 *
 * Every message is safe to send twice (a request carries a random key of
 * its invocation, and the daemon answers a repeat with the gate the first
 * one made), so a connection lost under a message is made again, with
 * backoff, for up to PATIENCE_MS while the daemon restarts, and the
 * message sent again; a wait is sent again by the gate's id. A daemon
 * not seen running (restarting) is not waited for: the command fails at
 * once.
 */
#include <sys/socket.h>
#include <sys/stat.h>
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
#define BUSY_PAUSE_MS		250
#define PATIENCE_MS		45000	/* a daemon restarting: connect again this long */
#define RECENT_START_S		10	/* a socket this young: its daemon is starting */
#define BACKOFF_FIRST_MS	100	/* ... first after this, then twice as long ... */
#define BACKOFF_MAX_MS		2000	/* ... up to this */
#define KEY_BYTES		16	/* a request key: 32 hex digits */
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
		warnx("%sthe reviewer starts it with `warrant serve` (or `systemctl --user "
		    "start warrant`)%s", e == ECONNREFUSED ? "no daemon runs there (the socket "
		    "is a stopped daemon's): " : "", e == ENOENT ? "; if the directory is missing, "
		    "root runs `warrant requesters add --reviewer REVIEWER USER`" : "");
}

static void
sleep_ms(int64_t ms)
{
	struct timespec t = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

/* One try to connect. 0, or -1 with errno (and no descriptor). */
static int
link_connect(struct link *l)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int e;

	if ((l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", l->path);
	if (connect(l->fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		e = errno;
		close(l->fd);
		l->fd = -1;
		errno = e;
		return -1;
	}
	l->len = 0;
	l->connected = 1;
	return 0;
}

/* The connection is gone (or useless): closed, and nothing of it kept. */
static void
link_drop(struct link *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	l->len = 0;
}

/*
 * A daemon that is restarting, worth waiting for: one this link has
 * talked to (it went away under the connection: a restart, which
 * replaces the socket at once, or a crash that Restart= undoes), or one
 * whose socket was bound within RECENT_START_S (a daemon that has just
 * started, and died or is being replaced); or a full backlog. Anything
 * else is a daemon that does not run, said at once: no socket, or a
 * socket left behind by a daemon that stopped long after it started.
 */
static int
restarting(const struct link *l, int e)
{
	struct stat sb;

	if (e == EAGAIN || (l->connected && (e == ECONNREFUSED || e == ENOENT)))
		return 1;
	return e == ECONNREFUSED && stat(l->path, &sb) == 0 &&
	    now_seconds() - (int64_t)sb.st_mtime < RECENT_START_S;
}

/*
 * Connect, waiting for a daemon that is restarting (with backoff) until
 * PATIENCE_MS after *since (set to now when 0). 0 connected, or -1 after
 * saying why.
 */
static int
link_reconnect(struct link *l, int64_t *since)
{
	int64_t delay = BACKOFF_FIRST_MS;
	int e;

	if (*since == 0)
		*since = monotonic_ms();
	for (;;) {
		if (link_connect(l) == 0)
			return 0;
		e = errno;	/* restarting() may stat */
		if (!restarting(l, e) || monotonic_ms() - *since + delay > PATIENCE_MS) {
			unreachable(l, e);
			return -1;
		}
		if (!l->told) {
			warnx("the reviewer's daemon at %s went away (%s); waiting up to %d s "
			    "for it to restart", l->path, strerror(e), PATIENCE_MS / 1000);
			l->told = 1;
		}
		sleep_ms(delay);
		delay = delay * 2 < BACKOFF_MAX_MS ? delay * 2 : BACKOFF_MAX_MS;
	}
}

/*
 * Open the link: to the daemon of reviewer to, or of WARRANT_SOCKET, or
 * (neither given) to this user's store. A daemon that is restarting is
 * waited for (link_reconnect); one that does not run is said at once
 * (nothing was sent to it). EXIT_OK, EXIT_REFUSED for a bad name,
 * EXIT_UNREACHABLE or EXIT_INTERNAL after saying why.
 */
int
link_open(struct link *l, const char *to)
{
	int64_t since = 0;
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
	return link_reconnect(l, &since) == 0 ? EXIT_OK : EXIT_UNREACHABLE;
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

/*
 * This user's store, opened on first use, and watched from then on
 * (before anything is read from it: no change is missed). A request makes
 * it when there is none (create); a wait or a withdrawal has no gate to
 * find then, and makes nothing: 1. 0 when open, or -1 after saying why.
 */
static int
link_store(struct link *l, int create)
{
	char dir[PATH_MAX];
	int rc;

	if (l->st_open)
		return 0;
	rc = create ? store_open(&l->st) : store_open_existing(&l->st, dir);
	if (rc != 0)
		return rc;
	l->st_open = 1;
	l->watch = store_watch(&l->st);
	return 0;
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

	if (l->fd < 0) {	/* never a closed descriptor: poll would ignore it */
		errno = ENOTCONN;
		return NULL;
	}
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

/* The connection was lost under a message (rather than refused for
 * good, or the reply being nonsense): worth connecting again. */
static int
lost(int e)
{
	return e == ECONNRESET || e == EPIPE || e == ENOTCONN || e == ETIMEDOUT;
}

/* The reply is the daemon's "busy" (too many connections). */
static int
busy(const json_t *reply)
{
	return strcmp(json_str(json_object_get(reply, "error"), "code"), "busy") == 0;
}

/*
 * Send msg and read the first reply line. A lost connection is made
 * again (link_reconnect) and msg sent again; a daemon that turned the
 * connection away as busy is asked again a few times. *sent (when not
 * NULL) says whether msg ever left. EXIT_OK with *reply, else
 * EXIT_UNREACHABLE after saying why.
 */
static int
call(struct link *l, json_t *msg, json_t **reply, int *sent)
{
	int64_t since = 0;
	int tries = 0;

	if (sent != NULL)
		*sent = 0;
	for (;;) {
		if (l->fd < 0 && link_reconnect(l, &since) != 0)
			return EXIT_UNREACHABLE;
		if (send_message(l, msg) == 0) {
			if (sent != NULL)
				*sent = 1;
			if ((*reply = read_reply(l)) != NULL) {
				if (!busy(*reply) || ++tries > BUSY_RETRIES)
					return EXIT_OK;
				json_decref(*reply);
				sleep_ms(BUSY_PAUSE_MS);
			} else if (!lost(errno)) {
				unreachable(l, errno);
				return EXIT_UNREACHABLE;
			}
		} else if (!lost(errno)) {
			unreachable(l, errno);
			return EXIT_UNREACHABLE;
		}
		link_drop(l);
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
	if (strcmp(r->code, "state_full") == 0) {
		warnx("%s: %s", what, r->message);
		return EXIT_INTERNAL;
	}
	if (strcmp(r->code, "busy") == 0) {
		warnx("%s: %s", what, r->message);
		return EXIT_UNREACHABLE;
	}
	return EXIT_REFUSED;
}

/* A fresh request key: 32 hex digits from the system's random source. */
static int
request_key(char key[2 * KEY_BYTES + 1])
{
	unsigned char r[KEY_BYTES];
	size_t i;

	if (random_bytes(r, sizeof r) != 0)
		return -1;
	for (i = 0; i < sizeof r; i++)
		snprintf(key + 2 * i, 3, "%02x", r[i]);
	return 0;
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
	char key[2 * KEY_BYTES + 1];
	int rc, sent;

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
	if (request_key(key) != 0) {
		json_decref(req);
		warnx("cannot read the system's random source: %m");
		return EXIT_INTERNAL;
	}
	msg = json_pack("{s:s,s:o,s:s*,s:s*,s:s}", "op", "request", "request", req,
	    "agent", agent, "project", project, "key", key);
	if (msg == NULL)
		return EXIT_INTERNAL;
	rc = call(l, msg, &reply, &sent);
	json_decref(msg);
	if (rc != EXIT_OK) {
		if (sent)
			warnx("the request was sent and may be stored at the reviewer's daemon: "
			    "do not resend it; see `warrant list` (with the same --to or "
			    "WARRANT_SOCKET) once the daemon is back");
		else
			warnx("nothing was sent: the request can be sent again once the "
			    "daemon runs");
		return rc;
	}
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
	char id[GATE_ID_LEN + 1], *shown;
	json_t *g;
	int rc;

	if ((rc = link_store(l, 0)) < 0)
		return EXIT_INTERNAL;
	if (rc > 0) {
		shown = text_visible(arg);
		warnx("no gate matches '%s': there is no store here yet", shown);
		free(shown);
		return EXIT_REFUSED;
	}
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

/* The wait message for the gate id, with what is left of the timeout. */
static json_t *
wait_message(const char *id, int64_t until)
{
	json_t *msg = json_pack("{s:s,s:s}", "op", "wait", "id", id);
	int64_t left = until - monotonic_ms();

	if (msg != NULL && until != INT64_MAX)
		json_object_set_new(msg, "timeout", json_integer(left > 0 ? (left + 999) / 1000 : 0));
	return msg;
}

/*
 * Wait up to timeout seconds (-1: until it settles or expires; 0: just
 * look) for the gate arg names (an id or unique prefix). A daemon that
 * goes away under the wait is waited for (link_reconnect) and asked
 * again by the gate's id. Returns the exit code of `warrant wait` (0,
 * 3-6) with *outcome, or EXIT_REFUSED, EXIT_INTERNAL, EXIT_UNREACHABLE
 * after saying why.
 */
int
link_wait(struct link *l, const char *arg, long timeout, json_t **outcome)
{
	int64_t since = 0, until = timeout >= 0 ? monotonic_ms() + timeout * 1000 : INT64_MAX;
	char id[GATE_ID_LEN + 1];
	json_t *msg, *reply;
	const char *event;
	int rc = EXIT_UNREACHABLE, tries = 0;

	*outcome = NULL;
	if (l->local)
		return wait_local(l, arg, timeout, outcome);
	snprintf(id, sizeof id, "%s", arg);
	for (;;) {
		if (l->fd < 0 && link_reconnect(l, &since) != 0)
			break;
		if ((msg = wait_message(id, until)) == NULL)
			return EXIT_INTERNAL;
		rc = send_message(l, msg);
		json_decref(msg);
		reply = rc == 0 ? read_reply(l) : NULL;
		for (; reply != NULL; reply = read_reply(l)) {
			if (!json_is_true(json_object_get(reply, "ok")))
				break;
			since = 0;	/* answered: a later loss has the whole patience */
			event = json_str(reply, "event");
			if (strcmp(event, "outcome") == 0)
				break;
			/* pending: the id, whole, for asking again after a loss */
			if (gate_id_prefix(json_str(reply, "request_id"), id, sizeof id) != 0)
				snprintf(id, sizeof id, "%s", arg);
			json_decref(reply);
		}
		if (reply != NULL && busy(reply) && ++tries <= BUSY_RETRIES) {
			json_decref(reply);
			link_drop(l);
			sleep_ms(BUSY_PAUSE_MS);
			continue;
		}
		if (reply != NULL) {
			if (!json_is_true(json_object_get(reply, "ok"))) {
				rc = reply_error("wait", reply, NULL);
				if (rc == EXIT_REFUSED)
					warnx("wait: %s", json_str(json_object_get(reply, "error"),
					    "message"));
			} else {
				*outcome = json_incref(json_object_get(reply, "outcome"));
				rc = json_is_object(*outcome) ? outcome_exit(*outcome) : EXIT_INTERNAL;
			}
			json_decref(reply);
			return rc;
		}
		if (!lost(errno)) {
			unreachable(l, errno);
			break;
		}
		link_drop(l);
	}
	warnx("%s: its fate is not known here; it stays with the reviewer's daemon: do "
	    "not resend the request; `warrant wait %s` (with the same --to or "
	    "WARRANT_SOCKET) once the daemon is back", id, id);
	return EXIT_UNREACHABLE;
}

/*
 * Withdraw the caller's own pending gate arg (an id or unique prefix of
 * 4 or more characters): a denial with feedback why (in this user's
 * store the whole feedback; the daemon stores it after "withdrawn by the
 * requester: "; NULL: none). EXIT_OK with the gate's id in id;
 * EXIT_REFUSED with r filled (unknown_gate, ambiguous_id, or not_pending:
 * settled or being run, left alone); else EXIT_INTERNAL or
 * EXIT_UNREACHABLE after saying why.
 */
int
link_withdraw(struct link *l, const char *arg, const char *why, char id[GATE_ID_LEN + 1],
    struct refusal *r)
{
	json_t *msg, *reply;
	int rc;

	if (l->local) {
		if ((rc = link_store(l, 0)) < 0)
			return EXIT_INTERNAL;
		if (rc == 0) {
			/* an attempt whose executor died is settled first; a live one is left */
			(void)approve_recover(&l->st);
			rc = store_resolve(&l->st, arg, (int64_t)getuid(), id);
		}
		if (rc == 0)
			rc = gate_deny(&l->st, id, why != NULL ? why : "withdrawn by the requester");
		else if (rc > 0) {
			refuse(r, rc == 1 ? "unknown_gate" : "ambiguous_id", "$.id", "%s",
			    rc == 1 ? "no gate of yours matches this id" : "the id matches more "
			    "than one of your gates, or is shorter than 4 characters: give more "
			    "of it");
			return EXIT_REFUSED;
		}
		if (rc > 0)
			refuse(r, "not_pending", "$.id", "%s is settled or being run; it was not "
			    "withdrawn", id);
		return rc == 0 ? EXIT_OK : rc > 0 ? EXIT_REFUSED : EXIT_INTERNAL;
	}
	if ((msg = json_pack("{s:s,s:s,s:s*}", "op", "withdraw", "id", arg,
	    "feedback", why)) == NULL)
		return EXIT_INTERNAL;
	rc = link_op(l, msg, &reply, r);
	json_decref(msg);
	if (rc == EXIT_OK) {
		if (gate_id_prefix(json_str(reply, "request_id"), id, GATE_ID_LEN + 1) != 0)
			rc = reply_error("withdraw", reply, r);
		json_decref(reply);
	}
	return rc;
}

/*
 * One operation with the daemon (safe to send twice, as all are).
 * EXIT_OK with *reply when it says ok; EXIT_REFUSED with r filled (its
 * code and message); otherwise EXIT_INTERNAL or EXIT_UNREACHABLE after
 * saying why.
 */
int
link_op(struct link *l, json_t *msg, json_t **reply, struct refusal *r)
{
	int rc = call(l, msg, reply, NULL);

	if (rc != EXIT_OK)
		return rc;
	if (json_is_true(json_object_get(*reply, "ok")))
		return EXIT_OK;
	rc = reply_error("the reviewer's daemon", *reply, r);
	json_decref(*reply);
	*reply = NULL;
	return rc;
}
