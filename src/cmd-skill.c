/* SPDX-License-Identifier: ISC */
/*
 * warrant skill: the instructions an agent needs to use warrant, printed
 * from the tables the rest of warrant uses — the MCP tool's description
 * (src/mcp/tool.c), every refusal code with its meaning and hint
 * (src/intake/hint.c), the exit codes (cli.c) and the usage of request
 * and wait — so the skill cannot say something the code does not do. As
 * a Claude Code skill (SKILL.md with YAML front matter), as a section for
 * AGENTS.md (Codex, OpenCode, others), or as plain text.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "warrant.h"
#include "mcp/mcp.h"

static int cmd_skill_exec(int, char **);

const struct cmd_entry cmd_skill_entry = {
	.name = "skill",
	.summary = "print the instructions an agent needs to ask through warrant",
	.group = CMD_AGENT,
	.usage = "[--format claude|agents-md|plain]",
	.help =
	"Print the instructions an agent needs to ask for commands through warrant:\n"
	"when to ask, how to write a request, what waiting looks like, what each\n"
	"refusal code means and how to fix the request, and the exit codes.\n\n"
	"  --format claude     a Claude Code skill: SKILL.md with YAML front matter\n"
	"                      (save as ~/.claude/skills/warrant/SKILL.md)\n"
	"  --format agents-md  a Markdown section for AGENTS.md (Codex, OpenCode)\n"
	"                      or CLAUDE.md (the default)\n"
	"  --format plain      plain text\n",
	.exec = cmd_skill_exec,
};

/* What the skill is for, as the agent's tool picker reads it. */
static const char skill_description[] =
	"Ask the human at this machine to run commands you cannot run yourself, as root "
	"(they approve with sudo at their own terminal) or as them outside your sandbox, "
	"and get back a ledger of what ran. Use it when a step needs root or something "
	"your sandbox blocks (network access, files outside the workspace); it covers "
	"writing the request, waiting, and fixing a refused request.";

/* A request that passes the schema (tests/unit/test-skill.c parses it). */
static const char skill_example[] =
	"{\"reason\": \"serve the project's site with nginx\",\n"
	" \"files\": {\"site.conf\": {\"content\": \"server { listen 8080; root /srv/site; }\\n\",\n"
	"                           \"mode\": \"0644\"}},\n"
	" \"commands\": [\n"
	"  {\"id\": \"install\", \"argv\": [\"/usr/bin/apt-get\", \"install\", \"-y\", \"nginx\"],\n"
	"   \"why\": \"the web server the site runs on\"},\n"
	"  {\"id\": \"config\", \"argv\": [\"/usr/bin/install\", \"-m\", \"0644\", {\"file\": \"site.conf\"},\n"
	"                               \"/etc/nginx/conf.d/site.conf\"],\n"
	"   \"why\": \"the site's configuration, as shown\"},\n"
	"  {\"id\": \"reload\", \"argv\": [\"/usr/bin/systemctl\", \"reload\", \"nginx\"],\n"
	"   \"why\": \"load the new configuration\"},\n"
	"  {\"id\": \"check\", \"as\": \"user\", \"command\": \"curl -sS http://localhost:8080/ | head -5\",\n"
	"   \"why\": \"see that the site answers (the network is closed to me)\"}]}\n";

enum format { CLAUDE, AGENTS_MD, PLAIN };

struct out {
	enum format	 f;
	int		 base;		/* heading level of the title */
};

/* Text as it is, but without Markdown's backquotes in plain text. */
static void
text(const struct out *o, const char *s)
{
	for (; *s != '\0'; s++)
		if (o->f != PLAIN || *s != '`')
			putchar(*s);
}

/* The same, formatted. */
static void
textf(const struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
textf(const struct out *o, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0) {
		text(o, s);
		free(s);
	}
	va_end(ap);
}

static void
heading(const struct out *o, int level, const char *s)
{
	const char *p;

	if (o->f == PLAIN) {
		text(o, s);
		putchar('\n');
		for (p = s; *p != '\0'; p++)
			putchar(level == 0 ? '=' : '-');
		fputs("\n\n", stdout);
		return;
	}
	printf("%.*s ", o->base + level, "######");
	text(o, s);
	fputs("\n\n", stdout);
}

static void
para(const struct out *o, const char *s)
{
	text(o, s);
	fputs("\n\n", stdout);
}

/* A block of code or JSON. */
static void
block(const struct out *o, const char *lang, const char *s)
{
	const char *nl;

	if (o->f != PLAIN) {
		printf("```%s\n%s%s```\n\n", lang, s, s[strlen(s) - 1] == '\n' ? "" : "\n");
		return;
	}
	for (; *s != '\0'; s = *nl != '\0' ? nl + 1 : nl) {
		nl = strchrnul(s, '\n');
		printf("    %.*s\n", (int)(nl - s), s);
	}
	putchar('\n');
}

static void
print_skill(const struct out *o)
{
	const struct refusal_code *c;
	const struct refusal_case *k;
	const struct exit_meaning *e;
	const struct ledger_status *st;
	char progress[160];
	size_t i;

	if (o->f == CLAUDE)
		printf("---\nname: warrant\ndescription: \"%s\"\n---\n\n", skill_description);
	heading(o, 0, "warrant: commands you cannot run yourself");
	para(o, tool_about);
	para(o, "The human reviews exactly what you send and decides; nothing runs as root "
	    "unless they read that request and authenticated for it. Ask only when you "
	    "must, and ask once per task.");

	heading(o, 1, "How to ask");
	text(o, "- With the MCP tool `" MCP_TOOL_NAME "` (when warrant is set up as an MCP "
	    "server): its arguments are the request; the call returns when the reviewer "
	    "has answered, or after a while with the request still pending: then "
	    "`" MCP_WAIT_TOOL "` with its `request_id` waits again (see Waiting).\n");
	textf(o, "- Otherwise with the command line: `warrant request %s` creates the gate "
	    "and prints its descriptor; with `-w` it also waits and prints the outcome. "
	    "`warrant wait %s` waits for a gate created earlier. Use `-j` for JSON and "
	    "`-o` to name yourself (the agent).\n", cmd_request_entry.usage,
	    cmd_wait_entry.usage);
	para(o, "- The request is one JSON object (warrant-request(5)): a `reason`, and "
	    "`commands` in the order they must run, each with an `id`, a `why`, and "
	    "`argv` (or, for a YOU command, `command`); `\"as\": \"user\"` makes a YOU "
	    "command, ROOT is the default.");

	heading(o, 1, "Use it well");
	for (i = 0; tool_rules[i] != NULL; i++) {
		printf("%zu. ", i + 1);
		text(o, tool_rules[i]);
		putchar('\n');
	}
	putchar('\n');

	heading(o, 1, "Example");
	para(o, "Install nginx, put a reviewed config in place, reload it, then check the "
	    "site as the user:");
	block(o, "json", skill_example);
	block(o, "sh", "warrant request -j -w -o AGENT < request.json");

	heading(o, 1, "Waiting");
	para(o, tool_outcomes);
	textf(o, "`%s`: ", MCP_WAIT_TOOL);
	para(o, tool_waiting);
	snprintf(progress, sizeof progress, MCP_PROGRESS_TEXT, "w-abcdefghij", "w-abcdefghij",
	    300LL);
	textf(o, "While it is pending the reviewer is told (a desktop notification, the review "
	    "console). Over MCP the call sends progress notifications such as \"%s\"; on the "
	    "command line `warrant request -w` and `warrant wait` just wait. Do not send the "
	    "same request again while it is pending: `warrant wait ID` (with the "
	    "`request_id` of the descriptor) picks it up again.\n\n", progress);
	para(o, "An approved request returns a ledger: one entry per command, in order, with "
	    "its `status`, `exit_code`, `output_tail` and `error`. The reviewer may approve "
	    "only some of the commands. The statuses:");
	for (st = ledger_statuses; st->name != NULL; st++) {
		textf(o, "- `%s`: ", st->name);
		text(o, st->meaning);
		putchar('\n');
	}
	putchar('\n');

	heading(o, 1, "Refusals");
	para(o, "A refused request stored nothing and ran nothing. The refusal has a stable "
	    "`code`, the JSON `path` at fault, a sentence and, mostly, a `hint` (`warrant "
	    "request -j` prints {\"error\":{\"code\",\"message\",\"path\",\"hint\"}}). Fix "
	    "the request as the hint says and send it again. The codes:");
	for (c = refusal_codes; c->code != NULL; c++) {
		textf(o, "- `%s`: ", c->code);
		text(o, c->meaning);
		fputs(". Fix: ", stdout);
		text(o, c->hint);
		fputs(".\n", stdout);
		for (k = refusal_cases; k->code != NULL; k++)
			if (strcmp(k->code, c->code) == 0) {
				fputs("  - When ", stdout);
				text(o, k->when);
				fputs(": ", stdout);
				text(o, k->hint);
				fputs(".\n", stdout);
			}
	}
	putchar('\n');

	heading(o, 1, "Exit codes of warrant request and warrant wait");
	for (e = exit_meanings; e->meaning != NULL; e++) {
		printf("- %d: ", e->code);
		text(o, e->meaning);
		putchar('\n');
	}
}

static int
cmd_skill_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 }
	};
	struct out o = { AGENTS_MD, 2 };
	int ch;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (ch != 'f')
			return usage_error(&cmd_skill_entry, NULL);
		if (strcmp(optarg, "claude") == 0)
			o = (struct out){ CLAUDE, 1 };
		else if (strcmp(optarg, "agents-md") == 0)
			o = (struct out){ AGENTS_MD, 2 };
		else if (strcmp(optarg, "plain") == 0)
			o = (struct out){ PLAIN, 0 };
		else
			return usage_error(&cmd_skill_entry, "--format is claude, agents-md or plain");
	}
	if (optind != argc)
		return usage_error(&cmd_skill_entry, "unexpected argument '%s'", argv[optind]);
	print_skill(&o);
	return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_INTERNAL;
}
