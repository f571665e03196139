/* SPDX-License-Identifier: ISC */
/*
 * Stopping a running batch, and its live output (docs/execution.md,
 * "Stopping a batch"). The reviewer asks by creating RUN_STOP in the run
 * directory, which is theirs and closed to everyone else (0700): the
 * executor (the root runner, or `warrant answer`) hears only that the
 * file is there, never reads it, never follows a link by that name, and
 * believes it only when it is owned by the reviewer (or root). While a
 * command runs, the executor also keeps RUN_LIVE: which command runs and
 * the raw tail of its output, rewritten at most every LIVE_EVERY_MS; the
 * reviewer's readers redact and neutralise it before showing it.
 *
 * A stopped command's whole tree goes: the executor is its children's
 * subreaper (a command that double-forks into a new session still has
 * the executor as an ancestor), so every descendant of the executor is
 * signalled, SIGTERM first, SIGKILL after the grace (capture.c), except
 * what descends from a child the executor had before the batch started
 * (the console's finalizer of an earlier detached approval is one).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "root.h"

#define LIVE_EVERY_MS	250
#define REAP_WAIT_MS	2000	/* for killed processes to end */
#define EARLIER_MAX	64	/* children from before a batch, told apart */

/* Has the reviewer asked this run to stop? Owner is the reviewer's uid. */
int
stop_heard(int dfd, uid_t reviewer)
{
	struct stat st;

	return fstatat(dfd, RUN_STOP, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (st.st_uid == reviewer || st.st_uid == 0);
}

void
run_watch_init(struct run_watch *w, int dfd, uid_t reviewer, const char *name)
{
	memset(w, 0, sizeof *w);
	w->dfd = dfd;
	w->reviewer = reviewer;
	snprintf(w->why, sizeof w->why, "stopped by %s", name);
	snprintf(w->by, sizeof w->by, "%s", name);
}

/* batch_execute's halted: once heard, the stop stays (and its time is
 * the first moment it was heard). */
int
run_watch_halted(struct run_watch *w)
{
	if (w->heard_at == 0 && stop_heard(w->dfd, w->reviewer))
		w->heard_at = now_seconds();
	return w->heard_at != 0;
}

/* {"by": REVIEWER, "at": seconds} for the ledger, or NULL when no stop
 * was heard. */
json_t *
run_watch_record(const struct run_watch *w)
{
	if (w->heard_at == 0)
		return NULL;
	return json_pack("{s:s,s:I}", "by", w->by, "at", (json_int_t)w->heard_at);
}

/* The command in hand starts: the live record names it, with no output. */
void
run_watch_command(struct run_watch *w, const char *id)
{
	w->id = id;
	w->written_ms = 0;
	w->written_total = (uint64_t)-1;
}

/* The last LIVE_TAIL bytes the command printed so far, as printed. */
static char *
live_tail(const struct capture *c, size_t *len)
{
	size_t n = c->len < LIVE_TAIL ? c->len : LIVE_TAIL, i;
	char *out = xmalloc(n + 1);

	for (i = 0; i < n; i++)
		out[i] = c->ring[(c->head + CAPTURE_TAIL - n + i) % CAPTURE_TAIL];
	out[n] = '\0';
	*len = n;
	return out;
}

/*
 * exec_capture's tick, between reads: the live record rewritten when
 * there is new output (at most every LIVE_EVERY_MS), and whether the
 * reviewer asked to stop. Best effort: a record that cannot be written
 * is tried again at the next tick.
 */
int
run_watch_tick(void *arg, struct capture *c)
{
	struct run_watch *w = arg;
	int64_t now = monotonic_ms();
	char *raw, *safe;
	size_t len;
	json_t *j;

	if (w->id != NULL && c->total != w->written_total && now - w->written_ms >= LIVE_EVERY_MS) {
		raw = live_tail(c, &len);
		safe = text_json_safe(raw, len);
		j = json_pack("{s:s,s:s,s:I}", "command", w->id, "output", safe,
		    "output_bytes", (json_int_t)c->total);
		if (j != NULL && json_write_atomic(w->dfd, RUN_LIVE, j, (uid_t)-1, (gid_t)-1, 0644,
		    0) == 0) {
			w->written_ms = now;
			w->written_total = c->total;
		}
		json_decref(j);
		free(safe);
		free(raw);
	}
	return run_watch_halted(w);
}

struct proc_row {
	pid_t	 pid, ppid;
	long long start;	/* clock ticks after boot, as /proc says */
	char	 state;
};

/* this process's children when the batch started: not the batch's */
static struct proc_row earlier[EARLIER_MAX];
static size_t nearlier;

/* Every process on the host with its parent and state; NULL when /proc
 * cannot be read. */
static struct proc_row *
proc_table(size_t *n)
{
	struct proc_row *rows = NULL, *grown;
	size_t cap = 0;
	struct dirent *d;
	char *end;
	long long start;
	long pid;
	pid_t ppid;
	char state;
	DIR *dir;

	*n = 0;
	if ((dir = opendir("/proc")) == NULL)
		return NULL;
	while ((d = readdir(dir)) != NULL) {
		pid = strtol(d->d_name, &end, 10);
		if (*end != '\0' || pid <= 0 ||
		    proc_stat((pid_t)pid, &state, &ppid, &start) != 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			if ((grown = realloc(rows, cap * sizeof *rows)) == NULL)
				break;
			rows = grown;
		}
		rows[*n].pid = (pid_t)pid;
		rows[*n].ppid = ppid;
		rows[*n].start = start;
		rows[(*n)++].state = state;
	}
	closedir(dir);
	return rows;
}

/* Orphans of a command come to this process, not to init: they stay in
 * the tree a stop (or a timeout) kills. */
void
descendants_adopt(void)
{
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/*
 * As a batch starts: the children this process has now (the same pid and
 * start time) and theirs are not the batch's, and a stop or a timeout
 * leaves them alone; whatever a command of the batch leaves behind is
 * the batch's. Past EARLIER_MAX of them, the rest count as the batch's.
 * With no child at all (the runner's case) /proc is not read.
 */
void
descendants_note(void)
{
	struct proc_row *rows;
	siginfo_t si;
	pid_t self = getpid();
	size_t n, i;

	nearlier = 0;
	memset(&si, 0, sizeof si);
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
	    (rows = proc_table(&n)) == NULL)
		return;		/* ECHILD: no child */
	for (i = 0; i < n && nearlier < EARLIER_MAX; i++)
		if (rows[i].ppid == self && rows[i].state != 'Z')
			earlier[nearlier++] = rows[i];
	free(rows);
}

/* Was this child of ours there before the batch started? */
static int
is_earlier(const struct proc_row *r)
{
	size_t i;

	for (i = 0; i < nearlier; i++)
		if (earlier[i].pid == r->pid && earlier[i].start == r->start)
			return 1;
	return 0;
}

/* Is pid of the batch's tree: a descendant of this process, not by way
 * of an earlier child? By the table. */
static int
ours(const struct proc_row *rows, size_t n, pid_t pid)
{
	pid_t self = getpid();
	size_t i, hops;

	for (hops = 0; hops < n && pid > 1; hops++) {
		for (i = 0; i < n && rows[i].pid != pid; i++)
			;
		if (i == n)
			return 0;
		if (rows[i].ppid == self)
			return !is_earlier(&rows[i]);
		pid = rows[i].ppid;
	}
	return 0;
}

/*
 * Send sig to every live process of the batch's tree (ours), looking
 * again while new ones appear (a command forking as it is signalled), a
 * bounded number of times. Returns how many were signalled in the last look.
 */
size_t
descendants_signal(int sig)
{
	struct proc_row *rows;
	size_t n, i, hit = 0, round;

	for (round = 0; round < 8; round++) {
		if ((rows = proc_table(&n)) == NULL)
			return 0;
		hit = 0;
		for (i = 0; i < n; i++)
			if (rows[i].state != 'Z' && rows[i].state != 'X' &&
			    ours(rows, n, rows[i].pid) && kill(rows[i].pid, sig) == 0)
				hit++;
		free(rows);
		if (hit == 0)
			break;
		if (sig != SIGKILL)
			break;	/* SIGTERM once: the grace is for them to end */
	}
	return hit;
}

/* The live processes of the batch's tree (ours), at most max, into
 * pids; how many. */
size_t
descendants_alive(pid_t *pids, size_t max)
{
	struct proc_row *rows;
	size_t n, i, k = 0;

	if ((rows = proc_table(&n)) == NULL)
		return 0;
	for (i = 0; i < n && k < max; i++)
		if (rows[i].state != 'Z' && rows[i].state != 'X' && ours(rows, n, rows[i].pid))
			pids[k++] = rows[i].pid;
	free(rows);
	return k;
}

/* After the last SIGKILL: reap the children of this process (adopted
 * orphans of the command among them) as they end, waiting at most
 * REAP_WAIT_MS for the last; they would be left as zombies. */
void
descendants_reap(void)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	struct proc_row *rows;
	pid_t self = getpid();
	size_t n, i, live;
	int64_t until = monotonic_ms() + REAP_WAIT_MS;

	do {
		if ((rows = proc_table(&n)) == NULL)
			return;
		for (i = live = 0; i < n; i++)
			if (rows[i].ppid != self)
				continue;
			else if (rows[i].state == 'Z')
				(void)waitpid(rows[i].pid, NULL, WNOHANG);
			else
				live++;
		free(rows);
	} while (live > 0 && monotonic_ms() < until && nanosleep(&pause, NULL) == 0);
}
