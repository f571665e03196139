/* SPDX-License-Identifier: ISC */
/*
 * The state directory: $WARRANT_HOME, else $XDG_STATE_HOME/warrant, else
 * ~/.local/state/warrant. It must be a real directory owned by the caller
 * and closed to everyone else (0700); warrant refuses to use one that is
 * not, rather than "fixing" a directory someone else may control.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-int.h"

int
state_dir(char *out, size_t size)
{
	const char *env = getenv("WARRANT_HOME"), *home;
	struct passwd pw, *res = NULL;
	char pwbuf[4096];
	int n;

	if (env != NULL && *env != '\0')
		n = snprintf(out, size, "%s", env);
	else if ((env = getenv("XDG_STATE_HOME")) != NULL && env[0] == '/')
		n = snprintf(out, size, "%s/warrant", env);
	else {
		home = getenv("HOME");
		if (home == NULL || home[0] != '/') {
			if (getpwuid_r(getuid(), &pw, pwbuf, sizeof pwbuf, &res) != 0 ||
			    res == NULL) {
				warnx("cannot find the home directory of uid %u", (unsigned)getuid());
				return -1;
			}
			home = pw.pw_dir;
		}
		n = snprintf(out, size, "%s/.local/state/warrant", home);
	}
	if (n < 0 || (size_t)n >= size || out[0] != '/') {
		warnx("state directory '%s' must be an absolute path", out);
		return -1;
	}
	return 0;
}

/* mkdir -p with mode 0700 for what it creates; on failure, the directory
 * that could not be made is left in failed. */
static int
make_dirs(const char *path, char failed[PATH_MAX])
{
	char buf[PATH_MAX];
	char *p;

	if (strlen(path) >= sizeof buf)
		return -1;
	strcpy(buf, path);
	for (p = buf + 1;; p++) {
		int last = *p == '\0';

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
			strcpy(failed, buf);
			return -1;
		}
		if (last)
			return 0;
		*p = '/';
	}
}

/* Why a directory could not be made: its parent is someone else's, or
 * the system's own reason. */
static void
say_cannot_create(const char *dir, const char *failed, int err)
{
	char parent[PATH_MAX], *slash;
	struct stat st;

	strcpy(parent, failed);
	if ((slash = strrchr(parent, '/')) != NULL)
		*(slash == parent ? slash + 1 : slash) = '\0';
	if (err == EACCES && stat(parent, &st) == 0 && st.st_uid != geteuid())
		warnx("state directory %s: cannot create %s: %s belongs to uid %u, not to you "
		    "(uid %u); set WARRANT_HOME to a directory of your own", dir, failed, parent,
		    (unsigned)st.st_uid, (unsigned)geteuid());
	else
		warnx("state directory %s: cannot create %s: %s", dir, failed, strerror(err));
}

/*
 * Create (if needed) and check the state directory; returns an O_PATH-free
 * directory descriptor, or -1 after saying why.
 */
int
state_dir_open(const char *dir)
{
	char failed[PATH_MAX] = "";
	struct stat st;
	int fd;

	if (make_dirs(dir, failed) != 0) {
		if (*failed != '\0')
			say_cannot_create(dir, failed, errno);
		else
			warnx("state directory %s: the path is too long", dir);
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		warnx("state directory %s: %s", dir,
		    errno == ELOOP || errno == ENOTDIR ? "is a symlink or not a directory" :
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		warnx("state directory %s: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		warnx("state directory %s is owned by uid %u, not by you (uid %u); refusing to use it",
		    dir, (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		return -1;
	}
	if ((st.st_mode & 077) != 0) {
		warnx("state directory %s is open to others (mode %04o); it must be 0700",
		    dir, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -1;
	}
	return fd;
}

/* Append one JSON line to requests.jsonl in dir (0600, never a symlink). */
int
state_append_jsonl(const char *dir, const json_t *j)
{
	char path[PATH_MAX], *line;
	size_t len;
	int fd, rc;

	if ((size_t)snprintf(path, sizeof path, "%s/requests.jsonl", dir) >= sizeof path)
		return -1;
	if (j == NULL || (line = json_dumps(j, JSON_COMPACT)) == NULL) {
		warnx("%s: cannot encode the line", path);
		return -1;
	}
	len = strlen(line);
	line[len] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	rc = fd < 0 ? -1 : write_all(fd, line, len + 1);
	if (fd >= 0 && close(fd) != 0)
		rc = -1;
	free(line);
	if (rc != 0)
		warnx("%s: %s", path, strerror(errno));
	return rc;
}
