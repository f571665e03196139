/* SPDX-License-Identifier: ISC */
/*
 * The supervisor's table of system calls (src/root/confine/syscalls.c): it
 * names every call the kernel headers this builds with know, by the
 * same number; each notified or refused call says why; and
 * docs/execution.md holds exactly the table made from it. With
 * --markdown, prints that table (to paste between the markers).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "root/confine/supervise.h"

#define BEGIN_MARK	"<!-- syscalls: made by test-syscalls --markdown -->\n"
#define END_MARK	"<!-- /syscalls -->\n"

static const char *const headers[] = {
	"/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
	"/usr/include/aarch64-linux-gnu/asm/unistd.h",
	"/usr/include/asm-generic/unistd.h",
};

static const struct syscall_rule *
rule_named(const char *name)
{
	size_t i;

	for (i = 0; i < syscall_nrules; i++)
		if (strcmp(syscall_rules[i].name, name) == 0)
			return &syscall_rules[i];
	return NULL;
}

static const char *
kind_text(enum syscall_kind k)
{
	switch (k) {
	case SC_DONE:		return "judged; the runner makes it";
	case SC_CONTINUED:	return "judged; then the kernel makes it";
	case SC_WHEN:		return "judged when an argument says so";
	case SC_ENOSYS:		return "fails with ENOSYS";
	default:		return "not notified";
	}
}

/* The table as docs/execution.md shows it: a row per reason, its calls
 * in table order; then every other call. */
static char *
markdown(void)
{
	char *out = NULL;
	size_t len = 0, i, j, n;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	fprintf(f, "| calls | what happens | why |\n|---|---|---|\n");
	for (i = 0; i < syscall_nrules; i++) {
		const struct syscall_rule *r = &syscall_rules[i];

		if (r->why == NULL)
			continue;
		for (j = 0; j < i && syscall_rules[j].why != r->why; j++)
			;
		if (j < i)
			continue;	/* its reason's row is written */
		fprintf(f, "| ");
		for (j = i, n = 0; j < syscall_nrules; j++)
			if (syscall_rules[j].why == r->why)
				fprintf(f, "%s`%s`", n++ ? ", " : "", syscall_rules[j].name);
		fprintf(f, " | %s | %s |\n", kind_text(r->kind), r->why);
	}
	for (i = 0, n = 0; i < syscall_nrules; i++)
		n += syscall_rules[i].why == NULL;
	fprintf(f, "| every other call (%zu): ", n);
	for (i = 0, j = 0; i < syscall_nrules; i++)
		if (syscall_rules[i].why == NULL)
			fprintf(f, "%s`%s`", j++ ? ", " : "", syscall_rules[i].name);
	fprintf(f, " | not notified | it works on descriptors, memory, signals or the process "
	    "itself: it reaches no file, program or process by a name |\n");
	fprintf(f, "| every number above %d | fails with ENOSYS | a newer kernel's call, not "
	    "judged yet |\n", (int)syscall_rules[syscall_nrules - 1].nr);
	fclose(f);
	return out;
}

/* Every "#define __NR_name N" of the headers is a rule with that number. */
static void
test_headers_known(void **state)
{
	char line[512], name[128];
	const struct syscall_rule *r;
	unsigned seen = 0;
	size_t i;
	FILE *f = NULL;
	int nr;

	(void)state;
	for (i = 0; i < sizeof headers / sizeof headers[0] && f == NULL; i++)
		f = fopen(headers[i], "re");
	if (f == NULL)
		skip();
	while (fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "#define __NR_%127s %d", name, &nr) != 2)
			continue;
		seen++;
		if ((r = rule_named(name)) == NULL)
			fail_msg("the kernel headers know %s (%d); the supervisor's table does not",
			    name, nr);
		if (r->nr != nr)
			fail_msg("%s is %d in the headers, %d in the table", name, nr, r->nr);
	}
	fclose(f);
	assert_true(seen > 300);
}

/* One rule per number and name; a reason for every notified or refused
 * call; conditions only on conditional ones. */
static void
test_rules_sound(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < syscall_nrules; i++) {
		const struct syscall_rule *r = &syscall_rules[i];

		for (j = 0; j < i; j++)
			if (syscall_rules[j].nr == r->nr || strcmp(syscall_rules[j].name, r->name) == 0)
				fail_msg("%s and %s share a number or name", r->name,
				    syscall_rules[j].name);
		if (r->kind != SC_ALLOWED && r->why == NULL)
			fail_msg("%s has no reason", r->name);
		if ((r->kind == SC_WHEN) != (r->when_arg != 0 || r->when_bits != 0))
			fail_msg("%s: a condition only on SC_WHEN", r->name);
		assert_true(r->when_arg < 6);
	}
}

/* docs/execution.md holds the table made from the rules. */
static void
test_docs_current(void **state)
{
	char path[4096], *doc, *want, *at, *end = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	snprintf(path, sizeof path, "%s/docs/execution.md", SOURCE_DIR);
	assert_non_null(f = fopen(path, "re"));
	doc = NULL;
	assert_true(getdelim(&doc, &len, '\0', f) > 0);
	fclose(f);
	want = markdown();
	if ((at = strstr(doc, BEGIN_MARK)) == NULL || (end = strstr(at, END_MARK)) == NULL)
		fail_msg("docs/execution.md has no table between the markers");
	at += strlen(BEGIN_MARK);
	*end = '\0';
	if (strcmp(at, want) != 0)
		fail_msg("docs/execution.md's table is not the supervisor's: run "
		    "test-syscalls --markdown and paste it between the markers");
	free(want);
	free(doc);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers_known),
		cmocka_unit_test(test_rules_sound),
		cmocka_unit_test(test_docs_current),
	};

	if (argc == 2 && strcmp(argv[1], "--markdown") == 0) {
		char *m = markdown();

		fputs(m, stdout);
		free(m);
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
