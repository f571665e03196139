/* SPDX-License-Identifier: ISC */
/*
 * box init on this host: checks that refuse before anything changes, then
 * the steps, each idempotent and each named when it fails. The order keeps
 * every intermediate state consistent: a password is applied before the
 * NOPASSWD drop-in goes, and the drop-in is back before a password is
 * locked, so sudo is never both passwordless-by-rule and password-gated by
 * a password nobody stored.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <shadow.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/crypto.h>

#include "warrant.h"
#include "box/box.h"

struct account {
	char	 name[BOX_NAME_MAX + 1];
	uid_t	 uid;
	gid_t	 gid;
	char	 home[PATH_MAX];
	char	 shell[PATH_MAX];
};

static int
account_get(const char *name, struct account *a)
{
	struct passwd *pw = getpwnam(name);

	if (pw == NULL)
		return -1;
	snprintf(a->name, sizeof a->name, "%s", pw->pw_name);
	a->uid = pw->pw_uid;
	a->gid = pw->pw_gid;
	snprintf(a->home, sizeof a->home, "%s", pw->pw_dir);
	snprintf(a->shell, sizeof a->shell, "%s", pw->pw_shell);
	return 0;
}

/* Checks that need nothing of this host: also run for --script. */
int
box_check_spec(const struct box_spec *s, struct refusal *r)
{
	char clean[BOX_NAME_MAX + 1];
	const char *why;

	if (!box_name_ok(s->name)) {
		box_username(s->name, clean);
		return refuse(r, "invalid_name", "--user", "'%s' is not a box user "
		    "name: names are lowercase [a-z0-9_-], start with [a-z_] and "
		    "have at most %d characters; use '%s' (see warrant box username)",
		    s->name, BOX_NAME_MAX, clean);
	}
	if (s->uid >= 0 && !box_id_ok(s->uid))
		return refuse(r, "bad_uid", "--uid", "uid %ld is reserved: a box user "
		    "needs a uid from %d to %ld, not 65534 or 65535", s->uid,
		    BOX_ID_MIN, BOX_ID_MAX);
	if (s->gid >= 0 && !box_id_ok(s->gid))
		return refuse(r, "bad_gid", "--gid", "gid %ld is reserved: a box user "
		    "needs a gid from %d to %ld, not 65534 or 65535", s->gid,
		    BOX_ID_MIN, BOX_ID_MAX);
	if (s->home != NULL && (why = box_home_check(s->home)) != NULL)
		return refuse(r, "bad_home", "--home", "home '%s' refused: %s",
		    s->home, why);
	if (s->shell != NULL && (why = box_path_check(s->shell)) != NULL)
		return refuse(r, "bad_shell", "--shell", "shell '%s' refused: %s",
		    s->shell, why);
	if (s->profile == BOX_PROFILE_AGENT) {
		if (box_req_check_reviewer(s->reviewer, 0, r) != 0)
			return -1;
		if (strcmp(s->reviewer, s->name) == 0)
			return refuse(r, "same_user", "--reviewer", "the box user '%s' "
			    "cannot be its own reviewer: the agent profile keeps the "
			    "agent and the human who approves apart", s->name);
	}
	return 0;
}

/* An existing account named name must be an ordinary one. */
int
box_check_account(const char *name, struct refusal *r)
{
	struct passwd *pw = getpwnam(name);

	if (pw != NULL && !box_id_ok((long)pw->pw_uid))
		return refuse(r, "system_account", "--user", "'%s' is a system "
		    "account (uid %u); a box user must be an ordinary account with a "
		    "uid of at least %d", name, (unsigned)pw->pw_uid, BOX_ID_MIN);
	return 0;
}

const char *
box_admin_group(void)
{
	if (getgrnam("wheel") != NULL)
		return "wheel";
	if (getgrnam("sudo") != NULL)
		return "sudo";
	return NULL;
}

int
box_in_group(const char *name, const char *group)
{
	struct group *gr = getgrnam(group);
	struct passwd *pw;
	char **m;

	if (gr == NULL)
		return 0;
	for (m = gr->gr_mem; *m != NULL; m++)
		if (strcmp(*m, name) == 0)
			return 1;
	pw = getpwnam(name);
	return pw != NULL && pw->pw_gid == gr->gr_gid;
}

static int
marker_present(const char *home)
{
	char path[PATH_MAX];
	struct stat st;
	int n = snprintf(path, sizeof path, "%s/%s", home, BOX_MARKER);

	return n > 0 && (size_t)n < sizeof path && lstat(path, &st) == 0;
}

/* 1 when the directory at path holds nothing, 0 when it holds something,
 * -1 when it cannot be read. */
static int
dir_empty(const char *path)
{
	struct dirent *e;
	DIR *d;
	int fd, rc = 1;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			rc = 0;
			break;
		}
	}
	closedir(d);
	return rc;
}

/*
 * What is on disk at a home that passed box_home_check. Every directory
 * above it exists and is a real directory (no symbolic link on the way),
 * root's and writable by no one else, so nobody but root can swap the
 * home between this check and the migration. The home itself, when it
 * exists, is a real directory that is the box user's (uid a, the account's,
 * or b, the --uid given; -1 for none), or root's and empty: init never
 * hands over files that were not the box user's.
 */
static int
check_home(const char *home, long a, long b, struct refusal *r)
{
	char dir[PATH_MAX];
	const char *p;
	struct stat st;
	size_t n;
	int empty;

	for (p = home; p != NULL; p = strchr(p + 1, '/')) {
		n = p == home ? 1 : (size_t)(p - home);
		memcpy(dir, home, n);
		dir[n] = '\0';
		if (lstat(dir, &st) != 0)
			return refuse(r, "bad_home", "--home", "home %s refused: %s: %s",
			    home, dir, strerror(errno));
		if (S_ISLNK(st.st_mode))
			return refuse(r, "bad_home", "--home", "home %s refused: %s is "
			    "a symbolic link", home, dir);
		if (!S_ISDIR(st.st_mode))
			return refuse(r, "bad_home", "--home", "home %s refused: %s is "
			    "not a directory", home, dir);
		if (st.st_uid != 0 || (st.st_mode & 022) != 0)
			return refuse(r, "home_parent_unsafe", "--home", "home %s "
			    "refused: %s belongs to uid %u with mode %04o; the "
			    "directories above a box home must be root's and writable "
			    "by no one else", home, dir, (unsigned)st.st_uid,
			    (unsigned)(st.st_mode & 07777));
	}
	if (lstat(home, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		return refuse(r, "bad_home", "--home", "home %s: %s", home, strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return refuse(r, "bad_home", "--home", "home %s is a symbolic link", home);
	if (!S_ISDIR(st.st_mode))
		return refuse(r, "bad_home", "--home", "home %s is not a directory", home);
	if ((a >= 0 && st.st_uid == (uid_t)a) || (b >= 0 && st.st_uid == (uid_t)b))
		return 0;
	if (st.st_uid != 0)
		return refuse(r, "home_owned_by_other", "--home", "home %s belongs to "
		    "uid %u, neither root nor the box user; box init will not hand it "
		    "over", home, (unsigned)st.st_uid);
	if ((empty = dir_empty(home)) < 0)
		return refuse(r, "bad_home", "--home", "home %s: %s", home, strerror(errno));
	if (!empty)
		return refuse(r, "home_not_empty", "--home", "home %s is root's and "
		    "holds files; box init will not hand them to the box user (give "
		    "an empty or new directory, or one the box user owns)", home);
	return 0;
}

/* No other account's home is home or lies below it, even one not made
 * yet: the box user would own it, or the directory holding it. */
static int
home_in_use(const char *name, const char *home, struct refusal *r)
{
	struct passwd *pw;
	size_t n = strlen(home);
	int rc = 0;

	setpwent();
	while ((pw = getpwent()) != NULL) {
		if (strcmp(pw->pw_name, name) != 0 && strncmp(pw->pw_dir, home, n) == 0 &&
		    (pw->pw_dir[n] == '\0' || pw->pw_dir[n] == '/')) {
			rc = refuse(r, "home_in_use", "--home", "home %s refused: it is, "
			    "or holds, the home of '%s' (%s)", home, pw->pw_name, pw->pw_dir);
			break;
		}
	}
	endpwent();
	return rc;
}

/* Whether box init created (or adopted) name, which exists with uid:
 * 1 yes, 0 no, or -1 with a refusal. */
static int
recorded(const char *name, uid_t uid, struct refusal *r)
{
	int rc = box_user_recorded(name, uid);

	if (rc < 0)
		refuse(r, "bad_box_dir", "--user", "the box directory cannot be read "
		    "(see above); nothing changed");
	return rc;
}

/* passwd: an existing account must be a box user, created or adopted by
 * box init; a human's password is not warrant's to set or lock. */
int
box_check_owned(const char *name, struct refusal *r)
{
	struct passwd *pw = getpwnam(name);
	int rc;

	if (pw == NULL)
		return 0;
	if ((rc = recorded(name, pw->pw_uid, r)) < 0)
		return -1;
	if (rc == 0)
		return refuse(r, "not_box_user", "--user", "'%s' (uid %u) was not "
		    "created by warrant box; its password is not warrant's to change "
		    "(to make it a box user: warrant box init --user %s --adopt)",
		    name, (unsigned)pw->pw_uid, name);
	return 0;
}

/* The agent profile: a reviewer that can be one, a socket directory that
 * can be made, and an account that can leave the admin group. */
static int
check_agent(const struct box_spec *s, const struct account *a, struct refusal *r)
{
	static const char *const admin[] = { "wheel", "sudo" };
	struct passwd *rev;
	struct group *gr;
	long gid;
	size_t i;

	if (box_req_check_reviewer(s->reviewer, 1, r) != 0)
		return -1;
	rev = getpwnam(s->reviewer);
	if (rev != NULL && ((a != NULL && rev->pw_uid == a->uid) ||
	    (s->uid >= 0 && rev->pw_uid == (uid_t)s->uid)))
		return refuse(r, "same_user", "--reviewer", "'%s' has the uid of the "
		    "box user '%s': the agent profile keeps the agent and the human "
		    "who approves apart", s->reviewer, s->name);
	gid = s->gid >= 0 ? s->gid : a != NULL ? (long)a->gid : -1;
	for (i = 0; i < sizeof admin / sizeof admin[0]; i++)
		if ((gr = getgrnam(admin[i])) != NULL && gid == (long)gr->gr_gid)
			return refuse(r, "admin_primary_group", "--user", "'%s' would "
			    "have the admin group %s as its primary group, which the "
			    "agent profile cannot take away", s->name, admin[i]);
	return box_req_check_dirs(s->reviewer, r);
}

/* An id given to box init that box remove retired is refused. */
static int
check_retired(const char *kind, long id, struct refusal *r)
{
	int rc = box_retired(kind, (unsigned)id);

	if (rc < 0)
		return refuse(r, "bad_box_dir", "--user", "the box directory cannot be "
		    "read (see above); nothing changed");
	if (rc == 0)
		return 0;
	return refuse(r, kind[0] == 'u' ? "uid_retired" : "gid_retired",
	    kind[0] == 'u' ? "--uid" : "--gid", "%s %ld was a box user's that box "
	    "remove deleted (retired/%s.%ld in the box directory): warrant never "
	    "gives it again, since files of the old account may still bear it; "
	    "choose another, or leave out --%s for a fresh one; nothing changed",
	    kind, id, kind, id, kind);
}

/* Checks against this host's accounts; nothing has changed yet. */
int
box_check_host(const struct box_spec *s, struct refusal *r)
{
	struct account a;
	struct passwd *pw;
	struct group *gr;
	struct stat st;
	char home[PATH_MAX], why_container[128];
	const char *why;
	int exists, rec = 1;

	if (box_check_account(s->name, r) != 0)
		return -1;
	exists = account_get(s->name, &a) == 0;
	if (exists && (rec = recorded(s->name, a.uid, r)) < 0)
		return -1;
	if (exists && rec == 0 && !s->adopt)
		return refuse(r, "not_box_user", "--user", "'%s' (uid %u) exists and "
		    "was not created by warrant box: init would change its groups "
		    "and sudo rules and make its home its own; give --adopt to make "
		    "it a box user anyway", s->name, (unsigned)a.uid);
	if (s->uid >= 0 && (pw = getpwuid((uid_t)s->uid)) != NULL &&
	    strcmp(pw->pw_name, s->name) != 0)
		return refuse(r, "uid_in_use", "--uid", "uid %ld belongs to '%s'",
		    s->uid, pw->pw_name);
	if (s->uid >= 0 && !(exists && a.uid == (uid_t)s->uid) &&
	    check_retired("uid", s->uid, r) != 0)
		return -1;
	if (s->gid >= 0 && !(exists && a.gid == (gid_t)s->gid) &&
	    check_retired("gid", s->gid, r) != 0)
		return -1;
	if (s->gid < 0 && !exists && (gr = getgrnam(s->name)) != NULL &&
	    !box_id_ok((long)gr->gr_gid))
		return refuse(r, "system_group", "--user", "'%s' is a system group "
		    "(gid %u); it cannot be a box user's group", s->name,
		    (unsigned)gr->gr_gid);
	if (s->gid >= 0 && getgrgid((gid_t)s->gid) == NULL &&
	    (gr = getgrnam(s->name)) != NULL)
		return refuse(r, "group_conflict", "--gid", "group '%s' exists with "
		    "gid %u, not %ld", s->name, (unsigned)gr->gr_gid, s->gid);
	if (s->shell != NULL && (stat(s->shell, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_mode & 0111) == 0))
		return refuse(r, "bad_shell", "--shell", "shell %s is not an "
		    "executable file", s->shell);
	if (s->shell == NULL && !exists && access(BOX_SHELL, X_OK) != 0)
		return refuse(r, "bad_shell", "--shell", "%s is missing; give --shell",
		    BOX_SHELL);
	if (s->home != NULL)
		snprintf(home, sizeof home, "%s", s->home);
	else if (exists)
		snprintf(home, sizeof home, "%s", a.home);
	else
		snprintf(home, sizeof home, "/home/%s", s->name);
	if ((why = box_home_check(home)) != NULL)
		return refuse(r, "bad_home", "--home", "home '%s' refused: %s", home, why);
	if (home_in_use(s->name, home, r) != 0 ||
	    check_home(home, exists ? (long)a.uid : -1, s->uid, r) != 0)
		return -1;
	if (s->profile == BOX_PROFILE_AGENT)
		return check_agent(s, exists ? &a : NULL, r);
	if (!box_in_container(why_container, sizeof why_container))
		return refuse(r, "not_a_container", "--profile", "this machine is not "
		    "a container (no /run/.containerenv, no /.dockerenv, and "
		    "systemd-detect-virt -c says none): --profile container would give "
		    "'%s' root without a password on this host; use --profile agent "
		    "here, or --script to pipe the container set-up into a container",
		    s->name);
	if (box_admin_group() == NULL)
		return refuse(r, "no_admin_group", "--user", "neither group wheel nor "
		    "group sudo exists here");
	if (stat(BOX_SUDOERS_DIR, &st) != 0 || access(PATH_VISUDO, X_OK) != 0)
		return refuse(r, "no_sudo", "--user", "sudo is not installed here "
		    "(%s or %s is missing)", BOX_SUDOERS_DIR, PATH_VISUDO);
	return 0;
}

/* The number /etc/login.defs gives key, or def. */
static long
login_defs(const char *key, long def)
{
	char line[256];
	long v = def;
	FILE *f;

	if ((f = fopen("/etc/login.defs", "re")) == NULL)
		return def;
	while (fgets(line, sizeof line, f) != NULL)
		(void)box_login_defs_line(line, key, &v);
	fclose(f);
	return v;
}

/* Has an account (a group, with arg pointing at a non-zero int) id, or
 * did box remove retire it, or may a box user not have it at all? */
static int
id_taken(long id, void *arg)
{
	int group = *(int *)arg;

	if (!box_id_ok(id))
		return 1;
	if (group ? getgrgid((gid_t)id) != NULL : getpwuid((uid_t)id) != NULL)
		return 1;
	return box_retired(group ? "gid" : "uid", (unsigned)id) != 0;
}

/* A uid (group 0) or gid nobody has and warrant never retired, prefer
 * when it is one, in the range useradd gives from (login.defs); -1 after
 * naming the step. */
static long
fresh_id(int group, long prefer)
{
	const char *kind = group ? "gid" : "uid";
	long min = login_defs(group ? "GID_MIN" : "UID_MIN", 1000);
	long max = login_defs(group ? "GID_MAX" : "UID_MAX", 60000), top, id;
	struct passwd *pw;
	struct group *gr;

	if (min < BOX_ID_MIN)
		min = BOX_ID_MIN;
	if (max > BOX_ID_MAX)
		max = BOX_ID_MAX;
	if (box_retired_top(kind, min, max, &top) != 0)
		return -1;
	if (group) {
		setgrent();
		while ((gr = getgrent()) != NULL)
			if ((long)gr->gr_gid <= max && (long)gr->gr_gid > top)
				top = (long)gr->gr_gid;
		endgrent();
	} else {
		setpwent();
		while ((pw = getpwent()) != NULL)
			if ((long)pw->pw_uid <= max && (long)pw->pw_uid > top)
				top = (long)pw->pw_uid;
		endpwent();
	}
	if ((id = box_id_pick(min, max, prefer, top, id_taken, &group)) < 0)
		box_fail(group ? "choose-gid" : "choose-uid", "no %s from %ld to %ld is "
		    "free and unretired", kind, min, max);
	return id;
}

/* A new account's ids: those given, else a fresh uid, and for a new group
 * of its name a fresh gid (the uid when that is free). */
static int
choose_ids(struct box_spec *s)
{
	if (s->uid < 0 && (s->uid = fresh_id(0, -1)) < 0)
		return -1;
	if (s->gid < 0 && getgrnam(s->name) == NULL && (s->gid = fresh_id(1, s->uid)) < 0)
		return -1;
	return 0;
}

static int
ensure_group(const struct box_spec *s)
{
	const char *argv[] = { PATH_GROUPADD, "-g", NULL, "--", s->name, NULL };
	char gid[32];

	if (s->gid < 0 || getgrgid((gid_t)s->gid) != NULL)
		return 0;
	snprintf(gid, sizeof gid, "%ld", s->gid);
	argv[2] = gid;
	return box_run("groupadd", argv, NULL, 0);
}

static int
create_user(const struct box_spec *s)
{
	const char *argv[16];
	char home[PATH_MAX], uid[32], gid[32];
	struct stat st;
	int n = 0;

	if (s->home != NULL)
		snprintf(home, sizeof home, "%s", s->home);
	else
		snprintf(home, sizeof home, "/home/%s", s->name);
	argv[n++] = PATH_USERADD;
	argv[n++] = "-c";
	argv[n++] = BOX_COMMENT;
	argv[n++] = "-d";
	argv[n++] = home;
	argv[n++] = "-s";
	argv[n++] = s->shell != NULL ? s->shell : BOX_SHELL;
	snprintf(uid, sizeof uid, "%ld", s->uid);	/* choose_ids gave one */
	argv[n++] = "-u";
	argv[n++] = uid;
	/* choose_ids gave a gid unless a group of the name is there */
	argv[n++] = "-g";
	if (s->gid >= 0) {
		snprintf(gid, sizeof gid, "%ld", s->gid);
		argv[n++] = gid;
	} else
		argv[n++] = s->name;
	/* An existing home is kept as it is: no skeleton copied into it. */
	argv[n++] = lstat(home, &st) == 0 ? "-M" : "-m";
	argv[n++] = "--";
	argv[n++] = s->name;
	argv[n] = NULL;
	return box_run("useradd", argv, NULL, 0);
}

static int
update_user(const struct box_spec *s, const struct account *a)
{
	const char *argv[16];
	char uid[32], gid[32];
	int n = 0;

	argv[n++] = PATH_USERMOD;
	if (s->uid >= 0 && (uid_t)s->uid != a->uid) {
		snprintf(uid, sizeof uid, "%ld", s->uid);
		argv[n++] = "-u";
		argv[n++] = uid;
	}
	if (s->gid >= 0 && (gid_t)s->gid != a->gid) {
		snprintf(gid, sizeof gid, "%ld", s->gid);
		argv[n++] = "-g";
		argv[n++] = gid;
	}
	if (s->home != NULL && strcmp(s->home, a->home) != 0) {
		argv[n++] = "-d";	/* without -m: the new home is not filled */
		argv[n++] = s->home;
	}
	if (s->shell != NULL && strcmp(s->shell, a->shell) != 0) {
		argv[n++] = "-s";
		argv[n++] = s->shell;
	}
	if (n == 1)
		return 0;
	argv[n++] = "--";
	argv[n++] = s->name;
	argv[n] = NULL;
	return box_run("usermod", argv, NULL, 0);
}

static int
ensure_admin(const char *name)
{
	const char *group = box_admin_group();
	const char *argv[] = { PATH_USERMOD, "-a", "-G", group, "--", name, NULL };

	if (group == NULL) {
		box_fail("admin-group", "neither group wheel nor group sudo exists");
		return -1;
	}
	if (box_in_group(name, group))
		return 0;
	return box_run("admin-group", argv, NULL, 0);
}

/* The one-time ownership migration, guarded by a marker directory in the
 * home: mkdirat never follows a symlink and fails if anything is there. */
static int
ensure_home(const struct account *a)
{
	const char *argv[] = { PATH_CHOWN, "-R", "-P", "-h", NULL, "--", a->home, NULL };
	char owner[64];
	struct stat st;
	int fd;

	if (lstat(a->home, &st) != 0) {
		if (errno != ENOENT || mkdir(a->home, 0700) != 0 ||
		    lchown(a->home, a->uid, a->gid) != 0) {
			box_fail("home", "%s: %s", a->home, strerror(errno));
			return -1;
		}
	} else if (!S_ISDIR(st.st_mode)) {
		box_fail("home", "%s is not a directory", a->home);
		return -1;
	}
	if (marker_present(a->home))
		return 0;
	/* As box_check_host found it; checked again right before the walk. */
	if (lstat(a->home, &st) != 0 || S_ISLNK(st.st_mode) || (st.st_uid != a->uid &&
	    (st.st_uid != 0 || dir_empty(a->home) != 1))) {
		box_fail("home-migration", "%s is neither %s's nor root's and empty",
		    a->home, a->name);
		return -1;
	}
	snprintf(owner, sizeof owner, "%u:%u", (unsigned)a->uid, (unsigned)a->gid);
	argv[4] = owner;
	if (box_run("home-migration", argv, NULL, 0) != 0)
		return -1;
	if ((fd = open(a->home, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (mkdirat(fd, BOX_MARKER, 0700) != 0 && errno != EEXIST) ||
	    fchownat(fd, BOX_MARKER, a->uid, a->gid, AT_SYMLINK_NOFOLLOW) != 0) {
		box_fail("home-migration", "marker %s/%s: %s", a->home, BOX_MARKER,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Out of wheel and sudo (an earlier box init, or the container profile,
 * put it there): the agent profile, and box remove; why ends the line.
 * How many it left, or -1. */
int
box_drop_admin(const char *name, const char *why)
{
	static const char *const admin[] = { "wheel", "sudo" };
	const char *argv[] = { PATH_GPASSWD, "-d", name, NULL, NULL };
	struct group *gr;
	char **m;
	size_t i;
	int member, left = 0;

	for (i = 0; i < sizeof admin / sizeof admin[0]; i++) {
		if ((gr = getgrnam(admin[i])) == NULL)
			continue;
		for (member = 0, m = gr->gr_mem; *m != NULL; m++)
			if (strcmp(*m, name) == 0)
				member = 1;
		if (!member)
			continue;
		argv[3] = admin[i];
		if (box_run("drop-admin", argv, NULL, 0) != 0)
			return -1;
		printf("%s: removed from the admin group %s (%s)\n", name, admin[i], why);
		left++;
	}
	return left;
}

static int
drop_dropin(const char *name)
{
	char path[PATH_MAX];

	if (!box_dropin_present(name))
		return 0;
	if (box_dropin_path(name, path, sizeof path) != 0 || box_dropin_remove(name) != 0)
		return -1;
	printf("%s: removed the NOPASSWD sudoers drop-in %s\n", name, path);
	return 0;
}

/* Apply pw to name with chpasswd through its stdin, then remove the
 * NOPASSWD drop-in so the admin group's rule asks for it. */
int
box_apply_password(const char *name, const char *pw, size_t len)
{
	const char *argv[] = { PATH_CHPASSWD, NULL };
	char line[BOX_NAME_MAX + BOX_PW_BYTES + 3];
	size_t n = strlen(name);
	int rc;

	if (n > BOX_NAME_MAX || len > BOX_PW_BYTES)
		return -1;
	memcpy(line, name, n);
	line[n++] = ':';
	memcpy(line + n, pw, len);
	n += len;
	line[n++] = '\n';
	rc = box_run("chpasswd", argv, line, n);
	OPENSSL_cleanse(line, sizeof line);
	if (rc != 0)
		return -1;
	return box_dropin_remove(name);
}

/* Lock the password ('!': no password can match, unlike passwd -d, whose
 * empty password pam_unix's nullok would accept) after the drop-in is
 * back, so sudo works throughout. */
static int
lock_password(const char *step, const char *name)
{
	const char *argv[] = { PATH_USERMOD, "-p", "!", "--", name, NULL };

	return box_run(step, argv, NULL, 0);
}

int
box_apply_clear(const char *name)
{
	if (box_dropin_install(name) != 0)
		return -1;
	return lock_password("lock-password", name);
}

/* An empty password would let anyone su in, or sudo once the drop-in is
 * gone; no password means a locked one. */
static int
lock_empty(const char *name)
{
	struct spwd *sp;

	if ((sp = getspnam(name)) != NULL && sp->sp_pwdp[0] == '\0')
		return lock_password("lock-empty-password", name);
	return 0;
}

static int
ensure_sudo(const char *name, int *pwset)
{
	char pw[BOX_PW_BYTES];
	size_t len;
	int rc;

	if ((rc = box_secret_exists(name)) < 0)
		return -1;
	*pwset = rc;
	if (rc == 0) {
		if (lock_empty(name) != 0)
			return -1;
		return box_dropin_install(name);
	}
	if ((rc = box_secret_load(name, pw, sizeof pw, &len)) != 0) {
		if (rc == 1)
			box_fail("decrypt-password", "the stored password vanished");
		return -1;
	}
	rc = box_apply_password(name, pw, len);
	OPENSSL_cleanse(pw, sizeof pw);
	return rc;
}

/* One line of the --adopt warning; values from /etc/passwd neutralised. */
static void __attribute__((format(printf, 1, 2)))
warn_adopt(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fputs("  - ", stderr);
	text_print(stderr, line);
	fputc('\n', stderr);
}

/* --adopt: say exactly what init is about to change in an account it
 * did not create, before it changes anything. */
static void
adopt_warning(const struct box_spec *s, const struct account *a)
{
	const char *group = box_admin_group();
	const char *home = s->home != NULL ? s->home : a->home;
	char dir[PATH_MAX], dropin[PATH_MAX];
	struct spwd *sp;
	struct stat st;

	fprintf(stderr, "warrant box: warning: adopting '%s' (uid %u), an account "
	    "warrant box did not create; this changes:\n", a->name, (unsigned)a->uid);
	if (s->uid >= 0 && (uid_t)s->uid != a->uid)
		warn_adopt("its uid: %u -> %ld (usermod -u)", (unsigned)a->uid, s->uid);
	if (s->gid >= 0 && (gid_t)s->gid != a->gid)
		warn_adopt("its group: gid %u -> %ld (usermod -g)", (unsigned)a->gid, s->gid);
	if (strcmp(home, a->home) != 0)
		warn_adopt("its home: %s -> %s (usermod -d; nothing is moved)", a->home, home);
	if (s->shell != NULL && strcmp(s->shell, a->shell) != 0)
		warn_adopt("its shell: %s -> %s", a->shell, s->shell);
	if (s->profile == BOX_PROFILE_CONTAINER && group != NULL &&
	    !box_in_group(a->name, group))
		warn_adopt("it joins the admin group %s", group);
	if (s->profile == BOX_PROFILE_AGENT) {
		if (box_in_group(a->name, "wheel"))
			warn_adopt("it leaves the admin group wheel");
		if (box_in_group(a->name, "sudo"))
			warn_adopt("it leaves the admin group sudo");
		if (!box_req_member(s->reviewer, a->name))
			warn_adopt("it joins the group %s%s: a requester of %s", BOX_REQ_GROUP,
			    s->reviewer, s->reviewer);
	}
	if (lstat(home, &st) != 0)
		warn_adopt("its home %s is created, mode 0700", home);
	else if (!marker_present(home))
		warn_adopt("every file in %s becomes its own, once: chown -R -P -h %ld:%ld",
		    home, s->uid >= 0 ? s->uid : (long)a->uid,
		    s->gid >= 0 ? s->gid : (long)a->gid);
	if (s->profile == BOX_PROFILE_AGENT) {
		if (box_dropin_present(a->name) && box_dropin_path(a->name, dropin,
		    sizeof dropin) == 0)
			warn_adopt("its NOPASSWD drop-in %s is removed", dropin);
		if ((sp = getspnam(a->name)) != NULL && sp->sp_pwdp[0] == '\0')
			warn_adopt("its empty password is locked ('!')");
	} else if (box_secret_exists(a->name) == 1)
		warn_adopt("its password becomes the stored box password (chpasswd), and "
		    "sudo asks for it");
	else {
		if (box_dropin_path(a->name, dropin, sizeof dropin) == 0)
			warn_adopt("it gets sudo without any password: %s grants '%s "
			    "ALL=(ALL:ALL) NOPASSWD: ALL'", dropin, a->name);
		if ((sp = getspnam(a->name)) != NULL && sp->sp_pwdp[0] == '\0')
			warn_adopt("its empty password is locked ('!')");
	}
	if (box_dir_path(dir, sizeof dir) == 0)
		warn_adopt("it is recorded as a box user in %s/%s.user", dir, a->name);
}

/*
 * The agent profile's steps, once the account exists and is recorded: its
 * sudo goes first (admin group, drop-in), then it becomes a requester of
 * the reviewer (the same steps as warrant requesters add), then the home.
 * A stored box password is left alone: it unlocks nothing here.
 */
static int
init_agent(const struct box_spec *s, const struct account *a)
{
	char err[256];
	json_t *rules;
	size_t i;
	int set;

	if (box_drop_admin(a->name, "the agent profile has no sudo") < 0 ||
	    drop_dropin(a->name) != 0 ||
	    box_req_setup(s->reviewer) != 0 || box_req_add(s->reviewer, a->name) != 0 ||
	    ensure_home(a) != 0 || lock_empty(a->name) != 0)
		return -1;
	printf("box user %s: uid %u, gid %u, home %s, shell %s, profile agent\n",
	    a->name, (unsigned)a->uid, (unsigned)a->gid, a->home, a->shell);
	printf("sudo: none from warrant box (no admin group, no drop-in); its root "
	    "commands go to %s through warrant requests\n", s->reviewer);
	if ((set = box_secret_exists(a->name)) == 1)
		printf("note: a box password is stored for %s; the agent profile does "
		    "not use it\n", a->name);
	if (set < 0)
		return -1;
	/* Whatever else gives it sudo (a rule in /etc/sudoers, a group). */
	if ((rules = box_sudo_list(a->name, err, sizeof err)) == NULL)
		fprintf(stderr, "warrant box: warning: cannot list %s's sudo rules: %s\n",
		    a->name, err);
	else if (json_array_size(rules) > 0) {
		fprintf(stderr, "warrant box: warning: %s still holds sudo rules on this "
		    "host (not warrant box's; remove them):\n", a->name);
		for (i = 0; i < json_array_size(rules); i++) {
			fputs("  ", stderr);
			text_print(stderr, json_string_value(json_array_get(rules, i)));
			fputc('\n', stderr);
		}
	}
	json_decref(rules);
	return 0;
}

/* box init: every step in order; 0, or -1 after naming the failed step. */
int
box_init(const struct box_spec *s)
{
	struct box_spec ids = *s;
	struct account a;
	int lock, exists, made, pwset = 0, rc = -1;

	if ((lock = box_lock()) < 0)
		return -1;
	exists = account_get(s->name, &a) == 0;
	if (exists && box_user_recorded(s->name, a.uid) != 1)
		adopt_warning(s, &a);	/* box_check_host saw --adopt */
	/* Made by box init: now, or by an earlier run (kept across --uid). */
	made = !exists || box_recorded(s->name, "user", a.uid) == BOX_CREATED;
	if (!exists && choose_ids(&ids) != 0)
		goto out;
	if (ensure_group(&ids) != 0)
		goto out;
	if (!exists ? create_user(&ids) != 0 : update_user(s, &a) != 0)
		goto out;
	if (account_get(s->name, &a) != 0) {
		box_fail("useradd", "user %s does not exist after it was created", s->name);
		goto out;
	}
	/* Recorded first: whatever fails later, a re-run knows it is ours
	 * (and, when box init made it, that box remove may delete it). */
	if (box_user_recorded(a.name, a.uid) != 1 &&
	    box_user_record(a.name, a.uid, made) != 0)
		goto out;
	if (s->profile == BOX_PROFILE_AGENT) {
		rc = init_agent(s, &a);
		goto out;
	}
	if (ensure_admin(a.name) != 0 || ensure_home(&a) != 0 ||
	    ensure_sudo(a.name, &pwset) != 0)
		goto out;
	printf("box user %s: uid %u, gid %u, home %s, shell %s, admin group %s, "
	    "profile container\n", a.name, (unsigned)a.uid, (unsigned)a.gid, a.home,
	    a.shell, box_admin_group());
	printf("sudo: %s\n", pwset ? "asks for the box password (a password is stored)" :
	    "without a password (no password stored)");
	rc = 0;
out:
	box_unlock(lock);
	return rc;
}
