/* SPDX-License-Identifier: ISC */
/*
 * The batch: the state of one approval, from the sealed manifest in the
 * store to the ledger that settles the gate. The run manifest (what the
 * runner gets) is the approved subset of the sealed manifest plus the
 * environment of YOU commands; its hash binds every record of the run.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"

/* What the reviewer is told: the batch's outcome (NULL: as it is) and
 * its message. */
void
tell(struct batch *b, const char *outcome, const char *fmt, ...)
{
	va_list ap;

	if (outcome != NULL)
		snprintf(b->outcome, sizeof b->outcome, "%s", outcome);
	va_start(ap, fmt);
	vsnprintf(b->message, sizeof b->message, fmt, ap);
	va_end(ap);
}

/*
 * A file of the state directory could not be written (errno e): the
 * outcome state_full when the disk or the quota is full, else
 * runner_error; either way the message names the file.
 */
void
tell_unwritable(struct batch *b, const char *path, int e)
{
	if (e == ENOSPC || e == EDQUOT)
		tell(b, "state_full", "the state directory %s is full: %s cannot be written "
		    "(%s); nothing ran: free space there and answer again", b->st->dir, path,
		    strerror(e));
	else
		tell(b, "runner_error", "%s cannot be written: %s; nothing ran", path,
		    strerror(e));
}

int
is_root(const json_t *cmd)
{
	return strcmp(json_str(cmd, "as"), "root") == 0;
}

/* The gate and its sealed manifest, checked: well formed, and its bytes
 * still hash to the seal the reviewer was shown. */
int
batch_load(struct batch *b, struct store *st, const char *gate_id)
{
	char sha[SHA256_HEX_LEN + 1], why[256], *bytes;

	memset(b, 0, sizeof *b);
	b->st = st;
	b->gate_id = gate_id;
	b->tty = b->run_fd = -1;
	b->attempt = -1;
	b->entries = json_array();
	if ((b->gate = store_gate(st, gate_id, 1)) == NULL) {
		tell(b, "runner_error", "cannot read the gate");
		return -1;
	}
	b->manifest = json_object_get(b->gate, "manifest");
	if (manifest_check(b->manifest, why, sizeof why) != 0) {
		tell(b, "runner_error", "the stored manifest is refused: %s", why);
		return -1;
	}
	if ((bytes = manifest_seal(b->manifest, sha)) == NULL ||
	    !digest_equal(sha, json_str(b->gate, "manifest_sha256"))) {
		free(bytes);
		tell(b, "runner_error", "the stored manifest no longer matches its seal");
		return -1;
	}
	free(bytes);
	return 0;
}

void
batch_free(struct batch *b)
{
	if (b->run_fd >= 0)
		close(b->run_fd);
	if (b->tty >= 0)
		close(b->tty);
	json_decref(b->run);
	json_decref(b->entries);
	json_decref(b->gate);
	json_decref(b->granted);
	json_decref(b->stopped);
	b->run = b->entries = b->gate = b->granted = b->stopped = NULL;
	b->run_fd = b->tty = -1;
}

/* Who asked, for the runner to judge writability again just before the
 * batch: the requester's uid and its groups as the database gives them
 * now. */
json_t *
requester_json(const json_t *gate)
{
	uid_t uid = (uid_t)json_integer_value(json_object_get(gate, "requester_uid"));
	struct passwd pw, *p;
	struct requester rq;
	char buf[4096];
	json_t *groups;
	int i;

	if (getpwuid_r(uid, &pw, buf, sizeof buf, &p) != 0)
		p = NULL;
	if (uid == 0 || requester_lookup(&rq, uid, p != NULL ? p->pw_gid : (gid_t)uid, NULL, 0) != 0)
		return json_null();
	groups = json_array();
	for (i = 0; i < rq.ngroups; i++)
		json_array_append_new(groups, json_integer(rq.groups[i]));
	requester_free(&rq);
	return json_pack("{s:I,s:o}", "uid", (json_int_t)uid, "groups", groups);
}

/* The files the selected commands name, as sealed: a file only an
 * unselected command uses is neither sealed into the subset nor staged. */
static json_t *
selected_files(const json_t *all, const json_t *selected)
{
	json_t *files = json_object(), *c, *a;
	const char *name;
	size_t i, j;

	json_array_foreach(selected, i, c)
		json_array_foreach(json_object_get(c, "argv"), j, a)
			if ((name = file_ref(a)) != NULL)
				json_object_set(files, name, json_object_get(all, name));
	return files;
}

/* The commands of manifest named by ids (all when none are named), in
 * reviewed order; NULL with *bad the id that names none. */
json_t *
commands_select(const json_t *manifest, const char *const *ids, size_t nids, const char **bad)
{
	json_t *cmds = json_object_get(manifest, "commands"), *c, *sel;
	size_t i, k;

	for (k = 0; k < nids; k++) {
		json_array_foreach(cmds, i, c)
			if (strcmp(json_str(c, "id"), ids[k]) == 0)
				break;
		if (i == json_array_size(cmds)) {
			*bad = ids[k];
			return NULL;
		}
	}
	sel = json_array();
	json_array_foreach(cmds, i, c) {
		for (k = 0; k < nids && strcmp(json_str(c, "id"), ids[k]) != 0; k++)
			;
		if (nids == 0 || k < nids)
			json_array_append(sel, c);
	}
	return sel;
}

/* The sealed manifest with only the selected commands and the files they
 * name: what the seal of an approved subset is taken over. */
json_t *
run_subset(const json_t *manifest, json_t *selected)
{
	json_t *run = json_deep_copy(manifest), *files = json_object_get(manifest, "files");

	json_object_set(run, "commands", selected);
	if (files != NULL)
		json_object_set_new(run, "files", selected_files(files, selected));
	return run;
}

/* The run manifest: the sealed one with only the selected commands (and
 * the files they name), and the YOU environment (null when no YOU command
 * runs); sealed. */
int
batch_seal_run(struct batch *b, json_t *selected)
{
	json_t *c;
	char *bytes;
	size_t i;
	int you = 0;

	json_array_foreach(selected, i, c)
		if (!is_root(c))
			you = 1;
	b->run = run_subset(b->manifest, selected);
	b->selected = json_object_get(b->run, "commands");
	/* the ledger binds to the approved subset as sealed; the runner gets
	 * the hash of the file it reads, the subset with user_env */
	if ((bytes = manifest_seal(b->run, b->sha)) == NULL) {
		tell(b, "runner_error", "cannot seal the approved commands");
		return -1;
	}
	free(bytes);
	json_object_set_new(b->run, "user_env", you ? user_env_json() : json_null());
	json_object_set_new(b->run, "requester", requester_json(b->gate));
	if (json_is_null(json_object_get(b->run, "user_env")) && you) {
		tell(b, "runner_error", "cannot find your passwd entry");
		return -1;
	}
	if ((bytes = manifest_seal(b->run, b->run_sha)) == NULL) {
		tell(b, "runner_error", "cannot seal the run manifest");
		return -1;
	}
	free(bytes);
	return 0;
}

/*
 * The content of every file of the run manifest, checked against its
 * seal and linked into the run directory as blob-HEX, where the executor
 * (the runner, or this process for YOU commands) reads it, re-hashing it
 * as it stages it. 0, or -1 with the reason said (nothing ran).
 */
int
batch_link_files(struct batch *b)
{
	const char *name;
	char why[PATH_MAX + 128];
	json_t *f;

	json_object_foreach(json_object_get(b->run, "files"), name, f)
		if (blob_link(b->st->dir, json_str(f, "sha256"),
		    (uint64_t)json_integer_value(json_object_get(f, "size")), b->run_fd,
		    why, sizeof why) != 0) {
			tell(b, "runner_error", "file '%s': %s; nothing ran", name, why);
			return -1;
		}
	return 0;
}

/* The YOU environment as a JSON array of "NAME=VALUE", or JSON null. */
json_t *
user_env_json(void)
{
	struct passwd pw, *p;
	char buf[4096], **env;
	json_t *a;
	size_t i;

	if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &p) != 0 || p == NULL ||
	    (env = userenv_build(p)) == NULL)
		return json_null();
	a = json_array();
	for (i = 0; env[i] != NULL; i++)
		json_array_append_new(a, json_string(env[i]));
	userenv_free(env);
	return a;
}

/* Every selected command from the first without an entry on: not run
 * (status "skipped", known not to have started) or "interrupted" (it may
 * have run), with why. The one way the rest of a batch is marked. */
void
batch_mark_rest(struct batch *b, const char *status, const char *why)
{
	json_t *c;
	size_t i;

	for (i = json_array_size(b->entries); i < json_array_size(b->selected); i++) {
		c = json_array_get(b->selected, i);
		json_array_append_new(b->entries, ledger_entry_not_run(json_str(c, "id"),
		    json_str(c, "as"), status, why));
	}
}

/* The entries so far as progress.json, durable: before a command of this
 * process starts, this must have succeeded. */
int
batch_record(struct batch *b)
{
	json_t *l = ledger_new(b->gate_id, b->sha, "completed", json_incref(b->entries), NULL);
	int rc = json_write_atomic(b->run_fd, RUN_PROGRESS, l, (uid_t)-1, (gid_t)-1, 0600, 1);

	json_decref(l);
	if (rc != 0)
		tell(b, "runner_error", "cannot record progress in %s: %s", b->run_dir,
		    strerror(errno));
	return rc;
}

/* A record in a run directory: a bounded regular file owned by root (the
 * runner) or by us, never through a symlink. */
json_t *
read_record(int dfd, const char *name)
{
	struct stat st;
	json_t *j = NULL;
	char *buf;
	size_t len;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= RECORD_MAX &&
	    (st.st_uid == 0 || st.st_uid == getuid()) &&
	    read_bounded(fd, &buf, &len, RECORD_MAX) == 0) {
		j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
		free(buf);
	}
	close(fd);
	return j;
}

/* Does a runner still hold the lock of this run directory? A lock taken
 * by the runner's process survives pid reuse and cannot be faked as
 * released: only its holder's end (or death) releases it. */
int
runner_live(int dfd)
{
	int fd = openat(dfd, RUN_LOCK, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int live;

	if (fd < 0)
		return 0;
	live = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);
	return live;
}

/* Wait while a runner holds the lock of this run directory, until the
 * deadline (seconds since the epoch) or a stop request; 1 when it still
 * does. */
int
runner_await(int dfd, int64_t deadline)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };

	while (runner_live(dfd) && now_seconds() <= deadline && !stop_requested)
		nanosleep(&pause, NULL);
	return runner_live(dfd);
}

/* The records are for this batch: same request, same run manifest. */
static int
ours(const struct batch *b, const json_t *l)
{
	return l != NULL && strcmp(json_str(l, "request_id"), b->gate_id) == 0 &&
	    digest_equal(json_str(l, "manifest_sha256"), b->sha);
}

/* A ledger's "stopped": {"by": a user name (1 to 63 bytes), "at": seconds}. */
static int
stopped_ok(const json_t *s)
{
	return json_is_object(s) && json_object_size(s) == 2 &&
	    json_is_string(json_object_get(s, "by")) &&
	    json_string_length(json_object_get(s, "by")) - 1 < 63 &&
	    json_integer_value(json_object_get(s, "at")) > 0;
}

/*
 * Bring the entries up to date from the run directory once nobody runs
 * the batch any more. Returns 2 with the whole batch from a ledger that
 * checks out; 1 with the entries of the progress record (its last entry
 * may say "interrupted"): the commands after them never started, since
 * none starts before its record is durable; 0 when there is no record.
 * The runner records output and paths as they were: the entries are
 * redacted here, before anything keeps, shows or hands them on.
 */
int
batch_from_disk(struct batch *b)
{
	size_t n = json_array_size(b->selected), i;
	const char **ids = xcalloc(n + 1, sizeof *ids);
	char why[256];
	json_t *l, *e;
	int found = 2;

	for (i = 0; i < n; i++)
		ids[i] = json_str(json_array_get(b->selected, i), "id");
	l = read_record(b->run_fd, RUN_LEDGER);
	if (l == NULL || ledger_check(l, b->gate_id, b->sha, ids, n, why, sizeof why) != 0) {
		json_decref(l);
		l = read_record(b->run_fd, RUN_PROGRESS);
		found = ours(b, l) ? 1 : 0;
	}
	/* who stopped the batch, as the executor heard it (stopfile.c) */
	if (found == 2 && stopped_ok(json_object_get(l, "stopped"))) {
		json_decref(b->stopped);
		b->stopped = json_deep_copy(json_object_get(l, "stopped"));
	}
	/* the runner verified the reviewer's passkey: exactly its word */
	if (found == 2)
		b->passkey = json_is_string(json_object_get(l, "approved_with")) &&
		    strcmp(json_str(l, "approved_with"), "passkey") == 0 &&
		    json_string_length(json_object_get(l, "approved_with")) == 7;
	if (found) {
		json_array_clear(b->entries);
		redact_json(json_object_get(l, "entries"));
		json_array_foreach(json_object_get(l, "entries"), i, e) {
			if (i >= n || strcmp(json_str(e, "id"), ids[i]) != 0)
				break;
			json_array_append(b->entries, e);
		}
	}
	free(ids);
	json_decref(l);
	return found;
}

/*
 * Settle the gate approved with the ledger of the whole request: every
 * command in request order, the unselected ones "not_approved", each run
 * by a grant with its "granted_by". Returns
 * what gate_settle returns; the ledger in *ledger either way.
 */
int
batch_settle(struct batch *b, const char *outcome, const char *diagnostic, json_t **ledger)
{
	json_t *all = json_array(), *c, *e;
	size_t i, k = 0;

	json_array_foreach(json_object_get(b->manifest, "commands"), i, c) {
		e = json_array_get(b->entries, k);
		if (e != NULL && strcmp(json_str(e, "id"), json_str(c, "id")) == 0) {
			/* no review: the ledger names the grant each ran by */
			if (json_object_get(b->granted, json_str(c, "id")) != NULL)
				json_object_set(e, "granted_by",
				    json_object_get(b->granted, json_str(c, "id")));
			json_array_append(all, e);
			k++;
		} else
			json_array_append_new(all, ledger_entry_not_run(json_str(c, "id"),
			    json_str(c, "as"), "not_approved", "not approved by the reviewer"));
	}
	*ledger = ledger_new(b->gate_id, b->sha, outcome, all, diagnostic);
	if (b->stopped != NULL)
		json_object_set(*ledger, "stopped", b->stopped);
	if (b->passkey)
		json_object_set_new(*ledger, "approved_with", json_string("passkey"));
	return gate_settle(b->st, b->gate_id, b->attempt, *ledger);
}
