/* SPDX-License-Identifier: ISC */
/*
 * warrant mcp: serve the Model Context Protocol on standard input and
 * output for one agent session (the agent's client starts it). The tool
 * request_commands turns a request into a gate and returns its outcome;
 * only a human with `warrant answer` approves anything.
 */
#include <err.h>
#include <unistd.h>

#include "warrant.h"
#include "mcp/mcp.h"

static int cmd_mcp_exec(int, char **);

const struct cmd_entry cmd_mcp_entry = {
	.name = "mcp",
	.usage = "",
	.help =
	"Serve the Model Context Protocol (JSON-RPC 2.0, one message per line) on\n"
	"standard input and output, for an agent that starts warrant as its MCP\n"
	"server. The tool request_commands (also listed as request_root_commands)\n"
	"takes a request as warrant-request(5) describes it, creates a gate, and\n"
	"returns the ledger once a reviewer has answered with warrant answer; a\n"
	"denied or expired gate, or a refused request, is returned as an error.\n"
	"A call the agent cancels, or that is still waiting when the session ends,\n"
	"withdraws its gate. Diagnostics go to standard error. See docs/agents.md\n"
	"for registering warrant with Claude Code, Codex and OpenCode.\n",
	.exec = cmd_mcp_exec,
};

static int
cmd_mcp_exec(int argc, char **argv)
{
	if (argc != 1)
		return usage_error(&cmd_mcp_entry, "unexpected argument '%s'", argv[1]);
	if (isatty(STDIN_FILENO))
		warnx("mcp: reading JSON-RPC messages from the terminal; an agent "
		    "normally starts this (see docs/agents.md)");
	return mcp_serve();
}
