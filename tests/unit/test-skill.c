/* SPDX-License-Identifier: ISC */
/* `warrant skill` against the code it is generated from: every refusal
 * code of the table (with its meaning, hint and cases), every rule of the
 * MCP tool's description, every ledger status and exit code is in each
 * format; the Claude format has its front matter; the example is a
 * request the parser accepts. And the table against the validator's
 * source: every refusal code literal the validator can emit is in the
 * table, and every code of the table is emitted somewhere. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "warrant.h"
#include "mcp/mcp.h"

/* The output of `warrant skill --format FORMAT`. */
static char *
skill(const char *format)
{
	char path[] = "/tmp/wt-skill.XXXXXX", *buf;
	char *argv[] = { WARRANT_BIN, "skill", "--format", (char *)format, NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	struct spawn s = { .path = WARRANT_BIN, .argv = argv, .envp = envp,
	    .fd = { -1, -1, -1 }, .group = EXEC_FOREGROUND };
	size_t n;
	pid_t pid;
	int fd, st;

	assert_true((fd = mkstemp(path)) >= 0);
	unlink(path);
	s.fd[1] = fd;
	assert_true((pid = spawn(&s)) > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(read_bounded(fd, &buf, &n, 1 << 20), 0);
	close(fd);
	assert_true(n > 1000);
	return buf;
}

static void
has(const char *out, const char *what, const char *format)
{
	char *plain = NULL, *p, *q;

	if (strcmp(format, "plain") == 0) {	/* plain text has no backquotes */
		plain = xstrdup(what);
		for (p = q = plain; *p != '\0'; p++)
			if (*p != '`')
				*q++ = *p;
		*q = '\0';
		what = plain;
	}
	if (strstr(out, what) == NULL)
		fail_msg("'%s' is not in the %s skill", what, format);
	free(plain);
}

static void
test_generated_from_the_tables(void **state)
{
	static const char *const formats[] = { "claude", "agents-md", "plain" };
	const struct refusal_code *c;
	const struct refusal_case *k;
	const struct exit_meaning *e;
	const struct ledger_status *st;
	char line[64];
	size_t f, i, n;
	char *out;

	(void)state;
	for (f = 0; f < sizeof formats / sizeof formats[0]; f++) {
		out = skill(formats[f]);
		for (n = 0, c = refusal_codes; c->code != NULL; c++, n++) {
			snprintf(line, sizeof line, "- `%s`: ", c->code);
			has(out, line, formats[f]);
			has(out, c->meaning, formats[f]);
			has(out, c->hint, formats[f]);
		}
		assert_true(n >= 14);
		for (k = refusal_cases; k->code != NULL; k++) {
			has(out, k->when, formats[f]);
			has(out, k->hint, formats[f]);
		}
		for (i = 0; tool_rules[i] != NULL; i++)
			has(out, tool_rules[i], formats[f]);
		has(out, tool_about, formats[f]);
		has(out, tool_outcomes, formats[f]);
		for (e = exit_meanings; e->meaning != NULL; e++) {
			snprintf(line, sizeof line, "- %d: ", e->code);
			has(out, line, formats[f]);
			has(out, e->meaning, formats[f]);
		}
		for (st = ledger_statuses; st->name != NULL; st++)
			has(out, st->meaning, formats[f]);
		has(out, cmd_request_entry.usage, formats[f]);
		has(out, cmd_wait_entry.usage, formats[f]);
		if (strcmp(formats[f], "claude") == 0) {
			const char *end;

			assert_memory_equal(out, "---\nname: warrant\ndescription: \"", 32);
			assert_non_null(end = strstr(out + 4, "\"\n---\n"));
			assert_null(memchr(out + 32, '"', (size_t)(end - out - 32)));
			assert_true(end - out - 32 <= 1024);
		} else
			assert_null(strstr(out, "\n---\n"));
		free(out);
	}
}

/* The example between ```json and ``` is a request the schema accepts. */
static void
test_example_parses(void **state)
{
	struct wrequest wr;
	struct refusal r;
	char *out, *start, *end;

	(void)state;
	out = skill("agents-md");
	assert_non_null(start = strstr(out, "```json\n"));
	start += 8;
	assert_non_null(end = strstr(start, "```"));
	memset(&wr, 0, sizeof wr);
	if (request_parse(start, (size_t)(end - start), &wr, &r) != 0)
		fail_msg("the example is refused: %s at %s: %s", r.code, r.path, r.message);
	assert_int_equal(wr.ncmds, 4);
	request_free(&wr);
	free(out);
}

/* The text of a source file, or NULL. */
static char *
source(const char *rel)
{
	char path[PATH_MAX], *buf;
	size_t n;
	int fd;

	snprintf(path, sizeof path, "%s/%s", SRC_DIR, rel);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	if (read_bounded(fd, &buf, &n, 4 << 20) != 0)
		buf = NULL;
	close(fd);
	return buf;
}

struct found {
	char	 code[32][48];
	size_t	 n;
	size_t	 literals;
};

static void
note(struct found *fd, const char *file, const char *code, size_t len)
{
	char c[48];
	size_t i;

	assert_true(len < sizeof c);
	memcpy(c, code, len);
	c[len] = '\0';
	fd->literals++;
	if (refusal_code_find(c) == NULL)
		fail_msg("%s emits refusal code '%s', which the table in "
		    "src/intake/hint.c does not have", file, c);
	for (i = 0; i < fd->n; i++)
		if (strcmp(fd->code[i], c) == 0)
			return;
	assert_true(fd->n < 32);
	strcpy(fd->code[fd->n++], c);
}

/* Every match of group g of re in text. */
static void
scan(struct found *fd, const char *file, const char *text, const regex_t *re, int g)
{
	regmatch_t m[3];
	const char *p;

	for (p = text; regexec(re, p, 3, m, 0) == 0; p += m[0].rm_eo)
		note(fd, file, p + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so));
}

/* The refusals made in the .c files of dir (relative to the source tree). */
static void
scan_dir(struct found *fd, const char *dir, const regex_t *call, const regex_t *field)
{
	char rel[PATH_MAX], path[PATH_MAX], *text;
	struct dirent *d;
	DIR *dp;

	snprintf(path, sizeof path, "%s/%s", SRC_DIR, dir);
	assert_non_null(dp = opendir(path));
	while ((d = readdir(dp)) != NULL) {
		size_t n = strlen(d->d_name);

		if (n < 3 || strcmp(d->d_name + n - 2, ".c") != 0)
			continue;
		snprintf(rel, sizeof rel, "%s/%s", dir, d->d_name);
		assert_non_null(text = source(rel));
		scan(fd, rel, text, call, 2);
		scan(fd, rel, text, field, 1);
		free(text);
	}
	closedir(dp);
}

static void
test_table_covers_the_validator(void **state)
{
	regex_t call, field, lit;
	struct found fd;
	const struct refusal_code *c;
	char *text, *body, *end, quoted[64];
	size_t i;

	(void)state;
	memset(&fd, 0, sizeof fd);
	/* refuse(r, "code", ...) and argscan's hit(s, "code", ...) */
	assert_int_equal(regcomp(&call, "(refuse|hit)\\([^,()]*, \"([a-z][a-z_]*)\"",
	    REG_EXTENDED), 0);
	/* struct refusal r = { .code = "code" } */
	assert_int_equal(regcomp(&field, "\\.code = \"([a-z][a-z_]*)\"", REG_EXTENDED), 0);
	assert_int_equal(regcomp(&lit, "\"([a-z]+_[a-z_]+)\"", REG_EXTENDED), 0);

	/* the validator: the intake, the MCP server, warrant request, a
	 * remote request's resolution on its machine */
	scan_dir(&fd, "src/intake", &call, &field);
	scan_dir(&fd, "src/mcp", &call, &field);
	scan_dir(&fd, "src/remote", &call, &field);
	assert_non_null(text = source("src/cmd-request.c"));
	scan(&fd, "src/cmd-request.c", text, &call, 2);
	free(text);
	/* the denylists' codes, returned by deny_code() */
	assert_non_null(text = source("src/root/denylist.c"));
	assert_non_null(body = strstr(text, "\ndeny_code("));
	assert_non_null(end = strstr(body, "\n}\n"));
	*end = '\0';
	scan(&fd, "src/root/denylist.c", body, &lit, 1);
	free(text);
	/* what an ssh failure means, returned by ssh_failure() */
	assert_non_null(text = source("src/remote/ssh.c"));
	assert_non_null(body = strstr(text, "\nssh_failure("));
	assert_non_null(end = strstr(body, "\n}\n"));
	*end = '\0';
	scan(&fd, "src/remote/ssh.c", body, &lit, 1);
	free(text);
	/* a scan that finds nothing proves nothing */
	assert_true(fd.literals >= 40);
	assert_true(fd.n >= 13);

	/* the other way: every code of the table is emitted somewhere
	 * (quota_exceeded by the daemon, src/serve/ops.c) */
	assert_non_null(text = source("src/serve/ops.c"));
	for (c = refusal_codes; c->code != NULL; c++) {
		snprintf(quoted, sizeof quoted, "\"%s\"", c->code);
		for (i = 0; i < fd.n && strcmp(fd.code[i], c->code) != 0; i++)
			;
		if (i == fd.n && strstr(text, quoted) == NULL)
			fail_msg("the table has '%s', which nothing emits", c->code);
	}
	free(text);
	regfree(&call);
	regfree(&field);
	regfree(&lit);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_from_the_tables),
		cmocka_unit_test(test_example_parses),
		cmocka_unit_test(test_table_covers_the_validator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
