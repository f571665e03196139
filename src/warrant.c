/* SPDX-License-Identifier: ISC */
/* warrant: the command table and dispatch. */
#include <err.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <openssl/crypto.h>

#include "config.h"
#include "warrant.h"

/* In the order `warrant --help` lists them within their groups. */
static const struct cmd_entry *const cmd_table[] = {
	&cmd_request_entry,
	&cmd_wait_entry,
	&cmd_withdraw_entry,
	&cmd_mcp_entry,
	&cmd_skill_entry,
	&cmd_review_entry,
	&cmd_list_entry,
	&cmd_show_entry,
	&cmd_answer_entry,
	&cmd_grants_entry,
	&cmd_stop_entry,
	&cmd_log_entry,
	&cmd_pair_entry,
	&cmd_serve_entry,
	&cmd_box_entry,
	&cmd_requesters_entry,
	&cmd_passkey_entry,
	&cmd_machine_entry,
	&cmd_gc_entry,
	&cmd_exec_entry,
	&cmd_finalize_entry,
	&cmd_serve_intake_entry,
	NULL
};

static const char *const group_title[] = {
	[CMD_AGENT] = "For the agent",
	[CMD_REVIEWER] = "For the reviewer",
	[CMD_ADMIN] = "For the administrator",
};

/* One line per command, with what it does, by who runs it (an entry
 * without its summary and group is left out, which test-cli.sh catches). */
static void
usage_all(FILE *fp)
{
	const struct cmd_entry *const *c;
	size_t g;

	fputs("usage: warrant COMMAND [ARGS]\n", fp);
	for (g = CMD_AGENT; g < sizeof group_title / sizeof group_title[0]; g++) {
		fprintf(fp, "\n%s:\n", group_title[g]);
		for (c = cmd_table; *c != NULL; c++)
			if (!(*c)->internal && (*c)->group == (enum cmd_group)g &&
			    (*c)->summary != NULL)
				fprintf(fp, "  %-11s %s\n", (*c)->name, (*c)->summary);
	}
	fputs("\nwarrant help COMMAND (or warrant COMMAND --help) gives a command's usage\n"
	    "and options. See warrant(1) and warrant-request(5).\n", fp);
}

static const struct cmd_entry *
find_cmd(const char *name)
{
	const struct cmd_entry *const *c;

	for (c = cmd_table; *c != NULL; c++)
		if (strcmp((*c)->name, name) == 0)
			return *c;
	return NULL;
}

#define SUGGEST_NAME_MAX	32	/* a longer unknown name gets no suggestion */

/* The edit distance of a and b: insertions, deletions, substitutions and
 * swaps of two neighbours (so "reveiw" is one from "review"). */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t d[SUGGEST_NAME_MAX + 1][SUGGEST_NAME_MAX + 1];
	size_t la = strlen(a), lb = strlen(b), i, j, best;

	if (la > SUGGEST_NAME_MAX || lb > SUGGEST_NAME_MAX)
		return SIZE_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/* The listed command (or help) nearest to name when it is close: one edit
 * away for a name of up to four characters, two for a longer one; else
 * NULL, so that a word far from every command suggests nothing. */
static const char *
nearest_cmd(const char *name)
{
	const struct cmd_entry *const *c;
	const char *found = NULL;
	size_t best = edit_distance(name, "help"), d;

	if (best <= 2)
		found = "help";
	for (c = cmd_table; *c != NULL; c++)
		if (!(*c)->internal && (d = edit_distance(name, (*c)->name)) < best) {
			best = d;
			found = (*c)->name;
		}
	return best <= (strlen(name) <= 4 ? 1u : 2u) ? found : NULL;
}

/* No command is called name: say so, with the nearest one if it is close. */
static int
unknown_cmd(const char *what, const char *name)
{
	const char *near = nearest_cmd(name);
	char *v = text_visible(name);

	if (near != NULL)
		warnx("%s '%s': did you mean '%s'? (see warrant --help)", what, v, near);
	else
		warnx("%s '%s' (see warrant --help)", what, v);
	free(v);
	return EXIT_REFUSED;
}

static void
help_cmd(FILE *fp, const struct cmd_entry *c)
{
	const char *e;

	fprintf(fp, "usage: warrant %s%s%s\n\n%s", c->name, *c->usage ? " " : "", c->usage,
	    c->help);
	if (c->exits == NULL)
		return;
	fputs("\nexit status:\n", fp);
	for (e = c->exits; *e != '\0'; e++)
		fprintf(fp, "  %c  %s\n", *e, exit_meaning(*e - '0'));
}

int
main(int argc, char **argv)
{
	const struct cmd_entry *c;

	umask(077);
	/* warrant needs no OpenSSL configuration; reading it costs every run */
	OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
	if (argc < 2) {
		usage_all(stderr);
		return EXIT_REFUSED;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage_all(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		/* The tests check that their build has its hooks. */
		printf("warrant %s%s\n", WARRANT_VERSION,
		    WARRANT_TEST_HOOKS ? " (test hooks)" : "");
		return EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3) {
			usage_all(stdout);
			return EXIT_OK;
		}
		if ((c = find_cmd(argv[2])) == NULL)
			return unknown_cmd("no such command", argv[2]);
		help_cmd(stdout, c);
		return EXIT_OK;
	}
	if ((c = find_cmd(argv[1])) == NULL)
		return unknown_cmd("unknown command", argv[1]);
	if (argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
		help_cmd(stdout, c);
		return EXIT_OK;
	}
	return c->exec(argc - 1, argv + 1);
}
