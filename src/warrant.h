/* warrant: shared declarations for the CLI and the request pipeline; the
 * store's are in store/store.h. */
#ifndef WARRANT_H
#define WARRANT_H

#include <sys/types.h>
#include <sys/stat.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "shared/shared.h"
#include "store/store.h"
#include "approve/approve.h"

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

/* gate.c */
int	 gate_create(const struct wrequest *, const char *, const char *, json_t **);


/* gateview.c: human views of gates. */
void	 gate_print_line(FILE *, const json_t *);
void	 gate_print_full(FILE *, const json_t *);

/* warrant.c: the command table. */
struct cmd_entry {
	const char	*name;
	const char	*usage;
	const char	*help;
	int		(*exec)(int, char **);
	int		internal;	/* started by warrant itself: not in the help */
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
extern const struct cmd_entry cmd_finalize_entry;
int	 usage_error(const struct cmd_entry *, const char *, ...);
int	 print_json(const json_t *);
int	 gate_arg(struct store *, const char *, char [GATE_ID_LEN + 1]);

#endif
