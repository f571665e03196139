/* SPDX-License-Identifier: ISC */
/* Attempts on a real SQLite file: every transition, every refusal, and
 * that a refusal changes nothing (the attempt's outcome, the ledger, the
 * gate, the audit chain and requests.jsonl stay as they were). */
#include <sys/wait.h>

#include "store-fixture.h"

static json_t *
selected(void)
{
	return json_pack("[{s:s}]", "id", "a");
}

/* A pending gate and a reserved attempt on it. */
static int64_t
reserve(struct store *st, char id[GATE_ID_LEN + 1])
{
	json_t *sel = selected();
	int64_t a;

	gate_add(st, now_seconds(), 300, id);
	a = attempt_begin(st, id, sel, TRUE_SHA, "/nonexistent/run");
	json_decref(sel);
	assert_true(a > 0);
	return a;
}

static json_t *
ledger(const char *id, const char *outcome)
{
	return ledger_new(id, TRUE_SHA, outcome, json_array(), NULL);
}

static void
assert_attempt(struct store *st, int64_t a, const char *state, const char *outcome)
{
	json_t *row = attempt_get(st, a);

	assert_non_null(row);
	assert_string_equal(json_str(row, "state"), state);
	if (outcome != NULL)
		assert_string_equal(json_str(row, "outcome"), outcome);
	else
		assert_true(json_is_null(json_object_get(row, "outcome")));
	json_decref(row);
}

static void
assert_gate(struct store *st, const char *id, const char *state)
{
	json_t *g = store_gate(st, id, 0);

	assert_non_null(g);
	assert_string_equal(json_str(g, "state"), state);
	json_decref(g);
}

static void
assert_chain(struct store *st, long events)
{
	char why[256] = "";
	long n;

	if (audit_verify(st, why, sizeof why, &n) != 0)
		fail_msg("audit chain: %s", why);
	assert_int_equal(n, events);
}

/* A process that has exited and been reaped: its pid names no one. */
static pid_t
dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

/* reserved -> authenticating -> running -> settled, with the executor
 * and its start time recorded at each step, and one approved line. */
static void
test_transitions(void **state)
{
	char id[GATE_ID_LEN + 1];
	struct store st;
	json_t *row, *l, *got;
	int64_t a;
	pid_t child;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	a = reserve(&st, id);
	row = attempt_get(&st, a);
	assert_string_equal(json_str(row, "state"), "reserved");
	assert_string_equal(json_str(row, "gate_id"), id);
	assert_string_equal(json_str(row, "manifest_sha256"), TRUE_SHA);
	assert_string_equal(json_str(row, "run_dir"), "/nonexistent/run");
	assert_int_equal(json_integer_value(json_object_get(row, "pid")), getpid());
	assert_int_equal(json_integer_value(json_object_get(row, "pid_start")),
	    proc_start_time(getpid()));
	assert_true(json_equal(json_object_get(row, "selected"), got = selected()));
	json_decref(got);
	json_decref(row);

	assert_int_equal(attempt_set(&st, a, ATTEMPT_AUTHENTICATING, getpid()), 0);
	assert_attempt(&st, a, "authenticating", NULL);
	/* handed to another process (the detached finalizer) */
	child = getppid();
	assert_int_equal(attempt_set(&st, a, ATTEMPT_RUNNING, child), 0);
	row = attempt_get(&st, a);
	assert_string_equal(json_str(row, "state"), "running");
	assert_int_equal(json_integer_value(json_object_get(row, "pid")), child);
	assert_int_equal(json_integer_value(json_object_get(row, "pid_start")),
	    proc_start_time(child));
	json_decref(row);
	assert_gate(&st, id, "pending");

	l = ledger(id, "completed");
	assert_int_equal(gate_settle(&st, id, a, l), 0);
	assert_attempt(&st, a, "settled", "completed");
	assert_gate(&st, id, "approved");
	got = gate_ledger(&st, id);
	assert_true(json_equal(got, l));
	json_decref(got);
	json_decref(l);
	assert_chain(&st, 2);
	assert_jsonl(2, 1, "approved", id);
	got = attempts_unsettled(&st);
	assert_int_equal(json_array_size(got), 0);
	json_decref(got);
	store_close(&st);
}

/* Once settled, nothing moves it: set, abandon and a second settle are
 * refused with 1, and the first ledger and outcome stay. */
static void
test_settled_is_final(void **state)
{
	char id[GATE_ID_LEN + 1];
	struct store st;
	json_t *l1, *l2, *got, *lines;
	int64_t a;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	a = reserve(&st, id);
	assert_int_equal(attempt_set(&st, a, ATTEMPT_RUNNING, getpid()), 0);
	l1 = ledger(id, "completed");
	l2 = ledger(id, "runner_error");
	assert_int_equal(gate_settle(&st, id, a, l1), 0);

	assert_int_equal(attempt_set(&st, a, ATTEMPT_RUNNING, getpid()), 1);
	assert_int_equal(attempt_set(&st, a, ATTEMPT_AUTHENTICATING, getpid()), 1);
	assert_int_equal(attempt_abandon(&st, a, id, "interrupted"), 1);
	assert_int_equal(gate_settle(&st, id, a, l2), 1);

	assert_attempt(&st, a, "settled", "completed");
	assert_gate(&st, id, "approved");
	got = gate_ledger(&st, id);
	assert_true(json_equal(got, l1));
	json_decref(got);
	assert_chain(&st, 2);
	lines = jsonl_read();
	assert_int_equal(json_array_size(lines), 2);
	assert_true(json_equal(json_object_get(json_array_get(lines, 1), "ledger"), l1));
	json_decref(lines);
	/* and a settled gate takes no new attempt */
	got = selected();
	assert_int_equal(attempt_begin(&st, id, got, TRUE_SHA, "/r"), ATTEMPT_NOT_PENDING);
	json_decref(got);
	json_decref(l1);
	json_decref(l2);
	store_close(&st);
}

/* Issue 17.7(c): recovery abandons an attempt while its `answer` is
 * finishing; whichever settles first wins and the other changes nothing. */
static void
test_settle_races_abandon(void **state)
{
	char id[GATE_ID_LEN + 1];
	struct store st;
	json_t *l, *got;
	int64_t a;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	a = reserve(&st, id);
	assert_int_equal(attempt_set(&st, a, ATTEMPT_RUNNING, getpid()), 0);
	assert_int_equal(attempt_abandon(&st, a, id, "interrupted"), 0);
	l = ledger(id, "completed");
	assert_int_equal(gate_settle(&st, id, a, l), 1);
	json_decref(l);
	assert_attempt(&st, a, "settled", "interrupted");
	assert_gate(&st, id, "pending");
	assert_null(gate_ledger(&st, id));
	assert_chain(&st, 2);
	assert_jsonl(1, 0, "request", id);
	/* the abandoned attempt leaves the gate answerable */
	got = selected();
	assert_true(attempt_begin(&st, id, got, TRUE_SHA, "/r") > a);
	json_decref(got);
	store_close(&st);
}

/* A ledger is settled only by an unsettled attempt of that very gate. */
static void
test_settle_wrong_attempt(void **state)
{
	char id[GATE_ID_LEN + 1], other[GATE_ID_LEN + 1];
	struct store st;
	json_t *l;
	int64_t a, b;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	a = reserve(&st, id);
	b = reserve(&st, other);
	l = ledger(id, "completed");
	assert_int_equal(gate_settle(&st, id, b, l), 1);
	assert_int_equal(gate_settle(&st, id, a + b + 100, l), 1);
	assert_int_equal(attempt_abandon(&st, b, id, "interrupted"), 1);
	json_decref(l);
	assert_attempt(&st, a, "reserved", NULL);
	assert_attempt(&st, b, "reserved", NULL);
	assert_gate(&st, id, "pending");
	assert_int_equal(attempt_set(&st, a + b + 100, ATTEMPT_RUNNING, getpid()), 1);
	assert_int_equal(attempt_set(&st, a, ATTEMPT_SETTLED, getpid()), -1);
	assert_attempt(&st, a, "reserved", NULL);
	assert_chain(&st, 2);
	store_close(&st);
}

/* BUSY while any attempt of the gate is unsettled, even one whose process
 * is gone: the store does not judge liveness, recovery does. */
static void
test_busy(void **state)
{
	char id[GATE_ID_LEN + 1];
	struct store st;
	json_t *sel = selected(), *list, *row;
	int64_t a, b;
	pid_t dead = dead_pid();

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	a = reserve(&st, id);
	assert_int_equal(attempt_begin(&st, id, sel, TRUE_SHA, "/r"), ATTEMPT_BUSY);
	assert_int_equal(attempt_set(&st, a, ATTEMPT_RUNNING, dead), 0);
	assert_int_equal(attempt_begin(&st, id, sel, TRUE_SHA, "/r"), ATTEMPT_BUSY);
	list = attempts_unsettled(&st);
	assert_int_equal(json_array_size(list), 1);
	row = json_array_get(list, 0);
	assert_int_equal(json_integer_value(json_object_get(row, "id")), a);
	assert_string_equal(json_str(row, "gate_id"), id);
	assert_string_equal(json_str(row, "state"), "running");
	assert_int_equal(json_integer_value(json_object_get(row, "pid")), dead);
	assert_false(proc_alive(dead, json_integer_value(json_object_get(row, "pid_start"))));
	assert_string_equal(json_str(row, "run_dir"), "/nonexistent/run");
	json_decref(list);

	assert_int_equal(attempt_abandon(&st, a, id, "interrupted"), 0);
	b = attempt_begin(&st, id, sel, TRUE_SHA, "/r");
	assert_true(b > a);
	list = attempts_unsettled(&st);
	assert_int_equal(json_array_size(list), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(list, 0), "id")), b);
	json_decref(list);
	assert_gate(&st, id, "pending");
	/* request, one abandoned attempt; abandoning writes no jsonl line */
	assert_chain(&st, 2);
	assert_jsonl(1, 0, "request", id);
	json_decref(sel);
	store_close(&st);
}

/* No attempt on a gate that is denied, expired or unknown. */
static void
test_not_pending(void **state)
{
	char denied[GATE_ID_LEN + 1], expired[GATE_ID_LEN + 1];
	struct store st;
	json_t *sel = selected(), *list;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	gate_add(&st, now_seconds(), 300, denied);
	assert_int_equal(gate_deny(&st, denied, NULL), 0);
	assert_int_equal(attempt_begin(&st, denied, sel, TRUE_SHA, "/r"), ATTEMPT_NOT_PENDING);
	gate_add(&st, now_seconds() - 100, 10, expired);
	assert_int_equal(store_expire(&st), 0);
	assert_gate(&st, expired, "expired");
	assert_int_equal(attempt_begin(&st, expired, sel, TRUE_SHA, "/r"), ATTEMPT_NOT_PENDING);
	assert_int_equal(attempt_begin(&st, "w-aaaaaaaaaa", sel, TRUE_SHA, "/r"),
	    ATTEMPT_NOT_PENDING);
	list = attempts_unsettled(&st);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	/* request, denied, request, expired: only the first three in jsonl */
	assert_chain(&st, 4);
	assert_jsonl(3, 1, "denied", denied);
	assert_jsonl(3, 2, "request", expired);
	json_decref(sel);
	store_close(&st);
}

/* A gate whose approval is under way is neither denied nor expired under
 * it; once the attempt is abandoned, both work again. */
static void
test_deny_and_expiry_wait(void **state)
{
	char id[GATE_ID_LEN + 1], late[GATE_ID_LEN + 1];
	struct store st;
	json_t *sel = selected();
	int64_t a, b;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	a = reserve(&st, id);
	assert_int_equal(gate_deny(&st, id, "no"), 1);
	assert_gate(&st, id, "pending");

	gate_add(&st, now_seconds() - 100, 10, late);
	b = attempt_begin(&st, late, sel, TRUE_SHA, "/r");
	assert_true(b > a);
	assert_int_equal(store_expire(&st), 0);
	assert_gate(&st, late, "pending");
	assert_int_equal(attempt_abandon(&st, b, late, "cancellation"), 0);
	assert_int_equal(store_expire(&st), 0);
	assert_gate(&st, late, "expired");

	assert_int_equal(attempt_abandon(&st, a, id, "authentication_failed"), 0);
	assert_attempt(&st, a, "settled", "authentication_failed");
	assert_int_equal(gate_deny(&st, id, "no"), 0);
	assert_gate(&st, id, "denied");
	assert_chain(&st, 6);
	assert_jsonl(3, 2, "denied", id);
	json_decref(sel);
	store_close(&st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_transitions, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_settled_is_final, fixture_setup,
		    fixture_teardown),
		cmocka_unit_test_setup_teardown(test_settle_races_abandon, fixture_setup,
		    fixture_teardown),
		cmocka_unit_test_setup_teardown(test_settle_wrong_attempt, fixture_setup,
		    fixture_teardown),
		cmocka_unit_test_setup_teardown(test_busy, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_not_pending, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_deny_and_expiry_wait, fixture_setup,
		    fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
