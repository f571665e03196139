/* SPDX-License-Identifier: ISC */
/*
 * warrant answer: approve (authenticate through sudo on this terminal,
 * then run) or deny one pending gate. Without --run or --deny it asks
 * "Approve? [y/N]" on the terminal, and refuses when there is none.
 */
#include <err.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

static int cmd_answer_exec(int, char **);

const struct cmd_entry cmd_answer_entry = {
	.name = "answer",
	.summary = "approve (authenticate and run) or deny a pending gate",
	.group = CMD_REVIEWER,
	.usage = "ID [--run | --deny] [-c CMD_ID]... [--detach | --no-detach] [--via sudo] "
	"[--expect SHA256] [--you-only] [--grant DURATION | --granted] [--passkey | --passkey-relay] [-f TEXT] "
	"[-j] | "
	"ID --approve|--deny --to REVIEWER "
	"[-c CMD_ID]... [-f TEXT] [-j]",
	.help =
	"Answer a pending gate. --run authenticates through the host's sudo on this\n"
	"terminal (when anything runs as root), then runs the selected commands in\n"
	"request order and settles the gate with their ledger. --deny settles it as\n"
	"denied, with optional feedback for the agent; it needs no terminal.\n\n"
	"  -r, --run           approve: authenticate and run\n"
	"  -d, --deny          deny\n"
	"  -c, --command ID    run only these commands (repeatable; reviewed order)\n"
	"  -D, --detach        return the terminal once the runner has started the\n"
	"                      batch (the default when anything runs as root)\n"
	"  -N, --no-detach     wait for every command to finish\n"
	"  --via sudo          run ROOT commands as `sudo -k -u RUN_AS -- PATH ARGS` instead\n"
	"                      of through warrant-runner, for reviewers whose sudoers\n"
	"                      allows the commands but not the runner; each executable\n"
	"                      is re-hashed just before (a weaker binding; said so in\n"
	"                      the ledger); never detached\n"
	"  -e, --expect SHA256 approve only if the sealed manifest is still the one\n"
	"                      reviewed (its hash, or a prefix of 12 or more)\n"
	"  --you-only          approve only if no selected command runs as root (no\n"
	"                      sudo); what the web page's approvals run as\n"
	"  -g, --grant DURATION  after the batch is approved, grant each selected\n"
	"                      command for DURATION (N s, m or h, e.g. 10m, 1h; at\n"
	"                      most 24h): the same requester and agent may run it\n"
	"                      again, exactly, without review. Only YOU commands\n"
	"                      with an exact argv, no files, no shell or inline code\n"
	"                      and no risk badge; anything else is refused before\n"
	"                      anything runs (see warrant grants)\n"
	"  --granted           approve only if every selected command has a live\n"
	"                      grant that matches it exactly (how a request that\n"
	"                      grants cover is run; its ledger names the grants)\n"
	"  --passkey           with --run: your enrolled passkey signs this run, and\n"
	"                      the runner checks it as root instead of sudo asking\n"
	"                      for your password (`warrant passkey add` enrols it;\n"
	"                      docs/passkeys.md), asked of a security key plugged\n"
	"                      in here; a ROOT command must be selected\n"
	"  --passkey-relay     as --passkey, the assertion asked through standard\n"
	"                      input, a socket (how the daemon's page approves):\n"
	"                      one JSON request line out, one answer line in\n"
	"  -f, --feedback TEXT a note for the agent with --deny (UTF-8, at most\n"
	"                      4096 bytes)\n"
	"  -t, --to REVIEWER   as a co-reviewer under the host's two-person rule: show\n"
	"                      REVIEWER's gate (through their daemon), ask \"Approve?\"\n"
	"                      on this terminal and leave your approval of exactly the\n"
	"                      selected commands in the review spool (--approve), or\n"
	"                      deny the gate (--deny); REVIEWER then runs it\n"
	"  -j, --json          print the result as JSON\n",
	.exec = cmd_answer_exec,
};

#define MAX_SELECT	128

/* Show the gate on the terminal, as it is sealed, then ask; 1 for yes,
 * 0 for no, -1 when there is no terminal. */
static int
confirm(struct store *st, const char *id)
{
	char line[16] = "";
	json_t *g;
	FILE *tty;
	int yes;

	if ((tty = fopen("/dev/tty", "r+e")) == NULL)
		return -1;
	if ((g = store_gate(st, id, 1)) != NULL) {
		gate_print_full(tty, g, st->dir);
		fputc('\n', tty);
		json_decref(g);
	}
	fprintf(tty, "Approve %s? [y/N] ", id);
	fflush(tty);
	yes = fgets(line, sizeof line, tty) != NULL && (line[0] == 'y' || line[0] == 'Y');
	fclose(tty);
	return yes;
}

/* The grants an approval made, or why it made none. */
static void
print_grants(const json_t *grants)
{
	char when[32];
	json_t *g;
	size_t i;

	if (json_is_object(grants)) {
		printf("no grant made: %s\n", json_str(grants, "message"));
		return;
	}
	json_array_foreach(grants, i, g) {
		format_time(json_integer_value(json_object_get(g, "expires_at")), when,
		    sizeof when);
		printf("granted %s: command %s, until %s\n", json_str(g, "id"),
		    json_str(g, "command"), when);
	}
}

static void
print_human(const json_t *r)
{
	json_t *l = json_object_get(r, "ledger");
	const char *msg = json_string_value(json_object_get(r, "message"));

	printf("%s: %s", json_string_value(json_object_get(r, "request_id")),
	    json_string_value(json_object_get(r, "status")));
	if (json_is_string(json_object_get(r, "outcome")))
		printf(" (%s)", json_string_value(json_object_get(r, "outcome")));
	putchar('\n');
	if (msg != NULL) {
		text_print(stdout, msg);
		putchar('\n');
	}
	ledger_print(stdout, l);
	print_grants(json_object_get(r, "grants"));
}

static int
deny(struct store *st, const char *id, const char *feedback, int json)
{
	int rc = gate_deny(st, id, feedback);
	json_t *r;

	if (rc < 0)
		return EXIT_INTERNAL;
	r = json_pack("{s:s,s:s,s:s?}", "request_id", id, "status", rc == 0 ? "denied" :
	    "not_pending", "message", rc == 0 ? NULL :
	    "the gate is not pending, or its approval is being executed");
	if (json)
		print_json(r);
	else
		print_human(r);
	json_decref(r);
	return rc == 0 ? EXIT_OK : EXIT_REFUSED;
}

/* A refused --grant: said like any refused answer; nothing ran. */
static int
grant_refused(const char *id, long long seconds, int json)
{
	json_t *r = json_pack("{s:s,s:s,s:s,s:s}", "request_id", id, "status", "pending",
	    "outcome", seconds == 0 ? "grant_duration" : "grant_too_long", "message",
	    seconds == 0 ? "--grant takes a duration such as 90s, 10m or 1h; nothing ran" :
	    "a grant lasts at most 24h; nothing ran");

	if (json)
		print_json(r);
	else
		print_human(r);
	json_decref(r);
	return EXIT_REFUSED;
}

/*
 * The store holding the gate, which answering never makes: with none
 * here, no gate is here to answer (an agent's shell: its requests are
 * the reviewer's to answer). 0 open, 1 none (said), -1 after saying why.
 */
static int
open_answer_store(struct store *st, const char *arg)
{
	const char *sock = getenv("WARRANT_SOCKET");
	char dir[PATH_MAX], *shown;
	int rc;

	memset(st, 0, sizeof *st);	/* st->full is read after a failure */
	rc = store_open_existing(st, dir);
	if (rc == 0 && refresh_store(st) != 0) {
		store_close(st);
		return -1;
	}
	if (rc != 1)
		return rc;
	shown = text_visible(arg);
	warnx("no gate matches '%s': there is no store here (%s), and answering makes none",
	    shown, dir);
	if (sock != NULL && *sock != '\0')
		warnx("your requests go to the reviewer's daemon at %s (WARRANT_SOCKET): only "
		    "the reviewer answers them, in their own shell; `warrant wait %s` waits "
		    "for the outcome", sock, shown);
	else
		warnx("only the reviewer answers, as the user whose store holds the gate; "
		    "the requester waits with `warrant wait %s`", shown);
	free(shown);
	return 1;
}

/* What `answer` was asked to do (answer_options). */
struct answer_args {
	const char	*select[MAX_SELECT];
	size_t		 nselect;
	const char	*feedback, *to, *grant;
	const char	*gate;		/* the ID operand */
	int		 run, no, json;
	struct approve_opts opts;
};

/* The options and the operand into a, checked together: -1, or the exit
 * status of a usage error or refused grant duration (said already). */
static int
answer_options(int argc, char **argv, struct answer_args *a)
{
	static const struct option longopts[] = {
		{ "run", no_argument, NULL, 'r' },
		{ "approve", no_argument, NULL, 'r' },
		{ "deny", no_argument, NULL, 'd' },
		{ "command", required_argument, NULL, 'c' },
		{ "detach", no_argument, NULL, 'D' },
		{ "no-detach", no_argument, NULL, 'N' },
		{ "feedback", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "via", required_argument, NULL, 'V' },
		{ "expect", required_argument, NULL, 'e' },
		{ "you-only", no_argument, NULL, 'Y' },
		{ "to", required_argument, NULL, 't' },
		{ "grant", required_argument, NULL, 'g' },
		{ "granted", no_argument, NULL, 'G' },
		{ "passkey", no_argument, NULL, 'P' },
		{ "passkey-relay", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	struct approve_opts *o = &a->opts;
	int ch;

	while ((ch = getopt_long(argc, argv, "rdc:DNe:f:g:jt:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r': a->run = 1; break;
		case 'd': a->no = 1; break;
		case 'c':
			if (a->nselect == MAX_SELECT)
				return usage_error(&cmd_answer_entry, "too many -c");
			a->select[a->nselect++] = optarg;
			break;
		case 'D': o->detach = 1; break;
		case 'N': o->detach = 0; break;
		case 'e': o->expect = optarg; break;
		case 'Y': o->you_only = 1; break;
		case 'f': a->feedback = optarg; break;
		case 'j': a->json = 1; break;
		case 't': a->to = optarg; break;
		case 'g': a->grant = optarg; break;
		case 'G': o->granted = 1; break;
		case 'P': o->passkey = 1; break;
		case 'R': o->passkey = o->passkey_relay = 1; break;
		case 'V':
			if (strcmp(optarg, "sudo") != 0)
				return usage_error(&cmd_answer_entry, "--via takes only 'sudo'");
			o->via_sudo = 1;
			break;
		default:
			return usage_error(&cmd_answer_entry, NULL);
		}
	}
	if (optind != argc - 1)
		return usage_error(&cmd_answer_entry, "give exactly one ID");
	a->gate = argv[optind];
	if (a->run && a->no)
		return usage_error(&cmd_answer_entry, "--run and --deny exclude each other");
	if (a->no && a->nselect > 0)
		return usage_error(&cmd_answer_entry, "a denial is of the whole gate: no -c");
	if (a->feedback != NULL && !a->no)
		return usage_error(&cmd_answer_entry, "-f goes with --deny");
	if (a->feedback != NULL && !feedback_ok(a->feedback))
		return usage_error(&cmd_answer_entry, "-f: %s", FEEDBACK_RULE);
	if ((a->grant != NULL || o->granted) && (!a->run || a->to != NULL || o->via_sudo))
		return usage_error(&cmd_answer_entry, "--grant and --granted go with --run "
		    "(no --to, no --via sudo)");
	if (o->passkey && (!a->run || a->to != NULL || o->via_sudo || o->you_only ||
	    a->grant != NULL || o->granted))
		return usage_error(&cmd_answer_entry, "--passkey goes with --run "
		    "(no --to, --via sudo, --you-only, --grant or --granted)");
	if (a->grant != NULL && o->granted)
		return usage_error(&cmd_answer_entry, "--grant and --granted exclude each other");
	if (a->grant != NULL && (o->grant_seconds = grant_duration_parse(a->grant)) <= 0)
		return grant_refused(a->gate, o->grant_seconds, a->json);
	if (a->to != NULL && (o->detach != -1 || o->via_sudo || o->expect != NULL ||
	    o->you_only))
		return usage_error(&cmd_answer_entry, "--to goes with --approve or --deny, "
		    "-c, -f and -j only");
	return -1;
}

/* Answer gate a->gate of the reviewer's own store: ask when neither
 * --run nor --deny was given, deny, or approve and run. */
static int
answer_gate(struct answer_args *a)
{
	char id[GATE_ID_LEN + 1];
	struct store st;
	json_t *r;
	int rc, code;

	if ((rc = open_answer_store(&st, a->gate)) != 0) {
		if (rc > 0)
			return EXIT_REFUSED;
		/* said on standard error; a full disk is the answer's outcome too */
		if (a->json && st.full) {
			r = json_pack("{s:s,s:s,s:s,s:s++++}", "request_id", a->gate,
			    "status", "pending", "outcome", "state_full", "message",
			    "the state directory ", st.dir, " is full: ", st.path,
			    " cannot be written; nothing ran: free space there and answer again");
			print_json(r);
			json_decref(r);
		}
		return EXIT_INTERNAL;
	}
	if ((rc = gate_arg(&st, a->gate, id)) != EXIT_OK) {
		store_close(&st);
		return rc;
	}
	if (!a->run && !a->no) {
		if ((rc = confirm(&st, id)) < 0) {
			store_close(&st);
			return usage_error(&cmd_answer_entry,
			    "no terminal to ask on: say --run or --deny");
		}
		if (rc == 0) {
			store_close(&st);
			printf("%s: not approved; the gate stays pending (use --deny to deny it)\n", id);
			return EXIT_REFUSED;
		}
	}
	if (a->no) {
		rc = deny(&st, id, a->feedback, a->json);
		store_close(&st);
		return rc;
	}
	r = approve_run(&st, id, a->select, a->nselect, &a->opts, &code);
	if (r != NULL) {
		if (a->json)
			print_json(r);
		else
			print_human(r);
		json_decref(r);
		fflush(stdout);
	}
	/* the retention policy's pruning, after the answer is out (cmd-gc.c) */
	(void)gc_prune_default(&st);
	store_close(&st);
	return code;
}

static int
cmd_answer_exec(int argc, char **argv)
{
	struct answer_args a = { .opts = { .detach = -1 } };
	int rc;

	/* before anything else: no process of our uid may attach to us */
	if (approve_guard() != 0)
		warnx("this process is being traced: it will refuse to approve");
	if ((rc = answer_options(argc, argv, &a)) >= 0)
		return rc;
	if (a.to != NULL)
		return cosign_answer(a.to, a.gate, a.select, a.nselect, a.no, a.feedback, a.json);
	return answer_gate(&a);
}
