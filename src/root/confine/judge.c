/* SPDX-License-Identifier: ISC */
/*
 * Resolve a path as the kernel resolves it for a supervised command, one
 * entry at a time through descriptors (no name is looked up twice), and
 * judge every entry met for the requester:
 *
 *  - an entry whose directory lets the requester replace it (the
 *    directory is the requester's, or writable by it through its uid,
 *    any of its groups or an ACL, and not sticky, or sticky with the
 *    entry the requester's) changes under root: refused;
 *  - a symlink is judged as an entry, then followed from its own
 *    directory (a relative target) or from the caller's root;
 *  - the final object is refused when the requester can write it (a
 *    device only when it owns it: /dev/null is everyone's to write and
 *    changes nothing); a final directory only read (listed, removed,
 *    chowned) may be the requester's when the caller says so;
 *  - a call that acts on the final entry itself (JUDGE_ENTRY: chown,
 *    chmod, unlink, mkdir) may name an entry the requester can replace
 *    or create, unless it follows it as a symlink; the caller is told
 *    (judged.replaceable) and decides, and the object is not judged;
 *  - a trailing slash follows a final symlink, as in the kernel;
 *  - a call that creates its final entry exclusively (JUDGE_EXCL: O_EXCL)
 *    fails EEXIST on any existing name, as the kernel's, and may make a
 *    new name in a sticky directory that is not the requester's: under
 *    the sticky rule the requester cannot remove, rename or replace
 *    root's entry there (mkstemp in /tmp);
 *  - in procfs nobody replaces entries and the files are data about
 *    processes (ps reads them); a link there to a process's file (cwd,
 *    root, exe, fd/N, ns/...) is followed only into a process the
 *    requester cannot touch (process_touchable), and never by name:
 *    the kernel's own link is opened.
 *
 * /proc/self and /proc/thread-self mean the caller, not this process.
 * What this cannot see the kernel would refuse too (too long, ELOOP,
 * ENOTDIR): those come back as -errno, for the call to fail the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "supervise.h"

#define LINKS_MAX	40	/* the kernel's */
#define PROC_ROOT_INO	1

static const char *
who(const struct writer *w)
{
	return w->uid == 0 ? "a non-root user" : "the requester";
}

/* why = "WHO can change PATH (DETAIL DIR)", cut to fit */
static void
reason_set(char *why, size_t size, const struct writer *w, const char *path,
    const char *detail, const char *dir)
{
	const char *parts[] = { who(w), " can change ", path, " (", detail, dir, ")" };
	size_t i, len = 0, n;

	for (i = 0; i < sizeof parts / sizeof parts[0] && len + 1 < size; i++) {
		n = strlen(parts[i]);
		if (n > size - 1 - len)
			n = size - 1 - len;
		memcpy(why + len, parts[i], n);
		len += n;
	}
	why[len] = '\0';
}

/* procfs lives on an anonymous device (major 0): only those are asked */
static int
on_procfs(int fd, const struct stat *st)
{
	struct statfs sf;

	return major(st->st_dev) == 0 && fstatfs(fd, &sf) == 0 &&
	    sf.f_type == PROC_SUPER_MAGIC;
}

/* The caller's root, opened when first needed. */
static int
ctx_root(struct judge_ctx *c)
{
	char p[64];

	if (c->rootfd < 0) {
		snprintf(p, sizeof p, "/proc/%d/root", (int)c->tid);
		c->rootfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		c->own_root = c->rootfd >= 0;
	}
	return c->rootfd;
}

/* Could w replace or remove the entry st of directory dfd (dst)? */
static int
entry_changeable(const struct writer *w, int dfd, const struct stat *dst,
    const struct stat *st)
{
	return inode_writable(w, dfd, dst) &&
	    (!(dst->st_mode & S_ISVTX) || inode_owned(w, st) || inode_owned(w, dst));
}

/*
 * The final object, opened as fd: 1 (with why) when w can change what
 * root would read from it or write to it, else 0.
 */
int
judge_object(const struct writer *w, int fd, const struct stat *st, int flags,
    const char *shown, char *why, size_t size)
{
	int changeable;

	if (S_ISDIR(st->st_mode) && (flags & JUDGE_DIR_OK) && !(flags & JUDGE_WRITE))
		return 0;
	/* a device is everyone's to write (/dev/null), as is a daemon's
	 * socket (D-Bus); its owner is who serves it; a file with no name
	 * (memfd, unlinked) is reachable only through its holder */
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) || S_ISSOCK(st->st_mode) ||
	    (S_ISREG(st->st_mode) && st->st_nlink == 0))
		changeable = inode_owned(w, st);
	else
		changeable = inode_writable(w, fd, st);
	/* procfs asked last, as in judge_path: each inode on an anonymous
	 * device (tmpfs, btrfs, overlayfs) costs an fstatfs to tell */
	if (!changeable || on_procfs(fd, st))
		return 0;
	reason_set(why, size, w, shown, "it may write it", "");
	return 1;
}

static void
shown_push(char *shown, size_t size, const char *name)
{
	size_t len = strlen(shown);

	if (len > 0 && shown[len - 1] == '/')
		snprintf(shown + len, size - len, "%s", name);
	else
		snprintf(shown + len, size - len, "/%s", name);
}

static void
shown_pop(char *shown)
{
	char *slash = strrchr(shown, '/');

	if (slash == NULL || slash == shown)
		strcpy(shown, "/");
	else
		*slash = '\0';
}

void
judged_close(struct judged *j)
{
	if (j->dirfd >= 0)
		close(j->dirfd);
	if (j->objfd >= 0)
		close(j->objfd);
	j->dirfd = j->objfd = -1;
}

/* The walk's directory, done with: closed unless lent by the caller. */
static void
drop(int cur, int lent)
{
	if (!lent)
		close(cur);
}

/* The walk's directory as the answer's own descriptor (j->dirfd). */
static int
kept(int cur, int lent)
{
	return lent ? fcntl(cur, F_DUPFD_CLOEXEC, 0) : cur;
}

static int
refused(int cur, int lent)
{
	drop(cur, lent);
	return 1;
}

/* A path being walked: where it is, and what is left. */
struct walk {
	struct judge_ctx *c;
	struct judged	*j;
	int		 flags;
	int		 cur;		/* the directory reached (O_PATH) */
	int		 lent;		/* cur is the caller's: never closed here */
	struct stat	 dst;		/* of cur */
	pid_t		 procpid;	/* cur is /proc/PID or below it; 0: not in procfs */
	int		 links;		/* symlinks followed */
	char		 rest[2 * PATH_MAX];	/* what is left to walk */
};

#define WALK_ON	2	/* a step's answer: go on walking (else judge_path's) */

/* Move to directory fd (lent: the caller's); WALK_ON, or -errno. */
static int
walk_to(struct walk *w, int fd, int lent)
{
	drop(w->cur, w->lent);
	w->cur = fd;
	w->lent = lent;
	w->procpid = 0;
	return fstat(fd, &w->dst) == 0 ? WALK_ON : -errno;
}

/* The walk ends: with a -errno, or refused (1), cur given back. */
static int
walk_fail(struct walk *w, int rc)
{
	drop(w->cur, w->lent);
	return rc;
}

/* The walk ends on name in cur: 0 with j->dirfd, or -errno. */
static int
walk_found(struct walk *w, const char *name)
{
	strcpy(w->j->name, name);
	if ((w->j->dirfd = kept(w->cur, w->lent)) < 0)
		return -errno;
	return 0;
}

/* An empty component, "." or ".." (not above the caller's root); a
 * last one ends the walk on the directory itself. e: what follows. */
static int
step_dots(struct walk *w, size_t n, int last, const char *e)
{
	struct judged *j = w->j;
	struct stat rootst;
	int fd, rc;

	if (n == 2 && (fstat(ctx_root(w->c), &rootst) != 0 || !(w->dst.st_dev ==
	    rootst.st_dev && w->dst.st_ino == rootst.st_ino))) {
		if ((fd = openat(w->cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return walk_fail(w, -errno);
		shown_pop(j->shown);
		if ((rc = walk_to(w, fd, 0)) != WALK_ON)
			return walk_fail(w, rc);
	}
	if (n == 0 || last) {	/* the directory itself */
		j->exists = 1;
		j->st = w->dst;
		if ((rc = walk_found(w, ".")) != 0)
			return rc;
		if (!(w->flags & JUDGE_ENTRY) && judge_object(w->c->w, w->cur, &w->dst, w->flags,
		    j->shown, j->why, sizeof j->why)) {
			judged_close(j);
			return 1;
		}
		return 0;
	}
	memmove(w->rest, e, strlen(e) + 1);
	return WALK_ON;
}

/* comp is not in cur: an answer only for a final entry the call may
 * create, and only where the requester could not have made it first. */
static int
step_missing(struct walk *w, const char *comp, int last)
{
	struct judged *j = w->j;
	char dir[PATH_MAX + 64];

	if (errno != ENOENT || !(w->flags & JUDGE_MISSING))
		return walk_fail(w, -errno);
	/* a new name root makes exclusively in a sticky directory not the
	 * requester's is root's: the requester cannot remove, rename or
	 * replace it (mkstemp in /tmp) */
	if (inode_writable(w->c->w, w->cur, &w->dst) && !on_procfs(w->cur, &w->dst) &&
	    !(last && (w->flags & JUDGE_ENTRY)) &&
	    !(last && (w->flags & JUDGE_EXCL) && (w->dst.st_mode & S_ISVTX) &&
	    !inode_owned(w->c->w, &w->dst))) {
		shown_push(j->shown, sizeof j->shown, comp);
		snprintf(dir, sizeof dir, "%s", j->shown);
		shown_pop(dir);
		reason_set(j->why, sizeof j->why, w->c->w, j->shown, "it may create it in ", dir);
		return refused(w->cur, w->lent);
	}
	if (!last)
		return walk_fail(w, -ENOENT);
	shown_push(j->shown, sizeof j->shown, comp);
	return walk_found(w, comp);
}

/* A link of procfs (cwd, root, exe, fd/N, ns/...): only into a process
 * the requester cannot touch (the caller's own is not another), and
 * never by name: the kernel's own link is opened. nfd: the link's. */
static int
step_proc_link(struct walk *w, const char *comp, int nfd, int last, const char *after)
{
	struct judged *j = w->j;
	char why[PATH_MAX + 64];
	int fd, rc;

	close(nfd);
	if (w->procpid > 0 && w->procpid != w->c->tgid &&
	    process_touchable(w->c->w, w->procpid, why, sizeof why) != 0) {
		reason_set(j->why, sizeof j->why, w->c->w, j->shown, why, "");
		return refused(w->cur, w->lent);
	}
	if (last) {
		j->exists = j->magic = 1;
		return walk_found(w, comp);
	}
	if ((fd = openat(w->cur, comp, O_PATH | O_CLOEXEC)) < 0)
		return walk_fail(w, -errno);
	if ((rc = walk_to(w, fd, 0)) != WALK_ON)
		return walk_fail(w, rc);
	memmove(w->rest, after, strlen(after) + 1);
	return WALK_ON;
}

/* A symlink to follow: its target, then what was after it, walked from
 * the link's directory or (an absolute target) the caller's root. */
static int
step_symlink(struct walk *w, int nfd, const char *after)
{
	char link[PATH_MAX], tmp[2 * PATH_MAX];
	ssize_t ll;
	int rc;

	if (++w->links > LINKS_MAX) {
		close(nfd);
		return walk_fail(w, -ELOOP);
	}
	ll = readlinkat(nfd, "", link, sizeof link - 1);
	close(nfd);
	if (ll < 0)
		return walk_fail(w, -errno);
	link[ll] = '\0';
	if ((size_t)snprintf(tmp, sizeof tmp, "%s%s", link, after) >= sizeof tmp ||
	    strlen(tmp) >= PATH_MAX)
		return walk_fail(w, -ENAMETOOLONG);
	strcpy(w->rest, tmp);
	shown_pop(w->j->shown);
	if (link[0] == '/') {
		if ((rc = walk_to(w, ctx_root(w->c), 1)) != WALK_ON)
			return walk_fail(w, rc);
		strcpy(w->j->shown, "/");
	}
	return WALK_ON;
}

/* The final entry, comp in cur (nfd, st): its object judged unless the
 * call acts on the entry itself or it is a symlink not followed. */
static int
step_final(struct walk *w, const char *comp, int nfd, const struct stat *st, const char *after)
{
	struct judged *j = w->j;
	int rc;

	if (*after == '/' && !S_ISDIR(st->st_mode)) {
		close(nfd);
		return walk_fail(w, -ENOTDIR);
	}
	j->exists = 1;
	j->st = *st;
	if ((rc = walk_found(w, comp)) != 0) {
		close(nfd);
		return rc;
	}
	j->objfd = nfd;
	if (!S_ISLNK(st->st_mode) && !(w->flags & JUDGE_ENTRY) && judge_object(w->c->w, nfd,
	    st, w->flags, j->shown, j->why, sizeof j->why)) {
		judged_close(j);
		return 1;
	}
	return 0;
}

/*
 * Resolve path for c's caller: absolute from c->rootfd, else from startfd
 * (shown to people as base). Returns 0 with the final entry's directory
 * and name in j and, when it exists and is neither "." nor a procfs
 * link, the object judged (j->objfd, O_PATH) (judged_close after), 1
 * when refused (j->why), or -errno as the kernel would fail (with JUDGE_MISSING a missing final entry is
 * 0 with j->exists unset). startfd and c->rootfd stay the caller's: the
 * walk never closes them. Each component is one step: "." and ".."
 * (step_dots), missing (step_missing), a procfs link (step_proc_link), a
 * symlink (step_symlink), a directory to enter, or the final entry
 * (step_final).
 */
int
judge_path(struct judge_ctx *c, int startfd, const char *base, const char *path,
    int flags, struct judged *j)
{
	struct walk w = { .c = c, .j = j, .flags = flags };
	char tmp[2 * PATH_MAX], comp[NAME_MAX + 1], ptxt[PATH_MAX + 64];
	const char *s, *after, *e;
	struct stat st;
	int nfd, last, follow, at_proc_root, rc;
	size_t n;

	memset(j, 0, sizeof *j);
	j->dirfd = j->objfd = -1;
	if (*path == '\0')
		return -ENOENT;
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(w.rest, path);
	if (path[0] == '/')
		strcpy(j->shown, "/");
	else
		snprintf(j->shown, sizeof j->shown, "%s", base);
	/* the walk starts from the caller's descriptor as it is: not closed */
	w.cur = path[0] == '/' ? ctx_root(c) : startfd;
	w.lent = 1;
	if (fstat(w.cur, &w.dst) != 0)
		return -errno;
	for (;;) {
		for (s = w.rest; *s == '/'; s++)
			;
		n = strcspn(s, "/");
		after = s + n;
		for (e = after; *e == '/'; e++)
			;
		last = *e == '\0';
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) {
			if ((rc = step_dots(&w, n, last, e)) != WALK_ON)
				return rc;
			continue;
		}
		if (n > NAME_MAX)
			return walk_fail(&w, -ENAMETOOLONG);
		memcpy(comp, s, n);
		comp[n] = '\0';
		at_proc_root = w.dst.st_ino == PROC_ROOT_INO && on_procfs(w.cur, &w.dst);
		if (at_proc_root && (strcmp(comp, "self") == 0 || strcmp(comp, "thread-self") == 0)) {
			if (strcmp(comp, "self") == 0)
				snprintf(tmp, sizeof tmp, "%d%s", (int)c->tgid, after);
			else
				snprintf(tmp, sizeof tmp, "%d/task/%d%s", (int)c->tgid,
				    (int)c->tid, after);
			strcpy(w.rest, tmp);
			continue;
		}
		/* a trailing slash makes the kernel follow a final symlink */
		follow = !last || (flags & JUDGE_FOLLOW) || *after == '/';
		if ((nfd = openat(w.cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
			return step_missing(&w, comp, last);
		if (fstat(nfd, &st) != 0) {
			rc = -errno;
			close(nfd);
			return walk_fail(&w, rc);
		}
		if (last && (flags & JUDGE_EXCL)) {	/* O_EXCL: any name, a symlink too */
			close(nfd);
			return walk_fail(&w, -EEXIST);
		}
		shown_push(j->shown, sizeof j->shown, comp);
		/* procfs (whose entries nobody replaces) asked only of an entry
		 * that would be refused: it costs an fstatfs on tmpfs and the
		 * like, and every component is asked */
		if (entry_changeable(c->w, w.cur, &w.dst, &st) && !on_procfs(w.cur, &w.dst) &&
		    !(last && (flags & JUDGE_DIR_OK) && !(flags & JUDGE_WRITE) &&
		    S_ISDIR(st.st_mode))) {
			if (last && (flags & JUDGE_ENTRY) && !(S_ISLNK(st.st_mode) && follow)) {
				j->replaceable = 1;
			} else {
				close(nfd);
				snprintf(ptxt, sizeof ptxt, "%s", j->shown);
				shown_pop(ptxt);
				reason_set(j->why, sizeof j->why, c->w, j->shown,
				    "it may replace entries of ", ptxt);
				return refused(w.cur, w.lent);
			}
		}
		if (S_ISLNK(st.st_mode) && follow) {
			rc = on_procfs(w.cur, &w.dst) && !at_proc_root ?
			    step_proc_link(&w, comp, nfd, last, after) : step_symlink(&w, nfd, after);
			if (rc != WALK_ON)
				return rc;
			continue;
		}
		if (!last) {
			if (!S_ISDIR(st.st_mode)) {
				close(nfd);
				return walk_fail(&w, -ENOTDIR);
			}
			drop(w.cur, w.lent);
			w.cur = nfd;
			w.lent = 0;
			w.dst = st;
			if (at_proc_root)
				w.procpid = (pid_t)strtol(comp, NULL, 10);
			memmove(w.rest, e, strlen(e) + 1);
			continue;
		}
		return step_final(&w, comp, nfd, &st, after);
	}
}

/*
 * The same walk for this process's own checks, from its own root: the
 * runner's re-check before a batch, request validation, the tools root
 * starts. The caller is this process, so /proc/self is. 0 or -1 as
 * judge_path, j to judged_close.
 */
static int
judge_own(const struct writer *w, const char *path, int flags, struct judged *j)
{
	struct judge_ctx c = { .w = w, .tgid = getpid(), .tid = gettid(), .own_root = 1 };
	int rc;

	if (path[0] != '/') {
		memset(j, 0, sizeof *j);
		j->dirfd = j->objfd = -1;
		return -EINVAL;
	}
	if ((c.rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	rc = judge_path(&c, c.rootfd, "/", path, flags, j);
	close(c.rootfd);
	return rc;
}

/* A walk's end as these answer: 1 (why set), 0, or -1 (it cannot be
 * judged); what the kernel would refuse root too is 0 when gone is set:
 * root reaches nothing there. */
static int
own_answer(int rc, struct judged *j, int gone, char *why, size_t size)
{
	if (rc == 1)
		snprintf(why, size, "%s", j->why);
	judged_close(j);
	if (rc >= 0)
		return rc;
	return gone && (rc == -ENOENT || rc == -EACCES || rc == -ENOTDIR ||
	    rc == -ENAMETOOLONG || rc == -ELOOP) ? 0 : -1;
}

/*
 * Could w change what root finds at path (absolute, as given)? Every
 * entry met, symlinks followed, judged as for a supervised call; a
 * missing entry counts when w could create it. 1 with why, 0, or -1.
 */
int
path_changeable(const struct writer *w, const char *path, char *why, size_t size)
{
	struct judged j;

	return own_answer(judge_own(w, path, JUDGE_FOLLOW | JUDGE_MISSING, &j), &j, 1, why,
	    size);
}

/*
 * Could w replace the file at path (absolute, already resolved: no
 * symlink in it), write it, or replace any entry above it? 1 with why,
 * 0, or -1 when a component is missing.
 */
int
path_writable(const struct writer *w, const char *path, char *why, size_t size)
{
	struct judged j;

	return own_answer(judge_own(w, path, 0, &j), &j, 0, why, size);
}

/*
 * For an operand of a command that acts_on_entry (path.c): could w
 * change the way to the entry, every entry above it as root resolves
 * them? The directory holding it may be w's own. An operand whose last
 * component is ".", ".." or followed by a slash is judged whole (the
 * kernel would follow the entry). Same answers as path_changeable.
 */
int
entry_way_changeable(const struct writer *w, const char *path, char *why, size_t size)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t n = strlen(path);
	struct judged j;
	struct stat dst;
	int rc;

	if (path[0] != '/' || n >= sizeof dir || slash == NULL || slash[1] == '\0' ||
	    strcmp(slash + 1, ".") == 0 || strcmp(slash + 1, "..") == 0)
		return path_changeable(w, path, why, size);
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	/* the directory's own entry judged, its object not: it may be w's */
	rc = judge_own(w, *dir ? dir : "/", JUDGE_FOLLOW | JUDGE_MISSING | JUDGE_ENTRY, &j);
	if (rc == 0 && j.replaceable) {
		snprintf(dir, sizeof dir, "%s", j.shown);
		shown_pop(dir);
		reason_set(j.why, sizeof j.why, w, j.shown, "it may replace entries of ", dir);
		rc = 1;
	} else if (rc == 0 && !j.exists && fstat(j.dirfd, &dst) == 0 &&
	    inode_writable(w, j.dirfd, &dst)) {
		snprintf(dir, sizeof dir, "%s", j.shown);
		shown_pop(dir);
		reason_set(j.why, sizeof j.why, w, j.shown, "it may create it in ", dir);
		rc = 1;
	}
	return own_answer(rc, &j, 1, why, size);
}
