/* SPDX-License-Identifier: ISC */
/*
 * Run one step of box provisioning: a program by absolute path with an
 * argv array (never a shell string), a fixed clean environment, no
 * descriptor of ours, stdin fed from a buffer through a pipe (so a
 * password never reaches argv, the environment or a file), and its output
 * kept for the error message.
 */
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"
#include "box/box.h"

#define OUTPUT_KEEP	2048	/* of a failed step's output, shown */

static char *const clean_env[] = {
	"PATH=" TRUSTED_PATH, "LC_ALL=C", "LANG=C", NULL
};

/* Say that a step failed and why; the caller returns EXIT_INTERNAL. */
void
box_fail(const char *step, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "warrant: step '%s' failed: ", step);
	text_print(stderr, msg);
	fputc('\n', stderr);
}

/* Keep the first OUTPUT_KEEP bytes of fd, drain the rest. */
static size_t
drain(int fd, char *buf, size_t size)
{
	char sink[512];
	size_t len = 0;
	ssize_t n;

	for (;;) {
		if (len + 1 < size)
			n = read(fd, buf + len, size - 1 - len);
		else
			n = read(fd, sink, sizeof sink);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (len + 1 < size)
			len += (size_t)n;
	}
	buf[len] = '\0';
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return len;
}

static void
report(const char *step, const char *path, int status, const char *out)
{
	char how[64];

	if (WIFEXITED(status))
		snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(how, sizeof how, "status %d", status);
	fprintf(stderr, "warrant: step '%s' failed: %s: %s%s", step, path, how,
	    *out != '\0' ? ":\n  " : "\n");
	if (*out != '\0') {
		text_print(stderr, out);
		fputc('\n', stderr);
	}
}

/*
 * Run argv (argv[0] an absolute path) with in/inlen on its stdin (or
 * /dev/null when in is NULL), its output (stdout and stderr) kept in buf.
 * Returns the wait status, or -1 when it could not be run (said under
 * step's name).
 */
static int
run(const char *step, const char *const argv[], const void *in, size_t inlen,
    char *buf, size_t size)
{
	struct spawn s = { .path = argv[0], .argv = (char *const *)argv, .envp = clean_env,
	    .group = EXEC_FOREGROUND, .umask = 022 };
	struct sigaction ign, old;
	int out[2] = { -1, -1 }, inp[2] = { -1, -1 }, status = -1;
	pid_t pid;

	buf[0] = '\0';
	/* A child that exits without reading its stdin must not kill us. */
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	/* the first pipe is closed again when the second cannot be made */
	if (pipe2(out, O_CLOEXEC) != 0 || (in != NULL && pipe2(inp, O_CLOEXEC) != 0)) {
		box_fail(step, "pipe: %s", strerror(errno));
		goto out;
	}
	s.fd[0] = inp[0];
	s.fd[1] = s.fd[2] = out[1];
	if ((pid = spawn(&s)) < 0) {
		box_fail(step, "cannot execute %s: %s", argv[0], strerror(errno));
		goto out;
	}
	close(out[1]);
	out[1] = -1;
	if (in != NULL) {
		close(inp[0]);
		inp[0] = -1;
		/* Small (a password line): fits the pipe, so no deadlock. */
		(void)write_all(inp[1], in, inlen);
		close(inp[1]);
		inp[1] = -1;
	}
	drain(out[0], buf, size);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			box_fail(step, "waitpid: %s", strerror(errno));
			status = -1;
			goto out;
		}
	}
out:
	sigaction(SIGPIPE, &old, NULL);
	if (out[0] >= 0)
		close(out[0]);
	if (out[1] >= 0)
		close(out[1]);
	if (inp[0] >= 0)
		close(inp[0]);
	if (inp[1] >= 0)
		close(inp[1]);
	return status;
}

/*
 * Run argv with in/inlen on its stdin (or /dev/null when in is NULL). 0
 * when it exits 0; otherwise the failure is reported under the step's
 * name and -1 is returned.
 */
int
box_run(const char *step, const char *const argv[], const void *in, size_t inlen)
{
	char buf[OUTPUT_KEEP];
	int status = run(step, argv, in, inlen, buf, sizeof buf);

	if (status == -1)
		return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	report(step, argv[0], status, buf);
	return -1;
}

/*
 * Run argv for what it says (a query, not a step): its output in buf (at
 * most size - 1 bytes, the rest dropped). Its exit status, or -1 when it
 * could not be run or was killed.
 */
int
box_run_output(const char *const argv[], char *buf, size_t size)
{
	int status = run(argv[0], argv, NULL, 0, buf, size);

	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}
