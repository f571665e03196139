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

#include "shared/shared.h"
#include "store/store.h"
#include "intake/intake.h"
#include "approve/approve.h"

#define REQUEST_MAX	(256 * 1024)	/* whole request, bytes */

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

/* util.c: CLI helpers */
void	 format_time(int64_t, char *, size_t);
int	 parse_count(const char *, long, long, long *);
const char *json_str(const json_t *, const char *);
int	 refusal_print(const char *, const struct refusal *);
int	 label_valid(const char *);
int	 outcome_exit(const json_t *);
void	 requester_label(const json_t *, char *, size_t);

/* gateview.c: human views of gates. */
void	 gate_print_line(FILE *, const json_t *);
void	 gate_print_full(FILE *, const json_t *, const char *);

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
	char		*buf;		/* reply bytes read, not yet taken */
	size_t		 len, cap;
};
int	 link_open(struct link *, const char *);
void	 link_close(struct link *);
int	 link_submit(struct link *, const char *, size_t, const char *, const char *,
	    json_t **, struct refusal *);
int	 link_wait(struct link *, const char *, long, json_t **);
int	 link_withdraw(struct link *, const char *, const char *);

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
int	 wait_print(const json_t *, int);
extern const struct cmd_entry cmd_box_entry;
extern const struct cmd_entry cmd_requesters_entry;
extern const struct cmd_entry cmd_mcp_entry;
extern const struct cmd_entry cmd_serve_entry;
extern const struct cmd_entry cmd_pair_entry;
extern const struct cmd_entry cmd_review_entry;
extern const struct cmd_entry cmd_finalize_entry;
int	 usage_error(const struct cmd_entry *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	 print_json(const json_t *);
int	 gate_arg(struct store *, const char *, char [GATE_ID_LEN + 1]);

#endif
