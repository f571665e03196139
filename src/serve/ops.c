/* SPDX-License-Identifier: ISC */
/*
 * The operations of the requester socket (docs/protocol.md), each for
 * one admitted peer and only ever about that peer's own gates: request
 * (validated with the peer as the requester by a worker, under quotas of
 * pending gates, rate and metadata, once per request key), wait,
 * withdraw, list and show. A refusal changes nothing.
 * Nothing here approves anything. (The co-reviewers' operations of the
 * two-person rule are in coreview.c.)
 */
#include <err.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"
#include "remote/remote.h"

#define WAIT_MAX_SECONDS	604800
#define LIST_MAX		100
#define KEY_MIN			16	/* a request key's length */
#define KEY_MAX			64

/* Refuse members other than the allowed ones. 0, or -1 after the error. */
int
members_only(struct conn *c, json_t *msg, const char *const *allowed)
{
	const char *key, *const *a;
	json_t *v;

	json_object_foreach(msg, key, v) {
		for (a = allowed; *a != NULL && strcmp(*a, key) != 0; a++)
			;
		if (*a == NULL) {
			conn_error(c, "invalid_field", "$", "unknown member \"%.64s\" for this op",
			    key);
			return -1;
		}
	}
	return 0;
}

/* The id member resolved among the peer's own gates. 0, or -1 after the error. */
static int
own_gate(struct daemon *d, struct conn *c, json_t *msg, char id[GATE_ID_LEN + 1])
{
	const char *arg = json_string_value(json_object_get(msg, "id"));

	if (arg == NULL) {
		conn_error(c, "invalid_field", "$.id", "id must be a gate id (a string)");
		return -1;
	}
	switch (store_resolve(&d->st, arg, conn_peer(c)->uid, id)) {
	case 0:
		return 0;
	case 1:
		conn_error(c, "unknown_gate", "$.id", "no gate of yours matches this id");
		return -1;
	case 2:
		conn_error(c, "ambiguous_id", "$.id", "the id matches more than one of your "
		    "gates, or is shorter than 4 characters: give more of it");
		return -1;
	default:
		conn_error(c, "internal", NULL, "the daemon cannot read its store");
		return -1;
	}
}

/* May this uid make one more request now? Counts it when it may. */
static int
rate_allow(struct daemon *d, uid_t uid)
{
	int64_t now = monotonic_ms();
	struct rate *r = NULL;
	size_t i;

	for (i = 0; i < d->nrates && r == NULL; i++)
		if (d->rates[i].uid == uid)
			r = &d->rates[i];
	if (r == NULL) {
		if (d->rates == NULL)
			d->rates = xcalloc(SERVE_RATE_UIDS, sizeof *d->rates);
		if (d->nrates == SERVE_RATE_UIDS)
			rates_free(d);	/* forget everyone rather than grow */
		r = &d->rates[d->nrates++];
		r->uid = uid;
		r->at = xcalloc((size_t)d->rate_count, sizeof *r->at);
		r->next = 0;
	}
	/* r->at[r->next] is the oldest of the last rate_count requests */
	if (r->at[r->next] != 0 && now - r->at[r->next] < SERVE_RATE_SECONDS * 1000)
		return 0;
	r->at[r->next] = now;
	r->next = (r->next + 1) % d->rate_count;
	return 1;
}

/* Forget every requester's recent requests. */
void
rates_free(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nrates; i++)
		free(d->rates[i].at);
	d->nrates = 0;
}

/*
 * Judge and store the request of msg for peer p on st, with home (the
 * reviewer's) where its YOU commands run by default; answer is the
 * target's, asked by a worker for a request for an enrolled machine
 * (NULL: none, or ask now). Called in the loop, and by the intake worker
 * (worker.c) on a store connection of its own. EXIT_OK with *desc,
 * EXIT_REFUSED with r filled, anything else after saying why.
 */
int
request_submit(struct store *st, const struct peer *p, const char *home, json_t *msg,
    const json_t *answer, json_t **desc, struct refusal *r)
{
	json_t *req = json_object_get(msg, "request");
	const char *agent = json_string_value(json_object_get(msg, "agent"));
	const char *project = json_string_value(json_object_get(msg, "project"));
	const char *key = json_string_value(json_object_get(msg, "key"));
	struct requester rq;
	char *bytes;
	int rc;

	*desc = NULL;
	if (requester_lookup(&rq, p->uid, p->gid, p->groups, p->ngroups) != 0) {
		warn("serve: cannot read the groups of uid %u", (unsigned)p->uid);
		return EXIT_INTERNAL;
	}
	rq.pid = p->pid;
	rq.pid_start = p->start;
	/* YOU commands run as the reviewer: by default in the reviewer's home */
	free(rq.home);
	rq.home = home != NULL ? xstrdup(home) : NULL;
	if ((bytes = json_dumps(req, JSON_COMPACT)) == NULL) {
		requester_free(&rq);
		warnx("serve: cannot encode a request");
		return EXIT_INTERNAL;
	}
	rc = gate_submit_answered(st, bytes, strlen(bytes), &rq, agent, project, answer,
	    key, desc, r);
	free(bytes);
	requester_free(&rq);
	return rc;
}

/* Reply to c with what request_submit said about msg's request; full:
 * it failed because the state directory is full (store.full). */
static void
request_reply(struct conn *c, json_t *msg, int rc, json_t *desc, const struct refusal *r,
    int full)
{
	const struct peer *p = conn_peer(c);
	json_t *req = json_object_get(msg, "request"), *reply;

	if (rc == EXIT_REFUSED) {
		reply = refusal_json(r);
		json_object_set_new(reply, "ok", json_false());
		conn_reply(c, reply, 1);
	} else if (rc != EXIT_OK && full)
		conn_error(c, "state_full", NULL, "the reviewer's state directory is full "
		    "(the daemon's log names the file); nothing is waiting for review");
	else if (rc != EXIT_OK || desc == NULL)
		conn_error(c, "internal", NULL, "the daemon cannot store the request "
		    "(its log says why); nothing is waiting for review");
	else {
		warnx("serve: %s from %s (uid %u, pid %d) waits for review",
		    json_str(desc, "request_id"), p->name, (unsigned)p->uid, (int)p->pid);
		/* accepted, so exactly one of reason and its alias why is there */
		notify_reviewer(json_str(desc, "request_id"),
		    *json_str(req, "reason") != '\0' ? json_str(req, "reason") : json_str(req, "why"),
		    (int)json_integer_value(json_object_get(desc, "root_count")),
		    (int)json_integer_value(json_object_get(desc, "user_count")));
		conn_reply(c, json_pack("{s:b,s:O}", "ok", 1, "gate", desc), 1);
	}
}

/* Judge and store the request of msg for c's peer here, in the loop, and reply. */
static void
request_store(struct daemon *d, struct conn *c, json_t *msg, const json_t *answer)
{
	struct refusal r;
	json_t *desc;
	int rc;

	d->st.full = 0;
	rc = request_submit(&d->st, conn_peer(c), d->home, msg, answer, &desc, &r);
	request_reply(c, msg, rc, desc, &r, d->st.full);
	json_decref(desc);
}

/*
 * In a worker (conn_fork's child): ask the target of msg's request, write
 * {"answer": …} or {"refusal": …} as one line on fd, and end. Nothing of
 * the store is touched here.
 */
static void __attribute__((noreturn))
request_ask(struct daemon *d, json_t *msg, int fd)
{
	json_t *a = NULL, *out;
	struct wrequest q;
	struct refusal r;
	char *bytes = json_dumps(json_object_get(msg, "request"), JSON_COMPACT), *line;

	if (bytes == NULL)
		refuse(&r, "internal", "$", "cannot encode the request");
	else if (request_parse(bytes, strlen(bytes), &q, &r) == 0) {
		a = remote_ask(d->st.dir, &q, &r);
		request_free(&q);
	}
	out = a != NULL ? json_pack("{s:o}", "answer", a) :
	    json_pack("{s:o}", "refusal", refusal_json(&r));
	line = out != NULL ? json_dumps(out, JSON_COMPACT) : NULL;
	_exit(line != NULL && write_all(fd, line, strlen(line)) == 0 ? 0 : 1);
}

/*
 * A request whose key (in msg, checked) made a gate already is answered
 * with that gate, whatever the quota says now: it is the same request,
 * sent again by a client that lost the connection. 1 when answered (or
 * after an error), 0 when the request is new.
 */
static int
request_repeat(struct daemon *d, struct conn *c, json_t *msg)
{
	const char *key = json_string_value(json_object_get(msg, "key"));
	const struct peer *p = conn_peer(c);
	json_t *desc;
	int rc;

	if (key == NULL || (rc = request_key_find(&d->st, p->uid, key, &desc)) == 1)
		return 0;
	if (rc != 0) {
		conn_error(c, "internal", NULL, "the daemon cannot read its store");
		return 1;
	}
	warnx("serve: %s from %s (uid %u, pid %d) asked again with the same key: the "
	    "same gate", json_str(desc, "request_id"), p->name, (unsigned)p->uid, (int)p->pid);
	conn_reply(c, json_pack("{s:b,s:o,s:b}", "ok", 1, "gate", desc, "repeat", 1), 1);
	return 1;
}

/* listen.c: the worker of c, on msg, ended; out is what it wrote (NULL
 * when it failed or took too long). */
void
ops_child_done(struct daemon *d, struct conn *c, json_t *msg, const char *out, size_t len)
{
	json_t *j = out != NULL ? json_loadb(out, len, 0, NULL) : NULL, *reply;
	struct refusal r;

	/* the key is looked at again: a retry may have been stored meanwhile */
	if (json_is_object(json_object_get(j, "answer"))) {
		if (request_repeat(d, c, msg) == 0)
			request_store(d, c, msg, json_object_get(j, "answer"));
	} else if (json_is_object(json_object_get(j, "stored")))
		request_reply(c, msg, EXIT_OK, json_object_get(j, "stored"), NULL, 0);
	else if (json_object_get(j, "refusal") != NULL &&
	    refusal_from_json(&r, json_object_get(j, "refusal")) == 0) {
		reply = refusal_json(&r);
		json_object_set_new(reply, "ok", json_false());
		conn_reply(c, reply, 1);
	} else if (json_is_string(json_object_get(json_object_get(msg, "request"), "machine")))
		conn_error(c, "machine_unreachable", "$.machine", "the target did not answer "
		    "in time; nothing is waiting for review");
	/* an intake worker that failed or died: the same request sent again
	 * (its key) may have been stored by another worker, or by this one
	 * just before it died; request_repeat answers with that gate */
	else if (request_repeat(d, c, msg) == 0) {
		if (json_is_true(json_object_get(j, "failed")))
			request_reply(c, msg, EXIT_INTERNAL, NULL, NULL,
			    json_is_true(json_object_get(j, "full")));
		else
			conn_error(c, "internal", NULL, "the daemon's worker ended without "
			    "storing the request (its log says why); ask again with the same "
			    "key to learn whether it was stored");
	}
	json_decref(j);
}

static void
op_request(struct daemon *d, struct conn *c, json_t *msg)
{
	static const char *const allowed[] = { "op", "request", "agent", "project", "key",
		NULL };
	const struct peer *p = conn_peer(c);
	const char *agent, *project;
	json_t *req = json_object_get(msg, "request"), *key = json_object_get(msg, "key");
	long long used;
	long pending;
	int fd;

	if (members_only(c, msg, allowed) != 0)
		return;
	if (!json_is_object(req)) {
		conn_error(c, "invalid_field", "$.request", "request must be an object "
		    "(a warrant-request(5) body)");
		return;
	}
	agent = json_string_value(json_object_get(msg, "agent"));
	project = json_string_value(json_object_get(msg, "project"));
	if ((json_object_get(msg, "agent") != NULL && (agent == NULL || !label_valid(agent))) ||
	    (json_object_get(msg, "project") != NULL &&
	    (project == NULL || !label_valid(project)))) {
		conn_error(c, "invalid_field", "$", "agent and project must be strings of "
		    "1-128 characters without control characters");
		return;
	}
	if (key != NULL && (!json_is_string(key) || json_string_length(key) < KEY_MIN ||
	    json_string_length(key) > KEY_MAX || strspn(json_string_value(key),
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
	    json_string_length(key))) {
		conn_error(c, "invalid_field", "$.key", "key is %d to %d letters, digits, '_' "
		    "or '-'", KEY_MIN, KEY_MAX);
		return;
	}
	if (request_repeat(d, c, msg) != 0)
		return;
	if (!rate_allow(d, p->uid)) {
		warnx("serve: %s (uid %u): rate limit", p->name, (unsigned)p->uid);
		conn_error(c, "quota_exceeded", "$", "more than %ld requests in %d seconds; "
		    "wait before asking again", d->rate_count, SERVE_RATE_SECONDS);
		return;
	}
	if ((pending = store_count_pending(&d->st, p->uid)) < 0) {
		conn_error(c, "internal", NULL, "the daemon cannot read its store");
		return;
	}
	/* requests still in a worker count: they may all be stored */
	pending += (long)conn_workers(p->uid);
	if (pending >= d->max_pending) {
		warnx("serve: %s (uid %u): %ld pending gates", p->name, (unsigned)p->uid, pending);
		conn_error(c, "quota_exceeded", "$", "you have %ld gates waiting for review "
		    "or being stored (at most %ld); wait for them or withdraw one", pending,
		    d->max_pending);
		return;
	}
	if ((used = store_meta_bytes(&d->st, p->uid)) < 0) {
		conn_error(c, "internal", NULL, "the daemon cannot read its store");
		return;
	}
	if (used >= d->meta_quota) {
		warnx("serve: %s (uid %u): its gates take %lld bytes", p->name,
		    (unsigned)p->uid, used);
		conn_error(c, "quota_exceeded", "$", "your gates, settled ones included, take "
		    "%lld KiB of the reviewer's state (at most %lld KiB); nothing was stored: "
		    "settled gates are pruned by `warrant gc` once %d days old, or sooner "
		    "when the reviewer runs `warrant gc --max-age 0`", used / 1024,
		    d->meta_quota / 1024, GC_MAX_AGE_DAYS);
		return;
	}
	/* an enrolled machine is asked over ssh: in a worker, never here */
	if (json_is_string(json_object_get(req, "machine"))) {
		if (conn_fork(c, msg, -1, &fd) == 0)
			request_ask(d, msg, fd);
		return;
	}
	/* judged and stored by a worker, never here: executables are hashed
	 * and snapshots copied, which is time the loop owes everyone else */
	worker_start(d, c, msg);
}

/*
 * One look at the gate a connection waits on: a heartbeat (when beat)
 * while it is pending and the wait lasts, else the final outcome.
 * Returns 1 when the wait is over.
 */
int
ops_wait_tick(struct daemon *d, struct conn *c, const char *id, int64_t until, int beat)
{
	json_t *g, *out;
	int pending;

	if ((g = store_gate(&d->st, id, 0)) == NULL) {
		conn_error(c, "internal", NULL, "the daemon cannot read the gate");
		return 1;
	}
	pending = strcmp(json_str(g, "state"), "pending") == 0;
	if (pending && now_seconds() < until) {
		if (beat)
			conn_reply(c, json_pack("{s:b,s:s,s:s,s:O}", "ok", 1, "event", "pending",
			    "request_id", id, "expires_at_epoch", json_object_get(g, "expires_at")),
			    0);
		json_decref(g);
		return 0;
	}
	out = gate_outcome(&d->st, g);
	json_decref(g);
	if (out == NULL) {
		conn_error(c, "internal", NULL, "the daemon cannot read the outcome");
		return 1;
	}
	conn_reply(c, json_pack("{s:b,s:s,s:i,s:o}", "ok", 1, "event", "outcome",
	    "exit", outcome_exit(out), "outcome", out), 1);
	return 1;
}

static void
op_wait(struct daemon *d, struct conn *c, json_t *msg)
{
	static const char *const allowed[] = { "op", "id", "timeout", NULL };
	json_t *t = json_object_get(msg, "timeout");
	int64_t until = INT64_MAX;
	char id[GATE_ID_LEN + 1];

	if (members_only(c, msg, allowed) != 0)
		return;
	if (t != NULL) {
		if (!json_is_integer(t) || json_integer_value(t) < 0 ||
		    json_integer_value(t) > WAIT_MAX_SECONDS) {
			conn_error(c, "invalid_field", "$.timeout", "timeout is whole seconds, "
			    "0 to %d", WAIT_MAX_SECONDS);
			return;
		}
		until = now_seconds() + json_integer_value(t);
	}
	(void)refresh_store(&d->st);
	if (own_gate(d, c, msg, id) != 0)
		return;
	conn_wait(c, id, until);
	/* at once, pending or not: the client knows its wait was taken */
	(void)ops_wait_tick(d, c, id, until, 1);
}

static void
op_withdraw(struct daemon *d, struct conn *c, json_t *msg)
{
	static const char *const allowed[] = { "op", "id", "feedback", NULL };
	json_t *f = json_object_get(msg, "feedback");
	const struct peer *p = conn_peer(c);
	char id[GATE_ID_LEN + 1], *why;
	int rc;

	if (members_only(c, msg, allowed) != 0)
		return;
	if (f != NULL && (!json_is_string(f) || !feedback_ok(json_string_value(f)))) {
		conn_error(c, "invalid_field", "$.feedback", "%s", FEEDBACK_RULE);
		return;
	}
	if (own_gate(d, c, msg, id) != 0)
		return;
	if (asprintf(&why, "withdrawn by the requester%s%s", f != NULL ? ": " : "",
	    f != NULL ? json_string_value(f) : "") < 0) {
		conn_error(c, "internal", NULL, "out of memory");
		return;
	}
	/* an attempt whose executor died is settled first; a live one is left */
	(void)approve_recover(&d->st);
	rc = gate_deny(&d->st, id, why);
	free(why);
	if (rc == 0) {
		warnx("serve: %s withdrawn by %s (uid %u)", id, p->name, (unsigned)p->uid);
		conn_reply(c, json_pack("{s:b,s:s,s:s}", "ok", 1, "request_id", id,
		    "state", "denied"), 1);
	} else if (rc > 0)
		conn_error(c, "not_pending", "$.id", "%s is settled or being run; it was "
		    "not withdrawn", id);
	else
		conn_error(c, "internal", NULL, "the daemon cannot withdraw the gate");
}

static void
op_list(struct daemon *d, struct conn *c, json_t *msg)
{
	static const char *const allowed[] = { "op", "all", NULL };
	json_t *all = json_object_get(msg, "all"), *list;

	if (members_only(c, msg, allowed) != 0)
		return;
	if (all != NULL && !json_is_boolean(all)) {
		conn_error(c, "invalid_field", "$.all", "all is true or false");
		return;
	}
	(void)refresh_store(&d->st);
	if ((list = store_list(&d->st, json_is_true(all), LIST_MAX, NULL,
	    conn_peer(c)->uid)) == NULL) {
		conn_error(c, "internal", NULL, "the daemon cannot read its store");
		return;
	}
	conn_reply(c, json_pack("{s:b,s:s,s:o}", "ok", 1, "reviewer", d->name, "gates", list),
	    1);
}

/* One of the peer's own gates, with the sealed manifest, and once it is
 * settled the requester's view of its outcome (as wait gives it). */
static void
op_show(struct daemon *d, struct conn *c, json_t *msg)
{
	static const char *const allowed[] = { "op", "id", NULL };
	char id[GATE_ID_LEN + 1];
	json_t *g, *out = NULL;

	if (members_only(c, msg, allowed) != 0)
		return;
	(void)refresh_store(&d->st);
	if (own_gate(d, c, msg, id) != 0)
		return;
	if ((g = store_gate(&d->st, id, 1)) == NULL ||
	    (strcmp(json_str(g, "state"), "pending") != 0 &&
	    (out = gate_outcome(&d->st, g)) == NULL)) {
		json_decref(g);
		conn_error(c, "internal", NULL, "the daemon cannot read the gate");
		return;
	}
	if (out != NULL)
		json_object_set_new(g, "outcome", out);
	conn_reply(c, json_pack("{s:b,s:s,s:o}", "ok", 1, "reviewer", d->name, "gate", g), 1);
}

/* One whole message (without its newline) from an admitted peer. */
void
ops_message(struct daemon *d, struct conn *c, const char *line, size_t len)
{
	static const struct {
		const char *name;
		void (*fn)(struct daemon *, struct conn *, json_t *);
	} ops[] = {
		{ "request", op_request },
		{ "wait", op_wait },
		{ "withdraw", op_withdraw },
		{ "list", op_list },
		{ "show", op_show },
		{ "review_list", op_review_list },
		{ "review_show", op_review_show },
		{ "review", op_review },
	};
	json_error_t err;
	const char *op;
	json_t *msg;
	size_t i;

	msg = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
	if (!json_is_object(msg)) {
		json_decref(msg);
		conn_error(c, "invalid_json", "$", "each message is one JSON object on one "
		    "line (%s)", msg == NULL ? err.text : "not an object");
		return;
	}
	op = json_string_value(json_object_get(msg, "op"));
	for (i = 0; op != NULL && i < sizeof ops / sizeof ops[0]; i++)
		if (strcmp(ops[i].name, op) == 0) {
			ops[i].fn(d, c, msg);
			json_decref(msg);
			return;
		}
	json_decref(msg);
	conn_error(c, "unknown_op", "$.op", "op is one of request, wait, withdraw, list, show, "
	    "review_list, review_show, review");
}
