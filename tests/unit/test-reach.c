/* SPDX-License-Identifier: ISC */
/*
 * The run-time supervisor judges what a ROOT command reaches, not names
 * (promise 8): a supervised shell (the runner's executor, exec_capture,
 * with a supervisor for the requester uid REQ) meets what a requester
 * holds or made — a write descriptor or shared mapping kept across a
 * chown, a Unix socket it serves whose file root owns, a TCP listener on
 * every address, a relative #! interpreter, an ELF interpreter of its,
 * a set-id bit or device node no argv showed — and the ordinary work
 * that must keep going: mkstemp and O_TMPFILE in a sticky directory, a
 * FIFO hand-off between two root processes, mount and umount. The requester's processes
 * are real (forked here, setuid REQ). Needs root; skipped otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <cmocka.h>

#include "root/confine/supervise.h"
#include "approve/approve.h"	/* confinement_check: the record as the CLI reads it */

#define REQ	4242

static char top[64], lddir[64];
static pid_t holders[16];
static size_t nholders;

/* top/rel, or rel when it is absolute */
static void
path_of(char *p, size_t size, const char *rel)
{
	if (rel[0] == '/')
		snprintf(p, size, "%s", rel);
	else
		snprintf(p, size, "%s/%s", top, rel);
}

static void
mk(const char *rel, mode_t mode, uid_t uid, int dir)
{
	char p[256];
	int fd;

	path_of(p, sizeof p, rel);
	if (dir)
		assert_int_equal(mkdir(p, mode), 0);
	else {
		assert_true((fd = open(p, O_WRONLY | O_CREAT | O_EXCL, mode)) >= 0);
		assert_int_equal(write(fd, "data\n", 5), 5);
		close(fd);
	}
	assert_int_equal(chown(p, uid, uid), 0);
	assert_int_equal(chmod(p, mode), 0);
}

/* A copy of src at rel, mode 0755, owned by uid. */
static void
copy(const char *src, const char *rel, uid_t uid)
{
	char p[256], buf[65536];
	ssize_t n;
	int in, out;

	path_of(p, sizeof p, rel);
	assert_true((in = open(src, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_true((out = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755)) >= 0);
	while ((n = read(in, buf, sizeof buf)) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	assert_int_equal(chown(p, uid, uid), 0);
	assert_int_equal(chmod(p, 0755), 0);
}

/* A root script at rel, mode 0755, holding text. */
static void
put_script(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	path_of(p, sizeof p, rel);
	assert_non_null(f = fopen(p, "w"));
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(p, 0755), 0);
}

/* What a requester's process does before it waits to be killed. */
enum hold { HOLD_WRITE, HOLD_MAP, HOLD_UNIX, HOLD_TCP_ANY, HOLD_SEND };

/* The descriptor fd passed (SCM_RIGHTS) with one byte over sock to the
 * abstract name "@name", by connecting first or as a datagram */
static void
send_fd(int sock, const char *name, int fd, int connected)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct sockaddr_un sun;
	struct iovec iov = { "x", 1 };
	struct msghdr msg;
	struct cmsghdr *c;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path + 1, sizeof sun.sun_path - 1, "%s", name);
	memset(&msg, 0, sizeof msg);
	memset(&u, 0, sizeof u);
	if (!connected) {
		msg.msg_name = &sun;
		msg.msg_namelen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
		    strlen(name));
	} else if (connect(sock, (struct sockaddr *)&sun, (socklen_t)(offsetof(struct
	    sockaddr_un, sun_path) + 1 + strlen(name))) != 0)
		return;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof u.buf;
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	(void)sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* HOLD_SEND's loop: the requester's file p offered to root, every 5 ms */
static void
send_forever(const char *p)
{
	const struct timespec pace = { 0, 5000000 };
	char dgram[128], stream[128];
	int fd, s;

	if ((fd = open(p, O_RDWR)) < 0)
		_exit(3);
	snprintf(dgram, sizeof dgram, "%s-dgram", p);
	snprintf(stream, sizeof stream, "%s-stream", p);
	for (;;) {
		if ((s = socket(AF_UNIX, SOCK_DGRAM, 0)) >= 0) {
			send_fd(s, dgram, fd, 0);
			close(s);
		}
		if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0) {
			send_fd(s, stream, fd, 1);
			close(s);
		}
		nanosleep(&pace, NULL);
	}
}

/* A process of REQ's that holds rel (HOLD_WRITE, HOLD_MAP: opened for
 * writing, or mapped shared and writable and the descriptor closed) or
 * serves it (HOLD_UNIX: listens there; HOLD_TCP_ANY: on 0.0.0.0, its
 * port written to *port), or (HOLD_SEND) offers a descriptor of rel to
 * whoever listens on the abstract names "@PATH-dgram" and "@PATH-stream",
 * in a loop that never sleeps long. Returns once it does. */
static void
holder(enum hold how, const char *rel, unsigned *port)
{
	struct sockaddr_un sun;
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	char p[256];
	int ready[2], fd;
	unsigned got = 0;
	void *m;
	pid_t pid;

	path_of(p, sizeof p, rel);
	assert_int_equal(pipe(ready), 0);
	if ((pid = fork()) == 0) {
		close(ready[0]);
		if (setgroups(0, NULL) != 0 || setresgid(REQ, REQ, REQ) != 0 ||
		    setresuid(REQ, REQ, REQ) != 0)
			_exit(2);
		switch (how) {
		case HOLD_WRITE:
			if (open(p, O_WRONLY) < 0)
				_exit(3);
			break;
		case HOLD_MAP:
			if ((fd = open(p, O_RDWR)) < 0 || (m = mmap(NULL, 4096, PROT_READ |
			    PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
				_exit(3);
			close(fd);
			break;
		case HOLD_UNIX:
			memset(&sun, 0, sizeof sun);
			sun.sun_family = AF_UNIX;
			if (strlen(p) >= sizeof sun.sun_path)
				_exit(3);
			memcpy(sun.sun_path, p, strlen(p) + 1);
			if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
			    bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0 || listen(fd, 8) != 0)
				_exit(3);
			break;
		case HOLD_SEND:
			break;
		case HOLD_TCP_ANY:
			memset(&sin, 0, sizeof sin);
			sin.sin_family = AF_INET;
			if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
			    bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 || listen(fd, 8) != 0 ||
			    getsockname(fd, (struct sockaddr *)&sin, &len) != 0)
				_exit(3);
			got = ntohs(sin.sin_port);
			break;
		}
		if (write(ready[1], &got, sizeof got) != (ssize_t)sizeof got)
			_exit(4);
		if (how == HOLD_SEND)
			send_forever(p);
		for (;;)
			pause();
	}
	assert_true(pid > 0);
	close(ready[1]);
	if (read(ready[0], &got, sizeof got) != (ssize_t)sizeof got) {
		int status;

		waitpid(pid, &status, 0);
		fail_msg("the requester's process for %s failed (status %d)", p, status);
	}
	close(ready[0]);
	if (port != NULL)
		*port = got;
	assert_true(nholders < sizeof holders / sizeof holders[0]);
	holders[nholders++] = pid;
}

static int
setup(void **state)
{
	(void)state;
	if (geteuid() != 0)
		return 0;
	snprintf(top, sizeof top, "/tmp/wt-reach.XXXXXX");
	assert_non_null(mkdtemp(top));
	assert_int_equal(chmod(top, 0755), 0);
	return 0;
}

static int
teardown(void **state)
{
	char *const argv[] = { "rm", "-rf", top, lddir[0] ? lddir : top, NULL };
	struct spawn s = { .path = "/bin/rm", .argv = argv, .fd = { -1, -1, -1 },
	    .group = EXEC_FOREGROUND };
	int status;
	pid_t pid;
	size_t i;

	(void)state;
	for (i = 0; i < nholders; i++) {
		kill(holders[i], SIGKILL);
		waitpid(holders[i], &status, 0);
	}
	if (*top == '\0')
		return 0;
	if ((pid = spawn(&s)) > 0)
		waitpid(pid, &status, 0);
	return 0;
}

/* hay has needle; else the test fails showing hay */
static void
has(const char *hay, const char *needle)
{
	if (strstr(hay, needle) == NULL) {
		if (getenv("WT_DEBUG") != NULL)
			fprintf(stderr, "%s\n", hay);
		fail_msg("\"%s\" is not in:\n%s", needle, hay);
	}
}

static void
lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle) != NULL)
		fail_msg("\"%s\" is in:\n%s", needle, hay);
}

/*
 * script run by a supervised sh in top/sv for REQ, the command's argv
 * showing acts; its output tail and record (JSON) into *tail, *text.
 */
static void
supervised(const char *script, unsigned acts, char **envx, char **tail, char **text)
{
	static const gid_t reqgroups[] = { REQ };
	const struct writer w = { .uid = REQ, .groups = reqgroups, .ngroups = 1 };
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	char *envp[8] = { "PATH=/usr/bin:/bin", NULL };
	char dir[256], why[256];
	struct supervisor sv;
	struct exec_result res;
	struct exec_spec x;
	struct capture cap;
	json_t *rec;
	size_t i;

	for (i = 0; envx != NULL && envx[i] != NULL && i + 2 < sizeof envp / sizeof envp[0]; i++)
		envp[i + 1] = envx[i];
	path_of(dir, sizeof dir, "sv");
	memset(&x, 0, sizeof x);
	x.exefd = open("/bin/sh", O_RDONLY | O_CLOEXEC);
	assert_true(x.exefd >= 0);
	x.argv = argv;
	x.envp = envp;
	x.cwd = dir;
	x.group = EXEC_SESSION;
	x.timeout = 60;
	supervise_init(&sv, &w);
	sv.acts = acts;
	x.sv = &sv;
	capture_init(&cap, -1, 0);
	assert_int_equal(exec_capture(&x, &cap, &res), 0);
	close(x.exefd);
	*tail = capture_tail(&cap, 16384);
	rec = supervise_record(&sv);
	*text = json_dumps(rec, JSON_COMPACT);
	if (confinement_check(rec, why, sizeof why) != 0)
		fail_msg("the record does not check out: %s", why);
	json_decref(rec);
	supervise_end(&sv);
}

/* What the requester holds: a write descriptor or a shared writable
 * mapping of a file root now owns, a Unix socket it serves whose file
 * is root's, a TCP listener on 0.0.0.0. */
static void
test_held(void **state)
{
	static const char script[] =
	    "cat held; echo cat-held=$?\n"
	    "cat mapped; echo cat-mapped=$?\n"
	    "cat free; echo cat-free=$?\n"
	    "chown 0:0 w/mine-held; echo chown-held=$?\n"
	    "chown 0:0 w/mine-free; echo chown-free=$?\n"
	    "perl -MIO::Socket::UNIX -e 'print \"sock=\", (IO::Socket::UNIX->new(Peer => "
	    "\"req.sock\") ? 0 : $!+0), \"\\n\"'\n"
	    "perl -MIO::Socket::INET -e 'print \"any=\", (IO::Socket::INET->new(PeerAddr => "
	    "\"0.0.0.0\", PeerPort => $ENV{ANYPORT}) ? 0 : $!+0), \"\\n\"'\n"
	    "perl -MIO::Socket::INET -e 'print \"lo=\", (IO::Socket::INET->new(PeerAddr => "
	    "\"127.0.0.1\", PeerPort => $ENV{ANYPORT}) ? 0 : $!+0), \"\\n\"'\n";
	char p[256], q[256], anyport[32], *envx[] = { anyport, NULL }, *tail, *text;
	struct stat st;
	unsigned port;

	(void)state;
	if (geteuid() != 0)
		skip();
	mk("sv", 0755, 0, 1);
	mk("sv/w", 0755, REQ, 1);
	/* the requester's files, opened or mapped by it, then taken over by
	 * root (a chown -R root: of its tree, done here outside the test) */
	mk("sv/held", 0644, REQ, 0);
	mk("sv/mapped", 0644, REQ, 0);
	mk("sv/free", 0644, REQ, 0);
	mk("sv/w/mine-held", 0644, REQ, 0);
	mk("sv/w/mine-free", 0644, REQ, 0);
	holder(HOLD_WRITE, "sv/held", NULL);
	holder(HOLD_MAP, "sv/mapped", NULL);
	holder(HOLD_WRITE, "sv/w/mine-held", NULL);
	holder(HOLD_UNIX, "sv/w/req.sock", NULL);
	holder(HOLD_TCP_ANY, "-", &port);
	snprintf(anyport, sizeof anyport, "ANYPORT=%u", port);
	path_of(p, sizeof p, "sv/held");
	assert_int_equal(chown(p, 0, 0), 0);
	path_of(p, sizeof p, "sv/mapped");
	assert_int_equal(chown(p, 0, 0), 0);
	path_of(p, sizeof p, "sv/free");
	assert_int_equal(chown(p, 0, 0), 0);
	/* its socket moved by root into root's directory, and made root's */
	path_of(p, sizeof p, "sv/w/req.sock");
	path_of(q, sizeof q, "sv/req.sock");
	assert_int_equal(rename(p, q), 0);
	assert_int_equal(chown(q, 0, 0), 0);
	/* the chown is in the argv (ACT_GIVE): only the holding refuses it */
	supervised(script, ACT_GIVE, envx, &tail, &text);
	has(tail, "cat-held=1");
	has(tail, "cat-mapped=1");
	has(tail, "cat-free=0");
	has(tail, "chown-held=1");
	has(tail, "chown-free=0");
	has(tail, "sock=13");
	has(tail, "any=13");
	has(tail, "lo=13");
	has(text, "holds it open for writing (process");
	has(text, "held open for writing");
	has(text, "the requester serves");
	path_of(p, sizeof p, "sv/w/mine-held");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, REQ);	/* undone */
	path_of(p, sizeof p, "sv/w/mine-free");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, 0);
	free(tail);
	free(text);
}

/*
 * What root would adopt: a set-id bit, a file capability, a device node,
 * the requester's file given to root, none of them in the argv; each
 * allowed where the argv shows it.
 */
static void
test_adopt(void **state)
{
	static const char script[] =
	    "cp /bin/true r/t1 && chmod 4755 r/t1; echo chmod-suid=$?\n"
	    "cp /bin/true r/t2 && chmod g+s r/t2; echo chmod-sgid=$?\n"
	    "mknod r/null c 1 3; echo mknod-dev=$?\n"
	    "mkfifo r/fifo; echo mkfifo=$?\n"
	    "chown 0 r/reqs; echo chown-req=$?\n"
	    "chmod 0700 r/rootfile; echo chmod-plain=$?\n"
	    "perl -e 'open(my $f, \">\", \"r/t3\") or die; chmod(04755, $f) or print "
	    "\"fchmod=\", $!+0, \"\\n\"'\n";
	char p[256], *tail, *text;
	struct stat st;

	(void)state;
	if (geteuid() != 0)
		skip();
	mk("sv", 0755, 0, 1);
	mk("sv/r", 0755, 0, 1);
	mk("sv/r/reqs", 0644, REQ, 0);
	mk("sv/r/rootfile", 0644, 0, 0);
	supervised(script, 0, NULL, &tail, &text);
	has(tail, "chmod-suid=1");
	has(tail, "chmod-sgid=1");
	has(tail, "mknod-dev=1");
	has(tail, "mkfifo=0");
	has(tail, "chown-req=1");
	has(tail, "chmod-plain=0");
	has(tail, "fchmod=13");
	has(text, "set-id file");
	has(text, "device node");
	has(text, "another owner");
	path_of(p, sizeof p, "sv/r/t1");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07000, 0);
	path_of(p, sizeof p, "sv/r/reqs");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, REQ);
	free(tail);
	free(text);
	/* the same acts, shown by the argv */
	supervised("chmod 4755 r/t1; echo chmod-suid=$?\n"
	    "chown 0 r/reqs; echo chown-req=$?\n"
	    "mknod r/null c 1 3; echo mknod-dev=$?\n", ACT_SETID | ACT_GIVE | ACT_DEVICE, NULL,
	    &tail, &text);
	has(tail, "chmod-suid=0");
	has(tail, "chown-req=0");
	has(tail, "mknod-dev=0");
	path_of(p, sizeof p, "sv/r/t1");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 04755);
	free(tail);
	free(text);
}

/* Replace /bin/true's ELF interpreter path in a copy with interp (no
 * longer than the original), NUL-padded. */
static void
patch_interp(const char *rel, const char *interp)
{
	static const char want[] = "/lib64/ld-linux-x86-64.so.2";
	char p[256], *buf, *at;
	struct stat st;
	int fd;

	path_of(p, sizeof p, rel);
	assert_true((fd = open(p, O_RDWR | O_CLOEXEC)) >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	at = memmem(buf, (size_t)st.st_size, want, sizeof want);
	if (at == NULL) {
		free(buf);
		close(fd);
		skip();	/* another architecture's loader */
	}
	assert_true(strlen(interp) < sizeof want);
	memset(at, 0, sizeof want);
	memcpy(at, interp, strlen(interp));
	assert_int_equal(pwrite(fd, buf, (size_t)st.st_size, 0), st.st_size);
	free(buf);
	close(fd);
}

/* What the kernel runs on its own: a relative #! interpreter (from the
 * caller's cwd), a nested one, an ELF interpreter, each the
 * requester's; the same programs of root's run. */
static void
test_interpreters(void **state)
{
	static const char script[] =
	    "./rel.sh; echo rel=$?\n"
	    "./nested.sh; echo nested=$?\n"
	    "./abs.sh; echo abs=$?\n"
	    "./elf; echo elf=$?\n"
	    "./elf-root; echo elf-root=$?\n"
	    "./missing.sh; echo missing=$?\n";
	char p[256], ld[128], *tail, *text;

	(void)state;
	if (geteuid() != 0)
		skip();
	mk("sv", 0755, 0, 1);
	mk("sv/bin", 0755, REQ, 1);
	copy("/bin/sh", "sv/bin/interp", REQ);
	copy("/bin/sh", "sv/rootsh", 0);
	/* root's scripts: one whose interpreter is relative (found in the
	 * requester's bin/ from the cwd), one through a root script whose
	 * own interpreter is that one, one absolute, one missing */
	put_script("sv/rel.sh", "#!bin/interp\necho ran\n");
	snprintf(p, sizeof p, "#!%s/sv/rel.sh\necho ran\n", top);
	put_script("sv/nested.sh", p);
	snprintf(p, sizeof p, "#!%s/sv/rootsh\necho abs-ran\n", top);
	put_script("sv/abs.sh", p);
	put_script("sv/missing.sh", "#!bin/none\necho ran\n");
	/* root's ELF file whose interpreter is the requester's loader (in a
	 * directory of its with a name short enough to patch in) */
	snprintf(lddir, sizeof lddir, "/tmp/wtl.XXXXXX");
	assert_non_null(mkdtemp(lddir));
	assert_int_equal(chown(lddir, REQ, REQ), 0);
	snprintf(ld, sizeof ld, "%s/ld", lddir);
	copy("/lib64/ld-linux-x86-64.so.2", ld, REQ);
	copy("/bin/true", "sv/elf", 0);
	patch_interp("sv/elf", ld);
	copy("/bin/true", "sv/elf-root", 0);
	supervised(script, 0, NULL, &tail, &text);
	has(tail, "rel=126");
	has(tail, "nested=126");
	has(tail, "abs-ran");
	has(tail, "abs=0");
	has(tail, "elf=126");
	has(tail, "elf-root=0");
	lacks(tail, "missing=0");
	has(text, "sv/bin/interp");
	has(text, lddir);
	has(text, "cannot be judged");
	/* the interpreter that ran is named with its hash */
	has(text, "sv/rootsh\",\"sha256\"");
	free(tail);
	free(text);
}

/* Root's own new files in a sticky directory (mkstemp, O_TMPFILE), a
 * name the requester planted there (O_EXCL fails, as the kernel's), a
 * non-sticky world-writable directory (refused), the requester's entry
 * in the sticky one (it stays the requester's), a FIFO hand-off between
 * two root processes (the open waits in the caller, not the runner). */
static void
test_ordinary(void **state)
{
	static const char script[] =
	    "t=$(mktemp st/x.XXXXXX) && echo new > \"$t\" && cat \"$t\"; echo mktemp=$?\n"
	    "d=$(mktemp -d st/d.XXXXXX) && touch \"$d/f\"; echo mktemp-d=$?\n"
	    "perl -MFcntl -e 'sysopen(my $f, \"st\", 020200000 | O_WRONLY) or die $!; "
	    "print \"tmpfile=0\\n\"' || echo tmpfile=1\n"
	    "(set -C; echo x > st/planted); echo planted=$?\n"
	    "mktemp ww/x.XXXXXX; echo world=$?\n"
	    "cat st/reqs; echo reqs=$?\n"
	    "mkfifo r/pipe && (echo handed > r/pipe &) && read v < r/pipe && echo fifo=$v\n";
	char p[256], *tail, *text;
	struct stat st;

	(void)state;
	if (geteuid() != 0)
		skip();
	mk("sv", 0755, 0, 1);
	mk("sv/st", 01777, 0, 1);
	mk("sv/ww", 0777, 0, 1);
	mk("sv/r", 0700, 0, 1);
	mk("sv/st/reqs", 0644, REQ, 0);
	path_of(p, sizeof p, "sv/st/planted");
	assert_int_equal(symlink("/etc/passwd-wt-reach", p), 0);
	assert_int_equal(lchown(p, REQ, REQ), 0);
	supervised(script, 0, NULL, &tail, &text);
	has(tail, "new");
	has(tail, "mktemp=0");
	has(tail, "mktemp-d=0");
	has(tail, "tmpfile=0");
	lacks(tail, "planted=0");
	has(tail, "world=1");
	has(tail, "reqs=1");
	has(tail, "fifo=handed");
	assert_int_equal(lstat("/etc/passwd-wt-reach", &st), -1);
	free(tail);
	free(text);
}

/*
 * Root's own mounts: a tmpfs mounted and unmounted again and again, and
 * once as "m/" (the walk ends on the mount itself). umount fails (EBUSY)
 * while anyone holds the mount, so the supervisor must let go of what it
 * judged before the call goes on; a descriptor still open fails some
 * umount here (which one is the scheduler's choice: hence the loop).
 */
static void
test_mounts(void **state)
{
	static const char script[] =
	    "i=0; while [ $i -lt 200 ]; do mount -t tmpfs -o size=1m wt-reach m || break; "
	    "umount m || break; i=$((i+1)); done; echo mounts=$i\n"
	    "mount -t tmpfs -o size=1m,mode=0755 wt-reach m && : > m/f && umount m/; echo slash=$?\n";
	char p[256], *tail, *text;

	(void)state;
	if (geteuid() != 0)
		skip();
	mk("sv", 0755, 0, 1);
	mk("sv/m", 0755, 0, 1);
	path_of(p, sizeof p, "sv/m");
	if (mount("wt-reach", p, "tmpfs", 0, "size=1m") != 0)
		skip();		/* no CAP_SYS_ADMIN here, supervised or not */
	assert_int_equal(umount(p), 0);
	supervised(script, 0, NULL, &tail, &text);
	while (umount2(p, MNT_DETACH) == 0)	/* what a failure left mounted */
		;
	has(tail, "mounts=200");
	has(tail, "slash=0");
	free(tail);
	free(text);
}

/*
 * A caller's identity is read anew for every call (supervise.c keeps its
 * status file open, never its values): a umask set between two creates,
 * and a setuid to the requester by the same thread (setpriv, then exec
 * of sh, which keeps the thread) are each seen by the next call. The
 * supervisor creates with the caller's umask and has its own again
 * after (supervise_burst).
 */
static void
test_identity_live(void **state)
{
	static const char script[] =
	    "umask 022; : > a; umask 077; : > b; stat -c '%n=%a' a b\n"
	    ": > e; echo e=$?\n"
	    "exec setpriv --reuid=4242 --regid=4242 --clear-groups -- sh -c 'touch c; echo c=$?'\n";
	char p[256], *tail, *text;
	struct stat st;
	mode_t own;

	(void)state;
	if (geteuid() != 0)
		skip();
	own = umask(027);
	mk("sv", 0755, 0, 1);
	supervised(script, 0, NULL, &tail, &text);
	assert_int_equal(umask(own), 027);
	has(tail, "a=644");
	has(tail, "b=600");
	has(tail, "c=1");
	path_of(p, sizeof p, "sv/c");
	assert_int_equal(lstat(p, &st), -1);
	has(tail, "e=0");
	free(tail);
	free(text);
}

/*
 * The SHA-256 of an executed program is remembered by inode, size and
 * times (intercept.c, exe_hash): the same program rewritten in place,
 * same size, at once, and executed again is hashed again.
 */
static void
test_exe_rehashed(void **state)
{
	static const char script[] =
	    "printf '#!/bin/sh\\necho one\\n' > p && chmod 755 p && ./p\n"
	    "printf '#!/bin/sh\\necho two\\n' > p && ./p\n";
	char *tail, *text;
	const char *seen[2] = { NULL, NULL };
	json_t *rec, *e;
	size_t i, n = 0;

	(void)state;
	if (geteuid() != 0)
		skip();
	mk("sv", 0755, 0, 1);
	supervised(script, 0, NULL, &tail, &text);
	has(tail, "one");
	has(tail, "two");
	assert_non_null(rec = json_loads(text, 0, NULL));
	json_array_foreach(json_object_get(rec, "executed"), i, e) {
		const char *path = json_string_value(json_object_get(e, "path"));

		if (path != NULL && n < 2 && strlen(path) > 5 &&
		    strcmp(path + strlen(path) - 5, "/sv/p") == 0)
			seen[n++] = json_string_value(json_object_get(e, "sha256"));
	}
	if (n != 2)
		fail_msg("sv/p executed %zu times in:\n%s", n, text);
	assert_non_null(seen[0]);
	assert_non_null(seen[1]);
	assert_string_not_equal(seen[0], seen[1]);
	json_decref(rec);
	free(tail);
	free(text);
}

/* A daemon a command leaves behind (started with &, not systemctl) is
 * named in the record: once the command ends nobody answers its calls. */
static void
test_left_running(void **state)
{
	char *tail, *text, *at;
	long pid;

	(void)state;
	if (geteuid() != 0)
		skip();
	mk("sv", 0755, 0, 1);
	/* the script ends once its daemon runs (its exec answered) */
	supervised("sleep 300 </dev/null >/dev/null 2>&1 &\n"
	    "while [ \"$(cat /proc/$!/comm)\" != sleep ]; do :; done; echo started\n", 0, NULL,
	    &tail, &text);
	has(tail, "started");
	has(text, "\"left_running\":[{\"pid\":");
	has(text, "\"command\":\"sleep\"");
	at = strstr(text, "\"left_running\":[{\"pid\":");
	pid = strtol(at + strlen("\"left_running\":[{\"pid\":"), NULL, 10);
	assert_true(pid > 1);
	assert_int_equal(kill((pid_t)pid, SIGKILL), 0);
	free(tail);
	free(text);
	/* a command that leaves nothing behind: none named */
	supervised("echo alone\n", 0, NULL, &tail, &text);
	has(text, "\"left_running\":[]");
	free(tail);
	free(text);
}

/* The requester's groups as they are now: a group an old process of
 * its uid still holds counts, though the account (the groups it had
 * when it asked) no longer has it. */
static void
test_groups_live(void **state)
{
	const gid_t asked[] = { REQ }, old[] = { REQ, 5151 };
	int ready[2], n = 1, i, status, have = 0;
	gid_t *live;
	char c;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(pipe(ready), 0);
	if ((pid = fork()) == 0) {
		close(ready[0]);
		if (setgroups(2, old) != 0 || setresgid(REQ, REQ, REQ) != 0 ||
		    setresuid(REQ, REQ, REQ) != 0 || write(ready[1], "r", 1) != 1)
			_exit(2);
		pause();
		_exit(0);
	}
	assert_true(pid > 0);
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	live = requester_groups_live(REQ, asked, &n);
	for (i = 0; i < n; i++)
		have |= live[i] == 5151;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	free(live);
	assert_true(have);
}

/* A listening Unix socket at path (abstract when it starts with '@'),
 * root's; its descriptor. */
static int
unix_listening(const char *path)
{
	struct sockaddr_un sun;
	socklen_t len;
	int fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	else
		len++;
	assert_true((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, len), 0);
	assert_int_equal(listen(fd, 64), 0);
	return fd;
}

/*
 * A socket the requester serves that root made: systemd's socket
 * activation of a service running as the requester. The listening
 * sockets (a Unix one at a file of root's, an abstract one, TCP on
 * 127.0.0.1) are made here as root, then held and served by a process
 * of the requester's while this process keeps its own copies, as
 * systemd does. Their credentials say root; who holds them is the
 * requester, and root's connections to them are refused. A listener
 * only root holds still answers.
 */
static void
test_served_through(void **state)
{
	static const char script[] =
	    "perl -MIO::Socket::UNIX -e 'print \"named=\", (IO::Socket::UNIX->new(Peer => "
	    "\"given.sock\") ? 0 : $!+0), \"\\n\"'\n"
	    "perl -MIO::Socket::UNIX -e 'print \"abstract=\", (IO::Socket::UNIX->new(Peer => "
	    "\"\\0\" . $ENV{ANAME}) ? 0 : $!+0), \"\\n\"'\n"
	    "perl -MIO::Socket::INET -e 'print \"tcp=\", (IO::Socket::INET->new(PeerAddr => "
	    "\"127.0.0.1\", PeerPort => $ENV{GPORT}) ? 0 : $!+0), \"\\n\"'\n"
	    "perl -MIO::Socket::UNIX -e 'print \"own=\", (IO::Socket::UNIX->new(Peer => "
	    "\"own.sock\") ? 0 : $!+0), \"\\n\"'\n";
	char p[256], aname[64], abs_[80], gport[32], envn[80], *envx[] = { gport, envn, NULL };
	char *tail, *text;
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	struct pollfd pf[3];
	int lis[3], own, ready[2], i, c;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip();
	mk("sv", 0755, 0, 1);
	path_of(p, sizeof p, "sv/given.sock");
	lis[0] = unix_listening(p);
	snprintf(aname, sizeof aname, "wt-reach-given-%d", (int)getpid());
	snprintf(abs_, sizeof abs_, "@%s", aname);
	lis[1] = unix_listening(abs_);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true((lis[2] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0);
	assert_int_equal(bind(lis[2], (struct sockaddr *)&sin, sizeof sin), 0);
	assert_int_equal(listen(lis[2], 64), 0);
	assert_int_equal(getsockname(lis[2], (struct sockaddr *)&sin, &len), 0);
	snprintf(gport, sizeof gport, "GPORT=%u", ntohs(sin.sin_port));
	snprintf(envn, sizeof envn, "ANAME=%s", aname);
	path_of(p, sizeof p, "sv/own.sock");
	own = unix_listening(p);
	assert_int_equal(pipe(ready), 0);
	if ((pid = fork()) == 0) {
		close(ready[0]);
		if (setgroups(0, NULL) != 0 || setresgid(REQ, REQ, REQ) != 0 ||
		    setresuid(REQ, REQ, REQ) != 0 || write(ready[1], "r", 1) != 1)
			_exit(2);
		signal(SIGPIPE, SIG_IGN);
		close(own);	/* root's alone */
		for (i = 0; i < 3; i++)
			pf[i] = (struct pollfd){ lis[i], POLLIN, 0 };
		for (;;) {
			if (poll(pf, 3, -1) < 0)
				_exit(3);
			for (i = 0; i < 3; i++)
				if ((pf[i].revents & POLLIN) && (c = accept(lis[i], NULL, NULL)) >= 0) {
					/* a connection root refused is shut down */
					if (write(c, "agent-payload\n", 14) != 14 && errno != EPIPE &&
					    errno != ECONNRESET)
						_exit(4);
					close(c);
				}
		}
	}
	assert_true(pid > 0);
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	assert_true(nholders < sizeof holders / sizeof holders[0]);
	holders[nholders++] = pid;
	supervised(script, 0, envx, &tail, &text);
	has(tail, "named=13");
	has(tail, "abstract=13");
	has(tail, "tcp=13");
	has(tail, "own=0");
	has(text, "holds its listening socket (process");
	for (i = 0; i < 3; i++)
		close(lis[i]);
	close(own);
	free(tail);
	free(text);
}

/*
 * Descriptors the requester sends (SCM_RIGHTS) are objects it holds: a
 * supervised root program takes none, from a named datagram socket (an
 * abstract name anyone can send to) or from a stream the requester
 * connected (recvmsg, and recvmmsg with the buffer in a later header
 * than the first read at once); the data of that stream still flows without a control
 * buffer, and two root processes still pass descriptors over a pair.
 */
static void
test_descriptors(void **state)
{
	static const char script[] =
	    "python3 - \"$NAME\" <<'EOF'\n"
	    "import os, socket, sys\n"
	    "name = '\\0' + sys.argv[1]\n"
	    "def took(k, fds):\n"
	    "    print(k + '=took:' + os.read(fds[0], 64).decode(errors='replace').strip())\n"
	    "d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
	    "d.bind(name + '-dgram')\n"
	    "d.settimeout(20)\n"
	    "try:\n"
	    "    took('dgram', socket.recv_fds(d, 16, 4)[1])\n"
	    "except OSError as e:\n"
	    "    print('dgram=%d' % e.errno)\n"
	    "l = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
	    "l.bind(name + '-stream')\n"
	    "l.listen(8)\n"
	    "l.settimeout(20)\n"
	    "c = l.accept()[0]\n"
	    "try:\n"
	    "    took('stream', socket.recv_fds(c, 16, 4)[1])\n"
	    "except OSError as e:\n"
	    "    print('stream=%d' % e.errno)\n"
	    "import ctypes\n"
	    "libc = ctypes.CDLL(None, use_errno=True)\n"
	    "class iovec(ctypes.Structure):\n"
	    "    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]\n"
	    "class msghdr(ctypes.Structure):\n"
	    "    _fields_ = [('name', ctypes.c_void_p), ('namelen', ctypes.c_uint32),\n"
	    "        ('iov', ctypes.POINTER(iovec)), ('iovlen', ctypes.c_size_t),\n"
	    "        ('control', ctypes.c_void_p), ('controllen', ctypes.c_size_t),\n"
	    "        ('flags', ctypes.c_int)]\n"
	    "class mmsghdr(ctypes.Structure):\n"
	    "    _fields_ = [('hdr', msghdr), ('len', ctypes.c_uint)]\n"
	    "bufs = [ctypes.create_string_buffer(16) for i in range(20)]\n"
	    "iovs = [iovec(ctypes.cast(b, ctypes.c_void_p), 16) for b in bufs]\n"
	    "ctl = ctypes.create_string_buffer(64)\n"
	    "m = (mmsghdr * 20)()\n"
	    "for i in range(20):\n"
	    "    m[i].hdr.iov = ctypes.pointer(iovs[i])\n"
	    "    m[i].hdr.iovlen = 1\n"
	    "m[18].hdr.control = ctypes.cast(ctl, ctypes.c_void_p)\n"
	    "m[18].hdr.controllen = 64\n"
	    "c = l.accept()[0]\n"
	    "r = libc.recvmmsg(c.fileno(), m, 20, 0x10000, None)\n"
	    "print('mmsg=%d' % (ctypes.get_errno() if r < 0 else 100 + r))\n"
	    "c = l.accept()[0]\n"
	    "print('plain=' + c.recvmsg(16)[0].decode())\n"
	    "a, b = socket.socketpair()\n"
	    "socket.send_fds(a, [b'y'], [os.open('/etc/hostname', os.O_RDONLY)])\n"
	    "print('pair=%d' % len(socket.recv_fds(b, 16, 4)[1]))\n"
	    "EOF\n";
	char name[160], *envx[] = { name, NULL }, *tail, *text;

	(void)state;
	if (geteuid() != 0)
		skip();
	mk("sv", 0755, 0, 1);
	mk("sv/w", 0755, REQ, 1);
	mk("sv/w/mine", 0644, REQ, 0);
	{
		char p[256];
		int fd;

		path_of(p, sizeof p, "sv/w/mine");
		assert_true((fd = open(p, O_WRONLY | O_TRUNC)) >= 0);
		assert_int_equal(write(fd, "agent-payload\n", 14), 14);
		close(fd);
	}
	holder(HOLD_SEND, "sv/w/mine", NULL);
	snprintf(name, sizeof name, "NAME=%s/sv/w/mine", top);
	supervised(script, 0, envx, &tail, &text);
	has(tail, "dgram=13");
	has(tail, "stream=13");
	has(tail, "mmsg=13");	/* a control buffer in the 19th header of recvmmsg */
	has(tail, "plain=x");
	has(tail, "pair=1");
	lacks(tail, "agent-payload");
	has(text, "\"call\":\"receive\"");
	has(text, "named datagram socket");
	has(text, "descriptors would come from the requester");
	free(tail);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held),
		cmocka_unit_test_setup_teardown(test_adopt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interpreters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ordinary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mounts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exe_rehashed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_left_running, setup, teardown),
		cmocka_unit_test(test_groups_live),
		cmocka_unit_test_setup_teardown(test_descriptors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_served_through, setup, teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
