/* SPDX-License-Identifier: ISC */
/*
 * The web page's devices (docs/protocol.md, "The web page"): single-use
 * pairing tokens minted by `warrant pair` and the device sessions they
 * are traded for. Only the SHA-256 of each secret is stored; a token is
 * used at most once, before its expiry, in the same transaction that
 * creates the device.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

/* Remember a new pairing token (by its hash) until expires. */
int
pair_token_add(struct store *st, const char *token_sha256, int64_t expires)
{
	static const char sql[] = "INSERT INTO pair_tokens (token_sha256, created_at,"
	    " expires_at) VALUES (?, ?, ?)";
	static const char old[] = "DELETE FROM pair_tokens WHERE expires_at < ?";
	int64_t now = now_seconds();
	sqlite3_stmt *s;

	if (store_begin(st) != 0)
		return -1;
	/* expired tokens are of no use to anyone: forget them */
	if (sqlite3_prepare_v2(st->db, old, -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 1, now - 86400) != SQLITE_OK ||
	    step_done(st, s, "forgetting old pairing tokens") != 0)
		goto fail;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		goto fail;
	if ((sqlite3_bind_text(s, 1, token_sha256, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 2, now) | sqlite3_bind_int64(s, 3, expires)) != SQLITE_OK ||
	    step_done(st, s, "storing the pairing token") != 0)
		goto fail;
	return store_commit(st);
fail:
	store_fail(st, "storing the pairing token");
	store_rollback(st);
	return -1;
}

/*
 * Trade a pairing token for a device session: the token must exist,
 * be unused and unexpired; it is marked used and the device created in
 * one transaction. 0, 1 when the token is unknown, used or expired, -1
 * on errors.
 */
int
pair_redeem(struct store *st, const char *token_sha256, const char *device,
    const char *name, const char *session_sha256)
{
	static const char use[] = "UPDATE pair_tokens SET used_at = ?1 WHERE"
	    " token_sha256 = ?2 AND used_at IS NULL AND expires_at > ?1";
	static const char ins[] = "INSERT INTO devices (id, name, session_sha256, created_at)"
	    " VALUES (?, ?, ?, ?)";
	int64_t now = now_seconds();
	sqlite3_stmt *s;

	if (store_begin(st) != 0)
		return -1;
	if (sqlite3_prepare_v2(st->db, use, -1, &s, NULL) != SQLITE_OK ||
	    (sqlite3_bind_int64(s, 1, now) |
	    sqlite3_bind_text(s, 2, token_sha256, -1, SQLITE_STATIC)) != SQLITE_OK ||
	    step_done(st, s, "using the pairing token") != 0)
		goto fail;
	if (sqlite3_changes(st->db) != 1) {
		store_rollback(st);
		return 1;
	}
	if (sqlite3_prepare_v2(st->db, ins, -1, &s, NULL) != SQLITE_OK ||
	    (sqlite3_bind_text(s, 1, device, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 3, session_sha256, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 4, now)) != SQLITE_OK ||
	    step_done(st, s, "creating the device") != 0)
		goto fail;
	return store_commit(st);
fail:
	store_fail(st, "pairing a device");
	store_rollback(st);
	return -1;
}

/* The live (unrevoked) device whose session hashes to session_sha256:
 * 0 with its id in id, 1 when there is none, -1 on errors. */
int
device_lookup(struct store *st, const char *session_sha256, char *id, size_t size)
{
	static const char sql[] = "SELECT id FROM devices WHERE session_sha256 = ?"
	    " AND revoked_at IS NULL";
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "looking up a device");
	rc = sqlite3_bind_text(s, 1, session_sha256, -1, SQLITE_STATIC) == SQLITE_OK ?
	    sqlite3_step(s) : SQLITE_ERROR;
	if (rc == SQLITE_ROW) {
		snprintf(id, size, "%s", (const char *)sqlite3_column_text(s, 0));
		rc = 0;
	} else if (rc == SQLITE_DONE)
		rc = 1;
	else
		rc = store_fail(st, "looking up a device");
	sqlite3_finalize(s);
	return rc;
}

/* Every device, newest first: id, name, created_at, revoked_at. */
json_t *
device_list(struct store *st)
{
	static const char sql[] = "SELECT id, name, created_at, revoked_at FROM devices"
	    " ORDER BY created_at DESC, rowid DESC";
	json_t *list = json_array();
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "listing devices");
		json_decref(list);
		return NULL;
	}
	for (rc = sqlite3_step(s); rc == SQLITE_ROW; rc = sqlite3_step(s))
		json_array_append_new(list, json_pack("{s:s,s:s,s:I,s:o}",
		    "device", (const char *)sqlite3_column_text(s, 0),
		    "name", (const char *)sqlite3_column_text(s, 1),
		    "created_at", (json_int_t)sqlite3_column_int64(s, 2),
		    "revoked_at", sqlite3_column_type(s, 3) == SQLITE_NULL ? json_null() :
		    json_integer(sqlite3_column_int64(s, 3))));
	if (rc != SQLITE_DONE) {
		store_fail(st, "listing devices");
		json_decref(list);
		list = NULL;
	}
	sqlite3_finalize(s);
	return list;
}

/* Revoke a device: its session stops working at once. 0, 1 when there
 * is no such live device, -1 on errors. */
int
device_revoke(struct store *st, const char *id)
{
	static const char sql[] = "UPDATE devices SET revoked_at = ? WHERE id = ?"
	    " AND revoked_at IS NULL";
	sqlite3_stmt *s;

	if (store_begin(st) != 0)
		return -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK ||
	    (sqlite3_bind_int64(s, 1, now_seconds()) |
	    sqlite3_bind_text(s, 2, id, -1, SQLITE_STATIC)) != SQLITE_OK ||
	    step_done(st, s, "revoking the device") != 0) {
		store_fail(st, "revoking the device");
		store_rollback(st);
		return -1;
	}
	if (sqlite3_changes(st->db) != 1) {
		store_rollback(st);
		return 1;
	}
	return store_commit(st);
}
