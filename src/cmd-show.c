/* SPDX-License-Identifier: ISC */
/*
 * warrant show: one gate in full, with its ledger once approved; with -j
 * the sealed manifest too. With --to REVIEWER or WARRANT_SOCKET, one of
 * the caller's own gates at that reviewer's daemon, or for a co-reviewer
 * one to review (client/queue.c, cosign.c).
 */
#include <err.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "warrant.h"

#define SHOW_LIVE_LINES	10	/* of a running command's output */

static int cmd_show_exec(int, char **);

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.summary = "show one gate: its context, its commands and its ledger",
	.group = CMD_REVIEWER,
	.usage = "ID [-j] [--to REVIEWER [-c CMD_ID]...]",
	.help =
	"Show one gate: context, risk badges and every command, and once approved\n"
	"its ledger (with what the run-time supervisor recorded for each ROOT\n"
	"command). ID is the request id or any unique prefix of 4 or more\n"
	"characters (the \"w-\" may be left off). While its batch runs, the command\n"
	"running and its latest output lines (credentials redacted).\n"
	"Agent text is shown with control characters and escapes made visible.\n\n"
	"  -j, --json   the gate as JSON, with the sealed manifest and its SHA-256\n"
	"  -t, --to REVIEWER\n"
	"               one of your own gates at REVIEWER's daemon (warrant serve),\n"
	"               with its outcome once settled (WARRANT_SOCKET=PATH does the\n"
	"               same for the socket at PATH); for a co-reviewer under the\n"
	"               host's two-person rule also a gate of REVIEWER's to review,\n"
	"               with its reviews so far\n"
	"  -c, --command ID\n"
	"               with --to: the reviews of these commands only (repeatable)\n",
	.exec = cmd_show_exec,
};

/* What `show` was asked to show (show_options). */
struct show_args {
	const char	*select[128];	/* -c: the commands whose reviews */
	size_t		 nselect;
	const char	*to, *gate;	/* gate: the ID operand */
	int		 json;
};

/* The options and the operand into a, checked together: -1, or the
 * exit status of a usage error (said already). */
static int
show_options(int argc, char **argv, struct show_args *a)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "to", required_argument, NULL, 't' },
		{ "command", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "jt:c:", longopts, NULL)) != -1) {
		if (ch == 'j')
			a->json = 1;
		else if (ch == 't')
			a->to = optarg;
		else if (ch == 'c' && a->nselect < sizeof a->select / sizeof a->select[0])
			a->select[a->nselect++] = optarg;
		else
			return usage_error(&cmd_show_entry, NULL);
	}
	if (optind != argc - 1)
		return usage_error(&cmd_show_entry, "give exactly one ID");
	a->gate = argv[optind];
	if (a->to == NULL && a->nselect > 0)
		return usage_error(&cmd_show_entry, "-c goes with --to");
	return -1;
}

/* Gate id as it is now: the archives intake read, the ledger once
 * approved, the running batch's command and output; NULL on errors. */
static json_t *
gate_now(struct store *st, const char *id)
{
	json_t *g, *ledger, *live;

	g = store_gate(st, id, 1);
	/* what intake read of its archives, beside their content */
	if (g != NULL)
		blob_archives(st->dir, json_object_get(g, "files"));
	/* a settled approval's ledger, as it ran (not cut for the agent) */
	if (g != NULL && strcmp(json_str(g, "state"), "approved") == 0 &&
	    (ledger = gate_ledger(st, id)) != NULL)
		json_object_set_new(g, "ledger", ledger);
	/* a batch running: its command in hand and the output so far */
	if (g != NULL && (live = approve_live(st, id)) != NULL)
		json_object_set_new(g, "live", live);
	return g;
}

/* Gate g on standard output as text (dir: the state directory). */
static int
print_human(const json_t *g, const char *dir)
{
	json_t *ledger, *live;

	gate_print_full(stdout, g, dir);
	cosign_tally_line(stdout, g);
	if ((live = json_object_get(g, "live")) != NULL)
		live_print(stdout, live, SHOW_LIVE_LINES);
	ledger = json_object_get(g, "ledger");
	if (ledger != NULL) {
		printf("\nledger: %s\n", json_str(ledger, "outcome"));
		ledger_print(stdout, ledger);
		if (*json_str(ledger, "diagnostic") != '\0') {
			fputs("diagnostic: ", stdout);
			text_print(stdout, json_str(ledger, "diagnostic"));
			putchar('\n');
		}
	}
	return fflush(stdout);
}

/* Show gate arg (an id or a unique prefix) of the reviewer's own store. */
static int
show_gate(const char *arg, int json)
{
	char id[GATE_ID_LEN + 1], dir[PATH_MAX], *shown;
	struct store st;
	json_t *g;
	int rc;

	if ((rc = store_open_existing(&st, dir)) < 0 ||
	    (rc == 0 && refresh_store(&st) != 0)) {
		if (rc == 0)
			store_close(&st);
		return EXIT_INTERNAL;
	}
	if (rc > 0) {
		shown = text_visible(arg);
		warnx("no gate matches '%s': there is no store at %s", shown, dir);
		free(shown);
		return EXIT_REFUSED;
	}
	if ((rc = gate_arg(&st, arg, id)) != EXIT_OK) {
		store_close(&st);
		return rc;
	}
	g = gate_now(&st, id);
	store_close(&st);
	if (g == NULL)
		return EXIT_INTERNAL;
	rc = json ? print_json(g) : print_human(g, st.dir);
	json_decref(g);
	return rc == 0 ? EXIT_OK : EXIT_INTERNAL;
}

static int
cmd_show_exec(int argc, char **argv)
{
	struct show_args a = { 0 };
	const char *sock = getenv("WARRANT_SOCKET");
	int rc;

	if ((rc = show_options(argc, argv, &a)) >= 0)
		return rc;
	if (a.to != NULL && a.nselect > 0)
		return cosign_show(a.to, a.gate, a.select, a.nselect, a.json);
	if (a.to != NULL || (sock != NULL && *sock != '\0'))
		return queue_show(a.to, a.gate, a.json);
	return show_gate(a.gate, a.json);
}
