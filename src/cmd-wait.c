/* SPDX-License-Identifier: ISC */
/*
 * warrant wait: block until a gate settles (or expires), then print its
 * ledger filtered by output_to_agent, with next.prompt, for the agent.
 * Exit 0 approved and all ran, 3 approved with a failure, 4 denied,
 * 5 expired, 6 still pending when -t ran out.
 */
#include <getopt.h>
#include <string.h>
#include <time.h>

#include "warrant.h"

static int cmd_wait_exec(int, char **);

const struct cmd_entry cmd_wait_entry = {
	.name = "wait",
	.usage = "ID [-t SECONDS] [-j]",
	.help =
	"Wait until a gate is settled, then print the outcome: the ledger (command\n"
	"output as the request's output_to_agent allows) and next.prompt, or the\n"
	"denial feedback. Exit 0 approved and every command ran, 3 approved with a\n"
	"failed command, 4 denied, 5 expired, 6 still pending after -t.\n\n"
	"  -t, --timeout SECONDS  give up after this long (default: until the gate\n"
	"                         settles or expires)\n"
	"  -j, --json             print the outcome as JSON\n",
	.exec = cmd_wait_exec,
};

#define EXIT_WAIT_FAILED	3
#define EXIT_WAIT_DENIED	4
#define EXIT_WAIT_EXPIRED	5
#define EXIT_WAIT_PENDING	6

static void
print_human(const json_t *o)
{
	json_t *l = json_object_get(o, "ledger"), *e;
	const char *s;
	size_t i;

	printf("%s: %s\n", json_string_value(json_object_get(o, "request_id")),
	    json_string_value(json_object_get(o, "state")));
	json_array_foreach(json_object_get(l, "entries"), i, e) {
		printf("== %s (%s) %s", json_string_value(json_object_get(e, "id")),
		    json_string_value(json_object_get(e, "as")),
		    json_string_value(json_object_get(e, "status")));
		if (json_is_integer(json_object_get(e, "exit_code")))
			printf(", exit %lld", (long long)json_integer_value(json_object_get(e, "exit_code")));
		putchar('\n');
		if ((s = json_string_value(json_object_get(e, "error"))) != NULL) {
			text_print(stdout, s);
			putchar('\n');
		}
		if ((s = json_string_value(json_object_get(e, "output_tail"))) != NULL)
			text_print_lines(stdout, s, "   | ");
	}
	if ((s = json_string_value(json_object_get(o, "feedback"))) != NULL) {
		fputs("feedback: ", stdout);
		text_print(stdout, s);
		putchar('\n');
	}
	if ((s = json_string_value(json_object_get(o, "next_prompt"))) != NULL) {
		fputs("next: ", stdout);
		text_print(stdout, s);
		putchar('\n');
	}
}

/* Wait for id and print its outcome; the exit code of docs/design.md §6. */
int
wait_gate(struct store *st, const char *id, long timeout, int json)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	int64_t deadline = timeout >= 0 ? now_seconds() + timeout : INT64_MAX;
	const char *state;
	json_t *g, *ledger, *out;
	int code;

	for (;;) {
		if (refresh_store(st) != 0 ||
		    (g = store_gate(st, id, 0)) == NULL)
			return EXIT_INTERNAL;
		state = json_string_value(json_object_get(g, "state"));
		if (strcmp(state, "pending") != 0 || now_seconds() >= deadline)
			break;
		json_decref(g);
		nanosleep(&pause, NULL);
	}
	out = gate_outcome(st, g);
	ledger = json_object_get(out, "ledger");
	code = strcmp(state, "pending") == 0 ? EXIT_WAIT_PENDING :
	    strcmp(state, "denied") == 0 ? EXIT_WAIT_DENIED :
	    strcmp(state, "expired") == 0 ? EXIT_WAIT_EXPIRED :
	    json_is_object(ledger) && ledger_all_ran(ledger) ? EXIT_OK : EXIT_WAIT_FAILED;
	if (json)
		print_json(out);
	else
		print_human(out);
	json_decref(out);
	json_decref(g);
	return code;
}

static int
cmd_wait_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	char id[GATE_ID_LEN + 1];
	long timeout = -1;
	int ch, json = 0, rc;
	struct store st;

	while ((ch = getopt_long(argc, argv, "t:j", longopts, NULL)) != -1) {
		switch (ch) {
		case 't':
			if (parse_count(optarg, 0, 86400 * 7, &timeout) != 0)
				return usage_error(&cmd_wait_entry, "-t takes whole seconds");
			break;
		case 'j':
			json = 1;
			break;
		default:
			return usage_error(&cmd_wait_entry, NULL);
		}
	}
	if (optind != argc - 1)
		return usage_error(&cmd_wait_entry, "give exactly one ID");
	if (store_open(&st) != 0)
		return EXIT_INTERNAL;
	if ((rc = gate_arg(&st, argv[optind], id)) != EXIT_OK) {
		store_close(&st);
		return rc;
	}
	rc = wait_gate(&st, id, timeout, json);
	store_close(&st);
	return rc;
}
