/* SPDX-License-Identifier: ISC */
/* Human views of a gate for the terminal. Every piece of agent text goes
 * through text_print so it cannot drive the terminal. */
#include <string.h>

#include "warrant.h"

static void
print_badges(FILE *fp, const json_t *badges)
{
	json_t *b;
	size_t i;

	if (json_array_size(badges) == 0) {
		fputs("none", fp);
		return;
	}
	json_array_foreach(badges, i, b)
		fprintf(fp, "%s[%s]", i ? " " : "", json_string_value(b));
}

static void
print_time(FILE *fp, const json_t *g, const char *key)
{
	char when[32];
	json_t *v = json_object_get(g, key);

	if (!json_is_integer(v)) {
		fputs("-", fp);
		return;
	}
	format_time(json_integer_value(v), when, sizeof when);
	fputs(when, fp);
}

/* One line: id, state, counts, age, project, reason. */
void
gate_print_line(FILE *fp, const json_t *g)
{
	int64_t age = now_seconds() - json_integer_value(json_object_get(g, "created_at"));
	const char *project = json_str(g, "project");
	char who[128];

	fprintf(fp, "%s  %-8s  %lld root, %lld you  %4llds ago  ", json_str(g, "request_id"),
	    json_str(g, "state"), (long long)json_integer_value(json_object_get(g, "root_count")),
	    (long long)json_integer_value(json_object_get(g, "user_count")),
	    (long long)(age < 0 ? 0 : age));
	requester_label(g, who, sizeof who);
	if (strcmp(who, json_str(g, "requester")) != 0) {
		fputs("from ", fp);
		text_print(fp, who);
		fputs(": ", fp);
	}
	if (*project != '\0') {
		text_print(fp, project);
		fputs(": ", fp);
	}
	text_print(fp, json_str(g, "reason"));
	fputc('\n', fp);
}

static void
field(FILE *fp, const char *label, const char *value)
{
	fprintf(fp, "%-12s ", label);
	text_print(fp, value);
	fputc('\n', fp);
}

void
gate_print_full(FILE *fp, const json_t *g)
{
	const char *key;
	json_t *cmds = json_object_get(g, "commands"), *c, *a, *v;
	size_t i, j, nroot = 0;
	char who[128];

	field(fp, "request", json_str(g, "request_id"));
	field(fp, "state", json_str(g, "state"));
	fprintf(fp, "%-12s ", "reason");
	text_print(fp, json_str(g, "reason"));
	fputc('\n', fp);
	field(fp, "host", json_str(g, "host"));
	/* run_as and cwd are the ROOT commands' own: a YOU-only gate has none */
	if (json_integer_value(json_object_get(g, "root_count")) > 0) {
		field(fp, "run as", json_str(g, "run_as"));
		field(fp, "cwd", json_str(g, "cwd"));
	} else
		field(fp, "root", "none: every command runs as you");
	fprintf(fp, "%-12s ", "environment");
	if (json_object_size(json_object_get(g, "env")) == 0)
		fputs("clean (LC_ALL=C, LANG=C, TERM, fixed PATH)", fp);
	json_object_foreach(json_object_get(g, "env"), key, v) {
		text_print(fp, key);
		fputc('=', fp);
		text_print(fp, json_string_value(v));
		fputc(' ', fp);
	}
	fputc('\n', fp);
	requester_label(g, who, sizeof who);
	fprintf(fp, "%-12s ", "requester");
	text_print(fp, who);
	if (*json_str(g, "agent") != '\0') {
		fputs(" via agent ", fp);
		text_print(fp, json_str(g, "agent"));
	}
	fputc('\n', fp);
	if (*json_str(g, "project") != '\0')
		field(fp, "project", json_str(g, "project"));
	fprintf(fp, "%-12s ", "created");
	print_time(fp, g, "created_at");
	fprintf(fp, "\n%-12s ", "expires");
	print_time(fp, g, "expires_at");
	fprintf(fp, "\n%-12s ", "risk");
	print_badges(fp, json_object_get(g, "risk_badges"));
	fprintf(fp, "\n%-12s %s\n", "manifest", json_str(g, "manifest_sha256"));
	if (*json_str(g, "feedback") != '\0')
		field(fp, "feedback", json_str(g, "feedback"));
	fprintf(fp, "\ncommands: %lld as root, %lld as you\n",
	    (long long)json_integer_value(json_object_get(g, "root_count")),
	    (long long)json_integer_value(json_object_get(g, "user_count")));
	json_array_foreach(cmds, i, c) {
		int root = strcmp(json_str(c, "as"), "root") == 0;

		fputc('\n', fp);
		if (root)
			fprintf(fp, "  ROOT %zu  ", ++nroot);
		else
			fputs("  YOU     ", fp);
		text_print(fp, json_str(c, "id"));
		fputs("  ", fp);
		print_badges(fp, json_object_get(c, "badges"));
		fputc('\n', fp);
		if (!root) {
			fputs("          as you, in ", fp);
			text_print(fp, json_str(c, "cwd"));
			fputc('\n', fp);
		}
		fputs("    why   ", fp);
		text_print(fp, json_str(c, "why"));
		fputc('\n', fp);
		json_array_foreach(json_object_get(c, "argv"), j, a) {
			fprintf(fp, "    argv[%zu] ", j);
			text_print(fp, json_string_value(a));
			fputc('\n', fp);
		}
		fputs("    path  ", fp);
		text_print(fp, json_str(c, "path"));
		if (strcmp(json_str(c, "path"), json_str(c, "given_path")) != 0) {
			fputs("  (given as ", fp);
			text_print(fp, json_str(c, "given_path"));
			fputc(')', fp);
		}
		fprintf(fp, "\n    sha256 %s\n", json_str(c, "executable_sha256"));
	}
}
