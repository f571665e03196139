/*
 * The sudo handoff: sudo runs on the reviewer's terminal with a fixed,
 * small environment; warrant never sees the password. The stop signals
 * (SIGHUP, SIGTERM, interrupt keys) are only noted while a batch is in
 * hand, so that it always ends with `sudo -k`.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "approve.h"

volatile sig_atomic_t stop_interrupted, stop_requested;

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

/* SIGHUP, SIGTERM or an interrupt key once the handoff began: finish the
 * current command, run nothing more, and still end with sudo -k. */
void
on_hangup(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void
on_interrupt(int sig)
{
	(void)sig;
	stop_interrupted = 1;
}

/* Run sudo with argv on the terminal (or /dev/null when tty < 0). An
 * interrupt key reaches sudo and us alike: we only note it (sudo reports
 * a cancelled prompt as an ordinary failure). Returns the wait status. */
int
run_sudo(int tty, const char *const *argv)
{
	char *envp[SUDO_ENV_MAX];
	struct sigaction note, oldint, oldquit;
	int status = -1, fd;
	pid_t pid;

	sudo_env(envp);
	memset(&note, 0, sizeof note);
	note.sa_handler = on_interrupt;
	sigaction(SIGINT, &note, &oldint);
	sigaction(SIGQUIT, &note, &oldquit);
	if ((pid = fork()) == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		fd = tty >= 0 ? tty : open("/dev/null", O_RDWR);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execve(SUDO, (char *const *)argv, envp);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	sigaction(SIGINT, &oldint, NULL);
	sigaction(SIGQUIT, &oldquit, NULL);
	sudo_env_free(envp);
	return status;
}

static const int stop_signals[STOP_SIGNALS] = { SIGHUP, SIGTERM, SIGINT, SIGQUIT };

/* Handle the stop signals with handler; the previous dispositions go to
 * saved (when given), for whoever called approve_run (the console). */
void
set_stop_handlers(void (*handler)(int), struct sigaction saved[STOP_SIGNALS])
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	for (i = 0; i < STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &sa, saved != NULL ? &saved[i] : NULL);
}

void
restore_stop_handlers(const struct sigaction saved[STOP_SIGNALS])
{
	int i;

	for (i = 0; i < STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &saved[i], NULL);
}

int
sudo_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void
sudo_forget(struct approval *a)
{
	static const char *const argv[] = { SUDO, "-k", NULL };

	if (a->authenticated && !sudo_ok(run_sudo(-1, argv)))
		warnx("sudo -k failed; run it yourself to drop the sudo ticket");
	a->authenticated = 0;
}
