/* SPDX-License-Identifier: ISC */
/*
 * wt-hostile: the requester at its worst, run as the agent's user beside
 * the confinement cases of test-confine.sh. Until SIGTERM, and without
 * ever sleeping, it does what an agent would do to make root land on its
 * work between a check and an act:
 *
 *  - swaps: in each directory -w names (it may not exist yet; looked for
 *    again and again), it keeps its own entries and exchanges them
 *    atomically (renameat2 RENAME_EXCHANGE), a directory with a symlink
 *    to -l's root-owned target, its payload file with another such link;
 *  - holds: every regular file it owns there (its payload) and under each
 *    -H tree is kept open O_RDWR and mapped MAP_SHARED, PROT_WRITE; once
 *    fstat says the file is no longer its own (root took it over), the
 *    canary is written through both;
 *  - blinks listeners: TCP (-t) and UDP (-u) ports on 127.0.0.1, 0.0.0.0
 *    and [::] in turn, abstract Unix names (-a), a named socket in each
 *    -w directory; bound, answered with the canary, closed, bound again;
 *  - plants relative interpreters: bin/interp, bin/sh and bin/python3 in
 *    each -w directory, replaced (a new inode) every rescan, a script
 *    that prints the canary and appends it to -p's file.
 *
 * The canary is read from -c's file: in argv, ps would show it to root.
 * Its counts go to -o's file (written whole, then renamed into place),
 * so that the test sees it ran; "stopped=1" once SIGTERM ended it.
 *
 * usage: wt-hostile -o STATUS -c CANARY_FILE -l TARGET -p PAYLOAD_OUT [-e PATH]
 *            [-w DIR]... [-H DIR]... [-t PORT]... [-u PORT]... [-a NAME]...
 * -e PATH: it stops by itself once PATH is gone (the test's directory).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define MAXDIRS 16
#define MAXHELD 256
#define MAXSOCK 32
/* rounds between rescans (new directories, files to hold, plants) */
#define RESCAN 256
/* rounds a listener lives before it is closed and bound again */
#define LIFE 32

struct held {
	dev_t dev;
	ino_t ino;
	int fd;
	void *map;
	size_t len;
};

enum kind { TCP, UDP, UNIXNAMED, ABSTRACT };

struct lsn {
	enum kind kind;
	int port;		/* TCP, UDP */
	char name[108];		/* UNIXNAMED: path; ABSTRACT: the name */
	int fd;
	int age;
	unsigned turn;		/* which address the next bind takes */
};

static volatile sig_atomic_t stopping;
static sigjmp_buf busjmp;
static char canary[128];
static const char *canfile, *target, *payout, *status, *alive;
static size_t canlen;
static char *wdirs[MAXDIRS], *hdirs[MAXDIRS];
static int nw, nh;
static struct held held[MAXHELD];
static int nheld;
static struct lsn lsns[MAXSOCK];
static int nlsn;
static uid_t me;
static unsigned long rounds, made, swaps, holds, takeovers, listens, answers, plants;

static void
on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/* root truncated a file we map: the write through the mapping is lost */
static void
on_bus(int sig)
{
	(void)sig;
	siglongjmp(busjmp, 1);
}

static void
usage(void)
{
	fprintf(stderr, "usage: wt-hostile -o STATUS -c CANARY_FILE -l TARGET -p OUT [-e PATH]\n"
	    "    [-w DIR]... [-H DIR]... [-t PORT]... [-u PORT]... [-a NAME]...\n");
	exit(2);
}

static void
write_status(int stopped)
{
	char tmp[PATH_MAX], buf[512];
	int fd, len;

	if (snprintf(tmp, sizeof tmp, "%s.tmp", status) >= (int)sizeof tmp)
		return;
	len = snprintf(buf, sizeof buf, "rounds=%lu made=%lu swaps=%lu holds=%lu held=%d takeovers=%lu "
	    "listens=%lu answers=%lu plants=%lu stopped=%d\n", rounds, made, swaps, holds, nheld,
	    takeovers, listens, answers, plants, stopped);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return;
	if (write(fd, buf, (size_t)len) != len) {
		close(fd);
		return;
	}
	close(fd);
	(void)rename(tmp, status);
}

/* The file NAME of dirfd holds the canary; a new one only (O_EXCL). */
static void
make_file(int dirfd, const char *name, mode_t mode, const char *text)
{
	size_t n = strlen(text);
	int fd;

	if ((fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode)) < 0)
		return;
	if (write(fd, text, n) != (ssize_t)n)
		(void)unlinkat(dirfd, name, 0);
	close(fd);
}

/* A new inode for bin/NAME every time: an interpreter judged at one
 * moment is not the one the kernel would find a moment later. */
static void
plant(int dirfd, const char *name, const char *script)
{
	char tmp[64], dst[64];

	snprintf(tmp, sizeof tmp, "bin/.%s.new", name);
	snprintf(dst, sizeof dst, "bin/%s", name);
	(void)unlinkat(dirfd, tmp, 0);
	make_file(dirfd, tmp, 0755, script);
	if (fchmodat(dirfd, tmp, 0755, 0) == 0 && renameat(dirfd, tmp, dirfd, dst) == 0)
		plants++;
}

/* Hold the file path names when it is a regular, non-executable file of
 * ours not held yet (an executable one is left alone: held open for
 * writing, the kernel would refuse to run it, ETXTBSY, and hide what the
 * supervisor does with it). */
static void
hold(int dirfd, const char *path)
{
	struct stat st;
	int fd, i;
	void *m;

	if (nheld >= MAXHELD || fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode) || st.st_uid != me || (st.st_mode & 0111))
		return;
	for (i = 0; i < nheld; i++)
		if (held[i].dev == st.st_dev && held[i].ino == st.st_ino)
			return;
	fd = openat(dirfd, path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != me) {
		close(fd);
		return;
	}
	m = NULL;
	if (st.st_size > 0) {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			m = NULL;
	}
	held[nheld].dev = st.st_dev;
	held[nheld].ino = st.st_ino;
	held[nheld].fd = fd;
	held[nheld].map = m;
	held[nheld].len = m != NULL ? (size_t)st.st_size : 0;
	nheld++;
	holds++;
}

static int
tree_hold(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_F)
		hold(AT_FDCWD, path);
	return nheld >= MAXHELD;
}

/* One -w directory: its entries there, made again where they are gone. */
static void
rescan_dir(const char *dir)
{
	static const char *const interps[] = { "interp", "sh", "python3" };
	char script[1024];
	size_t i;
	int dfd;

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	(void)mkdirat(dfd, ".wt-h-dir", 0755);
	(void)mkdirat(dfd, "bin", 0755);
	/* EEXIST: the name is there (maybe the other of its pair, swapped) */
	if (symlinkat(target, dfd, ".wt-h-link") == 0)
		made++;
	if (symlinkat(target, dfd, ".wt-h-alt") == 0)
		made++;
	snprintf(script, sizeof script, "%s\n", canary);
	make_file(dfd, ".wt-h-pay", 0644, script);
	/* .wt-h-dir may be the link now: then this lands in the target's
	 * directory only if we may write there, and we may not */
	make_file(dfd, ".wt-h-dir/x", 0644, script);
	snprintf(script, sizeof script, "#!/bin/sh\necho %s\necho %s >>%s\n", canary, canary,
	    payout);
	for (i = 0; i < sizeof interps / sizeof interps[0]; i++)
		plant(dfd, interps[i], script);
	hold(dfd, ".wt-h-pay");
	hold(dfd, ".wt-h-dir/x");
	close(dfd);
}

static void
rescan(void)
{
	int i;

	for (i = 0; i < nw; i++)
		rescan_dir(wdirs[i]);
	for (i = 0; i < nh && nheld < MAXHELD; i++)
		(void)nftw(hdirs[i], tree_hold, 16, FTW_PHYS);
}

/* By full path: the directory itself may have been replaced meanwhile. */
static void
exchange(const char *dir, const char *x, const char *y)
{
	char a[PATH_MAX], b[PATH_MAX];

	if (snprintf(a, sizeof a, "%s/%s", dir, x) >= (int)sizeof a ||
	    snprintf(b, sizeof b, "%s/%s", dir, y) >= (int)sizeof b)
		return;
	if (syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0)
		swaps++;
}

static void
swap_all(void)
{
	int i;

	for (i = 0; i < nw; i++) {
		exchange(wdirs[i], ".wt-h-dir", ".wt-h-link");
		exchange(wdirs[i], ".wt-h-pay", ".wt-h-alt");
	}
}

/* Through the mapping; SIGBUS (root truncated the file) ends it. */
static void
map_write(const struct held *h)
{
	if (h->map != NULL && sigsetjmp(busjmp, 1) == 0)
		memcpy(h->map, canary, canlen < h->len ? canlen : h->len);
}

/* What we hold and root now owns gets the canary, through the
 * descriptor and through the mapping. */
static void
write_taken(void)
{
	struct stat st;
	int i;

	for (i = 0; i < nheld; i++) {
		if (fstat(held[i].fd, &st) != 0 || st.st_uid == me)
			continue;
		if (pwrite(held[i].fd, canary, canlen, 0) == (ssize_t)canlen)
			takeovers++;
		map_write(&held[i]);
	}
}

static void
lsn_add(enum kind kind, int port, const char *name)
{
	struct lsn *l;

	if (nlsn >= MAXSOCK)
		usage();
	l = &lsns[nlsn++];
	memset(l, 0, sizeof *l);
	l->kind = kind;
	l->port = port;
	l->fd = -1;
	if (name != NULL && snprintf(l->name, sizeof l->name, "%s", name) >= (int)sizeof l->name)
		usage();
}

/* Bind l again: TCP and UDP on 127.0.0.1, 0.0.0.0 and [::] in turn. */
static void
lsn_bind(struct lsn *l)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_un *un = (struct sockaddr_un *)&ss;
	socklen_t len;
	int fam = AF_UNIX, type = l->kind == UDP ? SOCK_DGRAM : SOCK_STREAM, one = 1;

	memset(&ss, 0, sizeof ss);
	if (l->kind == TCP || l->kind == UDP) {
		switch (l->turn++ % 3) {
		case 0:
			fam = AF_INET;
			in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			break;
		case 1:
			fam = AF_INET;
			in->sin_addr.s_addr = htonl(INADDR_ANY);
			break;
		default:
			fam = AF_INET6;
			in6->sin6_addr = in6addr_any;
			break;
		}
		if (fam == AF_INET) {
			in->sin_family = AF_INET;
			in->sin_port = htons((uint16_t)l->port);
			len = sizeof *in;
		} else {
			in6->sin6_family = AF_INET6;
			in6->sin6_port = htons((uint16_t)l->port);
			len = sizeof *in6;
		}
	} else {
		un->sun_family = AF_UNIX;
		if (l->kind == ABSTRACT) {
			/* sun_path[0] stays NUL: an abstract name */
			memcpy(un->sun_path + 1, l->name, strlen(l->name));
			len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(l->name));
		} else {
			memcpy(un->sun_path, l->name, strlen(l->name));
			len = sizeof *un;
			(void)unlink(l->name);
		}
	}
	if ((l->fd = socket(fam, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		return;
	(void)setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(l->fd, (struct sockaddr *)&ss, len) != 0 ||
	    (type == SOCK_STREAM && listen(l->fd, 16) != 0)) {
		close(l->fd);
		l->fd = -1;
		return;
	}
	l->age = 0;
	listens++;
}

static void
blink(void)
{
	struct sockaddr_storage from;
	socklen_t flen;
	char buf[256];
	struct lsn *l;
	int i, c;

	for (i = 0; i < nlsn; i++) {
		l = &lsns[i];
		if (l->fd < 0) {
			lsn_bind(l);
			continue;
		}
		if (l->kind == UDP) {
			flen = sizeof from;
			if (recvfrom(l->fd, buf, sizeof buf, MSG_DONTWAIT,
			    (struct sockaddr *)&from, &flen) >= 0 &&
			    sendto(l->fd, canary, canlen, MSG_DONTWAIT, (struct sockaddr *)&from,
			    flen) >= 0)
				answers++;
		} else {
			while ((c = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
				if (send(c, canary, canlen, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
					answers++;
				close(c);
			}
		}
		if (++l->age >= LIFE) {
			close(l->fd);
			l->fd = -1;
		}
	}
}

/* One word, shell-safe: it goes into the planted scripts. */
static void
read_canary(void)
{
	ssize_t n;
	int fd;

	if ((fd = open(canfile, O_RDONLY | O_CLOEXEC)) < 0 ||
	    (n = read(fd, canary, sizeof canary - 1)) <= 0) {
		perror(canfile);
		exit(1);
	}
	close(fd);
	canary[n] = '\0';
	canlen = strlen(canary);
	if (canlen == 0 || canlen != strspn(canary, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-")) {
		fprintf(stderr, "%s: the canary is one word of letters, digits and -\n", canfile);
		exit(1);
	}
}

static int
port_arg(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 1 || v > 65535)
		usage();
	return (int)v;
}

int
main(int argc, char *argv[])
{
	struct sigaction sa;
	char path[108];
	int ch, i;

	while ((ch = getopt(argc, argv, "o:c:l:p:e:w:H:t:u:a:")) != -1) {
		switch (ch) {
		case 'o': status = optarg; break;
		case 'c': canfile = optarg; break;
		case 'l': target = optarg; break;
		case 'p': payout = optarg; break;
		case 'e': alive = optarg; break;
		case 'w':
			if (nw >= MAXDIRS)
				usage();
			wdirs[nw++] = optarg;
			break;
		case 'H':
			if (nh >= MAXDIRS)
				usage();
			hdirs[nh++] = optarg;
			break;
		case 't': lsn_add(TCP, port_arg(optarg), NULL); break;
		case 'u': lsn_add(UDP, port_arg(optarg), NULL); break;
		case 'a': lsn_add(ABSTRACT, 0, optarg); break;
		default: usage();
		}
	}
	if (status == NULL || canfile == NULL || target == NULL || payout == NULL ||
	    optind != argc)
		usage();
	read_canary();
	me = getuid();
	for (i = 0; i < nw; i++) {
		if (snprintf(path, sizeof path, "%s/.wt-h.sock", wdirs[i]) >= (int)sizeof path)
			usage();
		lsn_add(UNIXNAMED, 0, path);
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = on_bus;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);

	for (rounds = 0; !stopping; rounds++) {
		if (rounds % RESCAN == 0) {
			if (alive != NULL && access(alive, F_OK) != 0)
				break;
			rescan();
			if (rounds % (16 * RESCAN) == 0)
				write_status(0);
		}
		swap_all();
		write_taken();
		blink();
	}
	write_status(stopping != 0);
	return 0;
}
