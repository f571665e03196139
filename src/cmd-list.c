/* SPDX-License-Identifier: ISC */
/*
 * warrant list: pending gates (all gates with -a), newest first: of this
 * user's store, or with --to REVIEWER or WARRANT_SOCKET the caller's own
 * at that reviewer's daemon (client/queue.c). A user without a store is
 * told so, and where queues are; none is made for a look.
 */
#include <getopt.h>
#include <stdlib.h>

#include "warrant.h"

static int cmd_list_exec(int, char **);

/* One gate's line, printed as it is read: memory stays flat however many. */
static int
print_line(json_t *g, void *n)
{
	gate_print_line(stdout, g);
	++*(size_t *)n;
	json_decref(g);
	return 0;
}

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.summary = "list the pending gates (-a: the settled ones too)",
	.group = CMD_REVIEWER,
	.usage = "[-a] [-j] [-l N] [-p PROJECT] | --to REVIEWER [-a] [-j]",
	.help =
	"List pending gates, newest first.\n\n"
	"  -a, --all          include settled gates (after the pending ones)\n"
	"  -j, --json         a JSON array of gate objects\n"
	"  -l, --limit N      at most N gates (default 50)\n"
	"  -p, --project P    only gates of project P\n"
	"  -t, --to REVIEWER  your own gates at REVIEWER's daemon (warrant serve), for\n"
	"                     an agent that runs as its own user; WARRANT_SOCKET=PATH\n"
	"                     does the same for the socket at PATH. A co-reviewer under\n"
	"                     the host's two-person rule also sees REVIEWER's pending\n"
	"                     gates with ROOT commands, with their reviews so far\n",
	.exec = cmd_list_exec,
};

static int
cmd_list_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "limit", required_argument, NULL, 'l' },
		{ "project", required_argument, NULL, 'p' },
		{ "to", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	const char *project = NULL, *to = NULL, *sock = getenv("WARRANT_SOCKET");
	char dir[PATH_MAX];
	long limit = 50;
	int ch, all = 0, json = 0, rc, limited = 0;
	struct store st;
	size_t n = 0;

	while ((ch = getopt_long(argc, argv, "ajl:p:t:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			all = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'l':
			if (parse_count(optarg, 1, 1000000, &limit) != 0)
				return usage_error(&cmd_list_entry, "-l takes a count from 1 to 1000000");
			limited = 1;
			break;
		case 'p':
			project = optarg;
			break;
		case 't':
			to = optarg;
			break;
		default:
			return usage_error(&cmd_list_entry, NULL);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_list_entry, "unexpected argument '%s'", argv[optind]);
	if (to != NULL || (sock != NULL && *sock != '\0')) {
		if (limited || project != NULL)
			return usage_error(&cmd_list_entry, "at a reviewer's daemon (--to, "
			    "WARRANT_SOCKET), list takes -a and -j only");
		return queue_list(to, all, json);
	}
	if ((rc = store_open_existing(&st, dir)) < 0 ||
	    (rc == 0 && refresh_store(&st) != 0)) {
		if (rc == 0)
			store_close(&st);
		return EXIT_INTERNAL;
	}
	if (rc > 0) {
		if (json)
			puts("[]");
		queue_none_here(json ? stderr : stdout, dir);
		return fflush(stdout) == 0 ? EXIT_OK : EXIT_INTERNAL;
	}
	/* -j: straight from the rows (src/store/listjson.c); a failure part
	 * way leaves the array cut short, and the exit says so */
	rc = json ? store_list_dump(&st, all, limit, project, ANY_REQUESTER, stdout, &n) :
	    store_list_each(&st, all, limit, project, ANY_REQUESTER, print_line, &n);
	store_close(&st);
	if (rc != 0) {
		fflush(stdout);
		return EXIT_INTERNAL;
	}
	if (!json && n == 0)
		puts(all ? "no gates" : "no pending gates");
	rc = fflush(stdout);
	return rc == 0 ? EXIT_OK : EXIT_INTERNAL;
}
