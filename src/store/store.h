/* SPDX-License-Identifier: ISC */
/*
 * The store (docs/store.md): the state directory and the SQLite database
 * in it, the only source of truth for gates, their commands, approval
 * attempts, ledgers and the audit chain. Every exported function that
 * changes state is one BEGIN IMMEDIATE ... COMMIT of its own; callers
 * never hold a transaction. Only files under src/store/ include
 * <sqlite3.h>.
 */
#ifndef WARRANT_STORE_H
#define WARRANT_STORE_H

#include <sys/types.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

/* gateid.c: "w-" + 10 lowercase base32 characters */
#define GATE_ID_LEN	12
int	 gate_id_new(char [GATE_ID_LEN + 1]);
int	 gate_id_prefix(const char *, char *, size_t);
/* and grant ids: "g-" + 10 lowercase base32 characters */
#define GRANT_ID_LEN	12
int	 grant_id_new(char [GRANT_ID_LEN + 1]);
int	 grant_id_valid(const char *);

/* statedir.c */
int	 state_dir(char *, size_t);
int	 state_dir_open(const char *);

/* db.c */
struct sqlite3;
struct store {
	struct sqlite3	*db;
	char		 dir[PATH_MAX];
	char		 path[PATH_MAX];
	int		 full;		/* a failure was the disk being full */
	/* the blob store's bounds (blob.c), bytes; 0: BLOB_QUOTA_MIB, BLOB_CAP_MIB */
	long long	 blob_quota;	/* what one requester's gates may hold */
	long long	 blob_cap;	/* what all blobs may take on disk */
};
int	 store_open(struct store *);
int	 store_open_at(struct store *, const char *);
int	 store_open_existing(struct store *, char [PATH_MAX]);
void	 store_close(struct store *);

/* watch.c: a descriptor readable when the store changed, or -1 */
int	 store_watch(const struct store *);
int	 store_watch_drain(int);
int	 store_watch_wait(int, int);

/*
 * gates.c: a new gate as the store takes it, a plain record. The JSON
 * members are stored in canonical form; a NULL string is stored as NULL.
 */
struct command_record {
	const char	*id;
	int		 as_user;		/* 0 ROOT, 1 YOU */
	json_t		*argv;			/* array of strings */
	const char	*command;		/* YOU shell string, or NULL */
	const char	*given_path;
	const char	*path;			/* resolved */
	const char	*executable_sha256;
	const char	*why;
	const char	*cwd;
	long long	 timeout;		/* seconds; 0: none */
	json_t		*badges;		/* array of badge names */
};

struct gate_record {
	const char	*id;
	const char	*host;
	const char	*requester;
	uid_t		 requester_uid;
	pid_t		 requester_pid;		/* the asking process, or 0 */
	long long	 requester_start;	/* its start time (procfs), or -1 */
	const char	*agent;			/* or NULL */
	const char	*project;		/* or NULL */
	const char	*machine;		/* or NULL: this host */
	const char	*reason;
	const char	*run_as;
	const char	*cwd;
	json_t		*env;			/* object of strings */
	int		 stop_on_failure;
	const char	*output_to_agent;
	const char	*next_prompt;		/* or NULL */
	json_t		*risk_badges;		/* array of badge names */
	int		 root_count;
	int		 user_count;
	json_t		*manifest;		/* the sealed manifest ... */
	const char	*manifest_bytes;	/* ... its canonical bytes ... */
	const char	*manifest_sha256;	/* ... and their SHA-256 */
	int64_t		 created;
	int64_t		 expires;
	struct command_record *commands;
	size_t		 ncommands;
	const char	*request_key;		/* the daemon client's key, or NULL ... */
	const json_t	*descriptor;		/* ... stored with what the requester was told */
};

int	 gate_insert(struct store *, const struct gate_record *);
/* keys.c: the daemon's request keys */
int	 request_key_find(struct store *, int64_t, const char *, json_t **);
int	 store_expire(struct store *);
/* Every requester's gates, or those of one uid (the daemon's peers). */
#define ANY_REQUESTER	((int64_t)-1)
int	 store_resolve(struct store *, const char *, int64_t, char [GATE_ID_LEN + 1]);
json_t	*store_gate(struct store *, const char *, int);
json_t	*store_list(struct store *, int, long, const char *, int64_t);
int	 store_list_each(struct store *, int, long, const char *, int64_t,
	    int (*)(json_t *, void *), void *);
int	 store_list_dump(struct store *, int, long, const char *, int64_t, FILE *, size_t *);
long	 store_count_pending(struct store *, int64_t);
int	 store_review_ids(struct store *, int, const char *, void (*)(const char *, int, void *),
	    void *);
json_t	*store_review_page(struct store *, int, const char *, long, long);
int	 store_version(struct store *, int64_t [2]);
int	 gate_settle(struct store *, const char *, int64_t, const json_t *);
int	 gate_deny(struct store *, const char *, const char *);
json_t	*gate_ledger(struct store *, const char *);
json_t	*store_iolog_sessions(struct store *);
json_t	*gate_outcome(struct store *, const json_t *);
/* blobrefs.c */
int	 store_blob_refs(struct store *, int64_t, int64_t, int64_t,
	    int (*)(void *, const char *, int64_t), void *);

/*
 * attempts.c: an approval attempt goes reserved -> authenticating ->
 * running -> settled. The order and the names are those of the CHECK
 * constraint on attempts.state in migration 1 (db.c); attempts.c holds
 * the one table of names.
 */
enum attempt_state {
	ATTEMPT_RESERVED,
	ATTEMPT_AUTHENTICATING,
	ATTEMPT_RUNNING,
	ATTEMPT_SETTLED,
};
#define ATTEMPT_NOT_PENDING	(-2)	/* attempt_begin: the gate is not pending */
#define ATTEMPT_BUSY		(-3)	/* attempt_begin: an attempt is unsettled */
const char *attempt_state_name(enum attempt_state);
int64_t	 attempt_begin(struct store *, const char *, const json_t *, const char *,
	    const char *);
int	 attempt_set(struct store *, int64_t, enum attempt_state, pid_t);
int	 attempt_abandon(struct store *, int64_t, const char *, const char *);
json_t	*attempt_get(struct store *, int64_t);
json_t	*attempts_unsettled(struct store *);

/* retain.c: what warrant gc may remove, and compacting the database. */
int	 gate_retention(struct store *, const char *, int64_t *);
int	 gates_prune(struct store *, int64_t, int, long *);
long long store_meta_bytes(struct store *, int64_t);
int	 store_vacuum(struct store *);

/* devices.c: the web page's pairing tokens and device sessions (SHA-256 hex) */
int	 pair_token_add(struct store *, const char *, int64_t);
int	 pair_redeem(struct store *, const char *, const char *, const char *, const char *);
int	 device_lookup(struct store *, const char *, char *, size_t);
json_t	*device_list(struct store *);
int	 device_revoke(struct store *, const char *);

/*
 * grants.c: standing grants of exact YOU commands (docs/grants.md). A
 * grant is the identity of one command as sealed: who asked (uid, agent
 * label), argv, executable and its SHA-256, cwd, env, output policy,
 * timeout and risk badges.
 */
struct grant_record {
	uid_t		 requester_uid;
	const char	*agent;			/* or NULL */
	const json_t	*argv;
	const char	*path;
	const char	*executable_sha256;
	const char	*cwd;
	const json_t	*env;
	const char	*output_to_agent;
	long long	 timeout_seconds;	/* 0: none set */
	const json_t	*badges;
	const char	*gate_id;		/* the approval that made it ... */
	const char	*command_id;		/* ... and its command */
	int64_t		 expires;
};
#define GRANT_QUOTA		64	/* live grants per requester uid */
#define GRANT_MAX_SECONDS	(24 * 3600)
#define GRANT_QUOTA_FULL	1	/* grants_add: over GRANT_QUOTA */
/* What runs by grants may leave in the reviewer's state: each command's
 * output log keeps GRANT_LOG_MAX bytes, and a requester's granted runs
 * of the last GRANT_STORED_WINDOW seconds hold at most GRANT_STORED_MAX
 * bytes of logs and ledgers (grants_stored). */
#define GRANT_LOG_MAX		(1024LL * 1024)
#if WARRANT_TEST_HOOKS
#define GRANT_STORED_MAX	(4LL * 1024 * 1024)	/* the e2e tests reach it */
#else
#define GRANT_STORED_MAX	(64LL * 1024 * 1024)
#endif
#define GRANT_STORED_WINDOW	(24 * 3600)
int	 grants_add(struct store *, const struct grant_record *, size_t,
	    char (*)[GRANT_ID_LEN + 1]);
long	 grants_live_count(struct store *, uid_t);
int	 grant_match(struct store *, const struct grant_record *, char [GRANT_ID_LEN + 1]);
json_t	*grants_live(struct store *);
long	 grants_revoke(struct store *, const char *);
long long grants_stored(struct store *, uid_t);

/* chain.c: the append-only, hash-chained events table. */
json_t	*audit_events(struct store *);
int	 audit_verify(struct store *, char *, size_t, long *);

#endif
