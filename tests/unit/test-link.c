/* SPDX-License-Identifier: ISC */
/*
 * The requester's client of the reviewer's daemon (src/client/link.c)
 * against a stand-in daemon in a child process, on a real Unix socket
 * (WARRANT_SOCKET): a wait whose daemon goes away and comes back gets
 * its outcome, asked again by the gate's whole id on a fresh descriptor;
 * a wait started while a dead daemon's socket is there waits for a new
 * one; a request whose connection is lost before the answer is sent again
 * with the same key; with no socket at all, no daemon runs: said at once.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "warrant.h"

#define GATE	"w-abcdefghij"
#define DOWN_MS	700	/* how long the stand-in daemon stays away */

static char dir[64], sock[108];	/* sizeof sun_path */

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/warrant-link.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(sock, sizeof sock, "%.60s/req.sock", dir);
	return setenv("WARRANT_SOCKET", sock, 1);
}

static int
teardown(void **state)
{
	(void)state;
	unlink(sock);
	return rmdir(dir);
}

/* The stand-in daemon's side: exit with a status the test checks. */
static void __attribute__((noreturn))
daemon_fail(const char *why)
{
	fprintf(stderr, "stand-in daemon: %s\n", why);
	_exit(1);
}

static void
pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* A socket bound at path; listening when listening. */
static int
bind_at(const char *path, int listening)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof sa.sun_path, "%.107s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    (listening && listen(fd, 4) != 0))
		daemon_fail("cannot bind");
	return fd;
}

/* A listening socket at sock, put there in one step (as the daemon
 * does: bound under another name, then renamed over a stale one). */
static int
listen_at(void)
{
	char tmp[sizeof sock];
	int fd;

	snprintf(tmp, sizeof tmp, "%.60s/new.sock", dir);
	fd = bind_at(tmp, 1);
	if (rename(tmp, sock) != 0)
		daemon_fail("rename");
	return fd;
}

/* Accept one connection and read one message line from it. */
static json_t *
take(int lfd, int *cfd)
{
	char line[65536];
	size_t len = 0;
	ssize_t r;
	json_t *j;

	if ((*cfd = accept(lfd, NULL, NULL)) < 0)
		daemon_fail("accept");
	while (len < sizeof line && (len == 0 || line[len - 1] != '\n')) {
		if ((r = read(*cfd, line + len, sizeof line - len)) <= 0)
			daemon_fail("no message");
		len += (size_t)r;
	}
	if ((j = json_loadb(line, len - 1, 0, NULL)) == NULL)
		daemon_fail("a message that is not JSON");
	return j;
}

static void
send_line(int fd, const char *line)
{
	if (write_all(fd, line, strlen(line)) != 0)
		daemon_fail("write");
}

/* The daemon goes away: its connection and socket closed, the socket
 * file removed (as when it stops), for DOWN_MS. */
static int
restart(int lfd, int cfd)
{
	close(cfd);
	close(lfd);
	unlink(sock);
	pause_ms(DOWN_MS);
	return listen_at();
}

static pid_t
daemon_start(void (*fn)(void))
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		fn();
		_exit(0);
	}
	return pid;
}

static void
daemon_done(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static const char outcome_line[] = "{\"ok\":true,\"event\":\"outcome\",\"exit\":4,"
    "\"outcome\":{\"request_id\":\"" GATE "\",\"state\":\"denied\",\"feedback\":\"no\"}}\n";

/* A wait taken (a pending line), then the daemon restarts; the wait
 * asked again must name the whole id, and gets the denial. */
static void
wait_restart_daemon(void)
{
	int lfd = listen_at(), cfd;
	json_t *m = take(lfd, &cfd);

	if (strcmp(json_str(m, "op"), "wait") != 0 || strcmp(json_str(m, "id"), "abcd") != 0)
		daemon_fail("the first wait is not for abcd");
	json_decref(m);
	send_line(cfd, "{\"ok\":true,\"event\":\"pending\",\"request_id\":\"" GATE "\","
	    "\"expires_at_epoch\":4102444800}\n");
	lfd = restart(lfd, cfd);
	m = take(lfd, &cfd);
	if (strcmp(json_str(m, "op"), "wait") != 0 || strcmp(json_str(m, "id"), GATE) != 0)
		daemon_fail("the wait asked again is not for the whole id");
	json_decref(m);
	send_line(cfd, outcome_line);
	close(cfd);
	close(lfd);
}

static void
test_wait_rides_out_a_restart(void **state)
{
	pid_t pid = daemon_start(wait_restart_daemon);
	json_t *out = NULL;
	struct link l;

	(void)state;
	while (access(sock, F_OK) != 0)	/* the stand-in listens */
		pause_ms(10);
	assert_int_equal(link_open(&l, NULL), EXIT_OK);
	assert_int_equal(link_wait(&l, "abcd", -1, &out), EXIT_WAIT_DENIED);
	assert_non_null(out);
	assert_string_equal(json_str(out, "state"), "denied");
	assert_string_equal(json_str(out, "feedback"), "no");
	json_decref(out);
	link_close(&l);
	daemon_done(pid);
}

/* A daemon that died left its socket; a new one comes after DOWN_MS. */
static void
late_daemon(void)
{
	int lfd, cfd;
	json_t *m;

	pause_ms(DOWN_MS);
	lfd = listen_at();
	m = take(lfd, &cfd);
	if (strcmp(json_str(m, "id"), GATE) != 0)
		daemon_fail("the wait is not for the gate");
	json_decref(m);
	send_line(cfd, outcome_line);
	close(cfd);
	close(lfd);
}

static void
test_wait_started_while_down(void **state)
{
	json_t *out = NULL;
	struct link l;
	pid_t pid;

	(void)state;
	close(bind_at(sock, 0));	/* there, and nobody answers */
	pid = daemon_start(late_daemon);
	assert_int_equal(link_open(&l, NULL), EXIT_OK);
	assert_int_equal(link_wait(&l, GATE, -1, &out), EXIT_WAIT_DENIED);
	json_decref(out);
	link_close(&l);
	daemon_done(pid);
}

/* The request arrives and the daemon dies before answering; the request
 * sent again must carry the same key (the daemon answers it with the
 * gate the first one made). */
static void
request_lost_daemon(void)
{
	int lfd = listen_at(), cfd;
	json_t *m = take(lfd, &cfd);
	char *key;

	if (strcmp(json_str(m, "op"), "request") != 0 || strlen(json_str(m, "key")) != 32)
		daemon_fail("the request has no key of 32 hex digits");
	key = xstrdup(json_str(m, "key"));
	json_decref(m);
	lfd = restart(lfd, cfd);
	m = take(lfd, &cfd);
	if (strcmp(json_str(m, "key"), key) != 0)
		daemon_fail("the request sent again has another key");
	json_decref(m);
	free(key);
	send_line(cfd, "{\"ok\":true,\"gate\":{\"request_id\":\"" GATE "\",\"state\":\"pending\"},"
	    "\"repeat\":true}\n");
	close(cfd);
	close(lfd);
}

static void
test_request_resent_with_its_key(void **state)
{
	static const char req[] = "{\"reason\":\"r\",\"commands\":[{\"id\":\"a\","
	    "\"argv\":[\"/usr/bin/true\"],\"why\":\"w\"}]}";
	pid_t pid = daemon_start(request_lost_daemon);
	json_t *desc = NULL;
	struct refusal r;
	struct link l;

	(void)state;
	/* the stand-in must listen before the (impatient) request connects */
	while (access(sock, F_OK) != 0)
		pause_ms(10);
	assert_int_equal(link_open(&l, NULL), EXIT_OK);
	assert_int_equal(link_submit(&l, req, strlen(req), NULL, NULL, &desc, &r), EXIT_OK);
	assert_string_equal(json_str(desc, "request_id"), GATE);
	json_decref(desc);
	link_close(&l);
	daemon_done(pid);
}

/* No socket at all: no daemon runs, and that is said at once. */
static void
test_no_daemon(void **state)
{
	struct link l;

	(void)state;
	assert_int_equal(link_open(&l, NULL), EXIT_UNREACHABLE);
	link_close(&l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wait_rides_out_a_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_started_while_down, setup, teardown),
		cmocka_unit_test_setup_teardown(test_request_resent_with_its_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_daemon, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
