/* SPDX-License-Identifier: ISC */
/* Standing grants: the store's table (grants.c), exact matching, quota,
 * expiry and revocation, their audit events, grant ids, and which sealed
 * commands may be granted (grantable.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "warrant.h"

#define TRUE_SHA "0000000000000000000000000000000000000000000000000000000000000001"
#define FIXTURE_UID	1000

static char dir[PATH_MAX];

static json_t *argv_hello, *env_c;

static struct grant_record
grant(uid_t uid, const char *agent, int64_t expires)
{
	struct grant_record g = {
		.requester_uid = uid, .agent = agent, .argv = argv_hello,
		.path = "/usr/bin/echo", .executable_sha256 = TRUE_SHA, .cwd = "/",
		.env = env_c, .output_to_agent = "tail", .gate_id = "w-aaaaaaaaaa",
		.command_id = "a", .expires = expires,
	};

	return g;
}

static int
setup(void **state)
{
	argv_hello = json_pack("[s,s]", "/usr/bin/echo", "hello");
	env_c = json_pack("{s:s}", "LANG", "C");
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/warrant-unit.XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	json_decref(argv_hello);
	static const char *const files[] = {
		"warrant.db", "warrant.db-wal", "warrant.db-shm",
	};
	char path[PATH_MAX + 32];
	size_t i;

	(void)state;
	json_decref(env_c);
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		unlink(path);
	}
	return rmdir(dir);
}

static void
test_ids(void **state)
{
	char id[GRANT_ID_LEN + 1];

	(void)state;
	assert_int_equal(grant_id_new(id), 0);
	assert_true(grant_id_valid(id));
	assert_memory_equal(id, "g-", 2);
	assert_false(grant_id_valid("g-abc"));
	assert_false(grant_id_valid("w-abcdefghij"));
	assert_false(grant_id_valid("g-abcdefghi1"));	/* 1 is not base32 */
	assert_false(grant_id_valid("g-ABCDEFGHIJ"));
	assert_true(grant_id_valid("g-abcdefgh27"));
}

static void
test_match_exact(void **state)
{
	struct store st;
	struct grant_record g = grant(FIXTURE_UID, "claude", now_seconds() + 3600), k;
	char ids[1][GRANT_ID_LEN + 1], found[GRANT_ID_LEN + 1];
	json_t *other_argv = json_pack("[s,s,s]", "/usr/bin/echo", "hello", "again");
	json_t *other_env = json_object();

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	assert_int_equal(grants_add(&st, &g, 1, ids), 0);
	assert_true(grant_id_valid(ids[0]));
	k = g;
	assert_int_equal(grant_match(&st, &k, found), 0);
	assert_string_equal(found, ids[0]);
	/* every part of the identity counts */
	k = g; k.requester_uid++;
	assert_int_equal(grant_match(&st, &k, found), 1);
	k = g; k.agent = "other";
	assert_int_equal(grant_match(&st, &k, found), 1);
	k = g; k.agent = NULL;
	assert_int_equal(grant_match(&st, &k, found), 1);
	k = g; k.argv = other_argv;
	assert_int_equal(grant_match(&st, &k, found), 1);
	k = g; k.path = "/bin/echo";
	assert_int_equal(grant_match(&st, &k, found), 1);
	k = g; k.executable_sha256 = "0000000000000000000000000000000000000000000000000000000000000002";
	assert_int_equal(grant_match(&st, &k, found), 1);
	k = g; k.executable_sha256 = NULL;	/* sealed at run time */
	assert_int_equal(grant_match(&st, &k, found), 1);
	k = g; k.cwd = "/tmp";
	assert_int_equal(grant_match(&st, &k, found), 1);
	k = g; k.env = other_env;
	assert_int_equal(grant_match(&st, &k, found), 1);
	k = g; k.output_to_agent = "full";
	assert_int_equal(grant_match(&st, &k, found), 1);
	json_decref(other_argv);
	json_decref(other_env);
	store_close(&st);
}

static void
test_expiry_and_revoke(void **state)
{
	struct store st;
	struct grant_record g[2] = {
		grant(FIXTURE_UID, NULL, now_seconds() - 1),	/* expired already */
		grant(FIXTURE_UID, NULL, now_seconds() + 3600),
	};
	char ids[2][GRANT_ID_LEN + 1], found[GRANT_ID_LEN + 1], why[256];
	json_t *live;
	long events;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	assert_int_equal(grants_add(&st, &g[0], 1, ids), 0);
	assert_int_equal(grant_match(&st, &g[0], found), 1);
	assert_int_equal(grants_live_count(&st, FIXTURE_UID), 0);
	assert_int_equal(grants_revoke(&st, ids[0]), 0);	/* not live: nothing */
	assert_int_equal(grants_add(&st, &g[1], 1, ids + 1), 0);
	live = grants_live(&st);
	assert_int_equal(json_array_size(live), 1);
	assert_string_equal(json_str(json_array_get(live, 0), "id"), ids[1]);
	json_decref(live);
	assert_int_equal(grants_revoke(&st, ids[1]), 1);
	assert_int_equal(grant_match(&st, &g[1], found), 1);
	assert_int_equal(grants_revoke(&st, ids[1]), 0);
	assert_int_equal(grants_add(&st, &g[1], 1, ids + 1), 0);
	assert_int_equal(grants_add(&st, &g[1], 1, ids + 1), 0);
	assert_int_equal(grants_revoke(&st, NULL), 2);
	assert_int_equal(grants_live_count(&st, FIXTURE_UID), 0);
	/* made 4, revoked 3: events outside any gate, and the chain holds */
	assert_int_equal(audit_verify(&st, why, sizeof why, &events), 0);
	assert_int_equal(events, 7);
	store_close(&st);
}

static void
test_quota(void **state)
{
	struct grant_record g[GRANT_QUOTA + 1];
	char ids[GRANT_QUOTA + 1][GRANT_ID_LEN + 1];
	struct store st;
	size_t i;

	(void)state;
	for (i = 0; i <= GRANT_QUOTA; i++)
		g[i] = grant(FIXTURE_UID, NULL, now_seconds() + 60);
	assert_int_equal(store_open_at(&st, dir), 0);
	/* all or nothing */
	assert_int_equal(grants_add(&st, g, GRANT_QUOTA + 1, ids), GRANT_QUOTA_FULL);
	assert_int_equal(grants_live_count(&st, FIXTURE_UID), 0);
	assert_int_equal(grants_add(&st, g, GRANT_QUOTA, ids), 0);
	assert_int_equal(grants_add(&st, g, 1, ids), GRANT_QUOTA_FULL);
	/* per requester */
	g[0].requester_uid = FIXTURE_UID + 1;
	assert_int_equal(grants_add(&st, g, 1, ids), 0);
	/* a revoked grant frees its place */
	assert_int_equal(grants_revoke(&st, NULL), GRANT_QUOTA + 1);
	assert_int_equal(grants_add(&st, g + 1, 1, ids), 0);
	store_close(&st);
}

static char *
file_sha(const char *path, char sha[SHA256_HEX_LEN + 1])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(sha256_fd(fd, sha), 0);
	close(fd);
	return sha;
}

/* A sealed YOU command as store_gate lists it: argv (JSON), path, badges. */
static const char *
judge(const char *as, json_t *argv, const char *path, const char *command, json_t *badges)
{
	static struct refusal r;
	char sha[SHA256_HEX_LEN + 1];
	json_t *c = json_pack("{s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:s?,s:o}", "id", "a", "as", as,
	    "argv", argv, "path", path, "given_path", path, "executable_sha256",
	    file_sha(path, sha), "cwd", "/", "command", command, "badges", badges);
	int rc = grant_judge(c, 0, &r);

	json_decref(c);
	return rc == 0 ? "ok" : r.code;
}

static void
test_grantable(void **state)
{
	(void)state;
	assert_string_equal(judge("user", json_pack("[s,s]", "/usr/bin/true", "x"),
	    "/usr/bin/true", NULL, json_array()), "ok");
	assert_string_equal(judge("root", json_pack("[s]", "/usr/bin/true"),
	    "/usr/bin/true", NULL, json_array()), "grant_root");
	assert_string_equal(judge("user", json_pack("[s,{s:s}]", "/usr/bin/cat", "file", "f"),
	    "/usr/bin/cat", NULL, json_array()), "grant_files");
	assert_string_equal(judge("user", json_pack("[s,s,s,s,s]", "/usr/bin/bash",
	    "--noprofile", "--norc", "-c", "true"), "/usr/bin/bash", "true",
	    json_pack("[s]", "shell")), "grant_shell");
	assert_string_equal(judge("user", json_pack("[s,s,s]", "/usr/bin/dash", "-c", "true"),
	    "/usr/bin/dash", NULL, json_pack("[s]", "shell")), "grant_shell");
	assert_string_equal(judge("user", json_pack("[s,s,s]", "/usr/bin/env", "bash", "x"),
	    "/usr/bin/env", NULL, json_array()), "grant_shell");
	assert_string_equal(judge("user", json_pack("[s,s,s]", "/usr/bin/perl", "-e", "1"),
	    "/usr/bin/perl", NULL, json_pack("[s]", "shell")), "grant_inline_code");
	assert_string_equal(judge("user", json_pack("[s,s,s,s]", "/usr/bin/git", "-c",
	    "core.pager=x", "log"), "/usr/bin/git", NULL, json_array()), "grant_inline_code");
	assert_string_equal(judge("user", json_pack("[s,s]", "/usr/bin/true", "x"),
	    "/usr/bin/true", NULL, json_pack("[s]", "network")), "grant_risky");
}

static void
test_duration(void **state)
{
	(void)state;
	assert_int_equal(grant_duration_parse("90s"), 90);
	assert_int_equal(grant_duration_parse("10m"), 600);
	assert_int_equal(grant_duration_parse("1h"), 3600);
	assert_int_equal(grant_duration_parse("24h"), GRANT_MAX_SECONDS);
	assert_int_equal(grant_duration_parse("86400s"), GRANT_MAX_SECONDS);
	assert_int_equal(grant_duration_parse("25h"), -1);
	assert_int_equal(grant_duration_parse("1441m"), -1);
	assert_int_equal(grant_duration_parse("99999999999999999999999h"), -1);
	assert_int_equal(grant_duration_parse(""), 0);
	assert_int_equal(grant_duration_parse("10"), 0);
	assert_int_equal(grant_duration_parse("0m"), 0);
	assert_int_equal(grant_duration_parse("01h"), 0);
	assert_int_equal(grant_duration_parse("1H"), 0);
	assert_int_equal(grant_duration_parse("1d"), 0);
	assert_int_equal(grant_duration_parse("1h5m"), 0);
	assert_int_equal(grant_duration_parse(" 1h"), 0);
	assert_int_equal(grant_duration_parse("1h "), 0);
	assert_int_equal(grant_duration_parse("-1h"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_duration),
		cmocka_unit_test_setup_teardown(test_match_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expiry_and_revoke, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quota, setup, teardown),
		cmocka_unit_test(test_grantable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
