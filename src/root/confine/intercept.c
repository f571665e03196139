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
#include <sys/xattr.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include <linux/nsfs.h>
#include <linux/seccomp.h>

#include "intercept.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD	77	/* Linux 6.5: a pidfd of the peer */
#endif

#define PTRACE_ATTACH_REQ	16
#define PTRACE_SEIZE_REQ	0x4206
#define INTERP_DEPTH		5	/* interpreters the kernel follows (exec_binprm) */
#define BINFMT_MAX		4	/* matching binfmt_misc handlers judged */
#define CONNECT_WAIT_MS		2000	/* a peer on this host answers a connect */
#define RECV_HEADERS		16	/* recvmmsg headers read from the caller at once */

/* Read the caller's memory at addr (a short count where a page is not
 * mapped). */
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

/* Resolve and judge a path of the call's, already read. */
static int
judge_read(struct call *k, int dirfd, const char *path, int flags, struct judged *j)
{
	int rc, startfd;

	if ((rc = start_dir(k, dirfd, path, &startfd)) != 0)
		return rc;
	rc = judge_path(&k->jc, startfd, k->base, path, flags, j);
	if (startfd >= 0 && startfd != k->cwdfd)
		close(startfd);
	return rc;
}

/* Read, resolve and judge one path argument of the call. */
static int
judge_arg(struct call *k, int dirfd, uint64_t addr, int flags, char *path, struct judged *j)
{
	int rc;

	if ((rc = read_string(k, addr, path, PATH_MAX)) != 0)
		return rc;
	return judge_read(k, dirfd, path, flags, j);
}

/* Would mode make a set-id program (set-user-ID, or set-group-ID with
 * group execute: without it the bit means mandatory locking)? */
static int
mode_is_setid(mode_t mode)
{
	return (mode & S_ISUID) || (mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP);
}

/* The refusal of an act only a reviewed argv may show (acts.c). */
static const char *const act_refusal[] = {
	[ACT_SETID] = "a set-id file or file capability is made only by a command whose "
	    "argv shows it (chmod u+s PATH, install -m 4755, setcap): run that as a "
	    "command of its own, or install a reviewed file",
	[ACT_DEVICE] = "a device node is made only by a command whose argv shows it (mknod)",
	[ACT_GIVE] = "root does not give the requester's files to another owner unless the "
	    "argv shows it (chown, chgrp, install -o): copy reviewed content into place "
	    "instead (install -o root -m 0755 of a reviewed file or snapshot)",
};

/*
 * The object the walk judged (O_PATH, st its fstat): the walk's own
 * descriptor where it kept one, else (a procfs link, ".") opened again
 * by name, for the caller to compare. -1 with errno.
 */
static int
judged_object(struct judged *j, struct stat *st)
{
	int fd, e;

	if (j->objfd >= 0) {
		fd = j->objfd;
		j->objfd = -1;
		*st = j->st;
		return fd;
	}
	if ((fd = openat(j->dirfd, j->name, O_PATH | O_CLOEXEC | (j->magic ? 0 : O_NOFOLLOW))) < 0)
		return -1;
	if (fstat(fd, st) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * Before root opens an existing regular file: is it held open for writing,
 * or mapped shared and writable, by a process of the requester (a
 * descriptor kept from before a chown)? The kernel says whether anyone
 * holds it (held.c); only then are the requester's processes searched.
 * 1 with why, else 0.
 */
static int
held_by_requester(const struct call *k, int fd, const struct stat *st, char *why,
    size_t size)
{
	return S_ISREG(st->st_mode) && held_for_write(fd) != 0 &&
	    requester_holds(k->jc.w, st, why, size);
}

/*
 * open, openat, openat2, creat. Judged, then opened HERE as the caller
 * and the descriptor put into the caller: act, then check what was
 * reached. The object the judgement ended on is opened O_PATH first
 * (never blocks) and compared with it; a FIFO or a terminal, whose open
 * may wait for a writer or a carrier, is then left to the kernel (every
 * entry on its way was judged beyond the requester, so the kernel's
 * second lookup lands on the same object or one equally root's); a
 * regular file the requester still holds for writing is refused; and the
 * descriptor opened for the caller must be that object.
 */
static void
on_open(struct call *k, int dirfd, uint64_t addr, uint64_t flags, mode_t mode)
{
	char path[PATH_MAX], why[PATH_MAX + 256];
	struct judged j;
	struct stat st, pst;
	int tmpfile = (flags & O_TMPFILE) == O_TMPFILE, creates, writes, jf, rc, fd, pfd = -1;

	creates = (flags & O_CREAT) || tmpfile;
	writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) || tmpfile;
	if (tmpfile) {
		/* a file with no name in that directory: nobody else reaches it */
		jf = JUDGE_FOLLOW | JUDGE_DIR_OK;
	} else {
		jf = writes ? JUDGE_WRITE : JUDGE_DIR_OK;
		if (!(flags & O_NOFOLLOW) && (flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL))
			jf |= JUDGE_FOLLOW;
		if (flags & O_CREAT)
			jf |= JUDGE_MISSING;
		if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
			jf |= JUDGE_EXCL;
	}
	/* an O_PATH descriptor cannot be handed over (the kernel's ADDFD
	 * refuses it): the call continues, so, as for exec, every entry on
	 * the way, the last one too, must be beyond the requester */
	if (flags & O_PATH)
		jf &= ~JUDGE_DIR_OK;
	if (answered(k, "open", judge_arg(k, dirfd, addr, jf, path, &j), &j))
		return;
	if (!sv_still_valid(k)) {	/* its /proc files were another's: do nothing */
		judged_close(&j);
		return;
	}
	if ((flags & O_PATH) && !tmpfile) {
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		judged_close(&j);
		return;
	}
	if ((flags & O_CREAT) && !j.exists && mode_is_setid(mode) && !(k->sv->acts & ACT_SETID)) {
		sv_refuse(k, "open", j.shown, act_refusal[ACT_SETID]);
		judged_close(&j);
		return;
	}
	if (j.exists && !tmpfile) {
		if ((pfd = judged_object(&j, &pst)) < 0) {
			sv_respond(k, -errno, 0, 0);
			goto out;
		}
		if (!j.magic && (pst.st_dev != j.st.st_dev || pst.st_ino != j.st.st_ino)) {
			sv_refuse(k, "open", j.shown, "it was replaced while it was judged");
			goto out;
		}
		/* a process's file (/proc/PID/fd/N): judged now it is reached */
		if (j.magic && judge_object(k->jc.w, pfd, &pst, writes ? 0 : JUDGE_DIR_OK, j.shown,
		    j.why, sizeof j.why)) {
			sv_refuse(k, "open", j.shown, j.why);
			goto out;
		}
		if (S_ISFIFO(pst.st_mode) || S_ISCHR(pst.st_mode)) {
			/* /dev/tty means the caller's controlling terminal, not this
			 * process's: the caller has none (every command starts in a
			 * session of its own) unless it made one */
			if (S_ISCHR(pst.st_mode) && pst.st_rdev == makedev(5, 0) && caller_tty(k) == 0)
				sv_respond(k, -ENXIO, 0, 0);
			else
				sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
			goto out;
		}
		if (held_by_requester(k, pfd, &pst, why, sizeof why)) {
			sv_refuse(k, "open", j.shown, why);
			goto out;
		}
		if (S_ISDIR(pst.st_mode))
			flags |= O_DIRECTORY;
	}
	sv_as_caller(k, creates);
	fd = openat(j.dirfd, j.name, (int)flags | O_CLOEXEC | O_NOCTTY |
	    (j.magic ? 0 : O_NOFOLLOW), mode);
	rc = errno;
	sv_as_self(k);
	if (fd < 0) {
		sv_respond(k, -rc, 0, 0);
	} else if (fstat(fd, &st) != 0 || (pfd >= 0 && (st.st_dev != pst.st_dev ||
	    st.st_ino != pst.st_ino))) {
		sv_refuse(k, "open", j.shown, "it was replaced while it was judged");
	} else {
		if (writes)
			sv_note(k->sv, REC_WRITTEN, sv_record_string(j.shown, CONFINE_PATH_MAX));
		sv_respond_fd(k, fd, (flags & O_CLOEXEC) != 0);
	}
	if (fd >= 0)
		close(fd);
out:
	if (pfd >= 0)
		close(pfd);
	judged_close(&j);
}

/*
 * The SHA-256 of what fd holds, remembered by inode, size and times:
 * any write moves the change time, which nobody can set back. A file
 * changed in the last two seconds is not remembered: the kernel's clock
 * for file times may be coarse (a tick), and a same-size rewrite within
 * the tick of the hash would leave all three as they were.
 */
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
	struct timespec now;
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
	if (clock_gettime(CLOCK_REALTIME, &now) != 0 || st->st_ctim.tv_sec + 2 > now.tv_sec ||
	    st->st_mtim.tv_sec + 2 > now.tv_sec)
		return;
	i = next++ % (sizeof cache / sizeof cache[0]);
	cache[i].dev = st->st_dev;
	cache[i].ino = st->st_ino;
	cache[i].size = st->st_size;
	cache[i].mtime = st->st_mtim;
	cache[i].ctime = st->st_ctim;
	memcpy(cache[i].hex, hex, sizeof cache[i].hex);
}

static int judge_exe(struct call *, int, const char *, char *, size_t, char *, size_t, int,
    int);

/*
 * A program the kernel runs on its own for an executed file (a #!
 * interpreter, a binfmt_misc handler, an ELF interpreter), looked up as
 * the kernel does: absolute, or from the caller's cwd. Judged, opened and
 * compared with what was judged, then judged as an executable itself
 * (interps: may it name interpreters of its own). 0, or 1 with
 * shown/why; one that cannot be judged is refused.
 */
static int
judge_interp(struct call *k, const char *interp, int depth, int interps, char *shown,
    size_t shown_size, char *why, size_t size)
{
	struct judged j;
	struct stat st;
	int rc, startfd, fd;

	if ((rc = start_dir(k, AT_FDCWD, interp, &startfd)) == 0)
		rc = judge_path(&k->jc, startfd, k->base, interp, JUDGE_FOLLOW, &j);
	if (rc != 0) {
		snprintf(shown, shown_size, "%s", rc > 0 ? j.shown : interp);
		if (rc > 0)
			snprintf(why, size, "%s", j.why);
		else
			snprintf(why, size, "its interpreter %s cannot be judged (%s)", interp,
			    strerror(-rc));
		return 1;
	}
	fd = openat(j.dirfd, j.name, O_RDONLY | O_CLOEXEC | (j.magic ? 0 : O_NOFOLLOW));
	if (fd < 0 || fstat(fd, &st) != 0 || (!j.magic && (st.st_dev != j.st.st_dev ||
	    st.st_ino != j.st.st_ino))) {
		snprintf(shown, shown_size, "%s", j.shown);
		snprintf(why, size, "its interpreter %s cannot be judged (%s)", interp,
		    fd < 0 ? strerror(errno) : "replaced while it was judged");
		rc = 1;
	} else if ((rc = judge_exe(k, fd, interp, j.shown, sizeof j.shown, j.why, sizeof j.why,
	    depth, interps)) != 0) {
		snprintf(shown, shown_size, "%s", j.shown);
		snprintf(why, size, "%s", j.why);
	}
	if (fd >= 0)
		close(fd);
	judged_close(&j);
	return rc;
}

/*
 * An executable, open as fd and executed by the name name: judged, and
 * every program the kernel runs for it (interps): a matching binfmt_misc
 * handler (asked first, as the kernel does), the #! interpreter (nested
 * as deep as the kernel follows, INTERP_DEPTH), the ELF interpreter; each
 * noted with its hash. 0, or 1 with shown/why naming the refusal.
 */
static int
judge_exe(struct call *k, int fd, const char *name, char *shown, size_t shown_size, char *why,
    size_t size, int depth, int interps)
{
	char head[256], interp[PATH_MAX], hex[SHA256_HEX_LEN + 1];
	char handlers[BINFMT_MAX][PATH_MAX];
	struct stat st;
	ssize_t n;
	size_t len;
	int i, nh;

	if (fstat(fd, &st) != 0 || judge_object(k->jc.w, fd, &st, 0, shown, why, size))
		return 1;
	if (interps && (n = pread(fd, head, sizeof head - 1, 0)) > 0) {
		head[n] = '\0';
		nh = binfmt_handlers((const unsigned char *)head, (size_t)n, name, handlers,
		    BINFMT_MAX);
		*interp = '\0';
		if (n > 2 && head[0] == '#' && head[1] == '!') {
			len = strspn(head + 2, " \t");
			snprintf(interp, sizeof interp, "%.*s",
			    (int)strcspn(head + 2 + len, " \t\n"), head + 2 + len);
		}
		if ((nh > 0 || *interp != '\0') && depth >= INTERP_DEPTH) {
			snprintf(why, size, "it names interpreters deeper than the kernel follows (%d)",
			    INTERP_DEPTH);
			return 1;
		}
		for (i = 0; i < nh; i++)
			if (judge_interp(k, handlers[i], depth + 1, 1, shown, shown_size, why, size))
				return 1;
		if (*interp != '\0' && judge_interp(k, interp, depth + 1, 1, shown, shown_size,
		    why, size))
			return 1;
		if (*interp == '\0') {
			switch (elf_interp(fd, interp, sizeof interp)) {
			case 1:	/* loaded as it is: its own PT_INTERP means nothing */
				if (judge_interp(k, interp, depth, 0, shown, shown_size, why, size))
					return 1;
				break;
			case -1:
				snprintf(why, size, "its ELF headers cannot be read as the kernel reads "
				    "them");
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
	struct stat st;
	int rc, fd = -1;

	memset(&j, 0, sizeof j);
	j.dirfd = j.objfd = -1;
	if ((rc = read_string(k, addr, path, sizeof path)) != 0) {
		sv_respond(k, rc, 0, 0);
		return;
	}
	if (*path == '\0' && (flags & AT_EMPTY_PATH)) {
		fd = caller_fd(k, dirfd, O_RDONLY, j.shown, sizeof j.shown);
	} else {
		if (answered(k, "exec", judge_read(k, dirfd, path,
		    (flags & AT_SYMLINK_NOFOLLOW) ? 0 : JUDGE_FOLLOW, &j), &j))
			return;
		fd = openat(j.dirfd, j.name, O_RDONLY | O_CLOEXEC | (j.magic ? 0 : O_NOFOLLOW));
		if (fd >= 0 && !j.magic && (fstat(fd, &st) != 0 || st.st_dev != j.st.st_dev ||
		    st.st_ino != j.st.st_ino)) {
			sv_refuse(k, "exec", j.shown, "it was replaced while it was judged");
			close(fd);
			judged_close(&j);
			return;
		}
	}
	if (fd < 0)
		sv_respond(k, -errno, 0, 0);
	else if (judge_exe(k, fd, path, j.shown, sizeof j.shown, why, sizeof why, 0, 1))
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
	sv_as_self(k);
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
	sv_as_self(k);
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
	sv_as_self(k);
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

/* May the requester write st (its owner, or through its mode or ACL)? */
static int
requester_may_write(const struct writer *w, int fd, const struct stat *st)
{
	return !S_ISLNK(st->st_mode) && (inode_owned(w, st) || inode_writable(w, fd, st));
}

/* After root took the requester's write access away from the file fd:
 * does anyone still hold it open for writing? Where the kernel cannot
 * say (no leases there), the requester's processes are searched. */
static int
taken_while_held(const struct call *k, int fd, const struct stat *st)
{
	char why[256];
	int held = held_for_write(fd);

	return held > 0 || (held < 0 && requester_holds(k->jc.w, st, why, sizeof why));
}

/* Is this chown or chmod one root may make (acts.c)? The act refused, or
 * NULL. */
static const char *
owner_mode_act(const struct call *k, int is_chmod, const struct stat *st, uint64_t x)
{
	uid_t uid = (uid_t)(uint32_t)x;

	if (is_chmod && S_ISREG(st->st_mode) && mode_is_setid((mode_t)x) &&
	    !mode_is_setid(st->st_mode) && !(k->sv->acts & ACT_SETID))
		return act_refusal[ACT_SETID];
	if (!is_chmod && uid != (uid_t)-1 && touches_uid(k->jc.w, st->st_uid) &&
	    !touches_uid(k->jc.w, uid) && !(k->sv->acts & ACT_GIVE))
		return act_refusal[ACT_GIVE];
	return NULL;
}

/*
 * chown, chmod: the path judged as an entry (followed where the call
 * follows it); the runner opens the object itself (O_PATH, not following)
 * and changes THAT inode, so an entry swapped after the check changes
 * nothing else. A descriptor (AT_EMPTY_PATH) is the caller's, judged
 * when it was opened. When the change takes the requester's write access
 * away from a file that someone still holds open for writing (it may be
 * a descriptor the requester kept), it is undone and refused: act, then
 * check, since the requester cannot open it for writing after the act.
 */
static void
on_owner_mode(struct call *k, int is_chmod, int dirfd, uint64_t addr, unsigned atflags,
    uint64_t x, uint64_t y)
{
	const char *callname = is_chmod ? "chmod" : "chown", *refusal;
	char path[PATH_MAX], what[32];
	struct judged j;
	struct stat st, now;
	int rc, fd, e, before, undone;

	memset(&j, 0, sizeof j);
	j.dirfd = j.objfd = -1;
	if ((rc = read_string(k, addr, path, sizeof path)) != 0 && !(atflags & AT_EMPTY_PATH)) {
		sv_respond(k, rc, 0, 0);
		return;
	}
	if ((rc != 0 || *path == '\0') && (atflags & AT_EMPTY_PATH)) {
		if ((fd = caller_fd(k, dirfd, O_PATH, j.shown, sizeof j.shown)) >= 0 &&
		    fstat(fd, &st) != 0) {
			close(fd);
			fd = -1;
		}
	} else {
		if (answered(k, callname, judge_read(k, dirfd, path, JUDGE_ENTRY |
		    ((atflags & AT_SYMLINK_NOFOLLOW) ? 0 : JUDGE_FOLLOW), &j), &j))
			return;
		fd = judged_object(&j, &st);
	}
	snprintf(what, sizeof what, "/proc/self/fd/%d", fd);
	if (fd < 0) {
		sv_respond(k, -errno, 0, 0);
	} else if (j.exists && !j.magic && (st.st_dev != j.st.st_dev || st.st_ino != j.st.st_ino)) {
		sv_refuse(k, callname, j.shown, "it was replaced while it was judged");
	} else if (j.replaceable && !entry_own(k->jc.w, &st)) {
		sv_refuse(k, callname, j.shown, "the requester may have linked it there: it "
		    "has another name, and the requester may replace entries of its directory");
	} else if ((refusal = owner_mode_act(k, is_chmod, &st, x)) != NULL) {
		sv_refuse(k, callname, j.shown, refusal);
	} else if (sv_still_valid(k)) {
		before = S_ISREG(st.st_mode) && requester_may_write(k->jc.w, fd, &st);
		sv_as_caller(k, 0);
		if (!is_chmod) {
			rc = fchownat(fd, "", (uid_t)(uint32_t)x, (gid_t)(uint32_t)y, AT_EMPTY_PATH);
		} else if (S_ISLNK(st.st_mode)) {
			rc = -1;
			errno = EOPNOTSUPP;	/* Linux has no mode for a symlink */
		} else {
			rc = chmod(what, (mode_t)x);
		}
		e = errno;
		sv_as_self(k);
		if (rc == 0 && before && fstat(fd, &now) == 0 &&
		    !requester_may_write(k->jc.w, fd, &now) && taken_while_held(k, fd, &now)) {
			undone = fchownat(fd, "", st.st_uid, st.st_gid, AT_EMPTY_PATH) == 0 &&
			    chmod(what, st.st_mode & 07777) == 0;
			sv_refuse(k, callname, j.shown, undone ? "it is held open for writing (the "
			    "requester may keep a descriptor or a shared mapping of it): root does "
			    "not take it over; copy reviewed content into place instead" :
			    "it is held open for writing, and the change could not be undone");
		} else
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
		sv_as_self(k);
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
	} else if (!is_dir && (S_ISCHR(mode) || S_ISBLK(mode)) && !(k->sv->acts & ACT_DEVICE)) {
		sv_refuse(k, callname, j.shown, act_refusal[ACT_DEVICE]);
	} else if (!is_dir && (S_ISREG(mode) || (mode & S_IFMT) == 0) && mode_is_setid(mode) &&
	    !(k->sv->acts & ACT_SETID)) {
		sv_refuse(k, callname, j.shown, act_refusal[ACT_SETID]);
	} else if (sv_still_valid(k)) {
		sv_as_caller(k, 1);
		rc = is_dir ? mkdirat(j.dirfd, j.name, mode) : mknodat(j.dirfd, j.name, mode, dev);
		e = errno;
		sv_as_self(k);
		done(k, rc, e, j.shown);
	}
	judged_close(&j);
}

/* Does the xattr call set a file capability (security.capability), a
 * set-id program by another name, where the argv does not show it? */
static int
sets_capability(const struct call *k, int sets, uint64_t nameaddr)
{
	char name[XATTR_NAME_MAX + 1];

	return sets && !(k->sv->acts & ACT_SETID) &&
	    (read_string(k, nameaddr, name, sizeof name) != 0 ||
	    strcmp(name, "security.capability") == 0);
}

/* fsetxattr: the descriptor was judged when it was opened; a file
 * capability is the one thing judged here. */
static void
on_fxattr(struct call *k)
{
	char shown[PATH_MAX];

	if (sets_capability(k, 1, k->req->data.args[1])) {
		snprintf(shown, sizeof shown, "descriptor %d", (int)k->req->data.args[0]);
		sv_refuse(k, "xattr", shown, act_refusal[ACT_SETID]);
	} else if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

/* setxattr, removexattr (ACLs, file capabilities): only on an entry the
 * requester cannot replace, and then the call continues (as exec). */
static void
on_xattr(struct call *k, int follow, int sets)
{
	char path[PATH_MAX];
	struct judged j;

	if (answered(k, "xattr", judge_arg(k, AT_FDCWD, k->req->data.args[0],
	    JUDGE_ENTRY | (follow ? JUDGE_FOLLOW : 0), path, &j), &j))
		return;
	if (sets_capability(k, sets, k->req->data.args[1]))
		sv_refuse(k, "xattr", j.shown, act_refusal[ACT_SETID]);
	else if (j.replaceable)
		sv_refuse(k, "xattr", j.shown, "the requester may replace it: it is an entry "
		    "of a directory the requester may write");
	else if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
	judged_close(&j);
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

/* The caller's descriptor fd, duplicated here (the same open file
 * description: what is done on it is done on the caller's); -1. */
static int
caller_dup(const struct call *k, int fd)
{
	int pidfd, dup;

	if ((pidfd = (int)syscall(SYS_pidfd_open, k->jc.tgid, 0)) < 0)
		return -1;
	dup = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	return dup;
}

/* "ADDR port P" of an IP socket address, for the ledger */
static void
ip_shown(const struct sockaddr_storage *ss, char *out, size_t size)
{
	char text[INET6_ADDRSTRLEN] = "?";
	unsigned port;

	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)ss)->sin_addr, text,
		    sizeof text);
		port = ntohs(((const struct sockaddr_in *)(const void *)ss)->sin_port);
	} else {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)ss)->sin6_addr,
		    text, sizeof text);
		port = ntohs(((const struct sockaddr_in6 *)(const void *)ss)->sin6_port);
	}
	snprintf(out, size, "%s port %u", text, port);
}

static const char *
requester_word(const struct writer *w)
{
	return w->uid == 0 ? "a non-root user" : "the requester";
}

/*
 * The peer of the Unix socket sock, as the kernel recorded it when the
 * two were joined (whoever connected, or listened; a socketpair's
 * maker): its credentials (SO_PEERCRED), and where the kernel hands a
 * pidfd of that very process (SO_PEERPIDFD, Linux 6.5) and it still
 * lives, the process as process_touchable judges it (a user namespace
 * the requester made counts). 1 the requester's (why says whose), 0
 * not, -1 not known, 2 no peer at all.
 */
static int
unix_peer_touchable(const struct call *k, int sock, char *why, size_t size)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	int pidfd = -1, rc = 0;
	pid_t pid;

	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return -1;
	if (cred.pid == 0)
		return 2;
	if (touches_uid(k->jc.w, cred.uid)) {
		snprintf(why, size, "%s is its peer (uid %u)", requester_word(k->jc.w),
		    (unsigned)cred.uid);
		return 1;
	}
	len = sizeof pidfd;
	if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0)
		return 0;	/* an older kernel: the credentials are what is known */
	/* a process gone (now or during the look: its pid may be another's)
	 * is judged by its credentials alone, or by what was seen of it */
	if ((pid = pidfd_pid(0, pidfd)) > 0) {
		rc = process_touchable(k->jc.w, pid, why, size);
		if (rc != 1 && pidfd_pid(0, pidfd) != pid)
			rc = 0;
	}
	close(pidfd);
	return rc;
}

/*
 * A datagram to ss on this host: who is bound to that port now is who
 * gets it, and any process may bind a port from ip_unprivileged_port_start
 * on. Allowed below it (only root binds there) and where a socket not the
 * requester's holds the port (while it does, nobody else can bind it);
 * else a refusal into why.
 */
static int
datagram_refused(const struct call *k, const struct sockaddr_storage *ss, char *why,
    size_t size)
{
	char shown[INET6_ADDRSTRLEN + 16];
	unsigned port = ntohs(((const struct sockaddr_in *)(const void *)ss)->sin_port);
	uid_t uid;
	int rc;

	if (!address_local(ss) || port < unprivileged_port_start())
		return 0;
	ip_shown(ss, shown, sizeof shown);
	if ((rc = port_holder(k->tid, ss, 0, &uid, NULL)) < 0)
		snprintf(why, size, "who is bound to %s (UDP) cannot be told", shown);
	else if (rc == 0)
		snprintf(why, size, "nobody is bound to %s (UDP): %s could bind it after the "
		    "check", shown, requester_word(k->jc.w));
	else if (touches_uid(k->jc.w, uid))
		snprintf(why, size, "%s serves %s (UDP)", requester_word(k->jc.w), shown);
	else
		return 0;
	return 1;
}

/* Connect sock (the caller's, duplicated) to sa, waiting at most
 * CONNECT_WAIT_MS for a peer on this host to answer, the caller's own
 * timeout kept. 0 (connected), or an errno. */
static int
connect_for(int sock, const struct sockaddr *sa, socklen_t len)
{
	struct timeval old, wait = { CONNECT_WAIT_MS / 1000, 0 };
	socklen_t olen = sizeof old;
	struct pollfd pfd = { sock, POLLOUT, 0 };
	int rc, e, err = 0;

	if (getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &old, &olen) != 0)
		return errno;
	(void)setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait);
	rc = connect(sock, sa, len);
	e = rc == 0 ? 0 : errno;
	(void)setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &old, sizeof old);
	if (e != EINPROGRESS)
		return e;
	/* the caller's socket does not block: the answer is waited for here */
	if (poll(&pfd, 1, CONNECT_WAIT_MS) != 1)
		return ETIMEDOUT;
	olen = sizeof err;
	if (getsockopt(sock, SOL_SOCKET, SO_ERROR, &err, &olen) != 0)
		return errno;
	return err;
}

/*
 * connect: act, then judge the peer that answered. The runner connects
 * the caller's own socket (a pidfd_getfd duplicate) and asks who is at
 * the other end: for a Unix stream, the credentials of whoever listens
 * (SO_PEERCRED: the process that serves it, whoever owns the file); for
 * TCP on this host, the owner of the far end (an accepted socket is its
 * listener's; 0.0.0.0 and :: reach the loopback). A peer of the
 * requester's: the connection is shut down and the call fails EACCES. A
 * named socket is reached through its judged path, by descriptor. A
 * datagram socket only sets its default peer: judged as a datagram sent
 * there (datagram_refused), then the call continues.
 */
static void
on_connect(struct call *k, int fd, uint64_t addr, uint64_t len)
{
	const size_t at = offsetof(struct sockaddr_un, sun_path);
	char path[PATH_MAX], why[2 * PATH_MAX + 256], shown[PATH_MAX], peerwhy[PATH_MAX];
	struct sockaddr_storage ss, peer, self;
	struct sockaddr_un via;
	struct sockaddr *to = (struct sockaddr *)&ss;
	struct judged j;
	struct stat st;
	size_t n = len < sizeof ss ? (size_t)len : sizeof ss;
	socklen_t tolen = (socklen_t)n, plen = sizeof peer, slen = sizeof self, clen = sizeof(int);
	int sock = -1, pfd = -1, type = 0, e, rc;
	unsigned long ino = 0;
	uid_t uid;

	memset(&ss, 0, sizeof ss);
	memset(&j, 0, sizeof j);
	j.dirfd = j.objfd = -1;
	if (n <= at || read_mem(k, addr, &ss, n) != (ssize_t)n ||
	    (ss.ss_family != AF_UNIX && ss.ss_family != AF_INET && ss.ss_family != AF_INET6) ||
	    (ss.ss_family == AF_INET && n < sizeof(struct sockaddr_in)) ||
	    (ss.ss_family == AF_INET6 && n < sizeof(struct sockaddr_in6)) ||
	    (ss.ss_family != AF_UNIX && !address_local(&ss))) {
		/* not a peer this host serves (or the kernel's own error) */
		if (sv_still_valid(k))
			sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		return;
	}
	if ((sock = caller_dup(k, fd)) < 0 ||
	    getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &clen) != 0) {
		sv_respond(k, -EBADF, 0, 0);
		goto out;
	}
	if (ss.ss_family == AF_UNIX) {
		if (((struct sockaddr_un *)(void *)&ss)->sun_path[0] != '\0') {
			if (answered(k, "connect", judge_arg(k, AT_FDCWD, addr + at, JUDGE_FOLLOW,
			    path, &j), &j))
				goto out;
			if ((pfd = judged_object(&j, &st)) < 0 || (!j.magic &&
			    (st.st_dev != j.st.st_dev || st.st_ino != j.st.st_ino))) {
				sv_refuse(k, "connect", j.shown, "it was replaced while it was judged");
				goto out;
			}
			memset(&via, 0, sizeof via);
			via.sun_family = AF_UNIX;
			snprintf(via.sun_path, sizeof via.sun_path, "/proc/self/fd/%d", pfd);
			to = (struct sockaddr *)&via;
			tolen = sizeof via;
			snprintf(shown, sizeof shown, "%s", j.shown);
		} else
			snprintf(shown, sizeof shown, "@%.*s", (int)(n - at - 1),
			    ((struct sockaddr_un *)(void *)&ss)->sun_path + 1);
		if (type != SOCK_STREAM && type != SOCK_SEQPACKET) {
			/* a datagram socket's peer: the file was judged (a socket
			 * the requester owns is refused), the name reached by
			 * descriptor */
			if (!sv_still_valid(k))
				goto out;
			rc = connect(sock, to, tolen);
			sv_respond(k, rc == 0 ? 0 : -errno, 0, 0);
			goto out;
		}
	} else {
		ip_shown(&ss, shown, sizeof shown);
		if (type == SOCK_DGRAM) {
			if (datagram_refused(k, &ss, why, sizeof why))
				sv_refuse(k, "connect", shown, why);
			else if (sv_still_valid(k))
				sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
			goto out;
		}
		if (type != SOCK_STREAM) {
			if (sv_still_valid(k))
				sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
			goto out;
		}
	}
	if (!sv_still_valid(k))
		goto out;
	if ((e = connect_for(sock, to, tolen)) != 0) {
		if (e == ETIMEDOUT || e == EINPROGRESS) {
			(void)shutdown(sock, SHUT_RDWR);
			sv_refuse(k, "connect", shown, "its peer did not answer in time to be judged");
		} else
			sv_respond(k, -e, 0, 0);
		goto out;
	}
	if (ss.ss_family == AF_UNIX) {
		if ((rc = unix_peer_touchable(k, sock, peerwhy, sizeof peerwhy)) == 1)
			snprintf(why, sizeof why, "%s serves %s: %s", requester_word(k->jc.w),
			    shown, peerwhy);
		else if (rc == 0 && unix_listener(((struct sockaddr_un *)(void *)&ss)->sun_path[0] ?
		    &st : NULL, ((struct sockaddr_un *)(void *)&ss)->sun_path, n - at, &ino) == 1 &&
		    requester_serves(k->jc.w, ino, "its listening socket", peerwhy,
		    sizeof peerwhy))
			rc = 1, snprintf(why, sizeof why, "%s serves %s: %s",
			    requester_word(k->jc.w), shown, peerwhy);
	} else if (getpeername(sock, (struct sockaddr *)&peer, &plen) != 0 ||
	    getsockname(sock, (struct sockaddr *)&self, &slen) != 0)
		rc = -1;
	else if ((rc = tcp_peer_owner(k->tid, &peer, &self, &uid, &ino)) > 0) {
		if ((rc = touches_uid(k->jc.w, uid)) == 1)
			snprintf(why, sizeof why, "%s serves %s (TCP, uid %u)",
			    requester_word(k->jc.w), shown, (unsigned)uid);
		/* whoever holds the far end, or the listener it came through */
		else if ((ino != 0 && requester_serves(k->jc.w, ino, "the far end",
		    peerwhy, sizeof peerwhy)) || (port_holder(k->tid, &peer, 1, &uid,
		    &ino) == 1 && requester_serves(k->jc.w, ino, "its listening socket",
		    peerwhy, sizeof peerwhy)))
			rc = 1, snprintf(why, sizeof why, "%s serves %s (TCP): %s",
			    requester_word(k->jc.w), shown, peerwhy);
	}
	if (rc == 1 || rc < 0) {
		(void)shutdown(sock, SHUT_RDWR);
		if (rc < 0)
			snprintf(why, sizeof why, "its peer cannot be judged");
		sv_refuse(k, "connect", shown, why);
	} else
		sv_respond(k, 0, 0, 0);
out:
	if (pfd >= 0)
		close(pfd);
	if (sock >= 0)
		close(sock);
	judged_close(&j);
}

/*
 * A message sent to an address (sendto, sendmsg, sendmmsg; the filter
 * lets sendto without one through): a datagram to a port of this host as
 * datagram_refused judges it; TCP Fast Open (a connection made by the
 * send, with no connect to judge) to this host refused; a named Unix
 * socket's path judged as connect's. Then the call continues.
 */
static int
dest_refused(struct call *k, int fd, uint64_t addr, uint64_t len, int flags, char *shown,
    size_t shown_size, char *why, size_t size)
{
	const size_t at = offsetof(struct sockaddr_un, sun_path);
	struct sockaddr_storage ss;
	size_t n = len < sizeof ss ? (size_t)len : sizeof ss;
	char path[PATH_MAX];
	struct judged j;
	socklen_t tlen = sizeof(int);
	int sock, type = 0, rc;

	memset(&ss, 0, sizeof ss);
	if (addr == 0 || n <= at || read_mem(k, addr, &ss, n) != (ssize_t)n)
		return 0;
	if (ss.ss_family == AF_UNIX && ((struct sockaddr_un *)(void *)&ss)->sun_path[0]) {
		if ((rc = judge_arg(k, AT_FDCWD, addr + at, JUDGE_FOLLOW, path, &j)) > 0) {
			snprintf(shown, shown_size, "%s", j.shown);
			snprintf(why, size, "%s", j.why);
			return 1;
		}
		if (rc == 0)
			judged_close(&j);
		return 0;
	}
	if ((ss.ss_family != AF_INET || n < sizeof(struct sockaddr_in)) &&
	    (ss.ss_family != AF_INET6 || n < sizeof(struct sockaddr_in6)))
		return 0;
	if (!address_local(&ss))
		return 0;
	ip_shown(&ss, shown, shown_size);
	if ((sock = caller_dup(k, fd)) < 0)
		return 0;	/* the kernel fails it (EBADF) */
	rc = getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tlen);
	close(sock);
	if (rc != 0)
		return 0;
	if (type == SOCK_STREAM && (flags & MSG_FASTOPEN)) {
		snprintf(why, size, "TCP Fast Open to this host makes a connection no connect "
		    "judged: connect first");
		return 1;
	}
	return type == SOCK_DGRAM && datagram_refused(k, &ss, why, size);
}

static void
on_send(struct call *k, int fd, uint64_t addr, uint64_t len, int flags)
{
	char shown[PATH_MAX], why[PATH_MAX + 256];

	if (dest_refused(k, fd, addr, len, flags, shown, sizeof shown, why, sizeof why))
		sv_refuse(k, "send", shown, why);
	else if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

/* sendmsg (count 0) and sendmmsg (count messages): each one's address */
static void
on_sendmsg(struct call *k, int fd, uint64_t msgs, unsigned count, int flags)
{
	char shown[PATH_MAX], why[PATH_MAX + 256];
	struct mmsghdr m;
	unsigned i;

	if (count > UIO_MAXIOV)
		count = UIO_MAXIOV;
	for (i = 0; i < (count == 0 ? 1 : count); i++) {
		memset(&m, 0, sizeof m);
		if (read_mem(k, msgs + (uint64_t)i * (count == 0 ? sizeof m.msg_hdr : sizeof m),
		    &m.msg_hdr, sizeof m.msg_hdr) != (ssize_t)sizeof m.msg_hdr)
			break;	/* the kernel fails it (EFAULT) */
		if (dest_refused(k, fd, (uint64_t)(uintptr_t)m.msg_hdr.msg_name,
		    m.msg_hdr.msg_namelen, flags, shown, sizeof shown, why, sizeof why)) {
			sv_refuse(k, "send", shown, why);
			return;
		}
	}
	if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

/*
 * recvmsg (count 0) and recvmmsg (count messages): descriptors
 * (SCM_RIGHTS) are taken only from a peer judged beyond the requester.
 * Only a Unix socket carries them, and only into a control buffer (the
 * kernel closes those that find none), so anything else continues. A
 * stream or seqpacket socket hears only its peer, fixed since the two
 * were joined: judged as connect judges it. A datagram socket with a
 * name (a path, an abstract or automatic name) hears whoever can
 * address it, senders nobody can judge before the message is taken:
 * its control data is refused. An unnamed one hears only its pair.
 */
static void
on_recvmsg(struct call *k, int fd, uint64_t msgs, unsigned count)
{
	char shown[PATH_MAX], why[2 * PATH_MAX], peerwhy[PATH_MAX];
	/* the headers are read RECV_HEADERS at a time, each one read */
	unsigned char heads[RECV_HEADERS * sizeof(struct mmsghdr)];
	const size_t step = count == 0 ? sizeof(struct msghdr) : sizeof(struct mmsghdr);
	struct sockaddr_un self;
	struct msghdr h;
	struct stat st;
	socklen_t slen = sizeof self, olen = sizeof(int);
	unsigned total, i, j, n;
	ssize_t got;
	int sock = -1, domain = 0, type = 0, control = 0, rc;

	total = count == 0 ? 1 : count > UIO_MAXIOV ? UIO_MAXIOV : count;
	for (i = 0; i < total && !control; i += n) {
		n = total - i < RECV_HEADERS ? total - i : RECV_HEADERS;
		got = read_mem(k, msgs + (uint64_t)i * step, heads, n * step);
		if (got < (ssize_t)sizeof h)
			break;	/* the kernel fails it (EFAULT) there */
		for (j = 0; j < n && (size_t)got >= j * step + sizeof h && !control; j++) {
			memcpy(&h, heads + j * step, sizeof h);
			control = h.msg_control != NULL && h.msg_controllen > 0;
		}
		if ((size_t)got < n * step)
			break;
	}
	if (!control || (sock = caller_dup(k, fd)) < 0 ||
	    getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &olen) != 0 || domain != AF_UNIX ||
	    getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &olen) != 0 ||
	    getsockname(sock, (struct sockaddr *)&self, &slen) != 0) {
		/* no descriptor can come (or the kernel fails the call itself) */
		if (sv_still_valid(k))
			sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		goto out;
	}
	if (slen > offsetof(struct sockaddr_un, sun_path) && self.sun_path[0] != '\0')
		snprintf(shown, sizeof shown, "%.*s", (int)(slen - offsetof(struct sockaddr_un,
		    sun_path)), self.sun_path);
	else if (slen > offsetof(struct sockaddr_un, sun_path) + 1)
		snprintf(shown, sizeof shown, "@%.*s", (int)(slen - offsetof(struct sockaddr_un,
		    sun_path) - 1), self.sun_path + 1);
	else
		snprintf(shown, sizeof shown, "socket:[%lu]", fstat(sock, &st) == 0 ?
		    (unsigned long)st.st_ino : 0UL);
	if (type == SOCK_DGRAM && slen > offsetof(struct sockaddr_un, sun_path))
		rc = 1, snprintf(why, sizeof why, "descriptors sent to a named datagram socket "
		    "come from whoever can address it, which cannot be judged");
	else if ((rc = unix_peer_touchable(k, sock, peerwhy, sizeof peerwhy)) == 1)
		snprintf(why, sizeof why, "descriptors would come from %s: %s",
		    requester_word(k->jc.w), peerwhy);
	else if (rc < 0)
		snprintf(why, sizeof why, "its peer cannot be judged");
	if (rc == 1 || rc < 0)
		sv_refuse(k, "receive", shown, why);
	else if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
out:
	if (sock >= 0)
		close(sock);
}

/*
 * Calls that name a path the kernel then uses as it is: chroot (the new
 * root: every later path of the caller starts there), swapon and acct
 * (root writes to the file), umount2 (what is unmounted), utimensat (the
 * times of an entry), bind of a Unix socket (the kernel makes the new
 * name; the way to it judged as mknod's). Judged with flags, then the
 * call continues: every entry on the way was judged beyond the
 * requester, so the kernel's lookup lands on the same object or one
 * equally root's.
 */
static void
on_path_call(struct call *k, const char *callname, int dirfd, uint64_t addr, int flags)
{
	char path[PATH_MAX];
	struct judged j;

	if (addr == 0) {	/* acct(NULL): accounting off; futimens */
		if (sv_still_valid(k))
			sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		return;
	}
	if (answered(k, callname, judge_arg(k, dirfd, addr, flags, path, &j), &j))
		return;
	if (j.replaceable && !(flags & JUDGE_MISSING)) {
		sv_refuse(k, callname, j.shown, "the requester may replace it: it is an entry "
		    "of a directory the requester may write");
		judged_close(&j);
		return;
	}
	/* closed before the call goes on: umount fails (EBUSY) while anyone,
	 * the walk's descriptors too, holds the mount it names */
	judged_close(&j);
	if (sv_still_valid(k))
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

/* pivot_root: the new root and where the old one goes, both judged as
 * chroot's (a root the requester could change is its) */
static void
on_pivot_root(struct call *k)
{
	char path[PATH_MAX];
	struct judged j;

	if (answered(k, "chroot", judge_arg(k, AT_FDCWD, k->req->data.args[0], JUDGE_FOLLOW,
	    path, &j), &j))
		return;
	judged_close(&j);
	on_path_call(k, "chroot", AT_FDCWD, k->req->data.args[1], JUDGE_FOLLOW);
}

static void
on_bind(struct call *k, uint64_t addr, uint64_t len)
{
	const size_t at = offsetof(struct sockaddr_un, sun_path);
	struct sockaddr_un sun;
	size_t n = len < sizeof sun ? (size_t)len : sizeof sun;

	memset(&sun, 0, sizeof sun);
	if (n > at && read_mem(k, addr, &sun, n) == (ssize_t)n && sun.sun_family == AF_UNIX &&
	    sun.sun_path[0] != '\0')
		on_path_call(k, "bind", AT_FDCWD, addr + at, JUDGE_ENTRY | JUDGE_MISSING);
	else if (sv_still_valid(k))
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
	/* the thread group: pidfd_open refuses a thread that leads none */
	if ((pidfd = (int)syscall(SYS_pidfd_open, k->jc.tgid, 0)) < 0 ||
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
	else if (nr == SC_NR_FCHMODAT2)
		on_owner_mode(k, 1, (int)a[0], a[1], (unsigned)a[3], a[2], 0);
	else if (nr == __NR_unlinkat)
		on_unlink(k, (int)a[0], a[1], (unsigned)a[2]);
	else if (nr == __NR_mkdirat)
		on_make(k, 1, (int)a[0], a[1], (mode_t)a[2], 0);
	else if (nr == __NR_mknodat)
		on_make(k, 0, (int)a[0], a[1], (mode_t)a[2], (dev_t)(uint32_t)a[3]);
	else if (nr == __NR_connect)
		on_connect(k, (int)a[0], a[1], a[2]);
	else if (nr == __NR_sendto)
		on_send(k, (int)a[0], a[4], a[5], (int)a[3]);
	else if (nr == __NR_sendmsg)
		on_sendmsg(k, (int)a[0], a[1], 0, (int)a[2]);
	else if (nr == __NR_sendmmsg)
		on_sendmsg(k, (int)a[0], a[1], (unsigned)a[2], (int)a[3]);
	else if (nr == __NR_recvmsg)
		on_recvmsg(k, (int)a[0], a[1], 0);
	else if (nr == __NR_recvmmsg)
		on_recvmsg(k, (int)a[0], a[1], (unsigned)a[2]);
	else if (nr == __NR_setxattr || nr == __NR_removexattr)
		on_xattr(k, 1, nr == __NR_setxattr);
	else if (nr == __NR_lsetxattr || nr == __NR_lremovexattr)
		on_xattr(k, 0, nr == __NR_lsetxattr);
	else if (nr == __NR_fsetxattr)
		on_fxattr(k);
	else if (nr == __NR_mount)
		on_mount(k);
	else if (nr == __NR_fchmod)
		on_owner_mode(k, 1, (int)a[0], 0, AT_EMPTY_PATH, a[1], 0);
	else if (nr == __NR_chroot)
		on_path_call(k, "chroot", AT_FDCWD, a[0], JUDGE_FOLLOW);
	else if (nr == __NR_swapon)
		on_path_call(k, "swapon", AT_FDCWD, a[0], JUDGE_FOLLOW | JUDGE_WRITE);
	else if (nr == __NR_acct)
		on_path_call(k, "acct", AT_FDCWD, a[0], JUDGE_FOLLOW | JUDGE_WRITE);
	else if (nr == __NR_umount2)
		on_path_call(k, "umount", AT_FDCWD, a[0],
		    (a[1] & UMOUNT_NOFOLLOW) ? JUDGE_ENTRY : JUDGE_FOLLOW | JUDGE_ENTRY);
	else if (nr == __NR_utimensat)
		on_path_call(k, "utimensat", (int)a[0], a[1], JUDGE_ENTRY |
		    ((a[3] & AT_SYMLINK_NOFOLLOW) ? 0 : JUDGE_FOLLOW));
	else if (nr == __NR_bind)
		on_bind(k, a[1], a[2]);
	else if (nr == __NR_pivot_root)
		on_pivot_root(k);
	else if (nr == __NR_swapoff)
		on_path_call(k, "swapoff", AT_FDCWD, a[0], JUDGE_FOLLOW);
	else if (nr == __NR_quotactl)
		on_path_call(k, "quotactl", AT_FDCWD, a[1], JUDGE_FOLLOW);
#ifdef __NR_utime
	else if (nr == __NR_utime || nr == __NR_utimes)
		on_path_call(k, "utimensat", AT_FDCWD, a[0], JUDGE_ENTRY | JUDGE_FOLLOW);
	else if (nr == __NR_futimesat)
		on_path_call(k, "utimensat", (int)a[0], a[1], JUDGE_ENTRY | JUDGE_FOLLOW);
#endif
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
	else if (nr == __NR_ptrace)
		sv_respond(k, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);	/* not an attach */
	else
		sv_respond(k, -ENOSYS, 0, 0);	/* notified, and no rule here: never unjudged */
}
