/* SPDX-License-Identifier: ISC */
/* Stopping a running command (src/root/stopfile.c, through exec_capture's
 * tick): the stop file is heard without being followed, the whole tree
 * goes (a daemon-like orphan in a session of its own too, and what an
 * earlier command of the batch left) and nothing else (a child the
 * executor had before the batch, as the console has its earlier
 * approval's finalizer), the live record holds the latest output,
 * bounded. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "warrant.h"

static struct capture cap;
static char dir[] = "/tmp/warrant-test-stop.XXXXXX";
static int dfd = -1;

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(dir) == NULL)
		return -1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dfd >= 0 ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	unlinkat(dfd, RUN_STOP, 0);
	unlinkat(dfd, RUN_LIVE, 0);
	unlinkat(dfd, "target", 0);
	close(dfd);
	return rmdir(dir);
}

static void
test_stop_heard(void **state)
{
	struct run_watch w;
	json_t *rec;
	int fd;

	(void)state;
	run_watch_init(&w, dfd, getuid(), "alice");
	assert_int_equal(stop_heard(dfd, getuid()), 0);
	assert_int_equal(run_watch_halted(&w), 0);
	assert_null(run_watch_record(&w));
	/* a dangling link by that name is heard as itself, never followed */
	assert_int_equal(symlinkat("target", dfd, RUN_STOP), 0);
	assert_int_equal(stop_heard(dfd, getuid()), 1);
	assert_int_equal(faccessat(dfd, "target", F_OK, 0), -1);
	unlinkat(dfd, RUN_STOP, 0);
	fd = openat(dfd, RUN_STOP, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run_watch_halted(&w), 1);
	assert_string_equal(w.why, "stopped by alice");
	rec = run_watch_record(&w);
	assert_non_null(rec);
	assert_string_equal(json_string_value(json_object_get(rec, "by")), "alice");
	assert_true(json_integer_value(json_object_get(rec, "at")) > 0);
	json_decref(rec);
	/* once heard, it stays heard */
	unlinkat(dfd, RUN_STOP, 0);
	assert_int_equal(run_watch_halted(&w), 1);
}

static json_t *
live_record(void)
{
	char *buf;
	size_t len;
	json_t *j;
	int fd = openat(dfd, RUN_LIVE, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(read_bounded(fd, &buf, &len, 1 << 20), 0);
	close(fd);
	j = json_loadb(buf, len, 0, NULL);
	free(buf);
	assert_non_null(j);
	return j;
}

static void
test_live_tail(void **state)
{
	struct run_watch w;
	char line[64];
	const char *out;
	json_t *j;
	int i;

	(void)state;
	run_watch_init(&w, dfd, getuid(), "alice");
	run_watch_command(&w, "c1");
	capture_init(&cap, -1, 0);
	for (i = 0; i < 1000; i++) {
		snprintf(line, sizeof line, "line-%04d\n", i);
		capture_feed(&cap, line, strlen(line));
	}
	capture_feed(&cap, "partial\xff", 8);	/* no newline yet, a stray byte */
	assert_int_equal(run_watch_tick(&w, &cap), 0);
	j = live_record();
	assert_string_equal(json_string_value(json_object_get(j, "command")), "c1");
	assert_int_equal(json_integer_value(json_object_get(j, "output_bytes")), cap.total);
	out = json_string_value(json_object_get(j, "output"));
	assert_true(strlen(out) <= LIVE_TAIL + 3);	/* the stray byte spelled \xff */
	assert_non_null(strstr(out, "line-0999\npartial\\xff"));
	assert_null(strstr(out, "line-0000"));
	json_decref(j);
}

/* exec_capture's tick: stop once the command said it is ready */
static int
stop_when_ready(void *arg, struct capture *c)
{
	(void)arg;
	return c->total > 0;
}

static void
test_stop_kills_the_tree(void **state)
{
	char pidfile[sizeof dir + 16], script[512], *buf;
	char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
	char *const argv[] = { "sh", "-c", script, NULL };
	struct exec_result res;
	struct exec_spec x;
	size_t len;
	pid_t orphan, before, left;
	int fd, status;

	(void)state;
	/* a child of ours from before the batch, in a session of its own
	 * like the console's finalizer: the stop is not for it */
	if ((before = fork()) == 0) {
		setsid();
		execl("/bin/sleep", "sleep", "1000", (char *)NULL);
		_exit(127);
	}
	assert_true(before > 0);
	descendants_note();	/* the batch starts (batch_execute) */
	/* what an earlier command of the batch left running: the stop is */
	if ((left = fork()) == 0) {
		setsid();
		execl("/bin/sleep", "sleep", "1000", (char *)NULL);
		_exit(127);
	}
	assert_true(left > 0);
	snprintf(pidfile, sizeof pidfile, "%s/orphan", dir);
	/* the orphan's parent (the subshell) is gone before the stop, and
	 * the orphan has a session of its own: only the subreaper keeps it
	 * in the tree */
	snprintf(script, sizeof script, "(setsid sleep 1000.%d </dev/null >/dev/null 2>&1 & "
	    "echo $! >%s); while [ ! -s %s ]; do :; done; echo ready; sleep 1000.%d",
	    (int)getpid(), pidfile, pidfile, (int)getpid());
	memset(&x, 0, sizeof x);
	x.exefd = open("/bin/sh", O_RDONLY | O_CLOEXEC);
	assert_true(x.exefd >= 0);
	x.argv = argv;
	x.envp = envp;
	x.group = EXEC_SESSION;
	x.timeout = 600;
	x.tick = stop_when_ready;
	capture_init(&cap, -1, 0);
	assert_int_equal(exec_capture(&x, &cap, &res), 0);
	close(x.exefd);
	assert_int_equal(res.stopped, 1);
	assert_int_equal(res.timed_out, 0);
	assert_int_equal(res.signal, SIGTERM);
	fd = open(pidfile, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(read_bounded(fd, &buf, &len, 64), 0);
	close(fd);
	unlink(pidfile);
	orphan = (pid_t)atoi(buf);
	free(buf);
	assert_true(orphan > 1);
	/* killed, and reaped: no such process any more */
	assert_int_equal(kill(orphan, 0), -1);
	assert_int_equal(errno, ESRCH);
	/* what the batch left is gone too (killed and reaped); the earlier
	 * child lives on */
	assert_int_equal(kill(left, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(waitpid(before, &status, WNOHANG), 0);
	assert_int_equal(kill(before, SIGKILL), 0);
	assert_int_equal(waitpid(before, &status, 0), before);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_heard),
		cmocka_unit_test(test_live_tail),
		cmocka_unit_test(test_stop_kills_the_tree),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
