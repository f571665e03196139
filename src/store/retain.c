/* SPDX-License-Identifier: ISC */
/*
 * What `warrant gc` asks the store: may a gate's run directories go (the
 * gate settled, none of its attempts unsettled), and compacting the
 * database (VACUUM, then the WAL truncated).
 */
#include <string.h>

#include "store-int.h"

/*
 * 0 with the time the gate settled in *settled when its run directories
 * may be pruned: the gate is settled and no attempt of it is unsettled.
 * 1 when they may not (pending, an unsettled attempt, or no such gate),
 * -1 on errors. One read transaction, so both facts are of one moment.
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
	} else if (rc == SQLITE_DONE)
		ret = 1;
	else
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
