/* SPDX-License-Identifier: ISC */
/*
 * The co-reviewers' operations of the requester socket, under the
 * host's two-person rule (docs/two-person.md): members of the policy's
 * reviewers group list the pending gates with ROOT commands
 * (review_list), see one exactly as the reviewer does (review_show), and
 * tell the daemon of their decision (review). Identity is the kernel's
 * (SO_PEERCRED) and membership is read at every operation. An approval
 * is the peer's own file in the spool, which the runner counts; the
 * daemon only confirms it is there. A denial by any member denies the
 * gate. Nobody approves for another, and the requester never approves.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

#define REVIEW_LIST_MAX	100

/* May this peer act as a co-reviewer? 0 with the policy, or -1 after the error. */
static int
co_reviewer(struct daemon *d, struct conn *c, struct tp_policy *p)
{
	const struct peer *peer = conn_peer(c);
	char why[512];

	if (tp_policy_load(p, why, sizeof why) != 0) {
		conn_error(c, "policy_invalid", NULL, "the two-person policy is refused: %s", why);
		return -1;
	}
	if (p->approvals <= 1) {
		conn_error(c, "no_two_person_rule", NULL, "this host asks one approval of ROOT "
		    "commands (no two-person rule): there is nothing to review for others");
		return -1;
	}
	if (peer->uid == d->uid) {
		conn_error(c, "own_daemon", NULL, "these are your own gates: answer them with "
		    "`warrant answer ID`");
		return -1;
	}
	if (!tp_is_member(p, peer->uid)) {
		conn_error(c, "not_a_reviewer", NULL, "%s (uid %u) is not a member of %s, the "
		    "reviewers of this host's two-person rule", *peer->name ? peer->name : "you",
		    (unsigned)peer->uid, p->group);
		return -1;
	}
	return 0;
}

/* The pending gate the id member names, among everyone's, with its
 * sealed manifest; NULL after the error. */
static json_t *
any_gate(struct daemon *d, struct conn *c, const json_t *msg)
{
	const char *arg = json_string_value(json_object_get(msg, "id"));
	char id[GATE_ID_LEN + 1];
	json_t *g;

	if (arg == NULL) {
		conn_error(c, "invalid_field", "$.id", "id must be a gate id (a string)");
		return NULL;
	}
	(void)refresh_store(&d->st);
	switch (store_resolve(&d->st, arg, ANY_REQUESTER, id)) {
	case 0:
		break;
	case 1:
		conn_error(c, "unknown_gate", "$.id", "no gate matches this id");
		return NULL;
	case 2:
		conn_error(c, "ambiguous_id", "$.id", "the id matches more than one gate, or is "
		    "shorter than 4 characters: give more of it");
		return NULL;
	default:
		conn_error(c, "internal", NULL, "the daemon cannot read its store");
		return NULL;
	}
	if ((g = store_gate(&d->st, id, 1)) == NULL) {
		conn_error(c, "internal", NULL, "the daemon cannot read the gate");
		return NULL;
	}
	if (strcmp(json_str(g, "state"), "pending") != 0) {
		conn_error(c, "not_pending", "$.id", "%s is %s, not pending", id,
		    json_str(g, "state"));
		json_decref(g);
		return NULL;
	}
	return g;
}

/* The command ids of msg.commands (an array of strings, or absent: all). */
static int
msg_ids(struct conn *c, const json_t *msg, const char ***ids, size_t *n)
{
	json_t *a = json_object_get(msg, "commands"), *v;
	size_t i;

	*ids = NULL;
	*n = 0;
	if (a == NULL)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > 128) {
		conn_error(c, "invalid_field", "$.commands", "commands is an array of at most "
		    "128 command ids");
		return -1;
	}
	*ids = xcalloc(json_array_size(a) + 1, sizeof **ids);
	json_array_foreach(a, i, v) {
		if (!json_is_string(v)) {
			free(*ids);
			*ids = NULL;
			conn_error(c, "invalid_field", "$.commands", "each command id is a string");
			return -1;
		}
		(*ids)[(*n)++] = json_string_value(v);
	}
	return 0;
}

/* The binding of the selection and its tally; NULL after the error. */
static json_t *
binding_tally(struct daemon *d, struct conn *c, const struct tp_policy *p, const json_t *g,
    const json_t *msg, struct tp_tally *t)
{
	const char **ids;
	char why[512];
	struct tp_binding tb;
	json_t *b;
	size_t n;

	if (msg_ids(c, msg, &ids, &n) != 0)
		return NULL;
	b = review_binding(g, ids, n, d->uid, why, sizeof why);
	free(ids);
	if (b == NULL) {
		conn_error(c, "invalid_field", "$.commands", "%s", why);
		return NULL;
	}
	if (!json_is_true(json_object_get(b, "root"))) {
		json_decref(b);
		conn_error(c, "no_root_command", "$.commands", "no selected command runs as "
		    "root: the two-person rule has nothing to say about it");
		return NULL;
	}
	binding_tp(b, &tb);
	if (tp_count(p, &tb, t, why, sizeof why) != 0) {
		json_decref(b);
		conn_error(c, "spool_unusable", NULL, "%s", why);
		return NULL;
	}
	return b;
}

static json_t *
tally_json(const struct tp_policy *p, const struct tp_tally *t)
{
	return json_pack("{s:i,s:i,s:i,s:b}", "approvals", t->approvals,
	    "needed", p->approvals - 1, "root_approvals", p->approvals, "denied", t->denied);
}

void
op_review_list(struct daemon *d, struct conn *c, json_t *msg)
{
	static const char *const allowed[] = { "op", NULL };
	struct tp_policy p;
	struct tp_tally t;
	json_t *list, *out, *g, *full, *b;
	size_t i;

	if (members_only(c, msg, allowed) != 0 || co_reviewer(d, c, &p) != 0)
		return;
	(void)refresh_store(&d->st);
	if ((list = store_list(&d->st, 0, REVIEW_LIST_MAX, NULL, ANY_REQUESTER)) == NULL) {
		conn_error(c, "internal", NULL, "the daemon cannot read its store");
		return;
	}
	out = json_array();
	json_array_foreach(list, i, g) {
		if (json_integer_value(json_object_get(g, "root_count")) <= 0 ||
		    (full = store_gate(&d->st, json_str(g, "request_id"), 1)) == NULL)
			continue;
		b = review_binding(full, NULL, 0, d->uid, (char[8]){ 0 }, 8);
		json_decref(full);
		if (b == NULL)
			continue;
		{
			struct tp_binding tb;
			char why[256];

			binding_tp(b, &tb);
			if (tp_count(&p, &tb, &t, why, sizeof why) != 0)
				memset(&t, 0, sizeof t);
		}
		json_object_set_new(g, "reviews", tally_json(&p, &t));
		json_object_set_new(g, "yours", json_boolean(json_integer_value(json_object_get(g,
		    "requester_uid")) == (json_int_t)conn_peer(c)->uid));
		json_decref(b);
		json_array_append(out, g);
	}
	json_decref(list);
	conn_reply(c, json_pack("{s:b,s:s,s:o,s:{s:i,s:s}}", "ok", 1, "reviewer", d->name,
	    "gates", out, "policy", "root_approvals", p.approvals, "reviewers_group", p.group), 1);
}

/* The reviewed files' text (what `warrant show` prints), for a
 * co-reviewer who cannot read this store: the client checks it against
 * the sealed hash before it shows it. */
static void
add_file_texts(struct daemon *d, json_t *g)
{
	const char *name, *what;
	json_t *f;
	char *text;

	json_object_foreach(json_object_get(g, "files"), name, f) {
		if ((text = blob_text(d->st.dir, f, SHOW_CONTENT_MAX, &what)) != NULL)
			json_object_set_new(f, "content_text", json_string(text));
		free(text);
	}
}

void
op_review_show(struct daemon *d, struct conn *c, json_t *msg)
{
	static const char *const allowed[] = { "op", "id", "commands", NULL };
	struct tp_policy p;
	struct tp_tally t;
	json_t *g, *b;

	if (members_only(c, msg, allowed) != 0 || co_reviewer(d, c, &p) != 0 ||
	    (g = any_gate(d, c, msg)) == NULL)
		return;
	if ((b = binding_tally(d, c, &p, g, msg, &t)) == NULL) {
		json_decref(g);
		return;
	}
	add_file_texts(d, g);
	conn_reply(c, json_pack("{s:b,s:s,s:o,s:o,s:o,s:{s:i,s:s}}", "ok", 1, "reviewer",
	    d->name, "gate", g, "binding", b, "reviews", tally_json(&p, &t), "policy",
	    "root_approvals", p.approvals, "reviewers_group", p.group), 1);
}

void
op_review(struct daemon *d, struct conn *c, json_t *msg)
{
	static const char *const allowed[] = { "op", "id", "commands", "decision",
	    "manifest_sha256", "feedback", NULL };
	const struct peer *peer = conn_peer(c);
	const char *decision = json_string_value(json_object_get(msg, "decision"));
	const char *sha = json_string_value(json_object_get(msg, "manifest_sha256"));
	json_t *f = json_object_get(msg, "feedback"), *g, *b;
	struct tp_policy p;
	struct tp_tally t;
	char *why;
	int i, mine = 0, rc;

	if (members_only(c, msg, allowed) != 0 || co_reviewer(d, c, &p) != 0)
		return;
	if (decision == NULL || (strcmp(decision, "approve") != 0 &&
	    strcmp(decision, "deny") != 0)) {
		conn_error(c, "invalid_field", "$.decision", "decision is \"approve\" or \"deny\"");
		return;
	}
	if (f != NULL && (!json_is_string(f) || !feedback_ok(json_string_value(f)))) {
		conn_error(c, "invalid_field", "$.feedback", "%s", FEEDBACK_RULE);
		return;
	}
	if ((g = any_gate(d, c, msg)) == NULL)
		return;
	if (strcmp(decision, "deny") == 0) {
		if (asprintf(&why, "denied by %s (two-person rule)%s%s", *peer->name ?
		    peer->name : "a co-reviewer", f != NULL ? ": " : "",
		    f != NULL ? json_string_value(f) : "") < 0) {
			json_decref(g);
			conn_error(c, "internal", NULL, "out of memory");
			return;
		}
		(void)approve_recover(&d->st);
		rc = gate_deny(&d->st, json_str(g, "request_id"), why);
		free(why);
		if (rc == 0) {
			warnx("serve: %s denied by %s (uid %u), a co-reviewer",
			    json_str(g, "request_id"), peer->name, (unsigned)peer->uid);
			conn_reply(c, json_pack("{s:b,s:s,s:s}", "ok", 1, "request_id",
			    json_str(g, "request_id"), "state", "denied"), 1);
		} else
			conn_error(c, rc > 0 ? "not_pending" : "internal", "$.id", "%s was not "
			    "denied: it is settled or being run", json_str(g, "request_id"));
		json_decref(g);
		return;
	}
	if (json_integer_value(json_object_get(g, "requester_uid")) == (json_int_t)peer->uid) {
		json_decref(g);
		conn_error(c, "own_request", "$.id", "you asked for this: under the two-person "
		    "rule someone else approves it");
		return;
	}
	if ((b = binding_tally(d, c, &p, g, msg, &t)) == NULL) {
		json_decref(g);
		return;
	}
	if (sha == NULL || !digest_equal(sha, json_str(b, "manifest_sha256"))) {
		conn_error(c, "gate_changed", "$.manifest_sha256", "the selected commands are not "
		    "the ones you reviewed (their seal is %.16s…); show the gate again",
		    json_str(b, "manifest_sha256"));
	} else {
		for (i = 0; i < t.approvals; i++)
			mine |= t.by[i] == peer->uid;
		if (!mine)
			conn_error(c, "review_missing", NULL, "no approval of yours for exactly "
			    "these commands is in %s (warrant answer --approve --to writes it "
			    "before it tells the daemon)", WARRANT_REVIEW_SPOOL);
		else {
			warnx("serve: %s approved by %s (uid %u), a co-reviewer: %d of %d",
			    json_str(g, "request_id"), peer->name, (unsigned)peer->uid,
			    t.approvals + 1, p.approvals);
			conn_reply(c, json_pack("{s:b,s:s,s:o}", "ok", 1, "request_id",
			    json_str(g, "request_id"), "reviews", tally_json(&p, &t)), 1);
		}
	}
	json_decref(b);
	json_decref(g);
}
