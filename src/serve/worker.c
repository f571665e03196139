/* SPDX-License-Identifier: ISC */
/*
 * The intake worker: every request for this host is judged and stored
 * by a fresh warrant process (executables hashed, up to EXE_SIZE_MAX;
 * snapshots read, hashed and copied into the blob store, up to 64 MiB
 * each), so that the daemon's loop goes on answering everyone else
 * meanwhile. Fresh, not a fork that goes on: SQLite's
 * process state (its locks, its open files) does not survive a fork, so
 * the daemon's child re-executes its own program (`warrant
 * serve-intake`), which opens a store connection of its own.
 *
 * The daemon writes the job into a memfd that becomes the worker's
 * standard input: the message as the requester sent it, the peer as the
 * kernel told the daemon (SO_PEERCRED, SO_PEERGROUPS: never anything the
 * requester said about itself), the reviewer's home and the store with
 * its blob bounds. The worker answers one line on descriptor 3, the pipe
 * conn_fork made: {"stored": DESCRIPTOR}, {"refusal": …} or
 * {"failed": true}; ops_child_done replies to the requester. A worker
 * that dies or overstays SERVE_CHILD_MS leaves the requester an
 * `internal` error and nothing half-stored: its blobs are written under
 * .tmp-* names first (gc removes what is left of them) and its gate is
 * one transaction.
 */
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve.h"

#define WORKER_JOB_MAX	(4 * 1024 * 1024)	/* the message and 65536 groups */
#define WORKER_OUT_FD	3
#define WORKER_NICE	10	/* below the daemon's loop, which stays responsive */

/* The job for msg's request from c's peer, as one line of JSON; NULL after saying why. */
static char *
job_encode(struct daemon *d, struct conn *c, json_t *msg)
{
	const struct peer *p = conn_peer(c);
	json_t *groups = json_array(), *job;
	char *line;
	int i;

	for (i = 0; i < p->ngroups; i++)
		json_array_append_new(groups, json_integer(p->groups[i]));
	job = json_pack("{s:O,s:I,s:I,s:o,s:I,s:I,s:s?,s:s,s:I,s:I}", "msg", msg,
	    "uid", (json_int_t)p->uid, "gid", (json_int_t)p->gid, "groups", groups,
	    "pid", (json_int_t)p->pid, "start", (json_int_t)p->start, "home", d->home,
	    "dir", d->st.dir, "blob_quota", (json_int_t)d->st.blob_quota,
	    "blob_cap", (json_int_t)d->st.blob_cap);
	line = job != NULL ? json_dumps(job, JSON_COMPACT) : NULL;
	json_decref(job);
	if (line == NULL)
		warnx("serve: cannot encode a worker's job");
	return line;
}

/*
 * In the daemon: hand msg's request for c's peer to a worker, which stores it while the loop goes on; ops_child_done replies
 * when it ends. Refused `busy` when too many workers run (conn_fork).
 */
void
worker_start(struct daemon *d, struct conn *c, json_t *msg)
{
	static char *const argv[] = { "warrant", "serve-intake", NULL };
	char *line = job_encode(d, c, msg);
	int in = -1, fd;
	pid_t pid;

	if (line == NULL || (in = memfd_create("warrant-job", MFD_CLOEXEC)) < 0 ||
	    write_all(in, line, strlen(line)) != 0 || lseek(in, 0, SEEK_SET) != 0) {
		if (line != NULL)
			warn("serve: cannot write a worker's job");
		conn_error(c, "internal", NULL, "the daemon cannot start a worker; nothing "
		    "was stored");
	} else if ((pid = conn_fork(c, msg, in, &fd)) > 0)
		warnx("serve: a worker for uid %u starts (pid %d)", (unsigned)conn_peer(c)->uid,
		    (int)pid);
	else if (pid == 0) {
		/* the child: nothing of this process is used, its program runs anew;
		 * the copy gives way to the loop and the requesters it answers */
		(void)fd;
		if (setpriority(PRIO_PROCESS, 0, WORKER_NICE) != 0)
			warn("serve: the worker keeps the daemon's priority");
		execv("/proc/self/exe", argv);
		warn("serve: cannot start the worker /proc/self/exe");
		_exit(127);
	}
	if (in >= 0)
		close(in);
	free(line);
}

/* The peer of a job, as the daemon read it. 0, or -1 when the job is not one. */
static int
job_peer(json_t *job, struct peer *p)
{
	json_t *groups = json_object_get(job, "groups"), *g;
	json_int_t uid, gid, pid, start;
	size_t i;

	memset(p, 0, sizeof *p);
	if (json_unpack(job, "{s:I,s:I,s:I,s:I}", "uid", &uid, "gid", &gid, "pid", &pid,
	    "start", &start) != 0 || uid < 0 || uid > 0x7fffffff || gid < 0 ||
	    gid > 0x7fffffff || pid < 0 || pid > 0x7fffffff || !json_is_array(groups) ||
	    json_array_size(groups) > 65536)
		return -1;
	p->uid = (uid_t)uid;
	p->gid = (gid_t)gid;
	p->pid = (pid_t)pid;
	p->start = start;
	p->groups = xcalloc(json_array_size(groups) + 1, sizeof *p->groups);
	json_array_foreach(groups, i, g) {
		if (!json_is_integer(g) || json_integer_value(g) < 0 ||
		    json_integer_value(g) > 0x7fffffff) {
			peer_free(p);
			return -1;
		}
		p->groups[p->ngroups++] = (gid_t)json_integer_value(g);
	}
	return 0;
}

/* Judge and store the job's request; the line to answer, NULL after saying why. */
static char *
job_run(json_t *job)
{
	const char *dir = json_string_value(json_object_get(job, "dir"));
	json_t *msg = json_object_get(job, "msg"), *desc = NULL, *out;
	char db[PATH_MAX + 16], *line;
	struct store st;
	struct refusal r;
	struct stat sb;
	struct peer p;
	int rc = EXIT_INTERNAL, full = 0;

	if (dir == NULL || !json_is_object(msg) || job_peer(job, &p) != 0) {
		warnx("serve-intake: the job is not one the daemon writes");
		return NULL;
	}
	/* the daemon's store, which is there: a worker makes none */
	if ((size_t)snprintf(db, sizeof db, "%s/warrant.db", dir) >= sizeof db ||
	    lstat(db, &sb) != 0 || !S_ISREG(sb.st_mode))
		warnx("serve-intake: no store at %s", dir);
	else if (store_open_at(&st, dir) == 0) {
		st.blob_quota = json_integer_value(json_object_get(job, "blob_quota"));
		st.blob_cap = json_integer_value(json_object_get(job, "blob_cap"));
		rc = request_submit(&st, &p, json_string_value(json_object_get(job, "home")),
		    msg, NULL, &desc, &r);
		full = st.full;
		store_close(&st);
	}
	peer_free(&p);
	out = rc == EXIT_OK && desc != NULL ? json_pack("{s:o}", "stored", desc) :
	    rc == EXIT_REFUSED ? json_pack("{s:o}", "refusal", refusal_json(&r)) :
	    json_pack("{s:b,s:b}", "failed", 1, "full", full);
	if (rc != EXIT_OK)
		json_decref(desc);
	line = out != NULL ? json_dumps(out, JSON_COMPACT) : NULL;
	json_decref(out);
	return line;
}

/* `warrant serve-intake`: the worker's process (cmd-serve-intake.c). */
int
worker_main(void)
{
	struct stat sb;
	json_t *job;
	char *in, *line;
	size_t len;
	int rc;

	if (fstat(WORKER_OUT_FD, &sb) != 0 || !S_ISFIFO(sb.st_mode)) {
		warnx("serve-intake is started by warrant serve, with its answer's pipe "
		    "on descriptor 3");
		return EXIT_REFUSED;
	}
	if ((rc = read_bounded(STDIN_FILENO, &in, &len, WORKER_JOB_MAX)) != 0) {
		warnx("serve-intake: cannot read the job%s", rc > 0 ? " (too large)" : "");
		return EXIT_INTERNAL;
	}
	job = json_loadb(in, len, 0, NULL);
	free(in);
	if (!json_is_object(job))
		warnx("serve-intake: the job is not a JSON object");
	line = json_is_object(job) ? job_run(job) : NULL;
	json_decref(job);
	if (line == NULL)
		return EXIT_INTERNAL;
	rc = write_all(WORKER_OUT_FD, line, strlen(line));
	free(line);
	return rc == 0 ? EXIT_OK : EXIT_INTERNAL;
}
