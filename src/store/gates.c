/* SPDX-License-Identifier: ISC */
/*
 * Gates in the store: a new pending gate with its commands, expiry,
 * lookup by id prefix, the reviewer's and the agent's views, and the
 * settling transitions (approved with a ledger, denied). Each transition
 * is one transaction; its requests.jsonl line is written after COMMIT.
 */
#include <err.h>
#include <string.h>

#include "store-int.h"
#include "approve/approve.h"	/* ledger_filter */

static int
bind_json(sqlite3_stmt *s, int i, const json_t *j)
{
	char *txt = canon_dump(j, NULL);

	if (txt == NULL)
		return SQLITE_ERROR;
	return sqlite3_bind_text(s, i, txt, -1, free);
}

static int
insert_command(struct store *st, const char *id, size_t idx, const struct command_record *c)
{
	static const char sql[] = "INSERT INTO commands (gate_id, idx, id, as_user, argv,"
	    " command, given_path, path, executable_sha256, why, cwd, timeout_seconds, badges)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "storing a command");
	if ((sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 2, (sqlite3_int64)idx) |
	    sqlite3_bind_text(s, 3, c->id, -1, SQLITE_STATIC) |
	    sqlite3_bind_int(s, 4, c->as_user) |
	    bind_json(s, 5, c->argv) |
	    sqlite3_bind_text(s, 6, c->command, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 7, c->given_path, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 8, c->path, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 9, c->executable_sha256, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 10, c->why, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 11, c->cwd, -1, SQLITE_STATIC) |
	    (c->timeout > 0 ? sqlite3_bind_int64(s, 12, c->timeout) : SQLITE_OK) |
	    bind_json(s, 13, c->badges)) != SQLITE_OK) {
		store_fail(st, "storing a command");
		sqlite3_finalize(s);
		return -1;
	}
	return step_done(st, s, "storing a command");
}

static int
insert_gate(struct store *st, const struct gate_record *g)
{
	static const char sql[] = "INSERT INTO gates (id, state, created_at, expires_at,"
	    " requester, requester_uid, agent, project, host, machine, reason, run_as, cwd,"
	    " env, stop_on_failure, output_to_agent, next_prompt, risk_badges, root_count,"
	    " user_count, manifest, manifest_sha256, requester_pid, requester_start)"
	    " VALUES (?,'pending',?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	sqlite3_stmt *s;
	json_t *d;
	size_t i;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "storing the gate");
	if ((sqlite3_bind_text(s, 1, g->id, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 2, g->created) |
	    sqlite3_bind_int64(s, 3, g->expires) |
	    sqlite3_bind_text(s, 4, g->requester, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 5, g->requester_uid) |
	    sqlite3_bind_text(s, 6, g->agent, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 7, g->project, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 8, g->host, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 9, g->machine, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 10, g->reason, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 11, g->run_as, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 12, g->cwd, -1, SQLITE_STATIC) |
	    bind_json(s, 13, g->env) |
	    sqlite3_bind_int(s, 14, g->stop_on_failure != 0) |
	    sqlite3_bind_text(s, 15, g->output_to_agent, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 16, g->next_prompt, -1, SQLITE_STATIC) |
	    bind_json(s, 17, g->risk_badges) |
	    sqlite3_bind_int(s, 18, g->root_count) |
	    sqlite3_bind_int(s, 19, g->user_count) |
	    sqlite3_bind_text(s, 20, g->manifest_bytes, -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 21, g->manifest_sha256, -1, SQLITE_STATIC) |
	    (g->requester_pid > 0 ? sqlite3_bind_int64(s, 22, g->requester_pid) : SQLITE_OK) |
	    (g->requester_pid > 0 && g->requester_start >= 0 ?
	    sqlite3_bind_int64(s, 23, g->requester_start) : SQLITE_OK)) != SQLITE_OK) {
		store_fail(st, "storing the gate");
		sqlite3_finalize(s);
		return -1;
	}
	if (step_done(st, s, "storing the gate") != 0)
		return -1;
	for (i = 0; i < g->ncommands; i++)
		if (insert_command(st, g->id, i, &g->commands[i]) != 0)
			return -1;
	if (request_key_insert(st, g) != 0)
		return -1;
	d = json_pack("{s:s,s:s,s:I,s:I}", "manifest_sha256", g->manifest_sha256,
	    "requester", g->requester, "requester_uid", (json_int_t)g->requester_uid,
	    "commands", (json_int_t)g->ncommands);
	rc = d != NULL ? audit_append(st, g->id, "request", d, g->created) : -1;
	json_decref(d);
	return rc;
}

/*
 * Store a new pending gate with its commands and its `request` event in
 * one transaction (after this returns 0 the gate is durable), then add
 * the request to requests.jsonl. The manifest bytes must hash to the
 * seal given with them. Returns 0, or -1 after saying why.
 */
int
gate_insert(struct store *st, const struct gate_record *g)
{
	char sha[SHA256_HEX_LEN + 1];
	json_t *line;

	sha256_bytes(g->manifest_bytes, strlen(g->manifest_bytes), sha);
	if (!digest_equal(sha, g->manifest_sha256)) {
		warnx("store %s: gate %s: the manifest does not match its seal", st->path, g->id);
		return -1;
	}
	if (store_begin(st) != 0)
		return -1;
	if (insert_gate(st, g) != 0 || store_commit(st) != 0) {
		store_rollback(st);
		return -1;
	}
	/* after the commit: requests.jsonl is the user's copy, not the truth */
	line = json_pack("{s:s,s:I,s:s,s:s,s:s?,s:s?,s:O}", "event", "request",
	    "at", (json_int_t)g->created, "request_id", g->id,
	    "manifest_sha256", g->manifest_sha256, "agent", g->agent,
	    "project", g->project, "manifest", g->manifest);
	if (line != NULL)
		state_append_jsonl(st->dir, line);
	json_decref(line);
	return 0;
}

/*
 * Settle every pending gate whose review window has passed as expired,
 * with an audit event each. Called before every read, so expiry needs no
 * daemon. A cheap read first keeps the common case free of write locks.
 */
int
store_expire(struct store *st)
{
	/* a gate whose approval is being executed is not expired under it */
	static const char probe[] = "SELECT 1 FROM gates WHERE state = 'pending'"
	    " AND expires_at <= ?1 AND NOT EXISTS (SELECT 1 FROM attempts"
	    " WHERE gate_id = gates.id AND " ATTEMPT_OPEN_SQL ") LIMIT 1";
	static const char pick[] = "SELECT id FROM gates WHERE state = 'pending'"
	    " AND expires_at <= ?1 AND NOT EXISTS (SELECT 1 FROM attempts"
	    " WHERE gate_id = gates.id AND " ATTEMPT_OPEN_SQL ")";
	static const char upd[] = "UPDATE gates SET state = 'expired', settled_at = ?"
	    " WHERE id = ? AND state = 'pending'";
	sqlite3_stmt *s = NULL, *u = NULL;
	int64_t now = now_seconds();
	int rc;

	if (sqlite3_prepare_v2(st->db, probe, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "checking expiry");
	rc = sqlite3_bind_int64(s, 1, now) == SQLITE_OK ? sqlite3_step(s) : SQLITE_ERROR;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		store_fail(st, "checking expiry");
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : -1;
	if (store_begin(st) != 0)
		return -1;
	if (sqlite3_prepare_v2(st->db, pick, -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, upd, -1, &u, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 1, now) != SQLITE_OK)
		goto sqlfail;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(s, 0);

		if (sqlite3_reset(u) != SQLITE_OK ||
		    (sqlite3_bind_int64(u, 1, now) |
		    sqlite3_bind_text(u, 2, id, -1, SQLITE_TRANSIENT)) != SQLITE_OK ||
		    sqlite3_step(u) != SQLITE_DONE)
			goto sqlfail;
		/* audit_append says why itself */
		if (audit_append(st, id, "expired", NULL, now) != 0)
			goto fail;
	}
	if (rc != SQLITE_DONE)
		goto sqlfail;
	sqlite3_finalize(s);
	sqlite3_finalize(u);
	if (store_commit(st) != 0) {
		store_rollback(st);
		return -1;
	}
	return 0;
sqlfail:
	store_fail(st, "expiring gates");
fail:
	sqlite3_finalize(s);
	sqlite3_finalize(u);
	store_rollback(st);
	return -1;
}

/*
 * Resolve a user-given id or unique prefix among the gates of uid (or of
 * anyone: ANY_REQUESTER). Returns 0 with the full id, 1 when nothing
 * matches, 2 when the prefix is ambiguous or malformed, -1 on store
 * errors.
 */
int
store_resolve(struct store *st, const char *arg, int64_t uid, char id[GATE_ID_LEN + 1])
{
	static const char sql[] = "SELECT id FROM gates WHERE id >= ?1"
	    " AND id < ?1 || '~' AND (?2 < 0 OR requester_uid = ?2) ORDER BY id LIMIT 2";
	char prefix[GATE_ID_LEN + 1];
	sqlite3_stmt *s;
	int rc, n = 0;

	if ((rc = gate_id_prefix(arg, prefix, sizeof prefix)) != 0)
		return rc > 0 ? 1 : 2;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "finding the gate");
	rc = sqlite3_bind_text(s, 1, prefix, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 2, uid);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (n++ == 0)
			snprintf(id, GATE_ID_LEN + 1, "%s", (const char *)sqlite3_column_text(s, 0));
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE)
		store_fail(st, "finding the gate");
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return -1;
	return n == 0 ? 1 : n == 1 ? 0 : 2;
}

json_t *
column_json(sqlite3_stmt *s, int i)
{
	const char *txt = (const char *)sqlite3_column_text(s, i);

	if (txt == NULL)
		return json_null();
	return json_loads(txt, JSON_DECODE_ANY, NULL);
}

json_t *
column_string(sqlite3_stmt *s, int i)
{
	const char *txt = (const char *)sqlite3_column_text(s, i);

	return txt != NULL ? json_string(txt) : json_null();
}

static json_t *
column_int(sqlite3_stmt *s, int i)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? json_null() :
	    json_integer(sqlite3_column_int64(s, i));
}

#define GATE_COLUMNS "id, state, created_at, expires_at, settled_at, requester," \
	" requester_uid, agent, project, host, machine, reason, run_as, cwd, env," \
	" stop_on_failure, output_to_agent, next_prompt, risk_badges, root_count," \
	" user_count, manifest_sha256, feedback, requester_pid, requester_start, manifest"

static json_t *
gate_row(sqlite3_stmt *s, int with_manifest)
{
	static const char *const names[] = {
		"request_id", "state", "created_at", "expires_at", "settled_at",
		"requester", "requester_uid", "agent", "project", "host", "machine",
		"reason", "run_as", "cwd", "env", "stop_on_failure", "output_to_agent",
		"next_prompt", "risk_badges", "root_count", "user_count",
		"manifest_sha256", "feedback", "requester_pid", "requester_start",
	};
	json_t *g = json_object();
	int i;

	for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
		json_t *v;

		if (i == 14 || i == 18)
			v = column_json(s, i);
		else if (i == 15)
			v = json_boolean(sqlite3_column_int(s, i));
		else if (sqlite3_column_type(s, i) == SQLITE_INTEGER)
			v = column_int(s, i);
		else
			v = column_string(s, i);
		json_object_set_new(g, names[i], v != NULL ? v : json_null());
	}
	if (with_manifest)
		json_object_set_new(g, "manifest", column_json(s, 25));
	return g;
}

/*
 * The commands as the reviewer sees them: what runs comes from the sealed
 * manifest (so a row edited in the commands table cannot change what is
 * shown); the commands table adds only how it was asked for (the given
 * path, a YOU shell string) and the risk badges.
 */
static json_t *
gate_commands(struct store *st, const char *id, const json_t *manifest)
{
	static const char sql[] = "SELECT given_path, command, badges FROM commands"
	    " WHERE gate_id = ? ORDER BY idx";
	json_t *cmds = json_deep_copy(json_object_get(manifest, "commands")), *c;
	sqlite3_stmt *s;
	size_t i = 0;
	int rc;

	if (!json_is_array(cmds)) {
		json_decref(cmds);
		warnx("store %s: gate %s has no sealed commands", st->path, id);
		return NULL;
	}
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "reading commands");
		json_decref(cmds);
		return NULL;
	}
	rc = sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC) == SQLITE_OK ?
	    sqlite3_step(s) : SQLITE_ERROR;
	for (; rc == SQLITE_ROW && (c = json_array_get(cmds, i++)) != NULL;
	    rc = sqlite3_step(s)) {
		json_object_set_new(c, "given_path", column_string(s, 0));
		json_object_set_new(c, "command", column_string(s, 1));
		json_object_set_new(c, "badges", column_json(s, 2));
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		store_fail(st, "reading commands");
		json_decref(cmds);
		cmds = NULL;
	}
	sqlite3_finalize(s);
	return cmds;
}

/* One gate with its commands (and its sealed manifest when asked), or
 * NULL: after a message on errors, silently when there is no such gate. */
json_t *
store_gate(struct store *st, const char *id, int with_manifest)
{
	static const char sql[] = "SELECT " GATE_COLUMNS " FROM gates WHERE id = ?";
	json_t *g = NULL, *cmds;
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "reading the gate");
		return NULL;
	}
	rc = sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC) == SQLITE_OK ?
	    sqlite3_step(s) : SQLITE_ERROR;
	if (rc == SQLITE_ROW) {
		g = gate_row(s, 1);
		cmds = gate_commands(st, id, json_object_get(g, "manifest"));
		if (cmds == NULL) {
			json_decref(g);
			g = NULL;
		} else
			json_object_set_new(g, "commands", cmds);
	} else if (rc != SQLITE_DONE)
		store_fail(st, "reading the gate");
	sqlite3_finalize(s);
	/* the reviewed files, as sealed (none in a manifest older than them) */
	if (g != NULL) {
		json_t *files = json_object_get(json_object_get(g, "manifest"), "files");

		json_object_set_new(g, "files", json_is_object(files) ? json_incref(files) :
		    json_object());
	}
	if (g != NULL && !with_manifest)
		json_object_del(g, "manifest");
	return g;
}

/* A list's columns: GATE_COLUMNS but the manifest, which no list shows
 * (reading it would cost more than all the rest). */
#define LIST_COLUMNS "id, state, created_at, expires_at, settled_at, requester," \
	" requester_uid, agent, project, host, machine, reason, run_as, cwd, env," \
	" stop_on_failure, output_to_agent, next_prompt, risk_badges, root_count," \
	" user_count, manifest_sha256, feedback, requester_pid, requester_start"

/*
 * Gates, pending first then newest first; settled ones only with all;
 * of one project and of one requester uid when they are given (the
 * statement, bound: store_list_prepare; listjson.c writes its rows). Each is
 * handed to fn as it is read (one statement, nothing held but the row);
 * fn takes the reference, and a nonzero return stops the walk. Returns 0,
 * -1 on errors (a store error is said; fn's return is passed on).
 */
sqlite3_stmt *
store_list_prepare(struct store *st, int all, long limit, const char *project, int64_t uid)
{
	static const char pending_sql[] = "SELECT " LIST_COLUMNS " FROM gates"
	    " WHERE state = 'pending' AND (?1 IS NULL OR project = ?1)"
	    " AND (?3 < 0 OR requester_uid = ?3)"
	    " ORDER BY created_at DESC, rowid DESC LIMIT ?2";
	static const char all_sql[] = "SELECT " LIST_COLUMNS " FROM gates"
	    " WHERE (?1 IS NULL OR project = ?1) AND (?3 < 0 OR requester_uid = ?3)"
	    " ORDER BY state = 'pending' DESC, created_at DESC, rowid DESC LIMIT ?2";
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(st->db, all ? all_sql : pending_sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "listing gates");
		return NULL;
	}
	if ((sqlite3_bind_text(s, 1, project, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 2, limit) | sqlite3_bind_int64(s, 3, uid)) != SQLITE_OK) {
		store_fail(st, "listing gates");
		sqlite3_finalize(s);
		return NULL;
	}
	return s;
}

int
store_list_each(struct store *st, int all, long limit, const char *project, int64_t uid,
    int (*fn)(json_t *, void *), void *arg)
{
	sqlite3_stmt *s;
	int rc, stop = 0;

	if ((s = store_list_prepare(st, all, limit, project, uid)) == NULL)
		return -1;
	for (rc = sqlite3_step(s); rc == SQLITE_ROW && stop == 0; rc = sqlite3_step(s))
		stop = fn(gate_row(s, 0), arg);
	sqlite3_finalize(s);
	if (stop != 0)
		return stop;
	if (rc != SQLITE_DONE)
		return store_fail(st, "listing gates");
	return 0;
}

static int
append(json_t *g, void *list)
{
	return json_array_append_new(list, g);
}

/* store_list_each's gates as one array; NULL on errors. */
json_t *
store_list(struct store *st, int all, long limit, const char *project, int64_t uid)
{
	json_t *list = json_array();

	if (store_list_each(st, all, limit, project, uid, append, list) != 0) {
		json_decref(list);
		return NULL;
	}
	return list;
}

/*
 * The review console's order, with no cap: pending gates by expiry (the
 * first to lapse first, then the oldest), then, with all, the settled
 * ones newest first; of one project when it is given.
 */
#define REVIEW_WHERE " FROM gates WHERE (?1 IS NULL OR project = ?1)" \
	" AND (?2 OR state = 'pending')" \
	" ORDER BY state = 'pending' DESC," \
	" CASE WHEN state = 'pending' THEN expires_at ELSE -created_at END, created_at, rowid"

static sqlite3_stmt *
review_prepare(struct store *st, const char *sql, int all, const char *project)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "listing gates");
		return NULL;
	}
	if ((sqlite3_bind_text(s, 1, project, -1, SQLITE_STATIC) |
	    sqlite3_bind_int(s, 2, all != 0)) != SQLITE_OK) {
		store_fail(st, "listing gates");
		sqlite3_finalize(s);
		return NULL;
	}
	return s;
}

/* Each gate's id and whether it is pending, in the console's order, to
 * fn (cheap: no row is built). 0, or -1 after saying why. */
int
store_review_ids(struct store *st, int all, const char *project,
    void (*fn)(const char *, int, void *), void *arg)
{
	sqlite3_stmt *s = review_prepare(st, "SELECT id, state = 'pending'" REVIEW_WHERE,
	    all, project);
	int rc;

	if (s == NULL)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		fn((const char *)sqlite3_column_text(s, 0), sqlite3_column_int(s, 1), arg);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : store_fail(st, "listing gates");
}

/* The gates at [offset, offset + limit) of the console's order, as
 * store_list's rows; NULL on errors. */
json_t *
store_review_page(struct store *st, int all, const char *project, long offset, long limit)
{
	sqlite3_stmt *s = review_prepare(st, "SELECT " LIST_COLUMNS REVIEW_WHERE
	    " LIMIT ?3 OFFSET ?4", all, project);
	json_t *list;
	int rc;

	if (s == NULL)
		return NULL;
	if ((sqlite3_bind_int64(s, 3, limit) | sqlite3_bind_int64(s, 4, offset)) != SQLITE_OK) {
		sqlite3_finalize(s);
		store_fail(st, "listing gates");
		return NULL;
	}
	list = json_array();
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(list, gate_row(s, 0));
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		json_decref(list);
		store_fail(st, "listing gates");
		return NULL;
	}
	return list;
}

/* What changes whenever the store's content may have: v[0] on a commit
 * by another connection (PRAGMA data_version), v[1] on one by this
 * connection. 0, or -1 (then read the store anyway). */
int
store_version(struct store *st, int64_t v[2])
{
	sqlite3_stmt *s;
	int rc = -1;

	if (sqlite3_prepare_v2(st->db, "PRAGMA data_version", -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW) {
		v[0] = sqlite3_column_int64(s, 0);
		v[1] = sqlite3_total_changes64(st->db);
		rc = 0;
	}
	sqlite3_finalize(s);
	return rc;
}

/* How many gates of uid (or of anyone) are pending; -1 on errors. */
long
store_count_pending(struct store *st, int64_t uid)
{
	static const char sql[] = "SELECT count(*) FROM gates WHERE state = 'pending'"
	    " AND (?1 < 0 OR requester_uid = ?1)";
	sqlite3_stmt *s;
	long n = -1;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "counting pending gates");
	if (sqlite3_bind_int64(s, 1, uid) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(s, 0);
	else
		store_fail(st, "counting pending gates");
	sqlite3_finalize(s);
	return n;
}

/*
 * Settle gate as approved with its ledger, produced by attempt: the gate
 * must still be pending and the attempt one of its unsettled ones, both
 * checked in the same transaction that stores the ledger, settles the
 * attempt with the ledger's outcome and appends the `approved` event.
 * Then the decision goes to requests.jsonl. Returns 0, 1 when someone
 * else settled the gate or the attempt first (nothing is changed), -1 on
 * errors.
 */
int
gate_settle(struct store *st, const char *gate, int64_t attempt, const json_t *ledger)
{
	static const char upd[] = "UPDATE gates SET state = 'approved', settled_at = ?1"
	    " WHERE id = ?2 AND state = 'pending' AND EXISTS (SELECT 1 FROM attempts"
	    " WHERE id = ?3 AND gate_id = gates.id AND " ATTEMPT_OPEN_SQL ")";
	static const char ins[] = "INSERT INTO ledgers (gate_id, attempt_id, ledger, created_at)"
	    " VALUES (?, ?, ?, ?)";
	static const char done[] = "UPDATE attempts SET state = ?, outcome = ?,"
	    " updated_at = ? WHERE id = ?";
	const char *outcome = json_string_value(json_object_get(ledger, "outcome"));
	char sha[SHA256_HEX_LEN + 1], *text;
	int64_t now = now_seconds();
	sqlite3_stmt *s = NULL;
	json_t *d;
	int rc;

	if ((text = canon_dump(ledger, NULL)) == NULL) {
		warnx("store %s: gate %s: cannot encode the ledger", st->path, gate);
		return -1;
	}
	sha256_bytes(text, strlen(text), sha);
	if (store_begin(st) != 0) {
		free(text);
		return -1;
	}
	if (sqlite3_prepare_v2(st->db, upd, -1, &s, NULL) != SQLITE_OK ||
	    (sqlite3_bind_int64(s, 1, now) |
	    sqlite3_bind_text(s, 2, gate, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 3, attempt)) != SQLITE_OK)
		goto sqlfail;
	if (step_done(st, s, "settling the gate") != 0)
		goto fail;
	if (sqlite3_changes(st->db) == 0) {
		store_rollback(st);
		free(text);
		return 1;
	}
	if (sqlite3_prepare_v2(st->db, ins, -1, &s, NULL) != SQLITE_OK ||
	    (sqlite3_bind_text(s, 1, gate, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 2, attempt) |
	    sqlite3_bind_text(s, 3, text, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 4, now)) != SQLITE_OK)
		goto sqlfail;
	if (step_done(st, s, "storing the ledger") != 0)
		goto fail;
	if (sqlite3_prepare_v2(st->db, done, -1, &s, NULL) != SQLITE_OK ||
	    (sqlite3_bind_text(s, 1, attempt_state_name(ATTEMPT_SETTLED), -1, SQLITE_STATIC) |
	    sqlite3_bind_text(s, 2, outcome, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 3, now) |
	    sqlite3_bind_int64(s, 4, attempt)) != SQLITE_OK)
		goto sqlfail;
	if (step_done(st, s, "closing the attempt") != 0)
		goto fail;
	if (grants_used(st, gate, ledger, now) != 0)
		goto fail;
	d = json_pack("{s:I,s:s,s:s?}", "attempt", (json_int_t)attempt,
	    "ledger_sha256", sha, "outcome", outcome);
	/* a batch the reviewer stopped: who, and when (stopfile.c) */
	if (d != NULL && json_object_get(ledger, "stopped") != NULL)
		json_object_set(d, "stopped", json_object_get(ledger, "stopped"));
	rc = d != NULL ? audit_append(st, gate, "approved", d, now) : -1;
	json_decref(d);
	if (rc != 0 || store_commit(st) != 0)
		goto fail;
	free(text);
	/* after the commit: requests.jsonl is the user's copy, not the truth */
	d = json_pack("{s:s,s:I,s:s,s:O}", "event", "approved", "at", (json_int_t)now,
	    "request_id", gate, "ledger", ledger);
	state_append_jsonl(st->dir, d);
	json_decref(d);
	return 0;
sqlfail:
	store_fail(st, "settling the gate");
	sqlite3_finalize(s);
fail:
	store_rollback(st);
	free(text);
	return -1;
}

/* Deny a pending gate; 1 if there is no such gate, it is not pending or
 * its approval is being executed (recovery settles a dead one first). */
int
gate_deny(struct store *st, const char *gate, const char *feedback)
{
	static const char sql[] = "UPDATE gates SET state = 'denied', feedback = ?, settled_at = ?"
	    " WHERE id = ? AND state = 'pending' AND NOT EXISTS (SELECT 1 FROM attempts"
	    " WHERE gate_id = gates.id AND " ATTEMPT_OPEN_SQL ")";
	int64_t now = now_seconds();
	sqlite3_stmt *s;
	json_t *d;
	int rc;

	if (store_begin(st) != 0)
		return -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "denying the gate");
		store_rollback(st);
		return -1;
	}
	if ((sqlite3_bind_text(s, 1, feedback, -1, SQLITE_STATIC) |
	    sqlite3_bind_int64(s, 2, now) |
	    sqlite3_bind_text(s, 3, gate, -1, SQLITE_STATIC)) != SQLITE_OK) {
		store_fail(st, "denying the gate");
		sqlite3_finalize(s);
		store_rollback(st);
		return -1;
	}
	d = json_pack("{s:s?}", "feedback", feedback);
	rc = transition_finish(st, s, "denying the gate", gate, "denied", d, now);
	json_decref(d);
	if (rc != 0)
		return rc;
	/* after the commit: requests.jsonl is the user's copy, not the truth */
	d = json_pack("{s:s,s:I,s:s,s:s?}", "event", "denied", "at", (json_int_t)now,
	    "request_id", gate, "feedback", feedback);
	state_append_jsonl(st->dir, d);
	json_decref(d);
	return 0;
}

/* The ledger of an approved gate, or NULL: after a message on errors,
 * silently when the gate has none. */
json_t *
gate_ledger(struct store *st, const char *gate)
{
	sqlite3_stmt *s;
	json_t *l = NULL;
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT ledger FROM ledgers WHERE gate_id = ?",
	    -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "reading the ledger");
		return NULL;
	}
	rc = sqlite3_bind_text(s, 1, gate, -1, SQLITE_STATIC) == SQLITE_OK ?
	    sqlite3_step(s) : SQLITE_ERROR;
	if (rc == SQLITE_ROW) {
		const char *txt = (const char *)sqlite3_column_text(s, 0);

		if (txt == NULL || (l = json_loads(txt, 0, NULL)) == NULL)
			warnx("store %s: gate %s: the stored ledger is not JSON", st->path, gate);
	} else if (rc != SQLITE_DONE)
		store_fail(st, "reading the ledger");
	sqlite3_finalize(s);
	return l;
}

/*
 * Which gate and command an I/O log session belongs to, from the stored
 * ledgers (an entry's "iolog"): {"00/00/01": {"request_id", "command_id"}}.
 * NULL after a message on errors.
 */
json_t *
store_iolog_sessions(struct store *st)
{
	sqlite3_stmt *s;
	json_t *map = json_object();
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT l.gate_id, json_extract(e.value, '$.id'),"
	    " json_extract(e.value, '$.iolog') FROM ledgers l, json_each(l.ledger, '$.entries') e"
	    " WHERE json_valid(l.ledger) AND json_extract(e.value, '$.iolog') IS NOT NULL",
	    -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "reading the ledgers");
		json_decref(map);
		return NULL;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *gate = (const char *)sqlite3_column_text(s, 0),
		    *cmd = (const char *)sqlite3_column_text(s, 1),
		    *io = (const char *)sqlite3_column_text(s, 2);

		if (gate != NULL && cmd != NULL && io != NULL)
			json_object_set_new(map, io, json_pack("{s:s,s:s}", "request_id", gate,
			    "command_id", cmd));
	}
	if (rc != SQLITE_DONE) {
		store_fail(st, "reading the ledgers");
		json_decref(map);
		map = NULL;
	}
	sqlite3_finalize(s);
	return map;
}

/*
 * What the agent is told about gate g (a store_gate object): its state,
 * the ledger filtered by output_to_agent, the denial feedback, and
 * next.prompt once approved.
 */
json_t *
gate_outcome(struct store *st, const json_t *g)
{
	const char *id = json_string_value(json_object_get(g, "request_id"));
	int approved = strcmp(json_string_value(json_object_get(g, "state")), "approved") == 0;
	json_t *ledger = approved ? gate_ledger(st, id) : NULL;

	if (ledger != NULL)
		ledger_filter(ledger, json_string_value(json_object_get(g, "output_to_agent")));
	return json_pack("{s:s,s:O,s:o,s:O,s:O,s:O,s:I}", "request_id", id,
	    "state", json_object_get(g, "state"),
	    "ledger", ledger != NULL ? ledger : json_null(),
	    "feedback", json_object_get(g, "feedback"),
	    "next_prompt", approved ? json_object_get(g, "next_prompt") : json_null(),
	    "output_to_agent", json_object_get(g, "output_to_agent"),
	    "gate_timeout_seconds",
	    (json_int_t)(json_integer_value(json_object_get(g, "expires_at")) -
	    json_integer_value(json_object_get(g, "created_at"))));
}

