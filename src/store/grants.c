/* SPDX-License-Identifier: ISC */
/*
 * Standing grants (docs/grants.md): a reviewer's "allow this exact YOU
 * command again, for this long". A grant matches a later command only
 * when every part of its identity is equal text: requester uid, agent
 * label, argv, env and risk badges in canonical JSON, the executable's
 * path and SHA-256, cwd, output policy and timeout. Making, using and revoking one are
 * events of the audit chain; they name the grant (and the gate) in their
 * detail, not as the event's gate, so a gate's newest event stays its
 * state (chain.c's cross-check).
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-int.h"

/* A grant's identity in canonical JSON text, owned by the caller. */
struct grant_text {
	char	*argv;
	char	*env;
	char	*badges;
};

static int
grant_text(const struct grant_record *g, struct grant_text *t)
{
	t->argv = canon_dump(g->argv, NULL);
	t->env = canon_dump(g->env, NULL);
	t->badges = canon_dump(g->badges, NULL);
	if (t->argv == NULL || t->env == NULL || t->badges == NULL) {
		free(t->argv);
		free(t->env);
		free(t->badges);
		warnx("grants: cannot encode the command");
		return -1;
	}
	return 0;
}

static void
grant_text_free(struct grant_text *t)
{
	free(t->argv);
	free(t->env);
	free(t->badges);
}

/* Binds ?1..?10 of a statement that names a grant's identity; no
 * timeout is NULL. */
static int
bind_identity(sqlite3_stmt *s, const struct grant_record *g, const struct grant_text *t)
{
	return (sqlite3_bind_int64(s, 1, (sqlite3_int64)g->requester_uid) |
	    sqlite3_bind_text(s, 2, g->agent, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 3, t->argv, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 4, g->path, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 5, g->executable_sha256, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 6, g->cwd, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 7, t->env, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 8, g->output_to_agent, -1, SQLITE_STATIC) |
	    (g->timeout_seconds > 0 ? sqlite3_bind_int64(s, 9, g->timeout_seconds) :
	    sqlite3_bind_null(s, 9)) |
	    sqlite3_bind_text(s, 10, t->badges, -1, SQLITE_STATIC)) == SQLITE_OK ? 0 : -1;
}

static long
live_count(struct store *st, uid_t uid, int64_t now)
{
	static const char sql[] = "SELECT count(*) FROM grants WHERE requester_uid = ?"
	    " AND revoked_at IS NULL AND expires_at > ?";
	sqlite3_stmt *s;
	long n = -1;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "counting grants");
		return -1;
	}
	if ((sqlite3_bind_int64(s, 1, (sqlite3_int64)uid) | sqlite3_bind_int64(s, 2, now)) ==
	    SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(s, 0);
	else
		store_fail(st, "counting grants");
	sqlite3_finalize(s);
	return n;
}

/* The live grants of uid, or -1. */
long
grants_live_count(struct store *st, uid_t uid)
{
	return live_count(st, uid, now_seconds());
}

static int
grant_insert(struct store *st, const struct grant_record *g, const char *id, int64_t now)
{
	static const char ins[] = "INSERT INTO grants (requester_uid, agent, argv, path,"
	    " executable_sha256, cwd, env, output_to_agent, timeout_seconds, badges, id,"
	    " gate_id, command_id, created_at, expires_at)"
	    " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)";
	struct grant_text t;
	sqlite3_stmt *s;
	json_t *d;
	int rc;

	if (grant_text(g, &t) != 0)
		return -1;
	if (sqlite3_prepare_v2(st->db, ins, -1, &s, NULL) != SQLITE_OK) {
		grant_text_free(&t);
		return store_fail(st, "storing a grant");
	}
	if (bind_identity(s, g, &t) != 0 ||
	    (sqlite3_bind_text(s, 11, id, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 12, g->gate_id, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 13, g->command_id, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 14, now) |
	    sqlite3_bind_int64(s, 15, g->expires)) != SQLITE_OK) {
		store_fail(st, "storing a grant");
		sqlite3_finalize(s);
		grant_text_free(&t);
		return -1;
	}
	rc = step_done(st, s, "storing a grant");
	grant_text_free(&t);
	if (rc != 0)
		return -1;
	d = json_pack("{s:s,s:s,s:s,s:I,s:s?,s:O,s:s,s:s,s:s,s:O,s:s,s:o,s:O,s:I}",
	    "grant", id, "gate", g->gate_id, "command", g->command_id,
	    "requester_uid", (json_int_t)g->requester_uid, "agent", g->agent,
	    "argv", g->argv, "path", g->path, "executable_sha256", g->executable_sha256,
	    "cwd", g->cwd, "env", g->env, "output_to_agent", g->output_to_agent,
	    "timeout_seconds", g->timeout_seconds > 0 ?
	    json_integer((json_int_t)g->timeout_seconds) : json_null(),
	    "badges", g->badges, "expires_at", (json_int_t)g->expires);
	rc = d != NULL ? audit_append(st, NULL, "grant", d, now) : -1;
	json_decref(d);
	return rc;
}

/*
 * Store n grants in one transaction, all or none, each with a fresh id
 * (in ids). Returns 0, GRANT_QUOTA_FULL when a requester would hold more
 * than GRANT_QUOTA live grants (nothing stored), or -1.
 */
int
grants_add(struct store *st, const struct grant_record *g, size_t n,
    char (*ids)[GRANT_ID_LEN + 1])
{
	int64_t now = now_seconds();
	size_t i, k, mine;
	long live;

	if (store_begin(st) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		for (k = mine = 0; k < n; k++)
			mine += g[k].requester_uid == g[i].requester_uid;
		if ((live = live_count(st, g[i].requester_uid, now)) < 0)
			goto fail;
		if ((size_t)live + mine > GRANT_QUOTA) {
			store_rollback(st);
			return GRANT_QUOTA_FULL;
		}
	}
	for (i = 0; i < n; i++)
		if (grant_id_new(ids[i]) != 0 || grant_insert(st, &g[i], ids[i], now) != 0)
			goto fail;
	if (store_commit(st) != 0)
		goto fail;
	return 0;
fail:
	store_rollback(st);
	return -1;
}

/*
 * The newest live grant whose identity is g's, in id: 0 found, 1 none,
 * -1 on errors.
 */
int
grant_match(struct store *st, const struct grant_record *g, char id[GRANT_ID_LEN + 1])
{
	static const char sql[] = "SELECT id FROM grants WHERE requester_uid = ?1"
	    " AND agent IS ?2 AND argv = ?3 AND path = ?4 AND executable_sha256 = ?5"
	    " AND cwd = ?6 AND env = ?7 AND output_to_agent = ?8"
	    " AND timeout_seconds IS ?9 AND badges = ?10"
	    " AND revoked_at IS NULL AND expires_at > ?11"
	    " ORDER BY created_at DESC, rowid DESC LIMIT 1";
	struct grant_text t;
	sqlite3_stmt *s;
	int rc;

	if (g->executable_sha256 == NULL || grant_text(g, &t) != 0)
		return g->executable_sha256 == NULL ? 1 : -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		grant_text_free(&t);
		return store_fail(st, "reading grants");
	}
	rc = bind_identity(s, g, &t) == 0 && sqlite3_bind_int64(s, 11, now_seconds()) ==
	    SQLITE_OK ? sqlite3_step(s) : SQLITE_ERROR;
	if (rc == SQLITE_ROW)
		snprintf(id, GRANT_ID_LEN + 1, "%s", (const char *)sqlite3_column_text(s, 0));
	else if (rc != SQLITE_DONE)
		store_fail(st, "reading grants");
	sqlite3_finalize(s);
	grant_text_free(&t);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}

/* Every live grant, newest first, as JSON objects; NULL on errors. */
json_t *
grants_live(struct store *st)
{
	static const char sql[] = "SELECT id, requester_uid, agent, argv, path,"
	    " executable_sha256, cwd, env, output_to_agent, gate_id, command_id,"
	    " created_at, expires_at, timeout_seconds, badges FROM grants"
	    " WHERE revoked_at IS NULL AND expires_at > ?"
	    " ORDER BY created_at DESC, rowid DESC";
	json_t *list = json_array();
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 1, now_seconds()) != SQLITE_OK) {
		store_fail(st, "reading grants");
		sqlite3_finalize(s);
		json_decref(list);
		return NULL;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(list, json_pack("{s:o,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,"
		    "s:o,s:o,s:I,s:I,s:o,s:o}",
		    "id", column_string(s, 0),
		    "requester_uid", (json_int_t)sqlite3_column_int64(s, 1),
		    "agent", column_string(s, 2), "argv", column_json(s, 3),
		    "path", column_string(s, 4), "executable_sha256", column_string(s, 5),
		    "cwd", column_string(s, 6), "env", column_json(s, 7),
		    "output_to_agent", column_string(s, 8), "gate_id", column_string(s, 9),
		    "command_id", column_string(s, 10),
		    "created_at", (json_int_t)sqlite3_column_int64(s, 11),
		    "expires_at", (json_int_t)sqlite3_column_int64(s, 12),
		    "timeout_seconds", sqlite3_column_type(s, 13) == SQLITE_INTEGER ?
		    json_integer(sqlite3_column_int64(s, 13)) : json_null(),
		    "badges", column_json(s, 14)));
	if (rc != SQLITE_DONE) {
		store_fail(st, "reading grants");
		json_decref(list);
		list = NULL;
	}
	sqlite3_finalize(s);
	return list;
}

/*
 * Revoke the live grant id, or every live grant (id NULL), each with a
 * "grant_revoked" event. Returns how many were revoked (0: none live by
 * that id), or -1.
 */
long
grants_revoke(struct store *st, const char *id)
{
	/* RETURNING's rows are all made by the first step (SQLite 3.35) */
	static const char upd[] = "UPDATE grants SET revoked_at = ?1 WHERE revoked_at IS NULL"
	    " AND expires_at > ?1 AND (?2 IS NULL OR id = ?2) RETURNING id";
	int64_t now = now_seconds();
	sqlite3_stmt *s;
	json_t *d;
	long n = 0;
	int rc;

	if (store_begin(st) != 0)
		return -1;
	if (sqlite3_prepare_v2(st->db, upd, -1, &s, NULL) != SQLITE_OK ||
	    (sqlite3_bind_int64(s, 1, now) |
	    sqlite3_bind_text(s, 2, id, -1, SQLITE_STATIC)) != SQLITE_OK) {
		store_fail(st, "revoking grants");
		sqlite3_finalize(s);
		store_rollback(st);
		return -1;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		d = json_pack("{s:s,s:I}", "grant", (const char *)sqlite3_column_text(s, 0),
		    "by_uid", (json_int_t)getuid());
		if (d == NULL || audit_append(st, NULL, "grant_revoked", d, now) != 0)
			rc = SQLITE_ERROR;
		json_decref(d);
		if (rc != SQLITE_ROW)
			break;
		n++;
	}
	if (rc != SQLITE_DONE)
		store_fail(st, "revoking grants");
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE || store_commit(st) != 0) {
		store_rollback(st);
		return -1;
	}
	return n;
}

/* In gate_settle's transaction: a "grant_used" event for every ledger
 * entry that ran by a grant (its "granted_by"). */
int
grants_used(struct store *st, const char *gate, const json_t *ledger, int64_t now)
{
	const char *grant;
	json_t *e, *d;
	size_t i;
	int rc;

	json_array_foreach(json_object_get(ledger, "entries"), i, e) {
		if ((grant = json_string_value(json_object_get(e, "granted_by"))) == NULL)
			continue;
		d = json_pack("{s:s,s:s,s:O}", "grant", grant, "gate", gate,
		    "command", json_object_get(e, "id"));
		rc = d != NULL ? audit_append(st, NULL, "grant_used", d, now) : -1;
		json_decref(d);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/*
 * What uid's runs by grants of the last GRANT_STORED_WINDOW seconds keep
 * in the reviewer's state: each one's ledger, and each granted command's
 * output log as kept (at most GRANT_LOG_MAX bytes of what it printed).
 * Such a run settles its gate approved at once, so its gate's creation
 * dates it. Bytes, or -1.
 */
long long
grants_stored(struct store *st, uid_t uid)
{
	static const char sql[] = "SELECT COALESCE(sum(length(CAST(l.ledger AS BLOB)) +"
	    " (SELECT COALESCE(sum(min(json_extract(e.value, '$.output_bytes'), ?3)), 0)"
	    " FROM json_each(l.ledger, '$.entries') e"
	    " WHERE json_extract(e.value, '$.granted_by') IS NOT NULL)), 0)"
	    " FROM gates g JOIN ledgers l ON l.gate_id = g.id"
	    " WHERE g.requester_uid = ?1 AND g.state = 'approved' AND g.created_at > ?2"
	    " AND json_valid(l.ledger) AND EXISTS (SELECT 1 FROM"
	    " json_each(l.ledger, '$.entries') e"
	    " WHERE json_extract(e.value, '$.granted_by') IS NOT NULL)";
	sqlite3_stmt *s;
	long long n = -1;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "measuring what granted runs stored");
	if ((sqlite3_bind_int64(s, 1, (sqlite3_int64)uid) |
	    sqlite3_bind_int64(s, 2, now_seconds() - GRANT_STORED_WINDOW) |
	    sqlite3_bind_int64(s, 3, GRANT_LOG_MAX)) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	else
		store_fail(st, "measuring what granted runs stored");
	sqlite3_finalize(s);
	return n;
}
