/* SPDX-License-Identifier: ISC */
/*
 * The approval flow of `warrant answer --run` and the console's Enter:
 * prepare (the sealed gate, the selection, the terminal, the lease, a run
 * directory and an attempt), authenticate and execute (one executor: the
 * runner for anything with ROOT commands, this process for YOU-only
 * batches and --via sudo), finish (settle, leave pending, or hand a
 * detached run to the finalizer). One cleanup path.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"

#define VIA_SUDO_NOTE	"ROOT commands ran with --via sudo: each executable was re-hashed " \
	"just before sudo ran it by path, a weaker binding than the runner's"

/*
 * From the start of answer and review: not dumpable, so a process of the
 * same uid cannot attach to it or read its memory later. Returns 0, or -1
 * when the process is being traced right now (refuse to approve).
 */
int
approve_guard(void)
{
	char line[256];
	FILE *f;
	long tracer = -1;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		return -1;
	if ((f = fopen("/proc/self/status", "re")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
			break;
	fclose(f);
	return tracer == 0 ? 0 : -1;
}

static json_t *
failure(struct batch *b)
{
	return json_pack("{s:s,s:s,s:s,s:s}", "request_id", b->gate_id, "status",
	    strcmp(b->outcome, "review_denied") == 0 ? "denied" : "pending",
	    "outcome", *b->outcome ? b->outcome : "runner_error", "message", b->message);
}

/* The approved commands (all when none are named), in reviewed order. */
static json_t *
select_commands(struct batch *b, const char *const *ids, size_t nids)
{
	const char *bad = NULL;
	json_t *sel = commands_select(b->manifest, ids, nids, &bad);

	if (sel == NULL)
		tell(b, NULL, "no command '%s' in this request", bad);
	return sel;
}

static int
runner_trusted(struct batch *b)
{
	char why[PATH_MAX + 128];
	int rc = path_replaceable(&requester_anyone, WARRANT_RUNNER_PATH, why, sizeof why);

	if (rc == 0)
		return 1;
	tell(b, "runner_error", "refusing to hand %s to sudo: %s", WARRANT_RUNNER_PATH,
	    rc > 0 ? why : "it is missing");
	return 0;
}

/* A fresh 0700 run directory under the state directory's runs/. */
static int
make_run_dir(struct batch *b)
{
	char runs[PATH_MAX];

	if ((size_t)snprintf(runs, sizeof runs, "%s/runs", b->st->dir) >= sizeof runs ||
	    (size_t)snprintf(b->run_dir, sizeof b->run_dir, "%s/%s.XXXXXX", runs, b->gate_id) >=
	    sizeof b->run_dir) {
		tell(b, "runner_error", "the state directory's path is too long");
		return -1;
	}
	if (mkdir(runs, 0700) != 0 && errno != EEXIST) {
		tell_unwritable(b, runs, errno);
		return -1;
	}
	if (mkdtemp(b->run_dir) == NULL) {
		tell_unwritable(b, b->run_dir, errno);
		return -1;
	}
	if ((b->run_fd = open(b->run_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		tell(b, "runner_error", "%s: %s", b->run_dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Start the finalizer: a fresh `warrant` process (never a fork that
 * keeps our SQLite connection: its commits could be lost under our close)
 * that waits for the runner and settles the gate. Returns its pid or -1.
 */
static pid_t
start_finalizer(struct batch *b)
{
	char attempt[32], home[PATH_MAX + 16];
	char *const argv[] = { "warrant", "finalize", attempt, NULL };
	char *const envp[] = { home, "PATH=/usr/bin:/bin", NULL };
	const struct spawn s = { .path = "/proc/self/exe", .argv = argv, .envp = envp,
	    .fd = { -1, -1, -1 }, .group = EXEC_SESSION };

	snprintf(attempt, sizeof attempt, "%lld", (long long)b->attempt);
	if ((size_t)snprintf(home, sizeof home, "WARRANT_HOME=%s", b->st->dir) >= sizeof home)
		return -1;
	return spawn(&s);
}

/* Settle with what ran; the answer's JSON result. */
static json_t *
finish_settled(struct batch *b, int broken, int via_sudo, int *code)
{
	json_t *ledger = NULL, *result;
	int rc;

	rc = batch_settle(b, broken ? "runner_error" : "completed", broken ? b->message :
	    via_sudo ? VIA_SUDO_NOTE : NULL, &ledger);
	if (rc != 0) {
		json_decref(ledger);
		tell(b, "runner_error", rc > 0 ? "the gate was settled by another process" :
		    "cannot settle the gate");
		*code = EXIT_INTERNAL;
		return failure(b);
	}
	*code = broken ? EXIT_INTERNAL : EXIT_OK;
	result = json_pack("{s:s,s:s,s:s,s:o}", "request_id", b->gate_id, "status", "approved",
	    "outcome", broken ? "runner_error" : ledger_all_ran(ledger) ? "completed" :
	    "command_failed", "ledger", ledger);
	return result;
}

/* Everything before anything can run; 0, or -1 with *code and the batch's
 * outcome and message set. */
static int
prepare(struct batch *b, const char *const *ids, size_t nids, const struct approve_opts *o,
    int *root, int *code)
{
	json_t *sel, *c;
	size_t i;

	*code = EXIT_REFUSED;
	if (strcmp(json_str(b->gate, "state"), "pending") != 0) {
		tell(b, "not_pending", "the gate is %s, not pending", json_str(b->gate, "state"));
		return -1;
	}
	if (o->expect != NULL && (strlen(o->expect) < 12 || strlen(o->expect) > SHA256_HEX_LEN ||
	    strncmp(json_str(b->gate, "manifest_sha256"), o->expect, strlen(o->expect)) != 0)) {
		tell(b, "gate_changed", "the gate's sealed manifest is not the one you reviewed "
		    "(%.16s…); nothing ran", json_str(b->gate, "manifest_sha256"));
		return -1;
	}
	if ((sel = select_commands(b, ids, nids)) == NULL) {
		*b->outcome = '\0';
		return -1;
	}
	*root = 0;
	json_array_foreach(sel, i, c)
		*root |= is_root(c);
	/* an enrolled machine's batch runs in its runner, under its sudo:
	 * always on a terminal, whatever it runs as */
	if (*json_str(b->gate, "machine") != '\0') {
		if (o->you_only || o->via_sudo) {
			json_decref(sel);
			tell(b, o->you_only ? "root_needs_terminal" : "runner_error",
			    "commands for machine %s run under its sudo: approve them with "
			    "`warrant answer %s --run` on a terminal%s; nothing ran",
			    json_str(b->gate, "machine"), b->gate_id,
			    o->via_sudo ? ", without --via sudo" : "");
			return -1;
		}
		*root = 1;
	}
	/* a passkey signs ROOT commands of this host's runner only */
	if (o->passkey && passkey_ready(b, *root, o->passkey_relay) != 0) {
		json_decref(sel);
		return -1;
	}
	/* the web page's approvals: nothing that needs sudo, ever */
	if (o->you_only && *root) {
		json_decref(sel);
		tell(b, "root_needs_terminal", "a selected command runs as root: approve it with "
		    "`warrant answer %s --run --expect %s` on a terminal; nothing ran",
		    b->gate_id, json_str(b->gate, "manifest_sha256"));
		return -1;
	}
	/* grants: only of what may be granted; a run by them, only by them */
	if ((o->grant_seconds > 0 && grants_may_make(b, sel) != 0) ||
	    (o->granted && grants_find(b, sel) != 0)) {
		json_decref(sel);
		return -1;
	}
	if (o->via_sudo && *root && json_object_size(json_object_get(b->manifest, "env")) > 0) {
		json_decref(sel);
		tell(b, "runner_error", "--via sudo cannot pass the reviewed environment; "
		    "answer without it");
		*code = EXIT_INTERNAL;
		return -1;
	}
	json_array_foreach(sel, i, c)
		if (o->via_sudo && is_root(c) && argv_has_files(json_object_get(c, "argv"))) {
			json_decref(sel);
			tell(b, "runner_error", "--via sudo cannot stage the reviewed files of "
			    "ROOT commands root-owned; answer without it");
			*code = EXIT_INTERNAL;
			return -1;
		}
	if (batch_seal_run(b, sel) != 0) {
		json_decref(sel);
		*code = EXIT_INTERNAL;
		return -1;
	}
	json_decref(sel);
	/* the two-person rule: the other reviews, before any prompt */
	if (approve_reviews(b, *root, o->via_sudo) != 0)
		return -1;
	if (approve_guard() != 0) {
		tell(b, "traced", "warrant is being traced (TracerPid is not 0): "
		    "refusing to approve; nothing ran");
		return -1;
	}
	/* a passkey approval asks no password: sudo -n, no terminal needed */
	if ((b->tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 && *root &&
	    !o->passkey) {
		tell(b, "missing_tty",
		    "approving ROOT commands needs a terminal for sudo's prompt");
		return -1;
	}
	if (*root && !o->via_sudo && *json_str(b->gate, "machine") == '\0' &&
	    !runner_trusted(b)) {
		*code = EXIT_INTERNAL;
		return -1;
	}
	return 0;
}

/*
 * The attempt recorded, and recorded as one that may run, before
 * anything can: NULL, or the answer when it cannot be (the gate settled
 * meanwhile, another attempt running, the store unwritable).
 */
static json_t *
attempt_open(struct batch *b, struct store *st, int root, int *code)
{
	const char *gate_id = b->gate_id;
	json_t *g, *result;

	b->attempt = attempt_begin(st, gate_id, b->selected, b->sha, b->run_dir);
	if (b->attempt == ATTEMPT_NOT_PENDING) {
		g = store_gate(st, gate_id, 0);
		tell(b, "not_pending", "the gate was settled meanwhile; nothing ran");
		*code = EXIT_REFUSED;
		result = json_pack("{s:s,s:s,s:s}", "request_id", gate_id, "status",
		    g != NULL ? json_str(g, "state") : "unknown", "message", b->message);
		json_decref(g);
		return result;
	}
	if (b->attempt < 0) {
		if (b->attempt == ATTEMPT_BUSY) {
			tell(b, "execution_in_progress", "this request is already being executed");
			*code = EXIT_REFUSED;
		} else if (st->full)
			tell_unwritable(b, st->path, ENOSPC);
		else
			tell(b, "runner_error", "cannot record the attempt");
		return failure(b);
	}
	/* the record that something may run comes before it can */
	if (attempt_set(st, b->attempt, root ? ATTEMPT_AUTHENTICATING : ATTEMPT_RUNNING,
	    getpid()) != 0) {
		if (st->full)
			tell_unwritable(b, st->path, ENOSPC);
		else
			tell(b, "runner_error", "cannot record the attempt; nothing ran");
		attempt_abandon(st, b->attempt, gate_id, "runner_error");
		return failure(b);
	}
	return NULL;
}

/* The batch run by its executor, the stop signals caught meanwhile, and
 * the answer: nothing ran, started detached, or settled. */
static json_t *
execute(struct batch *b, const struct approve_opts *o, executor *run, int root, int *code)
{
	struct sigaction saved[STOP_SIGNALS];
	const char *gate_id = b->gate_id;
	enum exec_end end;
	json_t *result;
	pid_t fin;

	stop_signals_catch(saved);
	sudo_forget();
	end = run(b, o);
	sudo_forget();
	stop_signals_restore(saved);
	switch (end) {
	case EXEC_NOTHING_RAN:
		*code = strcmp(b->outcome, "runner_error") == 0 ? EXIT_INTERNAL : EXIT_REFUSED;
		if (attempt_abandon(b->st, b->attempt, gate_id, b->outcome) < 0)
			warnx("%s: the attempt stays open; the next reader settles it", gate_id);
		return failure(b);
	case EXEC_STARTED:
		/* the runner holds its lock: the gate is running until the
		 * finalizer (or any later reader) settles it from its records */
		fin = start_finalizer(b);
		if (fin > 0 && attempt_set(b->st, b->attempt, ATTEMPT_RUNNING, fin) < 0)
			warnx("%s: cannot record the finalizer; the next reader settles it", gate_id);
		*code = EXIT_OK;
		return json_pack("{s:s,s:s,s:s,s:i}", "request_id", gate_id, "status", "started",
		    "outcome", "started", "finalizer_pid", (int)fin);
	default:
		result = finish_settled(b, end == EXEC_BROKEN, o->via_sudo && root, code);
		if (o->grant_seconds > 0 && strcmp(json_str(result, "status"), "approved") == 0)
			json_object_set_new(result, "grants", grants_make(b, o->grant_seconds));
		return result;
	}
}

/*
 * Approve and run gate_id (the selected command ids, or all). *code gets
 * the exit code; the returned object is the answer's JSON result.
 */
json_t *
approve_run(struct store *st, const char *gate_id, const char *const *ids, size_t nids,
    const struct approve_opts *opts, int *code)
{
	static const struct approve_opts defaults = { .detach = -1 };
	struct approve_opts o = opts != NULL ? *opts : defaults;
	char holder[256], path[PATH_MAX];
	json_t *result = NULL;
	executor *run;
	int root = 0, lease = -1;
	struct batch b;

	*code = EXIT_INTERNAL;
	if (batch_load(&b, st, gate_id) != 0 || prepare(&b, ids, nids, &o, &root, code) != 0) {
		result = *b.outcome == '\0' && strcmp(json_str(b.gate, "state"), "pending") == 0 ?
		    json_pack("{s:s,s:s,s:s}", "request_id", gate_id, "status", "pending",
		    "message", b.message) : strcmp(b.outcome, "not_pending") == 0 ?
		    json_pack("{s:s,s:O,s:s}", "request_id", gate_id, "status",
		    json_object_get(b.gate, "state"), "message", b.message) : failure(&b);
		goto out;
	}
	run = *json_str(b.gate, "machine") != '\0' ? exec_remote :
	    root && !o.via_sudo ? exec_runner : exec_local;
	o.detach = run == exec_runner && o.detach != 0;
	/* a person is told at once that another approval holds the lease; a
	 * run by grants has nobody to tell and waits for it, while the gate
	 * can still be approved, then looks its grants up again: one may have
	 * been revoked meanwhile */
	if ((lease = lease_take(st->dir, gate_id, o.granted ? (time_t)json_integer_value(
	    json_object_get(b.gate, "expires_at")) : 0, holder, sizeof holder, path)) < 0) {
		if (lease == LEASE_HELD) {
			tell(&b, "lock_contention", "another approval holds the lease: %s", holder);
			*code = EXIT_REFUSED;
		} else {
			tell_unwritable(&b, path, errno);
			*code = EXIT_INTERNAL;
		}
		result = failure(&b);
		goto out;
	}
	if (o.granted && grants_find(&b, b.selected) != 0) {
		result = failure(&b);
		goto out;
	}
	if (make_run_dir(&b) != 0) {
		*code = EXIT_INTERNAL;
		result = failure(&b);
		goto out;
	}
	/* the reviewed files' content, checked against the seal before any
	 * prompt, where the executor will read it */
	if (batch_link_files(&b) != 0) {
		*code = EXIT_INTERNAL;
		result = failure(&b);
		goto out;
	}
	/* under the lease: an attempt whose process died is settled first,
	 * so that only a live one makes this request busy */
	if (approve_recover(st) != 0) {
		tell(&b, "runner_error", "cannot recover earlier attempts");
		result = failure(&b);
		goto out;
	}
	if ((result = attempt_open(&b, st, root, code)) == NULL)
		result = execute(&b, &o, run, root, code);
out:
	lease_release(lease);
	batch_free(&b);
	return result;
}
