/* SPDX-License-Identifier: ISC */
/*
 * The store (docs/design.md §5): one SQLite database in the state directory, the
 * only source of truth for gates, commands, attempts, ledgers and the
 * audit chain. WAL with synchronous=FULL, so a returned commit survives a
 * crash; every transition in BEGIN IMMEDIATE with a busy timeout, so
 * concurrent requesters queue instead of seeing SQLITE_BUSY.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store-int.h"

#define BUSY_TIMEOUT_MS	60000
/*
 * Closing a connection does not checkpoint (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE:
 * that cost every process two more syncs and a new WAL); instead a commit
 * that leaves the WAL at WAL_TRUNCATE_FRAMES frames or more checkpoints it
 * into the database and truncates it to zero bytes. Never the first without
 * the second: every new process reads the whole WAL back to rebuild its
 * index, so a WAL that is never reset makes every open slower.
 */
#define WAL_TRUNCATE_FRAMES	200
/* How long that checkpoint waits for readers and writers of other
 * processes; when it cannot finish, the next commit tries again. */
#define CHECKPOINT_BUSY_MS	250

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
	/* attempts.state: enum attempt_state in store.h, in this order */
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
	/* 4: requesters on other uids (the daemon): the asking process, and
	 * their pending gates counted for the quota */
	"ALTER TABLE gates ADD COLUMN requester_pid INTEGER;"
	"ALTER TABLE gates ADD COLUMN requester_start INTEGER;"
	"CREATE INDEX gates_by_requester ON gates (requester_uid, state, created_at);",
	/* 5: the web page (devices.c): pairing tokens and device sessions,
	 * both only as SHA-256 of the secret */
	"CREATE TABLE pair_tokens ("
	" token_sha256 TEXT PRIMARY KEY, created_at INTEGER NOT NULL,"
	" expires_at INTEGER NOT NULL, used_at INTEGER);"
	"CREATE TABLE devices ("
	" id TEXT PRIMARY KEY, name TEXT NOT NULL, session_sha256 TEXT NOT NULL UNIQUE,"
	" created_at INTEGER NOT NULL, revoked_at INTEGER);",
	/* 6: the daemon's request keys (keys.c): a client's retry is
	 * answered with the gate its first try made */
	"CREATE TABLE request_keys ("
	" requester_uid INTEGER NOT NULL, key TEXT NOT NULL,"
	" gate_id TEXT NOT NULL REFERENCES gates (id), descriptor TEXT NOT NULL,"
	" PRIMARY KEY (requester_uid, key)) WITHOUT ROWID;",
	/* 7: standing grants of exact YOU commands (grants.c); argv and env
	 * in canonical JSON, so equal commands are equal text */
	"CREATE TABLE grants ("
	" id TEXT PRIMARY KEY, requester_uid INTEGER NOT NULL, agent TEXT,"
	" argv TEXT NOT NULL, path TEXT NOT NULL, executable_sha256 TEXT NOT NULL,"
	" cwd TEXT NOT NULL, env TEXT NOT NULL, output_to_agent TEXT NOT NULL,"
	" gate_id TEXT NOT NULL, command_id TEXT NOT NULL,"
	" created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, revoked_at INTEGER);"
	"CREATE INDEX grants_live ON grants (requester_uid, expires_at)"
	" WHERE revoked_at IS NULL;",
	/* 8: a grant's identity has the command's timeout and risk badges;
	 * grants made before (badges NULL) match nothing */
	("ALTER TABLE grants ADD COLUMN timeout_seconds INTEGER;"
	" ALTER TABLE grants ADD COLUMN badges TEXT;"),
};
#define SCHEMA_VERSION	((int)(sizeof migrations / sizeof migrations[0]))

/* Say which store failed and why; always returns -1. */
int
store_fail(struct store *st, const char *what)
{
	int code = st->db != NULL ? sqlite3_errcode(st->db) & 0xff : 0;
	int oserr = st->db != NULL ? sqlite3_system_errno(st->db) : 0;
	int io = code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN ||
	    code == SQLITE_READONLY;

	/*
	 * SQLite words a full disk met while growing the -shm file as a bare
	 * "disk I/O error"; for I/O-shaped failures the OS error names the
	 * real cause (e.g. "No space left on device"), and a full disk is
	 * said as such (st->full, for the callers' outcome). Other errors
	 * leave the system errno stale, so it is not shown for them.
	 */
	if (code == SQLITE_FULL || (io && (oserr == ENOSPC || oserr == EDQUOT))) {
		st->full = 1;
		warnx("store %s: %s: the state directory is full (%s)", st->path, what,
		    strerror(oserr != 0 ? oserr : ENOSPC));
	} else if (oserr != 0 && io)
		warnx("store %s: %s: %s (%s)", st->path, what,
		    sqlite3_errmsg(st->db), strerror(oserr));
	else
		warnx("store %s: %s: %s", st->path, what,
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

/*
 * sqlite3_wal_hook: called after every commit, with its write lock
 * released, with the frames now in the WAL. The commit is durable in the
 * WAL whatever the checkpoint does, so its result is not the commit's.
 */
static int
wal_committed(void *arg, sqlite3 *db, const char *name, int frames)
{
	(void)arg;
	if (frames < WAL_TRUNCATE_FRAMES)
		return SQLITE_OK;
	sqlite3_busy_timeout(db, CHECKPOINT_BUSY_MS);
	(void)sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	return SQLITE_OK;
}

/*
 * The transaction of one exported function: BEGIN IMMEDIATE takes the
 * write lock up front, so two writers never deadlock on an upgrade.
 * Callers outside src/store/ never hold one.
 */
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

/* After the message: a successful ROLLBACK clears sqlite3_errmsg. */
void
store_rollback(struct store *st)
{
	if (sqlite3_get_autocommit(st->db) == 0)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Step a statement that returns no rows, and finalize it. */
int
step_done(struct store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	if (rc != SQLITE_DONE) {
		store_fail(st, what);
		sqlite3_finalize(s);
		return -1;
	}
	sqlite3_finalize(s);
	return 0;
}

/*
 * The end of a guarded transition, inside an open transaction: step s (a
 * prepared, bound UPDATE whose WHERE says when the change is allowed).
 * When it changed no row, roll back and return 1; else record the audit
 * event kind with detail (none when kind is NULL) and commit. Returns 0,
 * 1, or -1 rolled back.
 */
int
transition_finish(struct store *st, sqlite3_stmt *s, const char *what, const char *gate,
    const char *kind, const json_t *detail, int64_t now)
{
	if (step_done(st, s, what) != 0) {
		store_rollback(st);
		return -1;
	}
	if (sqlite3_changes(st->db) == 0) {
		store_rollback(st);
		return 1;
	}
	if ((kind != NULL && (detail == NULL ||
	    audit_append(st, gate, kind, detail, now) != 0)) || store_commit(st) != 0) {
		store_rollback(st);
		return -1;
	}
	return 0;
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
	if (rc != SQLITE_ROW)
		store_fail(st, "reading the schema version");
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -1;
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
		warnx("store %s: schema version %d is newer than this warrant (%d)",
		    st->path, v, SCHEMA_VERSION);
		goto fail;
	}
	for (i = v; i < SCHEMA_VERSION; i++)
		if (exec_sql(st, migrations[i]) != 0)
			goto fail;
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", SCHEMA_VERSION);
	if (exec_sql(st, sql) != 0 || store_commit(st) != 0)
		goto fail;
	return 0;
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
		warnx("store %s: %s", st->path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_uid != geteuid() || (sb.st_mode & 077) != 0) {
		warnx("store %s: must be a regular file owned by uid %u with mode 0600 "
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
		warnx("state directory path is too long");
		return -1;
	}
	if ((dfd = state_dir_open(dir)) < 0)
		return -1;
	close(dfd);
	/*
	 * Create the file 0600 ourselves, whatever the umask: SQLite gives
	 * its -wal and -shm files the database file's mode. Only a new file
	 * is opened here: closing a descriptor of a database this process
	 * has open through SQLite would drop that connection's POSIX locks,
	 * and another connection could then delete the WAL under it.
	 */
	if ((fd = open(st->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600)) >= 0)
		close(fd);
	else if (errno != EEXIST) {
		warnx("store %s: %s", st->path, strerror(errno));
		return -1;
	}
	if (sqlite3_open_v2(st->path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		store_fail(st, "open");
		store_close(st);
		return -1;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	if (check_file(st) != 0 ||
	    sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL) != SQLITE_OK ||
	    set_wal(st) != 0 ||
	    exec_sql(st, "PRAGMA synchronous = FULL") != 0 ||
	    exec_sql(st, "PRAGMA foreign_keys = ON") != 0 ||
	    migrate(st) != 0) {
		store_close(st);
		return -1;
	}
	/* replaces SQLite's own automatic (passive) checkpoint */
	sqlite3_wal_hook(st->db, wal_committed, NULL);
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

/*
 * This user's store when there is one: 0 opened, 1 when there is none
 * (nothing is made: a reader has nothing to read), -1 after saying why.
 * dir gets the state directory either way.
 */
int
store_open_existing(struct store *st, char dir[PATH_MAX])
{
	char path[PATH_MAX + 16];
	struct stat sb;
	int fd;

	if (state_dir(dir, PATH_MAX) != 0)
		return -1;
	if (lstat(dir, &sb) != 0 && (errno == ENOENT || errno == ENOTDIR))
		return 1;
	/* a state directory that is there is judged as ever (owner, mode) */
	if ((fd = state_dir_open(dir)) < 0)
		return -1;
	close(fd);
	snprintf(path, sizeof path, "%s/warrant.db", dir);
	if (lstat(path, &sb) != 0 && (errno == ENOENT || errno == ENOTDIR))
		return 1;
	return store_open_at(st, dir);
}

void
store_close(struct store *st)
{
	if (st->db != NULL)
		sqlite3_close(st->db);
	st->db = NULL;
}

/* A gate's state: 0 with it in state, 1 when there is no such gate, -1
 * on errors. */
int
gate_state(struct store *st, const char *gate, char *state, size_t size)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT state FROM gates WHERE id = ?", -1, &s,
	    NULL) != SQLITE_OK)
		return store_fail(st, "reading the gate");
	rc = sqlite3_bind_text(s, 1, gate, -1, SQLITE_STATIC) == SQLITE_OK ?
	    sqlite3_step(s) : SQLITE_ERROR;
	if (rc == SQLITE_ROW)
		snprintf(state, size, "%s", (const char *)sqlite3_column_text(s, 0));
	else if (rc != SQLITE_DONE)
		store_fail(st, "reading the gate");
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}
