/* SPDX-License-Identifier: ISC */
/*
 * box remove: undo box init for one user (docs/box.md, "Taking a box user
 * down"). What warrant gave the account goes first, its root before the
 * rest: the NOPASSWD drop-in, the admin group, its requester groups, the
 * box password route's key, the stored password; then, only when asked
 * (--delete-user) and only for an account box init created (its record
 * says so; an adopted one never), the account itself, with --delete-home
 * its home and mail spool too; the box record last, so that a run that
 * fails half way can simply be run again. Each thing removed is one line;
 * a run that finds nothing says so.
 *
 * A deleted account leaves nothing its uid's next owner would inherit:
 * no process of the uid runs on (userdel itself skips those whose root
 * differs from its own: a chroot, a mount namespace), no set-id file of
 * it stays where every user may write, and the uid and gid are recorded
 * as retired, so that box init never gives them again.
 */
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "warrant.h"
#include "box/box.h"

#define TERM_WAIT_MS	5000	/* for processes to end after SIGTERM */
#define KILL_WAIT_MS	5000	/* for SIGKILLed ones to be gone */
#define POLL_MS		50
#define CMD_SHOWN	120	/* bytes of a command line shown */
#define SWEEP_DEPTH	128	/* directories nested deeper are not examined */
#define SWEEP_SHOWN	100	/* files listed; the rest are counted */

/* Where every user may write: a uid's files there outlive its account. */
static const char *const shared_places[] = {
	"/tmp", "/var/tmp", "/dev/shm", "/run", "/run/lock", "/var/mail",
	"/var/spool/cron/crontabs", NULL
};
#define SHARED_PLACES	"in /tmp, /var/tmp, /dev/shm, /run, /var/mail and " \
			"/var/spool/cron/crontabs"

/* A live process of the box user's, as listed. */
struct uproc {
	pid_t	 pid;
	char	 cmd[CMD_SHOWN];
	char	 how[256];	/* its uid, root, namespaces where not ours */
};

/* What a look through the shared places found (and removed). */
struct sweep {
	uid_t	 uid;
	int	 remove;	/* --delete-files */
	FILE	*out;		/* the list */
	int	 owned;		/* entries of the uid, the top of each tree */
	int	 setid;		/* set-user-ID or set-group-ID files of the uid */
	int	 deep;		/* directories nested too deep to examine */
	int	 failed;	/* entries that could not be removed */
	int	 shown;
};

/* Anything of warrant box's in name's name: its drop-in, the box password
 * route's key, a stored password. */
static int
leftovers(const char *name)
{
	char dir[PATH_MAX], key[PATH_MAX];
	struct stat st;
	int n;

	if (box_dir_path(dir, sizeof dir) != 0 || (n = snprintf(key, sizeof key,
	    "%s/%s/%s.key", dir, BOX_API_DIR, name)) < 0 || (size_t)n >= sizeof key)
		return 1;
	return box_dropin_present(name) || lstat(key, &st) == 0 ||
	    box_secret_exists(name) != 0;
}

/* Up to size - 1 bytes of /proc/PID/what, NUL-terminated; how many, or -1. */
static ssize_t
read_proc(pid_t pid, const char *what, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof path, "/proc/%ld/%s", (long)pid, what);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)) < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Is /proc/PID/what (its root, a namespace) another than this process's? */
static int
not_ours(pid_t pid, const char *what)
{
	char path[64], self[64];
	struct stat a, b;

	snprintf(path, sizeof path, "/proc/%ld/%s", (long)pid, what);
	snprintf(self, sizeof self, "/proc/self/%s", what);
	return stat(path, &a) == 0 && stat(self, &b) == 0 &&
	    (a.st_dev != b.st_dev || a.st_ino != b.st_ino);
}

static void __attribute__((format(printf, 3, 4)))
append(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n > 0 && n + 2 < size) {
		memcpy(buf + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

/* The value after key ("\nUid:") in a /proc/PID/status text, or "". */
static void
status_value(const char *status, const char *key, char *out, size_t size)
{
	const char *v = strstr(status, key);
	size_t n = 0;

	if (v != NULL) {
		v += strlen(key);
		v += strspn(v, " \t");
		n = strcspn(v, "\n");
		if (n >= size)
			n = size - 1;
		memcpy(out, v, n);
	}
	out[n] = '\0';
}

/* p's command line, and where it runs when that is not where we do: a
 * chroot, its own user, mount or PID namespace, another uid (one in a
 * user namespace of the box user's); or why it could not be examined. */
static void
proc_describe(struct uproc *p, uid_t uid, const char *unexamined)
{
	char status[8192], v[128], comm[32], root[PATH_MAX], path[64], *last;
	unsigned long real;
	ssize_t i, n;

	n = read_proc(p->pid, "cmdline", p->cmd, sizeof p->cmd);
	for (i = 0; i < n; i++)
		if (p->cmd[i] == '\0')
			p->cmd[i] = ' ';
	while (n > 0 && p->cmd[n - 1] == ' ')
		p->cmd[--n] = '\0';
	/* a kernel thread's, or an ended one's: its name */
	if (n <= 0 && read_proc(p->pid, "comm", comm, sizeof comm) > 0) {
		comm[strcspn(comm, "\n")] = '\0';
		snprintf(p->cmd, sizeof p->cmd, "[%s]", comm);
	}
	p->how[0] = '\0';
	if (unexamined != NULL) {
		snprintf(p->how, sizeof p->how, "%s", unexamined);
		return;
	}
	if (read_proc(p->pid, "status", status, sizeof status) > 0) {
		status_value(status, "\nUid:", v, sizeof v);
		if (sscanf(v, "%lu", &real) == 1 && real != (unsigned long)uid)
			append(p->how, sizeof p->how, "uid %lu, in a user namespace "
			    "of uid %u", real, (unsigned)uid);
		status_value(status, "\nNSpid:", v, sizeof v);
		if ((last = strrchr(v, '\t')) != NULL)
			append(p->how, sizeof p->how, "pid %s in its own PID namespace",
			    last + 1);
	}
	snprintf(path, sizeof path, "/proc/%ld/root", (long)p->pid);
	if (not_ours(p->pid, "root") && (n = readlink(path, root, sizeof root - 1)) > 0) {
		root[n] = '\0';
		append(p->how, sizeof p->how, "chrooted to %s", root);
	}
	if (not_ours(p->pid, "ns/user"))
		append(p->how, sizeof p->how, "its own user namespace");
	if (not_ours(p->pid, "ns/mnt"))
		append(p->how, sizeof p->how, "its own mount namespace");
}

/*
 * The live processes of uid into *out (free it): any of whose four uids
 * (real, effective, saved, fs) is uid, or that runs in a user namespace
 * uid owns (process_touchable), whatever its root or namespaces; one that
 * cannot be examined counts too. How many, or -1 after saying why.
 */
static int
procs_scan(uid_t uid, struct uproc **out)
{
	struct writer w = { .uid = uid };
	struct uproc *p = NULL, *grown;
	size_t cap = 0, n = 0;
	struct dirent *d;
	char why[256], *end;
	long pid;
	DIR *dir;
	int rc;

	*out = NULL;
	if ((dir = opendir("/proc")) == NULL) {
		warn("/proc");
		return -1;
	}
	while ((d = readdir(dir)) != NULL) {
		pid = strtol(d->d_name, &end, 10);
		/* a zombie has ended: it runs nothing */
		if (*end != '\0' || pid <= 0 || proc_start_time((pid_t)pid) < 0)
			continue;
		rc = process_touchable(&w, (pid_t)pid, why, sizeof why);
		if (rc == 0 || (rc < 0 && proc_start_time((pid_t)pid) < 0))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			grown = xmalloc(cap * sizeof *p);
			if (n > 0)
				memcpy(grown, p, n * sizeof *p);
			free(p);
			p = grown;
		}
		p[n].pid = (pid_t)pid;
		proc_describe(&p[n++], uid, rc < 0 ? why : NULL);
	}
	closedir(dir);
	*out = p;
	return (int)n;
}

static void
procs_print(FILE *f, const struct uproc *p, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		fprintf(f, "  pid %ld: ", (long)p[i].pid);
		text_print(f, p[i].cmd);
		if (p[i].how[0] != '\0') {
			fputs(" (", f);
			text_print(f, p[i].how);
			fputc(')', f);
		}
		fputc('\n', f);
	}
}

/* Send sig to pid while it is still one of uid's, through a pidfd: a pid
 * reused since the scan is never signalled. 1 when sent. */
static int
signal_theirs(pid_t pid, uid_t uid, int sig)
{
	struct writer w = { .uid = uid };
	char why[256];
	int fd, sent;

	if ((fd = pidfd_open(pid, 0)) < 0)
		return 0;
	sent = process_touchable(&w, pid, why, sizeof why) == 1 &&
	    pidfd_send_signal(fd, sig, NULL, 0) == 0;
	close(fd);
	return sent;
}

/* sig to every process of uid (by its pid in our PID namespace, the
 * initial one: a process in a namespace of its own too); how many, or -1. */
static int
signal_all(uid_t uid, int sig)
{
	struct uproc *p;
	int n, i, sent = 0;

	if ((n = procs_scan(uid, &p)) < 0)
		return -1;
	for (i = 0; i < n; i++)
		sent += signal_theirs(p[i].pid, uid, sig);
	free(p);
	return sent;
}

/* Wait at most ms for uid's processes to be gone: how many are left, or -1. */
static int
wait_gone(uid_t uid, int64_t ms)
{
	struct timespec pause = { 0, POLL_MS * 1000000L };
	int64_t until = monotonic_ms() + ms;
	struct uproc *p;
	int n;

	for (;;) {
		n = procs_scan(uid, &p);
		free(p);
		if (n <= 0 || monotonic_ms() >= until)
			return n;
		nanosleep(&pause, NULL);
	}
}

/* SIGKILL to uid's processes until none is left (one forked meanwhile is
 * found by the next look) or KILL_WAIT_MS is over: how many the first
 * look found, or -1. */
static int
kill_all(uid_t uid)
{
	int64_t until = monotonic_ms() + KILL_WAIT_MS;
	int first = -1, sent;

	do {
		if ((sent = signal_all(uid, SIGKILL)) < 0)
			return -1;
		if (first < 0)
			first = sent;
	} while (sent > 0 && wait_gone(uid, POLL_MS) > 0 && monotonic_ms() < until);
	return first;
}

/* logind's sessions of uid, where logind keeps any: loginctl
 * terminate-user ends them with their cgroups. */
static void
end_logind_sessions(uid_t uid)
{
	char path[64], id[24];
	const char *argv[] = { PATH_LOGINCTL, "terminate-user", id, NULL };
	struct stat st;

	snprintf(id, sizeof id, "%u", (unsigned)uid);
	snprintf(path, sizeof path, "/run/systemd/users/%s", id);
	if (lstat(path, &st) != 0 || access(PATH_LOGINCTL, X_OK) != 0)
		printf("logind: no session of uid %s (loginctl terminate-user skipped)\n", id);
	else if (box_run("loginctl", argv, NULL, 0) == 0)
		printf("loginctl terminate-user %s: done\n", id);
	else
		printf("loginctl terminate-user %s: failed (above); signalling its "
		    "processes instead\n", id);
}

/* Right before the account goes: no process of uid is left (with
 * kill_first, any that appeared since is killed first). 0, or -1 after
 * listing them. */
static int
none_left(const char *name, uid_t uid, int kill_first)
{
	struct uproc *p;
	int n;

	if (kill_first && (n = kill_all(uid)) > 0)
		printf("SIGKILL: %d process%s of %s that appeared since\n", n,
		    n == 1 ? "" : "es", name);
	if ((n = procs_scan(uid, &p)) < 0) {
		box_fail("processes", "the processes of uid %u cannot be listed",
		    (unsigned)uid);
		return -1;
	}
	if (n > 0) {
		fprintf(stderr, "warrant box: processes of %s (uid %u) still running:\n",
		    name, (unsigned)uid);
		procs_print(stderr, p, n);
		box_fail("processes", "%d process%s of uid %u still run%s (above); the "
		    "account stays", n, n == 1 ? "" : "es", (unsigned)uid,
		    n == 1 ? "s" : "");
	}
	free(p);
	return n == 0 ? 0 : -1;
}

/* --stop-sessions: logind's sessions, SIGTERM, SIGKILL TERM_WAIT_MS later
 * to whatever is left; each said. 0 when none is left, or -1. */
static int
stop_processes(const char *name, uid_t uid)
{
	struct uproc *p;
	int n, sent;

	if ((n = procs_scan(uid, &p)) <= 0) {
		free(p);
		if (n == 0)
			printf("processes of %s (uid %u): none\n", name, (unsigned)uid);
		else
			box_fail("processes", "the processes of uid %u cannot be listed",
			    (unsigned)uid);
		return n;
	}
	printf("processes of %s (uid %u): %d, stopping them:\n", name, (unsigned)uid, n);
	procs_print(stdout, p, n);
	free(p);
	end_logind_sessions(uid);
	if ((sent = signal_all(uid, SIGTERM)) >= 0)
		printf("SIGTERM: sent to %d\n", sent);
	if (sent >= 0 && (n = wait_gone(uid, TERM_WAIT_MS)) > 0 &&
	    (sent = kill_all(uid)) >= 0)
		printf("SIGKILL: sent to %d still running after %d s\n", sent,
		    TERM_WAIT_MS / 1000);
	/* whatever failed above: what is left is listed here */
	if (none_left(name, uid, 0) != 0)
		return -1;
	printf("processes of %s: none left\n", name);
	return 0;
}

static const char *
kind_of(mode_t m)
{
	if (S_ISREG(m))
		return "file";
	if (S_ISDIR(m))
		return "directory";
	if (S_ISLNK(m))
		return "symbolic link";
	if (S_ISFIFO(m))
		return "FIFO";
	if (S_ISSOCK(m))
		return "socket";
	return "device node";
}

static int
is_setid(const struct stat *st)
{
	return S_ISREG(st->st_mode) && (st->st_mode & (S_ISUID | S_ISGID)) != 0;
}

/* One line of the list: the path, what it is, what became of it. */
static void
show(struct sweep *s, const char *path, const struct stat *st, const char *what)
{
	if (s->shown++ >= SWEEP_SHOWN)
		return;
	fputs("  ", s->out);
	text_print(s->out, path);
	if (is_setid(st))
		fprintf(s->out, " (set-%s-ID file, mode %04o)", st->st_mode & S_ISUID ?
		    "user" : "group", (unsigned)(st->st_mode & 07777));
	else
		fprintf(s->out, " (%s)", kind_of(st->st_mode));
	if (what != NULL)
		fprintf(s->out, ": %s", what);
	fputc('\n', s->out);
}

/*
 * The entries of s->uid in the directory open at dfd (path, for the
 * list), and below it: never following a symbolic link, never entering
 * another file system. Listed: the top of each tree of the uid's, and
 * every set-id file of it. With s->remove each such tree goes whole
 * (inside: within one, where everything is removed), depth first, with
 * unlinkat.
 */
static void
walk(struct sweep *s, int dfd, const char *path, dev_t dev, int depth, int inside)
{
	char sub[PATH_MAX], why[96];
	struct stat st, cst;
	struct dirent *e;
	const char *what;
	int fd, mine, listed, doomed;
	DIR *d;

	if ((fd = dup(dfd)) < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		s->failed++;
		fputs("  ", s->out);
		text_print(s->out, path);
		fprintf(s->out, ": cannot be read: %s\n", strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		mine = st.st_uid == s->uid;
		listed = mine && (!inside || is_setid(&st));
		doomed = s->remove && (mine || inside);
		what = NULL;
		if (S_ISDIR(st.st_mode) && st.st_dev != dev) {
			/* another file system: not entered, not removed */
			if (listed) {
				s->owned++;
				show(s, sub, &st, "a mount point: not entered, kept");
			}
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth >= SWEEP_DEPTH) {
			s->deep++;
			show(s, sub, &st, "nested too deep: not examined");
			continue;
		}
		if (S_ISDIR(st.st_mode) && (fd = openat(dfd, e->d_name, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			/* the directory stated, not one swapped in since */
			if (fstat(fd, &cst) == 0 && cst.st_dev == st.st_dev &&
			    cst.st_ino == st.st_ino)
				walk(s, fd, sub, dev, depth + 1, inside || mine);
			close(fd);
		}
		if (doomed && unlinkat(dfd, e->d_name, S_ISDIR(st.st_mode) ?
		    AT_REMOVEDIR : 0) == 0)
			what = "removed";
		else if (doomed) {
			snprintf(why, sizeof why, "not removed: %s", strerror(errno));
			what = why;
			s->failed++;
			listed = 1;
		}
		if (mine && is_setid(&st))
			s->setid++;
		else if (listed && mine)
			s->owned++;
		if (listed)
			show(s, sub, &st, what);
	}
	closedir(d);
}

/* Look through every shared place (one inside another on the same file
 * system, /run/lock in /run, only once) for s->uid's entries; the list
 * in *list (free it). */
static void
sweep_run(struct sweep *s, char **list)
{
	dev_t dev[sizeof shared_places / sizeof shared_places[0]];
	struct stat st;
	size_t i, j, n, len;
	int fd, seen;

	if ((s->out = open_memstream(list, &len)) == NULL)
		err(EXIT_INTERNAL, "open_memstream");
	for (i = 0; shared_places[i] != NULL; i++) {
		dev[i] = (dev_t)-1;
		/* absent, or a symbolic link (/var/lock): not looked at */
		if ((fd = open(shared_places[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0)
			continue;
		if (fstat(fd, &st) != 0) {
			close(fd);
			continue;
		}
		for (j = 0, seen = 0; j < i && !seen; j++) {
			n = strlen(shared_places[j]);
			seen = dev[j] == st.st_dev && strncmp(shared_places[i],
			    shared_places[j], n) == 0 && shared_places[i][n] == '/';
		}
		if (!seen) {
			dev[i] = st.st_dev;
			walk(s, fd, shared_places[i], st.st_dev, 0, 0);
		}
		close(fd);
	}
	if (s->shown > SWEEP_SHOWN)
		fprintf(s->out, "  ... and %d more\n", s->shown - SWEEP_SHOWN);
	fclose(s->out);
	s->out = NULL;
}

/* With --delete-user: the uid's files in the shared places, listed, or
 * with --delete-files removed. 0, or -1 after saying why the account
 * stays: a set-id file there (or a directory not examined) would pass
 * to the uid's next owner. */
static int
leftover_files(const char *name, uid_t uid, int delete)
{
	struct sweep s = { .uid = uid, .remove = delete };
	char *list;
	int n;

	sweep_run(&s, &list);
	n = s.owned + s.setid + s.deep;
	printf("files of %s (uid %u) " SHARED_PLACES ": %s\n", name, (unsigned)uid,
	    n == 0 ? "none" : delete ? "removing them" : "kept");
	fputs(list, stdout);
	free(list);
	if (delete && s.failed + s.deep > 0) {
		box_fail("delete-files", "%d of them could not be removed (above); the "
		    "account stays", s.failed + s.deep);
		return -1;
	}
	if (!delete && s.setid + s.deep > 0) {
		box_fail("setid-files", "set-id files of uid %u or directories not "
		    "examined (above) would pass to the uid's next owner; the account "
		    "stays (--delete-files removes them)", (unsigned)uid);
		return -1;
	}
	if (!delete && n > 0)
		printf("warning: they keep uid %u, which box init never gives again; an "
		    "account given it another way (useradd -u %u) would own them "
		    "(box remove --delete-files removes them)\n", (unsigned)uid,
		    (unsigned)uid);
	return 0;
}

/* The uid, and the gid of its own group (which userdel deletes with it),
 * recorded as retired before the account goes; 0, or -1. */
static int
retire_ids(const char *name, uid_t uid, gid_t gid)
{
	struct group *gr = getgrnam(name);

	if (box_retire("uid", (unsigned)uid, name) != 0)
		return -1;
	if (gr != NULL && gr->gr_gid == gid)
		return box_retire("gid", (unsigned)gid, name);
	return 0;
}

/*
 * May box remove run for name: an account of that name is a box user (box
 * init's record names its uid), or one with nothing of warrant box's; to
 * be deleted, one that box init created, with no process running unless
 * --stop-sessions ends them, and no set-id file in the shared places
 * unless --delete-files removes them. 0, or a refusal; nothing changed.
 */
int
box_remove_check(const char *name, const struct box_removal *o, struct refusal *r)
{
	struct sweep s = { .remove = 0 };
	struct uproc *p;
	struct passwd *pw;
	char *list;
	uid_t uid;
	int rec, n;

	if (box_check_account(name, r) != 0)
		return -1;
	if ((pw = getpwnam(name)) == NULL)
		return 0;
	uid = pw->pw_uid;
	if ((rec = box_recorded(name, "user", uid)) < 0)
		return refuse(r, "bad_box_dir", "--user", "the box directory cannot be "
		    "read (see above); nothing changed");
	if (rec == 0 && (o->delete_user || leftovers(name)))
		return refuse(r, "not_box_user", "--user", "'%s' (uid %u) is not a box "
		    "user (warrant box neither created nor adopted it), so %s is not "
		    "warrant's to remove; nothing changed", name, (unsigned)uid,
		    o->delete_user ? "the account" : "what is there in its name");
	if (!o->delete_user)
		return 0;
	if (rec != BOX_CREATED)
		return refuse(r, "not_created", "--delete-user", "'%s' (uid %u) was "
		    "adopted by warrant box (box init --adopt, or made by a version "
		    "that did not record which accounts it created), not created by "
		    "it: the account is not warrant's to delete; run box remove "
		    "without --delete-user, then delete the account yourself if it "
		    "should go", name, (unsigned)uid);
	if ((n = procs_scan(uid, &p)) < 0)
		return refuse(r, "proc_unreadable", "--delete-user", "the processes of "
		    "uid %u cannot be listed (see above); nothing changed", (unsigned)uid);
	if (n > 0 && !o->stop_sessions) {
		fprintf(stderr, "warrant box: processes of %s (uid %u):\n", name,
		    (unsigned)uid);
		procs_print(stderr, p, n);
		free(p);
		return refuse(r, "user_has_processes", "--delete-user", "'%s' (uid %u) "
		    "has %d process%s running (above), which would outlive the account "
		    "and act for whoever gets uid %u next; end them (log the agent out, "
		    "close its terminals), or give --stop-sessions to have box remove "
		    "end them (loginctl terminate-user, SIGTERM, SIGKILL %d s later); "
		    "nothing changed", name, (unsigned)uid, n, n == 1 ? "" : "es",
		    (unsigned)uid, TERM_WAIT_MS / 1000);
	}
	free(p);
	if (o->delete_files)
		return 0;
	s.uid = uid;
	sweep_run(&s, &list);
	if (s.setid + s.deep > 0)
		fprintf(stderr, "warrant box: files of %s (uid %u) " SHARED_PLACES ":\n%s",
		    name, (unsigned)uid, list);
	free(list);
	if (s.setid + s.deep > 0)
		return refuse(r, "setid_files", "--delete-user", "'%s' (uid %u) owns %d "
		    "set-id file%s%s outside its home (above): the account deleted, "
		    "whoever gets uid %u next would run %s as itself; give "
		    "--delete-files to remove them with the rest of its files there, "
		    "or remove them yourself; nothing changed", name, (unsigned)uid,
		    s.setid, s.setid == 1 ? "" : "s", s.deep > 0 ? " (and directories "
		    "nested too deep to examine)" : "", (unsigned)uid,
		    s.setid == 1 ? "it" : "them");
	return 0;
}

/* Out of every requester group it is in: how many, or -1. */
static int
leave_requester_groups(const char *name)
{
	json_t *revs = box_req_reviewers(name);
	size_t i;
	int n = 0;

	for (i = 0; i < json_array_size(revs) && n >= 0; i++)
		n = box_req_remove(json_string_value(json_array_get(revs, i)), name) == 0 ?
		    n + 1 : -1;
	json_decref(revs);
	return n;
}

/* userdel, saying what went with the account; 0, or -1. */
static int
delete_account(const char *name, uid_t uid, const char *home, int delete_home)
{
	const char *argv[] = { PATH_USERDEL, "--", name, NULL, NULL };
	struct group *gr = getgrnam(name);
	int own_group = gr != NULL;
	gid_t gid = own_group ? gr->gr_gid : 0;

	if (delete_home) {
		argv[1] = "-r";
		argv[2] = "--";
		argv[3] = name;
	}
	if (box_run("userdel", argv, NULL, 0) != 0)
		return -1;
	printf("account %s (uid %u): deleted\n", name, (unsigned)uid);
	if (delete_home && access(home, F_OK) != 0)
		printf("home %s: deleted\n", home);
	if (own_group && getgrnam(name) == NULL)
		printf("group %s (gid %u): deleted with the account\n", name, (unsigned)gid);
	return 0;
}

/* Remove name's box set-up, which passed box_remove_check; 0, or -1
 * after naming the step that failed. */
int
box_remove(const char *name, const struct box_removal *o)
{
	char path[PATH_MAX], dir[PATH_MAX], home[PATH_MAX] = "";
	struct passwd *pw;
	uid_t uid = 0;
	gid_t gid = 0;
	int lock, exists, gone, removed = 0, rc = -1, n;

	if (box_dir_path(dir, sizeof dir) != 0 || (lock = box_lock()) < 0)
		return -1;
	if ((exists = (pw = getpwnam(name)) != NULL)) {
		uid = pw->pw_uid;
		gid = pw->pw_gid;
		snprintf(home, sizeof home, "%s", pw->pw_dir);
	}
	/* Not a box user (box_remove_check found nothing of warrant's). */
	if (exists && box_user_recorded(name, uid) != 1) {
		printf("%s: nothing to remove (not a box user)\n", name);
		goto prune;
	}
	gone = exists && o->delete_user;
	/* Nothing of the agent's runs on while the rest is taken down. */
	if (gone && o->stop_sessions && stop_processes(name, uid) != 0)
		goto out;
	if (box_dropin_present(name)) {
		if (box_dropin_path(name, path, sizeof path) != 0 ||
		    box_dropin_remove(name) != 0)
			goto out;
		printf("sudoers drop-in %s: removed\n", path);
		removed++;
	}
	if (exists) {
		if ((n = box_drop_admin(name, "box remove")) < 0)
			goto out;
		removed += n;
		if ((n = leave_requester_groups(name)) < 0)
			goto out;
		removed += n;
	}
	if ((n = box_apikey_remove(name)) < 0)
		goto out;
	removed += n == 0;
	if ((n = box_secret_clear(name)) < 0)
		goto out;
	if (n == 0) {
		printf("stored box password %s/%s.pw: removed\n", dir, name);
		removed++;
	}
	if (gone) {
		if (leftover_files(name, uid, o->delete_files) != 0 ||
		    retire_ids(name, uid, gid) != 0 ||
		    none_left(name, uid, o->stop_sessions) != 0 ||
		    delete_account(name, uid, home, o->delete_home) != 0)
			goto out;
		removed++;
	} else if (exists)
		printf("account %s (uid %u): kept (box remove --delete-user deletes "
		    "it); it is no longer a box user\n", name, (unsigned)uid);
	if ((n = box_unrecord(name, "user")) < 0)
		goto out;
	removed += n == 0;
	if (removed == 0)
		printf("box user %s: nothing to remove\n", name);
prune:
	/* box_lock made the directory if it was not there. */
	rc = box_dir_prune();
out:
	box_unlock(lock);
	return rc;
}
