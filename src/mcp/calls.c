/* SPDX-License-Identifier: ISC */
/*
 * The pending tools/call requests of one session. A request_commands
 * call's arguments go through the same path as `warrant request`
 * (link_submit: this user's store, or the reviewer's daemon); a
 * wait_for_review call names a gate made earlier. The timer then looks
 * at each call's gate, sends progress notifications while it is pending,
 * and answers the call once it is settled, or with the state "pending"
 * once the call has waited answer_s: clients give up on a call after
 * 60 s, and a gate must outlive that. A call cancelled while it waits,
 * and every call still waiting when the session ends, withdraws its gate
 * (a denial with feedback), so nobody approves work for an agent that
 * stopped waiting for it; a call that answered pending withdraws nothing
 * (the agent waits again with wait_for_review, maybe from another
 * session). Nothing here ever approves anything.
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

#define TOO_MANY_TEXT "too many calls of this session are waiting for review; " \
	"wait for one to be answered before sending another"

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
failed(struct mcp_session *s, json_t *id, const char *text)
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
	if (c->expires == 0)	/* a wait_for_review call: the window is not known here */
		snprintf(msg, sizeof msg, "%s waits for the reviewer (warrant answer %s)",
		    c->gate, c->gate);
	else if (left > 0)
		snprintf(msg, sizeof msg, MCP_PROGRESS_TEXT, c->gate, c->gate, (long long)left);
	else
		snprintf(msg, sizeof msg, "%s: the review window has closed", c->gate);
	p = json_pack("{s:O,s:I,s:s}", "progressToken", c->token, "progress",
	    (json_int_t)done, "message", msg);
	if (p != NULL && c->window > 0 && done < c->window)
		json_object_set_new(p, "total", json_integer(c->window));
	rpc_notify(s, "notifications/progress", p);
}

/* A call waiting for gate, answered "pending" after wait_s at the latest. */
static struct mcp_call *
call_add(struct mcp_session *s, json_t *id, json_t *token, const char *gate,
    long long wait_s)
{
	struct mcp_call *c = &s->calls[s->ncalls++];

	memset(c, 0, sizeof *c);
	c->id = json_incref(id);
	c->token = token != NULL ? json_incref(token) : NULL;
	snprintf(c->gate, sizeof c->gate, "%s", gate);
	c->started_ms = c->next_progress_ms = monotonic_ms();
	c->answer_ms = c->started_ms + wait_s * 1000;
	c->last_progress = -1;
	return c;
}

/*
 * Validate the arguments of a request_commands call as a request and
 * store it as a pending gate; the call is answered when the gate settles
 * or answer_s has passed. A refusal is answered at once and stores
 * nothing.
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
		return failed(s, id, TOO_MANY_TEXT);
	if (link_ready(s) != 0)
		return failed(s, id, UNREACHABLE_TEXT " Nothing was stored.");
	if ((buf = json_dumps(args, JSON_COMPACT)) == NULL)
		return rpc_error(s, id, RPC_INTERNAL_ERROR, "cannot encode the arguments");
	rc = link_submit(&s->link, buf, strlen(buf), s->agent, NULL, &desc, &r);
	free(buf);
	if (rc == EXIT_REFUSED)
		return rpc_result(s, id, result_refusal(&r, s->structured));
	if (rc == EXIT_UNREACHABLE)
		return failed(s, id, UNREACHABLE_TEXT " Nothing was stored.");
	if (rc != EXIT_OK)
		return failed(s, id, "warrant cannot store the request (its server log says why); "
		    "nothing is waiting for review");

	c = call_add(s, id, token, json_str(desc, "request_id"), s->answer_s);
	c->expires = json_integer_value(json_object_get(desc, "expires_at_epoch"));
	c->window = json_integer_value(json_object_get(desc, "gate_timeout_seconds"));
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

/* wait_for_review's request_id that matches nothing: said to the agent. */
static int
unknown_gate(struct mcp_session *s, json_t *id, const char *arg)
{
	char *shown = text_visible(arg), *text;
	int rc;

	if (asprintf(&text, "no request of yours matches request_id \"%s\": give the "
	    "request_id that " MCP_TOOL_NAME " returned (the user sees yours with "
	    "`warrant list`)", shown) < 0)
		text = NULL;
	rc = failed(s, id, text != NULL ? text : "no request of yours matches request_id");
	free(text);
	free(shown);
	return rc;
}

/*
 * A wait_for_review call: the gate its request_id names, answered at once
 * when it is settled (or unknown), otherwise when it settles or when
 * wait_seconds (at most answer_s) have passed.
 */
int
calls_wait(struct mcp_session *s, json_t *id, json_t *token, json_t *args)
{
	json_t *arg = json_object_get(args, "request_id"), *w = json_object_get(args,
	    "wait_seconds"), *out = NULL, *v;
	long long wait_s = s->answer_s;
	const char *key;
	int rc;

	json_object_foreach(args, key, v)
		if (strcmp(key, "request_id") != 0 && strcmp(key, "wait_seconds") != 0)
			return failed(s, id,
			    MCP_WAIT_TOOL " takes request_id and wait_seconds only");
	if (!json_is_string(arg) || json_string_length(arg) == 0 ||
	    json_string_length(arg) > 64)
		return failed(s, id, MCP_WAIT_TOOL " needs request_id: the request_id that "
		    MCP_TOOL_NAME " returned");
	if (w != NULL && (!json_is_integer(w) || json_integer_value(w) < 0))
		return failed(s, id, "wait_seconds is a whole number of seconds, 0 or more");
	if (w != NULL && json_integer_value(w) < wait_s)
		wait_s = json_integer_value(w);
	if (s->ncalls >= MCP_MAX_CALLS)
		return failed(s, id, TOO_MANY_TEXT);
	if (link_ready(s) != 0)
		return failed(s, id, UNREACHABLE_TEXT);
	rc = link_wait(&s->link, json_string_value(arg), 0, &out);
	if (out == NULL && rc == EXIT_REFUSED)
		return unknown_gate(s, id, json_string_value(arg));
	if (out == NULL)
		return failed(s, id, rc == EXIT_UNREACHABLE ? UNREACHABLE_TEXT " The request may "
		    "still be waiting for review." : "warrant cannot read the request's state; "
		    "ask the user to check `warrant list`");
	if (rc != EXIT_WAIT_PENDING || wait_s == 0) {
		rc = rpc_result(s, id, rc == EXIT_WAIT_PENDING ? result_pending(out, 0,
		    s->answer_s, s->structured) : result_settled(out, s->structured));
		json_decref(out);
		return rc;
	}
	progress(s, call_add(s, id, token, json_str(out, "request_id"), wait_s));
	json_decref(out);
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
			failed(s, c->id, rc == EXIT_UNREACHABLE ?
			    UNREACHABLE_TEXT " The request may still be waiting for review." :
			    "warrant cannot read the request's state; ask the user to check "
			    "`warrant list`");
			call_free(s, i);
			continue;
		}
		c->failures = 0;
		if (rc == EXIT_WAIT_PENDING && monotonic_ms() < c->answer_ms) {
			json_decref(out);
			progress(s, c);
			i++;
			continue;
		}
		if (rc == EXIT_WAIT_PENDING) {
			/* answered, not withdrawn: the agent waits again by id */
			warnx("mcp: %s has no outcome yet: the call answers pending", c->gate);
			rpc_result(s, c->id, result_pending(out, c->expires, s->answer_s,
			    s->structured));
			json_decref(out);
			call_free(s, i);
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
	char id[GATE_ID_LEN + 1], *full = NULL;
	struct refusal r;
	int rc;

	if (link_ready(s) != 0) {
		warnx("mcp: cannot withdraw %s: its store or daemon cannot be reached", gate);
		return;
	}
	/* the daemon stores the feedback after "withdrawn by the requester: ";
	 * this user's store takes it whole */
	if (s->link.local && asprintf(&full, "withdrawn by the requester: %s", why) < 0) {
		warnx("mcp: cannot withdraw %s: out of memory", gate);
		return;
	}
	/* left alone when it settled or the reviewer is running it */
	rc = link_withdraw(&s->link, gate, s->link.local ? full : why, id, &r);
	free(full);
	if (rc == EXIT_OK)
		warnx("mcp: %s withdrawn: %s", gate, why);
	else if (rc == EXIT_REFUSED && strcmp(r.code, "not_pending") == 0)
		warnx("mcp: %s is settled or being run; not withdrawn", gate);
	else
		warnx("mcp: cannot withdraw %s", gate);
}

/* notifications/cancelled of a call still waiting: withdraw its gate; the
 * call gets no answer. A call answered already is not known any more. */
void
calls_cancel(struct mcp_session *s, const json_t *id)
{
	int i = calls_find(s, id);

	if (i < 0)
		return;		/* unknown, or answered already */
	withdraw(s, (size_t)i, "the agent cancelled the call");
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
