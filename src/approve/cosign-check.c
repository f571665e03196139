/* SPDX-License-Identifier: ISC */
/*
 * The front end of the two-person rule (docs/two-person.md): before the
 * sudo prompt, `warrant answer --run` counts the other reviewers'
 * approvals of exactly the subset it is about to run, the way the runner
 * will, so the reviewer learns early that they are missing. The runner
 * decides; this only tells. A denial by any member denies the gate here.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"

/* The binding of this batch: what every approval must name. The
 * requester as the run manifest carries it to the runner. */
json_t *
batch_binding(const struct batch *b, struct tp_binding *tb)
{
	json_t *ids = json_array(), *c, *rq = json_object_get(b->run, "requester");
	size_t i;

	json_array_foreach(b->selected, i, c)
		json_array_append(ids, json_object_get(c, "id"));
	*tb = (struct tp_binding){ .request_id = b->gate_id, .sha = b->sha, .ids = ids,
	    .requester = json_is_object(rq) ?
	    (uid_t)json_integer_value(json_object_get(rq, "uid")) : 0,
	    .reviewer = getuid() };
	return ids;
}

/*
 * 0 when the batch may go to sudo as far as the rule goes; -1 with the
 * batch's outcome set (reviews_missing, review_denied after denying the
 * gate, policy_invalid, two_person_via_sudo).
 */
int
approve_reviews(struct batch *b, int root, int via_sudo)
{
	struct tp_policy p;
	struct tp_binding tb;
	struct tp_tally t;
	char why[512], who[96], note[160];
	json_t *ids;
	int rc;

	if (!root)
		return 0;
	if (tp_policy_load(&p, why, sizeof why) != 0) {
		tell(b, "policy_invalid", "the two-person policy is refused (%s): the runner "
		    "would refuse too; nothing ran", why);
		return -1;
	}
	/* sudo runs each command itself, outside the runner's supervisor */
	if (via_sudo && !p.unconfined) {
		tell(b, "unconfined_refused", "--via sudo runs ROOT commands outside the runner's "
		    "run-time supervisor, which this host's policy does not allow (%s has no "
		    "\"unconfined\": \"allow\"): answer without it; nothing ran",
		    WARRANT_POLICY_FILE);
		return -1;
	}
	if (p.approvals <= 1)
		return 0;
	if (via_sudo) {
		tell(b, "two_person_via_sudo", "this host's two-person rule needs the runner, "
		    "which checks the reviews: answer without --via sudo; nothing ran");
		return -1;
	}
	ids = batch_binding(b, &tb);
	rc = tp_count(&p, &tb, &t, why, sizeof why);
	json_decref(ids);
	if (rc != 0) {
		tell(b, "reviews_missing", "the two-person rule needs %d approvals, and the "
		    "reviews cannot be read (%s); nothing ran, the gate stays pending",
		    p.approvals, why);
		return -1;
	}
	if (t.denied) {
		snprintf(note, sizeof note, "denied by %s (two-person rule)",
		    user_label(t.denied_by, who, sizeof who));
		if (gate_deny(b->st, b->gate_id, note) == 0) {
			tell(b, "review_denied", "%s, a member of %s, denied this request; "
			    "it is denied, nothing ran", who, p.group);
			return -1;
		}
		tell(b, "review_denied", "%s, a member of %s, denied this request; nothing ran",
		    who, p.group);
		return -1;
	}
	if (t.approvals < p.approvals - 1) {
		tell(b, "reviews_missing", "the two-person rule needs %d approvals of these "
		    "commands: yours and %d by other members of %s; %d %s in. Ask one to run "
		    "`warrant answer %s --approve --to %s`%s; nothing ran, the gate stays "
		    "pending", p.approvals, p.approvals - 1, p.group, t.approvals,
		    t.approvals == 1 ? "is" : "are", b->gate_id,
		    user_label(getuid(), who, sizeof who), json_array_size(b->selected) <
		    json_array_size(json_object_get(b->manifest, "commands")) ?
		    " with the same -c selection" : "");
		return -1;
	}
	return 0;
}

/*
 * What an approval of the commands ids (all when none) of gate (read
 * with its sealed manifest), to be run by the reviewer uid, binds to:
 * {request_id, manifest_sha256 (the seal of that subset), ids,
 * requester_uid (as the run manifest will carry it), reviewer_uid, root
 * (whether a ROOT command is among them)}. The sealed manifest must still
 * hash to the gate's seal. NULL with why.
 */
json_t *
review_binding(const json_t *gate, const char *const *ids, size_t nids, uid_t reviewer,
    char *why, size_t size)
{
	const json_t *m = json_object_get(gate, "manifest");
	char sha[SHA256_HEX_LEN + 1], *bytes;
	const char *bad = NULL;
	json_t *sel, *run, *rq, *out, *idl, *c;
	size_t i;
	int root = 0;

	if ((bytes = manifest_seal(m, sha)) == NULL ||
	    !digest_equal(sha, json_str(gate, "manifest_sha256"))) {
		free(bytes);
		snprintf(why, size, "the gate's manifest does not match its seal");
		return NULL;
	}
	free(bytes);
	if ((sel = commands_select(m, ids, nids, &bad)) == NULL) {
		snprintf(why, size, "no command '%.64s' in this request", bad);
		return NULL;
	}
	run = run_subset(m, sel);
	bytes = manifest_seal(run, sha);
	json_decref(run);
	if (bytes == NULL) {
		json_decref(sel);
		snprintf(why, size, "cannot seal the selected commands");
		return NULL;
	}
	free(bytes);
	idl = json_array();
	json_array_foreach(sel, i, c) {
		json_array_append(idl, json_object_get(c, "id"));
		root |= is_root(c);
	}
	json_decref(sel);
	rq = requester_json(gate);
	out = json_pack("{s:s,s:s,s:o,s:I,s:I,s:b}", "request_id", json_str(gate, "request_id"),
	    "manifest_sha256", sha, "ids", idl, "requester_uid", json_is_object(rq) ?
	    json_integer_value(json_object_get(rq, "uid")) : (json_int_t)0,
	    "reviewer_uid", (json_int_t)reviewer, "root", root);
	json_decref(rq);
	return out;
}

/* A binding object as review_binding makes it, for twoperson.c. */
void
binding_tp(const json_t *bj, struct tp_binding *tb)
{
	*tb = (struct tp_binding){ .request_id = json_str(bj, "request_id"),
	    .sha = json_str(bj, "manifest_sha256"), .ids = json_object_get(bj, "ids"),
	    .requester = (uid_t)json_integer_value(json_object_get(bj, "requester_uid")),
	    .reviewer = (uid_t)json_integer_value(json_object_get(bj, "reviewer_uid")) };
}
