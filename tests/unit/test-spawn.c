/* SPDX-License-Identifier: ISC */
/* spawn(): what the child gets (descriptors, signals, session, directory,
 * credentials) and how a failed start is reported. Real children, run
 * through /bin/sh, which report on a pipe. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "warrant.h"

static char *env[] = { "PATH=/usr/bin:/bin", NULL };

/* A spawn of `/bin/sh -c script`, stdin on /dev/null. */
static struct spawn
shell(const char *script)
{
	static char *argv[4] = { "sh", "-c", NULL, NULL };
	struct spawn s = { .path = "/bin/sh", .argv = argv, .envp = env,
	    .fd = { -1, -1, -1 }, .group = EXEC_SESSION };

	argv[2] = (char *)script;
	return s;
}

/* Run s with stdout and stderr on a pipe; out gets what it printed.
 * Returns the wait status; *pid (when not NULL) the child's pid. */
static int
run(struct spawn *s, char *out, size_t size, pid_t *pidp)
{
	int p[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	s->fd[1] = s->fd[2] = p[1];
	pid = spawn(s);
	close(p[1]);
	assert_true(pid > 0);
	while (len + 1 < size && (n = read(p[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (pidp != NULL)
		*pidp = pid;
	return status;
}

static void
test_descriptors_closed(void **state)
{
	struct spawn s = shell("for n in 3 4 5 6 7 8 9 40; do "
	    "[ -e /proc/$$/fd/$n ] && echo open $n; done; echo end");
	char out[256];
	int fd, status;

	(void)state;
	/* not close-on-exec: only spawn keeps it from the child */
	assert_true((fd = open("/dev/null", O_RDONLY)) >= 0);
	assert_int_equal(dup2(fd, 40), 40);
	status = run(&s, out, sizeof out, NULL);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(out, "end\n");
	close(fd);
	close(40);
}

#if defined(__x86_64__)
#define NATIVE_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH	AUDIT_ARCH_AARCH64
#endif

/*
 * On a kernel without close_range (before 5.9) the child still closes
 * every descriptor: here a seccomp filter makes close_range fail with
 * ENOSYS, as such a kernel does, in a child process of the test's.
 */
static void
test_descriptors_closed_without_close_range(void **state)
{
#ifdef NATIVE_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close_range, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof f / sizeof f[0], .filter = f };
	pid_t pid;
	int status;

	(void)state;
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		struct spawn s = shell("for n in 3 4 5 6 7 8 9 40 41; do "
		    "[ -e /proc/$$/fd/$n ] && echo open $n; done; echo end");
		char out[256];
		int fd, p[2];
		size_t len = 0;
		ssize_t n;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
			_exit(10);
		/* the filter is in: close_range fails as on an old kernel */
		if (syscall(__NR_close_range, 1000, 1000, 0) != -1 || errno != ENOSYS)
			_exit(11);
		/* not close-on-exec: only spawn keeps them from the child */
		if ((fd = open("/dev/null", O_RDONLY)) < 0 || dup2(fd, 40) != 40 ||
		    dup2(fd, 41) != 41 || pipe2(p, O_CLOEXEC) != 0)
			_exit(12);
		s.fd[1] = s.fd[2] = p[1];
		if ((pid = spawn(&s)) < 0)
			_exit(13);
		close(p[1]);
		while (len + 1 < sizeof out && (n = read(p[0], out + len,
		    sizeof out - 1 - len)) > 0)
			len += (size_t)n;
		out[len] = '\0';
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			_exit(14);
		_exit(strcmp(out, "end\n") == 0 ? 0 : 15);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
#else
	(void)state;
	skip();
#endif
}

static void
test_stdin_is_dev_null(void **state)
{
	struct spawn s = shell("readlink /proc/$$/fd/0");
	char out[256];

	(void)state;
	run(&s, out, sizeof out, NULL);
	assert_string_equal(out, "/dev/null\n");
}

/* fexecve of a script: the interpreter opens /dev/fd/3, which must be
 * open, and it is the only descriptor above 2. */
static void
test_fexecve_script(void **state)
{
	char path[] = "/tmp/test-spawn.XXXXXX", out[256];
	static const char script[] = "#!/bin/sh\n"
	    "for n in 3 4 5 6; do [ -e /proc/$$/fd/$n ] && echo open $n; done; echo \"$0\" \"$1\"\n";
	char *argv[] = { "script", "arg", NULL };
	struct spawn s = { .argv = argv, .envp = env, .fd = { -1, -1, -1 } };
	int fd, status;

	(void)state;
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write_all(fd, script, sizeof script - 1), 0);
	assert_int_equal(fchmod(fd, 0700), 0);
	close(fd);
	assert_true((s.exefd = open(path, O_RDONLY | O_CLOEXEC)) >= 0);
	status = run(&s, out, sizeof out, NULL);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(out, "open 3\n/dev/fd/3 arg\n");
	close(s.exefd);
	unlink(path);
}

/* Start s with stdout on a pipe; a child that stops is a failure (and is
 * killed). Returns the exit status, out what it printed (a few bytes). */
static int
run_unstopped(struct spawn *s, char *out, size_t size)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	s->fd[1] = s->fd[2] = p[1];
	pid = spawn(s);
	close(p[1]);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	if (WIFSTOPPED(status)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	assert_false(WIFSTOPPED(status));
	n = read(p[0], out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	close(p[0]);
	return status;
}

static void
test_ignored_signals_survive_exec(void **state)
{
	struct spawn s = shell("kill -TSTP $$; echo alive");
	sigset_t keep;
	char out[256];
	int status;
	pid_t pid;

	(void)state;
	/* its own group, not a session: in an orphaned group a stop
	 * signal with the default action is discarded */
	s.group = EXEC_GROUP;
	sigemptyset(&keep);
	sigaddset(&keep, SIGTSTP);
	s.ignore = &keep;
	status = run_unstopped(&s, out, sizeof out);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(out, "alive\n");

	/* without it, the default: the shell stops */
	s.ignore = NULL;
	s.fd[1] = s.fd[2] = -1;
	assert_true((pid = spawn(&s)) > 0);
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	assert_true(WIFSTOPPED(status));
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

/* What the caller ignores or blocks is not the child's: only the kept
 * set is ignored, and nothing is blocked. */
static void
test_signals_reset(void **state)
{
	char *argv[] = { "grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status", NULL };
	struct spawn s = { .path = "/bin/grep", .argv = argv, .envp = env,
	    .fd = { -1, -1, -1 } };
	struct sigaction ign, old;
	sigset_t block, was, keep;
	unsigned long long blocked, ignored;
	char out[256];
	int status;

	(void)state;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGUSR1, &ign, &old);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, &was);
	sigemptyset(&keep);
	sigaddset(&keep, SIGTTOU);
	s.ignore = &keep;
	status = run(&s, out, sizeof out, NULL);
	sigprocmask(SIG_SETMASK, &was, NULL);
	sigaction(SIGUSR1, &old, NULL);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(sscanf(out, "SigBlk:\t%llx\nSigIgn:\t%llx\n", &blocked, &ignored), 2);
	assert_int_equal(blocked, 0);
	/* 32 and 33 are glibc's own (sigaction refuses them; a glibc
	 * program sets them up itself): what we inherited stays there */
	assert_int_equal(ignored & ~(3ULL << 31), 1ULL << (SIGTTOU - 1));
}

/* The process group and session fields of /proc/$$/stat. */
static void
group_and_session(int group, long *pgrp, long *sid, pid_t *pid)
{
	struct spawn s = shell("read p c st pp pg sid rest </proc/$$/stat; echo $pg $sid");
	char out[256];

	s.group = group;
	run(&s, out, sizeof out, pid);
	assert_int_equal(sscanf(out, "%ld %ld", pgrp, sid), 2);
}

static void
test_group_choice(void **state)
{
	long pgrp, sid;
	pid_t pid;

	(void)state;
	group_and_session(EXEC_SESSION, &pgrp, &sid, &pid);
	assert_int_equal(pgrp, pid);
	assert_int_equal(sid, pid);
	group_and_session(EXEC_GROUP, &pgrp, &sid, &pid);
	assert_int_equal(pgrp, pid);
	assert_int_equal(sid, getsid(0));
	group_and_session(EXEC_FOREGROUND, &pgrp, &sid, &pid);
	assert_int_equal(pgrp, getpgrp());
	assert_int_equal(sid, getsid(0));
}

static void
test_cwd_and_umask(void **state)
{
	char dir[] = "/tmp/test-spawn-cwd.XXXXXX", out[256], want[300];
	struct spawn s = shell("pwd; umask");
	mode_t was = umask(077);

	(void)state;
	assert_non_null(mkdtemp(dir));
	s.cwd = dir;
	s.umask = 022;
	run(&s, out, sizeof out, NULL);
	snprintf(want, sizeof want, "%s\n0022\n", dir);
	assert_string_equal(out, want);
	s.umask = 0;	/* keeps the caller's */
	run(&s, out, sizeof out, NULL);
	snprintf(want, sizeof want, "%s\n0077\n", dir);
	assert_string_equal(out, want);
	umask(was);
	rmdir(dir);
}

/* Nothing started: -1 with the child's errno, and no child left over. */
static void
test_failure_reports_errno(void **state)
{
	char *argv[] = { "x", NULL };
	struct spawn s = { .path = "/nonexistent/x", .argv = argv, .envp = env,
	    .fd = { -1, -1, -1 } };
	char path[] = "/tmp/test-spawn.XXXXXX";

	(void)state;
	errno = 0;
	assert_int_equal(spawn(&s), -1);
	assert_int_equal(errno, ENOENT);

	s = shell("echo ran");
	s.cwd = "/nonexistent";
	errno = 0;
	assert_int_equal(spawn(&s), -1);
	assert_int_equal(errno, ENOENT);

	/* a descriptor of a file that is not executable */
	s.path = NULL;
	s.cwd = NULL;
	assert_true((s.exefd = mkstemp(path)) >= 0);
	errno = 0;
	assert_int_equal(spawn(&s), -1);
	assert_int_equal(errno, EACCES);
	close(s.exefd);
	unlink(path);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void
test_credentials(void **state)
{
	gid_t groups[] = { 65534, 7, 5 };
	struct spawn_cred c = { .uid = 65534, .gid = 65534, .groups = groups, .ngroups = 3 };
	struct spawn s = shell("grep -E '^(Uid|Gid|Groups):' /proc/$$/status");
	char out[256];

	(void)state;
	s.cred = &c;
	if (geteuid() != 0) {
		/* not root: the drop cannot happen, and nothing starts */
		errno = 0;
		assert_int_equal(spawn(&s), -1);
		assert_int_equal(errno, EPERM);
		print_message("the drop itself is not tested: it needs root\n");
		return;
	}
	run(&s, out, sizeof out, NULL);
	assert_string_equal(out, "Uid:\t65534\t65534\t65534\t65534\n"
	    "Gid:\t65534\t65534\t65534\t65534\nGroups:\t5 7 65534 \n");
}

static void
test_cred_init(void **state)
{
	struct spawn_cred c;
	int i, found = 0;

	(void)state;
	assert_int_equal(spawn_cred_init(&c, "root", 0, 4242), 0);
	assert_int_equal(c.uid, 0);
	assert_int_equal(c.gid, 4242);
	for (i = 0; i < c.ngroups; i++)
		found |= c.groups[i] == 4242;
	assert_true(found);	/* the primary group is among them */
	spawn_cred_free(&c);
	assert_null(c.groups);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptors_closed),
		cmocka_unit_test(test_descriptors_closed_without_close_range),
		cmocka_unit_test(test_stdin_is_dev_null),
		cmocka_unit_test(test_fexecve_script),
		cmocka_unit_test(test_ignored_signals_survive_exec),
		cmocka_unit_test(test_signals_reset),
		cmocka_unit_test(test_group_choice),
		cmocka_unit_test(test_cwd_and_umask),
		cmocka_unit_test(test_failure_reports_errno),
		cmocka_unit_test(test_credentials),
		cmocka_unit_test(test_cred_init),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
