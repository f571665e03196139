/* SPDX-License-Identifier: ISC */
/*
 * The one way warrant starts ssh: /usr/bin/ssh with the machine's pinned
 * host key only (warrant's own known_hosts, HostKeyAlias=NAME,
 * StrictHostKeyChecking=yes), no connection sharing, no forwarding, no
 * escape character, and the remote command as one string that the
 * ssh user's shell (`$SHELL -c`, never a login shell) splits back into
 * exactly the words given, each quoted for POSIX sh; the first word is
 * an absolute path (the target's warrant pinned at enrollment, or
 * /usr/bin/env -i before it). Only
 * enrollment, to find that path, asks a login shell (batch, no
 * terminal): exec "$SHELL" -lc 'QUOTED WORDS'. Batch calls have no
 * terminal (BatchMode=yes: ssh can ask nobody anything), bounded output
 * and a timeout; the authenticated run has the reviewer's terminal on
 * all three descriptors (ssh -t), so that the target's sudo prompts
 * there and the password never passes through warrant.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "remote/remote.h"

#define SSH_ARGS_MAX	48
#define SSH_ENV_MAX	12

/* A path ssh's -o parser and its % and ~ expansion leave as it is. */
static int
ssh_path_ok(const char *p)
{
	for (; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == '"' || *p == '\'' || *p == '%' ||
		    *p == '\\' || *p == '~' || *p == 0x7f)
			return 0;
	return 1;
}

static void
env_fill(char *envp[SSH_ENV_MAX])
{
	static const char *const keep[] = { "HOME", "USER", "LOGNAME", "SSH_AUTH_SOCK",
		"TERM", "LANG", "LC_ALL", "LC_CTYPE", NULL };
	const char *p;
	int i, k = 0;

	envp[k++] = xstrdup("PATH=/usr/bin:/bin");
	for (i = 0; keep[i] != NULL; i++)
		if ((p = getenv(keep[i])) != NULL && strlen(p) < 1024 &&
		    asprintf(&envp[k], "%s=%s", keep[i], p) > 0)
			k++;
	envp[k] = NULL;
}

static void
env_free(char *envp[SSH_ENV_MAX])
{
	int i;

	for (i = 0; envp[i] != NULL; i++)
		free(envp[i]);
}

/* The argv of ssh for c, with its strings in strs (freed by the caller). */
static int
build_argv(const struct ssh_call *c, const char *argv[SSH_ARGS_MAX], char *strs[4])
{
	char kh[PATH_MAX];
	char *inner;
	int k = 0;

	memset(strs, 0, 4 * sizeof *strs);
	if (c->known_hosts != NULL)
		snprintf(kh, sizeof kh, "%s", c->known_hosts);
	else if ((size_t)snprintf(kh, sizeof kh, "%s/%s", c->state, KNOWN_HOSTS_FILE) >=
	    sizeof kh)
		return -1;
	if (!ssh_path_ok(kh)) {
		warnx("the state directory's path (%s) has characters ssh's options cannot "
		    "carry (spaces, quotes, %%, ~, \\)", c->state);
		return -1;
	}
	if (asprintf(&strs[0], "UserKnownHostsFile=%s", kh) < 0 ||
	    asprintf(&strs[1], "HostKeyAlias=%s", json_str(c->machine, "name")) < 0)
		return -1;
	/* a login shell only to find warrant at enrollment, never on a terminal */
	if (c->login && c->tty >= 0)
		return -1;
	if (!c->login && c->words[0][0] != '/') {
		warnx("%s: the target's warrant is not an absolute path; enroll the machine "
		    "again", json_str(c->machine, "name"));
		return -1;
	}
	strs[3] = sh_join(c->words);
	if (c->login) {
		inner = sh_quote(strs[3]);
		free(strs[3]);
		strs[3] = NULL;
		if (asprintf(&strs[3], "exec \"$SHELL\" -lc %s", inner) < 0) {
			free(inner);
			return -1;
		}
		free(inner);
	}
	if (json_integer_value(json_object_get(c->machine, "port")) > 0 &&
	    asprintf(&strs[2], "%lld",
	    (long long)json_integer_value(json_object_get(c->machine, "port"))) < 0)
		return -1;
	argv[k++] = "ssh";
	argv[k++] = c->tty >= 0 ? "-t" : "-T";
	argv[k++] = "-o";
	argv[k++] = c->tty >= 0 ? "BatchMode=no" : "BatchMode=yes";
	argv[k++] = "-o";
	argv[k++] = c->known_hosts != NULL ? "StrictHostKeyChecking=accept-new" :
	    "StrictHostKeyChecking=yes";
	argv[k++] = "-o";
	argv[k++] = strs[0];
	argv[k++] = "-o";
	argv[k++] = strs[1];
	argv[k++] = "-o";
	argv[k++] = "GlobalKnownHostsFile=/dev/null";
	argv[k++] = "-o";
	argv[k++] = "CheckHostIP=no";
	argv[k++] = "-o";
	argv[k++] = "HashKnownHosts=no";
	argv[k++] = "-o";
	argv[k++] = "UpdateHostKeys=no";
	argv[k++] = "-o";
	argv[k++] = "ControlMaster=no";
	argv[k++] = "-o";
	argv[k++] = "ControlPath=none";
	argv[k++] = "-o";
	argv[k++] = "ForwardAgent=no";
	argv[k++] = "-o";
	argv[k++] = "ForwardX11=no";
	argv[k++] = "-o";
	argv[k++] = "ClearAllForwardings=yes";
	argv[k++] = "-o";
	argv[k++] = "PermitLocalCommand=no";
	argv[k++] = "-o";
	argv[k++] = "EscapeChar=none";
	argv[k++] = "-o";
	argv[k++] = "ConnectTimeout=5";
	argv[k++] = "-o";
	argv[k++] = "LogLevel=ERROR";
	if (strs[2] != NULL) {
		argv[k++] = "-p";
		argv[k++] = strs[2];
	}
	argv[k++] = "-l";
	argv[k++] = c->user != NULL ? c->user : json_str(c->machine, "user");
	argv[k++] = "--";
	argv[k++] = json_str(c->machine, "host");
	argv[k++] = strs[3];
	argv[k] = NULL;
	return 0;
}

static void
strs_free(char *strs[4])
{
	int i;

	for (i = 0; i < 4; i++)
		free(strs[i]);
}

/* Feed, drain and wait for a batch call within its timeout. */
static void
pump(const struct ssh_call *c, struct ssh_result *res, pid_t pid, int in, int out, int errfd)
{
	int64_t deadline = monotonic_ms() + (int64_t)c->timeout * 1000;
	size_t sent = 0, errlen = 0, cap = 0;
	char buf[16384];
	ssize_t n;

	if (c->inlen == 0) {
		close(in);
		in = -1;
	}
	while (out >= 0 || errfd >= 0 || in >= 0) {
		struct pollfd p[3] = { { .fd = in, .events = POLLOUT },
			{ .fd = out, .events = POLLIN }, { .fd = errfd, .events = POLLIN } };
		int64_t left = deadline - monotonic_ms();

		if (left <= 0) {
			res->timed_out = 1;
			kill(-pid, SIGKILL);
			break;
		}
		if (poll(p, 3, (int)(left > 1000 ? 1000 : left)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (in >= 0 && (p[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
			n = write(in, c->in + sent, c->inlen - sent);
			if (n > 0)
				sent += (size_t)n;
			if (n < 0 || sent == c->inlen) {
				close(in);
				in = -1;
			}
		}
		if (out >= 0 && (p[1].revents & (POLLIN | POLLERR | POLLHUP))) {
			n = read(out, buf, sizeof buf);
			if (n > 0 && res->outlen + (size_t)n > REMOTE_OUT_MAX)
				res->overflow = 1;
			/* more than an answer may be: read no further */
			if (res->overflow)
				kill(-pid, SIGKILL);
			if (n <= 0 || res->overflow) {
				close(out);
				out = -1;
			} else {
				if (res->outlen + (size_t)n + 1 > cap) {
					cap = (res->outlen + (size_t)n + 1) * 2;
					res->out = realloc(res->out, cap);
					if (res->out == NULL)
						err(1, "realloc");
				}
				memcpy(res->out + res->outlen, buf, (size_t)n);
				res->outlen += (size_t)n;
				res->out[res->outlen] = '\0';
			}
		}
		if (errfd >= 0 && (p[2].revents & (POLLIN | POLLERR | POLLHUP))) {
			n = read(errfd, buf, sizeof buf);
			if (n <= 0) {
				close(errfd);
				errfd = -1;
			} else if (errlen + 1 < sizeof res->err) {
				size_t k = (size_t)n < sizeof res->err - 1 - errlen ? (size_t)n :
				    sizeof res->err - 1 - errlen;

				memcpy(res->err + errlen, buf, k);
				errlen += k;
				res->err[errlen] = '\0';
			}
		}
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (errfd >= 0)
		close(errfd);
	if (res->timed_out)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &res->status, 0) < 0 && errno == EINTR)
		;
}

/*
 * Run the words of c on its machine. 0 when ssh ran (its wait status in
 * res->status, for the caller to read), -1 when it could not be started.
 */
int
ssh_run(const struct ssh_call *c, struct ssh_result *res)
{
	const char *argv[SSH_ARGS_MAX];
	char *strs[4], *envp[SSH_ENV_MAX];
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, er[2] = { -1, -1 };
	struct spawn s = { .path = SSH_PATH, .envp = envp };
	sigset_t jobctl;
	pid_t pid;

	memset(res, 0, sizeof *res);
	res->status = -1;
	if (build_argv(c, argv, strs) != 0) {
		strs_free(strs);
		return -1;
	}
	s.argv = (char *const *)argv;
	env_fill(envp);
	if (c->tty >= 0) {
		/* ignored job control survives exec, as for sudo itself */
		sigemptyset(&jobctl);
		sigaddset(&jobctl, SIGTSTP);
		sigaddset(&jobctl, SIGTTIN);
		sigaddset(&jobctl, SIGTTOU);
		s.ignore = &jobctl;
		s.fd[0] = s.fd[1] = s.fd[2] = c->tty;
		s.group = EXEC_FOREGROUND;
		if ((pid = spawn(&s)) > 0)
			while (waitpid(pid, &res->status, 0) < 0 && errno == EINTR)
				;
	} else {
		if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 ||
		    pipe2(er, O_CLOEXEC) != 0) {
			pid = -1;
			goto done;
		}
		s.fd[0] = in[0];
		s.fd[1] = out[1];
		s.fd[2] = er[1];
		s.group = EXEC_SESSION;
		pid = spawn(&s);
		close(in[0]);
		close(out[1]);
		close(er[1]);
		in[0] = out[1] = er[1] = -1;
		if (pid > 0) {
			signal(SIGPIPE, SIG_IGN);
			pump(c, res, pid, in[1], out[0], er[0]);
		} else {
			close(in[1]);
			close(out[0]);
			close(er[0]);
		}
	}
done:
	if (pid <= 0) {
		int i;

		for (i = 0; i < 2; i++) {
			if (in[i] >= 0)
				close(in[i]);
			if (out[i] >= 0)
				close(out[i]);
			if (er[i] >= 0)
				close(er[i]);
		}
	}
	env_free(envp);
	strs_free(strs);
	if (res->out == NULL)
		res->out = xstrdup("");
	return pid > 0 ? 0 : -1;
}

void
ssh_result_free(struct ssh_result *res)
{
	free(res->out);
	res->out = NULL;
}

/* The remote command answered: ssh ran it to its end, within its time and
 * its output's bound (else ssh_failure says what went wrong). */
int
ssh_answered(const struct ssh_result *res)
{
	return !res->timed_out && !res->overflow && res->status != -1 &&
	    WIFEXITED(res->status) && WEXITSTATUS(res->status) != 255;
}

/*
 * What went wrong with a call whose remote command did not answer: the
 * code (machine_changed for a host key that is not the pinned one,
 * machine_incompatible for an answer too long to read, machine_unreachable
 * otherwise) and why (ssh's first error line).
 */
const char *
ssh_failure(const struct ssh_result *res, char *why, size_t size)
{
	char line[256];
	size_t n = strcspn(res->err, "\r\n");
	char *v;

	if (n >= sizeof line)
		n = sizeof line - 1;
	memcpy(line, res->err, n);
	line[n] = '\0';
	if (res->overflow) {
		snprintf(why, size, "the target's answer is longer than %d MiB: refused unread",
		    REMOTE_OUT_MAX / (1024 * 1024));
		return "machine_incompatible";
	}
	v = text_visible(line);
	if (res->timed_out)
		snprintf(why, size, "ssh did not finish within its time");
	else if (res->status == -1)
		snprintf(why, size, "cannot start " SSH_PATH);
	else
		snprintf(why, size, "%s", *v ? v : "ssh failed");
	free(v);
	if (strstr(res->err, "Host key verification failed") != NULL ||
	    strstr(res->err, "HOST IDENTIFICATION HAS CHANGED") != NULL ||
	    strstr(res->err, "Host key for ") != NULL) {
		snprintf(why, size, "the host key is not the one pinned at enrollment (ssh: "
		    "Host key verification failed)");
		return "machine_changed";
	}
	return "machine_unreachable";
}
