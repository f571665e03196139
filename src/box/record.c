/* SPDX-License-Identifier: ISC */
/*
 * What warrant made, recorded in the box directory (root's, 0700; see
 * secret.c), out of every user's reach, unlike the GECOS field, which
 * chfn lets a user rewrite. Warrant changes or removes only what it
 * recorded as its own:
 *
 *   NAME.user    a box user: its uid and a newline, then "created" and a
 *                newline when box init made the account (not when it was
 *                told to --adopt it, nor for records of older versions):
 *                only such an account may be deleted (box remove)
 *   GROUP.group  a requester group warrant-REVIEWER that warrant made
 *                with groupadd (only such a group has one): its gid and
 *                a newline
 *
 * A record counts only while it names the current uid or gid: a name
 * deleted and given to someone else is not warrant's. Teardown removes
 * the records, then the box directory itself once nothing in it records
 * anything (box_dir_prune).
 *
 *   retired/uid.N  uid N was a box user's that box remove deleted, and
 *   retired/gid.N  gid N its group's: the name it had and a newline.
 *                  box init never gives either again (files, a process
 *                  or a grant of the old account may still name it), so
 *                  these stay, and so does the directory holding them.
 */
#include <sys/stat.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"
#include "box/box.h"

#define RECORD_FILE_MAX	(BOX_GROUP_MAX + 8)
#define CREATED		"created\n"
#define RETIRED		"retired"
#define RETIRED_FILE_MAX 32	/* "uid." and a number */

static int
record_file(const char *name, const char *ext, char out[RECORD_FILE_MAX])
{
	int n = snprintf(out, RECORD_FILE_MAX, "%s.%s", name, ext);

	return n < 0 || n >= RECORD_FILE_MAX ? -1 : 0;
}

/* BOX_CREATED when name.ext records id as made by warrant, BOX_RECORDED
 * as adopted, 0 when there is no record for id, -1 after saying why it
 * cannot tell. */
int
box_recorded(const char *name, const char *ext, unsigned id)
{
	char file[RECORD_FILE_MAX], want[48], buf[48];
	size_t n, c = sizeof CREATED - 1;
	off_t size;
	int dfd, fd, rc = 0;

	if (record_file(name, ext, file) != 0)
		return 0;
	if ((dfd = box_dir_open(0)) == -2)
		return 0;
	if (dfd < 0)
		return -1;
	n = (size_t)snprintf(want, sizeof want, "%u\n" CREATED, id);
	if ((fd = box_open_private(dfd, file, &size)) >= 0) {
		if ((size == (off_t)n || size == (off_t)(n - c)) &&
		    box_read_exact(fd, buf, (size_t)size) == 0 &&
		    memcmp(buf, want, (size_t)size) == 0)
			rc = size == (off_t)n ? BOX_CREATED : BOX_RECORDED;
		close(fd);
	} else if (errno != ENOENT) {
		warnx("box record %s: %s", file, strerror(errno));
		rc = -1;
	}
	close(dfd);
	return rc;
}

static int
record_write(const char *name, const char *ext, unsigned id, int created)
{
	char file[RECORD_FILE_MAX], text[48];
	int dfd, n, rc = 0;

	if (record_file(name, ext, file) != 0 || (dfd = box_dir_open(1)) < 0)
		return -1;
	n = snprintf(text, sizeof text, "%u\n%s", id, created ? CREATED : "");
	if (box_replace_file(dfd, file, text, (size_t)n) != 0) {
		box_fail(strcmp(ext, "user") == 0 ? "record-user" : "record-group",
		    "writing %s: %s", file, strerror(errno));
		rc = -1;
	}
	close(dfd);
	return rc;
}

/* 1 when box init created or adopted name with this uid, 0 when not,
 * -1 after saying why it cannot tell. */
int
box_user_recorded(const char *name, uid_t uid)
{
	int rc = box_recorded(name, "user", (unsigned)uid);

	return rc > 0 ? 1 : rc;
}

/* Record name (now uid) as a box user, made by box init when created. */
int
box_user_record(const char *name, uid_t uid, int created)
{
	return record_write(name, "user", (unsigned)uid, created);
}

/* Record group (gid) as made by warrant. */
int
box_group_record(const char *group, gid_t gid)
{
	return record_write(group, "group", (unsigned)gid, 0);
}

/* Remove the record name.ext, saying so: 0 removed, 1 there was none,
 * -1 after saying why. */
int
box_unrecord(const char *name, const char *ext)
{
	char file[RECORD_FILE_MAX], dir[PATH_MAX];
	int dfd, rc = 0;

	if (record_file(name, ext, file) != 0 || box_dir_path(dir, sizeof dir) != 0)
		return -1;
	if ((dfd = box_dir_open(0)) == -2)
		return 1;
	if (dfd < 0)
		return -1;
	if (unlinkat(dfd, file, 0) == 0) {
		fsync(dfd);
		printf("record %s/%s: removed\n", dir, file);
	} else if (errno == ENOENT)
		rc = 1;
	else {
		box_fail("record", "removing %s/%s: %s", dir, file, strerror(errno));
		rc = -1;
	}
	close(dfd);
	return rc;
}

/* The retired directory, root's alone: its descriptor, -2 when there is
 * none (and create is 0), or -1 after saying why. */
static int
retired_open(int create)
{
	struct stat st;
	int dfd, fd;

	if ((dfd = box_dir_open(create)) < 0)
		return dfd;
	if (create && mkdirat(dfd, RETIRED, 0700) != 0 && errno != EEXIST) {
		warnx("cannot create the box directory's %s: %s", RETIRED, strerror(errno));
		close(dfd);
		return -1;
	}
	fd = openat(dfd, RETIRED, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0) {
		if (errno == ENOENT && !create)
			return -2;
		warnx("the box directory's %s: %s", RETIRED, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 077) != 0) {
		warnx("the box directory's %s must be owned by root with mode 0700", RETIRED);
		close(fd);
		return -1;
	}
	return fd;
}

/* 1 when box remove retired id (kind "uid" or "gid"), 0 when not, -1
 * after saying why it cannot tell. */
int
box_retired(const char *kind, unsigned id)
{
	char file[RETIRED_FILE_MAX];
	struct stat st;
	int fd, rc;

	if ((fd = retired_open(0)) == -2)
		return 0;
	if (fd < 0)
		return -1;
	snprintf(file, sizeof file, "%s.%u", kind, id);
	if (fstatat(fd, file, &st, AT_SYMLINK_NOFOLLOW) == 0)
		rc = 1;
	else if (errno == ENOENT)
		rc = 0;
	else {
		warnx("box record %s/%s: %s", RETIRED, file, strerror(errno));
		rc = -1;
	}
	close(fd);
	return rc;
}

/* The highest id of kind retired in [min, max] into *top (min - 1 when
 * none is); 0, or -1 after saying why. */
int
box_retired_top(const char *kind, long min, long max, long *top)
{
	size_t n = strlen(kind);
	struct dirent *e;
	char *end;
	long id;
	DIR *d;
	int fd;

	*top = min - 1;
	if ((fd = retired_open(0)) == -2)
		return 0;
	if (fd < 0)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		warnx("the box directory's %s: %s", RETIRED, strerror(errno));
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, kind, n) != 0 || e->d_name[n] != '.' ||
		    e->d_name[n + 1] < '0' || e->d_name[n + 1] > '9')
			continue;
		id = strtol(e->d_name + n + 1, &end, 10);
		if (*end == '\0' && id >= min && id <= max && id > *top)
			*top = id;
	}
	closedir(d);
	return 0;
}

/* Record id (kind "uid" or "gid", of name) as retired, saying so; 0, or
 * -1 after saying why. */
int
box_retire(const char *kind, unsigned id, const char *name)
{
	char file[RETIRED_FILE_MAX], dir[PATH_MAX], text[BOX_GROUP_MAX + 2];
	int fd, n, rc = 0;

	if (box_dir_path(dir, sizeof dir) != 0 || (fd = retired_open(1)) < 0)
		return -1;
	snprintf(file, sizeof file, "%s.%u", kind, id);
	n = snprintf(text, sizeof text, "%s\n", name);
	if (n < 0 || (size_t)n >= sizeof text ||
	    box_replace_file(fd, file, text, (size_t)n) != 0) {
		box_fail("retire", "writing %s/%s/%s: %s", dir, RETIRED, file,
		    strerror(errno));
		rc = -1;
	} else
		printf("%s %u: retired (%s/%s/%s: box init never gives it again)\n",
		    kind, id, dir, RETIRED, file);
	close(fd);
	return rc;
}

/*
 * 1 when the directory open at fd holds only names in keep (a directory
 * among them checked the same way with sub), 0 when it holds anything
 * else, -1 when it cannot be read.
 */
static int
holds_only(int fd, const char *const *keep, const char *subdir,
    const char *const *sub)
{
	struct dirent *e;
	const char *const *k;
	DIR *d;
	int dfd, sfd, rc = 1;

	if ((dfd = dup(fd)) < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	while (rc == 1 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (subdir != NULL && strcmp(e->d_name, subdir) == 0) {
			sfd = openat(fd, subdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
			rc = sfd < 0 ? 0 : holds_only(sfd, sub, NULL, NULL);
			if (sfd >= 0)
				close(sfd);
			continue;
		}
		for (k = keep; *k != NULL && strcmp(*k, e->d_name) != 0; k++)
			;
		if (*k == NULL)
			rc = 0;
	}
	closedir(d);
	return rc;
}

static int
unlink_if(int dfd, const char *name, int flags)
{
	return unlinkat(dfd, name, flags) == 0 || errno == ENOENT ? 0 : -1;
}

/*
 * After a teardown (box remove, requesters remove --all), with the lock
 * held or none taken: the box directory goes when it records nothing any
 * more, i.e. holds nothing but the lock, the password key (no NAME.pw is
 * left for it to open) and the box password route's seen signatures (no
 * key is left to sign with); and then /var/lib/warrant when it is the
 * default's parent and empty. Anything else there keeps it: the retired
 * ids, for one, stay for good. 0, or -1 after saying why.
 */
int
box_dir_prune(void)
{
	static const char *const top[] = { "lock", "key", NULL };
	static const char *const api[] = { BOX_API_SEEN, NULL };
	char dir[PATH_MAX];
	int dfd, rc;

	if (box_dir_path(dir, sizeof dir) != 0)
		return -1;
	if ((dfd = box_dir_open(0)) == -2)
		return 0;
	if (dfd < 0)
		return -1;
	rc = holds_only(dfd, top, BOX_API_DIR, api);
	if (rc == 1) {
		/* The lock last (still held): a run that waited for it makes
		 * the directory again when it needs one. */
		if (unlink_if(dfd, BOX_API_DIR "/" BOX_API_SEEN, 0) != 0 ||
		    unlink_if(dfd, BOX_API_DIR, AT_REMOVEDIR) != 0 ||
		    unlink_if(dfd, "key", 0) != 0 || unlink_if(dfd, "lock", 0) != 0 ||
		    rmdir(dir) != 0) {
			box_fail("box-directory", "removing %s: %s", dir, strerror(errno));
			close(dfd);
			return -1;
		}
		printf("box directory %s: removed (it recorded nothing any more)\n", dir);
		if (strcmp(dir, BOX_DIR_DEFAULT) == 0 && rmdir("/var/lib/warrant") == 0)
			printf("directory /var/lib/warrant: removed (empty)\n");
	}
	close(dfd);
	return rc < 0 ? -1 : 0;
}
