/* SPDX-License-Identifier: ISC */
/*
 * The sudo handoff: sudo runs on the reviewer's terminal with a fixed,
 * small environment; warrant never sees the password, and every call is
 * `sudo -k …` with a command, which authenticates that one command and
 * caches no ticket. The stop signals (SIGHUP, SIGTERM, interrupt keys)
 * are only noted while a batch is in hand, and job control is held off:
 * a stopped batch would enforce no timeout.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch.h"

volatile sig_atomic_t stop_requested;

static const int stop_signals[STOP_SIGNALS] = {
	SIGHUP, SIGTERM, SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU	/* job control from 4 */
};

/* What sudo is started with: a fixed PATH and the terminal's settings
 * (sudo resets the rest itself). */
void
sudo_env(char *envp[SUDO_ENV_MAX])
{
	static const char *const keep[] = { "TERM", "LANG", "LC_ALL", "LC_MESSAGES", NULL };
	const char *p;
	int i, k = 0;

	envp[k++] = xstrdup("PATH=/usr/sbin:/usr/bin:/sbin:/bin");
	for (i = 0; keep[i] != NULL; i++)
		if ((p = getenv(keep[i])) != NULL && strlen(p) < 64 &&
		    asprintf(&envp[k], "%s=%s", keep[i], p) > 0)
			k++;
	envp[k] = NULL;
}

void
sudo_env_free(char *envp[SUDO_ENV_MAX])
{
	int i;

	for (i = 0; envp[i] != NULL; i++)
		free(envp[i]);
}

static void
on_stop(int sig)
{
	/* job control keys are held off, not taken as a stop */
	if (sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU)
		stop_requested = 1;
}

/* From here until stop_signals_restore: SIGHUP, SIGTERM and interrupt
 * keys finish the command in hand and run nothing more; Ctrl-Z does
 * nothing. The caller's dispositions go to saved[STOP_SIGNALS]. */
void
stop_signals_catch(struct sigaction *saved)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	stop_requested = 0;
	for (i = 0; i < STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &sa, &saved[i]);
}

void
stop_signals_restore(const struct sigaction *saved)
{
	int i;

	for (i = 0; i < STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &saved[i], NULL);
}

/*
 * The one way the runner is started: `sudo -k -- RUNNER --manifest PATH
 * --expected-sha256 SHA [--detach]` into argv (RUNNER_ARGV_MAX entries,
 * the last NULL); with a passkey, `sudo -k -n -- RUNNER passkey ...`:
 * the enrolled reviewer's sudoers rule asks no password for that, and
 * without the rule sudo refuses rather than asks (docs/passkeys.md).
 */
void
runner_argv(const char *argv[RUNNER_ARGV_MAX], const char *manifest, const char *sha,
    int detach, int passkey)
{
	int k = 0;

	argv[k++] = SUDO_PATH;
	argv[k++] = "-k";
	if (passkey)
		argv[k++] = "-n";
	argv[k++] = "--";
	argv[k++] = WARRANT_RUNNER_PATH;
	if (passkey)
		argv[k++] = "passkey";
	argv[k++] = "--manifest";
	argv[k++] = manifest;
	argv[k++] = "--expected-sha256";
	argv[k++] = sha;
	if (detach)
		argv[k++] = "--detach";
	argv[k] = NULL;
}

/*
 * What sudo (and the runner) said on stderr, its last size - 1 bytes kept
 * in said, read until pid has ended and nothing more waits in fd (a
 * detached runner may keep it open). Its wait status.
 */
static int
said_until_exit(int fd, pid_t pid, char *said, size_t size)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[1024];
	size_t len = 0;
	int status = -1, ended = 0;
	ssize_t n;

	*said = '\0';
	for (;;) {
		if (!ended && waitpid(pid, &status, WNOHANG) == pid)
			ended = 1;
		if (poll(&pfd, 1, ended ? 0 : 200) <= 0) {
			if (ended)
				break;
			continue;
		}
		if ((n = read(fd, buf, sizeof buf)) <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		/* keep the tail: the refusal is the last line */
		if ((size_t)n >= size - 1) {
			memcpy(said, buf + n - (size - 1), size - 1);
			len = size - 1;
		} else {
			if (len + (size_t)n > size - 1) {
				memmove(said, said + (len + (size_t)n - (size - 1)),
				    size - 1 - (size_t)n);
				len = size - 1 - (size_t)n;
			}
			memcpy(said + len, buf, (size_t)n);
			len += (size_t)n;
		}
		said[len] = '\0';
	}
	while (!ended && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/*
 * Run sudo with argv on the terminal; when tty < 0 (the daemon's page:
 * no prompt is possible), stdin and stdout on /dev/null and stderr kept
 * in said (its tail; said may be NULL, then /dev/null too). Returns the
 * wait status, or -1 when it could not be started.
 */
int
run_sudo(int tty, const char *const *argv, char *said, size_t size)
{
	char *envp[SUDO_ENV_MAX];
	struct spawn s = { .path = SUDO_PATH, .argv = (char *const *)argv, .envp = envp,
	    .fd = { tty, tty, tty }, .group = EXEC_FOREGROUND };
	sigset_t jobctl;
	int status = -1, i, err[2] = { -1, -1 };
	pid_t pid;

	if (said != NULL) {
		*said = '\0';
		if (tty < 0 && pipe2(err, O_CLOEXEC) == 0)
			s.fd[2] = err[1];
	}

	/* ignored job control survives exec: Ctrl-Z cannot stop sudo's
	 * prompt, or the runner, behind our back */
	sigemptyset(&jobctl);
	for (i = 4; i < STOP_SIGNALS; i++)
		sigaddset(&jobctl, stop_signals[i]);
	s.ignore = &jobctl;
	sudo_env(envp);
	pid = spawn(&s);
	if (err[1] >= 0)
		close(err[1]);
	if (pid > 0 && err[0] >= 0)
		status = said_until_exit(err[0], pid, said, size);
	else if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (err[0] >= 0)
		close(err[0]);
	sudo_env_free(envp);
	return status;
}

int
sudo_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* `sudo -k`: belt and braces, since no call of ours leaves a ticket. */
void
sudo_forget(void)
{
	static const char *const argv[] = { SUDO_PATH, "-k", NULL };

	if (!sudo_ok(run_sudo(-1, argv, NULL, 0)))
		warnx("sudo -k failed; run it yourself to drop any sudo ticket");
}
