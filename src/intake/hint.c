/* SPDX-License-Identifier: ISC */
/*
 * Every code a request can be refused with, what it means and what to do
 * about it: an agent reads refusals and retries, so each code (and the
 * common shapes behind it) says how to ask instead. The hint is shown
 * after the human line, as "hint" in the -j object and in the MCP text;
 * `warrant skill` prints the whole table, so the two cannot drift. A code
 * the validator can emit that is missing here fails tests/unit/test-skill.c.
 */
#include <string.h>

#include "intake.h"

const struct refusal_code refusal_codes[] = {
	{ "invalid_json", "the input is not one valid JSON object: a syntax error, data after "
	    "it, a duplicate key, invalid UTF-8, a \\u0000 escape or an integer too large",
	    "send one JSON object (warrant-request(5) has the schema)" },
	{ "invalid_field", "a field is missing, unknown, of the wrong type, empty, too long or "
	    "out of range (the whole request is at most 256 KiB); the path names it",
	    "see warrant-request(5) for the fields and their limits" },
	{ "unsupported_schema", "schema_version is given and is not 1",
	    "send \"schema_version\": 1 (warrant-request(5))" },
	{ "cwd_on_root_command", "a ROOT command has a \"cwd\" of its own",
	    "ROOT commands run in the request's cwd: set \"cwd\" at the top level, not on "
	    "the command" },
	{ "nested_privilege_tool", "a command would run a privilege tool (sudo, su, doas, "
	    "pkexec and the like), as its program or inside its arguments",
	    "ROOT commands already run as root: drop sudo (or doas, pkexec, su) and start "
	    "argv at the program itself" },
	{ "interactive_program", "a ROOT command would run a shell or an interactive program "
	    "(bash, an editor, a pager), as its program or inside its arguments",
	    "a shell or interactive program cannot be reviewed: give each step as its own "
	    "command, in order, with its program in argv[0] (YOU commands may use \"command\" "
	    "for a shell string)" },
	{ "shell_request", "a ROOT command would hand a string or inline code to a shell or "
	    "an interpreter (\"-c\", an interpreter's code option, a tool option that runs a "
	    "command)",
	    "inline code and shell strings cannot be reviewed: give each step as its own "
	    "command, in order, and keep code in a root-owned file" },
	{ "bad_executable", "argv[0] names no program that can run: a relative path, a bare "
	    "name not on the trusted PATH, a path that does not resolve, or not a regular "
	    "executable file",
	    "name a program that exists, by absolute path or by a bare name on "
	    TRUSTED_PATH },
	{ "executable_too_large", "argv[0] names a file larger than 1 GiB: it is refused "
	    "before it is read, since sealing it means hashing all of it",
	    "name the program itself (programs are far smaller); a large tool is installed "
	    "by a package, then named by its path" },
	{ "writable_executable", "a ROOT command's program is a file the requester could "
	    "replace between review and run",
	    "root never runs a file the agent can change: give it as a reviewed file "
	    "(\"files\": {\"tool\": {\"snapshot\": PATH, \"mode\": \"0755\"}}) and have an "
	    "earlier ROOT command install it (argv [\"install\", \"-m\", \"0755\", {\"file\": "
	    "\"tool\"}, \"/usr/local/bin/tool\"]), or run it as a YOU command" },
	{ "writable_argument", "a ROOT command would read, run or act on a path the requester "
	    "could still change after review (a script, a configuration, a path it could turn "
	    "into a symbolic link)",
	    "root never reads or acts on a path the agent can change: put what root must read "
	    "in \"files\" (inline \"content\" or a \"snapshot\") and name it in argv as "
	    "{\"file\": NAME}, or name a root-owned path" },
	{ "relative_path", "a ROOT command names a file by a relative path (\"nc2hello\", "
	    "\"./x.deb\", \".\") and the request names no cwd: ROOT commands run in /, so it "
	    "would be /nc2hello, not the file in your directory",
	    "name the file by absolute path (/home/you/proj/nc2hello); to install a file you "
	    "made, give it as a reviewed file (\"files\") and name it {\"file\": NAME}" },
	{ "lookalike_word", "a word of a ROOT command starts with a character that only looks "
	    "like ASCII punctuation (U+2010 HYPHEN or U+2212 MINUS SIGN for '-', U+FF0F "
	    "FULLWIDTH SOLIDUS or U+2215 DIVISION SLASH for '/', a soft hyphen): the program "
	    "would read it as neither an option nor a path",
	    "type the ASCII character ('-', '/', '.', '~', '='): text copied from a web page "
	    "or a document often has typographic dashes" },
	{ "requester_process", "a ROOT command would enter or attach to a process (nsenter "
	    "--target, gdb -p, strace -p, /proc/PID/...) that the requester owns, started, or "
	    "whose user namespace it made, or one that cannot be judged (not running now)",
	    "root never enters or traces a process the agent controls: debug or trace your own "
	    "processes as a YOU command, or name a root-owned process that is running" },
	{ "credential_field_rejected", "something shaped like a credential (password=..., a "
	    "token, a private key) is in argv, a command string, env, a why or a file",
	    "never put a secret in a request: let the program read it from a root-owned file "
	    "or ask for it itself" },
	{ "forbidden_env", "an environment name that makes programs load or run code, or read "
	    "their options from elsewhere (LD_*, PATH, BASH_ENV, SUDO_* and the like)",
	    "that variable changes what programs load or run: leave it out, or pass the "
	    "setting as an option the reviewer can read" },
	{ "user_namespace", "the request comes from a process in a user namespace of its own "
	    "(unshare, a rootless container), where owners and writability cannot be judged",
	    "ask from the initial user namespace (not inside unshare or a rootless "
	    "container's namespace), so what you can change can be judged" },
	{ "unknown_machine", "\"machine\" names neither this host nor a machine the "
	    "reviewer enrolled",
	    "leave \"machine\" empty to run on this host, or name a machine the reviewer "
	    "enrolled (`warrant machine list`)" },
	{ "bad_destination", "a machine's destination is not ssh://USER@HOST[:PORT] with plain "
	    "names (a leading '-', spaces, quotes, control or shell characters, a bad port)",
	    "give ssh://USER@HOST or ssh://USER@HOST:PORT: a user name and a host name or "
	    "address only, no ssh options" },
	{ "machine_unreachable", "the machine could not be reached over ssh (BatchMode, 15 s); "
	    "the gate stays pending",
	    "the machine cannot be reached over ssh now: try again later, or ask the reviewer "
	    "to run `warrant machine check NAME`" },
	{ "machine_changed", "the machine's host key or runner is not the one enrolled; "
	    "nothing is sent to it",
	    "the reviewer must check the machine and enroll it again (`warrant machine add`)" },
	{ "machine_incompatible", "the machine's warrant is missing, or another version, or "
	    "says something it should not",
	    "the machine needs the same warrant installed, enrolled by this version (its "
	    "absolute path is pinned at `warrant machine add`)" },
	{ "remote_root_only", "the machine was enrolled with --root-via: it takes ROOT "
	    "commands only, through an account that runs nothing of the agent's",
	    "leave YOU commands out of requests for this machine" },
	{ "remote_files", "a request for another machine carries \"files\"",
	    "leave \"files\" out of requests for another machine: have an earlier command on "
	    "the target produce the file" },
	{ "remote_resolve_mismatch", "the machine answered with another program or "
	    "directory than the request names (a link to a program of another name, or an "
	    "answer that is not warrant's)",
	    "ask for the program by the name it resolves to on the machine, and give the cwd "
	    "as it resolves there; if you did, the machine's account answers in warrant's "
	    "place: tell the reviewer" },
	{ "quota_exceeded", "through the reviewer's daemon: too many gates of yours are "
	    "pending, too many requests came in a short time, or your gates hold too many "
	    "bytes of files; nothing was stored",
	    "wait for the reviewer to answer your pending requests, or withdraw one" },
	{ "blob_store_full", "the reviewer's store of reviewed files is full; nothing was "
	    "stored", "ask with smaller files or without them, or ask the reviewer to run "
	    "`warrant gc`" },
	{ NULL, NULL, NULL },
};

/* '...' quotes the program as given: a space inside it is a command line */
static int
split_words(const struct refusal *r)
{
	const char *q = strchr(r->message, '\'');

	return q != NULL && strchr(q + 1, ' ') != NULL && strchr(q + 1, ' ') < strchr(q + 1, '\'');
}

static int
relative_path(const struct refusal *r)
{
	return strstr(r->message, "relative path") != NULL;
}

static int
alternatives_menu(const struct refusal *r)
{
	return strstr(r->message, "asks which alternative to use") != NULL;
}

static int
reason_or_why(const struct refusal *r)
{
	size_t n = strlen(r->path);

	return strcmp(r->path, "$.reason") == 0 || (n >= 4 && strcmp(r->path + n - 4, ".why") == 0);
}

/* Hints for the common shapes behind a code, tried in order before the
 * code's own. */
const struct refusal_case refusal_cases[] = {
	{ "bad_executable", "argv[0] holds a whole command line", split_words,
	    "split the command line into argv words: [\"systemctl\", \"restart\", \"nginx\"], "
	    "not [\"systemctl restart nginx\"]" },
	{ "bad_executable", "argv[0] is a relative path", relative_path,
	    "root runs only programs named by an absolute path or a bare name on the trusted "
	    "PATH, never the agent's files: install the script root-owned first (an earlier "
	    "ROOT command), or run it as a YOU command" },
	{ "interactive_program", "update-alternatives --config or --all asks for a choice",
	    alternatives_menu,
	    "ROOT commands read /dev/null, so a menu keeps the current choice: name it in the "
	    "request, [\"update-alternatives\", \"--set\", \"editor\", \"/usr/bin/vim.basic\"] "
	    "(a YOU command running update-alternatives --list NAME shows the choices), or "
	    "--auto NAME for the highest priority" },
	{ "invalid_field", "\"reason\" or a \"why\" is missing or empty", reason_or_why,
	    "say why in plain words: the reviewer reads \"reason\" and each command's \"why\" "
	    "to decide whether to approve" },
	{ NULL, NULL, NULL, NULL },
};

const struct refusal_code *
refusal_code_find(const char *code)
{
	const struct refusal_code *c;

	for (c = refusal_codes; c->code != NULL; c++)
		if (strcmp(c->code, code) == 0)
			return c;
	return NULL;
}

/* relative_path's hint names the word, which its message quotes first */
static const char *
relative_hint(const struct refusal *r)
{
	static _Thread_local char hint[1280];
	const char *w = r->message + 1, *end = strstr(r->message, "' is a relative path");
	int n, skip;

	if (r->message[0] != '\'' || end == NULL)
		return NULL;
	n = (int)(end - w);
	skip = n > 2 && w[0] == '.' && w[1] == '/' ? 2 : 0;
	snprintf(hint, sizeof hint, "'%.*s' is relative: name it by its absolute path "
	    "(/home/you/proj/%.*s, not /%.*s); to install a file you made, give it as a "
	    "reviewed file (\"files\") and name it {\"file\": NAME}", n, w, n - skip,
	    w + skip, n - skip, w + skip);
	return hint;
}

const char *
refusal_hint(const struct refusal *r)
{
	const struct refusal_case *k;
	const struct refusal_code *c;

	if (strcmp(r->code, "relative_path") == 0 && relative_hint(r) != NULL)
		return relative_hint(r);
	for (k = refusal_cases; k->code != NULL; k++)
		if (strcmp(k->code, r->code) == 0 && k->applies(r))
			return k->hint;
	return (c = refusal_code_find(r->code)) != NULL ? c->hint : NULL;
}
