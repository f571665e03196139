/* SPDX-License-Identifier: ISC */
/* Internals of the store: only files under src/store/ include this (and
 * with it <sqlite3.h>). */
#ifndef STORE_INT_H
#define STORE_INT_H

#include <sqlite3.h>

#include "root/root.h"
#include "store/store.h"

/* SQL for "this attempt is not settled": the partial index attempts_open
 * (migration 2) is used only for this literal form. */
#define ATTEMPT_OPEN_SQL	"state <> 'settled'"

/* db.c: the transaction of one exported function, and its messages */
int	 store_begin(struct store *);
int	 store_commit(struct store *);
void	 store_rollback(struct store *);
int	 store_fail(struct store *, const char *);
int	 step_done(struct store *, sqlite3_stmt *, const char *);
int	 transition_finish(struct store *, sqlite3_stmt *, const char *, const char *,
	    const char *, const json_t *, int64_t);

/* gates.c */
int	 gate_state(struct store *, const char *, char *, size_t);
sqlite3_stmt *store_list_prepare(struct store *, int, long, const char *, int64_t);
json_t	*column_json(sqlite3_stmt *, int);
json_t	*column_string(sqlite3_stmt *, int);

/* keys.c: in gate_insert's transaction */
int	 request_key_insert(struct store *, const struct gate_record *);

/* chain.c: the caller holds the write transaction */
int	 audit_append(struct store *, const char *, const char *, const json_t *, int64_t);

/* grants.c: in gate_settle's transaction */
int	 grants_used(struct store *, const char *, const json_t *, int64_t);

/* statedir.c: requests.jsonl, written after a COMMIT */
int	 state_append_jsonl(const char *, const json_t *);

#endif
