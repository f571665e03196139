/* SPDX-License-Identifier: ISC */
/*
 * Recovery of approvals whose process is gone (src/approve/finish.c), on a
 * real SQLite store and real run directories: what the records say is
 * what the ledger says, a live runner lock or executor is left alone, and
 * nothing goes back to pending once authentication began. Also the
 * ledger checks every settlement relies on (ledger_check), the run-time
 * supervisor's confinement record included.
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

/* The runner's records hold output and paths raw (root does not redact):
 * what recovery settles from them, ledger or progress record, has every
 * credential shape redacted before it is stored. */
static void
test_raw_records_redacted(void **state)
{
	static const char *const names[] = { RUN_LEDGER, RUN_PROGRESS };
	struct setup x;
	json_t *e, *l;
	size_t i;
	char *s;

	(void)state;
	for (i = 0; i < 2; i++) {
		prepare(&x, ATTEMPT_RUNNING);
		e = ledger_entry_not_run("a", "root", i == 0 ? "ran" : "interrupted", "test");
		json_object_set_new(e, "output_tail", json_string("ok\npassword: hunter2\n"
		    "AKIAIOSFODNN7EXAMPLE\n"));
		json_object_set_new(e, "confinement", json_pack("{s:[],s:[s],s:[],"
		    "s:{s:i,s:i,s:i},s:b}", "executed", "written", "/opt/token=abc123",
		    "refused", "omitted", "executed", 0, "written", 0, "refused", 0,
		    "unconfined", 0));
		l = ledger_new(x.id, x.sha, "completed", json_pack("[o]", e), NULL);
		assert_int_equal(json_write_atomic(x.rfd, names[i], l, (uid_t)-1, (gid_t)-1,
		    0644, 1), 0);
		json_decref(l);
		assert_int_equal(approve_recover(&x.st), 0);
		l = gate_ledger(&x.st, x.id);
		assert_non_null(l);
		s = json_dumps(l, JSON_COMPACT);
		assert_non_null(strstr(s, "ok\\n[redacted]\\n[redacted]\\n"));
		assert_non_null(strstr(s, "\"/opt/[redacted]\""));
		assert_null(strstr(s, "hunter2"));
		assert_null(strstr(s, "IOSFODNN7EXAMPLE"));
		assert_null(strstr(s, "abc123"));
		free(s);
		json_decref(l);
		finish(&x);
	}
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
	/* the runner records output as it was: a credential in it is for
	 * the finisher to redact (test_raw_records_redacted), not a reason
	 * to disbelieve the ledger */
	json_object_set_new(json_array_get(json_object_get(l, "entries"), 1), "output_tail",
	    json_string("password=hunter2"));
	assert_int_equal(ledger_check(l, "w-aaaaaaaaaa", TRUE_SHA, ids, 2, why, sizeof why), 0);
	json_decref(l);
}

/* A confinement record as the runner writes it, for entry 0 (ROOT). */
static json_t *
confinement_sample(void)
{
	return json_pack("{s:[{s:s,s:s}],s:[s],s:[{s:s,s:s,s:s}],s:{s:i,s:i,s:i},s:b}",
	    "executed", "path", "/usr/bin/make", "sha256", TRUE_SHA,
	    "written", "/etc/x.conf",
	    "refused", "call", "open", "path", "/home/a/proj/Makefile\x1b[2J\xe2\x80\xae",
	    "reason", "the requester can change /home/a/proj/Makefile",
	    "omitted", "executed", 0, "written", 3, "refused", 0,
	    "unconfined", 0);
}

/* ledger_check on l with entry 0's confinement set to c (stolen; NULL
 * removes it): 0 or -1, why kept. */
static int
check_confinement(json_t *l, json_t *c, char *why, size_t size)
{
	const char *ids[] = { "a", "b" };
	json_t *e = json_array_get(json_object_get(l, "entries"), 0);

	if (c != NULL)
		json_object_set_new(e, "confinement", c);
	else
		json_object_del(e, "confinement");
	return ledger_check(l, "w-aaaaaaaaaa", TRUE_SHA, ids, 2, why, size);
}

static void
test_ledger_confinement(void **state)
{
	char why[256], big[CONFINE_REASON_MAX + 2];
	json_t *l, *c;
	size_t i;

	(void)state;
	l = ledger_new("w-aaaaaaaaaa", TRUE_SHA, "completed", json_pack("[o,o]",
	    ledger_entry_not_run("a", "root", "skipped", "x"),
	    ledger_entry_not_run("b", "user", "interrupted", "y")), NULL);
	/* accepted: the shape as written, hostile bytes in a path included */
	assert_int_equal(check_confinement(l, confinement_sample(), why, sizeof why), 0);
	/* unconfined, with empty lists */
	c = json_pack("{s:[],s:[],s:[],s:{s:i,s:i,s:i},s:b}", "executed", "written",
	    "refused", "omitted", "executed", 0, "written", 0, "refused", 0, "unconfined", 1);
	assert_int_equal(check_confinement(l, c, why, sizeof why), 0);
	/* a list of exactly 64 items, with the rest counted */
	c = confinement_sample();
	for (i = 1; i < CONFINE_LIST_MAX; i++)
		json_array_append_new(json_object_get(c, "written"), json_string("/etc/y"));
	json_object_set_new(json_object_get(c, "omitted"), "written", json_integer(1000));
	assert_int_equal(check_confinement(l, c, why, sizeof why), 0);

	/* refused: a 65th item */
	json_array_append_new(json_object_get(c, "written"), json_string("/etc/z"));
	assert_int_equal(check_confinement(l, json_incref(c), why, sizeof why), -1);
	assert_non_null(strstr(why, "confinement"));
	assert_non_null(strstr(why, "written is not a list of at most 64"));
	json_decref(c);
	/* an unknown member, of the record, of omitted, of an item */
	c = confinement_sample();
	json_object_set_new(c, "extra", json_true());
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	c = confinement_sample();
	json_object_set_new(json_object_get(c, "omitted"), "other", json_integer(0));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	c = confinement_sample();
	json_object_set_new(json_array_get(json_object_get(c, "refused"), 0), "pid",
	    json_integer(1));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	/* a missing member */
	c = confinement_sample();
	json_object_del(c, "unconfined");
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	c = confinement_sample();
	json_object_del(json_array_get(json_object_get(c, "executed"), 0), "sha256");
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	/* wrong types */
	assert_int_equal(check_confinement(l, json_string("none"), why, sizeof why), -1);
	assert_int_equal(check_confinement(l, json_null(), why, sizeof why), -1);
	c = confinement_sample();
	json_object_set_new(c, "unconfined", json_integer(0));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	c = confinement_sample();
	json_object_set_new(c, "written", json_string("/etc/x.conf"));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	c = confinement_sample();
	json_array_set_new(json_object_get(c, "written"), 0, json_integer(1));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	c = confinement_sample();
	json_object_set_new(json_object_get(c, "omitted"), "refused", json_integer(-1));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	c = confinement_sample();
	json_object_set_new(json_object_get(c, "omitted"), "refused", json_real(1.5));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	/* a hash that is not 64 lower-case hex digits */
	c = confinement_sample();
	json_object_set_new(json_array_get(json_object_get(c, "executed"), 0), "sha256",
	    json_string("0000000000000000000000000000000000000000000000000000000000000000A"));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	c = confinement_sample();
	json_object_set_new(json_array_get(json_object_get(c, "executed"), 0), "sha256",
	    json_string("ABCDEF0000000000000000000000000000000000000000000000000000000000"));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	/* a call that is not one of the supervisor's */
	c = confinement_sample();
	json_object_set_new(json_array_get(json_object_get(c, "refused"), 0), "call",
	    json_string("read"));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	assert_non_null(strstr(why, "refused[0]"));
	/* strings over their bounds, and at them */
	memset(big, 'a', sizeof big - 1);
	big[0] = '/';
	big[CONFINE_PATH_MAX] = '\0';
	c = confinement_sample();
	json_array_set_new(json_object_get(c, "written"), 0, json_string(big));
	assert_int_equal(check_confinement(l, c, why, sizeof why), 0);
	big[CONFINE_PATH_MAX] = 'a';
	big[CONFINE_PATH_MAX + 1] = '\0';
	c = confinement_sample();
	json_array_set_new(json_object_get(c, "written"), 0, json_string(big));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	c = confinement_sample();
	json_object_set_new(json_array_get(json_object_get(c, "refused"), 0), "path",
	    json_string(big));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	memset(big, 'a', CONFINE_REASON_MAX);
	big[CONFINE_REASON_MAX] = '\0';
	c = confinement_sample();
	json_object_set_new(json_array_get(json_object_get(c, "refused"), 0), "reason",
	    json_string(big));
	assert_int_equal(check_confinement(l, c, why, sizeof why), 0);
	big[CONFINE_REASON_MAX] = 'a';
	big[CONFINE_REASON_MAX + 1] = '\0';
	c = confinement_sample();
	json_object_set_new(json_array_get(json_object_get(c, "refused"), 0), "reason",
	    json_string(big));
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	/* unconfined, yet listing accesses */
	c = confinement_sample();
	json_object_set_new(c, "unconfined", json_true());
	assert_int_equal(check_confinement(l, c, why, sizeof why), -1);
	assert_int_equal(check_confinement(l, NULL, why, sizeof why), 0);
	/* on a YOU entry: refused */
	json_object_set_new(json_array_get(json_object_get(l, "entries"), 1), "confinement",
	    confinement_sample());
	assert_int_equal(check_confinement(l, NULL, why, sizeof why), -1);
	assert_non_null(strstr(why, "not run as root"));
	json_decref(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_complete_ledger, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_progress_only, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_raw_records_redacted, fixture_setup,
		    fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_record, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_foreign_ledger, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_reserved, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_live_lock, fixture_setup, fixture_teardown),
		cmocka_unit_test(test_ledger_check),
		cmocka_unit_test(test_ledger_confinement),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
