/* SPDX-License-Identifier: ISC */
/*
 * Remote machines: the destination parser (what reaches ssh's argv) and
 * the POSIX shell quoting (what reaches the target's shell). The quoting
 * is checked by the real /bin/sh: every word, however awkward, comes back
 * byte for byte.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "warrant.h"
#include "remote/remote.h"

static void
test_dest_good(void **state)
{
	static const struct { const char *in, *user, *host; unsigned port; const char *canon; }
	    good[] = {
		{ "ssh://alice@example.org", "alice", "example.org", 0, "ssh://alice@example.org" },
		{ "ssh://a_b.c-d@10.0.0.1:2222", "a_b.c-d", "10.0.0.1", 2222,
		    "ssh://a_b.c-d@10.0.0.1:2222" },
		{ "ssh://root@[::1]:22", "root", "::1", 22, "ssh://root@[::1]:22" },
		{ "ssh://u@h-1.example:65535", "u", "h-1.example", 65535,
		    "ssh://u@h-1.example:65535" },
	};
	struct refusal r;
	struct dest d;
	char canon[320];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		assert_int_equal(dest_parse(good[i].in, &d, &r), 0);
		assert_string_equal(d.user, good[i].user);
		assert_string_equal(d.host, good[i].host);
		assert_int_equal(d.port, good[i].port);
		dest_format(&d, canon, sizeof canon);
		assert_string_equal(canon, good[i].canon);
	}
}

static void
test_dest_bad(void **state)
{
	static const char *const bad[] = {
		"", "alice@example.org", "ssh://example.org", "ssh://@example.org",
		"ssh://-oProxyCommand=touch /tmp/x@h", "ssh://alice@-oProxyCommand=id",
		"ssh://alice@-h", "ssh://-alice@h", "ssh://.alice@h", "ssh://alice@.h",
		"ssh://alice@h.", "ssh://al ice@h", "ssh://alice@h ost", "ssh://alice@h\n",
		"ssh://alice@h;id", "ssh://alice@h$(id)", "ssh://alice@h`id`", "ssh://al'ice@h",
		"ssh://alice@h|x", "ssh://alice@h&", "ssh://alice@h:0", "ssh://alice@h:65536",
		"ssh://alice@h:22x", "ssh://alice@h:", "ssh://alice@h:-1", "ssh://alice@h:022",
		"ssh://alice@[::1", "ssh://alice@[::1]x", "ssh://alice@[a;b]", "ssh://alice@",
		"ssh://a@[EEEEe.e.]:1", "ssh://alice@[10.0.0.1]",
		"ssh://alice@h/path", "ssh://alice@h?x", "ssh://al\tice@h", "ssh://alice@h\x7f",
		"ssh://a@b@c", "ssh://alice@h:2222:1", "SSH://alice@h",
		"ssh://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@h",
	};
	struct refusal r;
	struct dest d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (dest_parse(bad[i], &d, &r) != -1)
			fail_msg("accepted: %s", bad[i]);
		assert_string_equal(r.code, "bad_destination");
	}
}

static void
test_machine_name(void **state)
{
	(void)state;
	assert_true(machine_name_ok("web1"));
	assert_true(machine_name_ok("db.prod-2"));
	assert_false(machine_name_ok("local"));
	assert_false(machine_name_ok("-x"));
	assert_false(machine_name_ok("a b"));
	assert_false(machine_name_ok(""));
}

/* sh -c 'printf "%s\0" "$@"' with the joined words: what sh split. */
static char *
through_sh(const char *const *words, size_t *len)
{
	char *joined = sh_join(words), *script, buf[65536];
	int p[2];
	pid_t pid;
	size_t n = 0;
	ssize_t k;

	assert_int_equal(asprintf(&script, "printf '%%s\\0' %s", joined) > 0, 1);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while ((k = read(p[0], buf + n, sizeof buf - n)) > 0)
		n += (size_t)k;
	close(p[0]);
	waitpid(pid, NULL, 0);
	free(script);
	free(joined);
	*len = n;
	return memcpy(xmalloc(n + 1), buf, n);
}

static void
test_quote_round_trip(void **state)
{
	static const char *const words[] = {
		"plain", "with space", "it's", "'", "''", "\"dq\"", "$(id)", "`id`", "$HOME",
		"a\nb", "tab\there", "*", "?", "[x]", "~", "a;b", "a|b", "a&b", "\\", "\\'",
		"-oProxyCommand=x", "", "!x", "#c", "\xe2\x80\x8b", "x'\"'\"'y", NULL,
	};
	char *out, *p;
	size_t len, i;

	(void)state;
	out = through_sh(words, &len);
	for (p = out, i = 0; words[i] != NULL; i++) {
		assert_true((size_t)(p - out) < len);
		assert_string_equal(p, words[i]);
		p += strlen(p) + 1;
	}
	assert_int_equal((size_t)(p - out), len);
	free(out);
}

static void
test_quote_nested(void **state)
{
	/* the remote command is quoted twice: once for the login shell's
	 * -c, once for the words inside */
	static const char *const inner[] = { "printf", "%s\\0", "a'b", "$(id)", NULL };
	char *joined = sh_join(inner), *outer = sh_quote(joined), *q = sh_quote("it's");

	(void)state;
	assert_string_equal(q, "'it'\\''s'");
	free(q);
	assert_non_null(strstr(outer, "'\\''"));
	assert_int_equal(outer[0], '\'');
	free(joined);
	free(outer);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dest_good),
		cmocka_unit_test(test_dest_bad),
		cmocka_unit_test(test_machine_name),
		cmocka_unit_test(test_quote_round_trip),
		cmocka_unit_test(test_quote_nested),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
