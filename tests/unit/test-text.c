/* text_visible: agent text can never reach the terminal as control. */
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_c1_and_invisible),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_no_raw_escape_survives),
		cmocka_unit_test(test_json_safe_cut_sequence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
