/* SPDX-License-Identifier: ISC */
/*
 * The authentication lease: one sudo handoff at a time per user. A flock
 * on auth.lease in the state directory; the holder writes who it is, so a
 * second attempt can fail at once and name the request, user and pid. A
 * run by grants has nobody to tell: it waits for the lease instead.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"

/*
 * Returns the lease descriptor; LEASE_HELD with the holder described in
 * holder (while it is held past wait_until: 0 fails at once); LEASE_FAILED
 * with errno when the lease file itself cannot be used (a full disk, say:
 * nobody holds it), its path in path.
 */
int
lease_take(const char *dir, const char *request_id, time_t wait_until, char *holder,
    size_t size, char path[PATH_MAX])
{
	static const struct timespec poll = { 0, 200 * 1000 * 1000 };
	struct passwd *pw = getpwuid(getuid());
	char who[256];
	ssize_t n;
	int fd, e;

	*holder = '\0';
	if ((size_t)snprintf(path, PATH_MAX, "%s/auth.lease", dir) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return LEASE_FAILED;
	}
	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return LEASE_FAILED;
	while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK && time(NULL) < wait_until) {
			nanosleep(&poll, NULL);
			continue;
		}
		n = pread(fd, who, sizeof who - 1, 0);
		who[n > 0 ? n : 0] = '\0';
		who[strcspn(who, "\n")] = '\0';
		snprintf(holder, size, "%s", *who ? who : "another warrant process");
		close(fd);
		return LEASE_HELD;
	}
	n = snprintf(who, sizeof who, "request %s, user %s, pid %d\n", request_id,
	    pw != NULL ? pw->pw_name : "?", (int)getpid());
	errno = 0;
	if (ftruncate(fd, 0) != 0 || pwrite(fd, who, (size_t)n, 0) != n) {
		e = errno != 0 ? errno : EIO;	/* a short write says nothing */
		close(fd);
		errno = e;
		return LEASE_FAILED;
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
