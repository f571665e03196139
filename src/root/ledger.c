/* SPDX-License-Identifier: ISC */
/*
 * The ledger (docs/design.md §7): what ran, built by the runner for ROOT
 * commands and by `warrant answer` for YOU commands; the unprivileged side
 * checks it before a gate settles (src/approve/ledgercheck.c). The
 * runner's ledger holds output and paths as they were (root does not
 * redact); whoever reads it redacts it (redact_json) before it is stored,
 * shown or handed on.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "root.h"

/* The overall bound of a batch, in seconds: the sum of its commands'
 * timeouts plus a grace (30 s). The runner stops at it, the finalizer
 * stops polling at it. */
long
batch_bound(const json_t *cmds)
{
	json_t *c, *t;
	long sum = BATCH_GRACE_SECONDS;
	size_t i;

	json_array_foreach(cmds, i, c) {
		t = json_object_get(c, "timeout_seconds");
		sum += json_is_integer(t) ? (long)json_integer_value(t) : DEFAULT_TIMEOUT;
	}
	return sum;
}

/* How much output an entry keeps under each output_to_agent policy. */
size_t
ledger_tail_bytes(const char *policy)
{
	if (strcmp(policy, "none") == 0)
		return 0;
	if (strcmp(policy, "full") == 0)
		return LEDGER_FULL_BYTES;
	return LEDGER_TAIL_BYTES;
}

/* An entry for a command that ran (or failed to start). */
json_t *
ledger_entry_ran(const char *id, const char *as, const struct exec_result *res,
    struct capture *c, const char *policy)
{
	char *tail = capture_tail(c, ledger_tail_bytes(policy));
	const char *status = res->exec_errno == 0 && !res->timed_out && !res->stopped &&
	    res->exit_code == 0 ? "ran" : "failed";
	char err[128] = "";
	json_t *e;

	if (res->exec_errno != 0)
		snprintf(err, sizeof err, "could not start: %s", strerror(res->exec_errno));
	else if (res->deadline)
		snprintf(err, sizeof err, "killed at the runner's overall deadline "
		    "(the sum of the timeouts plus %d s)", BATCH_GRACE_SECONDS);
	else if (res->timed_out)
		snprintf(err, sizeof err, "timed out; the process group was killed");
	else if (res->stopped)
		snprintf(err, sizeof err, "stopped; its processes were killed");
	e = json_pack("{s:s,s:s,s:s,s:o,s:o,s:I,s:s,s:I,s:s?}",
	    "id", id, "as", as, "status", status,
	    "exit_code", res->exit_code >= 0 && res->exec_errno == 0 ?
	    json_integer(res->exit_code) : json_null(),
	    "signal", res->signal ? json_integer(res->signal) : json_null(),
	    "duration_ms", (json_int_t)res->duration_ms,
	    "output_tail", tail, "output_bytes", (json_int_t)c->total,
	    "error", *err ? err : NULL);
	free(tail);
	return e;
}

/* An entry for a command that did not run: skipped or refused. */
json_t *
ledger_entry_not_run(const char *id, const char *as, const char *status, const char *why)
{
	return json_pack("{s:s,s:s,s:s,s:n,s:n,s:i,s:s,s:i,s:s?}",
	    "id", id, "as", as, "status", status, "exit_code", "signal",
	    "duration_ms", 0, "output_tail", "", "output_bytes", 0, "error", why);
}

json_t *
ledger_new(const char *request_id, const char *sha, const char *outcome,
    json_t *entries, const char *diagnostic)
{
	return json_pack("{s:i,s:s,s:s,s:s,s:o,s:s?}", "schema_version", 1,
	    "request_id", request_id, "manifest_sha256", sha, "outcome", outcome,
	    "entries", entries, "diagnostic", diagnostic);
}

/*
 * Write j as name in the directory dfd, atomically (temporary file,
 * rename), never following a symlink, owned by uid:gid when uid is not -1;
 * synced to disk first when durable. Used by the root runner inside the
 * reviewer's run directory, and for the reviewer's own progress record.
 */
int
json_write_atomic(int dfd, const char *name, const json_t *j, uid_t uid, gid_t gid,
    mode_t mode, int durable)
{
	char tmp[128], *s;
	int fd, rc = -1;

	if ((size_t)snprintf(tmp, sizeof tmp, ".%s.tmp", name) >= sizeof tmp)
		return -1;
	if ((s = json_dumps(j, JSON_COMPACT)) == NULL)
		return -1;
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		goto out;
	if (write_all(fd, s, strlen(s)) != 0 || write_all(fd, "\n", 1) != 0 ||
	    (uid != (uid_t)-1 && fchown(fd, uid, gid) != 0) || fchmod(fd, mode) != 0 ||
	    (durable && fsync(fd) != 0)) {
		close(fd);
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	if (close(fd) != 0 || renameat(dfd, tmp, dfd, name) != 0) {
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	/* the rename is durable only once the directory is */
	if (durable && fsync(dfd) != 0)
		goto out;
	rc = 0;
out:
	free(s);
	return rc;
}
