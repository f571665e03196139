/* SPDX-License-Identifier: ISC */
/*
 * The local executor: the selected commands run from `warrant answer`
 * itself, one after the other. YOU commands (no password: they run as the
 * reviewer anyway) in their own session with no terminal and no stdin, in
 * the YOU environment, from the descriptor whose hash was just checked.
 * With --via sudo, ROOT commands as `sudo -k -u RUN_AS -- PATH ARGS` on
 * the terminal: a prompt per command, no ticket, the executable re-hashed
 * just before sudo runs it by path (a weaker binding, said in the ledger).
 * Files the YOU commands name are staged for them in the run directory
 * and removed after the batch.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"

#define OUTPUT_LOG_MAX	(64ULL * 1024 * 1024)

/* A "refused" entry for a command sealed at run time, with what was found. */
static json_t *
refused_at_run(const json_t *cmd, const char *real, const char *sha, const char *why)
{
	json_t *e = ledger_entry_not_run(json_str(cmd, "id"), json_str(cmd, "as"), "refused", why);

	json_object_set_new(e, "path", json_string(*real ? real : json_str(cmd, "path")));
	json_object_set_new(e, "executable_sha256", *sha ? json_string(sha) : json_null());
	return e;
}

static json_t *
run_command(struct batch *b, const json_t *cmd, size_t idx, char **env, const char *stage,
    struct capture *cap, struct run_watch *watch)
{
	json_t *av = json_object_get(cmd, "argv"), *t = json_object_get(cmd, "timeout_seconds"), *e;
	int root = is_root(cmd), fd, sudofd = -1, k = 0,
	    at_run = json_is_true(json_object_get(cmd, "sealed_at_run"));
	char name[64], *senv[SUDO_ENV_MAX], **argv, **words, real[PATH_MAX] = "",
	    sha[SHA256_HEX_LEN + 1] = "", why[PATH_MAX + 256];
	size_t i, n = json_array_size(av);
	struct exec_result res;
	struct exec_spec x;
	gid_t *groups;
	struct writer w;

	if ((words = argv_strings(av, stage)) == NULL)
		return ledger_entry_not_run(json_str(cmd, "id"), json_str(cmd, "as"), "refused",
		    "its files were not staged");
	/* sealed at run time: judged now, by the request's rules */
	if (at_run) {
		manifest_requester(b->run, &w, &groups);
		fd = exe_at_run(json_str(cmd, "path"), &w, root, real, sha, why, sizeof why);
		free(groups);
		if (fd < 0) {
			argv_strings_free(words);
			return refused_at_run(cmd, real, sha, why);
		}
	} else if ((fd = exe_open_sealed(json_str(cmd, "path"),
	    json_str(cmd, "executable_sha256"))) < 0) {
		argv_strings_free(words);
		return ledger_entry_not_run(json_str(cmd, "id"), json_str(cmd, "as"), "refused",
		    "the executable changed since it was reviewed");
	}
	if (root && (sudofd = open(SUDO_PATH, O_RDONLY | O_CLOEXEC)) < 0) {
		close(fd);
		argv_strings_free(words);
		return ledger_entry_not_run(json_str(cmd, "id"), "root", "refused",
		    SUDO_PATH " cannot be opened");
	}
	argv = xcalloc(n + 8, sizeof *argv);
	if (root) {
		argv[k++] = SUDO_PATH;
		argv[k++] = "-k";
		argv[k++] = "-u";
		argv[k++] = (char *)json_str(b->run, "run_as");
		argv[k++] = "--";
		argv[k++] = at_run ? real : (char *)json_str(cmd, "path");
		i = 1;
	} else
		i = 0;
	for (; i < n; i++)
		argv[k++] = words[i];
	memset(&x, 0, sizeof x);
	x.exefd = root ? sudofd : fd;
	x.argv = argv;
	if (root)
		sudo_env(senv);
	x.envp = root ? senv : env;
	x.cwd = root ? json_str(b->run, "cwd") : json_str(cmd, "cwd");
	/* sudo prompts on our terminal, in its foreground; a YOU command
	 * gets no terminal at all */
	x.group = root ? EXEC_FOREGROUND : EXEC_SESSION;
	x.timeout = json_is_integer(t) ? (long)json_integer_value(t) : DEFAULT_TIMEOUT;
	x.tick = run_watch_tick;	/* the reviewer's stop; the live output */
	x.tick_arg = watch;
	run_watch_command(watch, json_str(cmd, "id"));
	snprintf(name, sizeof name, RUN_OUTPUT, idx);
	/* a run by grants keeps less: nobody reviewed it, and its requester
	 * may repeat it (docs/grants.md) */
	capture_init(cap, openat(b->run_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600), b->granted != NULL ? (uint64_t)GRANT_LOG_MAX : OUTPUT_LOG_MAX);
	if (exec_capture(&x, cap, &res) != 0) {
		memset(&res, 0, sizeof res);
		res.exit_code = -1;
		res.exec_errno = errno ? errno : EAGAIN;
	}
	e = ledger_entry_ran(json_str(cmd, "id"), json_str(cmd, "as"), &res, cap,
	    json_str(b->run, "output_to_agent"));
	if (res.stopped)
		json_object_set_new(e, "error", json_string(watch->why));
	if (at_run) {
		json_object_set_new(e, "path", json_string(real));
		json_object_set_new(e, "executable_sha256", json_string(sha));
	}
	if (cap->logfd >= 0)
		close(cap->logfd);
	if (root)
		sudo_env_free(senv);
	if (sudofd >= 0)
		close(sudofd);
	close(fd);
	free(argv);
	argv_strings_free(words);
	return e;
}

/* user_env back into an environment block (it was built by this process). */
static char **
env_block(const json_t *ue)
{
	char **env = xcalloc(json_array_size(ue) + 1, sizeof *env);
	json_t *v;
	size_t i;

	json_array_foreach(ue, i, v)
		env[i] = (char *)json_string_value(v);
	return env;
}

/*
 * The files of the run manifest for YOU commands: copied from the run
 * directory's blob-HEX into a fresh RUN_DIR/files (the reviewer's, 0700),
 * re-hashed on the way, with their sealed modes. 0 with the directory in
 * dir (or "" when no command names a file); -1 when a file does not match
 * its seal or cannot be staged (said; nothing ran, the directory removed).
 */
static int
stage_you(struct batch *b, char dir[PATH_MAX])
{
	char blob[SHA256_HEX_LEN + 8];
	const char *name;
	json_t *f;
	int dfd, rc;

	dir[0] = '\0';
	if (json_object_size(json_object_get(b->run, "files")) == 0)
		return 0;
	if (mkdirat(b->run_fd, RUN_FILES, 0700) != 0 ||
	    (dfd = openat(b->run_fd, RUN_FILES, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		tell(b, "runner_error", "cannot create %s/%s: %s; nothing ran", b->run_dir,
		    RUN_FILES, strerror(errno));
		stage_remove(b->run_fd, RUN_FILES);
		return -1;
	}
	json_object_foreach(json_object_get(b->run, "files"), name, f) {
		mode_t mode = 0600;

		file_mode_parse(json_str(f, "mode"), &mode);
		snprintf(blob, sizeof blob, RUN_BLOB, json_str(f, "sha256"));
		rc = stage_copy(b->run_fd, blob, dfd, name, json_str(f, "sha256"),
		    (uint64_t)json_integer_value(json_object_get(f, "size")), mode,
		    (uid_t)-1, (gid_t)-1);
		if (rc != 0) {
			if (rc > 0)
				tell(b, "runner_error", "file '%s' does not match its seal; nothing ran",
				    name);
			else
				tell(b, "runner_error", "cannot stage file '%s': %s; nothing ran", name,
				    strerror(errno));
			close(dfd);
			stage_remove(b->run_fd, RUN_FILES);
			return -1;
		}
	}
	close(dfd);
	if ((size_t)snprintf(dir, PATH_MAX, "%s/%s", b->run_dir, RUN_FILES) >= PATH_MAX) {
		tell(b, "runner_error", "the run directory's path is too long; nothing ran");
		stage_remove(b->run_fd, RUN_FILES);
		return -1;
	}
	return 0;
}

/* What batch_execute needs of a local batch. */
struct local {
	struct batch	*b;
	char		**env;
	const char	*stage;
	struct capture	*cap;
	struct run_watch watch;
};

/* The entries so far, as the batch's record (batch_record). */
static int
local_record(void *arg, json_t *entries)
{
	struct batch *b = ((struct local *)arg)->b;
	json_t *kept = b->entries;
	int rc;

	b->entries = entries;
	rc = batch_record(b);
	b->entries = kept;
	return rc;
}

/* A command's entry, redacted before the batch records or keeps it
 * (capture keeps output as it was printed). */
static json_t *
local_run(void *arg, const json_t *c, size_t i)
{
	struct local *l = arg;
	json_t *e = run_command(l->b, c, i, l->env, l->stage, l->cap, &l->watch);

	redact_json(e);
	return e;
}

static int
local_halted(void *arg)
{
	return run_watch_halted(&((struct local *)arg)->watch);
}

/* This user's name, for "stopped by NAME": the one who can stop it. */
static void
self_name(char *buf, size_t size)
{
	struct passwd pw, *p;
	char pwbuf[4096];

	if (getpwuid_r(getuid(), &pw, pwbuf, sizeof pwbuf, &p) == 0 && p != NULL)
		snprintf(buf, size, "%s", p->pw_name);
	else
		snprintf(buf, size, "uid %u", (unsigned)getuid());
}

enum exec_end
exec_local(struct batch *b, const struct approve_opts *opts)
{
	char stage[PATH_MAX];
	struct local l = { .b = b, .stage = NULL };
	struct batch_exec x = {
		.cmds = b->selected,
		.stop_on_failure = json_is_true(json_object_get(b->run, "stop_on_failure")),
		.stop = &stop_requested, .who = "warrant answer",
		.record = local_record, .run = local_run, .arg = &l,
		.halted = local_halted, .halted_why = l.watch.why,
	};
	enum exec_end end = EXEC_DONE;
	int broken, stopped;
	char me[64];

	(void)opts;
	if (stage_you(b, stage) != 0)
		return EXEC_NOTHING_RAN;
	l.stage = *stage ? stage : NULL;
	l.cap = xmalloc(sizeof *l.cap);
	l.env = env_block(json_object_get(b->run, "user_env"));
	self_name(me, sizeof me);
	run_watch_init(&l.watch, b->run_fd, getuid(), me);
	json_decref(b->entries);
	b->entries = batch_execute(&x, &broken, &stopped);
	b->stopped = run_watch_record(&l.watch);
	if (stopped)
		tell(b, "runner_error", "warrant answer was told to stop "
		    "(interrupt, SIGHUP or SIGTERM)");
	if (broken || stopped)
		end = EXEC_BROKEN;
	/* the staged files go, whatever happened */
	if (*stage != '\0' && stage_remove(b->run_fd, RUN_FILES) != 0)
		warnx("cannot remove %s", stage);
	if (batch_record(b) != 0)
		end = EXEC_BROKEN;
	free(l.env);
	free(l.cap);
	return end;
}
