/* SPDX-License-Identifier: ISC */
/*
 * warrant request: read one schema v1 request on stdin, validate it whole,
 * seal its manifest and store it as a pending gate; print the gate
 * descriptor. A refusal stores nothing and exits 2.
 */
#include <err.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

static int cmd_request_exec(int, char **);

const struct cmd_entry cmd_request_entry = {
	.name = "request",
	.summary = "ask for commands: a gate from a JSON request on standard input",
	.group = CMD_AGENT,
	.usage = "[-j] [-o AGENT] [-p PROJECT] [-w] [--to REVIEWER] < request.json",
	.help =
	"Create a gate from one JSON request on standard input (warrant-request(5)).\n"
	"Prints the gate descriptor as JSON. A refused request stores nothing.\n\n"
	"  -j, --json            print a refusal as {\"error\":{code,message,path}}\n"
	"  -o, --origin-agent A  the agent making the request\n"
	"  -p, --project P       the project the request belongs to\n"
	"  -w, --wait            wait for the outcome and print it as warrant wait\n"
	"                        does (the descriptor goes to standard error)\n"
	"  --to REVIEWER         send it to REVIEWER's daemon (warrant serve), for an\n"
	"                        agent that runs as its own user; WARRANT_SOCKET=PATH\n"
	"                        does the same for the socket at PATH.\n",
	.exec = cmd_request_exec,
	.exits = "01234567",
};

static int
refused(const struct refusal *r, int json)
{
	json_t *j;

	if (json) {
		j = refusal_json(r);
		print_json(j);
		json_decref(j);
		return EXIT_REFUSED;
	}
	return refusal_print("request", r);
}

/* What `request` was asked to do (request_options). */
struct request_args {
	const char	*agent, *project;
	const char	*to;		/* the reviewer whose daemon takes it */
	int		 json, wait;
};

/* The options into a, checked together: -1, or the exit status of a
 * usage error (said already). */
static int
request_options(int argc, char **argv, struct request_args *a)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "origin-agent", required_argument, NULL, 'o' },
		{ "project", required_argument, NULL, 'p' },
		{ "wait", no_argument, NULL, 'w' },
		{ "to", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "jo:p:w", longopts, NULL)) != -1) {
		switch (ch) {
		case 'w':
			a->wait = 1;
			break;
		case 'j':
			a->json = 1;
			break;
		case 'o':
			a->agent = optarg;
			break;
		case 'p':
			a->project = optarg;
			break;
		case 'T':
			a->to = optarg;
			break;
		default:
			return usage_error(&cmd_request_entry, NULL);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_request_entry, "unexpected argument '%s'", argv[optind]);
	if ((a->agent != NULL && !label_valid(a->agent)) ||
	    (a->project != NULL && !label_valid(a->project)))
		return usage_error(&cmd_request_entry,
		    "agent and project must be 1-128 printable characters");
	return -1;
}

/* The request on standard input into *buf (*len bytes): EXIT_OK, or
 * the exit status after saying why there is none to send. */
static int
request_read(char **buf, size_t *len, int json)
{
	struct refusal r;
	int rc;

	if (isatty(STDIN_FILENO))
		fputs("warrant request: reading one JSON request on standard input "
		    "(end it with Ctrl-D; warrant-request(5) has the schema)\n", stderr);
	rc = read_bounded(STDIN_FILENO, buf, len, REQUEST_MAX);
	if (rc < 0) {
		warnx("reading the request: %m");
		return EXIT_INTERNAL;
	}
	if (rc > 0 || *len == 0) {
		free(*buf);
		if (rc > 0)
			refuse(&r, "invalid_field", "$", "the request is larger than %d bytes "
			    "(reading stopped there)", REQUEST_MAX);
		else
			refuse(&r, "invalid_json", "$", "no request on standard input");
		return refused(&r, json);
	}
	return EXIT_OK;
}

/* Send the request on standard input; print its gate descriptor, or
 * with --wait the outcome. */
static int
request_send(const struct request_args *a)
{
	char *buf = NULL;
	json_t *desc = NULL, *outcome = NULL;
	struct refusal r;
	struct link l;
	size_t len;
	int rc;

	if ((rc = request_read(&buf, &len, a->json)) != EXIT_OK)
		return rc;
	/* connected only now: the daemon gives a message 30 s to arrive */
	if ((rc = link_open(&l, a->to)) != EXIT_OK) {
		if (rc == EXIT_UNREACHABLE)
			warnx("nothing was sent: the request can be sent again once the daemon runs");
		free(buf);
		return rc;
	}
	if ((rc = link_submit(&l, buf, len, a->agent, a->project, &desc, &r)) == EXIT_REFUSED)
		rc = refused(&r, a->json);
	if (rc != EXIT_OK)
		goto out;
	if (a->wait) {
		char *line = json_dumps(desc, JSON_COMPACT);

		fprintf(stderr, "%s\n", line != NULL ? line : "");
		free(line);
		rc = link_wait(&l, json_str(desc, "request_id"), -1, &outcome);
		if (outcome != NULL && wait_print(outcome, a->json) != EXIT_OK)
			rc = EXIT_INTERNAL;
	} else
		rc = print_json(desc) == 0 ? EXIT_OK : EXIT_INTERNAL;
out:
	json_decref(outcome);
	json_decref(desc);
	free(buf);
	link_close(&l);
	return rc;
}

static int
cmd_request_exec(int argc, char **argv)
{
	struct request_args a = { 0 };
	int rc;

	if ((rc = request_options(argc, argv, &a)) >= 0)
		return rc;
	return request_send(&a);
}
