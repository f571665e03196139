/* SPDX-License-Identifier: ISC */
/*
 * Finishing approvals from what is on disk: the finalizer settles a
 * detached run once its runner is gone, and every reader of the store
 * first recovers attempts whose process is gone. An attempt is alive
 * while the process executing it lives or a runner holds the lock of its
 * run directory; a dead one is settled from the runner's records, what
 * they do not cover is said to have maybe run, and nothing ever runs
 * twice: only an attempt that never got to authenticate goes back to
 * pending.
 */
#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"

/* The batch of an unsettled attempt (a row of attempts_unsettled). */
static int
batch_of(struct batch *b, struct store *st, const json_t *a)
{
	const char *dir = json_str(a, "run_dir");

	if (batch_load(b, st, json_str(a, "gate_id")) != 0) {
		warnx("%s: %s", json_str(a, "gate_id"), b->message);
		batch_free(b);
		return -1;
	}
	b->attempt = json_integer_value(json_object_get(a, "id"));
	b->run = json_pack("{s:O,s:O}", "commands", json_object_get(a, "selected"),
	    "stop_on_failure", json_object_get(b->manifest, "stop_on_failure"));
	b->selected = json_object_get(b->run, "commands");
	snprintf(b->sha, sizeof b->sha, "%s", json_str(a, "manifest_sha256"));
	snprintf(b->run_dir, sizeof b->run_dir, "%s", dir);
	/* without its run directory nothing is known: all may have run */
	b->run_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return json_is_array(b->selected) ? 0 : -1;
}

/* Settle one attempt whose executor is gone and whose runner (if any)
 * holds no lock. */
static void
settle_from_disk(struct store *st, const json_t *a)
{
	json_t *ledger = NULL;
	const char *outcome = "runner_error", *diag = "the batch was interrupted";
	struct batch b;

	if (strcmp(json_str(a, "state"), attempt_state_name(ATTEMPT_RESERVED)) == 0) {
		/* reserved: nothing was handed to sudo or started */
		attempt_abandon(st, json_integer_value(json_object_get(a, "id")),
		    json_str(a, "gate_id"), "interrupted");
		return;
	}
	if (batch_of(&b, st, a) != 0) {
		batch_free(&b);
		return;
	}
	switch (b.run_fd >= 0 ? batch_from_disk(&b) : 0) {
	case 2:
		outcome = "completed";
		diag = NULL;
		break;
	case 1:
		batch_mark_rest(&b, "skipped", "not run: the batch stopped before it");
		break;
	default:
		batch_mark_rest(&b, "interrupted", "may have run: the process running the batch "
		    "stopped and left no record of it");
	}
	if (batch_settle(&b, outcome, diag, &ledger) < 0)
		warnx("%s: cannot settle the interrupted approval", b.gate_id);
	json_decref(ledger);
	batch_free(&b);
}

/* Is an unsettled attempt still being executed? */
static int
attempt_alive(const json_t *a)
{
	int fd, live;

	if (proc_alive((pid_t)json_integer_value(json_object_get(a, "pid")),
	    json_integer_value(json_object_get(a, "pid_start"))))
		return 1;
	fd = open(json_str(a, "run_dir"), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	live = runner_live(fd);
	close(fd);
	return live;
}

int
approve_recover(struct store *st)
{
	json_t *list = attempts_unsettled(st), *a;
	size_t i;

	if (list == NULL)
		return -1;
	json_array_foreach(list, i, a)
		if (!attempt_alive(a))
			settle_from_disk(st, a);
	json_decref(list);
	return 0;
}

/* Bring the store up to date before reading it: interrupted attempts
 * recovered, then lapsed review windows expired (in that order, so an
 * attempt is settled before its gate can expire). */
int
refresh_store(struct store *st)
{
	return approve_recover(st) != 0 || store_expire(st) != 0 ? -1 : 0;
}

int
open_store_current(struct store *st)
{
	if (store_open(st) != 0)
		return -1;
	if (refresh_store(st) != 0) {
		store_close(st);
		return -1;
	}
	return 0;
}

/* The unsettled attempt with this id, or NULL. */
static json_t *
find_attempt(struct store *st, long long id)
{
	json_t *list = attempts_unsettled(st), *a, *found = NULL;
	size_t i;

	json_array_foreach(list, i, a)
		if (json_integer_value(json_object_get(a, "id")) == id)
			found = json_incref(a);
	json_decref(list);
	return found;
}

/*
 * `warrant finalize ATTEMPT` (started by answer after a detached start,
 * never by hand): wait while the runner holds its lock, bounded by the
 * batch's overall timeout, then settle from its records. Past the bound
 * the next reader of the store settles it.
 */
int
finalize_main(const char *dir, long long id)
{
	struct store st;
	json_t *a;
	int64_t deadline;
	int fd;

	if ((dir != NULL ? store_open_at(&st, dir) : store_open(&st)) != 0)
		return EXIT_INTERNAL;
	if ((a = find_attempt(&st, id)) == NULL) {
		store_close(&st);
		return EXIT_OK;		/* already settled */
	}
	deadline = now_seconds() + batch_bound(json_object_get(a, "selected"));
	fd = open(json_str(a, "run_dir"), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !runner_await(fd, deadline))
		settle_from_disk(&st, a);
	if (fd >= 0)
		close(fd);
	json_decref(a);
	store_close(&st);
	return EXIT_OK;
}
