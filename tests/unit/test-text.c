/* SPDX-License-Identifier: ISC */
/* text_visible: agent text can never reach the terminal as control;
 * text_output: command output as it is, made just as safe; text_word:
 * an argv word, look-alikes of its punctuation escaped and right-to-left
 * text isolated. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "warrant.h"

static void
expect(const char *in, const char *want)
{
	char *got = text_visible(in);

	assert_string_equal(got, want);
	free(got);
}

static void
test_plain(void **s)
{
	(void)s;
	expect("apt-get install -y jq", "apt-get install -y jq");
	expect("café 日本", "café 日本");
	expect("", "");
}

static void
test_controls(void **s)
{
	(void)s;
	expect("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07");
	expect("a\x1b[2Jb", "a\\x1b[2Jb");
	expect("line\nnext\r\t", "line\\nnext\\r\\t");
	expect("\x7f\x01", "\\x7f\\x01");
	expect("back\\slash", "back\\\\slash");
}

static void
test_c1_and_invisible(void **s)
{
	(void)s;
	expect("\xc2\x9b" "31m", "<U+009B>31m");			/* C1 CSI */
	expect("abc\xe2\x80\xae" "fdp.exe", "abc<U+202E>fdp.exe");	/* RLO */
	expect("a\xe2\x80\x8b" "b", "a<U+200B>b");			/* ZWSP */
	expect("\xe2\x81\xa6x\xe2\x81\xa9", "<U+2066>x<U+2069>");	/* isolates */
	expect("\xef\xbb\xbf", "<U+FEFF>");
}

/* Code points that draw as blank or as nothing, one of each class. */
static void
test_blank_and_ignorable(void **s)
{
	char in[1024], want[2048];
	size_t i;

	(void)s;
	/* Hangul fillers (Lo, Default_Ignorable) */
	expect("\xe3\x85\xa4", "<U+3164>");
	expect("\xe1\x85\x9f\xe1\x85\xa0", "<U+115F><U+1160>");
	expect("\xef\xbe\xa0", "<U+FFA0>");
	expect("\xe2\xa0\x80", "<U+2800>");			/* Braille blank */
	expect("a\xcd\x8f" "b", "a<U+034F>b");		/* combining grapheme joiner */
	expect("x\xef\xb8\x8f", "x<U+FE0F>");		/* variation selector 16 */
	expect("x\xf3\xa0\x84\x80", "x<U+E0100>");		/* variation selector 17 */
	expect("\xe1\xa0\x8b\xe1\xa0\x8e", "<U+180B><U+180E>");	/* Mongolian */
	expect("\xe1\x9e\xb4\xe1\x9e\xb5", "<U+17B4><U+17B5>");	/* Khmer */
	expect("a\xc2\xad" "b", "a<U+00AD>b");		/* soft hyphen (Cf) */
	expect("\xf3\xa0\x80\x81", "<U+E0001>");		/* language tag (Cf) */
	/* spaces other than U+0020 (Zs), separators (Zl, Zp) */
	expect("a\xc2\xa0" "b", "a<U+00A0>b");
	expect("\xe2\x80\x83\xe2\x80\xaf\xe3\x80\x80", "<U+2003><U+202F><U+3000>");
	expect("\xe2\x80\xa8\xe2\x80\xa9", "<U+2028><U+2029>");
	/* private use (Co), unassigned (Cn), noncharacter */
	expect("\xee\x80\x80", "<U+E000>");
	expect("\xf4\x8f\xbf\xbd", "<U+10FFFD>");
	expect("\xcd\xb8", "<U+0378>");
	expect("\xef\xb7\x90", "<U+FDD0>");
	/* the example from the issue: nothing hides between ok and the path */
	strcpy(in, "ok");
	strcpy(want, "ok");
	for (i = 0; i < 150; i++) {
		strcat(in, "\xe3\x85\xa4");
		strcat(want, "<U+3164>");
	}
	strcat(in, "/etc/passwd");
	strcat(want, "/etc/passwd");
	expect(in, want);
	/* visible text, letters of every script and ordinary marks, stays */
	expect("na\xc3\xafve \xd0\xbf\xd1\x80\xd0\xb8 \xce\xb1\xce\xb2", "na\xc3\xafve \xd0\xbf\xd1\x80\xd0\xb8 \xce\xb1\xce\xb2");
	expect("e\xcc\x81", "e\xcc\x81");			/* e + combining acute */
	expect("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");		/* emoji */
	expect("\xe2\xa0\x81", "\xe2\xa0\x81");			/* Braille dot 1 */
}

static void
test_invalid_utf8(void **s)
{
	(void)s;
	expect("\xff\xfe", "\\xff\\xfe");
	expect("\xc0\xaf", "\\xc0\\xaf");		/* overlong */
	expect("\xed\xa0\x80", "\\xed\\xa0\\x80");	/* surrogate */
	expect("\xe2\x82", "\\xe2\\x82");		/* truncated */
}

static void
test_no_raw_escape_survives(void **s)
{
	char in[256], *out;
	size_t i;

	(void)s;
	for (i = 0; i < 255; i++)
		in[i] = (char)(i + 1);
	in[255] = '\0';
	out = text_visible(in);
	for (i = 0; out[i] != '\0'; i++) {
		unsigned char c = (unsigned char)out[i];

		assert_false(c < 0x20 || c == 0x7f);
	}
	assert_null(strstr(out, "\xc2\x9b"));
	free(out);
}

/* found by tests/fuzz/fuzz-text: a sequence cut at the end of a buffer
 * that is not NUL-terminated must not be read past (ASan build) */
static void
test_json_safe_cut_sequence(void **s)
{
	char *cut = xmalloc(4), *whole = xmalloc(5), *out;

	(void)s;
	memcpy(cut, "o;\xe2\x80", 4);		/* exactly 4 bytes, no NUL */
	out = text_json_safe(cut, 4);
	assert_string_equal(out, "o;\\xe2\\x80");
	free(out);
	memcpy(whole, "o;\xe2\x80\xae", 5);
	out = text_json_safe(whole, 5);
	assert_string_equal(out, "o;\xe2\x80\xae");
	free(out);
	free(cut);
	free(whole);
}

static void
expect_output(const char *in, const char *want)
{
	char *got = text_output(in);

	assert_string_equal(got, want);
	free(got);
}

/* text_output: command output as it is, only what must not reach a
 * terminal neutralised, carriage returns as a terminal treats them. */
static void
test_output(void **s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)s;
	/* cowsay: a backslash is one backslash, tabs and lines stay */
	expect_output(" \\   ^__^\n  \\  (oo)\\_______\n", " \\   ^__^\n  \\  (oo)\\_______\n");
	expect_output("a\tb\n\nc", "a\tb\n\nc");
	/* apt's progress: only the last state of a line; CR LF is a line end */
	expect_output("0% [Working]\r20% [Working]\r100% done\nnext\n",
	    "100% done\nnext\n");
	expect_output("Reading lists... Done\r\n", "Reading lists... Done\n");
	expect_output("50%\r", "50%");
	expect_output("\r\r\n", "\n");
	/* still neutralised: escapes, other controls, invisible code points,
	 * invalid UTF-8 */
	expect_output("\x1b]2;PWNED\x07 said\x1b[2J", "\\x1b]2;PWNED\\x07 said\\x1b[2J");
	expect_output("a\x08\x0b\x0c\x7f", "a\\x08\\x0b\\x0c\\x7f");
	expect_output("\xc2\x9b" "31m \xe2\x80\xae" "x", "<U+009B>31m <U+202E>x");
	expect_output("\xff ok", "\\xff ok");
	/* line by line, with a prefix for the first line and the others */
	assert_non_null(fp = open_memstream(&buf, &len));
	text_print_output(fp, "one\\\r\ntwo 1%\rtwo 2%\n", "out: ", "   | ");
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(buf, "out: one\\\n   | two 2%\n");
	free(buf);
}

/* Look-alikes of option and path punctuation, class by class; ASCII
 * itself and letters of other scripts are not. */
static void
test_lookalike_classes(void **s)
{
	static const unsigned yes[] = {
		0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2E3A, 0x301C,	/* Pd */
		0xFE58, 0xFE63, 0xFF0D, 0x058A, 0x1400, 0x10EAD,
		0x2212, 0x2796, 0x02D7, 0x2043, 0x2500,			/* minus forms */
		0x207B, 0x208B,						/* super/subscript minus */
		0x2044, 0x2215, 0x29F8, 0x2571, 0x27CB,			/* slashes */
		0x2216, 0x29F5, 0xFE68,					/* backslashes */
		0xFF01, 0xFF0F, 0xFF0E, 0xFF1D, 0xFF21, 0xFF41, 0xFF5E,	/* full width */
		0x2024, 0xFE52, 0x207C, 0x208C, 0xFE66,		/* . = in small forms */
		0x02DC, 0x223C, 0x2236, 0xA789, 0x201A,		/* ~ : , */
		0x00AD,						/* soft hyphen */
		0xFB01, 0x212A, 0x1D41A, 0x00B2,		/* fi, Kelvin K, math a, ² */
	};
	static const unsigned no[] = {
		'-', '/', '.', '~', '=', 'a', 0x7F,	/* ASCII itself */
		0x0430, 0x03BF, 0x05D0, 0x0627, 0x4E00,	/* Cyrillic a, Greek o, Hebrew, Arabic, Han */
		0x00E9, 0x00DF, 0x00B7, 0x2126,	/* e acute, sharp s, middle dot, ohm sign */
		0x2192, 0x00D7, 0x00A9, 0x1F600,	/* arrow, times, copyright, emoji */
	};
	size_t i;

	(void)s;
	for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (!text_lookalike(yes[i]))
			fail_msg("U+%04X should be a look-alike", yes[i]);
	for (i = 0; i < sizeof no / sizeof no[0]; i++)
		if (text_lookalike(no[i]))
			fail_msg("U+%04X should not be a look-alike", no[i]);
}

static void
expect_word(const char *in, int isolate, const char *want)
{
	char *got = text_word(in, isolate);

	assert_string_equal(got, want);
	free(got);
}

/* The one renderer of an argv word: text_visible's escapes, look-alikes
 * escaped, right-to-left text isolated (or escaped without isolate). */
static void
test_word(void **s)
{
	(void)s;
	/* the examples */
	expect_word("\xe2\x80\x90n", 1, "<U+2010>n");
	expect_word("\xe2\x80\x90\xe2\x80\x90" "dry-run", 1, "<U+2010><U+2010>dry-run");
	expect_word("\xef\xbc\x8f" "etc\xef\xbc\x8f" "shadow", 1, "<U+FF0F>etc<U+FF0F>shadow");
	expect_word("\xe2\x88\x92print", 0, "<U+2212>print");
	/* ASCII, letters and other text as text_visible leaves them */
	expect_word("--dry-run", 1, "--dry-run");
	expect_word("/etc/p\xd0\xb0sswd", 1, "/etc/p\xd0\xb0sswd");
	expect_word("caf\xc3\xa9 \xe6\x97\xa5", 0, "caf\xc3\xa9 \xe6\x97\xa5");
	expect_word("a\x1b[2J\\", 1, "a\\x1b[2J\\\\");
	expect_word("\xe2\x80\xae" "x", 1, "<U+202E>x");	/* a bidi control stays escaped */
	/* right-to-left letters: isolated left to right, or escaped */
	expect_word("\xd7\x90\xd7\x91-/x", 1, "\xe2\x81\xa6\xd7\x90\xd7\x91-/x\xe2\x81\xa9");
	expect_word("\xd7\x90\xd7\x91-/x", 0, "<U+05D0><U+05D1>-/x");
	expect_word("\xd8\xa7", 0, "<U+0627>");			/* Arabic (AL) */
	/* prose (text_visible): right-to-left letters stay, look-alikes of
	 * path and option punctuation go, the marks of writing stay */
	expect("\xe2\x80\x90n \xd7\x90", "<U+2010>n \xd7\x90");
	expect("/tmp/x/..\xe2\x88\x95home\xe2\x88\x95rev", "/tmp/x/..<U+2215>home<U+2215>rev");
	expect("\xef\xbc\x8f" "etc", "<U+FF0F>etc");
	expect("a \xe2\x80\x94 b \xe2\x80\x93 c\xe2\x80\xa6", "a \xe2\x80\x94 b \xe2\x80\x93 c\xe2\x80\xa6");
	expect("\xe4\xbd\xa0\xe5\xa5\xbd\xef\xbc\x8c\xef\xbc\x9a\xef\xbc\x81",
	    "\xe4\xbd\xa0\xe5\xa5\xbd\xef\xbc\x8c\xef\xbc\x9a\xef\xbc\x81");
	/* and the word keeps none of them */
	expect_word("a\xe2\x80\x94" "b", 1, "a<U+2014>b");
}

static void
test_word_marks(void **s)
{
	(void)s;
	assert_int_equal(text_word_marks("-n"), 0);
	assert_int_equal(text_word_marks("/etc/shadow"), 0);
	assert_int_equal(text_word_marks("\xd0\xbf\xd1\x80\xd0\xb8"), 0);	/* Cyrillic */
	assert_int_equal(text_word_marks("\xe2\x80\x90n"), TEXT_LOOKALIKE | TEXT_LOOKALIKE_FIRST);
	assert_int_equal(text_word_marks("pass\xc2\xadword"), TEXT_LOOKALIKE);
	assert_int_equal(text_word_marks("a\xe2\x81\x84" "b"), TEXT_LOOKALIKE);
	assert_int_equal(text_word_marks("x\xd7\x90"), TEXT_RTL);
	assert_int_equal(text_word_marks("\xef\xbc\x8f\xd8\xa7"),
	    TEXT_LOOKALIKE | TEXT_LOOKALIKE_FIRST | TEXT_RTL);
	assert_int_equal(text_word_marks("\xff\xe2\x80\x90"), TEXT_LOOKALIKE);	/* after a bad byte */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_c1_and_invisible),
		cmocka_unit_test(test_blank_and_ignorable),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_no_raw_escape_survives),
		cmocka_unit_test(test_json_safe_cut_sequence),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_lookalike_classes),
		cmocka_unit_test(test_word),
		cmocka_unit_test(test_word_marks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
