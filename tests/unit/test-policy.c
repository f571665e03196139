/* SPDX-License-Identifier: ISC */
/*
 * The credential shapes of policy.c, one table for request checks and
 * output redaction: every shape is found in any case and through soft
 * hyphens and zero-width characters, ordinary commands are not, and the
 * redacted text never carries a shape, however the output is split.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "warrant.h"

#define SHY	"\xc2\xad"		/* U+00AD soft hyphen */
#define ZWSP	"\xe2\x80\x8b"		/* U+200B zero width space */
#define ZWJ	"\xe2\x80\x8d"		/* U+200D zero width joiner */
#define WJ	"\xe2\x81\xa0"		/* U+2060 word joiner */
#define FILLER	"\xe3\x85\xa4"		/* U+3164 Hangul filler */

/* Text that has a credential shape, in one string. */
static const char *const shaped[] = {
	"PASSWORD=x", "--password=hunter2", "--Passphrase=x", "db_password=",
	"PGPASSWORD=x", "MYSQL_PWD=x", "aws_secret=1", "client_secret=abc",
	"api_key=abc", "--api-key=abc", "ApiKey=1", "aws_secret_access_key=wJalr",
	"x-access-key=1", "url?access_token=abc", "mount -o user=a,password=b",
	"password: hunter2", "Password:hunter2", "\"password\": \"hunter2\"",
	"db_password: 'a b'", "X-Auth-Token: abc", "PRIVATE-TOKEN: glx",
	"Authorization: Bearer abc", "authorization=Basic dXNlcjpwdw==",
	"--password hunter2", "mysql --password hunter2 -h db",
	"--api-key\tabc", "--client-secret 'a b'",
	"https://user:pw@example.org/x", "git clone https://bob:s3cr3t@git.example.org/r.git",
	"postgresql://app:pw@db/app", "ftp://:pw@host",
	"curl -H 'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9'",
	"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "GHP_16C7e42F292c6912E7710c838347Ae178B4a",
	"token is gho_16C7e42F292c6912E7710c838347Ae178B4a.",
	"github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
	"glpat-xxxxXXXXxxxx12345678", "xoxb-1234567890-abcdefghij",
	"xoxp-1234567890-abcdefghij", "xoxa-2-1234567890abc",
	"sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", "OPENAI=sk-abcdefghijklmnopqrstu1vwxyz",
	"sk_live_4eC39HqLyjWDarjtT1zdp7dc", "AKIAIOSFODNN7EXAMPLE",
	"key AKIAIOSFODNN7EXAMPLE here", "ASIAIOSFODNN7EXAMPLE",
	"openssl rsa -passin pass:hunter2", "-passout PASS:x",
	"-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----\nMIIE",
	"-----begin openssh private key-----",
	/* split by characters that do not show */
	"pass" SHY "word=x", "pa" ZWSP "ssword: hunter2", "to" ZWJ "ken=abc",
	"--pass" WJ "word hunter2", "gh" ZWSP "p_16C7e42F292c6912E7710c838347Ae178B4a",
	"to" FILLER "ken=1",
	NULL
};

/* Ordinary text and commands that must stay allowed. */
static const char *const plain[] = {
	"password", "apt-get install libpassword-perl", "ssh-keygen -f key",
	"--token-file /x", "--token-file=/path", "--password-file=/run/pw",
	"passwordfile=/x", "--password-stdin", "mysql -u root --password",
	"psql --password --host db", "createuser --no-password bob",
	"--no-password x", "libsecret: needed for the keyring",
	"tokenizer: fast", "secret.yaml", "password:", "token:",
	"Reset the password", "the token expired", "Secret::Get",
	"https://example.org/x", "ssh://git@github.com/a/b", "https://user@host/",
	"user=bob", "a=b c=d", "time 12:30:01", "key: value",
	"sk-install-the-new-package-version", "disk-usage-of-the-root-fs",
	"task-sk-0123456789abcdefghijklmn", "ghp_short", "akiaiosfodnn7example",
	"AKIA-IOSFODNN7EXAMPLE", "Bearer tokens are used", "bearer of news",
	"-----BEGIN CERTIFICATE-----", "-----BEGIN PUBLIC KEY-----",
	"bypass: yes", "compass:north", "password=[redacted]", "--password [redacted]",
	"https://user:[redacted]@host", "[redacted]", "",
	NULL
};

static void
test_shapes_found(void **state)
{
	const char *const *s;

	(void)state;
	for (s = shaped; *s != NULL; s++) {
		if (!contains_credential(*s))
			fail_msg("no credential shape found in '%s'", *s);
		assert_non_null(credential_shape(*s));
	}
}

static void
test_plain_text_allowed(void **state)
{
	const char *const *s;

	(void)state;
	for (s = plain; *s != NULL; s++)
		if (contains_credential(*s))
			fail_msg("'%s' taken for a credential (%s)", *s, credential_shape(*s));
}

static void
test_flags(void **state)
{
	(void)state;
	assert_true(credential_flag("--password"));
	assert_true(credential_flag("--PASSWD"));
	assert_true(credential_flag("--db-password"));
	assert_true(credential_flag("-password"));
	assert_true(credential_flag("--api-key"));
	assert_true(credential_flag("--token"));
	assert_true(credential_flag("--pass" SHY "word"));
	assert_false(credential_flag("--password-file"));
	assert_false(credential_flag("--token-file"));
	assert_false(credential_flag("--no-password"));
	assert_false(credential_flag("--password=x"));
	assert_false(credential_flag("password"));
	assert_false(credential_flag("---password"));
	assert_false(credential_flag("--libsecret"));
	assert_false(credential_flag("-p"));
}

static void
test_env_names(void **state)
{
	(void)state;
	assert_string_equal(credential_word("MYSQL_PWD"), "_pwd");
	assert_string_equal(credential_word("OPENAI_API_KEY"), "api_key");
	assert_string_equal(credential_word("GITHUB_TOKEN"), "token");
	assert_string_equal(credential_word("db_Password"), "password");
	assert_string_equal(credential_word("AWS_SECRET_ACCESS_KEY"), "secret");
	assert_non_null(credential_word("MY_TO" ZWSP "KEN"));
	assert_null(credential_word("PWD"));
	assert_null(credential_word("OLDPWD"));
	assert_null(credential_word("LANG"));
	assert_null(credential_word("KEYMAP"));
}

static void
redacts(const char *in, const char *want)
{
	char out[1024];
	int inkey = 0;
	size_t n = redact_credentials(in, strlen(in), out, sizeof out, &inkey);

	out[n] = '\0';
	assert_string_equal(out, want);
	assert_false(contains_credential(out));
	assert_int_equal(inkey, 0);
}

static void
test_redaction(void **state)
{
	(void)state;
	redacts("password: hunter2\n", "[redacted]\n");
	redacts("Password:hunter2 ok", "[redacted] ok");
	redacts("{\"user\": \"bob\", \"password\": \"a b\"}", "{\"user\": \"bob\", \"[redacted]}");
	redacts("Authorization: Bearer abc.def", "[redacted]");
	redacts("X-Auth-Token: abc\r\n", "X-Auth-[redacted]\r\n");
	redacts("ps: mysql --password hunter2 -h db", "ps: mysql --[redacted] -h db");
	redacts("clone https://bob:s3cr3t@git.example.org/r", "clone https://bob:[redacted]@git.example.org/r");
	redacts("use ghp_16C7e42F292c6912E7710c838347Ae178B4a now", "use [redacted] now");
	redacts("AKIAIOSFODNN7EXAMPLE", "[redacted]");
	redacts("-H 'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9'", "-H 'Bearer [redacted]'");
	redacts("openssl -passin pass:hunter2 -in k", "openssl -passin pass:[redacted] -in k");
	redacts("a\n-----BEGIN EC PRIVATE KEY-----\nMHcC\nAoGB\n-----END EC PRIVATE KEY-----\nb\n",
	    "a\n[redacted]\nb\n");
	redacts("--password --password x", "--password --[redacted]");
	/* the word is redacted through what hides its split */
	redacts("pass" SHY "word: hunter2 ok", "[redacted] ok");
	redacts("x to" ZWSP "ken=abc y", "x [redacted] y");
	redacts("caf\xc3\xa9 password=\xc3\xa9t\xc3\xa9 ok", "caf\xc3\xa9 [redacted] ok");
	/* nothing to hide */
	redacts("a=b c: d --verbose x", "a=b c: d --verbose x");
	redacts("libsecret: needed", "libsecret: needed");
	redacts("caf\xc3\xa9" ZWSP, "caf\xc3\xa9" ZWSP);
}

/* What the finisher keeps of a capture: the runner's raw tail, redacted. */
static char *
finished(struct capture *cap)
{
	char *raw = capture_tail(cap, LEDGER_TAIL_BYTES), *clean = redact_text(raw);

	free(raw);
	return clean;
}

/* A key block printed over several reads and lines is dropped to its END
 * line, and what follows is kept. */
static void
test_key_block_across_lines(void **state)
{
	static struct capture cap;
	const char *out = "start\n-----BEGIN RSA PRIVATE KEY-----\n"
	    "MIIEowIBAAKCAQEAsecretbody1\nsecretbody2\n"
	    "-----END RSA PRIVATE KEY-----\nafter\n";
	size_t piece, n = strlen(out), i;
	char *tail;

	(void)state;
	for (piece = 1; piece <= 13; piece += 3) {
		capture_init(&cap, -1, 0);
		for (i = 0; i < n; i += piece)
			capture_feed(&cap, out + i, n - i < piece ? n - i : piece);
		tail = finished(&cap);
		assert_string_equal(tail, "start\n[redacted]\nafter\n");
		free(tail);
	}
	/* never ended: everything after the header is dropped */
	capture_init(&cap, -1, 0);
	capture_feed(&cap, "-----BEGIN PRIVATE KEY-----\nMIIE\nmore\n", 39);
	tail = finished(&cap);
	assert_string_equal(tail, "[redacted]");
	assert_null(strstr(tail, "MIIE"));
	free(tail);
}

/* Output through capture_feed, as the finisher keeps it. */
static void
test_capture_password_colon(void **state)
{
	static struct capture cap;
	const char *out = "db host: x\npassword: hunter2\nDB" SHY "_PASS" ZWSP "WORD=hunter3\n";
	char *tail;

	(void)state;
	capture_init(&cap, -1, 0);
	capture_feed(&cap, out, strlen(out));
	tail = finished(&cap);
	assert_null(strstr(tail, "hunter"));
	assert_false(contains_credential(tail));
	assert_non_null(strstr(tail, "db host: x\n[redacted]\n"));
	free(tail);
}

/* Found by tests/fuzz/fuzz-text: the ledger spells NUL and stray bytes as
 * \xNN, which must not complete a shape redaction did not see. */
static void
test_tail_as_the_ledger_spells_it(void **state)
{
	static struct capture cap;
	static const char nul[] = "https://t\0\0a:b@c ok\npassword: \0hunter\n";
	static const char stray[] = "x \x9authorization: x1 \xfapi_key=x2\n";
	char *tail;

	(void)state;
	capture_init(&cap, -1, 0);
	capture_feed(&cap, nul, sizeof nul - 1);
	tail = finished(&cap);
	assert_string_equal(tail, "https://t\\x00\\x00a:[redacted]@c ok\n[redacted]\n");
	assert_false(contains_credential(tail));
	free(tail);
	capture_init(&cap, -1, 0);
	capture_feed(&cap, stray, sizeof stray - 1);
	tail = finished(&cap);
	assert_null(strstr(tail, "x1"));
	assert_null(strstr(tail, "x2"));
	assert_false(contains_credential(tail));
	free(tail);
}

/* A tail that begins inside a key block (its BEGIN line scrolled out):
 * the body up to the END line is dropped all the same. */
static void
test_tail_inside_a_key_block(void **state)
{
	static struct capture cap;
	char body[65], *tail;
	size_t i;

	(void)state;
	memset(body, 'K', 63);
	body[63] = '\n';
	body[64] = '\0';
	capture_init(&cap, -1, 0);
	capture_feed(&cap, "-----BEGIN OPENSSH PRIVATE KEY-----\n", 36);
	for (i = 0; i < 2 * LEDGER_TAIL_BYTES / 64; i++)
		capture_feed(&cap, body, 64);
	capture_feed(&cap, "-----END OPENSSH PRIVATE KEY-----\nafter\n", 40);
	tail = finished(&cap);
	assert_string_equal(tail, "\nafter\n");
	free(tail);
	/* an END line of something else is no key */
	tail = redact_text("KKKK\n-----END CERTIFICATE-----\nok\n");
	assert_string_equal(tail, "KKKK\n-----END CERTIFICATE-----\nok\n");
	free(tail);
	/* found by tests/fuzz/fuzz-ledger: a shape inside a URL's user part
	 * is redacted too, not only the URL's password after it */
	tail = redact_text("x https://AKIAIOSFODNN7EXAMPLE:pw@host/ y");
	assert_false(contains_credential(tail));
	assert_null(strstr(tail, "IOSFODNN7EXAMPLE"));
	free(tail);
	tail = redact_text("://okpassword=x|:pw@h");
	assert_false(contains_credential(tail));
	free(tail);
	/* nor one after a BEGIN: that block is redacted as a whole */
	tail = redact_text("a\n-----BEGIN PRIVATE KEY-----\nKK\n-----END PRIVATE KEY-----\nb");
	assert_string_equal(tail, "a\n[redacted]\nb");
	free(tail);
}

/* The finisher's pass over the runner's records: every string, however
 * deep, redacted; a member named like a credential removed; the rest as
 * it was. */
static void
test_redact_json(void **state)
{
	json_t *e = json_pack("{s:s,s:s,s:I,s:{s:[s,s],s:[{s:s,s:s,s:s}]},s:s}",
	    "id", "c0", "output_tail", "x\npassword: hunter2\n", "output_bytes", (json_int_t)20,
	    "confinement", "written", "/etc/ok", "/opt/token=abc", "refused", "call", "open",
	    "path", "/srv/AKIAIOSFODNN7EXAMPLE", "reason", "the requester can change it",
	    "db_password", "x");
	char *dump;

	(void)state;
	redact_json(e);
	dump = json_dumps(e, JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(dump, "{\"confinement\":{\"refused\":[{\"call\":\"open\","
	    "\"path\":\"/srv/[redacted]\",\"reason\":\"the requester can change it\"}],"
	    "\"written\":[\"/etc/ok\",\"/opt/[redacted]\"]},\"id\":\"c0\","
	    "\"output_bytes\":20,\"output_tail\":\"x\\n[redacted]\\n\"}");
	free(dump);
	json_decref(e);
}

/* Redaction never writes past what it was given, even when the mark is
 * longer than what it replaces. */
static void
test_redaction_bounds(void **state)
{
	const char *in = "passwd=";
	char out[2 * 7 + 16];
	int inkey = 0;
	size_t n;

	(void)state;
	n = redact_credentials(in, strlen(in), out, sizeof out, &inkey);
	assert_int_equal(n, 10);
	n = redact_credentials(in, strlen(in), out, 5, &inkey);
	assert_true(n <= 5);
}

/*
 * Every comparison folds ASCII only, whatever the locale: under tr_TR and
 * az_AZ the C library folds "I" to a dotless i (not a byte), so "PRIVATE"
 * would not match "private" in the console, which sets the user's locale
 * and approves in the same process. The locales come from locales-all
 * (scripts/deps.sh); without them this test fails rather than pass blind.
 */
static void
test_turkic_locales(void **state)
{
	static const char *const locales[] = { "tr_TR.UTF-8", "az_AZ.UTF-8" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof locales / sizeof locales[0]; i++) {
		if (setlocale(LC_ALL, locales[i]) == NULL)
			fail_msg("locale %s is missing (install locales-all)", locales[i]);
		redacts("x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1r\n"
		    "-----END OPENSSH PRIVATE KEY-----\ny\n", "x\n[redacted]\ny\n");
		redacts("authorization: BASIC dXNlcjpwdw== ok", "[redacted] ok");
		redacts("https://bob:pw@HOST.example/", "https://bob:[redacted]@HOST.example/");
		assert_non_null(credential_word("MY_PRIVATE_KEY"));
		assert_non_null(credential_shape("--PRIVATE-KEY=abc"));
		assert_true(env_forbidden("pythoninspect"));
		assert_true(env_forbidden("Ifs"));
		assert_true(env_forbidden("git_dir"));
		assert_int_equal(ascii_casecmp("PRIVATE", "private"), 0);
		assert_int_not_equal(ascii_casecmp("I", "\xc4\xb1"), 0);
		assert_non_null(ascii_casestr("-o ProxyCommand=x", "PROXYCOMMAND"));
		assert_true(ascii_isalnum('I') && !ascii_isalnum(0xfd) && !ascii_isspace(0xa0));
	}
	setlocale(LC_ALL, "C");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes_found),
		cmocka_unit_test(test_plain_text_allowed),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_env_names),
		cmocka_unit_test(test_redaction),
		cmocka_unit_test(test_key_block_across_lines),
		cmocka_unit_test(test_capture_password_colon),
		cmocka_unit_test(test_tail_as_the_ledger_spells_it),
		cmocka_unit_test(test_tail_inside_a_key_block),
		cmocka_unit_test(test_redact_json),
		cmocka_unit_test(test_redaction_bounds),
		cmocka_unit_test(test_turkic_locales),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
