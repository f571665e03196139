/* SPDX-License-Identifier: ISC */
/* Standing grants: the store's table (grants.c), exact matching, quota,
 * expiry and revocation, their audit events, grant ids, what runs by
 * grants have stored, which sealed commands may be granted
 * (grantable.c), judged against a real user's files, and the reads-cwd
 * badge (risk.c). */
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>

#include "store-fixture.h"

static json_t *argv_hello, *env_c, *no_badges;

static struct grant_record
grant(uid_t uid, const char *agent, int64_t expires)
{
	struct grant_record g = {
		.requester_uid = uid, .agent = agent, .argv = argv_hello,
		.path = "/usr/bin/echo", .executable_sha256 = TRUE_SHA, .cwd = "/",
		.env = env_c, .output_to_agent = "tail", .timeout_seconds = 0,
		.badges = no_badges, .gate_id = "w-aaaaaaaaaa", .command_id = "a",
		.expires = expires,
	};

	return g;
}

static int
setup(void **state)
{
	argv_hello = json_pack("[s,s]", "/usr/bin/echo", "hello");
	env_c = json_pack("{s:s}", "LANG", "C");
	no_badges = json_array();
	return fixture_setup(state);
}

static int
teardown(void **state)
{
	json_decref(argv_hello);
	json_decref(env_c);
	json_decref(no_badges);
	return fixture_teardown(state);
}

/* the fixture's requests.jsonl helper is not needed here */
static void
fixture_unused(void)
{
	(void)assert_jsonl;
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
	char ids[2][GRANT_ID_LEN + 1], found[GRANT_ID_LEN + 1];
	json_t *other_argv = json_pack("[s,s,s]", "/usr/bin/echo", "hello", "again");
	json_t *other_env = json_object();
	json_t *reads_cwd = json_pack("[s]", "reads-cwd");

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
	k = g; k.timeout_seconds = 60;
	assert_int_equal(grant_match(&st, &k, found), 1);
	k = g; k.badges = reads_cwd;
	assert_int_equal(grant_match(&st, &k, found), 1);
	/* a grant with a timeout matches that timeout only */
	k = g; k.timeout_seconds = 60;
	assert_int_equal(grants_add(&st, &k, 1, ids + 1), 0);
	assert_int_equal(grant_match(&st, &k, found), 0);
	assert_string_equal(found, ids[1]);
	k.timeout_seconds = 61;
	assert_int_equal(grant_match(&st, &k, found), 1);
	json_decref(other_argv);
	json_decref(other_env);
	json_decref(reads_cwd);
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
	assert_true(json_is_null(json_object_get(json_array_get(live, 0), "timeout_seconds")));
	assert_true(json_equal(json_object_get(json_array_get(live, 0), "badges"), no_badges));
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

/* A gate of the fixture's requester settled with ledger entries, one
 * per {granted_by, output_bytes} pair (granted_by NULL: reviewed); the
 * ledger's stored length. */
static long long
settled(struct store *st, int64_t created, const char *granted_by, long long bytes)
{
	char id[GATE_ID_LEN + 1];
	json_t *sel = json_pack("[{s:s}]", "id", "a"), *l, *e;
	long long len;
	char *text;
	int64_t a;

	gate_add(st, created, 300, id);
	a = attempt_begin(st, id, sel, TRUE_SHA, "/nonexistent/run");
	assert_true(a > 0);
	e = json_pack("{s:s,s:s,s:s,s:i,s:n,s:i,s:s,s:I}", "id", "a", "as", "user",
	    "status", "ran", "exit_code", 0, "signal", "duration_ms", 1, "output_tail", "x",
	    "output_bytes", (json_int_t)bytes);
	if (granted_by != NULL)
		json_object_set_new(e, "granted_by", json_string(granted_by));
	l = ledger_new(id, TRUE_SHA, "completed", json_pack("[o]", e), NULL);
	text = canon_dump(l, NULL);
	len = (long long)strlen(text);
	assert_int_equal(gate_settle(st, id, a, l), 0);
	free(text);
	json_decref(l);
	json_decref(sel);
	return len;
}

/* What runs by grants stored: their ledgers and their output logs as
 * kept (at most GRANT_LOG_MAX a command), of the last day, of this
 * requester; reviewed runs do not count. */
static void
test_stored(void **state)
{
	struct store st;
	long long want;

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	assert_int_equal(grants_stored(&st, FIXTURE_UID), 0);
	want = settled(&st, now_seconds(), "g-aaaaaaaaaa", 1000) + 1000;
	assert_int_equal(grants_stored(&st, FIXTURE_UID), want);
	/* a log keeps GRANT_LOG_MAX of 64 MiB printed */
	want += settled(&st, now_seconds(), "g-aaaaaaaaaa", 64LL << 20) + GRANT_LOG_MAX;
	assert_int_equal(grants_stored(&st, FIXTURE_UID), want);
	/* a reviewed run, a granted run of yesterday: not counted */
	settled(&st, now_seconds(), NULL, 5000);
	settled(&st, now_seconds() - GRANT_STORED_WINDOW - 10, "g-aaaaaaaaaa", 5000);
	assert_int_equal(grants_stored(&st, FIXTURE_UID), want);
	assert_int_equal(grants_stored(&st, FIXTURE_UID + 1), 0);
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

/* The files of a requester (nobody) beside root's: a root-owned base
 * holding the requester's project (with a script and a program of its
 * own) and a root-owned directory with a subdirectory of the
 * requester's. */
static char base[PATH_MAX];
static uid_t requester;

static void
put(const char *name, mode_t mode, int dir_, int mine)
{
	char path[PATH_MAX + 64];
	struct passwd *pw = getpwuid(requester);
	int fd;

	snprintf(path, sizeof path, "%s/%s", base, name);
	if (dir_)
		assert_int_equal(mkdir(path, mode), 0);
	else {
		assert_true((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)) >= 0);
		close(fd);
	}
	assert_int_equal(chmod(path, mode), 0);
	if (mine)
		assert_int_equal(chown(path, requester, pw->pw_gid), 0);
}

static int
judge_setup(void **state)
{
	char path[PATH_MAX + 64];
	struct passwd *pw = getpwnam("nobody");
	int in, out;
	ssize_t n;
	char buf[65536];

	(void)state;
	if (pw == NULL)
		return -1;
	requester = pw->pw_uid;
	snprintf(base, sizeof base, "/tmp/warrant-grant-judge.XXXXXX");
	if (mkdtemp(base) == NULL || chmod(base, 0755) != 0)
		return -1;
	put("proj", 0755, 1, 1);
	put("proj/x.py", 0644, 0, 1);
	put("proj/true", 0755, 0, 1);
	put("root", 0755, 1, 0);
	put("root/sub", 0755, 1, 1);
	/* the requester's own copy of true */
	snprintf(path, sizeof path, "%s/proj/true", base);
	in = open("/usr/bin/true", O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -1;
	close(in);
	close(out);
	return 0;
}

static int
judge_teardown(void **state)
{
	static const char *const names[] = {
		"proj/x.py", "proj/true", "proj", "root/sub", "root",
	};
	char path[PATH_MAX + 64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", base, names[i]);
		if (remove(path) != 0)
			return -1;
	}
	return rmdir(base);
}

/*
 * grant_judge of a gate of the requester with one command: as (user or
 * root), argv (JSON, taken), the program's path (resolved here), a shell
 * string or NULL, badges (taken), cwd (NULL: base, or under it when
 * relative) and env (taken, NULL: none). "ok" or the refusal's code.
 */
static const char *
judge_in(const char *as, json_t *argv, const char *path, const char *command, json_t *badges,
    const char *cwd, json_t *env)
{
	static struct refusal r;
	char sha[SHA256_HEX_LEN + 1], real[PATH_MAX], where[PATH_MAX + 64];
	json_t *g;
	int rc;

	assert_non_null(realpath(path, real));
	snprintf(where, sizeof where, "%s%s%s", cwd != NULL && cwd[0] == '/' ? "" : base,
	    cwd != NULL && cwd[0] != '/' ? "/" : "", cwd != NULL ? cwd : "");
	g = json_pack("{s:I,s:o,s:[{s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:s?,s:o,s:n}]}",
	    "requester_uid", (json_int_t)requester, "env", env != NULL ? env : json_object(),
	    "commands", "id", "a", "as", as, "argv", argv, "path", real, "given_path", path,
	    "executable_sha256", file_sha(real, sha), "cwd", where, "command", command,
	    "badges", badges, "timeout_seconds");
	rc = grant_judge(g, 0, &r);
	if (rc != 0 && strcmp(r.code, "grant_agent_input") == 0)
		assert_non_null(strstr(r.message, "run it reviewed each time, or grant a "
		    "command whose inputs the requester cannot change"));
	json_decref(g);
	return rc == 0 ? "ok" : r.code;
}

static const char *
judge(const char *as, json_t *argv, const char *path, const char *command, json_t *badges)
{
	return judge_in(as, argv, path, command, badges, "/", NULL);
}

/* A path of the fixture, for argv. */
static const char *
at(const char *name)
{
	static char paths[4][PATH_MAX + 64];
	static size_t n;
	char *p = paths[n++ % 4];

	snprintf(p, sizeof paths[0], "%s/%s", base, name);
	return p;
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

/* Input the requester can change: never granted (grant_agent_input). */
static void
test_agent_input(void **state)
{
	(void)state;
	/* the positive controls: root's program, root's paths */
	assert_string_equal(judge("user", json_pack("[s]", "/usr/bin/uptime"),
	    "/usr/bin/uptime", NULL, json_array()), "ok");
	assert_string_equal(judge("user", json_pack("[s,s]", "/usr/bin/ls", "/etc"),
	    "/usr/bin/ls", NULL, json_array()), "ok");
	assert_string_equal(judge("user", json_pack("[s,s,s]", "/usr/bin/ls", "-l", "etc"),
	    "/usr/bin/ls", NULL, json_array()), "ok");
	assert_string_equal(judge_in("user", json_pack("[s,s]", "/usr/bin/cat", "other"),
	    "/usr/bin/cat", NULL, json_array(), "root", NULL), "ok");
	/* a cwd the requester can write */
	assert_string_equal(judge_in("user", json_pack("[s]", "/usr/bin/uptime"),
	    "/usr/bin/uptime", NULL, json_array(), "proj", NULL), "grant_agent_input");
	/* a relative path under it */
	assert_string_equal(judge_in("user", json_pack("[s,s]", "/usr/bin/cat", "x.py"),
	    "/usr/bin/cat", NULL, json_array(), "proj", NULL), "grant_agent_input");
	/* an argv path it can write, or create */
	assert_string_equal(judge("user", json_pack("[s,s]", "/usr/bin/cat", at("proj/x.py")),
	    "/usr/bin/cat", NULL, json_array()), "grant_agent_input");
	assert_string_equal(judge("user", json_pack("[s,s]", "/usr/bin/cat", at("proj/new")),
	    "/usr/bin/cat", NULL, json_array()), "grant_agent_input");
	/* ... after '=', or a short option's letters */
	assert_string_equal(judge("user", json_pack("[s,s+]", "/usr/bin/ls", "--hide=",
	    at("proj")), "/usr/bin/ls", NULL, json_array()), "grant_agent_input");
	assert_string_equal(judge("user", json_pack("[s,s+]", "/usr/bin/ls", "-I", at("proj")),
	    "/usr/bin/ls", NULL, json_array()), "grant_agent_input");
	/* a relative path into its directory under a root-owned cwd */
	assert_string_equal(judge_in("user", json_pack("[s,s]", "/usr/bin/cat", "sub/x"),
	    "/usr/bin/cat", NULL, json_array(), "root", NULL), "grant_agent_input");
	/* an env value naming its directory */
	assert_string_equal(judge_in("user", json_pack("[s]", "/usr/bin/uptime"),
	    "/usr/bin/uptime", NULL, json_array(), "/", json_pack("{s:s}", "PYTHONPATH",
	    at("proj"))), "grant_agent_input");
	/* a program it can replace */
	assert_string_equal(judge("user", json_pack("[s]", at("proj/true")), at("proj/true"),
	    NULL, json_array()), "grant_agent_input");
	/* an interpreter running a script it can write */
	assert_string_equal(judge("user", json_pack("[s,s]", "/usr/bin/python3",
	    at("proj/x.py")), "/usr/bin/python3", NULL, json_pack("[s]", "shell")),
	    "grant_agent_input");
	/* a program that reads its project from its cwd, in root's / */
	assert_string_equal(judge("user", json_pack("[s,s]", "/usr/bin/make", "test"),
	    "/usr/bin/make", NULL, json_pack("[s]", "reads-cwd")), "grant_agent_input");
}

/* risk_command's reads-cwd: make, a runner's make, python -m; not ls. */
static int
reads_cwd(const char *path, const char **argv, size_t argc)
{
	struct wrequest q;
	struct wcommand c;

	memset(&q, 0, sizeof q);
	memset(&c, 0, sizeof c);
	c.argv = argv;
	c.argc = argc;
	c.as_user = 1;
	snprintf(c.cwd, sizeof c.cwd, "/");
	snprintf(c.exe.path, sizeof c.exe.path, "%s", path);
	return (risk_command(&c, &q) & BADGE_READS_CWD) != 0;
}

static void
test_reads_cwd(void **state)
{
	static const char *make[] = { "make", "test", NULL };
	static const char *timeout[] = { "timeout", "60", "/usr/bin/make", NULL };
	static const char *pytest[] = { "python3", "-m", "pytest", NULL };
	static const char *npm[] = { "npm", "test", NULL };
	static const char *script[] = { "python3", "/usr/lib/x.py", NULL };
	static const char *ls[] = { "ls", "/etc", NULL };
	json_t *b = badges_json(BADGE_READS_CWD);

	(void)state;
	assert_true(reads_cwd("/usr/bin/make", make, 2));
	assert_true(reads_cwd("/usr/bin/timeout", timeout, 3));
	assert_true(reads_cwd("/usr/bin/python3.11", pytest, 3));
	assert_true(reads_cwd("/usr/bin/npm", npm, 2));
	assert_false(reads_cwd("/usr/bin/python3.11", script, 2));
	assert_false(reads_cwd("/usr/bin/ls", ls, 2));
	assert_string_equal(json_string_value(json_array_get(b, 0)), "reads-cwd");
	json_decref(b);
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
		cmocka_unit_test_setup_teardown(test_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grantable, judge_setup, judge_teardown),
		cmocka_unit_test_setup_teardown(test_agent_input, judge_setup, judge_teardown),
		cmocka_unit_test(test_reads_cwd),
	};

	(void)fixture_unused;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
