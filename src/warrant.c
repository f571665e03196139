/* SPDX-License-Identifier: ISC */
/* warrant: the command table and dispatch. */
#include <err.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <openssl/crypto.h>

#include "config.h"
#include "warrant.h"

static const struct cmd_entry *const cmd_table[] = {
	&cmd_request_entry,
	&cmd_list_entry,
	&cmd_show_entry,
	&cmd_answer_entry,
	&cmd_wait_entry,
	&cmd_withdraw_entry,
	&cmd_log_entry,
	&cmd_box_entry,
	&cmd_requesters_entry,
	&cmd_mcp_entry,
	&cmd_serve_entry,
	&cmd_pair_entry,
	&cmd_review_entry,
	&cmd_machine_entry,
	&cmd_exec_entry,
	&cmd_gc_entry,
	&cmd_skill_entry,
	&cmd_finalize_entry,
	NULL
};

static void
usage_all(FILE *fp)
{
	const struct cmd_entry *const *c;

	fputs("usage: warrant COMMAND [ARGS]\n\ncommands:\n", fp);
	for (c = cmd_table; *c != NULL; c++)
		if (!(*c)->internal)
			fprintf(fp, "  warrant %s%s%s\n", (*c)->name, *(*c)->usage ? " " : "",
			    (*c)->usage);
	fputs("  warrant help COMMAND\n\nSee warrant(1) and warrant-request(5).\n", fp);
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
		if ((c = find_cmd(argv[2])) == NULL) {
			warnx("no such command: %s", argv[2]);
			return EXIT_REFUSED;
		}
		help_cmd(stdout, c);
		return EXIT_OK;
	}
	if ((c = find_cmd(argv[1])) == NULL) {
		char *v = text_visible(argv[1]);

		warnx("unknown command '%s' (see warrant --help)", v);
		free(v);
		return EXIT_REFUSED;
	}
	if (argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
		help_cmd(stdout, c);
		return EXIT_OK;
	}
	return c->exec(argc - 1, argv + 1);
}
