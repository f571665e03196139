/* SPDX-License-Identifier: ISC */
/*
 * The runner's ledger as the unprivileged side reads it (src/root/ledger.c
 * writes it): checked against what was approved before a gate settles
 * (same request and manifest hash, exactly one entry per selected command
 * in order, an I/O log session id and the run-time supervisor's record
 * only on ROOT entries), cut to what output_to_agent lets the agent see,
 * and summed up. Root never reads a ledger, so none of this is linked
 * into the runner.
 */
#include <string.h>

#include "warrant.h"

/* Every status an entry can have, and what it means (ledger_check
 * accepts these; `warrant skill` explains them). */
const struct ledger_status ledger_statuses[] = {
	{ "ran", "started, did not time out, exited 0" },
	{ "failed", "started and did not succeed (a non-zero exit, a signal, a timeout), "
	    "or could not start" },
	{ "skipped", "known not to have started (an earlier failure with stop_on_failure, "
	    "another command refused, the runner told to stop)" },
	{ "refused", "not run: its executable changed since review, or sudoers does not "
	    "allow it" },
	{ "interrupted", "it may have run, or partly run: nobody can tell; check before "
	    "asking again" },
	{ "not_approved", "the reviewer did not select it" },
	{ NULL, NULL },
};

static int
status_known(const char *s)
{
	const struct ledger_status *st;

	for (st = ledger_statuses; s != NULL && st->name != NULL; st++)
		if (strcmp(s, st->name) == 0)
			return 1;
	return 0;
}

/* Cut each entry's output to what output_to_agent lets the agent see,
 * at a character boundary. */
void
ledger_filter(json_t *ledger, const char *policy)
{
	size_t max, i, n;
	json_t *e, *tail, *cut;

	json_array_foreach(json_object_get(ledger, "entries"), i, e) {
		max = ledger_tail_bytes(policy);
		tail = json_object_get(e, "output_tail");
		n = json_string_length(tail);
		if (n <= max)
			continue;
		while (max > 0 && (json_string_value(tail)[n - max] & 0xc0) == 0x80)
			max--;
		cut = json_string(json_string_value(tail) + (n - max));
		json_object_set_new(e, "output_tail", cut != NULL ? cut : json_string(""));
	}
}

/* A ROOT entry's I/O log session, "xx/yy/zz" in base 36 (upper case). */
static int
iolog_id_ok(const json_t *v)
{
	const char *s = json_string_value(v);
	size_t i;

	if (s == NULL || strlen(s) != 8)
		return 0;
	for (i = 0; i < 8; i++)
		if (i % 3 == 2 ? s[i] != '/' :
		    !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	return 1;
}

static int
listed(const char *s, const char *const *list)
{
	for (; s != NULL && *list != NULL; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

/*
 * The run-time supervisor's record of a ROOT command (docs/execution.md,
 * "Confinement"): {executed: [{path, sha256}], written: [path], refused:
 * [{call, path, reason}], omitted: {executed, written, refused},
 * unconfined}, exactly these members, each list at most CONFINE_LIST_MAX
 * items. Paths and reasons are the agent's (it names the files), so they
 * are bounded here and neutralised wherever they are shown.
 */
static const char *const confine_calls[] = { "open", "exec", "symlink", "link",
	"rename", "truncate", "chown", "chmod", "unlink", "mkdir", "mknod", "xattr", "connect",
	"send", "receive", "bind", "chroot", "swapon", "swapoff", "acct", "umount", "quotactl",
	"utimensat", "mount", "setns", "pidfd", "ptrace", "process_vm", NULL };

/* Does object o have exactly the members keys (NULL-terminated)? */
static int
exact_members(const json_t *o, const char *const *keys)
{
	size_t n;

	if (!json_is_object(o))
		return 0;
	for (n = 0; keys[n] != NULL; n++)
		if (json_object_get(o, keys[n]) == NULL)
			return 0;
	return json_object_size(o) == n;
}

static int
bounded_string(const json_t *v, size_t max)
{
	return json_is_string(v) && json_string_length(v) <= max;
}

/* 0, or -1 with why: what is wrong with confinement record c. */
int
confinement_check(const json_t *c, char *why, size_t size)
{
	static const char *const lists[] = { "executed", "written", "refused", NULL };
	const json_t *v, *om = json_object_get(c, "omitted");
	size_t i, k;

	/* left_running: a record made by an older runner has none */
	v = json_object_get(c, "left_running");
	if (!exact_members(c, v != NULL ? (const char *const[]){ "executed", "written",
	    "refused", "omitted", "unconfined", "left_running", NULL } :
	    (const char *const[]){ "executed", "written", "refused", "omitted", "unconfined",
	    NULL })) {
		snprintf(why, size, "it is not an object of exactly executed, written, "
		    "refused, omitted, unconfined and (optional) left_running");
		return -1;
	}
	if (v != NULL && (!json_is_array(v) || json_array_size(v) > CONFINE_LIST_MAX)) {
		snprintf(why, size, "left_running is not a list of at most %d items",
		    CONFINE_LIST_MAX);
		return -1;
	}
	json_array_foreach(json_object_get(c, "left_running"), i, v)
		if (!exact_members(v, (const char *const[]){ "pid", "command", NULL }) ||
		    !json_is_integer(json_object_get(v, "pid")) ||
		    json_integer_value(json_object_get(v, "pid")) <= 0 ||
		    !bounded_string(json_object_get(v, "command"), 64)) {
			snprintf(why, size, "left_running[%zu] is not {pid, command}", i);
			return -1;
		}
	if (!exact_members(om, lists)) {
		snprintf(why, size, "omitted is not an object of exactly executed, written "
		    "and refused");
		return -1;
	}
	for (k = 0; lists[k] != NULL; k++) {
		v = json_object_get(c, lists[k]);
		if (!json_is_array(v) || json_array_size(v) > CONFINE_LIST_MAX) {
			snprintf(why, size, "%s is not a list of at most %d items", lists[k],
			    CONFINE_LIST_MAX);
			return -1;
		}
		if (!json_is_integer(json_object_get(om, lists[k])) ||
		    json_integer_value(json_object_get(om, lists[k])) < 0) {
			snprintf(why, size, "omitted.%s is not a count", lists[k]);
			return -1;
		}
	}
	if (!json_is_boolean(json_object_get(c, "unconfined"))) {
		snprintf(why, size, "unconfined is not true or false");
		return -1;
	}
	json_array_foreach(json_object_get(c, "executed"), i, v)
		if (!exact_members(v, (const char *const[]){ "path", "sha256", NULL }) ||
		    !bounded_string(json_object_get(v, "path"), CONFINE_PATH_MAX) ||
		    !is_hex64(json_string_value(json_object_get(v, "sha256")))) {
			snprintf(why, size, "executed[%zu] is not {path, sha256} with a path of "
			    "at most %d bytes and 64 lower-case hex digits", i, CONFINE_PATH_MAX);
			return -1;
		}
	json_array_foreach(json_object_get(c, "written"), i, v)
		if (!bounded_string(v, CONFINE_PATH_MAX)) {
			snprintf(why, size, "written[%zu] is not a path of at most %d bytes", i,
			    CONFINE_PATH_MAX);
			return -1;
		}
	json_array_foreach(json_object_get(c, "refused"), i, v)
		if (!exact_members(v, (const char *const[]){ "call", "path", "reason", NULL }) ||
		    !listed(json_string_value(json_object_get(v, "call")), confine_calls) ||
		    !bounded_string(json_object_get(v, "path"), CONFINE_PATH_MAX) ||
		    !bounded_string(json_object_get(v, "reason"), CONFINE_REASON_MAX)) {
			snprintf(why, size, "refused[%zu] is not {call, path, reason} with a known "
			    "call, a path of at most %d bytes and a reason of at most %d", i,
			    CONFINE_PATH_MAX, CONFINE_REASON_MAX);
			return -1;
		}
	/* unconfined: the supervisor did not run, so it recorded nothing */
	if (json_is_true(json_object_get(c, "unconfined")) &&
	    (json_array_size(json_object_get(c, "executed")) > 0 ||
	    json_array_size(json_object_get(c, "written")) > 0 ||
	    json_array_size(json_object_get(c, "refused")) > 0)) {
		snprintf(why, size, "it is unconfined but lists accesses");
		return -1;
	}
	return 0;
}

/*
 * Check a ledger against what was approved: request id, manifest hash and
 * the ids of the selected commands in order. 0, or -1 with a reason.
 */
int
ledger_check(const json_t *l, const char *request_id, const char *sha,
    const char *const *ids, size_t nids, char *why, size_t size)
{
	json_t *entries = json_object_get(l, "entries"), *e, *conf;
	const char *s;
	char bad[192];
	size_t i;

	if (!json_is_object(l) || json_integer_value(json_object_get(l, "schema_version")) != 1) {
		snprintf(why, size, "the ledger is not a schema 1 object");
		return -1;
	}
	s = json_string_value(json_object_get(l, "request_id"));
	if (s == NULL || strcmp(s, request_id) != 0) {
		snprintf(why, size, "the ledger is for another request");
		return -1;
	}
	s = json_string_value(json_object_get(l, "manifest_sha256"));
	if (s == NULL || !digest_equal(s, sha)) {
		snprintf(why, size, "the ledger is for another manifest");
		return -1;
	}
	if (!listed(json_string_value(json_object_get(l, "outcome")),
	    (const char *const[]){ "completed", "runner_error", NULL })) {
		snprintf(why, size, "the ledger's outcome is not completed or runner_error");
		return -1;
	}
	if (!json_is_array(entries) || json_array_size(entries) != nids) {
		snprintf(why, size, "the ledger has %zu entries for %zu commands",
		    json_array_size(entries), nids);
		return -1;
	}
	json_array_foreach(entries, i, e) {
		s = json_string_value(json_object_get(e, "id"));
		if (s == NULL || strcmp(s, ids[i]) != 0) {
			snprintf(why, size, "ledger entry %zu is not command %s", i, ids[i]);
			return -1;
		}
		if (!status_known(json_string_value(json_object_get(e, "status"))) ||
		    !json_is_string(json_object_get(e, "output_tail")) ||
		    json_string_length(json_object_get(e, "output_tail")) > 4 * LEDGER_FULL_BYTES ||
		    (json_object_get(e, "iolog") != NULL &&
		    (!iolog_id_ok(json_object_get(e, "iolog")) ||
		    !listed(json_string_value(json_object_get(e, "as")),
		    (const char *const[]){ "root", NULL })))) {
			snprintf(why, size, "ledger entry %s is malformed", ids[i]);
			return -1;
		}
		/* the run-time supervisor's record: on ROOT entries only */
		conf = json_object_get(e, "confinement");
		if (conf != NULL && !listed(json_string_value(json_object_get(e, "as")),
		    (const char *const[]){ "root", NULL })) {
			snprintf(why, size, "ledger entry %s has a confinement record but does "
			    "not run as root", ids[i]);
			return -1;
		}
		if (conf != NULL && confinement_check(conf, bad, sizeof bad) != 0) {
			snprintf(why, size, "ledger entry %s has a malformed confinement "
			    "record: %s", ids[i], bad);
			return -1;
		}
	}
	return 0;
}

/* Did every entry run successfully? */
int
ledger_all_ran(const json_t *l)
{
	json_t *e;
	size_t i;

	/* what the reviewer left out is not a failure of what was approved */
	json_array_foreach(json_object_get(l, "entries"), i, e)
		if (strcmp(json_string_value(json_object_get(e, "status")), "ran") != 0 &&
		    strcmp(json_string_value(json_object_get(e, "status")), "not_approved") != 0)
			return 0;
	return strcmp(json_string_value(json_object_get(l, "outcome")), "completed") == 0;
}
