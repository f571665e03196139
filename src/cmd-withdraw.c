/* SPDX-License-Identifier: ISC */
/*
 * warrant withdraw: a requester takes back one of its own pending gates,
 * in its own store or (--to REVIEWER, WARRANT_SOCKET) at the reviewer's
 * daemon: the gate is denied with "withdrawn by the requester" and the
 * optional note. A gate that settled, or that the reviewer is running at
 * that moment, is left alone (not_pending): a withdrawal never stops or
 * replaces an approval under way.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warrant.h"

#define WITHDRAWN	"withdrawn by the requester"

static int cmd_withdraw_exec(int, char **);

const struct cmd_entry cmd_withdraw_entry = {
	.name = "withdraw",
	.summary = "take back one of your own pending gates",
	.group = CMD_AGENT,
	.usage = "ID [-f TEXT] [-j] [--to REVIEWER]",
	.help =
	"Withdraw one of your own pending gates: it is denied, with the feedback\n"
	"\"" WITHDRAWN "\" and your note, and nothing of it runs. ID is the\n"
	"request id or any unique prefix of 4 or more characters. A gate that has\n"
	"settled, or that the reviewer is running right now, is left alone\n"
	"(refused: not_pending).\n\n"
	"  -f, --feedback TEXT  a note for the reviewer (at most 4096 bytes)\n"
	"  -j, --json           print {\"request_id\",\"state\"} or the refusal as JSON\n"
	"  --to REVIEWER        a gate of yours at REVIEWER's daemon (warrant serve);\n"
	"                       WARRANT_SOCKET=PATH does the same for the socket at PATH\n",
	.exec = cmd_withdraw_exec,
	.exits = "0127",
};

static int
cmd_withdraw_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "feedback", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "to", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 }
	};
	const char *to = NULL, *note = NULL;
	char id[GATE_ID_LEN + 1], *why = NULL;
	struct refusal r;
	struct link l;
	json_t *j;
	int ch, json = 0, rc;

	while ((ch = getopt_long(argc, argv, "f:j", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			note = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'T':
			to = optarg;
			break;
		default:
			return usage_error(&cmd_withdraw_entry, NULL);
		}
	}
	if (optind != argc - 1)
		return usage_error(&cmd_withdraw_entry, "give exactly one ID");
	if (note != NULL && !feedback_ok(note))
		return usage_error(&cmd_withdraw_entry, "%s", FEEDBACK_RULE);
	if ((rc = link_open(&l, to)) != EXIT_OK)
		return rc;
	/* the daemon puts "withdrawn by the requester: " before the note itself */
	if (l.local && asprintf(&why, "%s%s%s", WITHDRAWN, note != NULL ? ": " : "",
	    note != NULL ? note : "") < 0) {
		link_close(&l);
		return EXIT_INTERNAL;
	}
	memset(&r, 0, sizeof r);
	rc = link_withdraw(&l, argv[optind], l.local ? why : note, id, &r);
	link_close(&l);
	free(why);
	if (rc == EXIT_REFUSED && json) {
		j = refusal_json(&r);
		print_json(j);
		json_decref(j);
	} else if (rc == EXIT_REFUSED)
		refusal_print("withdraw", &r);
	else if (rc == EXIT_OK && json) {
		j = json_pack("{s:s,s:s}", "request_id", id, "state", "denied");
		rc = print_json(j) == 0 ? EXIT_OK : EXIT_INTERNAL;
		json_decref(j);
	} else if (rc == EXIT_OK)
		printf("%s: withdrawn (denied; nothing of it runs)\n", id);
	return rc == EXIT_OK && fflush(stdout) != 0 ? EXIT_INTERNAL : rc;
}
