/* SPDX-License-Identifier: ISC */
/* The runner's I/O log (src/root/iolog.c): session ids and the seq
 * file, the files of a session with their modes, the timing lines
 * adding up to the output (stdout and stderr in the order written),
 * the legacy log and log.json as sudo reads them, and the cap. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "warrant.h"
#include "iolog.h"

static char top[64];
static struct iolog_host host;

static int
setup(void **state)
{
	char why[256];

	(void)state;
	strcpy(top, "/tmp/wt-iolog-unit.XXXXXX");
	if (mkdtemp(top) == NULL)
		return -1;
	/* created by prepare, 0700, under a private 0700 parent */
	strcat(top, "/io");
	return iolog_prepare(&host, top, IOLOG_SESSIONS_DEFAULT, why, sizeof why);
}

static int
teardown(void **state)
{
	char *argv[] = { "/bin/rm", "-rf", top, NULL };
	char *envp[] = { NULL };
	struct spawn s = { .path = "/bin/rm", .argv = argv, .envp = envp,
	    .fd = { -1, -1, -1 }, .group = EXEC_FOREGROUND };
	pid_t pid;
	int st;

	(void)state;
	*strrchr(top, '/') = '\0';
	if (getenv("WT_KEEP") != NULL) {	/* to look at with sudoreplay */
		fprintf(stderr, "# kept %s/io\n", top);
		return 0;
	}
	if ((pid = spawn(&s)) > 0)
		waitpid(pid, &st, 0);
	return 0;
}

/* The whole of a small file, NUL-terminated. */
static char *
slurp(const char *id, const char *name, size_t *len)
{
	char path[PATH_MAX];
	size_t n;
	char *buf;
	int fd;

	snprintf(path, sizeof path, "%s/%s/%s", top, id, name);
	assert_true((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_int_equal(read_bounded(fd, &buf, &n, 1 << 20), 0);
	close(fd);
	if (len != NULL)
		*len = n;
	return buf;
}

static mode_t
mode_of(const char *id, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s%s%s", top, id, *name ? "/" : "", name);
	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static void
test_seq_ids(void **state)
{
	char id[IOLOG_ID_LEN + 1];
	unsigned long seq;

	(void)state;
	assert_int_equal(iolog_seq_format(1, id), 0);
	assert_string_equal(id, "00/00/01");
	assert_int_equal(iolog_seq_format(36, id), 0);
	assert_string_equal(id, "00/00/10");
	assert_int_equal(iolog_seq_format(2176782335UL, id), 0);
	assert_string_equal(id, "ZZ/ZZ/ZZ");
	assert_int_equal(iolog_seq_format(0, id), -1);
	assert_int_equal(iolog_seq_format(2176782336UL, id), -1);
	assert_int_equal(iolog_seq_parse("00000Z\n", 7, &seq), 0);
	assert_int_equal(seq, 35);
	assert_int_equal(iolog_seq_parse("zz", 2, &seq), 0);
	assert_int_equal(seq, 36 * 36 - 1);
	assert_int_equal(iolog_seq_parse("0000001", 7, &seq), -1);
	assert_int_equal(iolog_seq_parse("00-001", 6, &seq), -1);
	assert_int_equal(iolog_seq_parse("", 0, &seq), -1);
}

/* Run /bin/sh -c SCRIPT through the capture with a session as its sink. */
static void
run_logged(const char *script, struct iolog *io, struct exec_result *res)
{
	static struct capture cap;
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };
	struct iolog_info in = { .command = "/bin/sh", .argv = argv, .cwd = "/",
	    .submituser = "alice", .runuser = "root", .runuid = 0, .rungid = 0,
	    .request_id = "r-1", .command_id = "c1" };
	struct exec_spec x = { .argv = argv, .envp = envp, .cwd = "/", .group = EXEC_SESSION,
	    .timeout = 30 };
	char why[256];

	assert_int_equal(iolog_open(io, &host, &in, why, sizeof why), 0);
	assert_true((x.exefd = open("/bin/sh", O_RDONLY | O_CLOEXEC)) >= 0);
	capture_init(&cap, -1, 0);
	cap.sink = iolog_write;
	cap.sink_arg = io;
	assert_int_equal(exec_capture(&x, &cap, res), 0);
	close(x.exefd);
	iolog_close(io);
	assert_int_equal(cap.total, io->bytes);
}

/* The timing file's lines: each "1 SEC.NSEC BYTES" (stdout); their total. */
static void
timing_total(const char *timing, size_t *out)
{
	const char *p = timing;
	int ev, used;
	long long sec;
	long nsec;
	size_t n;

	*out = 0;
	while (*p != '\0') {
		assert_int_equal(sscanf(p, "%d %lld.%9ld %zu%n", &ev, &sec, &nsec, &n, &used), 4);
		assert_int_equal(ev, 1);
		assert_true(sec >= 0 && nsec >= 0 && nsec < 1000000000L);
		assert_int_equal(p[used], '\n');
		/* nine digits of nanoseconds, always */
		assert_non_null(strchr(p, '.'));
		assert_true(strchr(p, '.')[10] == ' ');
		*out += n;
		p += used + 1;
	}
}

static void
test_session(void **state)
{
	struct exec_result res;
	struct iolog io, io2;
	size_t n, to;
	char *s, *t, want[PATH_MAX + 64];
	json_t *j;

	(void)state;
	run_logged("printf 'one\\n'; printf 'bad\\n' >&2; printf '\\001\\377two\\000'; "
	    "printf 'end\\n' >&2", &io, &res);
	assert_int_equal(res.exit_code, 0);
	assert_string_equal(io.error, "");
	assert_int_equal(strlen(io.id), IOLOG_ID_LEN);

	/* stdout and stderr as one stream, byte for byte, in the order written */
	s = slurp(io.id, "stdout", &n);
	assert_int_equal(n, 18);
	assert_memory_equal(s, "one\nbad\n\001\377two\0end\n", 18);
	free(s);
	snprintf(want, sizeof want, "%s/%s/stderr", top, io.id);
	assert_int_equal(access(want, F_OK), -1);
	t = slurp(io.id, "timing", NULL);
	timing_total(t, &to);
	assert_int_equal(to, 18);
	free(t);

	/* modes: root's 0700 and 0600, the timing file complete (0400) */
	assert_int_equal(mode_of("", ""), 0700);
	assert_int_equal(mode_of(io.id, ""), 0700);
	assert_int_equal(mode_of(io.id, "timing"), 0400);
	assert_int_equal(mode_of(io.id, "stdout"), 0600);
	assert_int_equal(mode_of(io.id, "log"), 0600);
	assert_int_equal(mode_of(io.id, "log.json"), 0600);
	assert_int_equal(mode_of("seq", ""), 0600);

	/* legacy log: three lines */
	s = slurp(io.id, "log", NULL);
	snprintf(want, sizeof want, ":alice:root::%s:%d:%d\n/\n/bin/sh -c ", host.tty,
	    host.lines, host.cols);
	assert_non_null(strstr(s, want));
	assert_true(strchr(s, ':') - s >= 10);	/* the epoch */
	free(s);

	/* log.json: what sudoreplay requires, indented */
	s = slurp(io.id, "log.json", NULL);
	assert_non_null(strstr(s, "\n    \"command\": \"/bin/sh\""));
	assert_non_null(j = json_loads(s, 0, NULL));
	assert_string_equal(json_string_value(json_object_get(j, "submituser")), "alice");
	assert_string_equal(json_string_value(json_object_get(j, "runuser")), "root");
	assert_string_equal(json_string_value(json_object_get(j, "submitcwd")), "/");
	assert_string_equal(json_string_value(json_object_get(j, "ttyname")), host.tty);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "runargv"), 1)),
	    "-c");
	assert_true(json_integer_value(json_object_get(j, "lines")) >= 1);
	assert_true(json_integer_value(json_object_get(j, "columns")) >= 1);
	assert_true(json_integer_value(json_object_get(json_object_get(j, "timestamp"),
	    "seconds")) > 1600000000);
	assert_true(json_is_integer(json_object_get(json_object_get(j, "timestamp"),
	    "nanoseconds")));
	json_decref(j);
	free(s);

	/* the next session takes the next number; seq holds it */
	run_logged("true", &io2, &res);
	assert_int_not_equal(strcmp(io.id, io2.id), 0);
	{
		unsigned long a, b;
		char d1[7], d2[7];

		snprintf(d1, sizeof d1, "%.2s%.2s%.2s", io.id, io.id + 3, io.id + 6);
		snprintf(d2, sizeof d2, "%.2s%.2s%.2s", io2.id, io2.id + 3, io2.id + 6);
		assert_int_equal(iolog_seq_parse(d1, 6, &a), 0);
		assert_int_equal(iolog_seq_parse(d2, 6, &b), 0);
		assert_int_equal(b, a + 1);
		s = slurp("", "seq", &n);
		assert_int_equal(n, 7);
		assert_memory_equal(s, d2, 6);
		free(s);
	}
	t = slurp(io2.id, "timing", &n);
	assert_int_equal(n, 0);		/* no output, no event */
	free(t);
}

/* A taken id is passed over, never reused or appended to. */
static void
test_taken_id_skipped(void **state)
{
	struct exec_result res;
	struct iolog io, io2;
	char path[PATH_MAX], next[IOLOG_ID_LEN + 1];
	unsigned long a;
	char d[7];

	(void)state;
	run_logged("echo a", &io, &res);
	snprintf(d, sizeof d, "%.2s%.2s%.2s", io.id, io.id + 3, io.id + 6);
	assert_int_equal(iolog_seq_parse(d, 6, &a), 0);
	iolog_seq_format(a + 1, next);
	snprintf(path, sizeof path, "%s/%.5s", top, next);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/%s", top, next);
	assert_int_equal(mkdir(path, 0700), 0);
	run_logged("echo b", &io2, &res);
	iolog_seq_format(a + 2, next);
	assert_string_equal(io2.id, next);
}

/*
 * A session with a note in the log server's spool (not shipped yet) is
 * passed over too: with root's spool (the compiled-in path, made and
 * removed here; as root only), the ring's next session after keep, whose
 * turn it is, is the one after it, reuse, and keep's output stays.
 */
static void
ring_keeps_unsent(const char *keep, const char *reuse)
{
	char note[PATH_MAX], dirs[PATH_MAX], *slash, *got;
	struct exec_result res;
	struct iolog io;
	int made[16] = { 0 }, n = 0, fd;

	if (geteuid() != 0)
		return;
	/* mkdir -p, remembering what was made */
	snprintf(dirs, sizeof dirs, "%s/", WARRANT_LOGSHIP_SPOOL);
	for (slash = strchr(dirs + 1, '/'); slash != NULL && n < 16;
	    slash = strchr(slash + 1, '/'), n++) {
		*slash = '\0';
		made[n] = mkdir(dirs, 0755) == 0;
		*slash = '/';
	}
	snprintf(note, sizeof note, "%s/%.2s%.2s%.2s", WARRANT_LOGSHIP_SPOOL, keep, keep + 3,
	    keep + 6);
	assert_true((fd = open(note, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0);
	close(fd);
	run_logged("echo f", &io, &res);
	assert_string_equal(io.id, reuse);
	got = slurp(keep, "stdout", NULL);
	assert_string_equal(got, "d\n");
	free(got);
	unlink(note);
	dirs[strlen(dirs) - 1] = '\0';		/* the spool itself first */
	while (n-- > 0) {
		if (made[n])
			rmdir(dirs);
		if ((slash = strrchr(dirs, '/')) != NULL)
			*slash = '\0';
	}
}

/*
 * The log is a ring (sudo's maxseq): with room for 3 sessions the one
 * after 00/00/03 is 00/00/01 again, whose finished session is the oldest
 * and makes room; a session cut short (its timing file still writable)
 * is passed over, never removed.
 */
static void
test_ring(void **state)
{
	static const char *const out[] = { "a\n", "b\n", "c\n", "d\n" };
	unsigned long saved = host.sessions;
	struct exec_result res;
	struct iolog io[5];
	char path[PATH_MAX], *got, script[16];
	size_t i;

	(void)state;
	host.sessions = 3;
	for (i = 0; i < 4; i++) {
		snprintf(script, sizeof script, "printf '%c\\n'", out[i][0]);
		run_logged(script, &io[i], &res);
		assert_true(strcmp(io[i].id, "00/00/01") >= 0 && strcmp(io[i].id, "00/00/03") <= 0);
	}
	assert_string_equal(io[3].id, io[0].id);	/* round again */
	got = slurp(io[3].id, "stdout", NULL);
	assert_string_equal(got, "d\n");		/* the oldest made room */
	free(got);
	snprintf(path, sizeof path, "%s/%s/timing", top, io[1].id);
	assert_int_equal(chmod(path, 0600), 0);		/* as if cut short */
	run_logged("echo e", &io[4], &res);
	assert_string_equal(io[4].id, io[2].id);	/* passed over io[1] */
	got = slurp(io[1].id, "stdout", NULL);
	assert_string_equal(got, "b\n");
	free(got);
	ring_keeps_unsent(io[3].id, io[4].id);
	host.sessions = saved;
}

/* The legacy log's command line carries no control character: each is
 * '#' and three octal digits, as sudo writes them (UTF-8 text is kept). */
static void
test_log_neutralised(void **state)
{
	struct iolog io;
	struct iolog_info in = { .command = "/usr/bin/printf",
	    .argv = (char *[]){ "printf", "a\033[31mb\rc\nd", "caf\xc3\xa9\xff\xc2\x9b", NULL },
	    .cwd = "/tmp/\033]0;x\a", .submituser = "alice", .runuser = "root",
	    .request_id = "r", .command_id = "c" };
	char why[256], *log, *line;
	size_t n, i;

	(void)state;
	assert_int_equal(iolog_open(&io, &host, &in, why, sizeof why), 0);
	iolog_close(&io);
	log = slurp(io.id, "log", &n);
	for (i = 0; i < n; i++)
		assert_true(log[i] == '\n' || ((unsigned char)log[i] >= 0x20 && log[i] != 0x7f));
	line = strchr(log, '\n') + 1;
	assert_string_equal(line, "/tmp/#033]0;x#007\n"
	    "/usr/bin/printf a#033[31mb#015c#012d caf\xc3\xa9#377#302#233\n");
	free(log);
}

/* Past the cap nothing more is recorded, and the session says so; the
 * timing file names exactly the bytes that are there. */
static void
test_cap(void **state)
{
	struct iolog io;
	struct iolog_info in = { .command = "/bin/true", .argv = (char *[]){ "true", NULL },
	    .cwd = "/", .submituser = "alice", .runuser = "root", .request_id = "r",
	    .command_id = "c" };
	char why[256], *s;
	size_t n, to;

	(void)state;
	assert_int_equal(iolog_open(&io, &host, &in, why, sizeof why), 0);
	io.max = 10;
	iolog_write(&io, "12345678", 8);
	iolog_write(&io, "abcdef", 6);
	iolog_write(&io, "zz", 2);
	iolog_close(&io);
	assert_non_null(strstr(io.error, "not recorded"));
	s = slurp(io.id, "stdout", &n);
	assert_int_equal(n, 10);
	assert_memory_equal(s, "12345678ab", 10);
	free(s);
	s = slurp(io.id, "timing", NULL);
	timing_total(s, &to);
	assert_int_equal(to, 10);
	free(s);
}

/* A log directory others can write to is refused; a link is not followed. */
static void
test_unsafe_dir(void **state)
{
	struct iolog_host h;
	char path[PATH_MAX], why[256];

	(void)state;
	snprintf(path, sizeof path, "%s/open", top);
	assert_int_equal(mkdir(path, 0777), 0);
	assert_int_equal(chmod(path, 0777), 0);
	assert_int_equal(iolog_prepare(&h, path, IOLOG_SESSIONS_DEFAULT, why, sizeof why), -1);
	assert_non_null(strstr(why, "writable"));
	/* above the log, others' write is refused too; group write is not */
	snprintf(path, sizeof path, "%s/open/io", top);
	assert_int_equal(iolog_prepare(&h, path, IOLOG_SESSIONS_DEFAULT, why, sizeof why), -1);
	assert_non_null(strstr(why, "writable by others"));
	snprintf(path, sizeof path, "%s/grp", top);
	assert_int_equal(mkdir(path, 0770), 0);
	assert_int_equal(chmod(path, 0770), 0);
	snprintf(path, sizeof path, "%s/grp/io", top);
	assert_int_equal(iolog_prepare(&h, path, IOLOG_SESSIONS_DEFAULT, why, sizeof why), 0);
	snprintf(path, sizeof path, "%s/link", top);
	assert_int_equal(symlink(top, path), 0);
	assert_int_equal(iolog_prepare(&h, path, IOLOG_SESSIONS_DEFAULT, why, sizeof why), -1);
	assert_int_equal(iolog_prepare(&h, "relative/dir", IOLOG_SESSIONS_DEFAULT, why, sizeof why), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_ids),
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_taken_id_skipped),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_log_neutralised),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_unsafe_dir),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
