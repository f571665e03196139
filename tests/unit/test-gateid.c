/* SPDX-License-Identifier: ISC */
/* Request ids and the prefixes that name them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "warrant.h"

static int
cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void
test_format_and_uniqueness(void **s)
{
	enum { N = 5000 };
	char (*ids)[GATE_ID_LEN + 1] = xcalloc(N, sizeof *ids);
	size_t i;

	(void)s;
	for (i = 0; i < N; i++) {
		assert_int_equal(gate_id_new(ids[i]), 0);
		assert_int_equal(strlen(ids[i]), GATE_ID_LEN);
		assert_memory_equal(ids[i], "w-", 2);
		assert_int_equal(strspn(ids[i] + 2, "abcdefghijklmnopqrstuvwxyz234567"), 10);
	}
	qsort(ids, N, sizeof *ids, cmp);
	for (i = 1; i < N; i++)
		assert_string_not_equal(ids[i - 1], ids[i]);
	free(ids);
}

static void
test_prefix(void **s)
{
	char out[GATE_ID_LEN + 1];

	(void)s;
	assert_int_equal(gate_id_prefix("w-abcd", out, sizeof out), 0);
	assert_string_equal(out, "w-abcd");
	assert_int_equal(gate_id_prefix("abcd", out, sizeof out), 0);
	assert_string_equal(out, "w-abcd");
	assert_int_equal(gate_id_prefix("w-ab", out, sizeof out), 0);
	assert_int_equal(gate_id_prefix("abc", out, sizeof out), -1);
	assert_int_equal(gate_id_prefix("w-a", out, sizeof out), -1);
	/* ids are matched in any case; longer than any id names no gate */
	assert_int_equal(gate_id_prefix("W-ABCD", out, sizeof out), 0);
	assert_string_equal(out, "w-abcd");
	assert_int_equal(gate_id_prefix("ab%d", out, sizeof out), -1);
	assert_int_equal(gate_id_prefix("abcdefghijk", out, sizeof out), 1);
	assert_int_equal(gate_id_prefix("abcdefghij!", out, sizeof out), -1);
	assert_int_equal(gate_id_prefix("abcd' OR 1", out, sizeof out), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_and_uniqueness),
		cmocka_unit_test(test_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
