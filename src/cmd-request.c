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
	.usage = "[-j] [-o AGENT] [-p PROJECT] [-w] < request.json",
	.help =
	"Create a gate from one JSON request on standard input (warrant-request(5)).\n"
	"Prints the gate descriptor as JSON. A refused request stores nothing and\n"
	"exits 2.\n\n"
	"  -j, --json            print a refusal as {\"error\":{code,message,path}}\n"
	"  -o, --origin-agent A  the agent making the request\n"
	"  -p, --project P       the project the request belongs to\n"
	"  -w, --wait            wait for the outcome and print it as warrant wait\n"
	"                        does (the descriptor goes to standard error)\n",
	.exec = cmd_request_exec,
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

/* A label given on the command line: short, printable, one line. */
static int
valid_label(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 128)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

static int
cmd_request_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "origin-agent", required_argument, NULL, 'o' },
		{ "project", required_argument, NULL, 'p' },
		{ "wait", no_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 }
	};
	const char *agent = NULL, *project = NULL;
	char *buf = NULL;
	json_t *desc = NULL;
	struct requester me;
	struct refusal r;
	size_t len;
	int ch, json = 0, wait = 0, rc;

	while ((ch = getopt_long(argc, argv, "jo:p:w", longopts, NULL)) != -1) {
		switch (ch) {
		case 'w':
			wait = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'o':
			agent = optarg;
			break;
		case 'p':
			project = optarg;
			break;
		default:
			return usage_error(&cmd_request_entry, NULL);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_request_entry, "unexpected argument '%s'", argv[optind]);
	if ((agent != NULL && !valid_label(agent)) || (project != NULL && !valid_label(project)))
		return usage_error(&cmd_request_entry,
		    "agent and project must be 1-128 printable characters");

	if (isatty(STDIN_FILENO))
		fputs("warrant request: reading one JSON request on standard input "
		    "(end it with Ctrl-D; warrant-request(5) has the schema)\n", stderr);
	rc = read_bounded(STDIN_FILENO, &buf, &len, REQUEST_MAX);
	if (rc < 0) {
		warnx("reading the request: %m");
		return EXIT_INTERNAL;
	}
	if (rc > 0) {
		refuse(&r, "invalid_field", "$", "the request is larger than %d bytes "
		    "(reading stopped there)", REQUEST_MAX);
		return refused(&r, json);
	}
	if (len == 0) {
		free(buf);
		refuse(&r, "invalid_json", "$", "no request on standard input");
		return refused(&r, json);
	}
	if ((rc = requester_self(&me, &r)) == EXIT_OK) {
		rc = gate_submit(buf, len, &me, agent, project, &desc, &r);
		requester_free(&me);
	} else if (rc == EXIT_INTERNAL)
		warnx("cannot read your user and groups: %m");
	free(buf);
	if (rc == EXIT_REFUSED)
		return refused(&r, json);
	if (rc != EXIT_OK)
		return EXIT_INTERNAL;
	if (wait) {
		char *line = json_dumps(desc, JSON_COMPACT);
		struct store st;

		fprintf(stderr, "%s\n", line != NULL ? line : "");
		free(line);
		rc = EXIT_INTERNAL;
		if (store_open(&st) == 0) {
			rc = wait_gate(&st, json_string_value(json_object_get(desc, "request_id")),
			    -1, json);
			store_close(&st);
		}
	} else
		rc = print_json(desc) == 0 ? EXIT_OK : EXIT_INTERNAL;
	json_decref(desc);
	return rc;
}
