/* SPDX-License-Identifier: ISC */
/*
 * warrant stop: the reviewer stops one of their running batches, ROOT or
 * YOU, attached or detached. The command in hand and every process it
 * started get SIGTERM, then SIGKILL after a grace; the commands after it
 * are skipped "stopped by REVIEWER"; the ledger and the audit chain say
 * who stopped it and when. Only the reviewer can: the request goes
 * through their own 0700 run directory (src/approve/askstop.c), which no
 * requester can write, and a requester's environment is refused here.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "warrant.h"

#define STOP_WAIT_SECONDS	60	/* the grace, the output drained, the settling */

static int cmd_stop_exec(int, char **);

const struct cmd_entry cmd_stop_entry = {
	.name = "stop",
	.summary = "stop a running batch: its command killed, the rest skipped",
	.group = CMD_REVIEWER,
	.usage = "ID [-j]",
	.help =
	"Stop one of your running batches (ROOT or YOU, attached or detached). The\n"
	"command running gets SIGTERM, with every process it started, then SIGKILL\n"
	"after a grace of 5 s; the commands after it are skipped (\"stopped by\n"
	"YOU\"); the ledger and the audit chain record who stopped it and when.\n"
	"Waits up to " STR(STOP_WAIT_SECONDS) " s for the batch to settle and prints its ledger.\n"
	"A gate that is not running is refused (not_running); only the reviewer\n"
	"running the batch can stop it (a requester: not_reviewer, unknown_gate).\n\n"
	"  -j, --json    print {\"request_id\",\"status\",\"ledger\"} or the refusal as JSON\n",
	.exec = cmd_stop_exec,
	.exits = "012",
};

static int
refused(const struct refusal *r, int json)
{
	json_t *j;

	if (!json)
		return refusal_print("stop", r);
	j = refusal_json(r);
	print_json(j);
	json_decref(j);
	return EXIT_REFUSED;
}

static int
cmd_stop_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	const char *env = getenv("WARRANT_SOCKET");
	char id[GATE_ID_LEN + 1], dir[PATH_MAX];
	struct refusal r;
	struct store st;
	json_t *ledger, *out;
	int ch, json = 0, rc, done;

	while ((ch = getopt_long(argc, argv, "j", longopts, NULL)) != -1) {
		if (ch != 'j')
			return usage_error(&cmd_stop_entry, NULL);
		json = 1;
	}
	if (optind != argc - 1)
		return usage_error(&cmd_stop_entry, "give exactly one ID");
	memset(&r, 0, sizeof r);
	/* a requester's environment: its batches are the reviewer's to stop */
	if (env != NULL && *env != '\0') {
		refuse(&r, "not_reviewer", "ID", "WARRANT_SOCKET is set: this is a requester's "
		    "environment, and only the reviewer running a batch can stop it; nothing "
		    "changed");
		return refused(&r, json);
	}
	if ((rc = store_open_existing(&st, dir)) != 0) {
		if (rc < 0)
			return EXIT_INTERNAL;
		refuse(&r, "unknown_gate", "ID", "there is no store in %s: no batch of yours "
		    "runs here; nothing changed", dir);
		return refused(&r, json);
	}
	if ((rc = store_resolve(&st, argv[optind], ANY_REQUESTER, id)) != 0) {
		store_close(&st);
		if (rc < 0)
			return EXIT_INTERNAL;
		refuse(&r, "unknown_gate", "ID", rc == 1 ? "no gate of yours matches this id; "
		    "nothing changed" : "this does not name exactly one gate (give 4 or more "
		    "characters of a unique id); nothing changed");
		return refused(&r, json);
	}
	if ((rc = approve_stop(&st, id, &r)) != EXIT_OK) {
		store_close(&st);
		return rc == EXIT_REFUSED ? refused(&r, json) : rc;
	}
	done = approve_stop_wait(&st, id, now_seconds() + STOP_WAIT_SECONDS);
	ledger = done ? gate_ledger(&st, id) : NULL;
	store_close(&st);
	if (json) {
		out = json_pack("{s:s,s:s,s:o?}", "request_id", id, "status",
		    done ? "stopped" : "stopping", "ledger", ledger);
		rc = print_json(out) == 0 ? EXIT_OK : EXIT_INTERNAL;
		json_decref(out);
		return rc;
	}
	if (done) {
		printf("%s: stopped\n", id);
		ledger_print(stdout, ledger);
	} else
		printf("%s: asked to stop; the batch is still ending (its gate settles when "
		    "it has)\n", id);
	json_decref(ledger);
	return fflush(stdout) != 0 ? EXIT_INTERNAL : EXIT_OK;
}
