/* SPDX-License-Identifier: ISC */
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

#include "root/root.h"
#include "display/display.h"
#include "store/store.h"
#include "intake/intake.h"
#include "approve/approve.h"

#define REQUEST_MAX	(256 * 1024)	/* whole request, bytes */

/*
 * A denial note (warrant answer --deny -f, the console's note, the
 * feedback of a withdrawal over the socket): UTF-8 text of at most
 * FEEDBACK_MAX bytes on every surface; a longer one is refused with
 * FEEDBACK_RULE and changes nothing.
 */
#define FEEDBACK_MAX	4096
/* a numeric macro's value as a string literal, for messages and help */
#define STR_(x)	#x
#define STR(x)	STR_(x)
#define FEEDBACK_RULE	"a denial note is UTF-8 text of at most " STR(FEEDBACK_MAX) " bytes"

/* Exit codes shared by every command (docs/design.md §6). */
#define EXIT_OK		0
#define EXIT_INTERNAL	1
#define EXIT_REFUSED	2
/* warrant wait (and request -w): how the gate ended */
#define EXIT_WAIT_FAILED	3
#define EXIT_WAIT_DENIED	4
#define EXIT_WAIT_EXPIRED	5
#define EXIT_WAIT_PENDING	6
/* the reviewer's daemon cannot be reached */
#define EXIT_UNREACHABLE	7
/* What each exit code means: `warrant help request|wait` and `warrant
 * skill` print it from here (cli.c). */
struct exit_meaning {
	int		 code;
	const char	*meaning;
};
extern const struct exit_meaning exit_meanings[];	/* ends with a NULL meaning */
const char *exit_meaning(int);

/* cli.c: CLI helpers */
void	 format_time(int64_t, char *, size_t);
const char *user_label(uid_t, char *, size_t);
int	 parse_count(const char *, long, long, long *);
const char *json_str(const json_t *, const char *);
int	 refusal_print(const char *, const struct refusal *);
int	 root_needed(const char *, const char *);
int	 label_valid(const char *);
int	 outcome_exit(const json_t *);
void	 requester_label(const json_t *, char *, size_t);
void	 machine_account_note(const json_t *, char *, size_t);
int	 feedback_ok(const char *);

/* gateview.c: human views of gates. */
void	 gate_print_line(FILE *, const json_t *);
void	 gate_print_full(FILE *, const json_t *, const char *);
void	 confinement_lines(const json_t *, void (*)(void *, int, const char *), void *);
void	 confinement_print(FILE *, const json_t *, const char *);
void	 entry_status_print(FILE *, const json_t *);
void	 ledger_print(FILE *, const json_t *);
#define SHOW_CONTENT_MAX	(64 * 1024)	/* of a reviewed file's text, shown */

/*
 * client/link.c: a requester's gates, in this user's store or through the
 * reviewer's daemon (--to REVIEWER, WARRANT_SOCKET; docs/protocol.md).
 */
struct link {
	int		 local;		/* this user's store */
	int		 fd;		/* the daemon's connection, or -1 */
	char		 path[108];	/* the daemon's socket */
	struct store	 st;
	int		 st_open;
	int		 watch;		/* store_watch() of st, or -1 */
	char		*buf;		/* reply bytes read, not yet taken */
	size_t		 len, cap;
	int		 connected;	/* a connection was made once */
	int		 told;		/* "not answering" was said */
};
int	 link_open(struct link *, const char *);
void	 link_close(struct link *);
int	 link_submit(struct link *, const char *, size_t, const char *, const char *,
	    json_t **, struct refusal *);
int	 link_wait(struct link *, const char *, long, json_t **);
int	 link_withdraw(struct link *, const char *, const char *, char [GATE_ID_LEN + 1],
	    struct refusal *);
int	 link_op(struct link *, json_t *, json_t **, struct refusal *);

/* client/cosign.c: a co-reviewer under the two-person rule, through the
 * reviewer's daemon (docs/two-person.md). */
int	 cosign_applies(void);
json_t	*cosign_list(const char *);
void	 cosign_list_print(FILE *, const char *, const json_t *);
void	 cosign_tally_line(FILE *, const json_t *);
int	 cosign_tally_text(const json_t *, char *, size_t);
int	 cosign_show(const char *, const char *, const char *const *, size_t, int);
int	 cosign_answer(const char *, const char *, const char *const *, size_t, int,
	    const char *, int);
int	 link_watch(const struct link *);

/* client/queue.c: the caller's own gates at a reviewer's daemon, and
 * whose queue is where when the caller has no store. */
int	 queue_list(const char *, int, int);
int	 queue_show(const char *, const char *, int);
void	 queue_none_here(FILE *, const char *);
int	 queue_root_has_none(void);

/* notify.c: a desktop notification for the reviewer, if there is a desktop. */
void	 notify_reviewer(const char *, const char *, int, int);

/* warrant.c: the command table. `warrant --help` lists the commands by
 * who runs them, each with its summary; an entry without a group (0) is
 * listed nowhere, so the test of --help finds it. */
enum cmd_group {
	CMD_AGENT = 1,		/* the agent, or what it runs */
	CMD_REVIEWER,		/* the person who reviews and approves */
	CMD_ADMIN,		/* setting up users, machines, housekeeping */
};
struct cmd_entry {
	const char	*name;
	const char	*usage;
	const char	*summary;	/* what it does, in one line of --help */
	enum cmd_group	 group;
	const char	*help;
	int		(*exec)(int, char **);
	int		internal;	/* started by warrant itself: not in the help */
	const char	*exits;		/* the exit codes its help explains ("0127"), or NULL */
};
extern const struct cmd_entry cmd_request_entry;
extern const struct cmd_entry cmd_list_entry;
extern const struct cmd_entry cmd_show_entry;
extern const struct cmd_entry cmd_log_entry;
extern const struct cmd_entry cmd_answer_entry;
extern const struct cmd_entry cmd_grants_entry;
extern const struct cmd_entry cmd_wait_entry;
extern const struct cmd_entry cmd_withdraw_entry;
extern const struct cmd_entry cmd_stop_entry;
int	 wait_print(const json_t *, int);
extern const struct cmd_entry cmd_box_entry;
extern const struct cmd_entry cmd_requesters_entry;
extern const struct cmd_entry cmd_passkey_entry;
extern const struct cmd_entry cmd_mcp_entry;
extern const struct cmd_entry cmd_serve_entry;
extern const struct cmd_entry cmd_pair_entry;
extern const struct cmd_entry cmd_review_entry;
extern const struct cmd_entry cmd_finalize_entry;
extern const struct cmd_entry cmd_serve_intake_entry;
extern const struct cmd_entry cmd_gc_entry;
extern const struct cmd_entry cmd_skill_entry;
extern const struct cmd_entry cmd_machine_entry;
extern const struct cmd_entry cmd_exec_entry;
/* cmd-gc.c: the retention policy's defaults (man/warrant.1, gc) */
#define GC_MAX_AGE_DAYS	30	/* run directories of gates settled longer ago */
#define GC_MAX_RUNS_MIB	256	/* all run directories together */
#define GC_JSONL_MIB	16	/* requests.jsonl rotates past this */
#define GC_BLOB_UNRUN_HOURS	24	/* blobs of gates that never ran, kept after */
#define BLOB_QUOTA_MIB	1024	/* what one requester's gates may hold in blobs */
#define BLOB_CAP_MIB	4096	/* what the whole blob store may take on disk */
#define BLOB_GRACE_SECONDS	3600	/* a blob this new is never collected */
int	 gc_prune_default(struct store *);
int	 usage_error(const struct cmd_entry *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	 print_json(const json_t *);
int	 gate_arg(struct store *, const char *, char [GATE_ID_LEN + 1]);
int	 ui_exec(int, char **);

#endif
