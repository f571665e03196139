/* SPDX-License-Identifier: ISC */
/*
 * The review console's layout (src/tui/doc.c): prose wraps at spaces, a
 * word (an argv element) only before it, a word longer than a line is cut
 * with a gutter mark on the lines that go on with it (↪, or \ without
 * UTF-8), and a visible escape is never split.
 */
#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tui/tui.h"

/* Line i of d as UTF-8, drawn into its width; trailing blanks dropped. */
static char *
render(const struct tdoc *d, size_t i)
{
	const struct tline *l = &d->l[i];
	wchar_t row[256];
	char *out = xcalloc(1024, 1);
	size_t j, k;
	int col, n = 0;

	wmemset(row, L' ', 255);
	row[255] = L'\0';
	for (j = 0; j < l->nsegs; j++) {
		col = l->segs[j].col;
		for (k = 0; l->segs[j].w[k] != L'\0'; k++) {
			assert_true(col < 255);
			row[col] = l->segs[j].w[k];
			col += wcwidth(l->segs[j].w[k]) == 2 ? 2 : 1;
			if (col > n)
				n = col;
		}
	}
	row[n] = L'\0';
	assert_true(wcstombs(out, row, 1023) != (size_t)-1);
	return out;
}

static void
lines(struct tdoc *d, ...)
{
	const char *want;
	va_list ap;
	size_t i = 0;
	char *got;

	doc_end(d);
	va_start(ap, d);
	while ((want = va_arg(ap, const char *)) != NULL) {
		if (i >= d->n)
			fail_msg("only %zu lines; line %zu should be '%s'", d->n, i, want);
		got = render(d, i);
		if (strcmp(got, want) != 0)
			fail_msg("line %zu: got '%s', want '%s'", i, got, want);
		free(got);
		i++;
	}
	va_end(ap);
	if (i != d->n) {
		got = render(d, i);
		fail_msg("%zu lines, not %zu; the next is '%s'", d->n, i, got);
	}
}

/* The example from issue 12 in a card 40 columns wide: the arguments
 * stay whole, the fourth starts the continuation line at the indent. */
static void
test_argv_at_boundaries(void **s)
{
	struct tdoc d = { 0 };
	const char *argv[] = { "/usr/bin/ln", "-s", "/etc/nginx/sites-available/dev-proxy",
	    "/etc/nginx/sites-enabled/dev-proxy" };
	size_t i;

	(void)s;
	doc_reset(&d, 40, 40);
	doc_line(&d, -1, LINE_PLAIN, 2);
	for (i = 0; i < 4; i++) {
		if (i > 0)
			doc_add(&d, ST_BOLD, " ");
		doc_word(&d, ST_BOLD, argv[i]);
	}
	lines(&d,
	    "/usr/bin/ln -s",
	    "  /etc/nginx/sites-available/dev-proxy",
	    "  /etc/nginx/sites-enabled/dev-proxy", NULL);
	doc_free(&d);
}

/* A word with spaces (a quoted argument) is not split at them. */
static void
test_word_keeps_spaces(void **s)
{
	struct tdoc d = { 0 };

	(void)s;
	doc_reset(&d, 20, 20);
	doc_line(&d, -1, LINE_PLAIN, 2);
	doc_word(&d, ST_NORMAL, "/bin/echo");
	doc_add(&d, ST_NORMAL, " ");
	doc_word(&d, ST_NORMAL, "'a b c d e'");
	lines(&d, "/bin/echo", "  'a b c d e'", NULL);
	doc_free(&d);
}

/* Prose wraps at spaces, words whole, with a hanging indent. */
static void
test_prose_at_spaces(void **s)
{
	struct tdoc d = { 0 };

	(void)s;
	doc_reset(&d, 30, 30);
	doc_line(&d, -1, LINE_PLAIN, 8);
	doc_add(&d, ST_LABEL, "Reason");
	doc_tab(&d, 8);
	doc_add(&d, ST_NORMAL, "Enable the development proxy site for the new frontend");
	lines(&d,
	    "Reason  Enable the development",
	    "        proxy site for the new",
	    "        frontend", NULL);
	doc_free(&d);
	/* spaces at the end of a full line start no empty line */
	doc_reset(&d, 10, 10);
	doc_line(&d, -1, LINE_PLAIN, 2);
	doc_add(&d, ST_NORMAL, "0123456789   ");
	lines(&d, "0123456789", NULL);
	doc_free(&d);
}

/* Only a word longer than a whole line is cut, and visibly: the lines
 * that go on with it carry a mark in the gutter. */
static void
test_long_word_cut_marked(void **s)
{
	struct tdoc d = { 0 };

	(void)s;
	tui_utf8 = 1;
	doc_reset(&d, 20, 20);
	doc_line(&d, -1, LINE_PLAIN, 4);
	doc_add(&d, ST_NORMAL, "ab ");
	doc_word(&d, ST_NORMAL, "0123456789abcdefghijklmnopqrstuvwxyz");
	doc_add(&d, ST_NORMAL, " end");
	lines(&d,
	    "ab 0123456789abcdefg",
	    "  \xe2\x86\xaa hijklmnopqrstuvw",
	    "  \xe2\x86\xaa xyz end", NULL);
	doc_free(&d);
	/* without UTF-8: a backslash */
	tui_utf8 = 0;
	doc_reset(&d, 20, 20);
	doc_line(&d, -1, LINE_PLAIN, 4);
	doc_add(&d, ST_NORMAL, "0123456789abcdefghijklmnop");
	lines(&d, "0123456789abcdefghij", "  \\ klmnop", NULL);
	doc_free(&d);
	tui_utf8 = 1;
}

/* A visible escape moves to the next line whole. */
static void
test_escape_not_split(void **s)
{
	struct tdoc d = { 0 };

	(void)s;
	doc_reset(&d, 12, 12);
	doc_line(&d, -1, LINE_PLAIN, 2);
	doc_add(&d, ST_NORMAL, "abcdefgh\x1b[2J");
	lines(&d, "abcdefgh", "\xe2\x86\xaa \\x1b[2J", NULL);
	doc_free(&d);
	doc_reset(&d, 12, 12);
	doc_line(&d, -1, LINE_PLAIN, 2);
	doc_add(&d, ST_NORMAL, "abcdef\xe2\x80\xae" "x");
	lines(&d, "abcdef", "\xe2\x86\xaa <U+202E>x", NULL);
	doc_free(&d);
}

/* A paragraph ends where the next line starts; lines keep their card. */
static void
test_paragraphs_and_cards(void **s)
{
	struct tdoc d = { 0 };

	(void)s;
	doc_reset(&d, 40, 10);
	doc_line(&d, 3, LINE_TOP, 0);
	doc_line(&d, 3, LINE_MID, 2);
	doc_add(&d, ST_NORMAL, "one two three");
	doc_line(&d, 3, LINE_BOTTOM, 0);
	doc_end(&d);
	assert_int_equal(d.n, 4);
	assert_int_equal(d.l[2].card, 3);
	assert_int_equal(d.l[2].kind, LINE_MID);
	assert_int_equal(d.l[3].kind, LINE_BOTTOM);
	lines(&d, "", "one two", "  three", "", NULL);
	doc_free(&d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_at_boundaries),
		cmocka_unit_test(test_word_keeps_spaces),
		cmocka_unit_test(test_prose_at_spaces),
		cmocka_unit_test(test_long_word_cut_marked),
		cmocka_unit_test(test_escape_not_split),
		cmocka_unit_test(test_paragraphs_and_cards),
	};

	if (setlocale(LC_ALL, "C.UTF-8") == NULL)
		return 77;
	tui_utf8 = 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
