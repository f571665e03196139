/* SPDX-License-Identifier: ISC */
/*
 * How a ROOT command's confinement record (the run-time supervisor's,
 * checked by ledger_check) is shown as text: `warrant show`, `answer`,
 * `wait`, the console's hand-off and the MCP result all print it through
 * confinement_lines. Every path and reason is the agent's and must come
 * out neutralised: no escape byte, no bidi control, on its own line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mcp/mcp.h"

#define HOSTILE "/home/a/proj/Makefile\x1b[2J\xe2\x80\xae.txt"
#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static json_t *
entry(int unconfined)
{
	json_t *e = json_pack("{s:s,s:s,s:s,s:i,s:n,s:i,s:s,s:i}", "id", "a", "as", "root",
	    "status", "failed", "exit_code", 2, "signal", "duration_ms", 5, "output_tail", "",
	    "output_bytes", 0);

	json_object_set_new(e, "confinement", unconfined ?
	    json_pack("{s:[],s:[],s:[],s:{s:i,s:i,s:i},s:b}", "executed", "written",
	    "refused", "omitted", "executed", 0, "written", 0, "refused", 0, "unconfined", 1) :
	    json_pack("{s:[{s:s,s:s}],s:[s],s:[{s:s,s:s,s:s}],s:{s:i,s:i,s:i},s:b}",
	    "executed", "path", "/usr/bin/make", "sha256", SHA,
	    "written", "/etc/x.conf\n/etc/shadow",
	    "refused", "call", "open", "path", HOSTILE,
	    "reason", "the requester can change " HOSTILE,
	    "omitted", "executed", 2, "written", 0, "refused", 7, "unconfined", 0));
	return e;
}

/* Nothing of s may drive a terminal or turn text around. */
static void
assert_neutral(const char *s)
{
	assert_null(strchr(s, '\x1b'));
	assert_null(strstr(s, "\xe2\x80\xae"));
}

static char *
printed(const json_t *e)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	assert_non_null(fp);
	confinement_print(fp, e, "   ");
	assert_int_equal(fclose(fp), 0);
	return text;
}

static void
test_print(void **state)
{
	json_t *e = entry(0);
	char *text = printed(e);

	(void)state;
	assert_neutral(text);
	assert_non_null(strstr(text, "   run-time supervisor: 3 programs executed, 1 file "
	    "written, 8 accesses refused\n"));
	assert_non_null(strstr(text, "   refused at run time: open /home/a/proj/Makefile"
	    "\\x1b[2J<U+202E>.txt \xe2\x80\x94 the requester can change /home/a/proj/Makefile"
	    "\\x1b[2J<U+202E>.txt\n"));
	assert_non_null(strstr(text, "   refused at run time: (and 7 more)\n"));
	assert_non_null(strstr(text, "   executed: /usr/bin/make (sha256 0123456789ab)\n"));
	assert_non_null(strstr(text, "   executed: (and 2 more)\n"));
	/* a line break in a path stays inside its line */
	assert_non_null(strstr(text, "   written: /etc/x.conf\\n/etc/shadow\n"));
	assert_null(strstr(text, "written: (and"));
	/* refused accesses come before everything else the supervisor saw,
	 * then what to do instead */
	assert_true(strstr(text, "refused at run time") < strstr(text, "executed: "));
	assert_non_null(strstr(text, "   what to do instead: root only reads, runs and writes"));
	assert_true(strstr(text, "(and 7 more)") < strstr(text, "what to do instead"));
	free(text);
	json_decref(e);

	e = entry(1);
	text = printed(e);
	assert_non_null(strstr(text, "   unconfined: ran without the run-time supervisor"));
	assert_null(strstr(text, "refused at run time"));
	assert_null(strstr(text, "what to do instead"));
	free(text);
	/* a YOU entry, or a ROOT entry that never started: nothing */
	json_object_del(e, "confinement");
	text = printed(e);
	assert_string_equal(text, "");
	free(text);
	json_decref(e);
}

/* The MCP result: the text neutralised, structuredContent the record as
 * data (a JSON string is not a terminal). */
static void
test_mcp(void **state)
{
	json_t *l = ledger_new("w-aaaaaaaaaa", SHA, "completed", json_pack("[o]", entry(0)),
	    NULL), *o, *r;
	const char *text;

	(void)state;
	o = json_pack("{s:s,s:s,s:o,s:n,s:n,s:s,s:i}", "request_id", "w-aaaaaaaaaa",
	    "state", "approved", "ledger", l, "feedback", "next_prompt", "output_to_agent",
	    "tail", "gate_timeout_seconds", 600);
	r = result_settled(o, 1);
	assert_non_null(r);
	text = json_string_value(json_object_get(json_array_get(json_object_get(r, "content"),
	    0), "text"));
	assert_non_null(text);
	assert_neutral(text);
	assert_non_null(strstr(text, "\n   refused at run time: open /home/a/proj/Makefile"
	    "\\x1b[2J<U+202E>.txt \xe2\x80\x94 the requester can change"));
	assert_non_null(strstr(text, "\n   executed: /usr/bin/make (sha256 0123456789ab)\n"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
	    json_object_get(json_array_get(json_object_get(json_object_get(json_object_get(r,
	    "structuredContent"), "ledger"), "entries"), 0), "confinement"), "refused"), 0),
	    "path")), HOSTILE);
	json_decref(r);
	json_decref(o);
}

/* answer's and show's ledger lines carry the record under each entry. */
static void
test_ledger_print(void **state)
{
	json_t *l = ledger_new("w-aaaaaaaaaa", SHA, "completed", json_pack("[o]", entry(0)),
	    NULL);
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	(void)state;
	assert_non_null(fp);
	ledger_print(fp, l);
	assert_int_equal(fclose(fp), 0);
	assert_neutral(text);
	/* a command with refused accesses says so on its own line too */
	assert_non_null(strstr(text, "  root failed   a  exit 2  (8 refused at run time)\n"
	    "         run-time supervisor: "));
	assert_non_null(strstr(text, "\n         refused at run time: open /home/a/proj/Makefile"
	    "\\x1b[2J<U+202E>.txt"));
	free(text);
	json_decref(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_mcp),
		cmocka_unit_test(test_ledger_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
