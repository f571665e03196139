/* SPDX-License-Identifier: ISC */
/*
 * The MCP tools as tools/list shows them: request_commands, with a
 * description that teaches an agent to use it well and an input schema
 * that is docs/design.md §3's request; wait_for_review, which waits again
 * for a request that answered pending; and request_root_commands, the
 * first under its old name, listed so that existing setups keep working.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

/*
 * The tool's description, in parts: what it does, what a call returns,
 * and how to use it well. `warrant skill` (src/cmd-skill.c) prints the
 * same parts, so the MCP description and the skill cannot drift.
 */
const char tool_about[] =
"Ask the human reviewer to run commands you cannot run yourself, and get back "
"a ledger of what ran. Two kinds of command share one request:\n"
"- ROOT (\"as\": \"root\", the default): runs as root through sudo. The human "
"authenticates at their own terminal; you never see or handle a password.\n"
"- YOU (\"as\": \"user\"): runs as the user, outside your sandbox, without a "
"password: for what your sandbox or permission mode blocks, such as network "
"access, writing outside the project, or talking to the user's session.";

const char tool_outcomes[] =
"The call waits while the reviewer reads the request, but not for long: it "
"answers when the reviewer has answered, or after a while (45 s unless the user "
"set another wait, so that clients that give up on a call after 60 s get an "
"answer) with the request still pending. It returns one of:\n"
"- Approved: each command's status, exit code and output tail, and next.prompt "
"if you gave one.\n"
"- Denied: an error with the reviewer's feedback.\n"
"- Expired: an error; nobody answered within the review window "
"(gate_timeout_seconds, default 300); nothing ran.\n"
"- Pending: not an error: state \"pending\" and the request_id; there is no "
"outcome yet (the reviewer has not answered, or the approved commands still run) "
"and the request stays with the reviewer. Call " MCP_WAIT_TOOL " with that "
"request_id, and again each time it answers pending, until it returns one of "
"the outcomes above. Never send the request again.\n"
"- Refused: an error with a code, the JSON path at fault and a sentence; nothing "
"was stored, so fix the request and call again.\n"
"Cancelling a call while it waits withdraws the request; a call that has "
"answered pending withdraws nothing.";

/* The second tool's description; `warrant skill` prints it too. */
const char tool_waiting[] =
"Wait for the reviewer's answer to a request that " MCP_TOOL_NAME " (or an earlier "
"call of this tool) returned as pending, by its request_id. It answers as soon as "
"the reviewer has, with the outcome exactly as " MCP_TOOL_NAME " returns it "
"(approved: the ledger; denied or expired: an error), or after wait_seconds "
"(45 s unless the user set another wait, and never longer) with state "
"\"pending\" again: then call it again. Waiting withdraws nothing; cancelling "
"this call while it waits withdraws the request.";

const char *const tool_rules[] = {
"Do every step you can yourself first (read, download, build, write files "
"into your workspace); ask only for the steps that need root or the user.",
"Batch: put all root work of the task into one request, in order. Each "
"request interrupts a person and asks for their password.",
"Give exact argv arrays with absolute paths, e.g. "
"[\"/usr/bin/systemctl\", \"restart\", \"nginx\"]. ROOT commands get no shell: "
"sh/bash, sudo/su/doas/pkexec, editors, pagers and a \"-c\" argument are "
"refused. A YOU command may instead give one shell string in \"command\".",
"Give every command a specific \"why\" and the request a \"reason\": the "
"reviewer decides from them.",
"ROOT commands run from \"/\" (or the request's cwd) with a clean "
"environment plus the reviewed \"env\"; YOU commands run in the user's home "
"(or their own cwd) with the user's environment, not yours: pass what they "
"need on the command line.",
"Files for root go in the request, not in your workspace: root never reads "
"a path you can change. Give each in \"files\", inline (\"content\", "
"\"encoding\": \"utf-8\" or \"base64\", up to 64 KiB) or as a copy taken now "
"(\"snapshot\": an absolute path you can read, up to 64 MiB, e.g. a binary "
"you built), with a \"mode\" such as \"0644\" or \"0755\", and name it in "
"argv as {\"file\": \"NAME\"}; it becomes the path of a fresh copy (root-owned "
"for ROOT commands). The "
"reviewer sees each file's name, size, mode, SHA-256 and text (an archive's "
"members, set-id, device and escaping ones flagged). E.g. to install "
"a binary you built: \"files\": {\"tool\": {\"snapshot\": "
"\"/home/you/proj/build/tool\", \"mode\": \"0755\"}}, argv [\"install\", "
"\"-m\", \"0755\", {\"file\": \"tool\"}, \"/usr/local/bin/tool\"]. "
"A later command of the same request may then run the installed program by "
"its absolute path (\"/usr/local/bin/tool\"): it is checked and hashed when it "
"runs.",
"ROOT commands run under a supervisor that refuses, as they run, anything "
"you could change: root never reads, runs or writes through your home, your "
"project, files you made in /tmp or a world-writable directory; never "
"connects to a socket or port you serve; makes set-id files and device "
"nodes only when its argv says so (chmod u+s, install -m 4755, mknod, a "
"package manager); gives your files to another owner only by chown or "
"chgrp in its argv, and never while you hold one open for writing. So put "
"what root needs in \"files\" and install it (argv [\"install\", \"-o\", "
"\"root\", \"-m\", \"0755\", {\"file\": \"tool\"}, \"/usr/local/bin/tool\"]), "
"and extract archives you made with tar --no-same-owner: restored as yours, "
"their files are ones root must not write through.",
"Start services with systemctl ([\"/usr/bin/systemctl\", \"enable\", "
"\"--now\", \"nginx\"]), never service NAME start, an init script or a "
"program that puts itself in the background: systemd starts the service "
"outside the supervisor, while a daemon a ROOT command starts itself stays "
"under it and fails once the batch is over.",
"Never put passwords, tokens or secrets in a request (nor in files); they "
"are refused.",
"After a denial, read the feedback and change course; do not resend the "
"same request.",
NULL
};

/* The parts as one text: about, outcomes, "Use it well:" and the rules
 * numbered. */
static char *
description(void)
{
	size_t len = sizeof tool_about + sizeof tool_outcomes + 32, i;
	char *d, *p;

	for (i = 0; tool_rules[i] != NULL; i++)
		len += strlen(tool_rules[i]) + 8;
	p = d = xmalloc(len);
	p += sprintf(p, "%s\n\n%s\n\nUse it well:", tool_about, tool_outcomes);
	for (i = 0; tool_rules[i] != NULL; i++)
		p += sprintf(p, "\n%zu. %s", i + 1, tool_rules[i]);
	return d;
}

static const char old_description[] =
"The old name of request_commands: the same tool with the same arguments, "
"listed so that existing setups keep working. Prefer request_commands.";

static const char instructions[] =
"warrant lets you ask the human at this machine to run commands you cannot run "
"yourself: as root (they authenticate with sudo at their terminal) or as them "
"outside your sandbox. Use the request_commands tool once per task with every "
"such step batched, after doing all the preparation you can do yourself. When it "
"answers that the request is still pending, call wait_for_review with its "
"request_id until the reviewer has answered.";

/* docs/design.md §3, schema_version 1; warrant validates again whatever comes in. */
static const char input_schema[] = "{"
"\"type\":\"object\","
"\"properties\":{"
 "\"reason\":{\"type\":\"string\",\"maxLength\":8192,"
  "\"description\":\"Why this batch is needed, in words the reviewer can "
   "check against the commands.\"},"
 "\"commands\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":128,"
  "\"description\":\"The commands, run in this order. By default the rest "
   "are skipped after the first failure.\","
  "\"items\":{\"type\":\"object\","
   "\"properties\":{"
    "\"id\":{\"type\":\"string\","
     "\"pattern\":\"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$\","
     "\"description\":\"A short name, unique in the request (e.g. "
      "install-nginx); the result reports by it.\"},"
    "\"as\":{\"type\":\"string\",\"enum\":[\"root\",\"user\"],"
     "\"default\":\"root\","
     "\"description\":\"root: as root through sudo (the reviewer "
      "authenticates). user: as the user, outside your sandbox, no "
      "password.\"},"
    "\"argv\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":64,"
     /* no type: a string or {"file": NAME}, and no anyOf (docs/agents.md) */
     "\"items\":{\"description\":\"A string of 1 to 4096 bytes, or (after "
      "argv[0]) {\\\"file\\\": NAME} naming an entry of files.\"},"
     "\"description\":\"The program and its arguments, exactly, no shell. "
      "Prefer an absolute path; a bare name is looked up in "
      "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin. After "
      "argv[0], {\\\"file\\\": NAME} stands for the path of the staged copy of "
      "files.NAME.\"},"
    "\"command\":{\"type\":\"string\",\"minLength\":1,"
     "\"maxLength\":4096,"
     "\"description\":\"Only with as: user, instead of argv: one shell "
      "string, run as bash --noprofile --norc -c STRING.\"},"
    "\"why\":{\"type\":\"string\",\"minLength\":1,"
     "\"maxLength\":2048,"
     "\"description\":\"What this command does and why it is needed.\"},"
    "\"cwd\":{\"type\":\"string\","
     "\"description\":\"Only with as: user: an existing absolute directory to "
      "run in (default: the user's home).\"},"
    "\"timeout_seconds\":{\"type\":\"integer\",\"minimum\":1,"
     "\"maximum\":86400,"
     "\"description\":\"Stop the command after this many seconds "
      "(default 300).\"}"
   "},"
   "\"required\":[\"id\",\"why\"],"
   "\"additionalProperties\":false}},"
 "\"run_as\":{\"type\":\"string\","
  "\"description\":\"The user ROOT commands run as (default root).\"},"
 "\"cwd\":{\"type\":\"string\","
  "\"description\":\"The existing absolute directory ROOT commands run in "
   "(default /).\"},"
 "\"env\":{\"type\":\"object\","
  "\"additionalProperties\":{\"type\":\"string\",\"maxLength\":4096},"
  "\"description\":\"Extra environment for ROOT commands, shown to the "
   "reviewer. PATH, LD_*, SUDO_* and the like are refused.\"},"
 "\"stop_on_failure\":{\"type\":\"boolean\",\"default\":true,"
  "\"description\":\"Skip the remaining commands after the first failure "
   "of either kind.\"},"
 "\"output_to_agent\":{\"type\":\"string\","
  "\"enum\":[\"none\",\"tail\",\"full\"],\"default\":\"tail\","
  "\"description\":\"How much of each command's output you get back: none, "
   "tail (last 8 KiB) or full (up to 64 KiB).\"},"
 "\"gate_timeout_seconds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":86400,"
  "\"description\":\"How long the reviewer has to answer (default 300); "
   "after that nothing runs.\"},"
 "\"timeout_seconds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":86400,"
  "\"description\":\"Default per-command timeout; also the review window "
   "when gate_timeout_seconds is not given.\"},"
 "\"machine\":{\"type\":\"string\","
  "\"description\":\"Run on an enrolled remote machine (its alias) instead "
   "of this one. Leave out for this machine.\"},"
 "\"next\":{\"type\":\"object\","
  "\"properties\":{\"prompt\":{\"type\":\"string\",\"maxLength\":16384}},"
  "\"additionalProperties\":false,"
  "\"description\":\"next.prompt: a note to yourself, handed back with the "
   "result when the request was approved.\"},"
 "\"files\":{\"type\":\"object\","
  "\"additionalProperties\":{\"type\":\"object\","
   "\"properties\":{"
    "\"content\":{\"type\":\"string\",\"description\":\"The file's content, "
     "inline: at most 64 KiB decoded, within the 256 KiB the whole request may "
     "take; more goes as a snapshot.\"},"
    "\"encoding\":{\"type\":\"string\",\"enum\":[\"utf-8\",\"base64\"],"
     "\"default\":\"utf-8\",\"description\":\"How content is given; base64 "
     "for binary content.\"},"
    "\"snapshot\":{\"type\":\"string\",\"description\":\"Instead of content: "
     "an absolute path to a regular file you can read (not a symlink), copied "
     "when the request is made; later changes to it do not matter. At most "
     "64 MiB.\"},"
    "\"mode\":{\"type\":\"string\",\"pattern\":\"^0?[0-7]{3}$\","
     "\"default\":\"0644\",\"description\":\"The staged copy's mode; no "
     "setuid, setgid or sticky bit.\"}},"
   "\"additionalProperties\":false},"
  "\"description\":\"Reviewed files for the commands, by name (like a "
   "command id; at most 64): each is shown to "
   "the reviewer, sealed by SHA-256, and staged as a fresh copy (root-owned "
   "for ROOT commands) whose path replaces {\\\"file\\\": NAME} in argv. "
   "Every file must be used.\"},"
 "\"schema_version\":{\"type\":\"integer\",\"enum\":[1],"
  "\"description\":\"The request schema version; only 1 exists.\"}"
"},"
"\"required\":[\"reason\",\"commands\"],"
"\"additionalProperties\":false}";

/* wait_for_review's arguments; %lld is the longest wait, twice */
static const char wait_schema[] = "{"
"\"type\":\"object\","
"\"properties\":{"
 "\"request_id\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64,"
  "\"description\":\"The request_id that " MCP_TOOL_NAME " returned (w-...).\"},"
 "\"wait_seconds\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":%lld,"
  "\"description\":\"How long to wait for the answer at most, in seconds "
   "(default and at most %lld); 0 only looks.\"}"
"},"
"\"required\":[\"request_id\"],"
"\"additionalProperties\":false}";

static json_t *
tool(const char *name, const char *title, const char *text, json_t *schema, int waits)
{
	return json_pack("{s:s,s:s,s:s,s:O,s:{s:b,s:b,s:b,s:b}}",
	    "name", name, "title", title, "description", text, "inputSchema", schema,
	    "annotations", "readOnlyHint", waits, "destructiveHint", !waits,
	    "idempotentHint", waits, "openWorldHint", !waits);
}

/* The result of tools/list; calls answer "pending" after answer_s. */
json_t *
tool_list(long long answer_s)
{
	json_t *schema = json_loads(input_schema, JSON_REJECT_DUPLICATES, NULL), *list;
	json_t *wschema;
	char *text, *w;

	if (asprintf(&w, wait_schema, answer_s, answer_s) < 0)
		w = NULL;
	wschema = w != NULL ? json_loads(w, JSON_REJECT_DUPLICATES, NULL) : NULL;
	free(w);
	if (schema == NULL || wschema == NULL) {
		warnx("mcp: a built-in input schema does not parse");
		json_decref(schema);
		json_decref(wschema);
		return NULL;
	}
	text = description();
	list = json_pack("{s:[o,o,o]}", "tools",
	    tool(MCP_TOOL_NAME, "Request commands (as root or as you)", text, schema, 0),
	    tool(MCP_WAIT_TOOL, "Wait for the reviewer's answer", tool_waiting, wschema, 1),
	    tool(MCP_TOOL_OLD_NAME, "Request commands (old name of request_commands)",
	    old_description, schema, 0));
	free(text);
	json_decref(schema);
	json_decref(wschema);
	return list;
}

/* A name of the request tool (the wait tool is told apart by name). */
int
tool_known(const char *name)
{
	return strcmp(name, MCP_TOOL_NAME) == 0 || strcmp(name, MCP_TOOL_OLD_NAME) == 0;
}

const char *
tool_instructions(void)
{
	return instructions;
}
