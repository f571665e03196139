/* SPDX-License-Identifier: ISC */
/*
 * The runner's side of the two-person rule (docs/two-person.md): before
 * anything runs, a batch with ROOT commands needs the policy's approvals,
 * counted here as root from the spool, where each review's owner is the
 * kernel's word; the sudo user is one. Missing reviews, or a denial, exit
 * RUNNER_REVIEWS with nothing run; once the batch is under way the
 * request's reviews are spent and removed. The same policy may name a log
 * server (logship.c): a batch with ROOT commands starts only where its
 * sessions can be shipped there.
 */
#include <err.h>
#include <string.h>

#include "root.h"
#include "runner.h"

static json_t *
selected_ids(const json_t *manifest)
{
	json_t *ids = json_array(), *c;
	size_t i;

	json_array_foreach(json_object_get(manifest, "commands"), i, c)
		json_array_append(ids, json_object_get(c, "id"));
	return ids;
}

void
reviews_verify(const json_t *manifest, const char *sha, uid_t sudo_uid, uid_t requester,
    struct tp_policy *p)
{
	struct tp_binding b;
	struct tp_tally t;
	json_t *c, *ids;
	char why[512];
	size_t i;
	int root = 0;

	json_array_foreach(json_object_get(manifest, "commands"), i, c)
		root |= strcmp(json_string_value(json_object_get(c, "as")), "root") == 0;
	if (tp_policy_load(p, why, sizeof why) != 0)
		errx(RUNNER_REFUSED, "refusing: the host's policy is refused (policy_invalid): %s",
		    why);
	/* a log server named: the sessions can reach it, or nothing runs */
	if (root && logship_ready(&p->log_server, why, sizeof why) != 0)
		errx(RUNNER_REFUSED, "refusing: %s; nothing ran", why);
	if (!root || p->approvals <= 1) {
		p->approvals = 1;
		return;
	}
	ids = selected_ids(manifest);
	b = (struct tp_binding){ .request_id = json_string_value(json_object_get(manifest,
	    "request_id")), .sha = sha, .ids = ids, .requester = requester,
	    .reviewer = sudo_uid };
	if (tp_count(p, &b, &t, why, sizeof why) != 0)
		errx(RUNNER_REVIEWS, "refusing (reviews_missing): %s; nothing ran", why);
	json_decref(ids);
	if (t.denied)
		errx(RUNNER_REVIEWS, "refusing (review_denied): uid %u, a member of %s, denied "
		    "this request; nothing ran", (unsigned)t.denied_by, p->group);
	if (t.approvals < p->approvals - 1)
		errx(RUNNER_REVIEWS, "refusing (reviews_missing): the two-person rule needs %d "
		    "approvals of these commands: yours and %d by other members of %s; %d found "
		    "(%d review file%s of this request do not count); nothing ran",
		    p->approvals, p->approvals - 1, p->group, t.approvals, t.ignored,
		    t.ignored == 1 ? "" : "s");
}
