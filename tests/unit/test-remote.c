/* SPDX-License-Identifier: ISC */
/*
 * Remote machines: the destination parser (what reaches ssh's argv) and
 * the POSIX shell quoting (what reaches the target's shell). The quoting
 * is checked by the real /bin/sh: every word, however awkward, comes back
 * byte for byte.
 */
#include <limits.h>
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

/* --- The target's answer to --resolve, read as untrusted input --------- */

#define SHA_A	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define REQ_CAT	"{\"reason\":\"r\",\"machine\":\"m\",\"commands\":[{\"id\":\"c\"," \
	"\"argv\":[\"cat\",\"/etc/hostname\"],\"why\":\"w\"}]}"
#define CMD(path, given, sha, sealed, cwd, size) "{\"id\":\"c\",\"path\":\"" path \
	"\",\"given\":\"" given "\",\"executable_sha256\":\"" sha "\",\"sealed_at_run\":" \
	sealed ",\"cwd\":\"" cwd "\",\"size\":" size "}"
#define ANS(cmds)	"{\"contract\":{},\"cwd\":\"/\",\"commands\":[" cmds "]}"

/* q parsed from req and judged here; the answer ans read into it: the
 * code it is refused with, or NULL (read), checked against want. */
static void
read_answer(const char *req, const char *ans, const char *want, struct wrequest *q)
{
	struct refusal r;
	json_t *a;
	int rc;

	assert_int_equal(request_parse(req, strlen(req), q, &r), 0);
	if (validate_remote_text(q, &r) != 0)
		fail_msg("%s: refused here: %s (%s)", req, r.code, r.message);
	a = json_loads(ans, JSON_ALLOW_NUL, NULL);
	if (a == NULL)
		a = json_string(ans);	/* not even JSON: a string, as malformed */
	memset(&r, 0, sizeof r);
	rc = resolve_answer_read(q, a, "m", &r);
	json_decref(a);
	if (want == NULL && rc != 0)
		fail_msg("%s: refused %s (%s)", ans, r.code, r.message);
	if (want != NULL && (rc != -1 || strcmp(r.code, want) != 0))
		fail_msg("%s: got %s (%s), want %s", ans, rc == 0 ? "accepted" : r.code,
		    r.message, want);
}

static void
check_answer(const char *req, const char *ans, const char *want)
{
	struct wrequest q;

	read_answer(req, ans, want, &q);
	request_free(&q);
}

static void
test_answer_good(void **state)
{
	struct wrequest q;

	(void)state;
	read_answer(REQ_CAT, ANS(CMD("/usr/bin/cat", "cat", SHA_A, "false", "/", "123")), NULL,
	    &q);
	assert_string_equal(q.cmds[0].exe.path, "/usr/bin/cat");
	assert_string_equal(q.cmds[0].exe.given, "cat");
	assert_string_equal(q.cmds[0].exe.sha256, SHA_A);
	assert_string_equal(q.cwd, "/");
	request_free(&q);
	/* another trusted directory, or a link on the way: the same name */
	check_answer(REQ_CAT, ANS(CMD("/usr/local/bin/cat", "cat", SHA_A, "false", "/", "1")),
	    NULL);
	check_answer("{\"reason\":\"r\",\"machine\":\"m\",\"commands\":[{\"id\":\"c\","
	    "\"argv\":[\"/bin/cat\"],\"why\":\"w\"}]}",
	    ANS(CMD("/usr/bin/cat", "/bin/cat", SHA_A, "false", "/", "1")), NULL);
}

/* The answers a planted ~/.bashrc gives: another program than asked. */
static void
test_answer_substituted(void **state)
{
	static const char *const bad[] = {
		ANS(CMD("/usr/bin/rm", "cat", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr/bin/rm", "/usr/bin/cat", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr/bin/cat", "/usr/bin/cat", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr/bin/cat", "rm", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr/bin/cat.real", "cat", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr/bin/xcat", "cat", SHA_A, "false", "/", "1")),
		/* sealed at run time with no earlier ROOT command to install it */
		ANS(CMD("/usr/bin/cat", "cat", "", "true", "/", "0")),
		/* ROOT runs in the request's cwd, not one of the target's choosing */
		ANS(CMD("/usr/bin/cat", "cat", SHA_A, "false", "/tmp", "1")),
		"{\"contract\":{},\"cwd\":\"/etc\",\"commands\":["
		    CMD("/usr/bin/cat", "cat", SHA_A, "false", "/etc", "1") "]}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		check_answer(REQ_CAT, bad[i], "remote_resolve_mismatch");
	/* a link to another name cannot be told from a substitution */
	check_answer("{\"reason\":\"r\",\"machine\":\"m\",\"commands\":[{\"id\":\"c\","
	    "\"argv\":[\"python3\",\"--version\"],\"why\":\"w\"}]}",
	    ANS(CMD("/usr/bin/python3.11", "python3", SHA_A, "false", "/", "1")),
	    "remote_resolve_mismatch");
	/* a relative argv[0] never resolves on a target */
	check_answer("{\"reason\":\"r\",\"machine\":\"m\",\"commands\":[{\"id\":\"c\","
	    "\"argv\":[\"bin/cat\"],\"why\":\"w\",\"as\":\"user\"}]}",
	    ANS(CMD("/usr/bin/cat", "bin/cat", SHA_A, "false", "/", "1")),
	    "remote_resolve_mismatch");
}

static void
test_answer_malformed(void **state)
{
	static const char *const bad[] = {
		"", "null", "[]", "\"x\"", "{}", "{\"contract\":{}}",
		"{\"contract\":{},\"cwd\":\"/\"}",
		"{\"contract\":{},\"cwd\":\"/\",\"commands\":[]}",
		"{\"contract\":{},\"cwd\":\"/\",\"commands\":{}}",
		"{\"contract\":{},\"cwd\":\"/\",\"commands\":[1]}",
		"{\"contract\":{},\"cwd\":\"/\",\"commands\":[],\"extra\":1}",
		"{\"contract\":{},\"cwd\":\"/\",\"refusal\":{},\"commands\":[]}",
		"{\"contract\":{},\"cwd\":\"relative\",\"commands\":["
		    CMD("/usr/bin/cat", "cat", SHA_A, "false", "/", "1") "]}",
		"{\"contract\":{},\"cwd\":7,\"commands\":["
		    CMD("/usr/bin/cat", "cat", SHA_A, "false", "/", "1") "]}",
		ANS(CMD("/usr/bin/cat", "cat", SHA_A, "false", "/", "1") ","
		    CMD("/usr/bin/cat", "cat", SHA_A, "false", "/", "1")),
		ANS(CMD("usr/bin/cat", "cat", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr/bin/../bin/cat", "cat", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr/bin/./cat", "cat", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr//bin/cat", "cat", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr/bin/cat/", "cat", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr/bin/cat\\n/usr/bin/rm", "cat", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr/bin/cat\\u0000/rm", "cat", SHA_A, "false", "/", "1")),
		ANS(CMD("/usr/bin/cat", "cat", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		    "false", "/", "1")),
		ANS(CMD("/usr/bin/cat", "cat", "abc", "false", "/", "1")),
		ANS(CMD("/usr/bin/cat", "cat", SHA_A "a", "false", "/", "1")),
		ANS(CMD("/usr/bin/cat", "cat", "", "false", "/", "1")),
		ANS(CMD("/usr/bin/cat", "cat", SHA_A, "true", "/", "0")),
		ANS(CMD("/usr/bin/cat", "cat", SHA_A, "1", "/", "1")),
		ANS(CMD("/usr/bin/cat", "cat", SHA_A, "false", "/", "-1")),
		ANS(CMD("/usr/bin/cat", "cat", SHA_A, "false", "/", "1.5")),
		ANS(CMD("/usr/bin/cat", "cat", SHA_A, "false", "/", "\"1\"")),
		ANS(CMD("/usr/bin/cat", "cat", SHA_A, "false", "/", "99999999999999")),
		ANS(CMD("/usr/bin/cat", "cat", SHA_A, "false", "/", "1") "x"),
		ANS("{\"id\":\"other\",\"path\":\"/usr/bin/cat\",\"given\":\"cat\","
		    "\"executable_sha256\":\"" SHA_A "\",\"sealed_at_run\":false,\"cwd\":\"/\","
		    "\"size\":1}"),
		ANS("{\"id\":\"c\",\"path\":\"/usr/bin/cat\",\"given\":\"cat\","
		    "\"executable_sha256\":\"" SHA_A "\",\"sealed_at_run\":false,\"cwd\":\"/\"}"),
		ANS("{\"id\":\"c\",\"path\":\"/usr/bin/cat\",\"given\":\"cat\","
		    "\"executable_sha256\":\"" SHA_A "\",\"sealed_at_run\":false,\"cwd\":\"/\","
		    "\"size\":1,\"argv\":[\"rm\"]}"),
		ANS("{\"id\":\"c\",\"path\":[\"/usr/bin/cat\"],\"given\":\"cat\","
		    "\"executable_sha256\":\"" SHA_A "\",\"sealed_at_run\":false,\"cwd\":\"/\","
		    "\"size\":1}"),
		"{\"contract\":{},\"refusal\":\"no\"}",
		"{\"contract\":{},\"refusal\":{\"code\":\"x\"},\"cwd\":\"/\"}",
	};
	char *long_path = xmalloc(PATH_MAX + 64), *ans;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		check_answer(REQ_CAT, bad[i], "machine_incompatible");
	/* a path longer than any path */
	memset(long_path, 'a', PATH_MAX + 63);
	long_path[0] = '/';
	long_path[PATH_MAX + 63] = '\0';
	assert_true(asprintf(&ans, "{\"contract\":{},\"cwd\":\"/\",\"commands\":[{\"id\":\"c\","
	    "\"path\":\"%s/cat\",\"given\":\"cat\",\"executable_sha256\":\"" SHA_A "\","
	    "\"sealed_at_run\":false,\"cwd\":\"/\",\"size\":1}]}", long_path) > 0);
	check_answer(REQ_CAT, ans, "machine_incompatible");
	free(ans);
	free(long_path);
}

/* The target's refusal is passed on, with its code, after "on m:". */
static void
test_answer_refusal(void **state)
{
	static const char ans[] = "{\"contract\":{},\"refusal\":{\"error\":{\"code\":"
	    "\"bad_executable\",\"path\":\"$.commands[0].argv[0]\",\"message\":\"'cat' is "
	    "not found\"}}}";
	struct refusal r;
	struct wrequest q;
	json_t *a = json_loads(ans, 0, NULL);

	(void)state;
	assert_int_equal(request_parse(REQ_CAT, strlen(REQ_CAT), &q, &r), 0);
	assert_int_equal(validate_remote_text(&q, &r), 0);
	assert_int_equal(resolve_answer_read(&q, a, "m", &r), 1);
	assert_string_equal(r.code, "bad_executable");
	assert_non_null(strstr(r.message, "on m: 'cat' is not found"));
	json_decref(a);
	request_free(&q);
}

/* This host's denylists, by the names the target gives and by the
 * content it reports (a copy of this host's sh under another name). */
static void
test_answer_denylisted(void **state)
{
	char sha[SHA256_HEX_LEN + 1], real[PATH_MAX], *ans;
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(realpath("/bin/sh", real));
	assert_true((fd = open_regular(real, &st)) >= 0);
	assert_int_equal(sha256_fd(fd, sha), 0);
	close(fd);
	assert_true(asprintf(&ans, "{\"contract\":{},\"cwd\":\"/\",\"commands\":[{\"id\":\"c\","
	    "\"path\":\"/usr/local/bin/tool\",\"given\":\"/usr/local/bin/tool\","
	    "\"executable_sha256\":\"%s\",\"sealed_at_run\":false,\"cwd\":\"/\",\"size\":%lld}]}",
	    sha, (long long)st.st_size) > 0);
	check_answer("{\"reason\":\"r\",\"machine\":\"m\",\"commands\":[{\"id\":\"c\","
	    "\"argv\":[\"/usr/local/bin/tool\"],\"why\":\"w\"}]}", ans, "interactive_program");
	free(ans);
	/* a YOU command may run a shell; never a privilege tool */
	check_answer("{\"reason\":\"r\",\"machine\":\"m\",\"commands\":[{\"id\":\"c\","
	    "\"command\":\"ls\",\"why\":\"w\",\"as\":\"user\"}]}",
	    "{\"contract\":{},\"cwd\":\"/\",\"commands\":[{\"id\":\"c\",\"path\":\"/usr/bin/bash\","
	    "\"given\":\"bash\",\"executable_sha256\":\"" SHA_A "\",\"sealed_at_run\":false,"
	    "\"cwd\":\"/home/u\",\"size\":1}]}", NULL);
}

/* install, then use: sealed at run time only after a ROOT command */
static void
test_answer_sealed(void **state)
{
	static const char req[] = "{\"reason\":\"r\",\"machine\":\"m\",\"commands\":["
	    "{\"id\":\"i\",\"argv\":[\"install\",\"-m\",\"755\",\"/usr/bin/true\","
	    "\"/opt/x/tool\"],\"why\":\"w\"},"
	    "{\"id\":\"c\",\"argv\":[\"/opt/x/tool\"],\"why\":\"w\"}]}";
	static const char good[] = "{\"contract\":{},\"cwd\":\"/\",\"commands\":["
	    "{\"id\":\"i\",\"path\":\"/usr/bin/install\",\"given\":\"install\","
	    "\"executable_sha256\":\"" SHA_A "\",\"sealed_at_run\":false,\"cwd\":\"/\","
	    "\"size\":1}," CMD("/opt/x/tool", "/opt/x/tool", "", "true", "/", "0") "]}";
	static const char moved[] = "{\"contract\":{},\"cwd\":\"/\",\"commands\":["
	    "{\"id\":\"i\",\"path\":\"/usr/bin/install\",\"given\":\"install\","
	    "\"executable_sha256\":\"" SHA_A "\",\"sealed_at_run\":false,\"cwd\":\"/\","
	    "\"size\":1}," CMD("/opt/y/tool", "/opt/x/tool", "", "true", "/", "0") "]}";

	(void)state;
	check_answer(req, good, NULL);
	check_answer(req, moved, "remote_resolve_mismatch");
}

/* What this host refuses before any target is asked. */
static void
test_remote_judged_here(void **state)
{
	static const struct { const char *cmd, *code; } bad[] = {
		{ "\"argv\":[\"bash\",\"-c\",\"id\"]", "shell_request" },
		{ "\"argv\":[\"/usr/bin/bash\"]", "interactive_program" },
		{ "\"argv\":[\"cat\",\"/etc/shadow\"],\"as\":\"user\"},{\"id\":\"d\","
		    "\"why\":\"w\",\"argv\":[\"sudo\",\"id\"]", "nested_privilege_tool" },
		{ "\"argv\":[\"python3\",\"-c\",\"print(1)\"]", "shell_request" },
		{ "\"argv\":[\"perl\",\"-e\",\"print 1\"]", "shell_request" },
		{ "\"argv\":[\"timeout\",\"5\",\"sh\"]", "interactive_program" },
		{ "\"argv\":[\"env\",\"LD_PRELOAD=/tmp/x.so\",\"id\"]", "forbidden_env" },
		{ "\"argv\":[\"cat\",\"AKIAIOSFODNN7EXAMPLE\"]", "credential_field_rejected" },
		{ "\"argv\":[\"cp\",\"x\",\"/etc/x\"]", "relative_path" },
		{ "\"command\":\"sudo id\",\"as\":\"user\"", "nested_privilege_tool" },
	};
	static const char *const good[] = {
		"\"argv\":[\"apt-get\",\"install\",\"-y\",\"zsh\"]",
		"\"argv\":[\"/opt/app/bin/tool\",\"--flag\"]",
		"\"argv\":[\"xargs\",\"-0\",\"/opt/app/bin/tool\"]",
		"\"command\":\"ls | wc -l\",\"as\":\"user\"",
	};
	struct refusal r;
	struct wrequest q;
	char *req;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0] + sizeof good / sizeof good[0]; i++) {
		int is_bad = i < sizeof bad / sizeof bad[0];
		const char *cmd = is_bad ? bad[i].cmd : good[i - sizeof bad / sizeof bad[0]];

		assert_true(asprintf(&req, "{\"reason\":\"r\",\"machine\":\"m\",\"commands\":["
		    "{\"id\":\"c\",\"why\":\"w\",%s}]}", cmd) > 0);
		if (request_parse(req, strlen(req), &q, &r) != 0)
			fail_msg("%s: does not parse: %s", req, r.message);
		if (is_bad && (validate_remote_text(&q, &r) == 0 ||
		    strcmp(r.code, bad[i].code) != 0))
			fail_msg("%s: want %s, got %s", req, bad[i].code, r.code);
		if (!is_bad && validate_remote_text(&q, &r) != 0)
			fail_msg("%s: refused %s (%s)", req, r.code, r.message);
		request_free(&q);
		free(req);
	}
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
		cmocka_unit_test(test_answer_good),
		cmocka_unit_test(test_answer_substituted),
		cmocka_unit_test(test_answer_malformed),
		cmocka_unit_test(test_answer_refusal),
		cmocka_unit_test(test_answer_denylisted),
		cmocka_unit_test(test_answer_sealed),
		cmocka_unit_test(test_remote_judged_here),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
