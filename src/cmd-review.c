/* SPDX-License-Identifier: ISC */
/*
 * warrant review: the reviewer's terminal console (src/tui/). It needs a
 * terminal on stdin and stdout; everything else is in tui_run.
 */
#include <err.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "warrant.h"
#include "tui/tui.h"

#ifndef WARRANT_LEAN
static int cmd_review_exec(int, char **);
#endif

const struct cmd_entry cmd_review_entry = {
	.name = "review",
	.summary = "the review console: see, approve and deny requests, live",
	.group = CMD_REVIEWER,
	.usage = "[-a] [-p PROJECT] [ID]",
	.help =
	"The review console: pending gates, live (a new request rings the bell),\n"
	"and the review of one gate with its commands as a checklist. Enter\n"
	"authenticates through the host's sudo on this terminal (when a ticked\n"
	"command runs as root) and runs the ticked commands; d denies with an\n"
	"optional note. Agent text is shown with control characters and escapes\n"
	"made visible. Keys: j/k or arrows move, Space ticks, v details, Enter run,\n"
	"d deny, Ctrl+D/Ctrl+U half a page, g/G top/bottom, a settled gates,\n"
	"q/Esc close. ID opens that gate at once.\n\n"
	"  -a, --all          show settled gates too\n"
	"  -p, --project P    only gates of project P\n",
#ifdef WARRANT_LEAN
	.exec = ui_exec,	/* warrant-ui runs it */
#else
	.exec = cmd_review_exec,
#endif
};

#ifndef WARRANT_LEAN	/* the rest is warrant-ui's */

static int
cmd_review_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "project", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	const char *project = NULL;
	char id[GATE_ID_LEN + 1];
	int ch, all = 0, rc;
	struct store st;

	/* before anything else: no process of our uid may attach to us */
	if (approve_guard() != 0)
		warnx("this process is being traced: it will refuse to approve");
	while ((ch = getopt_long(argc, argv, "ap:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			all = 1;
			break;
		case 'p':
			project = optarg;
			break;
		default:
			return usage_error(&cmd_review_entry, NULL);
		}
	}
	if (optind < argc - 1)
		return usage_error(&cmd_review_entry, "give at most one ID");
	/* root reviews nothing of its own: it is told where the queues are */
	if (queue_root_has_none())
		return EXIT_REFUSED;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		warnx("review needs a terminal on stdin and stdout (try warrant list or "
		    "warrant show)");
		return EXIT_REFUSED;
	}
	if (store_open(&st) != 0)
		return EXIT_INTERNAL;
	if (optind == argc - 1) {
		if (refresh_store(&st) != 0) {
			store_close(&st);
			return EXIT_INTERNAL;
		}
		if ((rc = store_resolve(&st, argv[optind], ANY_REQUESTER, id)) != 0) {
			char *shown = text_visible(argv[optind]);

			store_close(&st);
			if (rc < 0) {
				free(shown);
				return EXIT_INTERNAL;
			}
			warnx(rc == 1 ? "no gate matches '%s'" :
			    "'%s' does not name exactly one gate", shown);
			free(shown);
			return EXIT_REFUSED;
		}
	}
	rc = tui_run(&st, all, project, optind == argc - 1 ? id : NULL);
	store_close(&st);
	return rc;
}
#endif	/* !WARRANT_LEAN */
