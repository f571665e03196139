/* SPDX-License-Identifier: ISC */
/*
 * The run-time supervisor of ROOT commands (promise 8). A command starts
 * under a seccomp filter, installed by the child just before it executes
 * the sealed descriptor (supervise_child) and inherited by everything it
 * starts, that sends the calls reaching files, programs and processes to
 * the runner as user notifications; the runner receives each here
 * (supervise_handle), learns who made it (its thread group, fs identity,
 * groups, umask) and hands it to intercept.c, which judges and answers.
 *
 * Which calls are notified, which fail with ENOSYS and which pass is
 * syscalls.c's table, with the reason for each; every call newer than
 * those it names fails with ENOSYS (a new kernel's new way to a file).
 * Another ABI (i386, x32) kills the process: its calls have other
 * numbers. Refusals are EACCES, each recorded with
 * the path and the reason; with what it executed (path, SHA-256) and
 * wrote, bounded, they become the command's "confinement" ledger record
 * (supervise_record).
 */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "intercept.h"

#if defined(__x86_64__)
#define SUPERVISE_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SUPERVISE_ARCH	AUDIT_ARCH_AARCH64
#endif

#define STATUS_MAX	(1024 * 1024)	/* /proc/PID/status with 65536 groups */
#define STATUS_FDS	8	/* callers whose status file is kept open */
#define FILTER_MAX	1024	/* instructions: every rule of syscalls.c, and a head */
#define BURST_MAX	64	/* calls answered before the caller's loop runs again */

/* the groups and fs identity of the runner, restored after each call
 * made as a caller */
static gid_t self_groups[NGROUPS_MAX];
static int self_ngroups = -1;
/* the runner's own umask (077), and the one it has now: the last
 * caller's while a burst lasts (only calls made for callers create files
 * then), its own again when the burst ends */
static mode_t umask_self, umask_now;
static char status_buf[STATUS_MAX + 1];
/*
 * The status files of the last callers, kept open: a caller's status is
 * read anew for every call (nothing of it is remembered), but opening
 * and closing the file each time was two of a call's ~25 system calls.
 * The descriptor is bound to the thread, not to its number: once the
 * thread has ended, a read fails (ESRCH) and the number, if used again,
 * is opened afresh. A free slot has tid 0.
 */
static struct {
	pid_t	 tid;
	int	 fd;
} status_fds[STATUS_FDS];
static unsigned status_next;
static gid_t caller_groups[NGROUPS_MAX];

static struct seccomp_notif_sizes sizes;
static struct seccomp_notif *req;
static struct seccomp_notif_resp *resp;

/*
 * The filter with a listener; once the runner has received a call, only
 * a fatal signal interrupts it (WAIT_KILLABLE_RECV, Linux 5.19): another
 * signal would make the kernel drop the call and the caller make it again,
 * and what the runner did for it (a mkdir, an O_EXCL create) would then
 * fail as done already. Older kernels (EINVAL) get the filter without.
 */
static int
install_filter(const struct sock_fprog *prog)
{
	int fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, prog);

	if (fd < 0 && errno == EINVAL)
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, prog);
	return fd;
}

/* In the child, after fork (no allocation): the filter, then the
 * listener to the runner over sock. 0, or -1 with errno. */
int
supervise_child(int sock)
{
#ifdef SUPERVISE_ARCH
	static struct sock_filter f[FILTER_MAX];
	const struct syscall_rule *r;
	struct sock_fprog prog;
	size_t k = 0, i;
	int listener, e;
	char ack;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SUPERVISE_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
	/* a call newer than this code has judged (a new way to a file) */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, SC_NR_KNOWN_LAST, 0, 1);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
	/* nr in A; each rule's block answers, or falls through with nr */
	for (i = 0; i < syscall_nrules; i++) {
		uint32_t lo;

		r = &syscall_rules[i];
		if (r->kind == SC_ALLOWED)
			continue;
		if (k + 8 >= FILTER_MAX) {
			errno = E2BIG;
			return -1;
		}
		if (r->kind != SC_WHEN) {
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			    (unsigned)r->nr, 0, 1);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, r->kind == SC_ENOSYS ?
			    SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA) : SECCOMP_RET_USER_NOTIF);
			continue;
		}
		/* notified when (args[when_arg] & when_bits) != 0, or, bits 0,
		 * when the argument (both words of a pointer) is not 0 */
		lo = (uint32_t)offsetof(struct seccomp_data, args) + 8 * r->when_arg;
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)r->nr, 0, 6);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo);
		if (r->when_bits != 0) {
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, r->when_bits,
			    3, 2);
			/* two no-ops keep every block 7 long */
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0);
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0);
		} else {
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3);
			f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo + 4);
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
		}
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)k;
	prog.filter = f;
	/* root with CAP_SYS_ADMIN needs no no_new_privs; without it (or not
	 * root) the kernel asks for it */
	listener = install_filter(&prog);
	if (listener < 0 && errno == EACCES) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			return -1;
		listener = install_filter(&prog);
	}
	if (listener < 0)
		return -1;
	/* the number of the listener, which the runner takes with
	 * pidfd_getfd (sendmsg would be a call the filter sends it now);
	 * then the command lets go of it: it must never hold its own */
	e = write(sock, &listener, sizeof listener) == (ssize_t)sizeof listener &&
	    read(sock, &ack, 1) == 1 ? 0 : EPROTO;
	close(listener);
	errno = e;
	return e == 0 ? 0 : -1;
#else
	(void)sock;
	errno = ENOSYS;
	return -1;
#endif
}

/* The listener of the child pid, whose number it wrote to sock; -1 when
 * it wrote none. */
int
supervise_receive(struct supervisor *sv, int sock, pid_t pid)
{
	char ack = 'l';
	ssize_t n;
	int num, pidfd, fd;

	while ((n = read(sock, &num, sizeof num)) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof num || (pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0)
		return -1;
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, num, 0);
	close(pidfd);
	if (fd < 0 || write(sock, &ack, 1) != 1) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	sv->listener = fd;
	/* the caller and the runner hand the CPU to each other directly
	 * (Linux 6.6); without it, the scheduler's way */
	(void)ioctl(fd, SUPERVISE_NOTIF_SET_FLAGS, SUPERVISE_FD_SYNC_WAKE_UP);
	return fd;
}

void
supervise_init(struct supervisor *sv, const struct writer *requester)
{
	memset(sv, 0, sizeof *sv);
	sv->requester = requester;
	sv->listener = -1;
	sv->executed = json_array();
	sv->written = json_array();
	sv->refused = json_array();
	if (req == NULL) {
		if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
			sizes.seccomp_notif = sizeof *req;
			sizes.seccomp_notif_resp = sizeof *resp;
		}
		if (sizes.seccomp_notif < sizeof *req)
			sizes.seccomp_notif = sizeof *req;
		if (sizes.seccomp_notif_resp < sizeof *resp)
			sizes.seccomp_notif_resp = sizeof *resp;
		req = xcalloc(1, sizes.seccomp_notif);
		resp = xcalloc(1, sizes.seccomp_notif_resp);
	}
	if (self_ngroups < 0)
		self_ngroups = getgroups(NGROUPS_MAX, self_groups);
	umask_self = umask_now = umask(077);
	umask(umask_self);
}

/* A name the command met, for the ledger: valid UTF-8 (other bytes as
 * \xNN), at most max - 1 bytes, otherwise as it is (the finisher redacts
 * it before anyone sees it). */
json_t *
sv_record_string(const char *s, size_t max)
{
	char *safe = text_json_safe(s, strlen(s));
	size_t len = strlen(safe);
	json_t *j;

	if (len >= max) {	/* cut, not inside a character */
		len = max - 1;
		while (len > 0 && ((unsigned char)safe[len] & 0xc0) == 0x80)
			len--;
	}
	j = json_stringn(safe, len);
	free(safe);
	return j;
}

void
sv_note(struct supervisor *sv, int kind, json_t *item)
{
	json_t *list = kind == REC_EXECUTED ? sv->executed :
	    kind == REC_WRITTEN ? sv->written : sv->refused;

	if (json_array_size(list) < CONFINE_LIST_MAX)
		json_array_append_new(list, item);
	else {
		json_decref(item);
		sv->omitted[kind]++;
	}
}

/* Is pid under a seccomp filter (status "Seccomp: 2")? */
static int
filtered(pid_t pid)
{
	char buf[4096], *at;
	ssize_t n;
	int fd;

	if ((fd = sv_proc_open(pid, "status", O_RDONLY)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return (at = strstr(buf, "\nSeccomp:")) != NULL && strtol(at + 9, NULL, 10) == 2;
}

/*
 * The command's processes still running under the filter once it has
 * ended (a daemon it started without systemd): from now on nobody answers
 * their supervised calls, which fail with ENOSYS. Named for the ledger.
 */
static json_t *
left_running(void)
{
	pid_t pids[CONFINE_LIST_MAX];
	char comm[64];
	json_t *list = json_array();
	size_t n = descendants_alive(pids, CONFINE_LIST_MAX), i, len;
	ssize_t got;
	int fd;

	for (i = 0; i < n; i++) {
		if (!filtered(pids[i]) || (fd = sv_proc_open(pids[i], "comm", O_RDONLY)) < 0)
			continue;
		got = read(fd, comm, sizeof comm - 1);
		close(fd);
		len = got > 0 ? (size_t)got : 0;
		if (len > 0 && comm[len - 1] == '\n')
			len--;
		comm[len] = '\0';
		json_array_append_new(list, json_pack("{s:I,s:o}", "pid", (json_int_t)pids[i],
		    "command", sv_record_string(comm, sizeof comm)));
	}
	return list;
}

/* The command's record for its ledger entry; the lists start again. */
json_t *
supervise_record(struct supervisor *sv)
{
	json_t *r = json_pack("{s:o,s:o,s:o,s:{s:I,s:I,s:I},s:b,s:o}",
	    "executed", sv->executed, "written", sv->written, "refused", sv->refused,
	    "omitted", "executed", (json_int_t)sv->omitted[REC_EXECUTED],
	    "written", (json_int_t)sv->omitted[REC_WRITTEN],
	    "refused", (json_int_t)sv->omitted[REC_REFUSED], "unconfined", 0,
	    "left_running", sv->listener >= 0 ? left_running() : json_array());

	sv->executed = json_array();
	sv->written = json_array();
	sv->refused = json_array();
	memset(sv->omitted, 0, sizeof sv->omitted);
	return r;
}

void
supervise_end(struct supervisor *sv)
{
	unsigned i;

	for (i = 0; i < STATUS_FDS; i++)
		if (status_fds[i].tid != 0) {
			close(status_fds[i].fd);
			status_fds[i].tid = 0;
		}
	if (sv->listener >= 0)
		close(sv->listener);
	sv->listener = -1;
	json_decref(sv->executed);
	json_decref(sv->written);
	json_decref(sv->refused);
	sv->executed = sv->written = sv->refused = NULL;
}

void
sv_respond(const struct call *k, int error, int64_t val, uint32_t flags)
{
	memset(resp, 0, sizes.seccomp_notif_resp);
	resp->id = k->req->id;
	resp->error = error;
	resp->val = val;
	resp->flags = flags;
	/* ENOENT: the caller is gone (killed, or its call interrupted) */
	(void)ioctl(k->sv->listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
}

/* The call fails with EACCES; the ledger says why. */
void
sv_refuse(const struct call *k, const char *callname, const char *path, const char *why)
{
	if (!sv_still_valid(k))	/* its /proc files may have been another's */
		return;
	sv_note(k->sv, REC_REFUSED, json_pack("{s:s,s:o,s:o}", "call", callname,
	    "path", sv_record_string(path, CONFINE_PATH_MAX),
	    "reason", sv_record_string(why, CONFINE_REASON_MAX)));
	sv_respond(k, -EACCES, 0, 0);
}

/* The call returns fd, put into the caller atomically. */
void
sv_respond_fd(const struct call *k, int fd, int cloexec)
{
	struct seccomp_notif_addfd a;

	memset(&a, 0, sizeof a);
	a.id = k->req->id;
	a.flags = SECCOMP_ADDFD_FLAG_SEND;
	a.srcfd = (uint32_t)fd;
	a.newfd_flags = cloexec ? O_CLOEXEC : 0;
	if (ioctl(k->sv->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0 && errno != ENOENT &&
	    errno != EINPROGRESS)
		sv_respond(k, -errno, 0, 0);
}

int
sv_still_valid(const struct call *k)
{
	uint64_t id = k->req->id;

	return ioctl(k->sv->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

int
sv_proc_open(pid_t tid, const char *what, int flags)
{
	char p[128];

	snprintf(p, sizeof p, "/proc/%d/%s", (int)tid, what);
	return open(p, flags | O_CLOEXEC);
}

void
sv_proc_readlink(pid_t tid, const char *what, char *out, size_t size)
{
	char p[128];
	ssize_t n;

	snprintf(p, sizeof p, "/proc/%d/%s", (int)tid, what);
	if ((n = readlink(p, out, size - 1)) < 0)
		n = 0;
	out[n] = '\0';
}

/* The status file of thread tid, kept open (status_fds); anew: the
 * one kept could not be read. -1 when it cannot be opened. */
static int
status_fd(pid_t tid, int anew)
{
	unsigned i;
	int fd;

	if (tid <= 0)	/* not in this process's pid namespace */
		return -1;
	for (i = 0; i < STATUS_FDS; i++)
		if (status_fds[i].tid == tid) {
			if (!anew)
				return status_fds[i].fd;
			close(status_fds[i].fd);
			status_fds[i].tid = 0;
			break;
		}
	if ((fd = sv_proc_open(tid, "status", O_RDONLY)) < 0)
		return -1;
	if (i == STATUS_FDS) {
		i = status_next++ % STATUS_FDS;
		if (status_fds[i].tid != 0)
			close(status_fds[i].fd);
	}
	status_fds[i].tid = tid;
	status_fds[i].fd = fd;
	return fd;
}

/* The whole of a status file, read from its start (procfs makes it anew
 * for each read at offset 0; a short read is its end). */
static ssize_t
read_status(int fd)
{
	ssize_t n;
	size_t len = 0;

	while (len < STATUS_MAX && (n = pread(fd, status_buf + len, STATUS_MAX - len,
	    (off_t)len)) > 0) {
		len += (size_t)n;
		if ((size_t)n < STATUS_MAX - (len - (size_t)n))
			break;
	}
	if (len == 0)
		return -1;
	status_buf[len] = '\0';
	return (ssize_t)len;
}

/* The caller's thread group, umask, fs identity and groups. */
static int
load_status(struct call *k)
{
	unsigned long u[4], g[4];
	char *line, *s, *end;
	int fd, have = 0;

	if ((fd = status_fd(k->tid, 0)) < 0)
		return -1;
	if (read_status(fd) < 0 && ((fd = status_fd(k->tid, 1)) < 0 || read_status(fd) < 0))
		return -1;
	k->ngroups = 0;
	for (line = status_buf; line != NULL && *line; line = s) {
		if ((s = strchr(line, '\n')) != NULL)
			*s++ = '\0';
		if (strncmp(line, "Tgid:", 5) == 0 && (have |= 1))
			k->jc.tgid = (pid_t)strtol(line + 5, NULL, 10);
		else if (strncmp(line, "Umask:", 6) == 0 && (have |= 2))
			k->umask = (mode_t)strtoul(line + 6, NULL, 8) & 0777;
		else if (strncmp(line, "Uid:", 4) == 0 &&
		    sscanf(line + 4, "%lu %lu %lu %lu", &u[0], &u[1], &u[2], &u[3]) == 4 &&
		    (have |= 4))
			k->fsuid = (uid_t)u[3];
		else if (strncmp(line, "Gid:", 4) == 0 &&
		    sscanf(line + 4, "%lu %lu %lu %lu", &g[0], &g[1], &g[2], &g[3]) == 4 &&
		    (have |= 8))
			k->fsgid = (gid_t)g[3];
		else if (strncmp(line, "Groups:", 7) == 0) {
			for (line += 7; k->ngroups < NGROUPS_MAX; line = end) {
				unsigned long v = strtoul(line, &end, 10);

				if (end == line)
					break;
				caller_groups[k->ngroups++] = (gid_t)v;
			}
			/* the rest (memory, signals, capabilities) is not
			 * asked: Groups follows the others in every kernel */
			if (have == 15)
				break;
		}
	}
	return have == 15 ? 0 : -1;
}

/* Make the following file calls as the caller would (its fs uid and
 * gid, groups and umask); as_self undoes the identity. Root's calls need
 * no identity change. */
void
sv_as_caller(const struct call *k, int creates)
{
	if (creates && k->umask != umask_now) {
		umask(k->umask);
		umask_now = k->umask;
	}
	if (k->fsuid == 0 && k->fsgid == 0)
		return;
	(void)setgroups((size_t)k->ngroups, caller_groups);
	(void)setfsgid(k->fsgid);
	(void)setfsuid(k->fsuid);
}

void
sv_as_self(const struct call *k)
{
	if (k->fsuid == 0 && k->fsgid == 0)
		return;
	(void)setfsuid(0);
	(void)setfsgid(getegid());
	(void)setgroups((size_t)(self_ngroups > 0 ? self_ngroups : 0), self_groups);
}

/* Answer one call of the supervised command (the listener is readable). */
static void
supervise_handle(struct supervisor *sv)
{
	struct call k;
	memset(req, 0, sizes.seccomp_notif);
	if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0)
		return;	/* EINTR, or the caller is gone (ENOENT) */
	sv->calls++;
	memset(&k, 0, sizeof k);
	k.sv = sv;
	k.req = req;
	k.tid = (pid_t)req->pid;
	k.cwdfd = k.jc.rootfd = -1;
	k.jc.w = sv->requester;
	k.jc.tid = k.tid;
	/* what was read of /proc/TID (its status too) is known to be the
	 * caller's only once the call is still valid after: intercept asks
	 * before it acts or refuses; a call answered otherwise needs not,
	 * as an answer to a call that is gone goes nowhere */
	if (load_status(&k) != 0)
		sv_respond(&k, -EACCES, 0, 0);
	else
		intercept(&k);
	if (k.jc.own_root)
		close(k.jc.rootfd);
	if (k.cwdfd >= 0)
		close(k.cwdfd);
}

/*
 * Calls one after another, while they come without a wait (at most
 * BURST_MAX, then back to the caller's loop: its output, its deadline).
 * A command making many calls in a row (tar, dpkg) spares the loop's
 * round of waitpid and poll between two of them.
 */
void
supervise_burst(struct supervisor *sv)
{
	struct pollfd pfd = { sv->listener, POLLIN, 0 };
	int n = 0;

	do
		supervise_handle(sv);
	while (++n < BURST_MAX && poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN));
	if (umask_now != umask_self) {
		umask(umask_self);
		umask_now = umask_self;
	}
}

/*
 * Can commands be supervised here? A child installs the filter and asks
 * for an open that this process answers with a descriptor of its own:
 * the whole round trip, as a command will need it. 0, or -1 with why.
 */
int
supervise_probe(char *why, size_t size)
{
	struct supervisor sv;
	struct writer nobody = { .uid = 65534 };
	struct pollfd pfd;
	int sp[2], status, ok;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
		snprintf(why, size, "socketpair: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		close(sp[0]);
		close(sp[1]);
		return -1;
	}
	if (pid == 0) {
		close(sp[0]);
		if (supervise_child(sp[1]) != 0)
			_exit(2);
		_exit(open("/", O_RDONLY | O_DIRECTORY) >= 0 ? 0 : 3);
	}
	close(sp[1]);
	supervise_init(&sv, &nobody);
	if (supervise_receive(&sv, sp[0], pid) >= 0) {
		pfd.fd = sv.listener;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 10000) == 1)
			supervise_burst(&sv);
	}
	close(sp[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ok = sv.listener >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	supervise_end(&sv);
	if (!ok)
		snprintf(why, size, "the kernel refused a seccomp user-notification filter "
		    "or its answer with a descriptor (Linux 5.14 or later is needed)");
	return ok ? 0 : -1;
}

/*
 * Would this host's runner run ROOT commands unconfined: its policy says
 * "unconfined": "allow" and a filter with a listener cannot be installed
 * here (asked of a child, as an unprivileged process would, with
 * no_new_privs)? For the review's "unconfined" badge.
 */
int
supervise_unconfined(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };
	struct tp_policy p;
	char why[256];
	int status;
	pid_t pid;

	if (tp_policy_load(&p, why, sizeof why) != 0 || !p.unconfined)
		return 0;
	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0)
		_exit(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && syscall(SYS_seccomp,
		    SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog) >= 0 ? 0 : 1);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
