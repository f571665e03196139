/* SPDX-License-Identifier: ISC */
/*
 * A co-reviewer under the host's two-person rule for ROOT
 * (docs/two-person.md): `warrant list --to REVIEWER`, `show ID --to
 * REVIEWER` and `answer ID --approve|--deny --to REVIEWER`, through the
 * reviewer's daemon. What is shown is rebuilt from the sealed manifest
 * the daemon sends, checked against its seal here, and what an approval
 * binds to is computed here from that same manifest: the daemon cannot
 * show one thing and have another approved. The approval itself is this
 * user's own file in the spool (the kernel makes it ours), written only
 * after "Approve? [y/N]" on the terminal; the daemon is then told.
 */
#include <err.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

/* The uid of the reviewer named to, or -1 after saying so. */
static long
reviewer_uid(const char *to)
{
	struct passwd pw, *p;
	char buf[4096];

	if (getpwnam_r(to, &pw, buf, sizeof buf, &p) != 0 || p == NULL) {
		warnx("no user '%s' on this host", to);
		return -1;
	}
	return (long)p->pw_uid;
}

/* Send msg (stolen) to the daemon of to; EXIT_OK with *reply. */
static int
ask(const char *to, json_t *msg, json_t **reply)
{
	struct refusal r;
	struct link l;
	int rc;

	*reply = NULL;
	if ((rc = link_open(&l, to)) != EXIT_OK) {
		json_decref(msg);
		return rc;
	}
	memset(&r, 0, sizeof r);
	rc = link_op(&l, msg, reply, &r);
	link_close(&l);
	json_decref(msg);
	if (rc == EXIT_REFUSED)
		refusal_print("review", &r);
	return rc;
}

static int refused(const char *, const char *, ...) __attribute__((format(printf, 2, 3)));

static int
refused(const char *code, const char *fmt, ...)
{
	struct refusal r;
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	memset(&r, 0, sizeof r);
	refuse(&r, code, "", "%s", msg);
	return refusal_print("review", &r);
}

/* The gate's view with every reviewed field from its sealed manifest
 * (which must match the seal): what is shown is what is hashed. */
static int
view_from_manifest(json_t *g)
{
	json_t *m = json_object_get(g, "manifest"), *mc, *c, *files, *f, *v;
	char sha[SHA256_HEX_LEN + 1], *bytes;
	const char *key, *name;
	size_t i;

	if ((bytes = manifest_seal(m, sha)) == NULL ||
	    !digest_equal(sha, json_str(g, "manifest_sha256"))) {
		free(bytes);
		return -1;
	}
	free(bytes);
	json_object_foreach(m, key, v)
		if (strcmp(key, "commands") != 0 && strcmp(key, "files") != 0)
			json_object_set(g, key, v);
	mc = json_object_get(m, "commands");
	if (json_array_size(mc) != json_array_size(json_object_get(g, "commands")))
		return -1;
	json_array_foreach(mc, i, c) {
		json_t *gc = json_array_get(json_object_get(g, "commands"), i);

		json_object_foreach(c, key, v)
			json_object_set(gc, key, v);
		/* a YOU command's shell string is in its argv: shown from there */
		json_object_del(gc, "command");
	}
	files = json_object();
	json_object_foreach(json_object_get(m, "files"), name, f) {
		json_t *nf = json_deep_copy(f);
		json_t *sent = json_object_get(json_object_get(json_object_get(g, "files"), name),
		    "content_text");

		if (json_is_string(sent))
			json_object_set(nf, "content_text", sent);
		json_object_set_new(files, name, nf);
	}
	json_object_set_new(g, "files", files);
	return 0;
}

static json_t *
ids_json(const char *const *ids, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(ids[i]));
	return a;
}

static void
print_tally(FILE *fp, const char *to, const json_t *t)
{
	fprintf(fp, "%-12s %lld of %lld approvals by other members are in; %s's own run is the "
	    "last of %lld%s\n", "reviews",
	    (long long)json_integer_value(json_object_get(t, "approvals")),
	    (long long)json_integer_value(json_object_get(t, "needed")), to,
	    (long long)json_integer_value(json_object_get(t, "root_approvals")),
	    json_is_true(json_object_get(t, "denied")) ? " (a member denied it)" : "");
}

/*
 * Does the host's two-person rule make this user a co-reviewer? Also
 * when the policy cannot be read: the daemon then says why.
 */
int
cosign_applies(void)
{
	struct tp_policy p;
	char why[512];

	return tp_policy_load(&p, why, sizeof why) != 0 ||
	    (p.approvals > 1 && tp_is_member(&p, getuid()));
}

/* The pending gates with ROOT commands of to's that this co-reviewer
 * may review, each with its reviews; NULL after saying why. */
json_t *
cosign_list(const char *to)
{
	json_t *reply, *gates;

	if (ask(to, json_pack("{s:s}", "op", "review_list"), &reply) != EXIT_OK)
		return NULL;
	gates = json_incref(json_object_get(reply, "gates"));
	json_decref(reply);
	return json_is_array(gates) ? gates : NULL;
}

/* Those gates (cosign_list) for people. */
void
cosign_list_print(FILE *fp, const char *to, const json_t *gates)
{
	const json_t *g;
	size_t i;

	if (json_array_size(gates) == 0) {
		fprintf(fp, "no pending gate of %s has ROOT commands\n", to);
		return;
	}
	fprintf(fp, "to review under the two-person rule, %s's pending gates with ROOT "
	    "commands:\n", to);
	json_array_foreach(gates, i, g) {
		gate_print_line(fp, g);
		fprintf(fp, "    reviews: %lld of %lld%s\n",
		    (long long)json_integer_value(json_object_get(json_object_get(g,
		    "reviews"), "approvals")),
		    (long long)json_integer_value(json_object_get(json_object_get(g,
		    "reviews"), "needed")),
		    json_is_true(json_object_get(g, "yours")) ? " (you asked: you cannot "
		    "approve it)" : "");
	}
}

/* The gate and the binding of the selection, from the daemon, checked
 * and recomputed here. EXIT_OK with *gate, *binding and *reply. */
static int
fetch(const char *to, const char *id, const char *const *ids, size_t nids, json_t **reply,
    json_t **gate, json_t **binding)
{
	json_t *msg = json_pack("{s:s,s:s}", "op", "review_show", "id", id);
	char why[512];
	long ruid;
	int rc;

	*binding = NULL;
	if ((ruid = reviewer_uid(to)) < 0)
		return EXIT_REFUSED;
	if (nids > 0)
		json_object_set_new(msg, "commands", ids_json(ids, nids));
	if ((rc = ask(to, msg, reply)) != EXIT_OK)
		return rc;
	*gate = json_object_get(*reply, "gate");
	if (!json_is_object(*gate) || view_from_manifest(*gate) != 0) {
		json_decref(*reply);
		warnx("the daemon sent a gate whose manifest does not match its seal");
		return EXIT_INTERNAL;
	}
	if ((*binding = review_binding(*gate, ids, nids, (uid_t)ruid, why, sizeof why)) == NULL) {
		json_decref(*reply);
		return refused("invalid_field", "%s", why);
	}
	return EXIT_OK;
}

int
cosign_show(const char *to, const char *id, const char *const *ids, size_t nids, int json)
{
	json_t *reply, *gate, *b;
	int rc;

	if ((rc = fetch(to, id, ids, nids, &reply, &gate, &b)) != EXIT_OK)
		return rc;
	if (json) {
		json_object_set(gate, "binding", b);
		json_object_set(gate, "reviews", json_object_get(reply, "reviews"));
		rc = print_json(gate);
	} else {
		gate_print_full(stdout, gate, NULL);
		putchar('\n');
		print_tally(stdout, to, json_object_get(reply, "reviews"));
		rc = fflush(stdout) == 0 ? EXIT_OK : EXIT_INTERNAL;
	}
	json_decref(b);
	json_decref(reply);
	return rc;
}

/* Show the gate on the terminal and ask; 1 yes, 0 no, -1 no terminal. */
static int
confirm(const char *to, const json_t *gate, const json_t *b, const json_t *tally)
{
	char line[16] = "";
	const json_t *v;
	FILE *tty;
	size_t i;
	int yes;

	if ((tty = fopen("/dev/tty", "r+e")) == NULL)
		return -1;
	gate_print_full(tty, gate, NULL);
	fputc('\n', tty);
	print_tally(tty, to, tally);
	fprintf(tty, "%-12s", "approving");
	json_array_foreach(json_object_get(b, "ids"), i, v) {
		fputc(' ', tty);
		text_print(tty, json_string_value(v));
	}
	fprintf(tty, "\n%-12s %s (the seal of these commands)\n", "", json_str(b,
	    "manifest_sha256"));
	fprintf(tty, "Approve %s for %s to run? [y/N] ", json_str(gate, "request_id"), to);
	fflush(tty);
	yes = fgets(line, sizeof line, tty) != NULL && (line[0] == 'y' || line[0] == 'Y');
	fclose(tty);
	return yes;
}

int
cosign_answer(const char *to, const char *id, const char *const *ids, size_t nids, int deny,
    const char *feedback, int json)
{
	json_t *reply, *gate, *b, *msg, *done;
	struct tp_policy p;
	struct tp_binding tb;
	char why[512], gid[GATE_ID_LEN + 1];
	int rc;

	if (tp_policy_load(&p, why, sizeof why) != 0)
		return refused("policy_invalid", "the two-person policy is refused: %s", why);
	if (p.approvals <= 1)
		return refused("no_two_person_rule", "this host asks one approval of ROOT commands "
		    "(%s has no root_approvals above 1): %s answers alone", WARRANT_POLICY_FILE, to);
	if ((rc = fetch(to, id, ids, nids, &reply, &gate, &b)) != EXIT_OK)
		return rc;
	snprintf(gid, sizeof gid, "%s", json_str(gate, "request_id"));
	binding_tp(b, &tb);
	rc = EXIT_REFUSED;
	if (deny)
		rc = EXIT_OK;	/* a denial needs no terminal, and anyone of the group may */
	else if (json_integer_value(json_object_get(gate, "requester_uid")) ==
	    (json_int_t)getuid() || tb.requester == getuid())
		refused("own_request", "you asked for %s: under the two-person rule someone else "
		    "approves it", gid);
	else if (tb.reviewer == getuid())
		refused("own_daemon", "%s is your own gate: answer it with `warrant answer`",
		    gid);
	else if ((rc = confirm(to, gate, b, json_object_get(reply, "reviews"))) < 0) {
		refused("missing_tty", "approving ROOT commands needs a terminal to ask on");
		rc = EXIT_REFUSED;
		goto out;
	} else if (rc == 0) {
		printf("%s: not approved; nothing was written\n", gid);
		rc = EXIT_REFUSED;
		goto out;
	} else
		rc = EXIT_OK;
	if (rc != EXIT_OK)
		goto out;
	/* the spool file first: the runner counts it, whatever the daemon says */
	if (tp_write(&p, &tb, deny ? "deny" : "approve", why, sizeof why) != 0) {
		rc = refused("spool_unusable", "%s", why);
		goto out;
	}
	msg = json_pack("{s:s,s:s,s:s,s:s}", "op", "review", "id", gid, "decision",
	    deny ? "deny" : "approve", "manifest_sha256", json_str(b, "manifest_sha256"));
	if (nids > 0)
		json_object_set_new(msg, "commands", ids_json(ids, nids));
	if (deny && feedback != NULL)
		json_object_set_new(msg, "feedback", json_string(feedback));
	if ((rc = ask(to, msg, &done)) != EXIT_OK)
		goto out;
	if (json)
		print_json(done);
	else if (deny)
		printf("%s: denied\n", gid);
	else {
		printf("%s: approved by you\n", gid);
		print_tally(stdout, to, json_object_get(done, "reviews"));
	}
	json_decref(done);
out:
	json_decref(b);
	json_decref(reply);
	return rc;
}

/* For the reviewer's own views (`warrant show`, the review console): the
 * reviews of the whole gate so far, when the host's two-person rule
 * covers it. 1 with the text in buf, 0 when the rule does not apply. */
int
cosign_tally_text(const json_t *gate, char *buf, size_t size)
{
	struct tp_policy p;
	struct tp_binding tb;
	struct tp_tally t;
	char why[512];
	json_t *b;

	if (json_integer_value(json_object_get(gate, "root_count")) <= 0 ||
	    tp_policy_load(&p, why, sizeof why) != 0 || p.approvals <= 1 ||
	    (b = review_binding(gate, NULL, 0, getuid(), why, sizeof why)) == NULL)
		return 0;
	binding_tp(b, &tb);
	if (tp_count(&p, &tb, &t, why, sizeof why) != 0)
		snprintf(buf, size, "the two-person rule needs %d approvals; the reviews cannot "
		    "be read here (%s)", p.approvals, why);
	else
		snprintf(buf, size, "%d of %d approvals by other members of %s are in; your run "
		    "is the last of %d%s", t.approvals, p.approvals - 1, p.group, p.approvals,
		    t.denied ? " (a member denied it)" : "");
	json_decref(b);
	return 1;
}

void
cosign_tally_line(FILE *fp, const json_t *gate)
{
	char buf[768];

	if (cosign_tally_text(gate, buf, sizeof buf))
		fprintf(fp, "%-12s %s\n", "reviews", buf);
}
