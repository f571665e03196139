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
	&cmd_log_entry,
	&cmd_box_entry,
	&cmd_mcp_entry,
	&cmd_review_entry,
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
			fprintf(fp, "  warrant %s %s\n", (*c)->name, (*c)->usage);
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
	fprintf(fp, "usage: warrant %s %s\n\n%s", c->name, c->usage, c->help);
}

/* Print a usage error for c and return the usage exit code. */
int
usage_error(const struct cmd_entry *c, const char *fmt, ...)
{
	va_list ap;

	if (fmt != NULL) {
		fprintf(stderr, "warrant %s: ", c->name);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "usage: warrant %s %s\n", c->name, c->usage);
	return EXIT_REFUSED;
}

/* JSON for the caller; ASCII only, so that agent text in it cannot
 * reach a terminal as control or bidi characters either. */
int
print_json(const json_t *j)
{
	if (j == NULL || json_dumpf(j, stdout, JSON_COMPACT | JSON_ENSURE_ASCII) != 0)
		return -1;
	fputc('\n', stdout);
	return fflush(stdout) == 0 ? 0 : -1;
}

/*
 * Resolve a gate named on the command line (id or unique prefix). Returns
 * EXIT_OK with the full id, or the exit code after saying why; the
 * argument may have been pasted from agent text, so it is echoed inert.
 */
int
gate_arg(struct store *st, const char *arg, char id[GATE_ID_LEN + 1])
{
	int rc = store_resolve(st, arg, id);
	char *shown;

	if (rc == 0)
		return EXIT_OK;
	if (rc < 0)
		return EXIT_INTERNAL;
	shown = text_visible(arg);
	warnx(rc == 1 ? "no gate matches '%s'" :
	    "'%s' does not name exactly one gate (give 4 or more characters of a unique id)",
	    shown);
	free(shown);
	return EXIT_REFUSED;
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
		printf("warrant %s\n", WARRANT_VERSION);
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
