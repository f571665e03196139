/* SPDX-License-Identifier: ISC */
/*
 * Recovery of approvals whose process is gone (src/approve/finish.c), on a
 * real SQLite store and real run directories: what the records say is
 * what the ledger says, a live runner lock or executor is left alone, and
 * nothing goes back to pending once authentication began. Also the
 * ledger checks every settlement relies on (ledger_check).
 */
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>

#include "store-fixture.h"

#define OTHER_SHA "0000000000000000000000000000000000000000000000000000000000000002"

/* A pid that is certainly gone: a child that exited and was reaped. */
static pid_t
dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

struct setup {
	struct store	 st;
	char		 id[GATE_ID_LEN + 1];
	char		 run[PATH_MAX];
	int		 rfd;
	int64_t		 attempt;
	char		 sha[SHA256_HEX_LEN + 1];
};

/* A gate with an attempt in state s whose executor is dead, and its run
 * directory. */
static void
prepare(struct setup *x, enum attempt_state s)
{
	json_t *g, *m;
	char *bytes;

	assert_int_equal(store_open_at(&x->st, dir), 0);
	gate_add(&x->st, now_seconds(), 300, x->id);
	g = store_gate(&x->st, x->id, 1);
	assert_non_null(g);
	m = json_object_get(g, "manifest");
	bytes = manifest_seal(m, x->sha);
	free(bytes);
	assert_true((size_t)snprintf(x->run, sizeof x->run, "%.4000s/run", dir) < sizeof x->run);
	assert_int_equal(mkdir(x->run, 0700), 0);
	x->rfd = open(x->run, O_RDONLY | O_DIRECTORY);
	assert_true(x->rfd >= 0);
	x->attempt = attempt_begin(&x->st, x->id, json_object_get(m, "commands"), x->sha, x->run);
	assert_true(x->attempt > 0);
	assert_int_equal(attempt_set(&x->st, x->attempt, s, dead_pid()), 0);
	json_decref(g);
}

static void
finish(struct setup *x)
{
	static const char *const names[] = { RUN_LEDGER, RUN_PROGRESS, RUN_LOCK, NULL };
	size_t i;

	for (i = 0; names[i] != NULL; i++)
		unlinkat(x->rfd, names[i], 0);
	close(x->rfd);
	rmdir(x->run);
	store_close(&x->st);
}

static void
record(struct setup *x, const char *name, const char *status)
{
	json_t *e = ledger_entry_not_run("a", "root", status, "test"), *l;

	json_object_set_new(e, "exit_code", strcmp(status, "ran") == 0 ? json_integer(0) :
	    json_null());
	l = ledger_new(x->id, x->sha, "completed", json_pack("[o]", e), NULL);
	assert_int_equal(json_write_atomic(x->rfd, name, l, (uid_t)-1, (gid_t)-1, 0644, 1), 0);
	json_decref(l);
}

/* The status of the one command in the settled ledger, or NULL. */
static const char *
settled_status(struct setup *x, char *buf, size_t size)
{
	json_t *l = gate_ledger(&x->st, x->id);

	if (l == NULL)
		return NULL;
	snprintf(buf, size, "%s/%s", json_str(json_array_get(json_object_get(l, "entries"), 0),
	    "status"), json_str(l, "outcome"));
	json_decref(l);
	return buf;
}

static void
test_complete_ledger(void **state)
{
	struct setup x;
	char buf[64];

	(void)state;
	prepare(&x, ATTEMPT_RUNNING);
	record(&x, RUN_LEDGER, "ran");
	assert_int_equal(approve_recover(&x.st), 0);
	assert_string_equal(settled_status(&x, buf, sizeof buf), "ran/completed");
	/* the user's copy: the request, then exactly one approval */
	assert_jsonl(2, 1, "approved", x.id);
	assert_int_equal(approve_recover(&x.st), 0);
	assert_jsonl(2, 1, "approved", x.id);
	finish(&x);
}

static void
test_progress_only(void **state)
{
	struct setup x;
	char buf[64];

	(void)state;
	prepare(&x, ATTEMPT_RUNNING);
	record(&x, RUN_PROGRESS, "interrupted");
	assert_int_equal(approve_recover(&x.st), 0);
	assert_string_equal(settled_status(&x, buf, sizeof buf), "interrupted/runner_error");
	finish(&x);
}

/* No record at all after authentication began: may have run, never pending. */
static void
test_no_record(void **state)
{
	struct setup x;
	char buf[64];
	json_t *g;

	(void)state;
	prepare(&x, ATTEMPT_AUTHENTICATING);
	assert_int_equal(approve_recover(&x.st), 0);
	assert_string_equal(settled_status(&x, buf, sizeof buf), "interrupted/runner_error");
	g = store_gate(&x.st, x.id, 0);
	assert_string_equal(json_str(g, "state"), "approved");
	json_decref(g);
	finish(&x);
}

/* A ledger for another manifest is not believed: the command may have run. */
static void
test_foreign_ledger(void **state)
{
	struct setup x;
	char buf[64];

	(void)state;
	prepare(&x, ATTEMPT_RUNNING);
	x.sha[0] = x.sha[0] == 'a' ? 'b' : 'a';
	record(&x, RUN_LEDGER, "ran");
	x.sha[0] = x.sha[0] == 'a' ? 'b' : 'a';
	assert_int_equal(approve_recover(&x.st), 0);
	assert_string_equal(settled_status(&x, buf, sizeof buf), "interrupted/runner_error");
	finish(&x);
}

/* Reserved, nothing handed to sudo yet: the gate stays answerable. */
static void
test_reserved(void **state)
{
	struct setup x;
	json_t *g;

	(void)state;
	prepare(&x, ATTEMPT_RESERVED);
	assert_int_equal(approve_recover(&x.st), 0);
	g = store_gate(&x.st, x.id, 0);
	assert_string_equal(json_str(g, "state"), "pending");
	json_decref(g);
	assert_null(gate_ledger(&x.st, x.id));
	finish(&x);
}

/* A runner holding its lock keeps the attempt alive, whatever its pid. */
static void
test_live_lock(void **state)
{
	struct setup x;
	json_t *open_attempts;
	int fd;

	(void)state;
	prepare(&x, ATTEMPT_RUNNING);
	fd = openat(x.rfd, RUN_LOCK, O_RDWR | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	/* the lock is held by this open file description: another one of
	 * ours sees it taken, as recovery in another process would */
	assert_int_equal(approve_recover(&x.st), 0);
	open_attempts = attempts_unsettled(&x.st);
	assert_int_equal(json_array_size(open_attempts), 1);
	json_decref(open_attempts);
	close(fd);
	record(&x, RUN_LEDGER, "ran");
	assert_int_equal(approve_recover(&x.st), 0);
	open_attempts = attempts_unsettled(&x.st);
	assert_int_equal(json_array_size(open_attempts), 0);
	json_decref(open_attempts);
	finish(&x);
}

static void
test_ledger_check(void **state)
{
	const char *ids[] = { "a", "b" };
	char why[128];
	json_t *l;

	(void)state;
	l = ledger_new("w-aaaaaaaaaa", TRUE_SHA, "completed", json_pack("[o,o]",
	    ledger_entry_not_run("a", "root", "skipped", "x"),
	    ledger_entry_not_run("b", "user", "interrupted", "y")), NULL);
	assert_int_equal(ledger_check(l, "w-aaaaaaaaaa", TRUE_SHA, ids, 2, why, sizeof why), 0);
	/* an I/O log session id: xx/yy/zz in base 36, on a ROOT entry only */
	json_object_set_new(json_array_get(json_object_get(l, "entries"), 0), "iolog",
	    json_string("00/0A/Z1"));
	assert_int_equal(ledger_check(l, "w-aaaaaaaaaa", TRUE_SHA, ids, 2, why, sizeof why), 0);
	json_object_set_new(json_array_get(json_object_get(l, "entries"), 0), "iolog",
	    json_string("../../x1"));
	assert_int_equal(ledger_check(l, "w-aaaaaaaaaa", TRUE_SHA, ids, 2, why, sizeof why), -1);
	json_object_set_new(json_array_get(json_object_get(l, "entries"), 0), "iolog",
	    json_integer(1));
	assert_int_equal(ledger_check(l, "w-aaaaaaaaaa", TRUE_SHA, ids, 2, why, sizeof why), -1);
	json_object_del(json_array_get(json_object_get(l, "entries"), 0), "iolog");
	json_object_set_new(json_array_get(json_object_get(l, "entries"), 1), "iolog",
	    json_string("00/00/01"));
	assert_int_equal(ledger_check(l, "w-aaaaaaaaaa", TRUE_SHA, ids, 2, why, sizeof why), -1);
	json_object_del(json_array_get(json_object_get(l, "entries"), 1), "iolog");
	assert_int_equal(ledger_check(l, "w-bbbbbbbbbb", TRUE_SHA, ids, 2, why, sizeof why), -1);
	assert_int_equal(ledger_check(l, "w-aaaaaaaaaa", OTHER_SHA, ids, 2, why, sizeof why), -1);
	assert_int_equal(ledger_check(l, "w-aaaaaaaaaa", TRUE_SHA, ids, 1, why, sizeof why), -1);
	ids[1] = "c";
	assert_int_equal(ledger_check(l, "w-aaaaaaaaaa", TRUE_SHA, ids, 2, why, sizeof why), -1);
	ids[1] = "b";
	json_object_set_new(json_array_get(json_object_get(l, "entries"), 1), "status",
	    json_string("done"));
	assert_int_equal(ledger_check(l, "w-aaaaaaaaaa", TRUE_SHA, ids, 2, why, sizeof why), -1);
	json_object_set_new(json_array_get(json_object_get(l, "entries"), 1), "status",
	    json_string("ran"));
	json_object_set_new(json_array_get(json_object_get(l, "entries"), 1), "output_tail",
	    json_string("password=hunter2"));
	assert_int_equal(ledger_check(l, "w-aaaaaaaaaa", TRUE_SHA, ids, 2, why, sizeof why), -1);
	json_decref(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_complete_ledger, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_progress_only, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_record, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_foreign_ledger, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_reserved, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_live_lock, fixture_setup, fixture_teardown),
		cmocka_unit_test(test_ledger_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
