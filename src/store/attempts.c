/*
 * Attempts and settlement (DESIGN §5): every approval is an attempt that
 * goes reserved -> authenticating -> running -> settled, recorded with the
 * pid and procfs start time of the process executing it, so a reader can
 * tell a live attempt from a dead one. A gate settles exactly once, in one
 * transaction with its ledger and its audit event.
 */
#include <string.h>
#include <unistd.h>

#include "store-int.h"

int
step_done(struct store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_fail(st, what);
}

int
gate_state(struct store *st, const char *gate, char *state, size_t size)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT state FROM gates WHERE id = ?", -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "reading the gate");
	sqlite3_bind_text(s, 1, gate, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		snprintf(state, size, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : store_fail(st, "reading the gate");
}

/* Is another attempt on this gate still being executed by a live process? */
static int
attempt_live(struct store *st, const char *gate)
{
	static const char sql[] = "SELECT pid, pid_start FROM attempts"
	    " WHERE gate_id = ? AND state <> 'settled'";
	sqlite3_stmt *s;
	int live = 0;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "reading attempts");
	sqlite3_bind_text(s, 1, gate, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW)
		if (proc_alive((pid_t)sqlite3_column_int(s, 0), sqlite3_column_int64(s, 1)))
			live = 1;
	sqlite3_finalize(s);
	return live;
}

/*
 * Reserve an attempt on a pending gate for this process. Returns the
 * attempt id, ATTEMPT_NOT_PENDING, ATTEMPT_BUSY (a live attempt exists)
 * or -1.
 */
int64_t
attempt_begin(struct store *st, const char *gate, const json_t *selected,
    const char *sha, const char *run_dir)
{
	static const char sql[] = "INSERT INTO attempts (gate_id, state, pid, pid_start,"
	    " selected, manifest_sha256, run_dir, started_at, updated_at)"
	    " VALUES (?, 'reserved', ?, ?, ?, ?, ?, ?, ?)";
	char state[16], *sel = NULL;
	sqlite3_stmt *s;
	int64_t id = -1, now = now_seconds();
	int live;

	if (store_begin(st) != 0)
		return -1;
	if (gate_state(st, gate, state, sizeof state) != 0)
		goto fail;
	if (strcmp(state, "pending") != 0) {
		store_rollback(st);
		return ATTEMPT_NOT_PENDING;
	}
	if ((live = attempt_live(st, gate)) != 0) {
		store_rollback(st);
		return live > 0 ? ATTEMPT_BUSY : -1;
	}
	if ((sel = canon_dump(selected, NULL)) == NULL ||
	    sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(s, 1, gate, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, (int)getpid());
	sqlite3_bind_int64(s, 3, proc_start_time(getpid()));
	sqlite3_bind_text(s, 4, sel, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, sha, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, run_dir, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 7, now);
	sqlite3_bind_int64(s, 8, now);
	if (step_done(st, s, "reserving an attempt") != 0)
		goto fail;
	id = sqlite3_last_insert_rowid(st->db);
	free(sel);
	return store_commit(st) == 0 ? id : -1;
fail:
	free(sel);
	store_rollback(st);
	return -1;
}

/* Move an attempt on, and record that this process now executes it. */
int
attempt_set(struct store *st, int64_t id, const char *state)
{
	return attempt_set_pid(st, id, state, getpid());
}

/* ... or that pid does (the detached finalizer). */
int
attempt_set_pid(struct store *st, int64_t id, const char *state, pid_t pid)
{
	static const char sql[] = "UPDATE attempts SET state = ?, pid = ?, pid_start = ?,"
	    " updated_at = ? WHERE id = ?";
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "updating the attempt");
	sqlite3_bind_text(s, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, (int)pid);
	sqlite3_bind_int64(s, 3, proc_start_time(pid));
	sqlite3_bind_int64(s, 4, now_seconds());
	sqlite3_bind_int64(s, 5, id);
	return step_done(st, s, "updating the attempt");
}

int
attempt_close(struct store *st, int64_t id, const char *outcome)
{
	static const char sql[] = "UPDATE attempts SET state = 'settled', outcome = ?,"
	    " updated_at = ? WHERE id = ?";
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "closing the attempt");
	sqlite3_bind_text(s, 1, outcome, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, now_seconds());
	sqlite3_bind_int64(s, 3, id);
	return step_done(st, s, "closing the attempt");
}

/* An attempt that ran nothing: the gate stays pending and answerable. */
int
attempt_abandon(struct store *st, int64_t id, const char *gate, const char *outcome)
{
	json_t *d = json_pack("{s:I,s:s}", "attempt", (json_int_t)id, "outcome", outcome);
	int rc;

	if (store_begin(st) != 0) {
		json_decref(d);
		return -1;
	}
	rc = attempt_close(st, id, outcome) != 0 ||
	    audit_append(st, gate, "attempt", d, now_seconds()) != 0 ? -1 : 0;
	json_decref(d);
	if (rc != 0) {
		store_rollback(st);
		return -1;
	}
	return store_commit(st);
}

/* Unsettled attempts whose executor is gone: what recovery looks at. */
json_t *
attempts_orphaned(struct store *st)
{
	static const char sql[] = "SELECT id, gate_id, state, pid, pid_start, selected,"
	    " manifest_sha256, run_dir FROM attempts WHERE state <> 'settled'";
	json_t *list = json_array();
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "reading attempts");
		json_decref(list);
		return NULL;
	}
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (proc_alive((pid_t)sqlite3_column_int(s, 3), sqlite3_column_int64(s, 4)))
			continue;
		json_array_append_new(list, json_pack("{s:I,s:s,s:s,s:o,s:s?,s:s?}",
		    "id", (json_int_t)sqlite3_column_int64(s, 0),
		    "gate_id", (const char *)sqlite3_column_text(s, 1),
		    "state", (const char *)sqlite3_column_text(s, 2),
		    "selected", json_loads((const char *)sqlite3_column_text(s, 5), 0, NULL),
		    "manifest_sha256", (const char *)sqlite3_column_text(s, 6),
		    "run_dir", (const char *)sqlite3_column_text(s, 7)));
	}
	sqlite3_finalize(s);
	return list;
}
