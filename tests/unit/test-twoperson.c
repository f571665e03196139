/* SPDX-License-Identifier: ISC */
/*
 * What an approval under the two-person rule binds to (review_binding,
 * src/approve/cosign-check.c): the seal of exactly the selected subset, its
 * ids, the requester and the reviewer; a manifest that no longer matches
 * the gate's seal binds nothing. And the review object it is written as
 * (tp_review_json): approvals of different subsets are different objects.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <unistd.h>
#include <cmocka.h>

#include "warrant.h"

#define SHA_A "0000000000000000000000000000000000000000000000000000000000000001"
#define SHA_B "0000000000000000000000000000000000000000000000000000000000000002"

/* A gate of two commands: a (root), b (user), sealed; requester uid. */
static json_t *
gate_new(uid_t requester)
{
	char sha[SHA256_HEX_LEN + 1], *bytes;
	json_t *m = json_pack("{s:i,s:s,s:s,s:s,s:s,s:{},s:b,s:s,"
	    "s:[{s:s,s:s,s:[s],s:s,s:s,s:s,s:s,s:n},{s:s,s:s,s:[s],s:s,s:s,s:s,s:s,s:n}]}",
	    "schema_version", 1, "request_id", "w-abcdefghij", "host", "host", "run_as", "root",
	    "cwd", "/", "env", "stop_on_failure", 1, "output_to_agent", "tail", "commands",
	    "id", "a", "as", "root", "argv", "/usr/bin/true", "path", "/usr/bin/true",
	    "executable_sha256", SHA_A, "why", "w", "cwd", "/", "timeout_seconds",
	    "id", "b", "as", "user", "argv", "/usr/bin/id", "path", "/usr/bin/id",
	    "executable_sha256", SHA_B, "why", "w", "cwd", "/", "timeout_seconds");

	assert_non_null(m);
	bytes = manifest_seal(m, sha);
	assert_non_null(bytes);
	free(bytes);
	return json_pack("{s:s,s:s,s:o,s:I}", "request_id", "w-abcdefghij", "manifest_sha256",
	    sha, "manifest", m, "requester_uid", (json_int_t)requester);
}

static const char *
sha_of(const json_t *b)
{
	return json_string_value(json_object_get(b, "manifest_sha256"));
}

static void
test_whole_gate(void **state)
{
	json_t *g = gate_new(0), *b;
	char why[256];

	(void)state;
	b = review_binding(g, NULL, 0, 1234, why, sizeof why);
	assert_non_null(b);
	/* no files: the subset of everything is the gate itself */
	assert_string_equal(sha_of(b), json_string_value(json_object_get(g, "manifest_sha256")));
	assert_int_equal(json_array_size(json_object_get(b, "ids")), 2);
	assert_true(json_is_true(json_object_get(b, "root")));
	assert_int_equal(json_integer_value(json_object_get(b, "requester_uid")), 0);
	assert_int_equal(json_integer_value(json_object_get(b, "reviewer_uid")), 1234);
	json_decref(b);
	json_decref(g);
}

static void
test_subsets_differ(void **state)
{
	const char *only_a[] = { "a" }, *only_b[] = { "b" }, *both[] = { "b", "a" };
	json_t *g = gate_new(0), *all, *a, *bb, *ab, *m;
	char why[256], sha[SHA256_HEX_LEN + 1], *bytes;

	(void)state;
	all = review_binding(g, NULL, 0, 1, why, sizeof why);
	a = review_binding(g, only_a, 1, 1, why, sizeof why);
	bb = review_binding(g, only_b, 1, 1, why, sizeof why);
	ab = review_binding(g, both, 2, 1, why, sizeof why);
	assert_non_null(all);
	assert_non_null(a);
	assert_non_null(bb);
	assert_non_null(ab);
	assert_string_not_equal(sha_of(all), sha_of(a));
	assert_string_not_equal(sha_of(a), sha_of(bb));
	/* the selection is taken in reviewed order, whatever order it was named in */
	assert_string_equal(sha_of(ab), sha_of(all));
	assert_string_equal(json_string_value(json_array_get(json_object_get(ab, "ids"), 0)), "a");
	assert_false(json_is_true(json_object_get(bb, "root")));
	/* the seal of {a} is the manifest with only a */
	m = json_deep_copy(json_object_get(g, "manifest"));
	json_array_remove(json_object_get(m, "commands"), 1);
	bytes = manifest_seal(m, sha);
	assert_non_null(bytes);
	assert_string_equal(sha_of(a), sha);
	free(bytes);
	json_decref(m);
	json_decref(all);
	json_decref(a);
	json_decref(bb);
	json_decref(ab);
	json_decref(g);
}

static void
test_refused(void **state)
{
	const char *bad[] = { "zz" };
	json_t *g = gate_new(0);
	char why[256];

	(void)state;
	assert_null(review_binding(g, bad, 1, 1, why, sizeof why));
	assert_non_null(strstr(why, "zz"));
	/* the manifest changed after it was sealed */
	json_array_set_new(json_object_get(json_array_get(json_object_get(json_object_get(g,
	    "manifest"), "commands"), 0), "argv"), 0, json_string("/usr/bin/false"));
	assert_null(review_binding(g, NULL, 0, 1, why, sizeof why));
	assert_non_null(strstr(why, "seal"));
	json_decref(g);
}

/* A requester of another uid is carried as its uid (root's as 0). */
static void
test_requester(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	uid_t uid = getuid() != 0 ? getuid() : pw != NULL ? pw->pw_uid : 65534;
	json_t *g = gate_new(uid), *b;
	char why[256];

	(void)state;
	b = review_binding(g, NULL, 0, 1, why, sizeof why);
	assert_non_null(b);
	assert_int_equal(json_integer_value(json_object_get(b, "requester_uid")), uid);
	json_decref(b);
	json_decref(g);
}

static void
test_review_objects(void **state)
{
	const char *only_a[] = { "a" };
	json_t *g = gate_new(0), *all, *a, *r1, *r2, *r3;
	struct tp_binding t1, t2;
	char why[256];

	(void)state;
	all = review_binding(g, NULL, 0, 7, why, sizeof why);
	a = review_binding(g, only_a, 1, 7, why, sizeof why);
	binding_tp(all, &t1);
	binding_tp(a, &t2);
	r1 = tp_review_json(&t1, "approve");
	r2 = tp_review_json(&t2, "approve");
	r3 = tp_review_json(&t1, "approve");
	assert_false(json_equal(r1, r2));
	assert_true(json_equal(r1, r3));
	assert_int_equal(json_object_size(r1), 7);
	assert_int_equal(json_integer_value(json_object_get(r1, "reviewer_uid")), 7);
	assert_string_equal(json_string_value(json_object_get(r1, "decision")), "approve");
	json_decref(r1);
	json_decref(r2);
	json_decref(r3);
	json_decref(all);
	json_decref(a);
	json_decref(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_gate),
		cmocka_unit_test(test_subsets_differ),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_requester),
		cmocka_unit_test(test_review_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
