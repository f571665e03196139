/* SPDX-License-Identifier: ISC */
/*
 * The one batch loop (src/root/execute.c): what runs and what each
 * entry says, with the executor's parts (run, record, judge) given here
 * as the runner and `warrant answer` give theirs.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "warrant.h"

struct state {
	const char *fail;	/* the id whose run fails */
	const char *refuse;	/* the id the judge refuses */
	int records_left;	/* records that can be made; -1: all */
	char ran[64];		/* ids in the order they ran */
	size_t last_record;	/* entries in the last record */
	int interrupted_last;	/* its last entry said "interrupted" */
};

static volatile sig_atomic_t stop_flag;

static json_t *
cmds(void)
{
	return json_pack("[{s:s,s:s},{s:s,s:s},{s:s,s:s}]", "id", "a", "as", "root",
	    "id", "b", "as", "user", "id", "c", "as", "root");
}

static json_t *
judge(void *arg, const json_t *c, size_t i)
{
	struct state *s = arg;
	const char *id = json_string_value(json_object_get(c, "id"));

	(void)i;
	return s->refuse != NULL && strcmp(id, s->refuse) == 0 ?
	    ledger_entry_not_run(id, "root", "refused", "judged") : NULL;
}

static int
record(void *arg, json_t *entries)
{
	struct state *s = arg;
	json_t *last = json_array_get(entries, json_array_size(entries) - 1);

	s->last_record = json_array_size(entries);
	s->interrupted_last = strcmp(json_string_value(json_object_get(last, "status")),
	    "interrupted") == 0;
	if (s->records_left == 0)
		return -1;
	if (s->records_left > 0)
		s->records_left--;
	return 0;
}

static json_t *
run(void *arg, const json_t *c, size_t i)
{
	struct state *s = arg;
	const char *id = json_string_value(json_object_get(c, "id"));
	struct exec_result res = { 0 };
	json_t *e;

	(void)i;
	strcat(s->ran, id);
	res.exit_code = s->fail != NULL && strcmp(id, s->fail) == 0;
	e = ledger_entry_not_run(id, "root", res.exit_code ? "failed" : "ran", NULL);
	return e;
}

static const char *
status(json_t *entries, size_t i)
{
	return json_string_value(json_object_get(json_array_get(entries, i), "status"));
}

static json_t *
go(struct state *s, int stop_on_failure, int64_t deadline, int *broken, int *stopped)
{
	json_t *c = cmds();
	struct batch_exec x = { .cmds = c, .stop_on_failure = stop_on_failure,
	    .deadline_ms = deadline, .stop = &stop_flag, .who = "the test", .judge = judge,
	    .record = record, .run = run, .arg = s };
	json_t *e = batch_execute(&x, broken, stopped);

	json_decref(c);
	return e;
}

static void
test_all_run_in_order(void **state)
{
	struct state s = { .records_left = -1 };
	int broken, stopped;
	json_t *e;

	(void)state;
	e = go(&s, 1, 0, &broken, &stopped);
	assert_string_equal(s.ran, "abc");
	assert_string_equal(status(e, 2), "ran");
	/* the last record before c ran: a, b and c "interrupted" */
	assert_int_equal(s.last_record, 3);
	assert_true(s.interrupted_last);
	assert_false(broken || stopped);
	json_decref(e);
}

static void
test_stop_on_failure(void **state)
{
	struct state s = { .fail = "a", .records_left = -1 };
	int broken, stopped;
	json_t *e;

	(void)state;
	e = go(&s, 1, 0, &broken, &stopped);
	assert_string_equal(s.ran, "a");
	assert_string_equal(status(e, 1), "skipped");
	assert_string_equal(status(e, 2), "skipped");
	json_decref(e);
	memset(&s, 0, sizeof s);
	s.fail = "a";
	s.records_left = -1;
	e = go(&s, 0, 0, &broken, &stopped);
	assert_string_equal(s.ran, "abc");
	json_decref(e);
}

static void
test_judged_refused(void **state)
{
	struct state s = { .refuse = "b", .records_left = -1 };
	int broken, stopped;
	json_t *e;

	(void)state;
	e = go(&s, 1, 0, &broken, &stopped);
	assert_string_equal(s.ran, "a");
	assert_string_equal(status(e, 1), "refused");
	assert_string_equal(status(e, 2), "skipped");
	json_decref(e);
}

/* no start before its record: the first unrecordable one and the rest
 * are skipped, and the batch is broken */
static void
test_record_fails(void **state)
{
	struct state s = { .records_left = 1 };
	int broken, stopped;
	json_t *e;

	(void)state;
	e = go(&s, 0, 0, &broken, &stopped);
	assert_string_equal(s.ran, "a");
	assert_string_equal(status(e, 1), "skipped");
	assert_string_equal(status(e, 2), "skipped");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(e, 2),
	    "error")), "could not be recorded"));
	assert_true(broken);
	json_decref(e);
}

static void
test_stop_and_deadline(void **state)
{
	struct state s = { .records_left = -1 };
	int broken, stopped;
	json_t *e;

	(void)state;
	stop_flag = 1;
	e = go(&s, 0, 0, &broken, &stopped);
	stop_flag = 0;
	assert_string_equal(s.ran, "");
	assert_true(stopped);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(e, 0),
	    "error")), "the test was told to stop"));
	json_decref(e);
	e = go(&s, 0, monotonic_ms() - 1, &broken, &stopped);
	assert_string_equal(s.ran, "");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(e, 1),
	    "error")), "overall deadline"));
	json_decref(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_run_in_order),
		cmocka_unit_test(test_stop_on_failure),
		cmocka_unit_test(test_judged_refused),
		cmocka_unit_test(test_record_fails),
		cmocka_unit_test(test_stop_and_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
