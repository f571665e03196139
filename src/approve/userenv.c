/* SPDX-License-Identifier: ISC */
/*
 * The environment of YOU commands (docs/design.md §7): built from the systemd user
 * manager's environment through an allowlist, or from the passwd entry
 * and a minimal base when there is no user manager; never the agent's.
 * PATH keeps only absolute directories that exist and are not
 * world-writable. Loader, shell-startup and exported-function variables
 * can never pass: they are not on the allowlist.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch.h"

#define SHOWENV_MAX	(64 * 1024)
#define USERENV_MAX	64

extern char **environ;

static const char *const allowed[] = {
	"LANG", "LANGUAGE", "TZ", "XDG_RUNTIME_DIR", "XDG_DATA_DIRS",
	"XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
	"XDG_STATE_HOME", "XDG_SESSION_TYPE", "XDG_CURRENT_DESKTOP",
	"XDG_SESSION_DESKTOP", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY",
	"WAYLAND_DISPLAY", "SSH_AUTH_SOCK", "MAIL", "PATH", NULL
};

static int
allowed_key(const char *key, size_t n)
{
	const char *const *a;

	if (n > 3 && strncmp(key, "LC_", 3) == 0)
		return 1;
	for (a = allowed; *a != NULL; a++)
		if (strlen(*a) == n && strncmp(*a, key, n) == 0)
			return 1;
	return 0;
}

/* `systemctl --user show-environment`, bounded in size and time. */
static char *
manager_environment(void)
{
	char *const argv[] = { "/usr/bin/systemctl", "--user", "show-environment", NULL };
	char *buf = xmalloc(SHOWENV_MAX + 1);
	struct spawn s = { .path = argv[0], .argv = argv, .envp = environ,
	    .group = EXEC_FOREGROUND };
	size_t len = 0;
	struct pollfd pfd;
	int p[2], status;
	ssize_t n;
	pid_t pid;

	if (access(argv[0], X_OK) != 0 || pipe2(p, O_CLOEXEC) != 0) {
		free(buf);
		return NULL;
	}
	s.fd[0] = s.fd[2] = -1;
	s.fd[1] = p[1];
	pid = spawn(&s);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		free(buf);
		return NULL;
	}
	pfd.fd = p[0];
	pfd.events = POLLIN;
	while (len < SHOWENV_MAX && poll(&pfd, 1, 2000) > 0) {
		n = read(p[0], buf + len, SHOWENV_MAX - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(p[0]);
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* PATH with only absolute, existing, not world-writable directories. */
static char *
safe_path(const char *path)
{
	char *copy = xstrdup(path), *out = xcalloc(1, strlen(path) + 1), *dir, *save;
	struct stat st;

	for (dir = strtok_r(copy, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save)) {
		if (dir[0] != '/' || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
		    (st.st_mode & S_IWOTH))
			continue;
		if (*out != '\0')
			strcat(out, ":");
		strcat(out, dir);
	}
	free(copy);
	if (*out == '\0') {
		free(out);
		out = xstrdup("/usr/bin:/bin");
	}
	return out;
}

static void
put(char **env, size_t *n, const char *key, const char *value)
{
	size_t i, k = strlen(key);

	for (i = 0; i < *n; i++)
		if (strncmp(env[i], key, k) == 0 && env[i][k] == '=') {
			free(env[i]);
			break;
		}
	if (i == *n) {
		if (*n == USERENV_MAX)
			return;
		(*n)++;
	}
	if (asprintf(&env[i], "%s=%s", key, value) < 0) {
		warnx("out of memory");
		abort();
	}
}

/* The environment for pw's YOU commands, NULL-terminated. */
char **
userenv_build(const struct passwd *pw)
{
	char **env = xcalloc(USERENV_MAX + 1, sizeof *env), *text, *line, *save, *eq;
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	char *filtered;
	size_t n = 0;

	put(env, &n, "LANG", "C.UTF-8");
	if ((text = manager_environment()) != NULL) {
		for (line = strtok_r(text, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save)) {
			eq = strchr(line, '=');
			/* systemd quotes awkward values as $'...': leave them out */
			if (eq == NULL || strncmp(eq + 1, "$'", 2) == 0 ||
			    !allowed_key(line, (size_t)(eq - line)))
				continue;
			*eq = '\0';
			if (strcmp(line, "PATH") == 0)
				path = NULL;
			put(env, &n, line, eq + 1);
			*eq = '=';
		}
	}
	if (path != NULL)
		put(env, &n, "PATH", path);
	for (size_t i = 0; i < n; i++)
		if (strncmp(env[i], "PATH=", 5) == 0) {
			filtered = safe_path(env[i] + 5);
			put(env, &n, "PATH", filtered);
			free(filtered);
			break;
		}
	free(text);
	put(env, &n, "HOME", pw->pw_dir);
	put(env, &n, "USER", pw->pw_name);
	put(env, &n, "LOGNAME", pw->pw_name);
	put(env, &n, "SHELL", pw->pw_shell != NULL && *pw->pw_shell ? pw->pw_shell : "/bin/sh");
	put(env, &n, "TERM", "dumb");
	return env;
}

void
userenv_free(char **env)
{
	size_t i;

	for (i = 0; env != NULL && env[i] != NULL; i++)
		free(env[i]);
	free(env);
}
