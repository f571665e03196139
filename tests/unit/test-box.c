/* SPDX-License-Identifier: ISC */
/* warrant box: the pure rules (src/box/rules.c), table by table, and
 * how a step is run (src/box/run.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "box/rules.c"
#include "box/run.c"

static void
test_username_table(void **state)
{
	static const struct { const char *in, *out; } t[] = {
		{ "gabriel", "gabriel" },
		{ "Gabriel", "gabriel" },			/* case */
		{ "ALLCAPS", "allcaps" },
		{ "John Doe", "john-doe" },			/* invalid characters */
		{ "a.b@c:d", "a-b-c-d" },
		{ "line\nbreak", "line-break" },
		{ "tab\there", "tab-here" },
		{ "root:x:0:0", "root-x-0-0" },
		{ "ok_name-1", "ok_name-1" },
		{ "\xc3\xbc" "ber", "u-ber" },			/* one UTF-8 char, one '-' */
		{ "caf\xc3\xa9", "caf-" },
		{ "\xe2\x82\xac", "u-" },
		{ "a\xff" "b", "a-b" },				/* a stray byte */
		{ "9lives", "u9lives" },			/* leading digit */
		{ "-dash", "u-dash" },				/* leading dash */
		{ ".hidden", "u-hidden" },
		{ "_under", "_under" },
		{ "", "warrant" },				/* empty */
		{ "abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz012345" },
		{ "1bcdefghijklmnopqrstuvwxyz0123456789", "u1bcdefghijklmnopqrstuvwxyz01234" },
		{ "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "abcdefghijklmnopqrstuvwxyz012345" },
	};
	char out[BOX_NAME_MAX + 1];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		box_username(t[i].in, out);
		if (strcmp(out, t[i].out) != 0)
			fail_msg("box_username(case %zu) = '%s', want '%s'", i, out, t[i].out);
		assert_true(strlen(out) <= BOX_NAME_MAX);
		assert_null(strpbrk(out, ":\n"));
		assert_true(box_name_ok(out));		/* a fixed point */
	}
}

static void
test_name_ok(void **state)
{
	(void)state;
	assert_true(box_name_ok("wtbox1"));
	assert_true(box_name_ok("_svc"));
	assert_false(box_name_ok(""));
	assert_false(box_name_ok("Root"));
	assert_false(box_name_ok("1abc"));
	assert_false(box_name_ok("a.b"));
	assert_false(box_name_ok("a:b"));
	assert_false(box_name_ok("abcdefghijklmnopqrstuvwxyz0123456"));	/* 33 */
}

static void
test_password_bounds(void **state)
{
	char big[BOX_PW_BYTES + 8];

	(void)state;
	assert_non_null(box_password_check("1234567", 7));
	assert_null(box_password_check("12345678", 8));
	memset(big, 'x', sizeof big);
	assert_null(box_password_check(big, 128));
	assert_non_null(box_password_check(big, 129));
	assert_non_null(box_password_check(big, sizeof big));
	assert_non_null(box_password_check("1234\n5678", 9));
	assert_non_null(box_password_check("1234\r5678", 9));
	assert_non_null(box_password_check("1234\0" "5678", 9));
	/* Characters, not bytes: eight two-byte characters pass. */
	assert_null(box_password_check("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 16));
	assert_non_null(box_password_check("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8));
}

static void
test_paths(void **state)
{
	(void)state;
	assert_null(box_path_check("/bin/bash"));
	assert_null(box_path_check("/"));
	assert_non_null(box_path_check("bin/bash"));
	assert_non_null(box_path_check("/home/a:b"));
	assert_non_null(box_path_check("/home/a\nb"));
	assert_non_null(box_path_check("/home/../etc"));
	assert_non_null(box_path_check("/home/./x"));
	assert_non_null(box_path_check("//home"));
	assert_non_null(box_path_check("/home/x/"));
}

/* box_home_check: under /home only, nothing hidden, no lost+found. */
static void
test_home_table(void **state)
{
	static const char *const good[] = {
		"/home/wtbox1", "/home/a b", "/home/x.y", "/home/a-b_c",
		"/home/boxes/gabriel", "/home/u~1", "/home/a/b/c",
	};
	static const char *const bad[] = {
		/* "/" and the system's trees, themselves and below */
		"/", "/bin", "/bin/x", "/boot/x", "/dev/shm/x", "/etc", "/etc/x",
		"/lib/x", "/lib64/x", "/libx32/x", "/proc/1", "/root", "/root/x",
		"/run/user/1000", "/sbin/x", "/srv", "/srv/boxes/a", "/sys/x",
		"/usr", "/usr/local/x", "/var", "/var/log", "/var/lib",
		"/var/spool/cron", "/var/lib/warrant", "/var/lib/warrant/box",
		"/var/home/x", "/opt", "/opt/x", "/mnt", "/mnt/x", "/media/x",
		"/tmp", "/tmp/x", "/nix/store/x", "/snap/x", "/data/x",
		"/lost+found",
		/* /home itself, and look-alikes */
		"/home", "/homes/x", "/home2/x", "/homex", "/HOME/x",
		/* hidden and lost+found components */
		"/home/.ecryptfs", "/home/.ecryptfs/x", "/home/x/.ssh",
		"/home/.snapshots/1", "/home/lost+found", "/home/lost+found/x",
		"/home/x/lost+found",
		/* not clean */
		"home/x", "", "/home/", "/home//x", "/home/x/", "/home/./x",
		"/home/../etc", "/home/x/..", "/home/a:b", "/home/a\nb",
		"/home/a\tb", "/home/\xc3\xbc",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof good / sizeof good[0]; i++)
		if (box_home_check(good[i]) != NULL)
			fail_msg("box_home_check(\"%s\") refused: %s", good[i],
			    box_home_check(good[i]));
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (box_home_check(bad[i]) == NULL)
			fail_msg("box_home_check(bad case %zu) accepted", i);
	assert_null(box_home_check("/home/lost+foundx"));
	assert_null(box_home_check("/home/a.lost+found"));
}

static void
test_ids(void **state)
{
	(void)state;
	assert_false(box_id_ok(0));
	assert_false(box_id_ok(999));
	assert_true(box_id_ok(1000));
	assert_true(box_id_ok(61001));
	assert_false(box_id_ok(65534));
	assert_false(box_id_ok(65535));
	assert_false(box_id_ok(-1));
}

/* taken: the ids in a zero-ended list */
static int
in_list(long id, void *arg)
{
	const long *l;

	for (l = arg; *l != 0; l++)
		if (*l == id)
			return 1;
	return 0;
}

static void
test_id_pick(void **state)
{
	long none[] = { 0 };
	long used[] = { 1000, 1001, 1002, 0 };
	long full[] = { 1000, 1001, 1002, 1003, 0 };
	long holes[] = { 1000, 1002, 1003, 0 };

	(void)state;
	/* above the highest in use or retired (top), not in the first hole:
	 * useradd's highest-plus-one would be a retired uid's */
	assert_int_equal(box_id_pick(1000, 60000, -1, 1002, in_list, used), 1003);
	assert_int_equal(box_id_pick(1000, 60000, -1, 1010, in_list, used), 1011);
	assert_int_equal(box_id_pick(1000, 60000, -1, 999, in_list, none), 1000);
	/* a preferred id (the uid, for its group) when it is not taken */
	assert_int_equal(box_id_pick(1000, 60000, 1005, 1002, in_list, used), 1005);
	assert_int_equal(box_id_pick(1000, 60000, 1001, 1002, in_list, used), 1003);
	/* the top of the range reached: the lowest id not taken */
	assert_int_equal(box_id_pick(1000, 1003, -1, 1003, in_list, holes), 1001);
	assert_int_equal(box_id_pick(1000, 1003, -1, 1003, in_list, full), -1);
}

static void
test_login_defs_line(void **state)
{
	long v = 7;

	(void)state;
	assert_int_equal(box_login_defs_line("UID_MIN\t\t\t 1000\n", "UID_MIN", &v), 1);
	assert_int_equal(v, 1000);
	assert_int_equal(box_login_defs_line("  UID_MAX 60000", "UID_MAX", &v), 1);
	assert_int_equal(v, 60000);
	v = 7;
	assert_int_equal(box_login_defs_line("#UID_MIN 500\n", "UID_MIN", &v), 0);
	assert_int_equal(box_login_defs_line("SYS_UID_MIN 100\n", "UID_MIN", &v), 0);
	assert_int_equal(box_login_defs_line("UID_MINX 100\n", "UID_MIN", &v), 0);
	assert_int_equal(box_login_defs_line("UID_MIN\n", "UID_MIN", &v), 0);
	assert_int_equal(box_login_defs_line("UID_MIN 10x\n", "UID_MIN", &v), 0);
	assert_int_equal(box_login_defs_line("UID_MIN -5\n", "UID_MIN", &v), 0);
	assert_int_equal(v, 7);
}

static void
test_sudoers_text(void **state)
{
	char *t = box_sudoers_text("wtbox1");

	(void)state;
	assert_non_null(strstr(t, "\nwtbox1 ALL=(ALL:ALL) NOPASSWD: ALL\n"));
	assert_int_equal(t[strlen(t) - 1], '\n');
	free(t);
}

static void
test_shell_quote(void **state)
{
	char buf[128];
	FILE *fp;

	(void)state;
	fp = fmemopen(buf, sizeof buf, "w");
	assert_non_null(fp);
	box_shell_quote(fp, "it's $HOME");
	fclose(fp);
	assert_string_equal(buf, "'it'\\''s $HOME'");
}

static void
test_req_group(void **state)
{
	char g[BOX_GROUP_MAX + 1];

	(void)state;
	assert_int_equal(box_req_group("alice", g, sizeof g), 0);
	assert_string_equal(g, "warrant-alice");
	/* 24 characters fit a 32-character group name, 25 do not */
	assert_int_equal(box_req_group("abcdefghijklmnopqrstuvwx", g, sizeof g), 0);
	assert_int_equal(strlen(g), 32);
	assert_int_equal(box_req_group("abcdefghijklmnopqrstuvwxy", g, sizeof g), -1);
	assert_int_equal(box_req_group("Alice", g, sizeof g), -1);
	assert_int_equal(box_req_group("-x", g, sizeof g), -1);
	assert_int_equal(box_req_group("a b", g, sizeof g), -1);
	assert_int_equal(box_req_group("a:b", g, sizeof g), -1);
	assert_int_equal(box_req_group("", g, sizeof g), -1);
	assert_int_equal(box_req_group("alice", g, 13), -1);
}

static void
test_tmpfiles_text(void **state)
{
	char *t = box_tmpfiles_text("alice");

	(void)state;
	assert_non_null(strstr(t, "\nd /run/warrant 0755 root root -\n"
	    "d /run/warrant/alice 2750 alice warrant-alice -\n"));
	assert_int_equal(t[strlen(t) - 1], '\n');
	assert_int_equal(t[0], '#');
	free(t);
}

static void
test_sudo_rules(void **state)
{
	json_t *a = json_array();

	(void)state;
	assert_int_equal(box_sudo_rules("User bob is not allowed to run sudo on vm.", a), 0);
	assert_int_equal(json_array_size(a), 0);
	assert_int_equal(box_sudo_rules(
	    "Matching Defaults entries for bob on vm:\n"
	    "    env_reset, mail_badpass,\n"
	    "    use_pty\n\n"
	    "User bob may run the following commands on vm:\n"
	    "    (ALL : ALL) ALL\n"
	    "    (root) NOPASSWD: /usr/bin/true\n", a), 2);
	assert_string_equal(json_string_value(json_array_get(a, 0)), "(ALL : ALL) ALL");
	assert_string_equal(json_string_value(json_array_get(a, 1)),
	    "(root) NOPASSWD: /usr/bin/true");
	assert_int_equal(box_sudo_rules("sudo: unknown user bob", a), -1);
	assert_int_equal(box_sudo_rules("", a), -1);
	json_decref(a);
}

static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * A step whose second pipe cannot be made (descriptors run out) closes
 * the first again: the root --box-api daemon runs steps for as long as it
 * lives, and a leak per failure would starve it. The limit lets the
 * first pipe through and stops the second.
 */
static void
test_run_pipe_failure_leaks_nothing(void **state)
{
	const char *const argv[] = { "/usr/bin/true", NULL };
	struct rlimit old, low;
	int before, a, b, c;

	(void)state;
	before = open_fds();
	/* the three lowest free descriptors: the first pipe takes a and b */
	a = dup(0);
	b = dup(0);
	c = dup(0);
	assert_true(a >= 0 && b >= 0 && c >= 0);
	close(a);
	close(b);
	close(c);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t)c;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	assert_int_equal(box_run("pipes", argv, "x", 1), -1);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(open_fds(), before);
	/* and with descriptors enough, the same step runs */
	assert_int_equal(box_run("pipes", argv, "x", 1), 0);
	assert_int_equal(open_fds(), before);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_username_table),
		cmocka_unit_test(test_name_ok),
		cmocka_unit_test(test_password_bounds),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_home_table),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_id_pick),
		cmocka_unit_test(test_login_defs_line),
		cmocka_unit_test(test_sudoers_text),
		cmocka_unit_test(test_shell_quote),
		cmocka_unit_test(test_req_group),
		cmocka_unit_test(test_tmpfiles_text),
		cmocka_unit_test(test_sudo_rules),
		cmocka_unit_test(test_run_pipe_failure_leaks_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
