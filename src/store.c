/*
 * The store (DESIGN §5): one SQLite database in the state directory, the
 * only source of truth for gates, commands, attempts, ledgers and the
 * audit chain. WAL with synchronous=FULL, so a returned commit survives a
 * crash; every transition in BEGIN IMMEDIATE with a busy timeout, so
 * concurrent requesters queue instead of seeing SQLITE_BUSY.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "warrant.h"

#define BUSY_TIMEOUT_MS	60000

static const char *const migrations[] = {
	/* 1: the first schema */
	"CREATE TABLE gates ("
	" id TEXT PRIMARY KEY,"
	" state TEXT NOT NULL CHECK (state IN ('pending','approved','denied','expired')),"
	" created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, settled_at INTEGER,"
	" requester TEXT NOT NULL, requester_uid INTEGER NOT NULL, agent TEXT, project TEXT,"
	" host TEXT NOT NULL, machine TEXT, reason TEXT NOT NULL, run_as TEXT NOT NULL,"
	" cwd TEXT NOT NULL, env TEXT NOT NULL, stop_on_failure INTEGER NOT NULL,"
	" output_to_agent TEXT NOT NULL, next_prompt TEXT, risk_badges TEXT NOT NULL,"
	" root_count INTEGER NOT NULL, user_count INTEGER NOT NULL,"
	" manifest TEXT NOT NULL, manifest_sha256 TEXT NOT NULL, feedback TEXT);"
	"CREATE INDEX gates_by_state ON gates (state, created_at);"
	"CREATE INDEX gates_by_expiry ON gates (state, expires_at);"
	"CREATE TABLE commands ("
	" gate_id TEXT NOT NULL REFERENCES gates (id), idx INTEGER NOT NULL,"
	" id TEXT NOT NULL, as_user INTEGER NOT NULL, argv TEXT NOT NULL, command TEXT,"
	" given_path TEXT NOT NULL, path TEXT NOT NULL, executable_sha256 TEXT NOT NULL,"
	" why TEXT NOT NULL, cwd TEXT NOT NULL, timeout_seconds INTEGER,"
	" badges TEXT NOT NULL, PRIMARY KEY (gate_id, idx)) WITHOUT ROWID;"
	"CREATE TABLE attempts ("
	" id INTEGER PRIMARY KEY, gate_id TEXT NOT NULL REFERENCES gates (id),"
	" state TEXT NOT NULL CHECK (state IN ('reserved','authenticating','running','settled')),"
	" pid INTEGER, pid_start INTEGER, selected TEXT, manifest_sha256 TEXT,"
	" started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);"
	"CREATE TABLE ledgers ("
	" gate_id TEXT PRIMARY KEY REFERENCES gates (id), attempt_id INTEGER,"
	" ledger TEXT NOT NULL, created_at INTEGER NOT NULL);"
	"CREATE TABLE events ("
	" seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, gate_id TEXT, kind TEXT NOT NULL,"
	" detail TEXT NOT NULL, prev_sha256 TEXT NOT NULL, sha256 TEXT NOT NULL);",
	/* 2: attempts remember where they run and how they ended */
	"ALTER TABLE attempts ADD COLUMN run_dir TEXT;"
	"ALTER TABLE attempts ADD COLUMN outcome TEXT;"
	"CREATE INDEX attempts_open ON attempts (state) WHERE state <> 'settled';",
	/* 3: verifying the chain looks up each gate's events */
	"CREATE INDEX events_by_gate ON events (gate_id, seq);",
};
#define SCHEMA_VERSION	((int)(sizeof migrations / sizeof migrations[0]))

/* Say which store failed and why; always returns -1. */
int
store_fail(struct store *st, const char *what)
{
	int code = st->db != NULL ? sqlite3_errcode(st->db) & 0xff : 0;
	int oserr = st->db != NULL ? sqlite3_system_errno(st->db) : 0;

	/*
	 * SQLite words a full disk met while growing the -shm file as a bare
	 * "disk I/O error"; for I/O-shaped failures the OS error names the
	 * real cause (e.g. "No space left on device"). Other errors leave
	 * the system errno stale, so it is not shown for them.
	 */
	if (oserr != 0 && (code == SQLITE_IOERR || code == SQLITE_FULL ||
	    code == SQLITE_CANTOPEN || code == SQLITE_READONLY))
		warnx_("store %s: %s: %s (%s)", st->path, what,
		    sqlite3_errmsg(st->db), strerror(oserr));
	else
		warnx_("store %s: %s: %s", st->path, what,
		    st->db != NULL ? sqlite3_errmsg(st->db) : "cannot open");
	return -1;
}

static int
exec_sql(struct store *st, const char *sql)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, sql);
	return 0;
}

/*
 * Switching a new database to WAL takes a lock that SQLite's busy handler
 * does not wait for; processes creating the store at the same moment
 * retry for a while instead of failing.
 */
static int
set_wal(struct store *st)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int i, rc;

	for (i = 0; i < 500; i++) {
		rc = sqlite3_exec(st->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) & 0xff;
		if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
			break;
		nanosleep(&pause, NULL);
	}
	return rc == SQLITE_OK ? 0 : store_fail(st, "switching to WAL");
}

int
store_begin(struct store *st)
{
	return exec_sql(st, "BEGIN IMMEDIATE");
}

int
store_commit(struct store *st)
{
	return exec_sql(st, "COMMIT");
}

void
store_rollback(struct store *st)
{
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

static int
user_version(struct store *st, int *v)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "reading the schema version");
	rc = sqlite3_step(s);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : store_fail(st, "reading the schema version");
}

static int
migrate(struct store *st)
{
	char sql[64];
	int v, i;

	if (user_version(st, &v) != 0)
		return -1;
	if (v == SCHEMA_VERSION)
		return 0;
	if (store_begin(st) != 0)
		return -1;
	if (user_version(st, &v) != 0)
		goto fail;
	if (v > SCHEMA_VERSION) {
		warnx_("store %s: schema version %d is newer than this warrant (%d)",
		    st->path, v, SCHEMA_VERSION);
		goto fail;
	}
	for (i = v; i < SCHEMA_VERSION; i++)
		if (exec_sql(st, migrations[i]) != 0)
			goto fail;
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", SCHEMA_VERSION);
	if (exec_sql(st, sql) != 0)
		goto fail;
	return store_commit(st);
fail:
	store_rollback(st);
	return -1;
}

/* The database file must be ours, a regular file, and closed to others. */
static int
check_file(struct store *st)
{
	struct stat sb;

	if (lstat(st->path, &sb) != 0) {
		warnx_("store %s: %s", st->path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_uid != geteuid() || (sb.st_mode & 077) != 0) {
		warnx_("store %s: must be a regular file owned by uid %u with mode 0600 "
		    "(found uid %u, mode %04o)", st->path, (unsigned)geteuid(),
		    (unsigned)sb.st_uid, (unsigned)(sb.st_mode & 07777));
		return -1;
	}
	return 0;
}

int
store_open_at(struct store *st, const char *dir)
{
	int dfd, fd;

	memset(st, 0, sizeof *st);
	if ((size_t)snprintf(st->dir, sizeof st->dir, "%s", dir) >= sizeof st->dir ||
	    (size_t)snprintf(st->path, sizeof st->path, "%s/warrant.db", dir) >= sizeof st->path) {
		warnx_("state directory path is too long");
		return -1;
	}
	if ((dfd = state_dir_open(dir)) < 0)
		return -1;
	close(dfd);
	/* Create the file 0600 ourselves, whatever the umask: SQLite gives
	 * its -wal and -shm files the database file's mode. */
	if ((fd = open(st->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		warnx_("store %s: %s", st->path, strerror(errno));
		return -1;
	}
	close(fd);
	if (sqlite3_open_v2(st->path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		store_fail(st, "open");
		store_close(st);
		return -1;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	if (check_file(st) != 0 ||
	    set_wal(st) != 0 ||
	    exec_sql(st, "PRAGMA synchronous = FULL") != 0 ||
	    exec_sql(st, "PRAGMA foreign_keys = ON") != 0 ||
	    migrate(st) != 0) {
		store_close(st);
		return -1;
	}
	return 0;
}

int
store_open(struct store *st)
{
	char dir[PATH_MAX];

	if (state_dir(dir, sizeof dir) != 0)
		return -1;
	return store_open_at(st, dir);
}

void
store_close(struct store *st)
{
	if (st->db != NULL)
		sqlite3_close(st->db);
	st->db = NULL;
}

static int
bind_json(sqlite3_stmt *s, int i, const json_t *j)
{
	char *txt = canon_dump(j, NULL);
	int rc;

	if (txt == NULL)
		return SQLITE_ERROR;
	rc = sqlite3_bind_text(s, i, txt, -1, free);
	return rc;
}

static int
insert_command(struct store *st, const char *id, size_t idx, const struct wcommand *c)
{
	static const char sql[] = "INSERT INTO commands (gate_id, idx, id, as_user, argv,"
	    " command, given_path, path, executable_sha256, why, cwd, timeout_seconds, badges)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";
	json_t *argv = json_array(), *badges = badges_json(c->badges);
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc = -1;

	for (i = 0; i < c->argc; i++)
		json_array_append_new(argv, json_string(c->argv[i]));
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)idx);
	sqlite3_bind_text(s, 3, c->id, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 4, c->as_user);
	bind_json(s, 5, argv);
	if (c->command != NULL)
		sqlite3_bind_text(s, 6, c->command, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 7, c->exe.given, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 8, c->exe.path, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, c->exe.sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 10, c->why, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 11, c->cwd, -1, SQLITE_STATIC);
	if (c->timeout > 0)
		sqlite3_bind_int64(s, 12, c->timeout);
	bind_json(s, 13, badges);
	if (sqlite3_step(s) == SQLITE_DONE)
		rc = 0;
out:
	if (rc != 0)
		store_fail(st, "storing a command");
	sqlite3_finalize(s);
	json_decref(argv);
	json_decref(badges);
	return rc;
}

/* Store a new pending gate with its commands and its audit event, in one
 * transaction: after this returns 0 the gate is durable. */
int
store_insert_request(struct store *st, const char *id, const struct wrequest *q,
    const struct gate_meta *m, const json_t *manifest, const char *manifest_bytes,
    const char *sha, int64_t created, int64_t expires)
{
	static const char sql[] = "INSERT INTO gates (id, state, created_at, expires_at,"
	    " requester, requester_uid, agent, project, host, machine, reason, run_as, cwd,"
	    " env, stop_on_failure, output_to_agent, next_prompt, risk_badges, root_count,"
	    " user_count, manifest, manifest_sha256)"
	    " VALUES (?,'pending',?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	json_t *env = json_object_get(manifest, "env"), *badges = badges_json(q->badges);
	json_t *detail;
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc = -1;

	if (store_begin(st) != 0) {
		json_decref(badges);
		return -1;
	}
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, created);
	sqlite3_bind_int64(s, 3, expires);
	sqlite3_bind_text(s, 4, m->requester, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 5, m->requester_uid);
	if (m->agent != NULL)
		sqlite3_bind_text(s, 6, m->agent, -1, SQLITE_STATIC);
	if (m->project != NULL)
		sqlite3_bind_text(s, 7, m->project, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 8, m->host, -1, SQLITE_STATIC);
	if (q->machine != NULL)
		sqlite3_bind_text(s, 9, q->machine, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 10, q->reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 11, q->run_as, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 12, q->cwd, -1, SQLITE_STATIC);
	bind_json(s, 13, env);
	sqlite3_bind_int(s, 14, q->stop_on_failure);
	sqlite3_bind_text(s, 15, q->output_to_agent, -1, SQLITE_STATIC);
	if (q->next_prompt != NULL)
		sqlite3_bind_text(s, 16, q->next_prompt, -1, SQLITE_STATIC);
	bind_json(s, 17, badges);
	sqlite3_bind_int(s, 18, q->nroot);
	sqlite3_bind_int(s, 19, q->nuser);
	sqlite3_bind_text(s, 20, manifest_bytes, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 21, sha, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		goto out;
	for (i = 0; i < q->ncmds; i++)
		if (insert_command(st, id, i, &q->cmds[i]) != 0)
			goto rollback;
	detail = json_pack("{s:s,s:s,s:I}", "manifest_sha256", sha,
	    "requester", m->requester, "commands", (json_int_t)q->ncmds);
	rc = audit_append(st, id, "request", detail, created);
	json_decref(detail);
	if (rc != 0)
		goto rollback;
	rc = store_commit(st);
	if (rc != 0)
		goto rollback;
	goto done;
out:
	store_fail(st, "storing the gate");
rollback:
	rc = -1;
	store_rollback(st);
done:
	sqlite3_finalize(s);
	json_decref(badges);
	return rc;
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
	    " WHERE gate_id = gates.id AND state <> 'settled') LIMIT 1";
	static const char pick[] = "SELECT id FROM gates WHERE state = 'pending'"
	    " AND expires_at <= ?1 AND NOT EXISTS (SELECT 1 FROM attempts"
	    " WHERE gate_id = gates.id AND state <> 'settled')";
	static const char upd[] = "UPDATE gates SET state = 'expired', settled_at = ?"
	    " WHERE id = ? AND state = 'pending'";
	sqlite3_stmt *s = NULL, *u = NULL;
	int64_t now = now_seconds();
	int rc, found;

	if (sqlite3_prepare_v2(st->db, probe, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "checking expiry");
	sqlite3_bind_int64(s, 1, now);
	rc = sqlite3_step(s);
	found = rc == SQLITE_ROW;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(st, "checking expiry");
	if (!found)
		return 0;
	if (store_begin(st) != 0)
		return -1;
	if (sqlite3_prepare_v2(st->db, pick, -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, upd, -1, &u, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(s, 1, now);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(s, 0);

		sqlite3_reset(u);
		sqlite3_bind_int64(u, 1, now);
		sqlite3_bind_text(u, 2, id, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(u) != SQLITE_DONE ||
		    audit_append(st, id, "expired", NULL, now) != 0)
			goto fail;
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(s);
	sqlite3_finalize(u);
	return store_commit(st);
fail:
	store_fail(st, "expiring gates");
	sqlite3_finalize(s);
	sqlite3_finalize(u);
	store_rollback(st);
	return -1;
}

/*
 * Resolve a user-given id or unique prefix. Returns 0 with the full id, 1
 * when nothing matches, 2 when the prefix is ambiguous or malformed, -1 on
 * store errors.
 */
int
store_resolve(struct store *st, const char *arg, char id[GATE_ID_LEN + 1])
{
	static const char sql[] = "SELECT id FROM gates WHERE id >= ?1"
	    " AND id < ?1 || '~' ORDER BY id LIMIT 2";
	char prefix[GATE_ID_LEN + 1];
	sqlite3_stmt *s;
	int rc, n = 0;

	if (gate_id_prefix(arg, prefix, sizeof prefix) != 0)
		return 2;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "finding the gate");
	sqlite3_bind_text(s, 1, prefix, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (n++ == 0)
			snprintf(id, GATE_ID_LEN + 1, "%s", (const char *)sqlite3_column_text(s, 0));
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_fail(st, "finding the gate");
	return n == 0 ? 1 : n == 1 ? 0 : 2;
}

static json_t *
column_json(sqlite3_stmt *s, int i)
{
	const char *txt = (const char *)sqlite3_column_text(s, i);

	if (txt == NULL)
		return json_null();
	return json_loads(txt, JSON_DECODE_ANY, NULL);
}

static json_t *
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
	" user_count, manifest_sha256, feedback, manifest"

static json_t *
gate_row(sqlite3_stmt *s, int with_manifest)
{
	static const char *const names[] = {
		"request_id", "state", "created_at", "expires_at", "settled_at",
		"requester", "requester_uid", "agent", "project", "host", "machine",
		"reason", "run_as", "cwd", "env", "stop_on_failure", "output_to_agent",
		"next_prompt", "risk_badges", "root_count", "user_count",
		"manifest_sha256", "feedback",
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
		json_object_set_new(g, "manifest", column_json(s, 23));
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
		warnx_("store %s: gate %s has no sealed commands", st->path, id);
		return NULL;
	}
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "reading commands");
		json_decref(cmds);
		return NULL;
	}
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && (c = json_array_get(cmds, i++)) != NULL) {
		json_object_set_new(c, "given_path", column_string(s, 0));
		json_object_set_new(c, "command", column_string(s, 1));
		json_object_set_new(c, "badges", column_json(s, 2));
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		store_fail(st, "reading commands");
		json_decref(cmds);
		return NULL;
	}
	return cmds;
}

/* One gate with its commands (and its sealed manifest when asked). */
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
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		g = gate_row(s, 1);
		cmds = gate_commands(st, id, json_object_get(g, "manifest"));
		if (cmds == NULL) {
			json_decref(g);
			g = NULL;
		} else
			json_object_set_new(g, "commands", cmds);
	} else
		store_fail(st, "reading the gate");
	sqlite3_finalize(s);
	if (g != NULL && !with_manifest)
		json_object_del(g, "manifest");
	return g;
}

/* Gates, pending first then newest first; settled ones only with all. */
json_t *
store_list(struct store *st, int all, long limit, const char *project)
{
	static const char pending_sql[] = "SELECT " GATE_COLUMNS " FROM gates"
	    " WHERE state = 'pending' AND (?1 IS NULL OR project = ?1)"
	    " ORDER BY created_at DESC, rowid DESC LIMIT ?2";
	static const char all_sql[] = "SELECT " GATE_COLUMNS " FROM gates"
	    " WHERE (?1 IS NULL OR project = ?1)"
	    " ORDER BY state = 'pending' DESC, created_at DESC, rowid DESC LIMIT ?2";
	json_t *list = json_array();
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, all ? all_sql : pending_sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "listing gates");
		json_decref(list);
		return NULL;
	}
	if (project != NULL)
		sqlite3_bind_text(s, 1, project, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, limit);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		json_array_append_new(list, gate_row(s, 0));
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		store_fail(st, "listing gates");
		json_decref(list);
		return NULL;
	}
	return list;
}
