/* SPDX-License-Identifier: ISC */
/*
 * The runner's I/O log: each ROOT command's output in sudo's I/O log
 * format, so `sudoreplay -d DIR ID` replays it and `sudoreplay -d
 * DIR -l` lists it. One session per command under the build-time
 * directory (WARRANT_IOLOG_DIR), named like sudo's iolog_file %{seq}: a
 * 6-character base-36 sequence kept in DIR/seq under a flock, as
 * DIR/00/00/01. Directories 0700 and files 0600, root's; every file is
 * created fresh (O_EXCL|O_NOFOLLOW|O_CLOEXEC), so nothing is appended to a
 * file someone else made. A session holds:
 *
 *   timing    one line per chunk of output: "EVENT DELAY BYTES", event 1
 *             (stdout), DELAY the seconds since the previous event
 *             ("%lld.%09ld"); its write bits are cleared when the command
 *             has ended (sudo's mark of a finished session)
 *   stdout    the bytes as the command wrote them (not redacted), its
 *             stdout and stderr together: they share one pipe, so the
 *             ledger and the replay keep the order they were written in
 *             (two pipes cannot tell which of two close writes came
 *             first); sudo records a terminal's output as one stream too
 *   log       legacy: "epoch:submituser:runuser:rungroup:ttyname:lines:cols",
 *             the cwd, the command line
 *   log.json  the same and more, indented (sudo's parser wants a space
 *             or a comma after each number)
 *
 * Output is written as it is read (nothing is held in memory) up to
 * IOLOG_MAX bytes a command; past that, or after a failed write, nothing
 * more is recorded and the session says so in `error`, which the runner
 * puts in the root log. The command itself is never affected. The log as
 * a whole is a ring, like sudo's maxseq: ids run from 1 to the policy's
 * iolog_max_sessions, then start at 1 again, where a finished session of
 * ours is the oldest and is removed to make room.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "root.h"
#include "iolog.h"

#define SEQ_MAX		2176782336UL	/* 36^6: ids 000001 .. ZZZZZZ, then 000001 again */
#define SEQ_TRIES	4096		/* ids tried past ones already taken */

static const char b36[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
static const char *const files[] = { "timing", "stdout", "log.json", "log" };

/* "00/00/01" for 1. 0, or -1 when the number is out of range. */
int
iolog_seq_format(unsigned long seq, char id[IOLOG_ID_LEN + 1])
{
	char d[6];
	int i;

	if (seq == 0 || seq >= SEQ_MAX)
		return -1;
	for (i = 5; i >= 0; i--) {
		d[i] = b36[seq % 36];
		seq /= 36;
	}
	snprintf(id, IOLOG_ID_LEN + 1, "%c%c/%c%c/%c%c", d[0], d[1], d[2], d[3], d[4], d[5]);
	return 0;
}

/* The seq file's contents: up to 6 base-36 digits and a line break. */
int
iolog_seq_parse(const char *s, size_t n, unsigned long *seq)
{
	const char *p;
	size_t i;

	if (n > 0 && s[n - 1] == '\n')
		n--;
	if (n == 0 || n > 6)
		return -1;
	*seq = 0;
	for (i = 0; i < n; i++) {
		if ((p = strchr(b36, s[i] >= 'a' && s[i] <= 'z' ? s[i] - 'a' + 'A' : s[i])) == NULL ||
		    *p == '\0')
			return -1;
		*seq = *seq * 36 + (unsigned long)(p - b36);
	}
	return 0;
}

/* A directory nobody but root (or whoever runs this) can change. */
static int
dir_ok(int fd, int last, const char *name, char *why, size_t size)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, size, "%s is not a directory", name);
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(why, size, "%s is owned by uid %u, not root", name, (unsigned)st.st_uid);
		return -1;
	}
	/* the log's own directories: writable by nobody else, then 0700 */
	if (last && (st.st_mode & 022) != 0) {
		snprintf(why, size, "%s is writable by group or others", name);
		return -1;
	}
	/* above it: root's; group write (Ubuntu's /var/log is root:syslog
	 * 0775) and a sticky directory (/tmp) are fine, since whoever can
	 * write there can at most move the log away, never make a directory
	 * of root's; others' write is not */
	if (!last && (st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0) {
		snprintf(why, size, "%s is writable by others", name);
		return -1;
	}
	if (last && (st.st_mode & 077) != 0 && fchmod(fd, 0700) != 0) {
		snprintf(why, size, "cannot make %s 0700: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

/* Open the log directory, component by component without following a
 * link, creating the last one (0700) if it is missing. */
static int
open_root(const char *dir, char *why, size_t size)
{
	char path[PATH_MAX], *comp, *save = NULL, *next;
	int fd, nfd;

	if (dir[0] != '/' || strlen(dir) >= sizeof path) {
		snprintf(why, size, "the I/O log directory must be an absolute path");
		return -1;
	}
	strcpy(path, dir);
	if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(why, size, "/: %s", strerror(errno));
		return -1;
	}
	for (comp = strtok_r(path, "/", &save); comp != NULL; comp = next) {
		next = strtok_r(NULL, "/", &save);
		nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && errno == ENOENT && next == NULL && mkdirat(fd, comp, 0700) == 0)
			nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			snprintf(why, size, "%s: %s", dir, strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
		fd = nfd;
		if (dir_ok(fd, next == NULL, next == NULL ? dir : comp, why, size) != 0) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

/*
 * Before anything runs: the log directory exists (created if missing) and
 * is root's alone, and the terminal sudo ran the runner on is noted (its
 * name and size go into every session); the log keeps that many sessions
 * at most (IOLOG_SESSIONS_DEFAULT unless the policy says). 0, or -1 with
 * a reason.
 */
int
iolog_prepare(struct iolog_host *h, const char *dir, unsigned long sessions, char *why,
    size_t size)
{
	struct winsize ws;
	int fd, i;

	memset(h, 0, sizeof *h);
	if ((fd = open_root(dir, why, size)) < 0)
		return -1;
	close(fd);
	strcpy(h->dir, dir);
	h->sessions = sessions < SEQ_MAX ? sessions : SEQ_MAX - 1;
	strcpy(h->tty, "unknown");
	h->lines = 24;
	h->cols = 80;
	for (i = 0; i <= 2; i++)
		if (isatty(i) && ttyname_r(i, h->tty, sizeof h->tty) == 0) {
			if (strpbrk(h->tty, ":\n") != NULL)
				strcpy(h->tty, "unknown");
			if (ioctl(i, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
				h->lines = ws.ws_row;
				h->cols = ws.ws_col;
			}
			break;
		}
	return 0;
}

/* mkdir NAME in fd (0700) unless it exists, then open it: a directory of
 * root's, 0700. */
static int
sub_dir(int fd, const char *name, int fresh, char *why, size_t size)
{
	int nfd;

	if (mkdirat(fd, name, 0700) != 0 && (fresh || errno != EEXIST))
		return -1;
	if ((nfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		snprintf(why, size, "%s: %s", name, strerror(errno));
		return -2;
	}
	if (dir_ok(nfd, 1, name, why, size) != 0) {
		close(nfd);
		return -2;
	}
	return nfd;
}

/*
 * The session NAME in fd, found where the ring comes round again: the
 * oldest one, removed to make room when it is a finished session of ours
 * (a directory of root's holding only our files, the timing file without
 * write bits). 0 when it is gone, -1 (errno EEXIST) when it stays: a
 * directory someone else made, or one cut short, is passed over.
 */
static int
reclaim(int fd, const char *name)
{
	struct stat st;
	char why[64];
	size_t i;
	int dfd;

	if ((dfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		goto stays;
	if (dir_ok(dfd, 1, name, why, sizeof why) != 0 ||
	    fstatat(dfd, "timing", &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_mode & 0222) != 0) {
		close(dfd);
		goto stays;
	}
	for (i = 0; i < sizeof files / sizeof files[0]; i++)
		unlinkat(dfd, files[i], 0);
	close(dfd);
	if (unlinkat(fd, name, AT_REMOVEDIR) == 0)
		return 0;
stays:
	errno = EEXIST;
	return -1;
}

/*
 * The next session directory, under the seq file's lock: the number
 * after the one in seq (1 after the last of the ring), its old session
 * removed if it is a finished one of ours not waiting to be shipped, else
 * the next whose directory does not exist. Returns its descriptor with io->id set, or -1 with a
 * reason.
 */
static int
next_session(struct iolog *io, const struct iolog_host *h, int root, char *why, size_t size)
{
	char buf[32], name[3][3];
	unsigned long seq = 0;
	int seqfd, fd = -1, a, b, tries;
	struct stat st;
	ssize_t n;

	seqfd = openat(root, "seq", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (seqfd < 0 || fstat(seqfd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid()) || flock(seqfd, LOCK_EX) != 0) {
		snprintf(why, size, "seq: %s", seqfd < 0 ? strerror(errno) :
		    "not a regular file of root's, or cannot be locked");
		if (seqfd >= 0)
			close(seqfd);
		return -1;
	}
	if ((n = pread(seqfd, buf, sizeof buf, 0)) > 0 && iolog_seq_parse(buf, (size_t)n, &seq) != 0)
		seq = 0;	/* as sudo: a bad number starts again */
	for (tries = 0; tries < SEQ_TRIES; tries++) {
		seq = seq + 1 > h->sessions ? 1 : seq + 1;
		iolog_seq_format(seq, io->id);
		memcpy(name[0], io->id, 2);
		memcpy(name[1], io->id + 3, 2);
		memcpy(name[2], io->id + 6, 2);
		name[0][2] = name[1][2] = name[2][2] = '\0';
		if ((a = sub_dir(root, name[0], 0, why, size)) == -1)
			snprintf(why, size, "%.2s: %s", io->id, strerror(errno));
		if (a < 0)
			break;
		if ((b = sub_dir(a, name[1], 0, why, size)) == -1)
			snprintf(why, size, "%.5s: %s", io->id, strerror(errno));
		close(a);
		if (b < 0)
			break;
		fd = sub_dir(b, name[2], 1, why, size);
		/* a session still to be shipped to the log server is kept */
		if (fd == -1 && errno == EEXIST && !logship_unsent(io->id) &&
		    reclaim(b, name[2]) == 0)
			fd = sub_dir(b, name[2], 1, why, size);
		close(b);
		if (fd >= 0 || fd == -2)
			break;
		if (errno != EEXIST) {
			snprintf(why, size, "%s: %s", io->id, strerror(errno));
			break;
		}
	}
	if (tries == SEQ_TRIES)
		snprintf(why, size, "no free session id after %s", io->id);
	/* the number used, as sudo writes it: six digits and a line break */
	snprintf(buf, sizeof buf, "%.2s%.2s%.2s\n", io->id, io->id + 3, io->id + 6);
	if (fd >= 0 && (pwrite(seqfd, buf, 7, 0) != 7 || ftruncate(seqfd, 7) != 0)) {
		snprintf(why, size, "seq: %s", strerror(errno));
		close(fd);
		fd = -1;
	}
	close(seqfd);		/* and the lock with it */
	return fd < 0 ? -1 : fd;
}

/*
 * A word of the legacy log's cwd or command line, neutralised as sudo
 * does since CVE-2023-28486/28487: each control character (C0, DEL, and
 * C1 or a byte that is not UTF-8, which some terminals take as C1) is
 * written as '#' and three octal digits (ESC is #033), so neither `cat
 * log` nor a sudoreplay that prints it as it is can be steered by it, and
 * a line break cannot forge another line.
 */
static void
put_word(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, len = strlen(s), i;
	unsigned cp;

	while (*p != '\0') {
		n = utf8_decode(p, len - (size_t)(p - (const unsigned char *)s), &cp);
		if (n == 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
			for (i = 0; i < (n ? n : 1); i++)
				fprintf(fp, "#%03o", p[i]);
			p += n ? n : 1;
			continue;
		}
		fwrite(p, 1, n, fp);
		p += n;
	}
}

static int
write_info(const struct iolog *io, const struct iolog_host *h, const struct iolog_info *in,
    const struct timespec *now)
{
	char host[256] = "unknown";
	json_t *j, *argv = json_array();
	FILE *fp;
	size_t i;
	int fd, rc;

	for (i = 0; in->argv[i] != NULL; i++)
		json_array_append_new(argv, json_string(in->argv[i]));
	gethostname(host, sizeof host - 1);
	j = json_pack("{s:{s:I,s:I},s:i,s:s,s:i,s:o,s:I,s:I,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}",
	    "timestamp", "seconds", (json_int_t)now->tv_sec, "nanoseconds",
	    (json_int_t)now->tv_nsec, "columns", h->cols, "command", in->command,
	    "lines", h->lines, "runargv", argv, "runuid", (json_int_t)in->runuid,
	    "rungid", (json_int_t)in->rungid, "runuser", in->runuser, "runcwd", in->cwd,
	    "submitcwd", in->cwd, "submithost", host, "submituser", in->submituser,
	    "ttyname", h->tty, "warrant_request_id", in->request_id,
	    "warrant_command_id", in->command_id);
	if (j == NULL)
		return -1;
	fd = openat(io->dfd, "log.json", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || (fp = fdopen(fd, "w")) == NULL) {
		if (fd >= 0)
			close(fd);
		json_decref(j);
		return -1;
	}
	rc = json_dumpf(j, fp, JSON_INDENT(4)) != 0 || fputc('\n', fp) == EOF;
	rc |= fclose(fp) != 0;
	json_decref(j);
	if (rc != 0)
		return -1;

	fd = openat(io->dfd, "log", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || (fp = fdopen(fd, "w")) == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* no run group: the command runs with run_as's own (sudo leaves it empty) */
	fprintf(fp, "%lld:%s:%s::%s:%d:%d\n", (long long)now->tv_sec, in->submituser,
	    in->runuser, h->tty, h->lines, h->cols);
	put_word(fp, in->cwd);
	fputc('\n', fp);
	put_word(fp, in->command);
	for (i = 1; in->argv[i] != NULL; i++) {
		fputc(' ', fp);
		put_word(fp, in->argv[i]);
	}
	fputc('\n', fp);
	rc = ferror(fp);
	return fclose(fp) != 0 || rc != 0 ? -1 : 0;
}

/* Take the partial session away again (its `log` is written last, so a
 * leftover is not listed by sudoreplay anyway). */
static void
discard(struct iolog *io, const struct iolog_host *h)
{
	char path[PATH_MAX + 16];
	size_t i;

	for (i = 0; i < sizeof files / sizeof files[0]; i++)
		unlinkat(io->dfd, files[i], 0);
	snprintf(path, sizeof path, "%s/%s", h->dir, io->id);
	rmdir(path);
}

/*
 * A new session for one command, just before it starts: the directory,
 * the files, log and log.json written. 0, or -1 with a reason (then
 * nothing is open and the command must not start).
 */
int
iolog_open(struct iolog *io, const struct iolog_host *h, const struct iolog_info *in,
    char *why, size_t size)
{
	struct timespec now;
	int root, i;

	memset(io, 0, sizeof *io);
	io->dfd = io->fd[0] = io->fd[1] = -1;
	io->max = IOLOG_MAX;
	strcpy(io->id, "seq");
	why[0] = '\0';
	if ((root = open_root(h->dir, why, size)) < 0)
		return -1;
	io->dfd = next_session(io, h, root, why, size);
	close(root);
	if (io->dfd < 0)
		return -1;
	clock_gettime(CLOCK_REALTIME, &now);
	for (i = 0; i < 2; i++)
		if ((io->fd[i] = openat(io->dfd, files[i],
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
			break;
	if (i < 2 || write_info(io, h, in, &now) != 0) {
		snprintf(why, size, "%s/%s: %s", h->dir, io->id, strerror(errno ? errno : EIO));
		discard(io, h);
		iolog_close(io);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &io->last);
	return 0;
}

/*
 * The capture's sink: n bytes the command wrote, then their timing line. After a failed write or past the cap,
 * nothing more: the timing file never names bytes that are not there.
 */
void
iolog_write(void *arg, const char *p, size_t n)
{
	struct iolog *io = arg;
	struct timespec now;
	long long sec;
	long nsec;
	char line[96];
	int len;

	if (io->dfd < 0 || io->error[0] != '\0' || n == 0)
		return;
	if (n > io->max - io->bytes)
		n = (size_t)(io->max - io->bytes);
	clock_gettime(CLOCK_MONOTONIC, &now);
	sec = (long long)(now.tv_sec - io->last.tv_sec);
	nsec = now.tv_nsec - io->last.tv_nsec;
	if (nsec < 0) {
		sec--;
		nsec += 1000000000L;
	}
	io->last = now;
	len = snprintf(line, sizeof line, "1 %lld.%09ld %zu\n", sec, nsec, n);
	if (n > 0 && (write_all(io->fd[1], p, n) != 0 ||
	    write_all(io->fd[0], line, (size_t)len) != 0)) {
		snprintf(io->error, sizeof io->error, "writing the I/O log failed (%s); "
		    "output after byte %llu was not recorded", strerror(errno),
		    (unsigned long long)io->bytes);
		return;
	}
	io->bytes += n;
	if (io->bytes >= io->max && io->error[0] == '\0')
		snprintf(io->error, sizeof io->error, "output past %llu MiB was not recorded",
		    (unsigned long long)(io->max >> 20));
}

/* The command has ended: the timing file loses its write bits (sudo's
 * "complete"), everything is closed. Safe to call twice. */
void
iolog_close(struct iolog *io)
{
	int i;

	if (io->fd[0] >= 0 && fchmod(io->fd[0], 0400) != 0 && io->error[0] == '\0')
		snprintf(io->error, sizeof io->error, "cannot mark the timing file complete: %s",
		    strerror(errno));
	for (i = 0; i < 2; i++)
		if (io->fd[i] >= 0 && close(io->fd[i]) != 0 && io->error[0] == '\0')
			snprintf(io->error, sizeof io->error, "closing the I/O log failed: %s",
			    strerror(errno));
	io->fd[0] = io->fd[1] = -1;
	if (io->dfd >= 0)
		close(io->dfd);
	io->dfd = -1;
}
