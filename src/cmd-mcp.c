/* SPDX-License-Identifier: ISC */
/*
 * warrant mcp: serve the Model Context Protocol on standard input and
 * output for one agent session (the agent's client starts it). The tool
 * request_commands turns a request into a gate and returns its outcome;
 * only a human with `warrant answer` approves anything.
 */
#include <err.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "warrant.h"
#include "mcp/mcp.h"

static int cmd_mcp_exec(int, char **);

const struct cmd_entry cmd_mcp_entry = {
	.name = "mcp",
	.summary = "the request tool for an agent, over MCP on standard input/output",
	.group = CMD_AGENT,
	.usage = "[--to REVIEWER]",
	.help =
	"Serve the Model Context Protocol (JSON-RPC 2.0, one message per line) on\n"
	"standard input and output, for an agent that starts warrant as its MCP\n"
	"server. The tool request_commands (also listed as request_root_commands)\n"
	"takes a request as warrant-request(5) describes it, creates a gate, and\n"
	"returns the ledger once a reviewer has answered with warrant answer; a\n"
	"denied or expired gate, or a refused request, is returned as an error.\n"
	"A call answers after 45 s at the latest, with the request still pending if\n"
	"the reviewer has not answered (MCP clients give up on a call after 60 s);\n"
	"the tool wait_for_review then waits again by the request's id.\n"
	"A call the agent cancels while it waits, or that is still waiting when the\n"
	"session ends, withdraws its gate; a call that answered pending withdraws\n"
	"nothing. Diagnostics go to standard error. See docs/agents.md for\n"
	"registering warrant with Claude Code, Codex and OpenCode.\n\n"
	"  --to REVIEWER  send the requests to REVIEWER's daemon (warrant serve), for\n"
	"                 an agent that runs as its own user; WARRANT_SOCKET=PATH does\n"
	"                 the same for the socket at PATH\n\n"
	"WARRANT_MCP_WAIT=SECONDS (1 to 86400, default 45) sets how long a call\n"
	"waits before it answers pending, for a client that waits longer.\n",
	.exec = cmd_mcp_exec,
};

static int
cmd_mcp_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "to", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 }
	};
	const char *to = NULL, *wait = getenv("WARRANT_MCP_WAIT");
	long answer_s = MCP_ANSWER_SECONDS;
	int ch;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (ch != 'T')
			return usage_error(&cmd_mcp_entry, NULL);
		to = optarg;
	}
	if (optind != argc)
		return usage_error(&cmd_mcp_entry, "unexpected argument '%s'", argv[optind]);
	if (wait != NULL && *wait != '\0' &&
	    parse_count(wait, 1, MCP_ANSWER_MAX, &answer_s) != 0)
		return usage_error(&cmd_mcp_entry, "WARRANT_MCP_WAIT takes whole seconds, "
		    "1 to %d", MCP_ANSWER_MAX);
	if (isatty(STDIN_FILENO))
		warnx("mcp: reading JSON-RPC messages from the terminal; an agent "
		    "normally starts this (see docs/agents.md)");
	return mcp_serve(to, answer_s);
}
