/* SPDX-License-Identifier: ISC */
/*
 * The remote executor: the approved batch of a gate for an enrolled
 * machine runs in the target's own warrant-runner, under the target's
 * own sudo, prompted on the reviewer's terminal. Every connection goes to
 * the account sealed in the manifest as "sudo_user" (the destination's
 * user, or --root-via's) and runs its warrant by the absolute path pinned
 * at enrollment, never through a login shell. Three ssh connections:
 *   1. stage (batch, no tty): the approved manifest on stdin of
 *      `warrant exec --stage` on the target, which checks that its runner
 *      is the enrolled one and writes it into a fresh 0700 directory
 *      (umask 077, exclusive create);
 *   2. run (ssh -t, the reviewer's /dev/tty on stdin, stdout and stderr):
 *      `warrant exec --manifest … --expected-sha256 …` re-checks the
 *      runner and the manifest's hash, adds the target user's YOU
 *      environment and runs `sudo -k -- RUNNER …` there: the target's
 *      sudo prompts, the runner re-hashes every executable;
 *   3. fetch (batch): the runner's ledger (or its progress record), and
 *      the directory is removed.
 * The ledger is checked exactly as a local one (ledger_check). A target
 * that cannot be reached, or whose host key or runner changed, leaves the
 * gate pending with machine_unreachable or machine_changed. A target that
 * lies is believed in nothing it cannot prove: a staging directory that is
 * not a run directory's shape is never named back to it (nothing ran), an
 * answer longer than REMOTE_OUT_MAX is not read, and a ledger that does not
 * check out settles the batch as "may have run", with why.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "batch.h"
#include "remote/remote.h"

/* One batch call; its answer (JSON) or NULL with the batch's outcome said. */
static json_t *
call(struct batch *b, const json_t *m, const char *const *words, const char *in, int *status)
{
	struct ssh_call c = { .state = b->st->dir, .machine = m, .user = machine_sudo_user(m),
	    .tty = -1, .words = words, .in = in, .inlen = in != NULL ? strlen(in) : 0,
	    .timeout = PROBE_TIMEOUT };
	struct ssh_result res;
	char why[512];
	const char *code;
	json_t *a;

	*status = -1;
	if (ssh_run(&c, &res) != 0) {
		ssh_result_free(&res);
		tell(b, "machine_unreachable", "cannot start " SSH_PATH "; nothing ran");
		return NULL;
	}
	if (!ssh_answered(&res)) {
		code = ssh_failure(&res, why, sizeof why);
		tell(b, code, "%s: %s", json_str(m, "name"), why);
		ssh_result_free(&res);
		return NULL;
	}
	*status = WEXITSTATUS(res.status);
	a = remote_answer(res.out);
	ssh_result_free(&res);
	if (a == NULL)
		tell(b, "machine_incompatible", "%s: `warrant exec` gave no answer",
		    json_str(m, "name"));
	else if (*status == EXEC_CHANGED)
		tell(b, "machine_changed", "%s: %s", json_str(m, "name"), json_str(a, "message"));
	else if (*status != 0)
		tell(b, "runner_error", "%s: %s", json_str(m, "name"), json_str(a, "message"));
	return a;
}

/*
 * Fetch the records and remove the directory: 2 ledger, 1 progress, 0
 * none (and nothing started), -1 none but it may have started (or a ledger
 * that does not check out), -2 the fetch failed; why says what was wrong.
 */
static int
fetch(struct batch *b, const json_t *m, const char *dir, char *why, size_t size)
{
	const char *words[] = { machine_sudo_warrant(m), "exec", "--fetch", dir, NULL };
	size_t n = json_array_size(b->selected), i;
	const char **ids = xcalloc(n + 1, sizeof *ids);
	json_t *a, *l, *e;
	char bad[256], msg[sizeof b->message], out[sizeof b->outcome];
	int status, found = -2;

	/* what the run said stays the batch's message */
	memcpy(msg, b->message, sizeof msg);
	memcpy(out, b->outcome, sizeof out);
	a = call(b, m, words, NULL, &status);
	snprintf(why, size, "the target's records could not be fetched (%.400s)",
	    b->message);
	memcpy(b->message, msg, sizeof msg);
	memcpy(b->outcome, out, sizeof out);
	if (a == NULL || status != 0)
		goto out;
	for (i = 0; i < n; i++)
		ids[i] = json_str(json_array_get(b->selected, i), "id");
	l = json_object_get(a, "ledger");
	if (l != NULL && !json_is_null(l)) {
		/* a ledger that does not check out proves nothing either way */
		found = ledger_check(l, b->gate_id, b->sha, ids, n, bad, sizeof bad) == 0 ? 2 : -1;
		if (found < 0)
			snprintf(why, size, "the target's ledger does not check out (%s)", bad);
	} else {
		l = json_object_get(a, "progress");
		found = json_is_object(l) && strcmp(json_str(l, "request_id"), b->gate_id) == 0 &&
		    digest_equal(json_str(l, "manifest_sha256"), b->sha) ? 1 :
		    json_is_true(json_object_get(a, "started")) ? -1 : 0;
		snprintf(why, size, "%s", found == 1 ? "the runner stopped part way" :
		    "the runner left no ledger");
	}
	if (found > 0) {
		json_array_clear(b->entries);
		/* the target's warrant redacted them; a target is believed
		 * in nothing it cannot prove */
		redact_json(json_object_get(l, "entries"));
		json_array_foreach(json_object_get(l, "entries"), i, e) {
			if (i >= n || strcmp(json_str(e, "id"), ids[i]) != 0)
				break;
			json_array_append(b->entries, e);
		}
	}
out:
	json_decref(a);
	free(ids);
	return found;
}

static enum exec_end
from_records(struct batch *b, int found, const char *why)
{
	if (found == 2)
		return EXEC_DONE;
	if (found == 1)
		batch_mark_rest(b, "skipped", "not run: the runner stopped before it");
	else
		batch_mark_rest(b, "interrupted", "may have run: the runner left no record of it "
		    "that checks out");
	tell(b, "runner_error", "%s", why);
	return EXEC_BROKEN;
}

/*
 * The staging directory the target named has a run directory's shape:
 * absolute, STATE/runs/remote.XXXXXX, no "." or ".." component, no empty
 * one. Anything else is never named back to the target.
 */
static int
run_dir_shape(const char *dir)
{
	const char *p, *last = NULL, *prev = NULL;
	size_t n;

	if (dir[0] != '/' || strlen(dir) >= PATH_MAX)
		return 0;
	for (p = dir; *p == '/'; p += n) {
		p++;
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		prev = last;
		last = p;
	}
	return *p == '\0' && prev != NULL && strncmp(prev, "runs/", 5) == 0 &&
	    strncmp(last, "remote.", 7) == 0 && strlen(last) == 13 && strchr(last, '/') == NULL;
}

enum exec_end
exec_remote(struct batch *b, const struct approve_opts *opts)
{
	const char *name = json_str(b->gate, "machine");
	char dir[PATH_MAX], file[PATH_MAX + 32], ledger[PATH_MAX + 32], sha[SHA256_HEX_LEN + 1];
	const char *stage_words[6], *run_words[12];
	json_t *m, *approved = NULL, *a;
	struct ssh_result res;
	struct refusal r;
	char *bytes = NULL;
	enum exec_end end = EXEC_NOTHING_RAN;
	int status, found, code;
	const json_t *sealed;
	char why[512];

	(void)opts;
	if ((m = machine_get(b->st->dir, name, &r)) == NULL) {
		tell(b, r.code, "%s; nothing ran", r.message);
		return EXEC_NOTHING_RAN;
	}
	/* the account the reviewer saw is the one whose password is typed */
	sealed = json_object_get(json_object_get(b->run, "machine"), "sudo_user");
	if (strcmp(sealed != NULL ? json_string_value(sealed) : json_str(m, "user"),
	    machine_sudo_user(m)) != 0) {
		tell(b, "machine_changed", "%s was enrolled again: its batches now run through "
		    "%s, not the account this request shows; ask again; nothing ran", name,
		    machine_sudo_user(m));
		goto out;
	}
	/* the approved subset as sealed: what the reviewer saw, nothing added
	 * here (the target adds its own user's environment) */
	approved = json_deep_copy(b->run);
	json_object_del(approved, "user_env");
	json_object_del(approved, "requester");
	if ((bytes = manifest_seal(approved, sha)) == NULL || !digest_equal(sha, b->sha)) {
		tell(b, "runner_error", "cannot seal the approved commands; nothing ran");
		goto out;
	}
	/* 1. stage */
	stage_words[0] = machine_sudo_warrant(m);
	stage_words[1] = "exec";
	stage_words[2] = "--stage";
	stage_words[3] = "--runner-sha256";
	stage_words[4] = json_str(json_object_get(m, "contract"), "runner_sha256");
	stage_words[5] = NULL;
	if ((a = call(b, m, stage_words, bytes, &status)) == NULL || status != 0) {
		json_decref(a);
		goto out;
	}
	*r.message = '\0';
	if (contract_matches(m, json_object_get(a, "contract"), &r) != 0 ||
	    !run_dir_shape(json_str(a, "dir"))) {
		char *v = text_visible(json_str(a, "dir"));

		if (*r.message)
			tell(b, r.code, "%s; nothing ran", r.message);
		else
			tell(b, "machine_incompatible", "%s: the target named '%.200s' as its run "
			    "directory, not STATE/runs/remote.XXXXXX; nothing ran", name, v);
		free(v);
		json_decref(a);
		goto out;
	}
	snprintf(dir, sizeof dir, "%s", json_str(a, "dir"));
	json_decref(a);
	snprintf(file, sizeof file, "%s/approved.json", dir);
	snprintf(ledger, sizeof ledger, "%s/result.json", dir);
	/* 2. the authenticated run on the reviewer's terminal */
	run_words[0] = machine_sudo_warrant(m);
	run_words[1] = "exec";
	run_words[2] = "--manifest";
	run_words[3] = file;
	run_words[4] = "--expected-sha256";
	run_words[5] = b->sha;
	run_words[6] = "--ledger";
	run_words[7] = ledger;
	run_words[8] = "--runner-sha256";
	run_words[9] = stage_words[4];
	run_words[10] = NULL;
	{
		struct ssh_call c = { .state = b->st->dir, .machine = m,
		    .user = machine_sudo_user(m), .tty = b->tty, .words = run_words };

		if (ssh_run(&c, &res) != 0)
			res.status = -1;
		ssh_result_free(&res);
	}
	status = res.status;
	code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (status == -1) {
		tell(b, "machine_unreachable", "cannot start " SSH_PATH "; nothing ran");
		fetch(b, m, dir, why, sizeof why);
		goto out;
	}
	/* 3. fetch and clean up, whatever the run said */
	found = fetch(b, m, dir, why, sizeof why);
	if (code == 0) {
		end = from_records(b, found, why);
	} else if (code == 255) {
		/* ssh failed: nothing ran only when the run never started */
		if (found == 0) {
			tell(b, "machine_unreachable", "%s: ssh failed before the run; nothing ran",
			    name);
			end = EXEC_NOTHING_RAN;
		} else
			end = from_records(b, found, "the connection to the target was lost "
			    "during the run");
	} else if (code == 1) {
		tell(b, stop_requested ? "cancellation" : "authentication_failed",
		    "%s: sudo authentication on the target %s; nothing ran", name,
		    stop_requested ? "was cancelled" : "failed (or its sudoers does not allow "
		    "the runner)");
	} else if (code == RUNNER_REFUSED) {
		tell(b, "runner_error", "the target's runner refused the batch before running "
		    "anything (its message is above)");
	} else if (code == EXEC_CHANGED) {
		tell(b, "machine_changed", "%s: the target's runner is not the enrolled one; "
		    "nothing ran", name);
	} else if (code == EXEC_STAGE_FAILED || code == 127) {
		tell(b, "runner_error", "%s: the run could not be set up on the target (its "
		    "message is above); nothing ran", name);
	} else if (code == 128 + SIGINT || code == 128 + SIGQUIT || code == 128 + SIGHUP ||
	    code == 128 + SIGTERM) {
		if (found > 0)
			end = from_records(b, found, "the run was interrupted");
		else
			tell(b, "cancellation", "authentication was cancelled; nothing ran");
	} else
		end = from_records(b, found, "the target's runner stopped part way");
out:
	free(bytes);
	json_decref(approved);
	json_decref(m);
	return end;
}
