/* SPDX-License-Identifier: ISC */
/*
 * The pending tools/call requests of one session. A call's arguments go
 * through the same path as `warrant request` (link_submit: this user's
 * store, or the reviewer's daemon); the timer then looks at each call's
 * gate, sends progress notifications while it is pending, and answers
 * the call once it is settled. A cancelled call, and every call
 * still pending when the session ends, withdraws its gate (a denial with
 * feedback), so nobody approves work for an agent that is no longer
 * waiting for it. Nothing here ever approves anything.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

static int
link_ready(struct mcp_session *s)
{
	if (!s->linked && link_open(&s->link, s->to) == EXIT_OK)
		s->linked = 1;
	return s->linked ? 0 : -1;
}

#define UNREACHABLE_TEXT "warrant cannot reach the reviewer's daemon (its server log " \
	"says where it looked); ask the user to start it with `warrant serve` or " \
	"`systemctl --user start warrant`."

static void
call_free(struct mcp_session *s, size_t i)
{
	json_decref(s->calls[i].id);
	json_decref(s->calls[i].token);
	s->ncalls--;
	if (i != s->ncalls)
		s->calls[i] = s->calls[s->ncalls];
	memset(&s->calls[s->ncalls], 0, sizeof s->calls[s->ncalls]);
}

/* A tools/call answered with an error text (not a refusal). */
static int
fail(struct mcp_session *s, json_t *id, const char *text)
{
	return rpc_result(s, id, result_text(text, 1, NULL, 0));
}

/* Tell a client that asked for progress that its call still waits. */
static void
progress(struct mcp_session *s, struct mcp_call *c)
{
	int64_t now = monotonic_ms(), done = (now - c->started_ms) / 1000;
	int64_t left = c->expires - now_seconds();
	char msg[256];
	json_t *p;

	if (c->token == NULL || now < c->next_progress_ms)
		return;
	c->next_progress_ms = now + MCP_PROGRESS_MS;
	if (done <= c->last_progress)	/* progress must increase */
		done = c->last_progress + 1;
	c->last_progress = done;
	if (left > 0)
		snprintf(msg, sizeof msg, MCP_PROGRESS_TEXT, c->gate, c->gate, (long long)left);
	else
		snprintf(msg, sizeof msg, "%s: the review window has closed", c->gate);
	p = json_pack("{s:O,s:I,s:s}", "progressToken", c->token, "progress",
	    (json_int_t)done, "message", msg);
	if (p != NULL && done < c->window)
		json_object_set_new(p, "total", json_integer(c->window));
	rpc_notify(s, "notifications/progress", p);
}

/*
 * Validate the arguments of a tools/call as a request and store it as a
 * pending gate; the call is answered when the gate settles. A refusal is
 * answered at once and stores nothing.
 */
int
calls_start(struct mcp_session *s, json_t *id, json_t *token, json_t *args)
{
	struct refusal r;
	struct mcp_call *c;
	json_t *desc = NULL;
	const char *reason;
	char *buf;
	int rc;

	if (s->ncalls >= MCP_MAX_CALLS)
		return fail(s, id, "too many calls of this session are waiting for review; "
		    "wait for one to be answered before sending another");
	if (link_ready(s) != 0)
		return fail(s, id, UNREACHABLE_TEXT " Nothing was stored.");
	if ((buf = json_dumps(args, JSON_COMPACT)) == NULL)
		return rpc_error(s, id, RPC_INTERNAL_ERROR, "cannot encode the arguments");
	rc = link_submit(&s->link, buf, strlen(buf), s->agent, NULL, &desc, &r);
	free(buf);
	if (rc == EXIT_REFUSED)
		return rpc_result(s, id, result_refusal(&r, s->structured));
	if (rc == EXIT_UNREACHABLE)
		return fail(s, id, UNREACHABLE_TEXT " Nothing was stored.");
	if (rc != EXIT_OK)
		return fail(s, id, "warrant cannot store the request (its server log says why); "
		    "nothing is waiting for review");

	c = &s->calls[s->ncalls++];
	memset(c, 0, sizeof *c);
	c->id = json_incref(id);
	c->token = token != NULL ? json_incref(token) : NULL;
	snprintf(c->gate, sizeof c->gate, "%s", json_str(desc, "request_id"));
	c->expires = json_integer_value(json_object_get(desc, "expires_at_epoch"));
	c->window = json_integer_value(json_object_get(desc, "gate_timeout_seconds"));
	c->started_ms = c->next_progress_ms = monotonic_ms();
	c->last_progress = -1;
	warnx("mcp: %s waits for review: warrant answer %s", c->gate, c->gate);
	/* accepted, so exactly one of reason and its alias why is there */
	if (*(reason = json_str(args, "reason")) == '\0')
		reason = json_str(args, "why");
	/* through the daemon, the daemon tells the reviewer: this is the agent's session */
	if (s->link.local)
		notify_reviewer(c->gate, reason,
		    (int)json_integer_value(json_object_get(desc, "root_count")),
		    (int)json_integer_value(json_object_get(desc, "user_count")));
	json_decref(desc);
	progress(s, c);
	return 0;
}

/* Look at every pending call's gate; answer those that settled. */
void
calls_tick(struct mcp_session *s)
{
	struct mcp_call *c;
	json_t *out;
	size_t i;
	int rc;

	for (i = 0; i < s->ncalls;) {
		c = &s->calls[i];
		out = NULL;
		rc = link_ready(s) == 0 ? link_wait(&s->link, c->gate, 0, &out) : EXIT_UNREACHABLE;
		if (out == NULL) {
			/* maybe passing (a store being created, a daemon restarting): retry */
			if (++c->failures < MCP_READ_FAILURES) {
				i++;
				continue;
			}
			fail(s, c->id, rc == EXIT_UNREACHABLE ? UNREACHABLE_TEXT " The request may "
			    "still be waiting for review." : "warrant cannot read the request's "
			    "state; ask the user to check `warrant list`");
			call_free(s, i);
			continue;
		}
		c->failures = 0;
		if (rc == EXIT_WAIT_PENDING) {
			json_decref(out);
			progress(s, c);
			i++;
			continue;
		}
		warnx("mcp: %s %s", c->gate, json_str(out, "state"));
		rpc_result(s, c->id, result_settled(out, s->structured));
		json_decref(out);
		call_free(s, i);
	}
}

int
calls_find(struct mcp_session *s, const json_t *id)
{
	size_t i;

	for (i = 0; i < s->ncalls; i++)
		if (json_equal(s->calls[i].id, id))
			return (int)i;
	return -1;
}

/*
 * Withdraw call i's gate: a denial with feedback, unless it has settled
 * meanwhile or the reviewer is already running it (then it settles with
 * its ledger as usual).
 */
static void
withdraw(struct mcp_session *s, size_t i, const char *why)
{
	const char *gate = s->calls[i].gate;
	char id[GATE_ID_LEN + 1];
	struct refusal r;
	int rc;

	if (link_ready(s) != 0) {
		warnx("mcp: cannot withdraw %s: its store or daemon cannot be reached", gate);
		return;
	}
	/* left alone when it settled or the reviewer is running it */
	rc = link_withdraw(&s->link, gate, why, id, &r);
	if (rc == EXIT_OK)
		warnx("mcp: %s %s", gate, why);
	else if (rc == EXIT_REFUSED && strcmp(r.code, "not_pending") == 0)
		warnx("mcp: %s is settled or being run; not withdrawn", gate);
	else
		warnx("mcp: cannot withdraw %s", gate);
}

/* notifications/cancelled: withdraw the gate; the call gets no answer. */
void
calls_cancel(struct mcp_session *s, const json_t *id)
{
	int i = calls_find(s, id);

	if (i < 0)
		return;		/* unknown, or answered already */
	withdraw(s, (size_t)i, "withdrawn: the agent cancelled the call");
	call_free(s, (size_t)i);
}

/* The session ends: nobody will read the answers of its pending calls. */
void
calls_withdraw_all(struct mcp_session *s, const char *why)
{
	while (s->ncalls > 0) {
		withdraw(s, 0, why);
		call_free(s, 0);
	}
}
