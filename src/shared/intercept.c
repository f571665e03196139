/* SPDX-License-Identifier: ISC */
/*
 * What each supervised call of a ROOT command may do (supervise.c
 * receives it; docs/execution.md, "The run-time supervisor", has the
 * rules and why):
 *
 *  open, openat, openat2, creat   the path is resolved and judged
 *      (judge.c) and, when allowed, opened HERE, as the caller's fs
 *      identity and umask, and the descriptor put into the caller
 *      (SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND): the
 *      kernel never looks the path up again, so nothing the caller (or
 *      anyone) changes after the check matters. /dev/tty is the caller's.
 *  symlink, link, rename, truncate   judged and done HERE the same way
 *      (a symlink's target judged from the link's own directory); the
 *      caller gets the result.
 *  execve, execveat, an O_PATH open   the file (and a script's
 *      interpreter) judged and hashed, then the call continues: the
 *      kernel resolves the path again. That is safe because every entry
 *      on it was judged unchangeable by the requester, so a second lookup
 *      can only land on something equally root's; a thread of the same
 *      command could rewrite the path's memory in between, but every
 *      program in the tree is one this supervisor let run, so that is
 *      root code racing itself, not the requester.
 *  chown, chmod   the way judged; the entry may be the requester's to
 *      replace (chown -R of its tree) only when its object is the
 *      requester's to change already; the runner changes the inode it
 *      opened itself (O_PATH), never a name again.
 *  unlink, rmdir, mkdir, mknod   the way judged; done HERE in the
 *      directory judged.
 *  setxattr, removexattr   on an entry the requester cannot replace;
 *      then the call continues (as exec).
 *  connect   to a named Unix socket: the way judged, a socket the
 *      requester owns (serves) refused; to an IP address a socket of the
 *      requester's serves (ports.c): refused; then it continues.
 *  mount   the source of a bind or move and a device path, and the
 *      target, judged; then it continues (the same argument).
 *  setns, pidfd_open, pidfd_getfd, ptrace attach, process_vm_*   the
 *      target process (or namespace) judged: refused when the requester
 *      owns it or made its user namespace. The arguments are numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <unistd.h>
#include <linux/nsfs.h>
#include <linux/seccomp.h>

#include "intercept.h"

#define PTRACE_ATTACH_REQ	16
#define PTRACE_SEIZE_REQ	0x4206
#define INTERP_DEPTH		4	/* the kernel's binfmt_script nesting */

/* Read the caller's memory at addr, at most one page. */
static ssize_t
read_mem(const struct call *k, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(k->tid, &local, 1, &remote, 1, 0);
}

/* A NUL-terminated string of the caller's at addr: 0 or -errno. */
static int
read_string(const struct call *k, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0, chunk;
	ssize_t n;

	if (addr == 0)
		return -EFAULT;
	while (got < size) {
		chunk = 4096 - (size_t)((addr + got) % 4096);
		if (chunk > size - got)
			chunk = size - got;
		n = read_mem(k, addr + got, buf + got, chunk);
		if (n <= 0)
			return -EFAULT;
		if (memchr(buf + got, '\0', (size_t)n) != NULL)
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

/* The caller's controlling terminal (stat's tty_nr, field 7), 0 for
 * none or when it cannot be read. */
static unsigned long
caller_tty(const struct call *k)
{
	char buf[1024];
	const char *f = proc_stat_fields(k->tid, buf, sizeof buf);
	unsigned long tty = 0;

	if (f == NULL || sscanf(f, "%*c %*d %*d %*d %lu", &tty) != 1)
		return 0;
	return tty;
}

/* Where a path of the caller's starts: its cwd, or its dirfd. */
static int
start_dir(struct call *k, int dirfd, const char *path, int *startfd)
{
	char what[32];

	*startfd = -1;
	if (path[0] == '/')
		return 0;
	if (dirfd == AT_FDCWD) {
		if (k->cwdfd < 0 && (k->cwdfd = sv_proc_open(k->tid, "cwd", O_PATH | O_DIRECTORY)) < 0)
			return -ENOENT;
		sv_proc_readlink(k->tid, "cwd", k->base, sizeof k->base);
		*startfd = k->cwdfd;
		return 0;
	}
	snprintf(what, sizeof what, "fd/%d", dirfd);
	if ((*startfd = sv_proc_open(k->tid, what, O_PATH)) < 0)
		return -EBADF;
	sv_proc_readlink(k->tid, what, k->base, sizeof k->base);
	return 0;
}

/* The file of the caller's descriptor dirfd (AT_FDCWD: its cwd) for a
 * call on the descriptor itself (AT_EMPTY_PATH), opened here through
 * /proc with flags; its path in shown. -1 when it has none. */
static int
caller_fd(const struct call *k, int dirfd, int flags, char *shown, size_t size)
{
	char what[32];

	if (dirfd == AT_FDCWD)
		snprintf(what, sizeof what, "cwd");
	else
		snprintf(what, sizeof what, "fd/%d", dirfd);
	sv_proc_readlink(k->tid, what, shown, size);
	return sv_proc_open(k->tid, what, flags);
}

/* After judging: 0 to go on; else the call has its answer (refused, or
 * failed as the kernel would fail it). */
static int
answered(const struct call *k, const char *callname, int rc, const struct judged *j)
{
	if (rc > 0)
		sv_refuse(k, callname, j->shown, j->why);
	else if (rc < 0)
		sv_respond(k, rc, 0, 0);
	return rc != 0;
}

/* The runner made the call itself: its result for the caller, and what
 * it wrote (NULL: nothing) for the record. */
static void
done(const struct call *k, int rc, int e, const char *written)
{
	if (rc == 0 && written != NULL)
		sv_note(k->sv, REC_WRITTEN, sv_record_string(written, CONFINE_PATH_MAX));
	sv_respond(k, rc == 0 ? 0 : -e, 0, 0);
}

/* Resolve and judge one path argument of the call. */
static int
judge_arg(struct call *k, int dirfd, uint64_t addr, int flags, char *path, struct judged *j)
{
	int rc, startfd;

	if ((rc = read_string(k, addr, path, PATH_MAX)) != 0)
		return rc;
	if ((rc = start_dir(k, dirfd, path, &startfd)) != 0)
		return rc;
	rc = judge_path(&k->jc, startfd, k->base, path, flags, j);
	if (startfd >= 0 && startfd != k->cwdfd)
		close(startfd);
	return rc;
}

static void
on_open(struct call *k, int dirfd, uint64_t addr, uint64_t flags, mode_t mode)
{
	char path[PATH_MAX];
	struct judged j;
	struct stat st;
	int writes, jf, rc, fd;

	writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) ||
	    (flags & O_TMPFILE) == O_TMPFILE;
	jf = writes ? JUDGE_WRITE : JUDGE_DIR_OK;
	if (!(flags & O_NOFOLLOW) && (flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL))
		jf |= JUDGE_FOLLOW;
	if (flags & O_CREAT)
		jf |= JUDGE_MISSING;
	/* an O_PATH descriptor cannot be handed over (the kernel's ADDFD
	 * refuses it): the call continues, so, as for exec, every entry on
	 * the way, the last one too, must be beyond the requester */
	if (flags & O_PATH)
		jf &= ~JUDGE_DIR_OK;
	if (answered(k, "open", judge_arg(k, dirfd, addr, jf, path, &j), &j))
		return;
	if (flags & O_PATH) {
		if (sv_still_valid(k))
			sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		judged_close(&j);
		return;
	}
	if (!sv_still_valid(k)) {	/* its /proc files were another's: do nothing */
		judged_close(&j);
		return;
	}
	/* /dev/tty means the caller's controlling terminal, not this
	 * process's (the reviewer's, without a detach): the caller has none
	 * (every command starts in a session of its own) unless it made one */
	if (j.exists && S_ISCHR(j.st.st_mode) && j.st.st_rdev == makedev(5, 0)) {
		if (caller_tty(k) == 0)
			sv_respond(k, -ENXIO, 0, 0);
		else
			sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		judged_close(&j);
		return;
	}
	sv_as_caller(k, (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE);
	fd = openat(j.dirfd, j.name, (int)flags | O_CLOEXEC | O_NOCTTY |
	    (j.magic ? 0 : O_NOFOLLOW), mode);
	rc = errno;
	sv_as_self(k, (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE);
	if (fd < 0) {
		sv_respond(k, -rc, 0, 0);
	} else if (j.magic && (fstat(fd, &st) != 0 || judge_object(k->jc.w, fd, &st,
	    writes ? 0 : JUDGE_DIR_OK, j.shown, j.why, sizeof j.why))) {
		sv_refuse(k, "open", j.shown, *j.why ? j.why : "it cannot be judged");
	} else {
		if (writes)
			sv_note(k->sv, REC_WRITTEN, sv_record_string(j.shown, CONFINE_PATH_MAX));
		sv_respond_fd(k, fd, (flags & O_CLOEXEC) != 0);
	}
	if (fd >= 0)
		close(fd);
	judged_close(&j);
}

/* The SHA-256 of what fd holds, remembered by inode and change time. */
static void
exe_hash(int fd, const struct stat *st, char hex[SHA256_HEX_LEN + 1])
{
	static struct {
		dev_t dev;
		ino_t ino;
		off_t size;
		struct timespec mtime, ctime;
		char hex[SHA256_HEX_LEN + 1];
	} cache[32];
	static size_t next;
	size_t i;

	for (i = 0; i < sizeof cache / sizeof cache[0]; i++)
		if (cache[i].dev == st->st_dev && cache[i].ino == st->st_ino && cache[i].hex[0] &&
		    cache[i].size == st->st_size &&
		    cache[i].mtime.tv_sec == st->st_mtim.tv_sec &&
		    cache[i].mtime.tv_nsec == st->st_mtim.tv_nsec &&
		    cache[i].ctime.tv_sec == st->st_ctim.tv_sec &&
		    cache[i].ctime.tv_nsec == st->st_ctim.tv_nsec) {
			memcpy(hex, cache[i].hex, sizeof cache[i].hex);
			return;
		}
	if (lseek(fd, 0, SEEK_SET) != 0 || sha256_fd(fd, hex) != 0) {
		strcpy(hex, "");
		return;
	}
	i = next++ % (sizeof cache / sizeof cache[0]);
	cache[i].dev = st->st_dev;
	cache[i].ino = st->st_ino;
	cache[i].size = st->st_size;
	cache[i].mtime = st->st_mtim;
	cache[i].ctime = st->st_ctim;
	memcpy(cache[i].hex, hex, sizeof cache[i].hex);
}

/*
 * An executable, open as fd: judged, its script interpreter (#!) too,
 * and noted with its hash. 0, or 1 with shown/why naming the refusal.
 */
static int
judge_exe(struct call *k, int fd, char *shown, size_t shown_size, char *why, size_t size,
    int depth)
{
	char head[256], interp[PATH_MAX], hex[SHA256_HEX_LEN + 1];
	struct judged j;
	struct stat st;
	ssize_t n;
	size_t len;
	int ifd, rc;

	if (fstat(fd, &st) != 0 || judge_object(k->jc.w, fd, &st, 0, shown, why, size))
		return 1;
	n = pread(fd, head, sizeof head - 1, 0);
	if (n > 2 && head[0] == '#' && head[1] == '!' && depth < INTERP_DEPTH) {
		head[n] = '\0';
		len = strspn(head + 2, " \t");
		snprintf(interp, sizeof interp, "%.*s", (int)strcspn(head + 2 + len, " \t\n"),
		    head + 2 + len);
		if (interp[0] == '/') {
			rc = judge_path(&k->jc, -1, "", interp, JUDGE_FOLLOW, &j);
			if (rc > 0) {
				snprintf(shown, shown_size, "%s", j.shown);
				snprintf(why, size, "%s", j.why);
				return 1;
			}
			if (rc == 0) {
				ifd = openat(j.dirfd, j.name, O_RDONLY | O_CLOEXEC |
				    (j.magic ? 0 : O_NOFOLLOW));
				rc = ifd < 0 ? 0 : judge_exe(k, ifd, j.shown, sizeof j.shown, j.why,
				    sizeof j.why, depth + 1);
				if (rc) {
					snprintf(shown, shown_size, "%s", j.shown);
					snprintf(why, size, "%s", j.why);
				}
				if (ifd >= 0)
					close(ifd);
				judged_close(&j);
				if (rc)
					return 1;
			}
		}
	}
	exe_hash(fd, &st, hex);
	if (*hex)
		sv_note(k->sv, REC_EXECUTED, json_pack("{s:o,s:s}", "path",
		    sv_record_string(shown, CONFINE_PATH_MAX), "sha256", hex));
	return 0;
}

static void
on_exec(struct call *k, int dirfd, uint64_t addr, uint64_t flags)
{
	char path[PATH_MAX], why[PATH_MAX + 256] = "";
	struct judged j;
	int rc, fd = -1;

	memset(&j, 0, sizeof j);
	j.dirfd = -1;
	if ((rc = read_string(k, addr, path, sizeof path)) != 0) {
		sv_respond(k, rc, 0, 0);
		return;
	}
	if (*path == '\0' && (flags & AT_EMPTY_PATH)) {
		fd = caller_fd(k, dirfd, O_RDONLY, j.shown, sizeof j.shown);
	} else {
		if (answered(k, "exec", judge_arg(k, dirfd, addr,
		    (flags & AT_SYMLINK_NOFOLLOW) ? 0 : JUDGE_FOLLOW, path, &j), &j))
			return;
		fd = openat(j.dirfd, j.name, O_RDONLY | O_CLOEXEC | (j.magic ? 0 : O_NOFOLLOW));
	}
	if (fd < 0)
		sv_respond(k, -errno, 0, 0);
	else if (judge_exe(k, fd, j.shown, sizeof j.shown, why, sizeof why, 0))
		sv_refuse(k, "exec", j.shown, *why ? why : "it cannot be judged");
	else if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
	if (fd >= 0)
		close(fd);
	judged_close(&j);
}

static void
on_symlink(struct call *k, uint64_t taddr, int dirfd, uint64_t laddr)
{
	char target[PATH_MAX], path[PATH_MAX], base[PATH_MAX];
	struct judged j, t;
	int rc, e;

	if ((rc = read_string(k, taddr, target, sizeof target)) != 0 ||
	    (rc = judge_arg(k, dirfd, laddr, JUDGE_WRITE | JUDGE_MISSING, path, &j)) < 0) {
		sv_respond(k, rc, 0, 0);
		return;
	}
	if (rc > 0) {
		sv_refuse(k, "symlink", j.shown, j.why);
		return;
	}
	if (j.exists) {
		sv_respond(k, -EEXIST, 0, 0);
		judged_close(&j);
		return;
	}
	/* the target as the kernel will read it: from the link's directory */
	snprintf(base, sizeof base, "%s", j.shown);
	*strrchr(base, '/') = '\0';
	rc = judge_path(&k->jc, j.dirfd, *base ? base : "/", target,
	    JUDGE_FOLLOW | JUDGE_MISSING, &t);
	if (rc > 0) {
		sv_refuse(k, "symlink", j.shown, t.why);
		judged_close(&j);
		return;
	}
	judged_close(&t);
	if (!sv_still_valid(k)) {
		judged_close(&j);
		return;
	}
	sv_as_caller(k, 1);
	rc = symlinkat(target, j.dirfd, j.name);
	e = errno;
	sv_as_self(k, 1);
	done(k, rc, e, j.shown);
	judged_close(&j);
}

/* link and rename: the source must be neither replaceable nor writable
 * by the requester, the destination's directory not the requester's. */
static void
on_move(struct call *k, int is_link, int odirfd, uint64_t oaddr, int ndirfd, uint64_t naddr,
    unsigned flags)
{
	const char *callname = is_link ? "link" : "rename";
	char opath[PATH_MAX], npath[PATH_MAX];
	struct judged o, n;
	int rc, e, of;

	if (is_link && (flags & AT_EMPTY_PATH)) {
		sv_respond(k, -ENOENT, 0, 0);	/* a name is needed to judge it */
		return;
	}
	of = is_link ? ((flags & AT_SYMLINK_FOLLOW) ? JUDGE_FOLLOW : 0) : JUDGE_WRITE;
	if (answered(k, callname, judge_arg(k, odirfd, oaddr, of, opath, &o), &o))
		return;
	if (answered(k, callname, judge_arg(k, ndirfd, naddr, JUDGE_WRITE | JUDGE_MISSING,
	    npath, &n), &n)) {
		judged_close(&o);
		return;
	}
	if (!sv_still_valid(k)) {
		judged_close(&o);
		judged_close(&n);
		return;
	}
	sv_as_caller(k, 0);
	rc = is_link ? linkat(o.dirfd, o.name, n.dirfd, n.name, 0) :
	    (int)syscall(SYS_renameat2, o.dirfd, o.name, n.dirfd, n.name, flags);
	e = errno;
	sv_as_self(k, 0);
	done(k, rc, e, n.shown);
	judged_close(&o);
	judged_close(&n);
}

static void
on_truncate(struct call *k, uint64_t addr, off_t length)
{
	char path[PATH_MAX];
	struct judged j;
	int rc, fd, e;

	if (answered(k, "truncate", judge_arg(k, AT_FDCWD, addr, JUDGE_FOLLOW | JUDGE_WRITE,
	    path, &j), &j))
		return;
	if (!sv_still_valid(k)) {
		judged_close(&j);
		return;
	}
	sv_as_caller(k, 0);
	fd = openat(j.dirfd, j.name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	rc = fd >= 0 ? ftruncate(fd, length) : -1;
	e = errno;
	sv_as_self(k, 0);
	if (fd >= 0)
		close(fd);
	done(k, rc, e, j.shown);
	judged_close(&j);
}

/* The object of chown or chmod, reached through an entry the requester
 * can replace (chown -R of its tree: the entries of its directories):
 * is it the requester's to change already? A directory or symlink is
 * (moved in, or made, from where the requester writes); a file with no
 * other name, or its own, is; a file with another name may be a hard
 * link to one of root's, made where the kernel lets anyone link. */
static int
entry_own(const struct writer *w, const struct stat *st)
{
	return S_ISDIR(st->st_mode) || S_ISLNK(st->st_mode) || st->st_uid == w->uid ||
	    st->st_nlink == 1;
}

/*
 * chown, chmod: the path judged as an entry (followed where the call
 * follows it); the runner opens the object itself (O_PATH, not following)
 * and changes THAT inode, so an entry swapped after the check changes
 * nothing else. A descriptor (AT_EMPTY_PATH) is the caller's, judged
 * when it was opened.
 */
static void
on_owner_mode(struct call *k, int is_chmod, int dirfd, uint64_t addr, unsigned atflags,
    uint64_t x, uint64_t y)
{
	const char *callname = is_chmod ? "chmod" : "chown";
	char path[PATH_MAX], what[32];
	struct judged j;
	struct stat st;
	int rc, fd, e;

	memset(&j, 0, sizeof j);
	j.dirfd = -1;
	if ((rc = read_string(k, addr, path, sizeof path)) != 0 && !(atflags & AT_EMPTY_PATH)) {
		sv_respond(k, rc, 0, 0);
		return;
	}
	if ((rc != 0 || *path == '\0') && (atflags & AT_EMPTY_PATH)) {
		fd = caller_fd(k, dirfd, O_PATH, j.shown, sizeof j.shown);
	} else {
		if (answered(k, callname, judge_arg(k, dirfd, addr, JUDGE_ENTRY |
		    ((atflags & AT_SYMLINK_NOFOLLOW) ? 0 : JUDGE_FOLLOW), path, &j), &j))
			return;
		fd = openat(j.dirfd, j.name, O_PATH | O_CLOEXEC | (j.magic ? 0 : O_NOFOLLOW));
	}
	if (fd < 0 || fstat(fd, &st) != 0) {
		sv_respond(k, -errno, 0, 0);
	} else if (j.replaceable && !entry_own(k->jc.w, &st)) {
		sv_refuse(k, callname, j.shown, "the requester may have linked it there: it "
		    "has another name, and the requester may replace entries of its directory");
	} else if (sv_still_valid(k)) {
		sv_as_caller(k, 0);
		if (!is_chmod) {
			rc = fchownat(fd, "", (uid_t)(uint32_t)x, (gid_t)(uint32_t)y, AT_EMPTY_PATH);
		} else if (S_ISLNK(st.st_mode)) {
			rc = -1;
			errno = EOPNOTSUPP;	/* Linux has no mode for a symlink */
		} else {
			snprintf(what, sizeof what, "/proc/self/fd/%d", fd);
			rc = chmod(what, (mode_t)x);
		}
		e = errno;
		sv_as_self(k, 0);
		done(k, rc, e, NULL);
	}
	if (fd >= 0)
		close(fd);
	judged_close(&j);
}

/* unlink, rmdir: the way to the entry judged (the entry itself may be
 * the requester's); the runner removes that name from the directory it
 * judged, whatever the name holds by then. */
static void
on_unlink(struct call *k, int dirfd, uint64_t addr, unsigned atflags)
{
	char path[PATH_MAX];
	struct judged j;
	int rc, e;

	if (answered(k, "unlink", judge_arg(k, dirfd, addr, JUDGE_ENTRY, path, &j), &j))
		return;
	if (sv_still_valid(k)) {
		sv_as_caller(k, 0);
		rc = unlinkat(j.dirfd, j.name, (int)(atflags & AT_REMOVEDIR));
		e = errno;
		sv_as_self(k, 0);
		done(k, rc, e, NULL);
	}
	judged_close(&j);
}

/* mkdir, mknod: the way to the new name judged; the runner makes it in
 * the directory it judged, with the caller's identity and umask. */
static void
on_make(struct call *k, int is_dir, int dirfd, uint64_t addr, mode_t mode, dev_t dev)
{
	const char *callname = is_dir ? "mkdir" : "mknod";
	char path[PATH_MAX];
	struct judged j;
	int rc, e;

	if (answered(k, callname, judge_arg(k, dirfd, addr, JUDGE_ENTRY | JUDGE_MISSING,
	    path, &j), &j))
		return;
	if (j.exists) {
		sv_respond(k, -EEXIST, 0, 0);
	} else if (sv_still_valid(k)) {
		sv_as_caller(k, 1);
		rc = is_dir ? mkdirat(j.dirfd, j.name, mode) : mknodat(j.dirfd, j.name, mode, dev);
		e = errno;
		sv_as_self(k, 1);
		done(k, rc, e, j.shown);
	}
	judged_close(&j);
}

/* setxattr, removexattr (ACLs, file capabilities): only on an entry the
 * requester cannot replace, and then the call continues (as exec). */
static void
on_xattr(struct call *k, int follow)
{
	char path[PATH_MAX];
	struct judged j;

	if (answered(k, "xattr", judge_arg(k, AT_FDCWD, k->req->data.args[0],
	    JUDGE_ENTRY | (follow ? JUDGE_FOLLOW : 0), path, &j), &j))
		return;
	if (j.replaceable)
		sv_refuse(k, "xattr", j.shown, "the requester may replace it: it is an entry "
		    "of a directory the requester may write");
	else if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
	judged_close(&j);
}

/* connect: to a named Unix socket, the way judged and a socket the
 * requester made (it serves it) refused; to an IP address, refused when
 * a socket of the requester's serves it (ports.c): either way root would
 * act on what the requester answers. Then the call continues (as exec). */
static void
on_connect(struct call *k, uint64_t addr, uint64_t len)
{
	const size_t at = offsetof(struct sockaddr_un, sun_path);
	char path[PATH_MAX], why[256], what[64];
	struct sockaddr_storage ss;
	struct judged j;
	size_t n = len < sizeof ss ? (size_t)len : sizeof ss;
	int rc;

	memset(&ss, 0, sizeof ss);
	if (n > at && read_mem(k, addr, &ss, n) == (ssize_t)n) {
		if (ss.ss_family == AF_UNIX && ((struct sockaddr_un *)(void *)&ss)->sun_path[0]) {
			if (answered(k, "connect", judge_arg(k, AT_FDCWD, addr + at, JUDGE_FOLLOW,
			    path, &j), &j))
				return;
			judged_close(&j);
		} else if ((ss.ss_family == AF_INET && n >= sizeof(struct sockaddr_in)) ||
		    (ss.ss_family == AF_INET6 && n >= sizeof(struct sockaddr_in6))) {
			if ((rc = port_served_by(k->tid, &ss, k->jc.w, why, sizeof why)) != 0) {
				snprintf(what, sizeof what, "%s port %u", ss.ss_family == AF_INET ?
				    "IPv4" : "IPv6", ntohs(((struct sockaddr_in *)(void *)&ss)->sin_port));
				sv_refuse(k, "connect", what, rc > 0 ? why : "it cannot be judged");
				return;
			}
		}
	}
	if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

static void
on_mount(struct call *k)
{
	const __u64 *a = k->req->data.args;
	char src[PATH_MAX], path[PATH_MAX];
	struct judged j;

	if (a[0] != 0 && ((a[3] & (MS_BIND | MS_MOVE)) ||
	    (read_string(k, a[0], src, sizeof src) == 0 && src[0] == '/'))) {
		if (answered(k, "mount", judge_arg(k, AT_FDCWD, a[0], JUDGE_FOLLOW, path, &j), &j))
			return;
		judged_close(&j);
	}
	if (answered(k, "mount", judge_arg(k, AT_FDCWD, a[1], JUDGE_FOLLOW, path, &j), &j))
		return;
	judged_close(&j);
	if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

/* Is uid the requester's (for a root requester: anyone's but root's)? */
int
touches_uid(const struct writer *w, uid_t uid)
{
	return w->uid == 0 ? uid != 0 : uid == w->uid;
}

/* A namespace (nsfd): made in a user namespace the requester owns, or
 * below one? 1, 0, or -1 when it cannot be told. */
static int
ns_touchable(const struct writer *w, int nsfd)
{
	int user, parent, type = ioctl(nsfd, NS_GET_NSTYPE);
	uid_t owner;

	if (type < 0)
		return -1;
	user = type == CLONE_NEWUSER ? fcntl(nsfd, F_DUPFD_CLOEXEC, 0) : ioctl(nsfd, NS_GET_USERNS);
	if (user < 0)
		return errno == EPERM ? 0 : -1;	/* owned outside this namespace: root's */
	for (;;) {
		if (ioctl(user, NS_GET_OWNER_UID, &owner) != 0) {
			close(user);
			return -1;
		}
		if (touches_uid(w, owner)) {
			close(user);
			return 1;
		}
		parent = ioctl(user, NS_GET_PARENT);
		close(user);
		if (parent < 0)
			return errno == EPERM ? 0 : -1;
		user = parent;
	}
}

/* The pid a pidfd of the caller's (or ours, tid 0) refers to; -1. */
static pid_t
pidfd_pid(pid_t tid, int fd)
{
	char what[64], buf[1024], *p;
	ssize_t n;
	int f;

	if (tid != 0)
		snprintf(what, sizeof what, "fdinfo/%d", fd);
	f = tid != 0 ? sv_proc_open(tid, what, O_RDONLY) :
	    (snprintf(what, sizeof what, "/proc/self/fdinfo/%d", fd), open(what,
	    O_RDONLY | O_CLOEXEC));
	if (f < 0)
		return -1;
	n = read(f, buf, sizeof buf - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nPid:")) == NULL)
		return -1;
	return (pid_t)strtol(p + 5, NULL, 10);
}

/* Is the caller in our PID namespace (its pid arguments mean ours)? */
static int
same_pidns(pid_t tid)
{
	char a[64], b[64];

	sv_proc_readlink(tid, "ns/pid", a, sizeof a);
	sv_proc_readlink(getpid(), "ns/pid", b, sizeof b);
	return *a != '\0' && strcmp(a, b) == 0;
}

/* Calls that reach another process: pid judged, or a namespace. */
static void
on_process(struct call *k, const char *callname, pid_t pid)
{
	char why[PATH_MAX + 64], what[64];
	int rc;

	snprintf(what, sizeof what, "process %d", (int)pid);
	if (pid <= 0 || !same_pidns(k->tid))
		sv_refuse(k, callname, what, "the caller is in another PID namespace or names "
		    "no process: it cannot be judged");
	else if ((rc = process_touchable(k->jc.w, pid, why, sizeof why)) != 0)
		sv_refuse(k, callname, what, rc > 0 ? why : "it cannot be judged");
	else if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

static void
on_setns(struct call *k, int fd)
{
	char what[64];
	int pidfd, ours, rc;
	pid_t pid;

	snprintf(what, sizeof what, "descriptor %d", fd);
	if ((pidfd = (int)syscall(SYS_pidfd_open, k->tid, 0)) < 0 ||
	    (ours = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0)) < 0) {
		if (pidfd >= 0)
			close(pidfd);
		sv_respond(k, -EBADF, 0, 0);
		return;
	}
	close(pidfd);
	if ((pid = pidfd_pid(0, ours)) > 0) {
		close(ours);
		on_process(k, "setns", pid);
		return;
	}
	rc = ns_touchable(k->jc.w, ours);
	close(ours);
	if (rc != 0)
		sv_refuse(k, "setns", what, rc > 0 ? "the requester can change it (a namespace "
		    "made in a user namespace the requester owns)" : "it cannot be judged");
	else if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

/* Answer one call of the supervised command. */
void
intercept(struct call *k)
{
	const __u64 *a = k->req->data.args;
	int nr = k->req->data.nr;
	struct {
		uint64_t flags, mode, resolve;
	} how;

	if (0)
		;
#ifdef __NR_open
	else if (nr == __NR_open)
		on_open(k, AT_FDCWD, a[0], a[1], (mode_t)a[2]);
	else if (nr == __NR_creat)
		on_open(k, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, (mode_t)a[1]);
	else if (nr == __NR_symlink)
		on_symlink(k, a[0], AT_FDCWD, a[1]);
	else if (nr == __NR_link)
		on_move(k, 1, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
	else if (nr == __NR_rename)
		on_move(k, 0, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
	else if (nr == __NR_chown)
		on_owner_mode(k, 0, AT_FDCWD, a[0], 0, a[1], a[2]);
	else if (nr == __NR_lchown)
		on_owner_mode(k, 0, AT_FDCWD, a[0], AT_SYMLINK_NOFOLLOW, a[1], a[2]);
	else if (nr == __NR_chmod)
		on_owner_mode(k, 1, AT_FDCWD, a[0], 0, a[1], 0);
	else if (nr == __NR_unlink)
		on_unlink(k, AT_FDCWD, a[0], 0);
	else if (nr == __NR_rmdir)
		on_unlink(k, AT_FDCWD, a[0], AT_REMOVEDIR);
	else if (nr == __NR_mkdir)
		on_make(k, 1, AT_FDCWD, a[0], (mode_t)a[1], 0);
	else if (nr == __NR_mknod)
		on_make(k, 0, AT_FDCWD, a[0], (mode_t)a[1], (dev_t)(uint32_t)a[2]);
#endif
#ifdef __NR_renameat
	else if (nr == __NR_renameat)
		on_move(k, 0, (int)a[0], a[1], (int)a[2], a[3], 0);
#endif
	else if (nr == __NR_openat)
		on_open(k, (int)a[0], a[1], a[2], (mode_t)a[3]);
	else if (nr == __NR_openat2) {
		memset(&how, 0, sizeof how);
		if (a[3] < sizeof how || read_mem(k, a[2], &how, sizeof how) != (ssize_t)sizeof how)
			sv_respond(k, -EINVAL, 0, 0);
		else if (how.resolve != 0)
			sv_respond(k, -ENOSYS, 0, 0);	/* callers fall back to openat */
		else
			on_open(k, (int)a[0], a[1], how.flags, (mode_t)how.mode);
	} else if (nr == __NR_execve)
		on_exec(k, AT_FDCWD, a[0], 0);
	else if (nr == __NR_execveat)
		on_exec(k, (int)a[0], a[1], a[4]);
	else if (nr == __NR_symlinkat)
		on_symlink(k, a[0], (int)a[1], a[2]);
	else if (nr == __NR_linkat)
		on_move(k, 1, (int)a[0], a[1], (int)a[2], a[3], (unsigned)a[4]);
	else if (nr == __NR_renameat2)
		on_move(k, 0, (int)a[0], a[1], (int)a[2], a[3], (unsigned)a[4]);
	else if (nr == __NR_truncate)
		on_truncate(k, a[0], (off_t)a[1]);
	else if (nr == __NR_fchownat)
		on_owner_mode(k, 0, (int)a[0], a[1], (unsigned)a[4], a[2], a[3]);
	else if (nr == __NR_fchmodat)
		on_owner_mode(k, 1, (int)a[0], a[1], 0, a[2], 0);
	else if (nr == SUPERVISE_NR_FCHMODAT2)
		on_owner_mode(k, 1, (int)a[0], a[1], (unsigned)a[3], a[2], 0);
	else if (nr == __NR_unlinkat)
		on_unlink(k, (int)a[0], a[1], (unsigned)a[2]);
	else if (nr == __NR_mkdirat)
		on_make(k, 1, (int)a[0], a[1], (mode_t)a[2], 0);
	else if (nr == __NR_mknodat)
		on_make(k, 0, (int)a[0], a[1], (mode_t)a[2], (dev_t)(uint32_t)a[3]);
	else if (nr == __NR_connect)
		on_connect(k, a[1], a[2]);
	else if (nr == __NR_setxattr || nr == __NR_removexattr)
		on_xattr(k, 1);
	else if (nr == __NR_lsetxattr || nr == __NR_lremovexattr)
		on_xattr(k, 0);
	else if (nr == __NR_mount)
		on_mount(k);
	else if (nr == __NR_setns)
		on_setns(k, (int)a[0]);
	else if (nr == __NR_pidfd_open)
		on_process(k, "pidfd", (pid_t)a[0]);
	else if (nr == __NR_pidfd_getfd)
		on_process(k, "pidfd", pidfd_pid(k->tid, (int)a[0]));
	else if (nr == __NR_ptrace && (a[0] == PTRACE_ATTACH_REQ || a[0] == PTRACE_SEIZE_REQ))
		on_process(k, "ptrace", (pid_t)a[1]);
	else if (nr == __NR_process_vm_readv || nr == __NR_process_vm_writev)
		on_process(k, "process_vm", (pid_t)a[0]);
	else
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}
