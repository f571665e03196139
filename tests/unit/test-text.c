/* SPDX-License-Identifier: ISC */
/* text_visible: agent text can never reach the terminal as control;
 * text_output: command output as it is, made just as safe. */
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
