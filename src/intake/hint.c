/* SPDX-License-Identifier: ISC */
/*
 * What to do about a refusal: an agent reads refusals and retries, so each
 * code (and the common shapes behind it) says how to ask instead. Shown
 * after the human line, as "hint" in the -j object and in the MCP text.
 */
#include <string.h>

#include "intake.h"

static const struct {
	const char	*code;
	const char	*hint;
} hints[] = {
	{ "nested_privilege_tool", "ROOT commands already run as root: drop sudo (or doas, "
	    "pkexec, su) and start argv at the program itself" },
	{ "interactive_program", "a shell or interactive program cannot be reviewed: give each "
	    "step as its own command, in order, with its program in argv[0] (YOU commands may "
	    "use \"command\" for a shell string)" },
	{ "shell_request", "inline code and shell strings cannot be reviewed: give each step as "
	    "its own command, in order, and keep code in a root-owned file" },
	{ "writable_executable", "root never runs a file the agent can change: give it as a "
	    "reviewed file (\"files\": {\"tool\": {\"snapshot\": PATH, \"mode\": \"0755\"}}) "
	    "and have an earlier ROOT command install it (argv [\"install\", \"-m\", \"0755\", "
	    "{\"file\": \"tool\"}, \"/usr/local/bin/tool\"]), or run it as a YOU command" },
	{ "writable_argument", "root never reads or acts on a path the agent can change: put "
	    "what root must read in \"files\" (inline \"content\" or a \"snapshot\") and name "
	    "it in argv as {\"file\": NAME}, or name a root-owned path" },
	{ "credential_field_rejected", "never put a secret in a request: let the program read "
	    "it from a root-owned file or ask for it itself" },
	{ "forbidden_env", "that variable changes what programs load or run: leave it out, or "
	    "pass the setting as an option the reviewer can read" },
	{ "cwd_on_root_command", "ROOT commands run in the request's cwd: set \"cwd\" at the top "
	    "level, not on the command" },
	{ "unsupported_schema", "send \"schema_version\": 1 (warrant-request(5))" },
	{ "invalid_json", "send one JSON object (warrant-request(5) has the schema)" },
	{ "unknown_machine", "leave \"machine\" empty to run on this host, or name a machine "
	    "the reviewer enrolled (`warrant machine list`)" },
	{ "bad_destination", "give ssh://USER@HOST or ssh://USER@HOST:PORT: a user name and a "
	    "host name or address only, no ssh options" },
	{ "machine_unreachable", "the machine cannot be reached over ssh now: try again later, "
	    "or ask the reviewer to run `warrant machine check NAME`" },
	{ "machine_changed", "the machine's host key or runner is not the enrolled one: the "
	    "reviewer must check it and enroll it again (`warrant machine add`)" },
	{ "machine_incompatible", "the machine needs the same warrant installed, reachable as "
	    "`warrant` from its user's login shell (or enrolled with --warrant PATH)" },
	{ "remote_files", "leave \"files\" out of requests for another machine: have an "
	    "earlier command on the target produce the file" },
	{ "user_namespace", "ask from the initial user namespace (not inside unshare or a "
	    "rootless container's namespace), so what you can change can be judged" },
	{ "quota_exceeded", "wait for the reviewer to answer your pending requests" },
};

const char *
refusal_hint(const struct refusal *r)
{
	const char *q = strchr(r->message, '\'');
	size_t i, n = strlen(r->path);

	if (strcmp(r->code, "bad_executable") == 0) {
		/* '...' quotes the program as given */
		if (q != NULL && strchr(q + 1, ' ') != NULL &&
		    strchr(q + 1, ' ') < strchr(q + 1, '\''))
			return "split the command line into argv words: [\"systemctl\", "
			    "\"restart\", \"nginx\"], not [\"systemctl restart nginx\"]";
		if (strstr(r->message, "relative path") != NULL)
			return "root runs only programs named by an absolute path or a bare name "
			    "on the trusted PATH, never the agent's files: install the script "
			    "root-owned first (an earlier ROOT command), or run it as a YOU command";
		return "name a program that exists, by absolute path or by a bare name on "
		    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	}
	if (strcmp(r->code, "invalid_field") == 0) {
		if (strcmp(r->path, "$.reason") == 0 || (n >= 4 && strcmp(r->path + n - 4, ".why") == 0))
			return "say why in plain words: the reviewer reads \"reason\" and each "
			    "command's \"why\" to decide whether to approve";
		return "see warrant-request(5) for the fields and their limits";
	}
	for (i = 0; i < sizeof hints / sizeof hints[0]; i++)
		if (strcmp(hints[i].code, r->code) == 0)
			return hints[i].hint;
	return NULL;
}
