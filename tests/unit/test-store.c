/* The store on a real SQLite file: insert, resolve by prefix, list,
 * expiry on read, and the audit chain catching a tampered row. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "warrant.h"

static char dir[PATH_MAX];

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/warrant-unit.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	char path[PATH_MAX + 32];
	const char *const files[] = { "warrant.db", "warrant.db-wal", "warrant.db-shm" };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}

/* Store one request; returns its id in id. */
static void
add(struct store *st, const char *json, int64_t created, int64_t window, char id[GATE_ID_LEN + 1])
{
	char sha[SHA256_HEX_LEN + 1], *bytes;
	struct gate_meta m = { "agent", "proj", "tester", 1000, "host" };
	struct requester me;
	struct refusal r;
	struct wrequest q;
	json_t *man;

	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
	assert_int_equal(validate_request(&q, &me, &r), 0);
	requester_free(&me);
	assert_int_equal(gate_id_new(id), 0);
	man = manifest_build(&q, id, "host");
	bytes = manifest_seal(man, sha);
	assert_non_null(bytes);
	assert_int_equal(store_insert_request(st, id, &q, &m, man, bytes, sha, created,
	    created + window), 0);
	free(bytes);
	json_decref(man);
	request_free(&q);
}

static const char req[] = "{\"reason\":\"r\",\"commands\":[{\"id\":\"a\","
    "\"argv\":[\"/usr/bin/true\"],\"why\":\"w\"}]}";

static void
test_roundtrip(void **state)
{
	char id[GATE_ID_LEN + 1], got[GATE_ID_LEN + 1], why[256];
	struct store st;
	json_t *g, *list;
	long n;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	add(&st, req, now_seconds(), 300, id);
	assert_int_equal(store_resolve(&st, id + 2, got), 0);
	assert_string_equal(got, id);
	assert_int_equal(store_resolve(&st, "w-zzzzzzzzzz", got), 1);
	assert_int_equal(store_resolve(&st, "ab", got), 2);
	g = store_gate(&st, id, 1);
	assert_non_null(g);
	assert_string_equal(json_string_value(json_object_get(g, "state")), "pending");
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(json_object_get(g, "commands"), 0), "path")), "/usr/bin/true");
	assert_non_null(json_object_get(json_object_get(g, "manifest"), "commands"));
	json_decref(g);
	list = store_list(&st, 0, 50, "proj");
	assert_int_equal(json_array_size(list), 1);
	json_decref(list);
	list = store_list(&st, 0, 50, "other");
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	assert_int_equal(audit_verify(&st, why, sizeof why, &n), 0);
	assert_int_equal(n, 1);
	store_close(&st);
}

static void
test_expiry_on_read(void **state)
{
	char id[GATE_ID_LEN + 1], why[256];
	struct store st;
	json_t *g;
	long n;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	add(&st, req, now_seconds() - 100, 10, id);
	assert_int_equal(store_expire(&st), 0);
	g = store_gate(&st, id, 0);
	assert_string_equal(json_string_value(json_object_get(g, "state")), "expired");
	json_decref(g);
	assert_int_equal(audit_verify(&st, why, sizeof why, &n), 0);
	store_close(&st);
}

static void
tamper(const char *sql, const char *expect)
{
	char why[256] = "";
	struct store st;
	long n;

	assert_int_equal(store_open_at(&st, dir), 0);
	assert_int_equal(audit_verify(&st, why, sizeof why, &n), 0);
	assert_int_equal(sqlite3_exec(st.db, "SAVEPOINT t", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(st.db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(audit_verify(&st, why, sizeof why, &n), 1);
	if (strstr(why, expect) == NULL)
		fail_msg("tamper '%s': got '%s', want '%s'", sql, why, expect);
	assert_int_equal(sqlite3_exec(st.db, "ROLLBACK TO t; RELEASE t", NULL, NULL, NULL), SQLITE_OK);
	store_close(&st);
}

static void
test_tamper(void **state)
{
	char id[GATE_ID_LEN + 1];
	struct store st;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	add(&st, req, now_seconds(), 300, id);
	add(&st, req, now_seconds(), 300, id);
	store_close(&st);
	tamper("UPDATE events SET detail = '{\"x\":1}' WHERE seq = 2", "edited");
	tamper("UPDATE events SET at = at + 1 WHERE seq = 1", "edited");
	tamper("DELETE FROM events WHERE seq = 2", "deleted");
	tamper("UPDATE events SET seq = -seq WHERE seq >= 3;"
	    " UPDATE events SET seq = 1 - seq WHERE seq < 0; INSERT INTO events"
	    " SELECT 3, at, gate_id, kind, detail, prev_sha256, sha256 FROM events WHERE seq = 2",
	    "does not follow");
	tamper("DELETE FROM events WHERE seq = (SELECT max(seq) FROM events)", "no audit events");
	tamper("UPDATE gates SET state = 'approved' WHERE id = (SELECT id FROM gates LIMIT 1)",
	    "last event");
	tamper("UPDATE gates SET manifest_sha256 = '0000000000000000000000000000000000000000000000000000000000000000'"
	    " WHERE id = (SELECT gate_id FROM events WHERE kind = 'request' LIMIT 1)",
	    "manifest hash");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_expiry_on_read),
		cmocka_unit_test(test_tamper),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
