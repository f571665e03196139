/* SPDX-License-Identifier: ISC */
/*
 * Request keys: a client of the reviewer's daemon sends a random key with
 * each `request` (one per invocation), and a retry of the same invocation
 * sends the same key. The key is stored with the gate, per requester uid,
 * in the gate's own transaction, together with the descriptor the
 * requester was told; a repeat is answered with that gate, so a retry
 * after a lost connection never makes a second gate.
 */
#include <stdlib.h>

#include "store-int.h"

/* In gate_insert's transaction: remember g's key (none: nothing to do). */
int
request_key_insert(struct store *st, const struct gate_record *g)
{
	static const char sql[] = "INSERT INTO request_keys (requester_uid, key, gate_id,"
	    " descriptor) VALUES (?,?,?,?)";
	sqlite3_stmt *s;
	char *desc;

	if (g->request_key == NULL)
		return 0;
	if ((desc = canon_dump(g->descriptor, NULL)) == NULL)
		return -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		free(desc);
		return store_fail(st, "storing the request key");
	}
	if ((sqlite3_bind_int64(s, 1, g->requester_uid) |
	    sqlite3_bind_text(s, 2, g->request_key, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 3, g->id, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 4, desc, -1, free)) != SQLITE_OK) {
		sqlite3_finalize(s);
		return store_fail(st, "storing the request key");
	}
	return step_done(st, s, "storing the request key");
}

/*
 * The gate uid's request with key made: 0 with its descriptor in *desc
 * (its state as it is now), 1 when there is none, -1 after saying why.
 */
int
request_key_find(struct store *st, int64_t uid, const char *key, json_t **desc)
{
	static const char sql[] = "SELECT k.descriptor, g.state FROM request_keys k"
	    " JOIN gates g ON g.id = k.gate_id WHERE k.requester_uid = ? AND k.key = ?";
	sqlite3_stmt *s;
	int rc;

	*desc = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "reading the request key");
	rc = (sqlite3_bind_int64(s, 1, uid) |
	    sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC)) == SQLITE_OK ?
	    sqlite3_step(s) : SQLITE_ERROR;
	if (rc == SQLITE_ROW) {
		*desc = json_loads((const char *)sqlite3_column_text(s, 0), 0, NULL);
		if (*desc != NULL)
			json_object_set_new(*desc, "state",
			    json_string((const char *)sqlite3_column_text(s, 1)));
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		store_fail(st, "reading the request key");
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW && *desc == NULL)
		return store_fail(st, "reading the request key's descriptor");
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}
