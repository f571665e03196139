/* SPDX-License-Identifier: ISC */
/*
 * warrant wait: block until a gate settles (or expires), then print its
 * ledger filtered by output_to_agent, with next.prompt, for the agent.
 * Exit 0 approved and all ran, 3 approved with a failure, 4 denied,
 * 5 expired, 6 still pending when -t ran out, 7 the reviewer's daemon
 * cannot be reached (with --to or WARRANT_SOCKET); 1 at once when its
 * reader goes away.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include "warrant.h"

static int cmd_wait_exec(int, char **);

const struct cmd_entry cmd_wait_entry = {
	.name = "wait",
	.summary = "wait until a gate is settled, then print its outcome",
	.group = CMD_AGENT,
	.usage = "ID [-t SECONDS] [-j] [--to REVIEWER]",
	.help =
	"Wait until a gate is settled, then print the outcome: the ledger (command\n"
	"output as the request's output_to_agent allows) and next.prompt, or the\n"
	"denial feedback.\n\n"
	"  -t, --timeout SECONDS  give up after this long (default: until the gate\n"
	"                         settles or expires)\n"
	"  -j, --json             print the outcome as JSON\n"
	"  --to REVIEWER          ask REVIEWER's daemon (warrant serve) instead of\n"
	"                         your own store; WARRANT_SOCKET=PATH does the same\n"
	"                         for the socket at PATH.\n",
	.exec = cmd_wait_exec,
	.exits = "01234567",
};

static void
print_human(const json_t *o)
{
	json_t *l = json_object_get(o, "ledger"), *e;
	const char *s;
	size_t i;

	printf("%s: %s\n", json_string_value(json_object_get(o, "request_id")),
	    json_string_value(json_object_get(o, "state")));
	json_array_foreach(json_object_get(l, "entries"), i, e) {
		printf("== %s (%s) ", json_string_value(json_object_get(e, "id")),
		    json_string_value(json_object_get(e, "as")));
		entry_status_print(stdout, e);
		if (json_is_integer(json_object_get(e, "exit_code")))
			printf(", exit %lld", (long long)json_integer_value(json_object_get(e, "exit_code")));
		/* run with no review, by the reviewer's standing grant */
		if ((s = json_string_value(json_object_get(e, "granted_by"))) != NULL) {
			fputs(", granted by ", stdout);
			text_print(stdout, s);
		}
		putchar('\n');
		if ((s = json_string_value(json_object_get(e, "error"))) != NULL) {
			text_print(stdout, s);
			putchar('\n');
		}
		confinement_print(stdout, e, "   ");
		if ((s = json_string_value(json_object_get(e, "output_tail"))) != NULL)
			text_print_output(stdout, s, "   | ", "   | ");
	}
	/* the reviewer's and the agent's words as they are (text_output) */
	if ((s = json_string_value(json_object_get(o, "feedback"))) != NULL)
		text_print_output(stdout, s, "feedback: ", "          ");
	if ((s = json_string_value(json_object_get(o, "next_prompt"))) != NULL)
		text_print_output(stdout, s, "next: ", "      ");
}

/* Print an outcome (link_wait) as JSON or for people; returns code. */
int
wait_print(const json_t *outcome, int json)
{
	if (json)
		return print_json(outcome) == 0 ? EXIT_OK : EXIT_INTERNAL;
	print_human(outcome);
	return EXIT_OK;
}

/*
 * Whoever reads the outcome went away (the agent's pipe closed, its
 * terminal hung up, whether or not a SIGHUP came): nobody is left to
 * tell, so end now rather than wait up to a day for the gate. A watcher
 * thread, since the wait itself blocks in the store or on the daemon's
 * socket; poll asks stdout for nothing but its error and hangup, which
 * a regular file or /dev/null never reports.
 */
static void *
watch_reader(void *arg)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = 0 };

	(void)arg;
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	if (p.revents & (POLLERR | POLLHUP))
		_exit(EXIT_INTERNAL);
	return NULL;
}

static int
cmd_wait_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "to", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 }
	};
	const char *to = NULL;
	json_t *outcome = NULL;
	long timeout = -1;
	int ch, json = 0, rc;
	struct link l;

	while ((ch = getopt_long(argc, argv, "t:j", longopts, NULL)) != -1) {
		switch (ch) {
		case 't':
			if (parse_count(optarg, 0, 86400 * 7, &timeout) != 0)
				return usage_error(&cmd_wait_entry, "-t takes whole seconds");
			break;
		case 'j':
			json = 1;
			break;
		case 'T':
			to = optarg;
			break;
		default:
			return usage_error(&cmd_wait_entry, NULL);
		}
	}
	if (optind != argc - 1)
		return usage_error(&cmd_wait_entry, "give exactly one ID");
	if ((rc = link_open(&l, to)) != EXIT_OK)
		return rc;
	if (pthread_create(&(pthread_t){ 0 }, NULL, watch_reader, NULL) != 0)
		warnx("wait: cannot watch for the reader going away");
	rc = link_wait(&l, argv[optind], timeout, &outcome);
	if (outcome != NULL && wait_print(outcome, json) != EXIT_OK)
		rc = EXIT_INTERNAL;
	json_decref(outcome);
	link_close(&l);
	return rc;
}
