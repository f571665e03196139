/*
 * Finishing a batch from what is on disk: the detached finalizer waits
 * for the runner's ledger, and recovery completes attempts whose
 * executor died (DESIGN §5). What ran is in the ledger, what may have
 * been cut short is said so, and nothing runs twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "approve.h"

/* Entries for selected commands from index k on, once execution stopped
 * for a reason other than a failure: the first may have partly run. */
void
mark_interrupted(struct approval *a, size_t k, const char *why)
{
	json_t *c;
	size_t i;

	for (i = k; i < json_array_size(a->selected); i++) {
		c = json_array_get(a->selected, i);
		json_array_append_new(a->entries, ledger_entry_not_run(json_str(c, "id"),
		    is_root(c) ? "root" : "user", i == k ? "failed" : "skipped",
		    i == k ? why : "not run: the batch was interrupted"));
	}
}

int
settle(struct approval *a, const char *outcome, const char *diagnostic, json_t **ledger)
{
	json_t *l = ledger_new(a->gate_id, a->sha, outcome, json_incref(a->entries), diagnostic);

	*ledger = l;
	return gate_settle(a->st, a->gate_id, a->attempt, l);
}

/* Sum of the selected commands' timeouts plus 30 s: the overall bound. */
static long
overall_bound(const json_t *cmds)
{
	json_t *c, *t;
	long sum = 30;
	size_t i;

	json_array_foreach(cmds, i, c) {
		t = json_object_get(c, "timeout_seconds");
		sum += json_is_integer(t) ? (long)json_integer_value(t) : DEFAULT_TIMEOUT;
	}
	return sum;
}

/*
 * What a finished or dead runner left for its group (manifest m): the
 * ledger when it is complete and checks out, else its progress when that
 * is for this request and manifest.
 */
static json_t *
group_ledger(struct approval *a, int gfd, json_t *m)
{
	json_t *cmds = json_object_get(m, "commands"), *l;
	char hex[SHA256_HEX_LEN + 1], why[256], *bytes;
	const char **ids;
	size_t i, n = json_array_size(cmds);
	int ok;

	if ((bytes = manifest_seal(m, hex)) == NULL)
		return NULL;
	free(bytes);
	ids = xcalloc(n + 1, sizeof *ids);
	for (i = 0; i < n; i++)
		ids[i] = json_str(json_array_get(cmds, i), "id");
	l = read_json_at(gfd, "ledger.json");
	ok = l != NULL && ledger_check(l, a->gate_id, hex, ids, n, why, sizeof why) == 0;
	free(ids);
	if (ok)
		return l;
	json_decref(l);
	l = read_json_at(gfd, "progress.json");
	if (l != NULL && (strcmp(json_str(l, "request_id"), a->gate_id) != 0 ||
	    !digest_equal(json_str(l, "manifest_sha256"), hex))) {
		json_decref(l);
		l = NULL;
	}
	return l;
}

/*
 * Bring the entries up to date from a run directory after the process
 * running the batch is gone: merge the in-flight group's ledger, or its
 * progress and an interrupted entry. Returns 1 when the runner of that
 * group is still alive (leave it be), 0 otherwise.
 */
static int
merge_from_disk(struct approval *a)
{
	size_t k = json_array_size(a->entries), i;
	json_t *m, *l, *started, *e;
	char dir[32];
	int g, gfd, alive;

	for (g = 0; g < 128 && k < json_array_size(a->selected); g++) {
		snprintf(dir, sizeof dir, "g%d", g);
		gfd = openat(a->run_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (gfd < 0)
			break;
		m = read_json_at(gfd, "manifest.json");
		if (m == NULL || strcmp(json_str(json_array_get(json_object_get(m, "commands"), 0), "id"),
		    json_str(json_array_get(a->selected, k), "id")) != 0) {
			json_decref(m);
			close(gfd);
			continue;
		}
		started = read_json_at(gfd, "started.json");
		alive = started != NULL && proc_alive((pid_t)json_integer_value(json_object_get(started,
		    "pid")), json_integer_value(json_object_get(started, "start_time")));
		json_decref(started);
		if (alive) {
			close(gfd);
			return 1;
		}
		l = group_ledger(a, gfd, m);
		json_decref(m);
		close(gfd);
		json_array_foreach(json_object_get(l, "entries"), i, e) {
			if (k >= json_array_size(a->selected) ||
			    strcmp(json_str(e, "id"), json_str(json_array_get(a->selected, k), "id")) != 0 ||
			    contains_credential(json_str(e, "output_tail")))
				break;
			json_array_append(a->entries, e);
			k++;
		}
		json_decref(l);
	}
	return 0;
}

/* Complete a batch whose executor is gone: what ran is in the ledger,
 * what may have been interrupted is said, nothing runs again. Returns
 * RUNNER_ALIVE (nothing done) or what settle returns. */
int
finish_from_disk(struct approval *a, json_t **ledger)
{
	size_t k;

	if (merge_from_disk(a))
		return RUNNER_ALIVE;
	k = json_array_size(a->entries);
	if (k < json_array_size(a->selected) && !stop_now(a)) {
		mark_interrupted(a, k, "interrupted: the process running the batch stopped; "
		    "this command may have partly run");
		return settle(a, "runner_error", "the batch was interrupted", ledger);
	}
	for (; k < json_array_size(a->selected); k++) {
		json_t *c = json_array_get(a->selected, k);

		json_array_append_new(a->entries, ledger_entry_not_run(json_str(c, "id"),
		    is_root(c) ? "root" : "user", "skipped",
		    "not run: an earlier command failed (stop_on_failure)"));
	}
	return settle(a, "completed", NULL, ledger);
}

/* The detached finalizer: owned by the reviewer, no terminal; waits for
 * the runner's ledger (bounded by the overall timeout) and settles. */
void
finalize_detached(struct approval *a, int go)
{
	int64_t deadline = now_seconds() + overall_bound(a->selected);
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	struct store st;
	json_t *ledger = NULL;
	char c;
	int fd;

	set_stop_handlers(SIG_DFL, NULL);
	if (read(go, &c, 1) != 1)
		_exit(1);
	close(go);
	if ((fd = open("/dev/null", O_RDWR)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	/* never use the parent's SQLite connection across fork */
	if (store_open_at(&st, a->st->dir) != 0)
		_exit(1);
	a->st = &st;
	while (finish_from_disk(a, &ledger) == RUNNER_ALIVE && now_seconds() <= deadline)
		nanosleep(&ts, NULL);
	json_decref(ledger);
	store_close(&st);
	_exit(0);
}

/* Bring the store up to date before reading it: interrupted attempts
 * recovered, then lapsed review windows expired (in that order, so an
 * attempt is settled before its gate can expire). */
int
store_refresh(struct store *st)
{
	return approve_recover(st) != 0 || store_expire(st) != 0 ? -1 : 0;
}

int
store_open_current(struct store *st)
{
	if (store_open(st) != 0)
		return -1;
	if (store_refresh(st) != 0) {
		store_close(st);
		return -1;
	}
	return 0;
}

/* Recover attempts whose executor died (DESIGN §5): one that never got to
 * run anything leaves the gate pending; one that did settles with what ran. */
int
approve_recover(struct store *st)
{
	json_t *orphans = attempts_unsettled(st), *o, *ledger;
	struct approval a;
	size_t i;

	if (orphans == NULL)
		return -1;
	json_array_foreach(orphans, i, o) {
		if (proc_alive((pid_t)json_integer_value(json_object_get(o, "pid")),
		    json_integer_value(json_object_get(o, "pid_start"))))
			continue;
		memset(&a, 0, sizeof a);
		a.st = st;
		a.gate_id = json_str(o, "gate_id");
		a.attempt = json_integer_value(json_object_get(o, "id"));
		if (strcmp(json_str(o, "state"), attempt_state_name(ATTEMPT_RUNNING)) != 0) {
			attempt_abandon(st, a.attempt, a.gate_id, "interrupted");
			continue;
		}
		a.gate = store_gate(st, a.gate_id, 1);
		/* without its run directory nothing is known: what may have run
		 * is said as interrupted, and it is never run again */
		a.run_fd = open(json_str(o, "run_dir"), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (a.gate == NULL) {
			if (a.run_fd >= 0)
				close(a.run_fd);
			continue;
		}
		a.manifest = json_object_get(a.gate, "manifest");
		a.selected = json_incref(json_object_get(o, "selected"));
		snprintf(a.sha, sizeof a.sha, "%s", json_str(o, "manifest_sha256"));
		a.entries = read_json_at(a.run_fd, "entries.json");
		if (!json_is_array(a.entries)) {
			json_decref(a.entries);
			a.entries = json_array();
		}
		ledger = NULL;
		if (json_is_array(a.selected))
			finish_from_disk(&a, &ledger);
		json_decref(ledger);
		if (a.run_fd >= 0)
			close(a.run_fd);
		json_decref(a.selected);
		json_decref(a.entries);
		json_decref(a.gate);
	}
	json_decref(orphans);
	return 0;
}
