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

/* util.c: CLI helpers */
void	 format_time(int64_t, char *, size_t);
int	 parse_count(const char *, long, long, long *);
const char *json_str(const json_t *, const char *);
int	 refusal_print(const char *, const struct refusal *);

/* gateview.c: human views of gates. */
void	 gate_print_line(FILE *, const json_t *);
void	 gate_print_full(FILE *, const json_t *, const char *);

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
int	 usage_error(const struct cmd_entry *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	 print_json(const json_t *);
int	 gate_arg(struct store *, const char *, char [GATE_ID_LEN + 1]);

#endif
