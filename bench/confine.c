/* SPDX-License-Identifier: ISC */
/*
 * Benchmark 10: one command run N times through the runner's own
 * executor (exec_capture), supervised (supervise.c) and not, interleaved
 * round-robin; median and p90 in ms of each, their ratio, the calls the
 * supervisor received and its cost per call beyond the unconfined run
 * (and its CPU time per call, in its own code and in the kernel),
 * and this process's peak RSS (it plays the runner). With "floor": the
 * kernel's floor under that cost, a notified getppid answered by a
 * supervisor that judges nothing, with and without SYNC_WAKE_UP, beside a
 * plain getppid, and the system calls of one judgement made alone. Needs
 * root. The last line, "= LABEL RATIO PER_CALL_US", or
 * "= floor PLAIN_US BARE_US SYNC_US JUDGE_US", is for bench/confine.sh.
 * usage: confine N LABEL PATH ARG...
 *        confine floor N
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "root.h"
#include "confine/supervise.h"

static int
cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS	/* Linux 6.6; Debian 12's headers lack it */
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	_IOW('!', 4, __u64)
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP	(1UL << 0)
#endif

static int64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* n plain getppid calls: µs each */
static double
plain_us(int n)
{
	int64_t t0 = now_ns();
	int i;

	for (i = 0; i < n; i++)
		(void)syscall(SYS_getppid);
	return (double)(now_ns() - t0) / n / 1000.0;
}

/*
 * n getppid calls of a child, each notified and answered here at once
 * (no judgement, no /proc, no descriptor): µs each, or -1 when the kernel
 * refuses (sync: SYNC_WAKE_UP asked of the listener).
 */
static double
bare_us(int n, int sync)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof f / sizeof f[0], f };
	struct seccomp_notif_sizes sz;
	struct seccomp_notif *rq;
	struct seccomp_notif_resp *rs;
	int up[2], go[2], fd, lfd = -1, pidfd, i, status, ok = 1;
	int64_t took = -1;
	pid_t pid;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0 || pipe(up) != 0 ||
	    pipe(go) != 0)
		return -1;
	if ((pid = fork()) == 0) {
		char c;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    (fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) < 0 ||
		    write(up[1], &fd, sizeof fd) != sizeof fd || read(go[0], &c, 1) != 1)
			_exit(2);
		close(fd);
		took = now_ns();
		for (i = 0; i < n; i++)
			(void)syscall(SYS_getppid);
		took = now_ns() - took;
		_exit(write(up[1], &took, sizeof took) == sizeof took ? 0 : 2);
	}
	close(up[1]);
	close(go[0]);
	rq = calloc(1, sz.seccomp_notif);
	rs = calloc(1, sz.seccomp_notif_resp);
	if (pid < 0 || rq == NULL || rs == NULL || read(up[0], &fd, sizeof fd) != sizeof fd ||
	    (pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0 ||
	    (lfd = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0)) < 0)
		ok = 0;
	if (ok && sync && ioctl(lfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
	    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) != 0)
		ok = 0;
	if (write(go[1], "g", 1) != 1)
		ok = 0;
	close(go[1]);
	for (i = 0; ok && i < n; i++) {
		memset(rq, 0, sz.seccomp_notif);
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, rq) != 0) {
			ok = errno == EINTR;
			i -= ok;
			continue;
		}
		memset(rs, 0, sz.seccomp_notif_resp);
		rs->id = rq->id;
		rs->val = 1;
		(void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, rs);
	}
	if (!ok)
		kill(pid, SIGKILL);
	else if (read(up[0], &took, sizeof took) != sizeof took)
		ok = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	close(up[0]);
	if (lfd >= 0)
		close(lfd);
	free(rq);
	free(rs);
	return ok ? (double)took / n / 1000.0 : -1;
}

/*
 * The system calls the supervisor makes to judge one open of d/3/11
 * relative to a directory descriptor (intercept.c, judge.c), made here
 * alone, n times, on this process's own files: the caller's status, the
 * path from its memory, its descriptor through /proc and the name shown,
 * the start's fstat, per component an O_PATH openat and an fstat, the
 * closes, the validity check (an ioctl; here one on a pipe) and the poll
 * for the next call. Not counted: the round trip (bare_us) and the act
 * itself, which the command makes unconfined too. µs each sequence, or
 * -1; *count: the system calls in one.
 */
static double
judgement_us(int n, int *count)
{
	static const char *const comp[] = { "d", "3", "11" };
	char dir[] = "/tmp/warrant-bench-judge.XXXXXX", p[PATH_MAX], buf[4096], mem[3712];
	struct iovec local = { buf, sizeof mem }, remote = { mem, sizeof mem };
	struct pollfd pfd;
	struct stat st;
	int start, sfd, fd, prev, pipefd[2], avail, i, c;
	int64_t t0;
	double us = -1;

	memset(mem, 'x', sizeof mem);
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(p, sizeof p, "%s/d/3/11", dir);
	if ((start = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    mkdirat(start, "d", 0755) != 0 || mkdirat(start, "d/3", 0755) != 0 ||
	    (fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) < 0)
		goto out;
	close(fd);
	if ((sfd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)) < 0)
		goto out;
	if (pipe(pipefd) != 0) {
		close(sfd);
		goto out;
	}
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)getpid(), start);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		(void)pread(sfd, buf, sizeof buf, 0);
		(void)process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
		prev = open(p, O_PATH | O_CLOEXEC);
		(void)readlink(p, buf, sizeof buf);
		(void)fstat(prev, &st);
		for (c = 0; c < 3; c++) {
			fd = openat(prev, comp[c], O_PATH | O_NOFOLLOW | O_CLOEXEC);
			(void)fstat(fd, &st);
			if (c < 2)
				close(prev);	/* the last directory is kept for the act */
			prev = c < 2 ? fd : prev;
		}
		(void)ioctl(pipefd[0], FIONREAD, &avail);
		close(fd);
		close(prev);
		(void)poll(&pfd, 1, 0);
	}
	us = (double)(now_ns() - t0) / n / 1000.0;
	*count = 2 + 3 + 3 * 2 + 2 + 1 + 2 + 1;
	close(sfd);
	close(pipefd[0]);
	close(pipefd[1]);
out:
	if (start >= 0)
		close(start);
	snprintf(p, sizeof p, "%s/d/3/11", dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/d/3", dir);
	rmdir(p);
	snprintf(p, sizeof p, "%s/d", dir);
	rmdir(p);
	rmdir(dir);
	return us;
}

static int
floor_main(int n)
{
	double plain = plain_us(n), bare = bare_us(n, 0), sync = bare_us(n, 1), judge;
	int count = 0;

	judge = judgement_us(n, &count);
	printf("  floor        plain getppid %.2f us | notified getppid, answered at once: "
	    "%.2f us, with SYNC_WAKE_UP %s%.2f us\n", plain, bare,
	    sync < 0 ? "(refused by this kernel) " : "", sync);
	printf("  judgement    the %d system calls judging an open of d/3/11 needs, made alone: "
	    "%.2f us\n", count, judge);
	printf("= floor %.3f %.3f %.3f %.3f\n", plain, bare, sync, judge);
	return bare < 0;
}

/* this process's CPU time so far, in µs: [0] in its own code and the
 * libraries' (user), [1] in the kernel for it (system) */
static void
cpu_us(int64_t cpu[2])
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	cpu[0] = (int64_t)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec;
	cpu[1] = (int64_t)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
}

/* One run: its wall time in ms; the supervisor's calls and the CPU
 * time it spent (this process's, in µs, user and system) in *calls and
 * cpu. */
static int64_t
run(char **argv, int supervised, int *failed, unsigned long *calls, int64_t cpu[2])
{
	static char *envp[] = { "PATH=" TRUSTED_PATH, "LC_ALL=C", NULL };
	struct writer nobody = { .uid = 65534 };
	static struct capture cap;
	struct exec_result res;
	struct supervisor sv;
	struct exec_spec x;
	int64_t t0, before[2];

	memset(&x, 0, sizeof x);
	if ((x.exefd = open(argv[0], O_RDONLY | O_CLOEXEC)) < 0)
		exit(2);
	x.argv = argv;
	x.envp = envp;
	x.group = EXEC_SESSION;
	x.timeout = 600;
	x.cwd = "/";
	supervise_init(&sv, &nobody);
	if (supervised)
		x.sv = &sv;
	capture_init(&cap, -1, 0);
	cpu_us(before);
	t0 = monotonic_ms();
	if (exec_capture(&x, &cap, &res) != 0 || res.exit_code != 0)
		(*failed)++;
	t0 = monotonic_ms() - t0;
	cpu_us(cpu);
	cpu[0] -= before[0];
	cpu[1] -= before[1];
	*calls = sv.calls;
	json_decref(supervise_record(&sv));
	supervise_end(&sv);
	close(x.exefd);
	return t0;
}

int
main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[1]) : 0, i, j, failed[2] = { 0, 0 };
	unsigned long *calls, none;
	int64_t *t[2], *cpu[2], u, c, spare[2], one[2];
	double per_call;
	struct rusage ru;
	char why[256];

	if (argc == 3 && strcmp(argv[1], "floor") == 0 && atoi(argv[2]) > 0)
		return floor_main(atoi(argv[2]));
	if (n <= 0 || geteuid() != 0) {
		fprintf(stderr, "usage (as root): confine N LABEL PATH ARG...\n"
		    "                 confine floor N\n");
		return 2;
	}
	if (supervise_probe(why, sizeof why) != 0) {
		fprintf(stderr, "no supervisor here: %s\n", why);
		return 2;
	}
	t[0] = calloc((size_t)n, sizeof *t[0]);
	t[1] = calloc((size_t)n, sizeof *t[1]);
	calls = calloc((size_t)n, sizeof *calls);
	cpu[0] = calloc((size_t)n, sizeof *cpu[0]);
	cpu[1] = calloc((size_t)n, sizeof *cpu[1]);
	if (t[0] == NULL || t[1] == NULL || calls == NULL || cpu[0] == NULL || cpu[1] == NULL)
		return 2;
	for (i = 0; i < n; i++) {
		t[0][i] = run(argv + 3, 0, &failed[0], &none, spare);
		t[1][i] = run(argv + 3, 1, &failed[1], &calls[i], one);
		for (j = 0; j < 2; j++)	/* ns per call */
			cpu[j][i] = calls[i] > 0 ? one[j] * 1000 / (int64_t)calls[i] : 0;
	}
	qsort(cpu[0], (size_t)n, sizeof *cpu[0], cmp);
	qsort(cpu[1], (size_t)n, sizeof *cpu[1], cmp);
	qsort(t[0], (size_t)n, sizeof *t[0], cmp);
	qsort(t[1], (size_t)n, sizeof *t[1], cmp);
	qsort(calls, (size_t)n, sizeof *calls, cmp_ulong);
	u = t[0][(n - 1) / 2];
	c = t[1][(n - 1) / 2];
	per_call = calls[(n - 1) / 2] > 0 ? (double)(c - u) * 1000.0 / calls[(n - 1) / 2] : 0.0;
	printf("  %-12s unconfined median %lld p90 %lld | confined median %lld p90 %lld ms | "
	    "ratio %.2f%s\n", argv[2], (long long)u, (long long)t[0][(n * 9 + 9) / 10 - 1],
	    (long long)c, (long long)t[1][(n * 9 + 9) / 10 - 1],
	    u > 0 ? (double)c / (double)u : 0.0,
	    failed[0] || failed[1] ? "  WARNING: some runs did not exit 0" : "");
	printf("  %-12s %lu calls received by the supervisor (median), %.1f us each beyond the "
	    "unconfined run\n", argv[2], calls[(n - 1) / 2], per_call);
	printf("  %-12s the supervisor's CPU time per call (medians): %.1f us in its own code "
	    "and libraries, %.1f us in the kernel\n", argv[2], (double)cpu[0][(n - 1) / 2] / 1000.0,
	    (double)cpu[1][(n - 1) / 2] / 1000.0);
	getrusage(RUSAGE_SELF, &ru);
	printf("  %-12s peak RSS of the supervising process %ld KiB\n", argv[2], ru.ru_maxrss);
	printf("= %s %.3f %.2f\n", argv[2], u > 0 ? (double)c / (double)u : 0.0, per_call);
	return 0;
}
