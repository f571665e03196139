/* SPDX-License-Identifier: ISC */
/*
 * Requesters on other uids: root's side of a reviewer's socket
 * (docs/protocol.md, "Where, and who may connect"; docs/box.md). The group
 * warrant-REVIEWER holds the users whose agents may connect to REVIEWER's
 * warrant serve; BOX_RUN_DIR/REVIEWER (REVIEWER:warrant-REVIEWER, 2750) is
 * where that daemon binds its socket; a tmpfiles.d entry makes the
 * directory again at boot. Used by `warrant requesters` and by `warrant box
 * init --profile agent`. Every step is idempotent and says what it did.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"
#include "box/box.h"

/* Checks that refuse before anything changes. */

static int
overflow_uid(uid_t uid)
{
	return uid == 65534 || uid == 65535;
}

/* The reviewer's name (and, with host, its account here): 0 or -1 with a
 * refusal. */
int
box_req_check_reviewer(const char *reviewer, int host, struct refusal *r)
{
	char group[BOX_GROUP_MAX + 1];
	struct passwd *pw;

	if (!box_name_ok(reviewer))
		return refuse(r, "invalid_name", "--reviewer", "'%s' is not a reviewer "
		    "name warrant accepts: lowercase [a-z0-9_-], starting with [a-z_]",
		    reviewer);
	if (box_req_group(reviewer, group, sizeof group) != 0)
		return refuse(r, "invalid_name", "--reviewer", "reviewer name '%s' is "
		    "longer than %d characters: its group %s%s would pass the %d "
		    "characters of a group name", reviewer, BOX_REVIEWER_MAX,
		    BOX_REQ_GROUP, reviewer, BOX_GROUP_MAX);
	if (!host)
		return 0;
	if ((pw = getpwnam(reviewer)) == NULL)
		return refuse(r, "unknown_reviewer", "--reviewer", "there is no user "
		    "'%s' on this host", reviewer);
	if (pw->pw_uid == 0)
		return refuse(r, "root_reviewer", "--reviewer", "'%s' is root (uid 0): "
		    "the reviewer is the human who answers, and warrant serve runs as "
		    "that user, never as root", reviewer);
	if (overflow_uid(pw->pw_uid))
		return refuse(r, "system_account", "--reviewer", "'%s' (uid %u) is the "
		    "overflow user; it cannot be a reviewer", reviewer,
		    (unsigned)pw->pw_uid);
	return 0;
}

/*
 * A user to add as reviewer's requester: 0 when it may be added, 1 when it
 * is the reviewer itself (nothing to add: warrant serve takes its own uid
 * without the group), -1 with a refusal.
 */
int
box_req_check_user(const char *reviewer, const char *user, struct refusal *r)
{
	struct passwd *pw, *rev;
	uid_t uid;

	if (!box_name_ok(user))
		return refuse(r, "invalid_name", user, "'%s' is not a user name warrant "
		    "accepts: lowercase [a-z0-9_-], starting with [a-z_], at most %d "
		    "characters", user, BOX_NAME_MAX);
	if ((pw = getpwnam(user)) == NULL)
		return refuse(r, "unknown_user", user, "there is no user '%s' on this "
		    "host", user);
	if (pw->pw_uid == 0)
		return refuse(r, "root_requester", user, "'%s' is root (uid 0): warrant "
		    "serve refuses uid 0 whatever its groups, and root needs no warrant",
		    user);
	if (overflow_uid(pw->pw_uid))
		return refuse(r, "system_account", user, "'%s' (uid %u) is the overflow "
		    "user, which warrant serve refuses", user, (unsigned)pw->pw_uid);
	uid = pw->pw_uid;	/* getpwnam reuses its buffer */
	if (strcmp(user, reviewer) == 0 ||
	    ((rev = getpwnam(reviewer)) != NULL && rev->pw_uid == uid))
		return 1;
	return 0;
}

/* lstat says path is a real directory, or nothing yet: 0, or a refusal. */
static int
check_dir(const char *path, struct refusal *r)
{
	struct stat st;

	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		return refuse(r, "bad_directory", "--reviewer", "%s: %s", path,
		    strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return refuse(r, "bad_directory", "--reviewer", "%s is a symbolic link; "
		    "warrant will not follow it (remove it, then run this again)", path);
	if (!S_ISDIR(st.st_mode))
		return refuse(r, "bad_directory", "--reviewer", "%s exists and is not a "
		    "directory (remove it, then run this again)", path);
	return 0;
}

static int
tmpfiles_path(const char *reviewer, char *out, size_t size)
{
	int n = snprintf(out, size, "%s/%s%s.conf", BOX_TMPFILES_DIR, BOX_REQ_GROUP,
	    reviewer);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* What is on disk where the set-up writes: 0, or a refusal. */
int
box_req_check_dirs(const char *reviewer, struct refusal *r)
{
	char path[PATH_MAX];
	struct stat st;

	if (check_dir(BOX_RUN_DIR, r) != 0)
		return -1;
	snprintf(path, sizeof path, "%s/%s", BOX_RUN_DIR, reviewer);
	if (check_dir(path, r) != 0)
		return -1;
	if (tmpfiles_path(reviewer, path, sizeof path) != 0)
		return refuse(r, "invalid_name", "--reviewer", "reviewer name too long");
	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return refuse(r, "bad_directory", "--reviewer", "%s is a directory; the "
		    "tmpfiles.d entry goes there (remove it, then run this again)", path);
	return 0;
}

/* The steps. */

static int
ensure_group(const char *group, gid_t *gid)
{
	const char *argv[] = { PATH_GROUPADD, "--system", "--", group, NULL };
	struct group *gr;
	int made = 0;

	if ((gr = getgrnam(group)) == NULL) {
		if (box_run("groupadd", argv, NULL, 0) != 0)
			return -1;
		made = 1;
		if ((gr = getgrnam(group)) == NULL) {
			box_fail("groupadd", "group %s does not exist after groupadd", group);
			return -1;
		}
	}
	*gid = gr->gr_gid;
	/* Made here: requesters remove --all may delete it (record.c). */
	if (made && box_group_record(group, *gid) != 0)
		return -1;
	printf("group %s: %s (gid %u)\n", group, made ? "created" : "already there",
	    (unsigned)*gid);
	return 0;
}

/* Give the directory open at fd the owner and mode it must have, saying
 * what it was when that changes anything. */
static int
fix_dir(int fd, const char *path, uid_t uid, gid_t gid, mode_t mode, int made,
    const char *owner)
{
	struct stat st;
	int changed = 0;

	if (fstat(fd, &st) != 0) {
		box_fail("directory", "%s: %s", path, strerror(errno));
		return -1;
	}
	if (st.st_uid != uid || st.st_gid != gid) {
		if (fchown(fd, uid, gid) != 0) {
			box_fail("directory", "chown %s: %s", path, strerror(errno));
			return -1;
		}
		changed = 1;
	}
	/* After the chown, which may clear the set-group-ID bit. */
	if (changed || (st.st_mode & 07777) != mode) {
		if (fchmod(fd, mode) != 0) {
			box_fail("directory", "chmod %s: %s", path, strerror(errno));
			return -1;
		}
		changed = 1;
	}
	if (made)
		printf("directory %s: created (%s %04o)\n", path, owner, (unsigned)mode);
	else if (changed)
		printf("directory %s: fixed (was uid %u, gid %u, mode %04o; now %s %04o)\n",
		    path, (unsigned)st.st_uid, (unsigned)st.st_gid,
		    (unsigned)(st.st_mode & 07777), owner, (unsigned)mode);
	else
		printf("directory %s: already right (%s %04o)\n", path, owner,
		    (unsigned)mode);
	return 0;
}

/* Anything in the reviewer's directory that is not the reviewer's (say a
 * socket planted while the directory was open to others) is named. */
static void
foreign_entries(int fd, const char *path, uid_t uid)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int dfd;

	if ((dfd = dup(fd)) < 0)
		return;
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_uid != uid) {
			fprintf(stderr, "warrant: warning: %s/", path);
			text_print(stderr, e->d_name);
			fprintf(stderr, " belongs to uid %u, not the reviewer: remove it\n",
			    (unsigned)st.st_uid);
		}
	}
	closedir(d);
}

static int
open_dir(int at, const char *name, const char *path)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		box_fail("directory", "%s: %s", path, errno == ELOOP || errno == ENOTDIR ?
		    "not a directory (or a symbolic link)" : strerror(errno));
	return fd;
}

static int
ensure_dirs(const char *reviewer, uid_t ruid, gid_t gid, const char *group)
{
	char path[PATH_MAX], owner[BOX_NAME_MAX + BOX_GROUP_MAX + 2];
	int made = 0, rfd, dfd, rc = -1;

	if (mkdir(BOX_RUN_DIR, 0700) == 0)
		made = 1;
	else if (errno != EEXIST) {
		box_fail("directory", "mkdir %s: %s", BOX_RUN_DIR, strerror(errno));
		return -1;
	}
	if ((rfd = open_dir(AT_FDCWD, BOX_RUN_DIR, BOX_RUN_DIR)) < 0)
		return -1;
	if (fix_dir(rfd, BOX_RUN_DIR, 0, 0, 0755, made, "root:root") != 0)
		goto out;
	snprintf(path, sizeof path, "%s/%s", BOX_RUN_DIR, reviewer);
	made = 0;
	if (mkdirat(rfd, reviewer, 0700) == 0)
		made = 1;
	else if (errno != EEXIST) {
		box_fail("directory", "mkdir %s: %s", path, strerror(errno));
		goto out;
	}
	if ((dfd = open_dir(rfd, reviewer, path)) < 0)
		goto out;
	snprintf(owner, sizeof owner, "%s:%s", reviewer, group);
	if (fix_dir(dfd, path, ruid, gid, BOX_REV_MODE, made, owner) == 0) {
		foreign_entries(dfd, path, ruid);
		rc = 0;
	}
	close(dfd);
out:
	close(rfd);
	return rc;
}

static void
sync_path(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* The tmpfiles.d entry, written to a temporary name and renamed into place
 * (its name ends in .conf only once it is whole). */
static int
ensure_tmpfiles(const char *reviewer)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	char *text = box_tmpfiles_text(reviewer);
	struct stat st;
	int fd, existed, rc = -1;

	if (tmpfiles_path(reviewer, path, sizeof path) != 0)
		goto out;
	if (box_file_is(path, text, 0644)) {
		printf("tmpfiles %s: already right\n", path);
		rc = 0;
		goto out;
	}
	existed = lstat(path, &st) == 0;
	if (mkdir(BOX_TMPFILES_DIR, 0755) == 0) {
		if (chmod(BOX_TMPFILES_DIR, 0755) != 0) {
			box_fail("tmpfiles", "chmod %s: %s", BOX_TMPFILES_DIR, strerror(errno));
			goto out;
		}
	} else if (errno != EEXIST) {
		box_fail("tmpfiles", "mkdir %s: %s", BOX_TMPFILES_DIR, strerror(errno));
		goto out;
	}
	snprintf(tmp, sizeof tmp, "%s/.%s%s.conf.XXXXXX", BOX_TMPFILES_DIR,
	    BOX_REQ_GROUP, reviewer);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		box_fail("tmpfiles", "creating a file in %s: %s", BOX_TMPFILES_DIR,
		    strerror(errno));
		goto out;
	}
	if (write_all(fd, text, strlen(text)) != 0 || fchown(fd, 0, 0) != 0 ||
	    fchmod(fd, 0644) != 0 || fsync(fd) != 0) {
		box_fail("tmpfiles", "writing %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, path) != 0) {
		box_fail("tmpfiles", "renaming %s to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	sync_path(BOX_TMPFILES_DIR);
	printf("tmpfiles %s: %s\n", path, existed ? "rewritten (it differed)" : "written");
	rc = 0;
out:
	free(text);
	return rc;
}

/* The group, the directories and the tmpfiles.d entry of reviewer, who
 * passed box_req_check_reviewer and box_req_check_dirs. */
int
box_req_setup(const char *reviewer)
{
	char group[BOX_GROUP_MAX + 1];
	struct passwd *pw;
	uid_t ruid;
	gid_t gid;

	if (box_req_group(reviewer, group, sizeof group) != 0 ||
	    (pw = getpwnam(reviewer)) == NULL) {
		box_fail("group", "no reviewer '%s'", reviewer);
		return -1;
	}
	ruid = pw->pw_uid;
	if (ensure_group(group, &gid) != 0 || ensure_dirs(reviewer, ruid, gid, group) != 0 ||
	    ensure_tmpfiles(reviewer) != 0)
		return -1;
	return 0;
}

/* 1 when user is in reviewer's group (a member, or its primary group). */
int
box_req_member(const char *reviewer, const char *user)
{
	char group[BOX_GROUP_MAX + 1];

	return box_req_group(reviewer, group, sizeof group) == 0 &&
	    box_in_group(user, group);
}

int
box_req_add(const char *reviewer, const char *user)
{
	char group[BOX_GROUP_MAX + 1];
	const char *argv[] = { PATH_USERMOD, "-a", "-G", group, "--", user, NULL };

	if (box_req_group(reviewer, group, sizeof group) != 0)
		return -1;
	if (box_in_group(user, group)) {
		printf("requester %s: already in %s\n", user, group);
		return 0;
	}
	if (box_run("requester", argv, NULL, 0) != 0)
		return -1;
	printf("requester %s: added to %s (in its sessions started from now on)\n",
	    user, group);
	return 0;
}

int
box_req_remove(const char *reviewer, const char *user)
{
	char group[BOX_GROUP_MAX + 1];
	const char *argv[] = { PATH_GPASSWD, "-d", user, group, NULL };
	struct group *gr;
	struct passwd *pw;
	char **m;
	int member = 0;

	if (box_req_group(reviewer, group, sizeof group) != 0)
		return -1;
	if ((gr = getgrnam(group)) == NULL) {
		printf("requester %s: not in %s (there is no such group)\n", user, group);
		return 0;
	}
	for (m = gr->gr_mem; *m != NULL; m++)
		if (strcmp(*m, user) == 0)
			member = 1;
	if (member) {
		if (box_run("gpasswd", argv, NULL, 0) != 0)
			return -1;
		printf("requester %s: removed from %s (its running sessions keep the "
		    "group until they end)\n", user, group);
		return 0;
	}
	if ((pw = getpwnam(user)) != NULL && (gr = getgrnam(group)) != NULL &&
	    pw->pw_gid == gr->gr_gid) {
		box_fail("gpasswd", "%s is %s's primary group; give %s another one "
		    "(usermod -g) first", group, user, user);
		return -1;
	}
	printf("requester %s: not in %s (nothing to do)\n", user, group);
	return 0;
}

/* What is there (warrant requesters list, box status). */

static json_t *
id_name(int user, unsigned id)
{
	struct passwd *pw;
	struct group *gr;
	char num[16];

	if (user && (pw = getpwuid(id)) != NULL)
		return json_string(pw->pw_name);
	if (!user && (gr = getgrgid(id)) != NULL)
		return json_string(gr->gr_name);
	snprintf(num, sizeof num, "%u", id);
	return json_string(num);
}

static int
in_array(const json_t *a, const char *s)
{
	size_t i;

	for (i = 0; i < json_array_size(a); i++)
		if (strcmp(json_string_value(json_array_get(a, i)), s) == 0)
			return 1;
	return 0;
}

/* {"path","state","owner","group","mode"} of a directory that must be
 * uid:gid with mode (known: 0 when the expected owner is unknown). */
static json_t *
dir_state(const char *path, uid_t uid, gid_t gid, mode_t mode, int known)
{
	json_t *j = json_pack("{s:s}", "path", path);
	const char *state;
	struct stat st;
	char m[8];

	if (lstat(path, &st) != 0)
		state = errno == ENOENT ? "missing" : "unreadable";
	else if (S_ISLNK(st.st_mode))
		state = "symlink";
	else if (!S_ISDIR(st.st_mode))
		state = "not_a_directory";
	else if (known && st.st_uid == uid && st.st_gid == gid &&
	    (st.st_mode & 07777) == mode)
		state = "ok";
	else
		state = "wrong";
	json_object_set_new(j, "state", json_string(state));
	if (strcmp(state, "missing") != 0 && strcmp(state, "unreadable") != 0) {
		snprintf(m, sizeof m, "%04o", (unsigned)(st.st_mode & 07777));
		json_object_set_new(j, "owner", id_name(1, st.st_uid));
		json_object_set_new(j, "group", id_name(0, st.st_gid));
		json_object_set_new(j, "mode", json_string(m));
	}
	return j;
}

/*
 * One reviewer's set-up as it is: {"reviewer","group","gid","reviewer_exists",
 * "members","run_dir","directory","tmpfiles","ok"}. gid is null and
 * members empty when the group does not exist.
 */
json_t *
box_req_describe(const char *reviewer)
{
	char group[BOX_GROUP_MAX + 1], path[PATH_MAX];
	struct passwd *pw, *rev;
	struct group *gr;
	json_t *j, *members, *rd, *dd;
	const char *tstate;
	char *text;
	struct stat st;
	gid_t gid = 0;
	uid_t ruid = 0;
	int have_group, have_rev;
	char **m;

	if (box_req_group(reviewer, group, sizeof group) != 0)
		return NULL;
	members = json_array();
	if ((have_group = (gr = getgrnam(group)) != NULL)) {
		gid = gr->gr_gid;
		for (m = gr->gr_mem; *m != NULL; m++)
			json_array_append_new(members, json_string(*m));
		setpwent();
		while ((pw = getpwent()) != NULL)
			if (pw->pw_gid == gid && !in_array(members, pw->pw_name))
				json_array_append_new(members, json_string(pw->pw_name));
		endpwent();
	}
	if ((have_rev = (rev = getpwnam(reviewer)) != NULL))
		ruid = rev->pw_uid;
	rd = dir_state(BOX_RUN_DIR, 0, 0, 0755, 1);
	snprintf(path, sizeof path, "%s/%s", BOX_RUN_DIR, reviewer);
	dd = dir_state(path, ruid, gid, BOX_REV_MODE, have_group && have_rev);
	text = box_tmpfiles_text(reviewer);
	tmpfiles_path(reviewer, path, sizeof path);
	if (box_file_is(path, text, 0644))
		tstate = "ok";
	else if (lstat(path, &st) != 0 && errno == ENOENT)
		tstate = "missing";
	else
		tstate = "differs";
	free(text);
	j = json_pack("{s:s,s:s,s:o,s:b,s:o,s:o,s:o,s:{s:s,s:s}}", "reviewer", reviewer,
	    "group", group, "gid", have_group ? json_integer(gid) : json_null(),
	    "reviewer_exists", have_rev, "members", members, "run_dir", rd,
	    "directory", dd, "tmpfiles", "path", path, "state", tstate);
	if (j != NULL)
		json_object_set_new(j, "ok", json_boolean(have_group && have_rev &&
		    strcmp(json_str(rd, "state"), "ok") == 0 &&
		    strcmp(json_str(dd, "state"), "ok") == 0 &&
		    strcmp(tstate, "ok") == 0));
	return j;
}

/* The reviewers whose group (warrant-NAME, NAME a name warrant accepts)
 * exists; with user, only those whose group holds it. */
json_t *
box_req_reviewers(const char *user)
{
	char group[BOX_GROUP_MAX + 1];
	json_t *names = json_array(), *out = json_array();
	struct group *gr;
	const char *rev;
	size_t i;

	setgrent();
	while ((gr = getgrent()) != NULL) {
		rev = gr->gr_name + sizeof BOX_REQ_GROUP - 1;
		if (strncmp(gr->gr_name, BOX_REQ_GROUP, sizeof BOX_REQ_GROUP - 1) == 0 &&
		    box_req_group(rev, group, sizeof group) == 0)
			json_array_append_new(names, json_string(rev));
	}
	endgrent();
	for (i = 0; i < json_array_size(names); i++) {
		rev = json_string_value(json_array_get(names, i));
		if (user == NULL || box_req_member(rev, user))
			json_array_append_new(out, json_string(rev));
	}
	json_decref(names);
	return out;
}

/* box_req_describe of every reviewer with a group. */
json_t *
box_req_all(void)
{
	json_t *names = box_req_reviewers(NULL), *out = json_array(), *one;
	size_t i;

	for (i = 0; i < json_array_size(names); i++)
		if ((one = box_req_describe(json_string_value(json_array_get(names, i)))) != NULL)
			json_array_append_new(out, one);
	json_decref(names);
	return out;
}

/* Taking a reviewer's set-up down (requesters remove --all). */

/* The package's own tmpfiles.d entry for BOX_RUN_DIR (debian/warrant.tmpfiles):
 * while it is installed, the directory is the package's to remove. */
#define BOX_PKG_TMPFILES "/usr/lib/tmpfiles.d/warrant.conf"

/* 1 when something (a warrant serve) listens on the socket at path, even
 * one too busy to take the connection now (EAGAIN: non-blocking, so a
 * wedged daemon cannot hang this); 0 when nothing does (ECONNREFUSED). */
static int
socket_answers(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, rc;

	if ((size_t)snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path) >=
	    sizeof sa.sun_path)
		return 0;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return 1;	/* cannot tell: keep it */
	rc = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ||
	    (errno != ECONNREFUSED && errno != ENOENT);
	close(fd);
	return rc;
}

/* The reviewer's directory may go: it holds nothing, or only the socket of
 * a daemon that stopped without removing it. 0, or a refusal. */
static int
check_rev_dir(const char *path, struct refusal *r)
{
	char sock[PATH_MAX + 256];	/* path, "/", a d_name */
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd, rc = 0;

	if (check_dir(path, r) != 0)
		return -1;
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : refuse(r, "bad_directory", "--reviewer",
		    "%s: %s", path, strerror(errno));
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return refuse(r, "bad_directory", "--reviewer", "%s: %s", path,
		    strerror(errno));
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(sock, sizeof sock, "%s/%s", path, e->d_name);
		if (strcmp(e->d_name, BOX_SOCKET) != 0 ||
		    fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISSOCK(st.st_mode))
			rc = refuse(r, "directory_not_empty", "--reviewer", "%s holds %s, "
			    "which is not warrant's to remove: look at it, remove it, then "
			    "run this again", path, sock);
		else if (socket_answers(sock))
			rc = refuse(r, "daemon_running", "--reviewer", "a warrant serve "
			    "answers on %s: stop the reviewer's daemon first (docs/setup.md, "
			    "\"Taking it down\")", sock);
	}
	closedir(d);
	return rc;
}

/*
 * Whether reviewer's set-up can be taken down: its group, if there, is
 * one warrant made (its record) and nobody's primary group; its directory
 * holds nothing but a dead socket; its tmpfiles.d entry, if there, is the
 * one warrant writes. 0, or a refusal; nothing has changed.
 */
int
box_req_check_teardown(const char *reviewer, struct refusal *r)
{
	char group[BOX_GROUP_MAX + 1], path[PATH_MAX];
	struct passwd *pw;
	struct group *gr;
	struct stat st;
	char *text;
	gid_t gid;
	int rc;

	if (box_req_group(reviewer, group, sizeof group) != 0 ||
	    tmpfiles_path(reviewer, path, sizeof path) != 0)
		return refuse(r, "invalid_name", "--reviewer", "reviewer name too long");
	if ((gr = getgrnam(group)) != NULL) {
		gid = gr->gr_gid;
		if ((rc = box_recorded(group, "group", gid)) < 0)
			return refuse(r, "bad_box_dir", "--reviewer", "the box directory "
			    "cannot be read (see above); nothing changed");
		if (rc == 0)
			return refuse(r, "not_warrant_group", "--reviewer", "group %s (gid "
			    "%u) was not made by warrant (no record of it), so it is not "
			    "warrant's to delete; nothing changed (groupdel it yourself if "
			    "it is no longer needed, then run this again)", group,
			    (unsigned)gid);
		setpwent();
		while ((pw = getpwent()) != NULL && pw->pw_gid != gid)
			;
		rc = pw != NULL ? refuse(r, "primary_group", "--reviewer", "%s is the "
		    "primary group of '%s': give it another one (usermod -g) first",
		    group, pw->pw_name) : 0;
		endpwent();
		if (rc != 0)
			return -1;
	}
	text = box_tmpfiles_text(reviewer);
	rc = lstat(path, &st) == 0 && !box_file_is(path, text, 0644);
	free(text);
	if (rc)
		return refuse(r, "tmpfiles_differs", "--reviewer", "%s is not the entry "
		    "warrant writes (someone changed it): look at it and remove it "
		    "yourself, then run this again", path);
	snprintf(path, sizeof path, "%s/%s", BOX_RUN_DIR, reviewer);
	return check_rev_dir(path, r);
}

/* The requesters of group, "a, b", or "none", into out. */
static void
members_text(const struct group *gr, char *out, size_t size)
{
	size_t n = 0;
	char **m;

	snprintf(out, size, "none");
	for (m = gr->gr_mem; *m != NULL && n < size; m++)
		n += (size_t)snprintf(out + n, size - n, "%s%s", n > 0 ? ", " : "", *m);
}

/*
 * Take down what box_req_setup made for reviewer, which passed
 * box_req_check_teardown: the directory (and a dead socket in it), the
 * tmpfiles.d entry, the group and its record, /run/warrant when it is
 * empty and not the package's, the box directory when it records nothing
 * more. One line for each thing removed, or one saying nothing was there;
 * 0, or -1 after naming the step that failed.
 */
int
box_req_teardown(const char *reviewer)
{
	char group[BOX_GROUP_MAX + 1], path[PATH_MAX], who[512];
	const char *argv[] = { PATH_GROUPDEL, "--", group, NULL };
	struct group *gr;
	struct stat st;
	int fd, removed = 0, rc;
	gid_t gid;

	if (box_req_group(reviewer, group, sizeof group) != 0)
		return -1;
	snprintf(path, sizeof path, "%s/%s", BOX_RUN_DIR, reviewer);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		if (unlinkat(fd, BOX_SOCKET, 0) == 0)
			printf("socket %s/%s: removed (no daemon answered on it)\n", path,
			    BOX_SOCKET);
		close(fd);
	}
	if (rmdir(path) == 0) {
		printf("directory %s: removed\n", path);
		removed++;
	} else if (errno != ENOENT) {
		box_fail("directory", "removing %s: %s", path, strerror(errno));
		return -1;
	}
	if (tmpfiles_path(reviewer, path, sizeof path) != 0)
		return -1;
	if (unlink(path) == 0) {
		sync_path(BOX_TMPFILES_DIR);
		printf("tmpfiles %s: removed\n", path);
		removed++;
	} else if (errno != ENOENT) {
		box_fail("tmpfiles", "removing %s: %s", path, strerror(errno));
		return -1;
	}
	if ((gr = getgrnam(group)) != NULL) {
		gid = gr->gr_gid;
		members_text(gr, who, sizeof who);
		if (box_run("groupdel", argv, NULL, 0) != 0)
			return -1;
		printf("group %s: removed (gid %u; requesters who lose it: %s)\n", group,
		    (unsigned)gid, who);
		removed++;
	}
	if ((rc = box_unrecord(group, "group")) < 0)
		return -1;
	removed += rc == 0;
	/* Empty: no other reviewer's directory is in it. */
	if (lstat(BOX_PKG_TMPFILES, &st) != 0 && rmdir(BOX_RUN_DIR) == 0) {
		printf("directory %s: removed (empty)\n", BOX_RUN_DIR);
		removed++;
	}
	if (removed == 0)
		printf("reviewer %s: nothing to remove (no group, directory or tmpfiles "
		    "entry of warrant's)\n", reviewer);
	return box_dir_prune();
}
