/* SPDX-License-Identifier: ISC */
/* warrant list: pending gates (all gates with -a), newest first. */
#include <getopt.h>
#include <stdlib.h>

#include "warrant.h"

static int cmd_list_exec(int, char **);

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.usage = "[-a] [-j] [-l N] [-p PROJECT] | --to REVIEWER [-j]",
	.help =
	"List pending gates, newest first.\n\n"
	"  -a, --all          include settled gates (after the pending ones)\n"
	"  -j, --json         a JSON array of gate objects\n"
	"  -l, --limit N      at most N gates (default 50)\n"
	"  -p, --project P    only gates of project P\n"
	"  -t, --to REVIEWER  for a co-reviewer under the host's two-person rule: the\n"
	"                     pending gates with ROOT commands of REVIEWER (through\n"
	"                     their daemon), with their reviews so far\n",
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
	const char *project = NULL, *to = NULL;
	long limit = 50;
	int ch, all = 0, json = 0, rc;
	struct store st;
	json_t *list, *g;
	size_t i;

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
	if (to != NULL) {
		if (all || project != NULL)
			return usage_error(&cmd_list_entry, "--to goes with -j only");
		return cosign_list(to, json);
	}
	if (open_store_current(&st) != 0)
		return EXIT_INTERNAL;
	if ((list = store_list(&st, all, limit, project, ANY_REQUESTER)) == NULL) {
		store_close(&st);
		return EXIT_INTERNAL;
	}
	store_close(&st);
	if (json)
		rc = print_json(list);
	else {
		if (json_array_size(list) == 0)
			puts(all ? "no gates" : "no pending gates");
		json_array_foreach(list, i, g)
			gate_print_line(stdout, g);
		rc = fflush(stdout);
	}
	json_decref(list);
	return rc == 0 ? EXIT_OK : EXIT_INTERNAL;
}
