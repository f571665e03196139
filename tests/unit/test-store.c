/* SPDX-License-Identifier: ISC */
/* The store on a real SQLite file: insert, resolve by prefix, list,
 * expiry on read, requests.jsonl, and the audit chain catching a tampered
 * row. */
#include <sys/stat.h>
#include <poll.h>
#include <unistd.h>
#include <sqlite3.h>

#include "store-fixture.h"

static void
test_roundtrip(void **state)
{
	char id[GATE_ID_LEN + 1], got[GATE_ID_LEN + 1], why[256];
	struct store st;
	json_t *g, *list;
	long n;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	gate_add(&st, now_seconds(), 300, id);
	assert_int_equal(store_resolve(&st, id + 2, ANY_REQUESTER, got), 0);
	assert_string_equal(got, id);
	assert_int_equal(store_resolve(&st, "w-zzzzzzzzzz", ANY_REQUESTER, got), 1);
	assert_int_equal(store_resolve(&st, "ab", ANY_REQUESTER, got), 2);
	/* a requester's view: its own gates only */
	assert_int_equal(store_resolve(&st, id, FIXTURE_UID, got), 0);
	assert_int_equal(store_resolve(&st, id, FIXTURE_UID + 1, got), 1);
	assert_int_equal(store_count_pending(&st, FIXTURE_UID), 1);
	assert_int_equal(store_count_pending(&st, FIXTURE_UID + 1), 0);
	assert_int_equal(store_count_pending(&st, ANY_REQUESTER), 1);
	g = store_gate(&st, id, 1);
	assert_non_null(g);
	assert_string_equal(json_string_value(json_object_get(g, "state")), "pending");
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(json_object_get(g, "commands"), 0), "path")), "/usr/bin/true");
	assert_non_null(json_object_get(json_object_get(g, "manifest"), "commands"));
	json_decref(g);
	list = store_list(&st, 0, 50, "proj", ANY_REQUESTER);
	assert_int_equal(json_array_size(list), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(list, 0),
	    "requester_pid")), FIXTURE_PID);
	json_decref(list);
	list = store_list(&st, 1, 50, NULL, FIXTURE_UID + 1);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	list = store_list(&st, 0, 50, "other", ANY_REQUESTER);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	assert_int_equal(audit_verify(&st, why, sizeof why, &n), 0);
	assert_int_equal(n, 1);
	store_close(&st);
}

/* list -j straight from the rows writes the bytes store_list's objects
 * dump to, odd strings included: escapes, astral characters, and text
 * that is not UTF-8 (null either way). */
static void
test_list_dump(void **state)
{
	static const char *const edits[] = {
		"UPDATE gates SET reason = 'caf' || char(233) || ' ' || char(128512) ||"
		" char(1) || char(9) || '\"\\' || char(127) || char(8232) WHERE rowid = 1",
		"UPDATE gates SET agent = CAST(X'41EDA080' AS TEXT), project = CAST(X'C3' AS TEXT),"
		" env = '{\"B\":\"b' || char(228) || '\"}', risk_badges = '[\"x\"]' WHERE rowid = 2",
		"UPDATE gates SET settled_at = NULL, feedback = 'no' || char(10) WHERE rowid = 3",
	};
	char id[GATE_ID_LEN + 1], *want, *got = NULL;
	struct store st;
	size_t i, n, len = 0;
	json_t *list;
	FILE *f;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	for (i = 0; i < 3; i++)
		gate_add(&st, now_seconds() - (int64_t)i, 300, id);
	for (i = 0; i < sizeof edits / sizeof edits[0]; i++)
		assert_int_equal(sqlite3_exec(st.db, edits[i], NULL, NULL, NULL), SQLITE_OK);
	for (i = 0; i < 2; i++) {
		list = store_list(&st, (int)i, 50, NULL, ANY_REQUESTER);
		want = json_dumps(list, JSON_COMPACT | JSON_ENSURE_ASCII);
		assert_non_null(want);
		f = open_memstream(&got, &len);
		assert_int_equal(store_list_dump(&st, (int)i, 50, NULL, ANY_REQUESTER, f, &n), 0);
		fclose(f);
		assert_int_equal(n, json_array_size(list));
		assert_true(len > 0 && got[len - 1] == '\n');
		got[len - 1] = '\0';
		assert_string_equal(got, want);
		free(got);
		free(want);
		json_decref(list);
	}
	/* none: an empty array */
	f = open_memstream(&got, &len);
	assert_int_equal(store_list_dump(&st, 0, 50, "nothing", ANY_REQUESTER, f, &n), 0);
	fclose(f);
	assert_string_equal(got, "[]\n");
	free(got);
	store_close(&st);
}

/* The watch wakes when another connection commits, not on reads. */
static void
test_watch(void **state)
{
	char id[GATE_ID_LEN + 1];
	struct store st, other;
	struct pollfd p;
	json_t *g;
	int fd;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	assert_int_equal(store_open_at(&other, dir), 0);
	fd = store_watch(&st);
	assert_true(fd >= 0);
	store_watch_drain(fd);
	/* reading changes nothing */
	g = store_gate(&st, "w-aaaaaaaaaa", 0);
	json_decref(g);
	assert_int_equal(store_watch_wait(fd, 0), 0);
	/* another connection's commit does */
	gate_add(&other, now_seconds(), 300, id);
	p.fd = fd;
	p.events = POLLIN;
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_int_equal(store_watch_drain(fd), 1);
	assert_int_equal(store_watch_drain(fd), 0);
	/* no watch: the wait is a plain pause */
	assert_int_equal(store_watch_wait(-1, 1), 0);
	close(fd);
	store_close(&other);
	store_close(&st);
}

/* Size of the WAL file in frames (4 KiB pages; 0 when it is absent). */
static long
wal_frames(void)
{
	char path[PATH_MAX + 32];
	struct stat sb;

	snprintf(path, sizeof path, "%s/warrant.db-wal", dir);
	if (stat(path, &sb) != 0)
		return 0;
	return sb.st_size <= 32 ? 0 : (long)((sb.st_size - 32) / (4096 + 24));
}

/*
 * Closing does not checkpoint, but the WAL never grows past a few hundred
 * frames: a commit beyond 200 truncates it. Every gate survives closes and
 * truncations.
 */
static void
test_wal_bounded(void **state)
{
	char id[GATE_ID_LEN + 1], why[256];
	long n, frames, most = 0, drops = 0, last = 0;
	struct store st;
	int i;

	(void)state;
	for (i = 0; i < 150; i++) {
		assert_int_equal(store_open_at(&st, dir), 0);
		gate_add(&st, now_seconds(), 300, id);
		store_close(&st);
		frames = wal_frames();
		/* the commit is still in the WAL after close: no checkpoint */
		if (i == 0)
			assert_true(frames > 0);
		if (frames < last)
			drops++;
		most = frames > most ? frames : most;
		last = frames;
	}
	assert_true(drops > 0);		/* truncated at least once */
	assert_true(most < 260);	/* 200 plus one commit's frames */
	assert_int_equal(store_open_at(&st, dir), 0);
	assert_int_equal(audit_verify(&st, why, sizeof why, &n), 0);
	assert_int_equal(n, 150);
	assert_int_equal(store_count_pending(&st, ANY_REQUESTER), 150);
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
	gate_add(&st, now_seconds() - 100, 10, id);
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
	/* five events: a request, an expired one, two more requests */
	gate_add(&st, now_seconds(), 300, id);
	gate_add(&st, now_seconds() - 100, 10, id);
	assert_int_equal(store_expire(&st), 0);
	gate_add(&st, now_seconds(), 300, id);
	gate_add(&st, now_seconds(), 300, id);
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

/* Count the rows of a table, straight from SQLite. */
static int
rows(struct store *st, const char *table)
{
	char sql[128];
	sqlite3_stmt *s;
	int n;

	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
	assert_int_equal(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return n;
}

/* The record's every field lands where the views read it; requests.jsonl
 * gets exactly the one request line, after the commit. */
static void
test_insert_record(void **state)
{
	char id[GATE_ID_LEN + 1];
	struct store st;
	json_t *g, *c, *lines, *l;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	gate_add(&st, 1000, 300, id);
	g = store_gate(&st, id, 1);
	assert_non_null(g);
	assert_string_equal(json_str(g, "requester"), "tester");
	assert_int_equal(json_integer_value(json_object_get(g, "requester_uid")), 1000);
	assert_string_equal(json_str(g, "agent"), "agent");
	assert_string_equal(json_str(g, "host"), "host");
	assert_true(json_is_null(json_object_get(g, "machine")));
	assert_true(json_is_null(json_object_get(g, "next_prompt")));
	assert_string_equal(json_str(json_object_get(g, "env"), "LANG"), "C");
	assert_true(json_is_true(json_object_get(g, "stop_on_failure")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(g, "risk_badges"), 0)),
	    "network");
	assert_int_equal(json_integer_value(json_object_get(g, "root_count")), 1);
	assert_int_equal(json_integer_value(json_object_get(g, "expires_at")), 1300);
	c = json_array_get(json_object_get(g, "commands"), 0);
	assert_string_equal(json_str(c, "given_path"), "true");
	assert_string_equal(json_str(c, "executable_sha256"), TRUE_SHA);
	assert_true(json_is_null(json_object_get(c, "command")));
	json_decref(g);
	lines = jsonl_read();
	assert_int_equal(json_array_size(lines), 1);
	l = json_array_get(lines, 0);
	assert_string_equal(json_str(l, "event"), "request");
	assert_string_equal(json_str(l, "request_id"), id);
	assert_string_equal(json_str(l, "project"), "proj");
	assert_int_equal(json_integer_value(json_object_get(l, "at")), 1000);
	assert_string_equal(json_str(json_object_get(l, "manifest"), "request_id"), id);
	json_decref(lines);
	store_close(&st);
}

/* A manifest that does not match its seal, and a second gate with the
 * same id, are refused whole: no row, no event, no requests.jsonl line. */
static void
test_insert_refused(void **state)
{
	char first[GATE_ID_LEN + 1], id[GATE_ID_LEN + 1], sha[SHA256_HEX_LEN + 1], why[256];
	struct command_record c;
	char *bytes;
	struct gate_record g;
	struct store st;
	json_t *m;
	long n;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	gate_add(&st, now_seconds(), 300, first);
	memcpy(id, first, sizeof id);
	m = fixture_manifest(id);
	bytes = manifest_seal(m, sha);
	assert_non_null(bytes);
	/* the same id again: the gate's primary key refuses it */
	fixture_record(&g, &c, id, m, bytes, sha, now_seconds(), 300);
	assert_int_equal(gate_insert(&st, &g), -1);
	/* bytes that are not what was sealed */
	assert_int_equal(gate_id_new(id), 0);
	g.manifest_sha256 = TRUE_SHA;
	assert_int_equal(gate_insert(&st, &g), -1);
	fixture_record_free(&g);
	free(bytes);
	json_decref(m);
	assert_int_equal(rows(&st, "gates"), 1);
	assert_int_equal(rows(&st, "commands"), 1);
	assert_int_equal(rows(&st, "events"), 1);
	assert_int_equal(audit_verify(&st, why, sizeof why, &n), 0);
	assert_jsonl(1, 0, "request", first);
	store_close(&st);
}

/* What is not there is not an error: NULL, and the store still works. */
static void
test_not_found(void **state)
{
	char id[GATE_ID_LEN + 1];
	struct store st;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	assert_null(store_gate(&st, "w-aaaaaaaaaa", 0));
	assert_null(gate_ledger(&st, "w-aaaaaaaaaa"));
	assert_int_equal(gate_deny(&st, "w-aaaaaaaaaa", NULL), 1);
	gate_add(&st, now_seconds(), 300, id);
	assert_null(gate_ledger(&st, id));
	assert_jsonl(1, 0, "request", id);
	store_close(&st);
}

/* A denial: one transaction, its line in requests.jsonl once; a second
 * denial changes nothing and writes nothing. */
static void
test_deny(void **state)
{
	char id[GATE_ID_LEN + 1], why[256];
	struct store st;
	json_t *g, *lines;
	long n;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	gate_add(&st, now_seconds(), 300, id);
	assert_int_equal(gate_deny(&st, id, "no thanks"), 0);
	assert_int_equal(gate_deny(&st, id, "again"), 1);
	g = store_gate(&st, id, 0);
	assert_string_equal(json_str(g, "state"), "denied");
	assert_string_equal(json_str(g, "feedback"), "no thanks");
	json_decref(g);
	lines = jsonl_read();
	assert_int_equal(json_array_size(lines), 2);
	assert_string_equal(json_str(json_array_get(lines, 1), "feedback"), "no thanks");
	json_decref(lines);
	assert_jsonl(2, 1, "denied", id);
	assert_int_equal(audit_verify(&st, why, sizeof why, &n), 0);
	assert_int_equal(n, 2);
	store_close(&st);
}

/* A request key (the daemon's retries): stored with its gate in the same
 * transaction, found again only for the same requester uid, with the
 * descriptor the requester was told and the gate's state as it is now. */
static void
test_request_key(void **state)
{
	static const char key[] = "0123456789abcdef0123456789abcdef";
	char id[GATE_ID_LEN + 1], sha[SHA256_HEX_LEN + 1], *bytes;
	struct command_record c;
	struct gate_record g;
	struct store st;
	json_t *m, *desc, *found;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	assert_int_equal(request_key_find(&st, FIXTURE_UID, key, &found), 1);
	assert_int_equal(gate_id_new(id), 0);
	m = fixture_manifest(id);
	bytes = manifest_seal(m, sha);
	fixture_record(&g, &c, id, m, bytes, sha, now_seconds(), 300);
	desc = json_pack("{s:s,s:s,s:s}", "request_id", id, "state", "pending",
	    "manifest_sha256", sha);
	g.request_key = key;
	g.descriptor = desc;
	assert_int_equal(gate_insert(&st, &g), 0);
	/* the same key again is refused whole: no second gate */
	g.id = "w-aaaaaaaaaa";
	assert_int_equal(gate_insert(&st, &g), -1);
	assert_null(store_gate(&st, "w-aaaaaaaaaa", 0));
	assert_int_equal(request_key_find(&st, FIXTURE_UID, key, &found), 0);
	assert_string_equal(json_str(found, "request_id"), id);
	assert_string_equal(json_str(found, "manifest_sha256"), sha);
	assert_string_equal(json_str(found, "state"), "pending");
	json_decref(found);
	assert_int_equal(gate_deny(&st, id, "no"), 0);
	assert_int_equal(request_key_find(&st, FIXTURE_UID, key, &found), 0);
	assert_string_equal(json_str(found, "state"), "denied");
	json_decref(found);
	/* another requester's key space */
	assert_int_equal(request_key_find(&st, FIXTURE_UID + 1, key, &found), 1);
	assert_null(found);
	fixture_record_free(&g);
	json_decref(desc);
	json_decref(m);
	free(bytes);
	store_close(&st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_list_dump, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_watch, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_expiry_on_read, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_wal_bounded, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_tamper, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_insert_record, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_insert_refused, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_not_found, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_deny, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_request_key, fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
