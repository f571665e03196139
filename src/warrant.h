/* warrant: shared declarations for the CLI, the store and the request pipeline. */
#ifndef WARRANT_H
#define WARRANT_H

#include <sys/types.h>
#include <sys/stat.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include <sqlite3.h>

#include "shared/shared.h"

/* Exit codes shared by every command (DESIGN §6). */
#define EXIT_OK		0
#define EXIT_INTERNAL	1
#define EXIT_REFUSED	2

/* util.c: CLI helpers */
void	 format_time(int64_t, char *, size_t);
int	 parse_count(const char *, long, long, long *);
const char *json_str(const json_t *, const char *);

#include "intake/intake.h"

/* gateid.c */
#define GATE_ID_LEN	12	/* "w-" + 10 base32 */
int	 gate_id_new(char [GATE_ID_LEN + 1]);
int	 gate_id_prefix(const char *, char *, size_t);

/* statedir.c */
int	 state_dir(char *, size_t);
int	 state_dir_open(const char *);
int	 state_append_jsonl(const char *, const json_t *);

/* store.c */
struct store {
	sqlite3	*db;
	char	 dir[PATH_MAX];
	char	 path[PATH_MAX];
};
struct gate_meta {
	const char	*agent;
	const char	*project;
	const char	*requester;
	uid_t		 requester_uid;
	const char	*host;
};
int	 store_open(struct store *);
int	 store_open_at(struct store *, const char *);
void	 store_close(struct store *);
int	 store_begin(struct store *);
int	 store_commit(struct store *);
void	 store_rollback(struct store *);
int	 store_insert_request(struct store *, const char *, const struct wrequest *,
	    const struct gate_meta *, const json_t *, const char *, const char *,
	    int64_t, int64_t);
int	 store_expire(struct store *);
int	 store_resolve(struct store *, const char *, char [GATE_ID_LEN + 1]);
json_t	*store_gate(struct store *, const char *, int);
json_t	*store_list(struct store *, int, long, const char *);
int	 store_fail(struct store *, const char *);

/* attempt.c */
#define ATTEMPT_NOT_PENDING	(-2)
#define ATTEMPT_BUSY		(-3)
int64_t	 attempt_begin(struct store *, const char *, const json_t *, const char *, const char *);
int	 attempt_set(struct store *, int64_t, const char *);
int	 attempt_set_pid(struct store *, int64_t, const char *, pid_t);
int	 attempt_abandon(struct store *, int64_t, const char *, const char *);
int	 gate_settle(struct store *, const char *, int64_t, const json_t *);
int	 gate_deny(struct store *, const char *, const char *);
json_t	*gate_ledger(struct store *, const char *);
json_t	*gate_outcome(struct store *, const json_t *);
json_t	*attempts_orphaned(struct store *);

/* audit.c: the append-only, hash-chained events table. */
int	 audit_append(struct store *, const char *, const char *, const json_t *, int64_t);
json_t	*audit_events(struct store *);
int	 audit_verify(struct store *, char *, size_t, long *);

/* approve.c */
struct approve_opts {
	int	detach;		/* 1 detach, 0 stay, -1 the default rule */
	int	via_sudo;	/* ROOT commands through sudo, not the runner */
};
json_t	*approve_run(struct store *, const char *, const char *const *, size_t,
	    const struct approve_opts *, int *);
int	 approve_recover(struct store *);
int	 store_refresh(struct store *);
int	 store_open_current(struct store *);

/* userenv.c */
struct passwd;
char	**userenv_build(const struct passwd *);
void	 userenv_free(char **);

/* lease.c */
int	 lease_take(const char *, const char *, char *, size_t);
void	 lease_release(int);

/* gateview.c: human views of gates. */
void	 gate_print_line(FILE *, const json_t *);
void	 gate_print_full(FILE *, const json_t *);

/* warrant.c: the command table. */
struct cmd_entry {
	const char	*name;
	const char	*usage;
	const char	*help;
	int		(*exec)(int, char **);
};
extern const struct cmd_entry cmd_request_entry;
extern const struct cmd_entry cmd_list_entry;
extern const struct cmd_entry cmd_show_entry;
extern const struct cmd_entry cmd_log_entry;
extern const struct cmd_entry cmd_answer_entry;
extern const struct cmd_entry cmd_wait_entry;
int	 wait_gate(struct store *, const char *, long, int);
extern const struct cmd_entry cmd_box_entry;
extern const struct cmd_entry cmd_mcp_entry;
extern const struct cmd_entry cmd_review_entry;
int	 usage_error(const struct cmd_entry *, const char *, ...);
int	 print_json(const json_t *);
int	 gate_arg(struct store *, const char *, char [GATE_ID_LEN + 1]);

#endif
