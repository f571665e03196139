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

#define REQUEST_MAX	(256 * 1024)	/* whole request, bytes */

/* Exit codes shared by every command (DESIGN §6). */
#define EXIT_OK		0
#define EXIT_INTERNAL	1
#define EXIT_REFUSED	2

/* util.c: CLI helpers */
void	 format_time(int64_t, char *, size_t);
int	 parse_count(const char *, long, long, long *);
const char *json_str(const json_t *, const char *);

/* A refusal: stable code, JSON path of the offending field, one sentence. */
struct refusal {
	const char	*code;
	char		 path[256];
	char		 message[512];
};
int	 refuse(struct refusal *, const char *, const char *, const char *, ...)
	    __attribute__((format(printf, 4, 5)));
json_t	*refusal_json(const struct refusal *);

/* Who a writability question is asked about: a uid with its groups, or
 * uid 0 meaning "anyone but root". */
struct principal {
	uid_t	 uid;
	gid_t	 groups[NGROUPS_MAX];
	int	 ngroups;
};
int	 principal_self(struct principal *);

/* exe.c: executables and paths. */
struct exe {
	char		given[PATH_MAX];
	char		path[PATH_MAX];		/* resolved, no symlinks */
	char		sha256[SHA256_HEX_LEN + 1];
	struct stat	st;
};
int	 exe_lookup(const char *, char *, size_t);
int	 exe_resolve(const char *, struct exe *, struct refusal *, const char *);
int	 open_regular(const char *, struct stat *);
int	 path_replaceable(const struct principal *, const char *, char *, size_t);

/* denylist.c: nested privilege tools and interactive programs. */
enum deny_kind { DENY_NONE = 0, DENY_NESTED, DENY_INTERACTIVE };
enum deny_kind deny_by_name(const char *);
enum deny_kind deny_executable(const struct exe *);
enum deny_kind deny_word(const char *);
const char *deny_code(enum deny_kind);
int	 is_indirect_runner(const char *);

/* risk.c: badges, shown and never blocking. */
#define BADGE_SHELL		0x001
#define BADGE_NETWORK		0x002
#define BADGE_PACKAGE_MANAGER	0x004
#define BADGE_SYSTEM_PATH_WRITE	0x008
#define BADGE_SERVICE_RESTART	0x010
#define BADGE_LOCKOUT_PRONE	0x020
#define BADGE_INDIRECT_EXEC	0x040
#define BADGE_WRITABLE_CWD	0x080
#define BADGE_REMOTE		0x100
#define BADGE_LONG_TIMEOUT	0x200
#define BADGE_MIXED_SCRIPT	0x400
#define LONG_TIMEOUT_SECONDS	3600

/* request.c: schema v1, parsed and normalised. */
struct wcommand {
	const char	 *id;
	int		  as_user;
	const char	**argv;		/* NULL-terminated; borrowed */
	size_t		  argc;
	const char	 *command;	/* YOU shell string, or NULL */
	const char	 *why;
	char		  cwd[PATH_MAX];
	long long	  timeout;	/* 0: none given */
	struct exe	  exe;
	unsigned	  badges;
};

struct wrequest {
	json_t		 *json;		/* owns every borrowed string */
	const char	 *reason;
	struct wcommand	 *cmds;
	size_t		  ncmds;
	const char	 *run_as;
	char		  cwd[PATH_MAX];
	json_t		 *env;		/* borrowed object of strings */
	int		  stop_on_failure;
	const char	 *output_to_agent;
	long long	  gate_timeout;	/* the review window, resolved */
	long long	  timeout;	/* default per command; 0: none */
	const char	 *machine;	/* NULL: this host */
	const char	 *next_prompt;
	unsigned	  badges;
	int		  nroot, nuser;
};
int	 request_parse(const char *, size_t, struct wrequest *, struct refusal *);
void	 request_free(struct wrequest *);

/* validate.c */
int	 validate_request(struct wrequest *, const struct principal *, struct refusal *);

/* submit.c */
json_t	*manifest_build(const struct wrequest *, const char *, const char *);

/* risk.c */
unsigned risk_command(const struct wcommand *, const struct wrequest *,
	    const struct principal *);
json_t	*badges_json(unsigned);

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

/* gate.c */
int	 gate_create(const struct wrequest *, const char *, const char *, json_t **);

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
