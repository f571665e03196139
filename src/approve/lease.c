/* SPDX-License-Identifier: ISC */
/*
 * The authentication lease: one sudo handoff at a time per user. A flock
 * on auth.lease in the state directory; the holder writes who it is, so a
 * second attempt can fail at once and name the request, user and pid.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "batch.h"

/* Returns the lease descriptor, or -1 with the holder described in
 * holder (empty when the lease file itself failed). */
int
lease_take(const char *dir, const char *request_id, char *holder, size_t size)
{
	char path[PATH_MAX], who[256];
	struct passwd *pw = getpwuid(getuid());
	ssize_t n;
	int fd;

	*holder = '\0';
	if ((size_t)snprintf(path, sizeof path, "%s/auth.lease", dir) >= sizeof path)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		warnx("%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		n = pread(fd, who, sizeof who - 1, 0);
		who[n > 0 ? n : 0] = '\0';
		who[strcspn(who, "\n")] = '\0';
		snprintf(holder, size, "%s", *who ? who : "another warrant process");
		close(fd);
		return -1;
	}
	n = snprintf(who, sizeof who, "request %s, user %s, pid %d\n", request_id,
	    pw != NULL ? pw->pw_name : "?", (int)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, who, (size_t)n, 0) != n) {
		warnx("%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

void
lease_release(int fd)
{
	if (fd < 0)
		return;
	if (ftruncate(fd, 0) != 0)
		warnx("clearing the authentication lease: %s", strerror(errno));
	close(fd);
}
