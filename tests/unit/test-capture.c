/* SPDX-License-Identifier: ISC */
/* Output capture: a bounded tail whatever the volume, kept as it was
 * printed (the runner records raw), and redacted by the finisher however
 * the output was split into reads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "warrant.h"

static struct capture cap;

static void
feed_in_pieces(const char *s, size_t piece)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i += piece)
		capture_feed(&cap, s + i, n - i < piece ? n - i : piece);
}

static void
test_redaction_across_reads(void **state)
{
	const char *out = "ok\nuser db_PassWord=hunter2 done\ntoken=abc;next\n";
	size_t piece;
	char *tail, *clean;

	(void)state;
	for (piece = 1; piece <= 9; piece++) {
		capture_init(&cap, -1, 0);
		feed_in_pieces(out, piece);
		tail = capture_tail(&cap, LEDGER_TAIL_BYTES);
		/* the capture (the runner's) keeps the output as it was */
		assert_string_equal(tail, out);
		clean = redact_text(tail);
		assert_string_equal(clean, "ok\nuser db_[redacted] done\n[redacted];next\n");
		assert_false(contains_credential(clean));
		assert_int_equal(cap.total, strlen(out));
		free(clean);
		free(tail);
	}
}

static void
test_tail_is_bounded(void **state)
{
	char line[101], *tail;
	size_t i;

	(void)state;
	memset(line, 'x', 99);
	line[99] = '\n';
	line[100] = '\0';
	capture_init(&cap, -1, 0);
	for (i = 0; i < 20000; i++)
		capture_feed(&cap, line, 100);
	capture_feed(&cap, "last\n", 5);
	assert_int_equal(cap.total, 20000 * 100 + 5);
	/* the last 8192 bytes, less the line cut at their start: whole
	 * lines and "last\n" */
	tail = capture_tail(&cap, LEDGER_TAIL_BYTES);
	assert_int_equal(strlen(tail), 81 * 100 + 5);
	assert_memory_equal(tail, line, 100);
	assert_string_equal(tail + strlen(tail) - 5, "last\n");
	free(tail);
	tail = capture_tail(&cap, LEDGER_FULL_BYTES);
	assert_int_equal(strlen(tail), 655 * 100 + 5);
	assert_memory_equal(tail, line, 100);
	free(tail);
}

/* A tail that begins just after a line break keeps its first line; one
 * line longer than the tail is kept as far as it fits. */
static void
test_tail_line_cut(void **state)
{
	char big[LEDGER_TAIL_BYTES + 100], *tail;

	(void)state;
	capture_init(&cap, -1, 0);
	capture_feed(&cap, "drop\n", 5);
	memset(big, 'y', LEDGER_TAIL_BYTES - 1);
	big[LEDGER_TAIL_BYTES - 1] = '\n';
	capture_feed(&cap, big, LEDGER_TAIL_BYTES);
	tail = capture_tail(&cap, LEDGER_TAIL_BYTES);
	assert_int_equal(strlen(tail), LEDGER_TAIL_BYTES);
	assert_int_equal(tail[0], 'y');
	free(tail);
	capture_init(&cap, -1, 0);
	memset(big, 'z', sizeof big);
	capture_feed(&cap, big, sizeof big);
	tail = capture_tail(&cap, LEDGER_TAIL_BYTES);
	assert_int_equal(strlen(tail), LEDGER_TAIL_BYTES);
	free(tail);
	/* cut inside a line: the piece of "password=hunter2" is not kept */
	capture_init(&cap, -1, 0);
	capture_feed(&cap, "password=hunter2\n", 17);
	memset(big, 'w', LEDGER_TAIL_BYTES - 10);
	big[LEDGER_TAIL_BYTES - 11] = '\n';
	capture_feed(&cap, big, LEDGER_TAIL_BYTES - 10);
	tail = capture_tail(&cap, LEDGER_TAIL_BYTES);
	assert_null(strstr(tail, "hunter2"));
	assert_int_equal(strlen(tail), LEDGER_TAIL_BYTES - 10);
	free(tail);
}

static void
test_binary_output_is_json_safe(void **state)
{
	char *tail;

	(void)state;
	capture_init(&cap, -1, 0);
	capture_feed(&cap, "a\0b\xff\n", 5);
	tail = capture_tail(&cap, LEDGER_TAIL_BYTES);
	assert_string_equal(tail, "a\\x00b\\xff\n");
	free(tail);
}

static void
redacts(const char *in, const char *want)
{
	char out[256];
	int inkey = 0;
	size_t n = redact_credentials(in, strlen(in), out, sizeof out, &inkey);

	out[n] = '\0';
	assert_string_equal(out, want);
	assert_false(contains_credential(out));
}

static void
test_redaction_shapes(void **state)
{
	(void)state;
	redacts("a=b c", "a=b c");
	redacts("PASSWORD=x y", "[redacted] y");
	redacts("x=1 secret=2 Token=3", "x=1 [redacted] [redacted]");
	redacts("mytoken=abc\"rest", "my[redacted]\"rest");
	redacts("passphrase==x;next", "[redacted];next");
	redacts("passwd=", "[redacted]");
	redacts("==token=a", "==[redacted]");
}

static void
test_redaction_in_a_long_line(void **state)
{
	char line[8192 + 64], *tail, *clean;

	(void)state;
	/* a shape inside an over-long line, read in pieces that cut it */
	memset(line, 'a', sizeof line);
	memcpy(line + 4096 - 4, "password=hunter2 ", 17);
	line[sizeof line - 2] = '\n';
	line[sizeof line - 1] = '\0';
	capture_init(&cap, -1, 0);
	feed_in_pieces(line, 4096);
	tail = capture_tail(&cap, LEDGER_TAIL_BYTES);
	clean = redact_text(tail);
	assert_false(contains_credential(clean));
	assert_null(strstr(clean, "hunter2"));
	free(clean);
	free(tail);
}

/* The caller's hard deadline (the runner's overall bound): a command that
 * ignores SIGTERM is killed at it, before its own timeout's SIGKILL would
 * come, and the result says it was the deadline. */
static void
test_deadline(void **state)
{
	char *argv[] = { "sh", "-c", "trap '' TERM; echo started; exec /usr/bin/sleep 30", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	struct exec_result res;
	struct exec_spec x;

	(void)state;
	memset(&x, 0, sizeof x);
	x.exefd = open("/bin/sh", O_RDONLY | O_CLOEXEC);
	assert_true(x.exefd >= 0);
	x.argv = argv;
	x.envp = envp;
	x.group = EXEC_SESSION;
	x.timeout = 1;			/* SIGTERM at 1 s, ignored; SIGKILL at 6 s */
	x.deadline_ms = monotonic_ms() + 2000;
	capture_init(&cap, -1, 0);
	assert_int_equal(exec_capture(&x, &cap, &res), 0);
	assert_int_equal(res.deadline, 1);
	assert_int_equal(res.timed_out, 1);
	assert_int_equal(res.signal, SIGKILL);
	assert_true(cap.total > 0);	/* it had started */
	/* a command that ends before the deadline is not marked */
	argv[2] = "echo quick";
	x.deadline_ms = monotonic_ms() + 30000;
	capture_init(&cap, -1, 0);
	assert_int_equal(exec_capture(&x, &cap, &res), 0);
	assert_int_equal(res.deadline, 0);
	assert_int_equal(res.exit_code, 0);
	close(x.exefd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redaction_across_reads),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_tail_is_bounded),
		cmocka_unit_test(test_binary_output_is_json_safe),
		cmocka_unit_test(test_redaction_shapes),
		cmocka_unit_test(test_redaction_in_a_long_line),
		cmocka_unit_test(test_tail_line_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
