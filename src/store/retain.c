/* SPDX-License-Identifier: ISC */
/*
 * What `warrant gc` asks the store: may a gate's run directories go (the
 * gate settled, none of its attempts unsettled), pruning settled gates
 * past the retention age, and compacting the database (VACUUM, then the
 * WAL truncated); and what the daemon's metadata quota counts.
 *
 * A pruned gate loses its rows (manifest, commands, attempts, ledger,
 * request key); its audit events stay, so the chain (chain.c) verifies
 * whole: it is checked against the gates that are there, and each event
 * is small (a kind, a hash, a reason).
 */
#include <string.h>

#include "store-int.h"

/*
 * 0 with the time the gate settled in *settled when its run directories
 * may be pruned: the gate is settled and no attempt of it is unsettled.
 * 1 when they may not (pending, an unsettled attempt), -1 on errors. A
 * gate that is no longer there was pruned: 0, settled at 0. One read transaction, so both facts are of one moment.
 */
int
gate_retention(struct store *st, const char *gate, int64_t *settled)
{
	static const char sql[] =
	    "SELECT g.state, COALESCE(g.settled_at, g.created_at),"
	    " (SELECT count(*) FROM attempts a WHERE a.gate_id = g.id AND a."
	    ATTEMPT_OPEN_SQL ") FROM gates g WHERE g.id = ?";
	sqlite3_stmt *s;
	int rc, ret;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "reading the gate's attempts");
	rc = sqlite3_bind_text(s, 1, gate, -1, SQLITE_STATIC) == SQLITE_OK ?
	    sqlite3_step(s) : SQLITE_ERROR;
	if (rc == SQLITE_ROW) {
		*settled = sqlite3_column_int64(s, 1);
		ret = strcmp((const char *)sqlite3_column_text(s, 0), "pending") != 0 &&
		    sqlite3_column_int64(s, 2) == 0 ? 0 : 1;
	} else if (rc == SQLITE_DONE) {
		/* pruned (gates_prune): its run directories may go too */
		*settled = 0;
		ret = 0;
	} else
		ret = store_fail(st, "reading the gate's attempts");
	sqlite3_finalize(s);
	return ret;
}

/* VACUUM the database, then truncate the WAL; 0 or -1. */
int
store_vacuum(struct store *st)
{
	if (sqlite3_exec(st->db, "VACUUM", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, "VACUUM");
	if (sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL,
	    NULL) != SQLITE_OK)
		return store_fail(st, "truncating the WAL");
	return 0;
}

/*
 * The bytes uid's gates take in the store: their sealed manifests (each
 * also a line of requests.jsonl) and ledgers, what every request adds and
 * what stays until gates_prune. -1 on errors.
 */
long long
store_meta_bytes(struct store *st, int64_t uid)
{
	static const char sql[] =
	    "SELECT COALESCE(SUM(length(CAST(g.manifest AS BLOB)) + COALESCE((SELECT"
	    " length(CAST(l.ledger AS BLOB)) FROM ledgers l WHERE l.gate_id = g.id), 0)), 0)"
	    " FROM gates g WHERE g.requester_uid = ?";
	sqlite3_stmt *s;
	long long n = -1;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "counting a requester's gates");
	if (sqlite3_bind_int64(s, 1, uid) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	else
		store_fail(st, "counting a requester's gates");
	sqlite3_finalize(s);
	return n;
}

/* The gates gates_prune removes: settled (withdrawn and denied, expired,
 * approved) at or before ?1, no attempt unsettled, no live grant made
 * from them (a grant names the gate its command was reviewed in). */
#define PRUNABLE_SQL \
	"SELECT g.id FROM gates g WHERE g.state <> 'pending'" \
	" AND COALESCE(g.settled_at, g.created_at) <= ?1" \
	" AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.gate_id = g.id AND a." \
	ATTEMPT_OPEN_SQL ")" \
	" AND NOT EXISTS (SELECT 1 FROM grants r WHERE r.gate_id = g.id" \
	" AND r.revoked_at IS NULL AND r.expires_at > ?2)"

/*
 * Remove the settled gates of cutoff or before (PRUNABLE_SQL), all in one
 * transaction, their events kept; with dry, only count them. The count in
 * *n. 0, or -1 with nothing removed.
 */
int
gates_prune(struct store *st, int64_t cutoff, int dry, long *n)
{
	static const char *const del[] = {
		"DELETE FROM ledgers WHERE gate_id IN (SELECT id FROM doomed)",
		"DELETE FROM commands WHERE gate_id IN (SELECT id FROM doomed)",
		"DELETE FROM attempts WHERE gate_id IN (SELECT id FROM doomed)",
		"DELETE FROM request_keys WHERE gate_id IN (SELECT id FROM doomed)",
		"DELETE FROM gates WHERE id IN (SELECT id FROM doomed)",
	};
	sqlite3_stmt *s = NULL;
	size_t i;

	*n = 0;
	if (store_begin(st) != 0)
		return -1;
	if (sqlite3_exec(st->db, "CREATE TEMP TABLE doomed (id TEXT PRIMARY KEY)", NULL, NULL,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, "INSERT INTO doomed " PRUNABLE_SQL, -1, &s, NULL) !=
	    SQLITE_OK ||
	    sqlite3_bind_int64(s, 1, cutoff) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 2, now_seconds()) != SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(s);
	s = NULL;
	*n = (long)sqlite3_changes(st->db);
	for (i = 0; !dry && i < sizeof del / sizeof del[0]; i++)
		if (sqlite3_exec(st->db, del[i], NULL, NULL, NULL) != SQLITE_OK)
			goto fail;
	if (sqlite3_exec(st->db, "DROP TABLE doomed", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	if (dry) {
		store_rollback(st);
		return 0;
	}
	if (store_commit(st) == 0)
		return 0;
fail:
	store_fail(st, "pruning settled gates");
	sqlite3_finalize(s);
	store_rollback(st);
	sqlite3_exec(st->db, "DROP TABLE IF EXISTS temp.doomed", NULL, NULL, NULL);
	*n = 0;
	return -1;
}
