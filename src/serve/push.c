/* SPDX-License-Identifier: ISC */
/*
 * `warrant serve --notify-url URL`: the hint-only push. A thread of the
 * daemon, with a store connection of its own, reads the number of pending
 * gates every PUSH_POLL_MS; when it has risen it POSTs the text "N
 * pending" to URL (an ntfy topic, a webhook), at most once every
 * PUSH_MIN_GAP_S (rises in between are folded into the next one). The
 * text carries no gate id, reason, command, link or secret: the phone
 * learns that something waits and the reviewer opens the page or a
 * terminal. The POST is /usr/bin/curl started with spawn(): a fixed argv
 * (no ~/.curlrc, http and https only, no redirects, 5 s at most), the URL
 * on its standard input as curl configuration, so it is in no argv that
 * other users can read. A failure is logged, cut and neutralised, and
 * changes nothing.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve/serve.h"

#define PUSH_CURL	"/usr/bin/curl"
#define PUSH_POLL_MS	1000
#define PUSH_MIN_GAP_S	30
#define PUSH_URL_MAX	1024
#define PUSH_ERR_MAX	200	/* bytes of curl's complaint that are logged */

struct push {
	char		 url[PUSH_URL_MAX + 1];
	pthread_t	 thread;
	volatile int	 stop;
	int		 running;
};

extern char **environ;

/* http:// or https://, a host, printable ASCII without spaces or quotes
 * (curl's config syntax); 0, or -1 with why. */
int
push_url_check(const char *url, const char **why)
{
	const char *p, *host;

	if (strlen(url) > PUSH_URL_MAX) {
		*why = "it is longer than 1024 characters";
		return -1;
	}
	if (strncmp(url, "https://", 8) == 0)
		host = url + 8;
	else if (strncmp(url, "http://", 7) == 0)
		host = url + 7;
	else {
		*why = "it is not an http:// or https:// URL";
		return -1;
	}
	if (*host == '\0' || *host == '/' || *host == ':' || *host == '?' || *host == '#') {
		*why = "it names no host";
		return -1;
	}
	for (p = url; *p != '\0'; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f || *p == '"' ||
		    *p == '\\') {
			*why = "it holds a space, a control character, a quote, a backslash "
			    "or a non-ASCII byte (percent-encode them)";
			return -1;
		}
	return 0;
}

/* Read what curl said on fd (bounded), then log it neutralised. */
static void
log_failure(int fd, int status)
{
	char buf[PUSH_ERR_MAX + 1], *v;
	size_t len = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, len < PUSH_ERR_MAX ? buf + len : buf, len < PUSH_ERR_MAX ?
		    PUSH_ERR_MAX - len : sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < PUSH_ERR_MAX)
			len += (size_t)n;
	}
	buf[len] = '\0';
	if (status == 0)
		return;
	buf[strcspn(buf, "\r\n")] = '\0';
	v = text_visible(buf);
	if (WIFEXITED(status))
		warnx("serve: the push to --notify-url failed (curl exit %d): %s",
		    WEXITSTATUS(status), v);
	else
		warnx("serve: the push to --notify-url failed (curl killed)");
	free(v);
}

/* POST text to the URL; waits for curl (5 s at most). */
static void
push_send(const struct push *p, const char *text)
{
	char *const argv[] = { PUSH_CURL, "-q", "-sS", "-f", "--max-time", "5",
	    "--proto", "=http,https", "--max-redirs", "0", "-H",
	    "Content-Type: text/plain; charset=utf-8", "--data-binary", (char *)text,
	    "-o", "/dev/null", "-K", "-", NULL };
	char cfg[PUSH_URL_MAX + 16];
	int in[2] = { -1, -1 }, er[2] = { -1, -1 }, status = 0, n;
	pid_t pid;

	n = snprintf(cfg, sizeof cfg, "url = \"%s\"\n", p->url);
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(er, O_CLOEXEC) != 0) {
		warn("serve: push: pipe");
		goto out;
	}
	{
		const struct spawn s = { .path = PUSH_CURL, .argv = argv, .envp = environ,
		    .fd = { in[0], -1, er[1] }, .group = EXEC_SESSION };

		pid = spawn(&s);
	}
	close(in[0]);
	close(er[1]);
	in[0] = er[1] = -1;
	if (pid < 0) {
		warn("serve: push: cannot start " PUSH_CURL);
		goto out;
	}
	/* a few hundred bytes: the pipe takes them without blocking */
	if (write_all(in[1], cfg, (size_t)n) != 0)
		warn("serve: push: writing curl's configuration");
	close(in[1]);
	in[1] = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	log_failure(er[0], status);
out:
	if (in[0] >= 0)
		close(in[0]);
	if (in[1] >= 0)
		close(in[1]);
	if (er[0] >= 0)
		close(er[0]);
	if (er[1] >= 0)
		close(er[1]);
}

static void *
push_main(void *arg)
{
	struct push *p = arg;
	struct store st;
	long seen = -1, n;
	int64_t last = 0;
	int dirty = 0, slept, gap = PUSH_MIN_GAP_S;
	char text[48];

#if WARRANT_TEST_HOOKS
	/* the end-to-end build: a short gap, so a second push comes soon */
	if (getenv("WARRANT_TEST_PUSH_GAP") != NULL)
		gap = atoi(getenv("WARRANT_TEST_PUSH_GAP"));
#endif

	if (store_open(&st) != 0) {
		warnx("serve: the push cannot open the store; no pushes");
		return NULL;
	}
	while (!p->stop) {
		if ((n = store_count_pending(&st, -1)) >= 0) {
			if (seen >= 0 && n > seen)
				dirty = 1;
			seen = n;
			if (dirty && n > 0 && now_seconds() - last >= gap) {
				snprintf(text, sizeof text, "%ld pending", n);
				push_send(p, text);
				last = now_seconds();
				dirty = 0;
			} else if (dirty && n == 0)
				dirty = 0;
		}
		for (slept = 0; slept < PUSH_POLL_MS && !p->stop; slept += 100)
			usleep(100 * 1000);
	}
	store_close(&st);
	return NULL;
}

/* Start the push thread for url (checked already); it, or NULL. */
struct push *
push_start(const char *url)
{
	struct push *p = xcalloc(1, sizeof *p);
	sigset_t block, old;
	int rc;

	if (access(PUSH_CURL, X_OK) != 0) {
		warnx("serve: --notify-url needs %s (apt install curl)", PUSH_CURL);
		free(p);
		return NULL;
	}
	snprintf(p->url, sizeof p->url, "%s", url);
	/* the thread takes no stop signals: the daemon's loop does */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = pthread_create(&p->thread, NULL, push_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		warnx("serve: cannot start the push thread: %s", strerror(rc));
		free(p);
		return NULL;
	}
	p->running = 1;
	warnx("serve: a hint (\"N pending\") goes to --notify-url when gates wait");
	return p;
}

void
push_stop(struct push *p)
{
	if (p == NULL)
		return;
	p->stop = 1;
	if (p->running)
		pthread_join(p->thread, NULL);
	explicit_bzero(p->url, sizeof p->url);
	free(p);
}
