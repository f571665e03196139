/* SPDX-License-Identifier: ISC */
/*
 * Standing grants in the approval flow (docs/grants.md): making them when
 * a reviewer approves with a duration, and running a later request by
 * them. A request runs by grants only when every selected command is a
 * YOU command with a live grant of the same requester and agent; then it
 * is approved by `warrant answer ID --run --you-only --granted`, the
 * YOU-only path of any approval, so it runs exactly as a reviewed batch
 * would (as the reviewer, in its own session, with the reviewer's YOU
 * environment) and its ledger names the grant of each command.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch.h"

/*
 * A grant's duration as the reviewer gives it (answer --grant), strictly: digits (no leading zero) and one unit,
 * s, m or h. Seconds, or 0 malformed, or -1 over GRANT_MAX_SECONDS.
 */
long long
grant_duration_parse(const char *arg)
{
	long long n = 0, unit;
	const char *p = arg;

	if (*p < '1' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((n = n * 10 + (*p - '0')) > GRANT_MAX_SECONDS)
			return -1;
	unit = strcmp(p, "s") == 0 ? 1 : strcmp(p, "m") == 0 ? 60 : strcmp(p, "h") == 0 ?
	    3600 : 0;
	if (unit == 0)
		return 0;
	return n * unit > GRANT_MAX_SECONDS ? -1 : n * unit;
}

/* The gate's listing of the command id: with its badges and shell string. */
static const json_t *
gate_command(const json_t *gate, const char *id, size_t *idx)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(gate, "commands"), i, c)
		if (strcmp(json_str(c, "id"), id) == 0) {
			*idx = i;
			return c;
		}
	return NULL;
}

/* The identity a grant of gate's command cmd (as sealed) has: the
 * badges are those its listing shows the reviewer. */
static void
grant_identity(const json_t *gate, const json_t *cmd, struct grant_record *g)
{
	const json_t *manifest = json_object_get(gate, "manifest"), *listed;
	size_t idx;

	memset(g, 0, sizeof *g);
	g->requester_uid = (uid_t)json_integer_value(json_object_get(gate, "requester_uid"));
	g->agent = json_string_value(json_object_get(gate, "agent"));
	g->argv = json_object_get(cmd, "argv");
	g->path = json_str(cmd, "path");
	g->executable_sha256 = json_string_value(json_object_get(cmd, "executable_sha256"));
	g->cwd = json_str(cmd, "cwd");
	g->env = json_object_get(manifest, "env");
	g->output_to_agent = json_str(manifest, "output_to_agent");
	g->timeout_seconds = json_integer_value(json_object_get(cmd, "timeout_seconds"));
	listed = gate_command(gate, json_str(cmd, "id"), &idx);
	g->badges = json_object_get(listed, "badges");
	g->gate_id = json_str(gate, "request_id");
	g->command_id = json_str(cmd, "id");
}

/*
 * Before anything runs, for `answer --grant`: every selected command may
 * be granted, and the requester's quota has room for them. 0, or -1 with
 * the refusal as the batch's outcome (nothing ran, nothing is stored).
 */
int
grants_may_make(struct batch *b, const json_t *sel)
{
	uid_t uid = (uid_t)json_integer_value(json_object_get(b->gate, "requester_uid"));
	const json_t *c, *listed;
	struct refusal r;
	size_t i, idx;
	long live;

	json_array_foreach(sel, i, c) {
		listed = gate_command(b->gate, json_str(c, "id"), &idx);
		if (listed == NULL || grant_judge(b->gate, idx, &r) != 0) {
			tell(b, listed != NULL ? r.code : "grant_risky", "%s; nothing ran",
			    listed != NULL ? r.message : "a selected command is not in the gate");
			return -1;
		}
	}
	if ((live = grants_live_count(b->st, uid)) < 0) {
		tell(b, "runner_error", "cannot count the requester's grants; nothing ran");
		return -1;
	}
	if ((size_t)live + json_array_size(sel) > GRANT_QUOTA) {
		tell(b, "grant_quota", "uid %u holds %ld live grants; at most %d: revoke some "
		    "(warrant grants --revoke); nothing ran", (unsigned)uid, live, GRANT_QUOTA);
		return -1;
	}
	return 0;
}

/*
 * After the batch settled approved: a grant of every selected command for
 * seconds. The grants' ids, or a refusal object (the quota filled
 * meanwhile) or NULL on errors (said).
 */
json_t *
grants_make(struct batch *b, long long seconds)
{
	size_t n = json_array_size(b->selected), i;
	struct grant_record *g = xcalloc(n, sizeof *g);
	char (*ids)[GRANT_ID_LEN + 1] = xcalloc(n, sizeof *ids);
	int64_t expires = now_seconds() + seconds;
	json_t *out = NULL;
	int rc;

	for (i = 0; i < n; i++) {
		grant_identity(b->gate, json_array_get(b->selected, i), &g[i]);
		g[i].expires = expires;
	}
	rc = grants_add(b->st, g, n, ids);
	if (rc == 0) {
		out = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(out, json_pack("{s:s,s:s,s:I}", "id", ids[i],
			    "command", g[i].command_id, "expires_at", (json_int_t)expires));
	} else if (rc == GRANT_QUOTA_FULL)
		out = json_pack("{s:s,s:s}", "code", "grant_quota", "message",
		    "the requester's grants reached the quota meanwhile: no grant was made");
	else
		warnx("%s: the batch ran, but its grants could not be stored", b->gate_id);
	free(g);
	free(ids);
	return out;
}

/*
 * What one command run by a grant may add to the reviewer's state at
 * most: its output log, and its ledger entry (an output tail of
 * LEDGER_FULL_BYTES, each byte at worst a six-byte JSON escape, and the
 * entry's other members).
 */
#define GRANTED_COMMAND_MAX	(GRANT_LOG_MAX + 6LL * LEDGER_FULL_BYTES + 4096)

/*
 * A run by grants only while what the requester's runs by grants keep
 * in the reviewer's state (grants_stored) leaves room for this one at
 * its largest. 0, or -1 with the outcome (quota_exceeded: the gate
 * waits for review).
 */
static int
granted_room(struct batch *b, size_t n)
{
	uid_t uid = (uid_t)json_integer_value(json_object_get(b->gate, "requester_uid"));
	long long stored = grants_stored(b->st, uid);

	if (stored < 0) {
		tell(b, "runner_error", "cannot measure what runs by grants stored; the gate "
		    "waits for review");
		return -1;
	}
	if (stored + (long long)n * GRANTED_COMMAND_MAX > GRANT_STORED_MAX) {
		tell(b, "quota_exceeded", "runs by grants of uid %u keep %lld KiB of output and "
		    "ledgers from the last %d hours; with this one's %zu command%s they could "
		    "pass %lld MiB, so it does not run by grants: the gate waits for review",
		    (unsigned)uid, stored / 1024, GRANT_STORED_WINDOW / 3600, n, n == 1 ? "" : "s",
		    GRANT_STORED_MAX / (1024 * 1024));
		return -1;
	}
	return 0;
}

/*
 * For `answer --granted`: the live grant of every selected command, kept
 * in b->granted (command id to grant id), each command still one that
 * may be granted (what the requester can change may have changed since
 * the grant), and room in the requester's quota. 0, or -1 with the
 * outcome not_granted or quota_exceeded (the gate stays pending, for
 * review as usual).
 */
int
grants_find(struct batch *b, const json_t *sel)
{
	char id[GRANT_ID_LEN + 1];
	struct grant_record g;
	const json_t *c, *listed;
	struct refusal r;
	size_t i, idx;

	json_decref(b->granted);
	b->granted = json_object();
	json_array_foreach(sel, i, c) {
		grant_identity(b->gate, c, &g);
		if (is_root(c) || grant_match(b->st, &g, id) != 0) {
			tell(b, "not_granted", "command '%s' has no live grant that matches it "
			    "exactly; the gate waits for review", json_str(c, "id"));
			return -1;
		}
		listed = gate_command(b->gate, json_str(c, "id"), &idx);
		if (listed == NULL || grant_judge(b->gate, idx, &r) != 0) {
			tell(b, "not_granted", "%s (%s); the gate waits for review",
			    listed != NULL ? r.message : "a selected command is not in the gate",
			    listed != NULL ? r.code : "grant_risky");
			return -1;
		}
		json_object_set_new(b->granted, json_str(c, "id"), json_string(id));
	}
	return granted_room(b, json_array_size(sel));
}

/* Would every command of gate run by a grant? (No ROOT, no machine.) */
static int
all_granted(struct store *st, const json_t *gate)
{
	char id[GRANT_ID_LEN + 1];
	struct grant_record g;
	const json_t *c;
	size_t i;

	if (*json_str(gate, "machine") != '\0')
		return 0;
	json_array_foreach(json_object_get(json_object_get(gate, "manifest"), "commands"), i, c) {
		grant_identity(gate, c, &g);
		if (is_root(c) || grant_match(st, &g, id) != 0)
			return 0;
	}
	return 1;
}

/*
 * A gate just stored: when its commands all match live grants, start
 * `warrant answer ID --run --you-only --granted --expect SHA` for it, in
 * its own session and detached from this process (which may be the
 * daemon: the answer is reparented, never a child left to reap). The
 * answer checks the grants again under its attempt; anything else leaves
 * the gate pending for review.
 */
void
grants_offer(struct store *st, const char *gate_id)
{
	char home[PATH_MAX + 16], runtime[PATH_MAX + 32], expect[SHA256_HEX_LEN + 1];
	char *argv[] = { "warrant", "answer", (char *)gate_id, "--run", "--you-only",
	    "--granted", "--expect", expect, "--json", NULL };
	char *envp[4] = { home, "PATH=/usr/bin:/bin", NULL, NULL };
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	json_t *gate = store_gate(st, gate_id, 1);
	int status, fd;
	sigset_t none;
	pid_t pid;

	if (gate == NULL || !all_granted(st, gate)) {
		json_decref(gate);
		return;
	}
	snprintf(expect, sizeof expect, "%s", json_str(gate, "manifest_sha256"));
	json_decref(gate);
	if ((size_t)snprintf(home, sizeof home, "WARRANT_HOME=%s", st->dir) >= sizeof home)
		return;
	if (xdg != NULL && *xdg == '/' && (size_t)snprintf(runtime, sizeof runtime,
	    "XDG_RUNTIME_DIR=%s", xdg) < sizeof runtime)
		envp[2] = runtime;
	/* only async-signal-safe calls after fork: the daemon may have threads */
	if ((pid = fork()) < 0) {
		warn("%s: cannot start its granted run; it waits for review", gate_id);
		return;
	}
	if (pid == 0) {
		if (fork() != 0)
			_exit(0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setsid();
		if ((fd = open("/dev/null", O_RDWR)) >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		syscall(SYS_close_range, 3U, ~0U, 0U);
		execve("/proc/self/exe", argv, envp);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}
