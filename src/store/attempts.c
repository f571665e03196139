/* SPDX-License-Identifier: ISC */
/*
 * Attempts (docs/design.md §5): every approval is an attempt that goes reserved
 * -> authenticating -> running -> settled, recorded with the pid and
 * procfs start time of the process executing it. The store does not
 * judge whether that process lives: recovery in the approval code does,
 * and settles what died. Each function here is one transaction that
 * re-checks, inside it, that the attempt is still unsettled.
 */
#include <err.h>
#include <string.h>
#include <unistd.h>

#include "store-int.h"

/* The names of the CHECK constraint on attempts.state (migration 1). */
static const char *const state_names[] = {
	[ATTEMPT_RESERVED] = "reserved",
	[ATTEMPT_AUTHENTICATING] = "authenticating",
	[ATTEMPT_RUNNING] = "running",
	[ATTEMPT_SETTLED] = "settled",
};

const char *
attempt_state_name(enum attempt_state state)
{
	if ((size_t)state >= sizeof state_names / sizeof state_names[0])
		return NULL;
	return state_names[state];
}

/* Is any attempt on this gate unsettled? 1 yes, 0 no, -1 error. */
static int
attempt_open(struct store *st, const char *gate)
{
	static const char sql[] = "SELECT 1 FROM attempts"
	    " WHERE gate_id = ? AND " ATTEMPT_OPEN_SQL " LIMIT 1";
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "reading attempts");
	if (sqlite3_bind_text(s, 1, gate, -1, SQLITE_STATIC) != SQLITE_OK)
		rc = SQLITE_ERROR;
	else
		rc = sqlite3_step(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		store_fail(st, "reading attempts");
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

static int64_t
attempt_insert(struct store *st, const char *gate, const json_t *selected,
    const char *sha, const char *run_dir)
{
	static const char sql[] = "INSERT INTO attempts (gate_id, state, pid, pid_start,"
	    " selected, manifest_sha256, run_dir, started_at, updated_at)"
	    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
	int64_t now = now_seconds();
	sqlite3_stmt *s;
	char *sel;

	if ((sel = canon_dump(selected, NULL)) == NULL) {
		warnx("store %s: cannot encode the selected commands", st->path);
		return -1;
	}
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		free(sel);
		return store_fail(st, "reserving an attempt");
	}
	if ((sqlite3_bind_text(s, 1, gate, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 2, state_names[ATTEMPT_RESERVED], -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 3, getpid()) |
	    sqlite3_bind_int64(s, 4, proc_start_time(getpid())) |
	    sqlite3_bind_text(s, 5, sel, -1, free) |
	    sqlite3_bind_text(s, 6, sha, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 7, run_dir, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 8, now) |
	    sqlite3_bind_int64(s, 9, now)) != SQLITE_OK) {
		store_fail(st, "reserving an attempt");
		sqlite3_finalize(s);
		return -1;
	}
	if (step_done(st, s, "reserving an attempt") != 0)
		return -1;
	return sqlite3_last_insert_rowid(st->db);
}

/*
 * Reserve an attempt on a pending gate for this process. Returns the
 * attempt id, ATTEMPT_NOT_PENDING (no such gate, or not pending),
 * ATTEMPT_BUSY (the gate has an unsettled attempt, live or not: recovery
 * settles dead ones first) or -1.
 */
int64_t
attempt_begin(struct store *st, const char *gate, const json_t *selected,
    const char *sha, const char *run_dir)
{
	char state[16];
	int64_t id;
	int rc;

	if (store_begin(st) != 0)
		return -1;
	if ((rc = gate_state(st, gate, state, sizeof state)) < 0)
		id = -1;
	else if (rc == 1 || strcmp(state, "pending") != 0)
		id = ATTEMPT_NOT_PENDING;
	else if ((rc = attempt_open(st, gate)) != 0)
		id = rc > 0 ? ATTEMPT_BUSY : -1;
	else
		id = attempt_insert(st, gate, selected, sha, run_dir);
	if (id < 0) {
		store_rollback(st);
		return id;
	}
	if (store_commit(st) != 0) {
		store_rollback(st);
		return -1;
	}
	return id;
}

/*
 * Move an unsettled attempt to state, executed from now on by executor
 * (this process, or the detached finalizer it handed the batch to).
 * Returns 0, 1 when the attempt is settled (or unknown) and nothing
 * changed, -1 on errors.
 */
int
attempt_set(struct store *st, int64_t id, enum attempt_state state, pid_t executor)
{
	static const char sql[] = "UPDATE attempts SET state = ?, pid = ?, pid_start = ?,"
	    " updated_at = ? WHERE id = ? AND " ATTEMPT_OPEN_SQL;
	sqlite3_stmt *s;

	if (state == ATTEMPT_SETTLED || attempt_state_name(state) == NULL) {
		warnx("store %s: attempt %lld: state %d is not set this way", st->path,
		    (long long)id, (int)state);
		return -1;
	}
	if (store_begin(st) != 0)
		return -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "updating the attempt");
		store_rollback(st);
		return -1;
	}
	if ((sqlite3_bind_text(s, 1, state_names[state], -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 2, executor) |
	    sqlite3_bind_int64(s, 3, proc_start_time(executor)) |
	    sqlite3_bind_int64(s, 4, now_seconds()) |
	    sqlite3_bind_int64(s, 5, id)) != SQLITE_OK) {
		store_fail(st, "updating the attempt");
		sqlite3_finalize(s);
		store_rollback(st);
		return -1;
	}
	return transition_finish(st, s, "updating the attempt", NULL, NULL, NULL, 0);
}

/*
 * Settle an attempt of gate that ran nothing, with its outcome and an
 * `attempt` event; the gate stays pending and answerable. Returns 0, 1
 * when the attempt was already settled (or is not one of gate's) and
 * nothing changed, -1 on errors.
 */
int
attempt_abandon(struct store *st, int64_t id, const char *gate, const char *outcome)
{
	static const char sql[] = "UPDATE attempts SET state = ?, outcome = ?,"
	    " updated_at = ? WHERE id = ? AND gate_id = ? AND " ATTEMPT_OPEN_SQL;
	int64_t now = now_seconds();
	sqlite3_stmt *s;
	json_t *d;
	int rc;

	if (store_begin(st) != 0)
		return -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "closing the attempt");
		store_rollback(st);
		return -1;
	}
	if ((sqlite3_bind_text(s, 1, state_names[ATTEMPT_SETTLED], -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 2, outcome, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 3, now) |
	    sqlite3_bind_int64(s, 4, id) |
	    sqlite3_bind_text(s, 5, gate, -1, SQLITE_STATIC)) != SQLITE_OK) {
		store_fail(st, "closing the attempt");
		sqlite3_finalize(s);
		store_rollback(st);
		return -1;
	}
	d = json_pack("{s:I,s:s?}", "attempt", (json_int_t)id, "outcome", outcome);
	rc = transition_finish(st, s, "closing the attempt", gate, "attempt", d, now);
	json_decref(d);
	return rc;
}

#define ATTEMPT_COLUMNS	"id, gate_id, state, pid, pid_start, selected," \
	" manifest_sha256, run_dir, outcome"

static json_t *
attempt_row(struct store *st, sqlite3_stmt *s)
{
	const char *sel = (const char *)sqlite3_column_text(s, 5);
	json_t *selected = sel != NULL ? json_loads(sel, 0, NULL) : json_null();
	json_t *row;

	if (selected == NULL) {
		warnx("store %s: attempt %lld: the selected commands are not JSON", st->path,
		    (long long)sqlite3_column_int64(s, 0));
		return NULL;
	}
	row = json_pack("{s:I,s:s,s:s,s:I,s:I,s:o,s:s?,s:s?,s:s?}",
	    "id", (json_int_t)sqlite3_column_int64(s, 0),
	    "gate_id", (const char *)sqlite3_column_text(s, 1),
	    "state", (const char *)sqlite3_column_text(s, 2),
	    "pid", (json_int_t)sqlite3_column_int64(s, 3),
	    "pid_start", (json_int_t)sqlite3_column_int64(s, 4),
	    "selected", selected,
	    "manifest_sha256", (const char *)sqlite3_column_text(s, 6),
	    "run_dir", (const char *)sqlite3_column_text(s, 7),
	    "outcome", (const char *)sqlite3_column_text(s, 8));
	if (row == NULL)
		warnx("store %s: cannot read attempt %lld", st->path,
		    (long long)sqlite3_column_int64(s, 0));
	return row;
}

/* One attempt, or NULL: silently when there is no such attempt. */
json_t *
attempt_get(struct store *st, int64_t id)
{
	static const char sql[] = "SELECT " ATTEMPT_COLUMNS " FROM attempts WHERE id = ?";
	sqlite3_stmt *s;
	json_t *row = NULL;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "reading the attempt");
		return NULL;
	}
	rc = sqlite3_bind_int64(s, 1, id) == SQLITE_OK ? sqlite3_step(s) : SQLITE_ERROR;
	if (rc == SQLITE_ROW)
		row = attempt_row(st, s);
	else if (rc != SQLITE_DONE)
		store_fail(st, "reading the attempt");
	sqlite3_finalize(s);
	return row;
}

/* Every unsettled attempt, oldest first: what recovery looks at. NULL
 * after a message when the store cannot be read. */
json_t *
attempts_unsettled(struct store *st)
{
	static const char sql[] = "SELECT " ATTEMPT_COLUMNS " FROM attempts"
	    " WHERE " ATTEMPT_OPEN_SQL " ORDER BY id";
	json_t *list = json_array(), *row;
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "reading attempts");
		json_decref(list);
		return NULL;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if ((row = attempt_row(st, s)) == NULL)
			break;
		json_array_append_new(list, row);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		store_fail(st, "reading attempts");
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		json_decref(list);
		return NULL;
	}
	return list;
}
