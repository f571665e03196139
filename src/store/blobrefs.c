/* SPDX-License-Identifier: ISC */
/*
 * Which blobs gates still hold (docs/store.md "Blobs"): the content each
 * gate's manifest names under "files", by SHA-256 and size. A gate holds
 * its blobs while it is pending or has an unsettled attempt, and after it
 * settled for a while: ran_since for approved gates (their runs are
 * audited by content), unrun_since for denied, expired and withdrawn
 * ones. The blob store's quota and `warrant gc` both ask this.
 */
#include <sqlite3.h>

#include "store-int.h"

/*
 * Call each(arg, sha256, size) once per distinct blob held by the gates
 * of requester uid (every requester when uid < 0). 0; -1 after saying
 * why; or each's own non-zero return, which stops the walk.
 */
int
store_blob_refs(struct store *st, int64_t uid, int64_t ran_since, int64_t unrun_since,
    int (*each)(void *, const char *, int64_t), void *arg)
{
	static const char sql[] =
	    "SELECT DISTINCT json_extract(f.value, '$.sha256'), json_extract(f.value, '$.size')"
	    " FROM gates g, json_each(g.manifest, '$.files') f"
	    " WHERE (?1 < 0 OR g.requester_uid = ?1) AND (g.state = 'pending'"
	    " OR (g.state = 'approved' AND g.settled_at >= ?2)"
	    " OR (g.state <> 'approved' AND g.settled_at >= ?3)"
	    " OR EXISTS (SELECT 1 FROM attempts a WHERE a.gate_id = g.id"
	    " AND a.state <> 'settled'))";
	const unsigned char *sha;
	sqlite3_stmt *s;
	int rc = 0, step = SQLITE_DONE;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "reading which blobs gates hold");
	if (sqlite3_bind_int64(s, 1, uid) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 2, ran_since) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 3, unrun_since) != SQLITE_OK) {
		sqlite3_finalize(s);
		return store_fail(st, "reading which blobs gates hold");
	}
	while (rc == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
		sha = sqlite3_column_text(s, 0);
		if (sha == NULL || sqlite3_column_type(s, 1) != SQLITE_INTEGER)
			continue;
		rc = each(arg, (const char *)sha, sqlite3_column_int64(s, 1));
	}
	if (rc == 0 && step != SQLITE_DONE)
		rc = store_fail(st, "reading which blobs gates hold");
	sqlite3_finalize(s);
	return rc;
}
