/*
 * The approval flow of `warrant answer --run` (DESIGN §7): take the
 * authentication lease, authenticate through the real sudo on the
 * terminal before anything runs, run the selected commands in request
 * order (YOU commands from this process, each run of ROOT commands
 * through sudo and warrant-runner with a sealed subset manifest), check
 * every ledger, settle the gate, and always end with `sudo -k`.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "approve.h"

#define VIA_SUDO_NOTE	"ROOT commands ran with --via sudo: each executable was re-hashed " \
	"just before sudo ran it by path, a weaker binding than the runner's"

void __attribute__((format(printf, 2, 3)))
say(struct approval *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->message, sizeof a->message, fmt, ap);
	va_end(ap);
}

int
is_root(const json_t *cmd)
{
	return strcmp(json_str(cmd, "as"), "root") == 0;
}

/* The manifest with only cmds, sealed: canonical bytes and their hash. */
static char *
seal_subset(const json_t *manifest, json_t *cmds, char sha[SHA256_HEX_LEN + 1])
{
	json_t *m = json_deep_copy(manifest);
	char *bytes;

	json_object_set(m, "commands", cmds);
	bytes = manifest_seal(m, sha);
	json_decref(m);
	return bytes;
}

/* A JSON file in a run directory, bounded and never through a symlink. */
json_t *
read_json_at(int dfd, const char *name)
{
	struct stat st;
	json_t *j = NULL;
	char *buf;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= FILE_MAX) {
		size_t len;

		if (read_bounded(fd, &buf, &len, FILE_MAX) == 0) {
			j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
			free(buf);
		}
	}
	close(fd);
	return j;
}

static int
write_entries(struct approval *a)
{
	/* a progress record: after a crash of the whole machine, recovery
	 * says "interrupted" without it, which is still true */
	return json_write_atomic(a->run_fd, "entries.json", a->entries, (uid_t)-1, (gid_t)-1, 0);
}

int
stop_now(const struct approval *a)
{
	json_t *e;
	size_t i;

	if (!json_is_true(json_object_get(a->manifest, "stop_on_failure")))
		return 0;
	json_array_foreach(a->entries, i, e)
		if (strcmp(json_str(e, "status"), "ran") != 0)
			return 1;
	return 0;
}

/*
 * One command run from this process, after its executable is re-hashed:
 * a YOU command in its own session, with no terminal and no stdin, in the
 * ADR 0008 environment, executed from the hashed descriptor; or, with
 * --via sudo, a ROOT command as `sudo [-n] -u RUN_AS -- PATH ARGS` in this
 * session (where the sudo ticket is), sudo executing the path.
 */
static json_t *
run_command(struct approval *a, const json_t *cmd, size_t idx, char **env)
{
	json_t *av = json_object_get(cmd, "argv"), *t = json_object_get(cmd, "timeout_seconds");
	int root = is_root(cmd), fd, sudofd = -1, k = 0;
	char hex[SHA256_HEX_LEN + 1], name[64], *senv[SUDO_ENV_MAX];
	size_t i, n = json_array_size(av);
	static struct capture cap;
	struct exec_result res;
	struct exec_spec x;
	struct stat st;
	json_t *e;
	char **argv;

	fd = open(json_str(cmd, "path"), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || sha256_fd(fd, hex) != 0 ||
	    !digest_equal(hex, json_str(cmd, "executable_sha256")) ||
	    (root && (sudofd = open(SUDO, O_RDONLY | O_CLOEXEC)) < 0)) {
		if (fd >= 0)
			close(fd);
		return ledger_entry_not_run(json_str(cmd, "id"), root ? "root" : "user", "refused",
		    sudofd < 0 && root ? "the executable changed since it was reviewed, or "
		    SUDO " cannot be opened" : "the executable changed since it was reviewed");
	}
	argv = xcalloc(n + 8, sizeof *argv);
	if (root) {
		a->sudo_used = 1;
		argv[k++] = SUDO;
		if (a->sudo_caches)
			argv[k++] = "-n";
		argv[k++] = "-u";
		argv[k++] = (char *)json_str(a->manifest, "run_as");
		argv[k++] = "--";
		argv[k++] = (char *)json_str(cmd, "path");
		i = 1;
	} else
		i = 0;
	for (; i < n; i++)
		argv[k++] = (char *)json_string_value(json_array_get(av, i));
	memset(&x, 0, sizeof x);
	x.exefd = root ? sudofd : fd;
	x.argv = argv;
	if (root)
		sudo_env(senv);
	x.envp = root ? senv : env;
	x.cwd = json_str(cmd, "cwd");
	x.new_session = !root;
	x.timeout = json_is_integer(t) ? (long)json_integer_value(t) : DEFAULT_TIMEOUT;
	snprintf(name, sizeof name, "output-%s-%zu.log", root ? "via" : "you", idx);
	capture_init(&cap, openat(a->run_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600), 64ULL * 1024 * 1024);
	a->ran_any = 1;
	if (exec_capture(&x, &cap, &res) != 0) {
		memset(&res, 0, sizeof res);
		res.exit_code = -1;
		res.exec_errno = errno ? errno : EAGAIN;
	}
	e = ledger_entry_ran(json_str(cmd, "id"), root ? "root" : "user", &res, &cap,
	    json_str(a->manifest, "output_to_agent"));
	if (cap.logfd >= 0)
		close(cap.logfd);
	if (root)
		sudo_env_free(senv);
	if (sudofd >= 0)
		close(sudofd);
	close(fd);
	free(argv);
	return e;
}

enum group_result { GROUP_DONE, GROUP_STARTED, GROUP_ERROR };

/*
 * One run of consecutive ROOT commands: seal its subset manifest into a
 * fresh 0700 directory and hand it to the runner through sudo.
 */
static enum group_result
run_group(struct approval *a, json_t *cmds, int group, int detach)
{
	char dir[32], path[PATH_MAX], hex[SHA256_HEX_LEN + 1], *bytes;
	const char *argv[10];
	const char **ids;
	json_t *l, *e;
	int gfd, fd, status, k = 0;
	size_t i, n = json_array_size(cmds);

	snprintf(dir, sizeof dir, "g%d", group);
	if (mkdirat(a->run_fd, dir, 0700) != 0 ||
	    (gfd = openat(a->run_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		say(a, "cannot create %s/%s: %s", a->run_dir,
		    dir, strerror(errno));
		return GROUP_ERROR;
	}
	bytes = seal_subset(a->manifest, cmds, hex);
	fd = openat(gfd, "manifest.json", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (bytes == NULL || fd < 0 || write_all(fd, bytes, strlen(bytes)) != 0 || close(fd) != 0) {
		say(a, "cannot write the manifest for the runner");
		free(bytes);
		close(gfd);
		return GROUP_ERROR;
	}
	free(bytes);
	if ((size_t)snprintf(path, sizeof path, "%s/%s/manifest.json", a->run_dir, dir) >= sizeof path) {
		close(gfd);
		return GROUP_ERROR;
	}
	/* A policy that caches no ticket (timestamp_timeout=0) gets its own
	 * prompt for the runner; otherwise the fresh ticket is used, -n. */
	argv[k++] = SUDO;
	if (sudo_ok(run_sudo(-1, (const char *const[]){ SUDO, "-n", "-v", NULL })))
		argv[k++] = "-n";
	argv[k++] = "--";
	argv[k++] = WARRANT_RUNNER_PATH;
	argv[k++] = "--manifest";
	argv[k++] = path;
	argv[k++] = "--expected-sha256";
	argv[k++] = hex;
	if (detach)
		argv[k++] = "--detach";
	argv[k] = NULL;
	status = run_sudo(a->tty, argv);
	/* started.json is written after every check passed, before the
	 * first command: from then on something may have run */
	l = read_json_at(gfd, "started.json");
	a->group_started = l != NULL;
	if (l != NULL)
		a->ran_any = 1;
	json_decref(l);
	if (!sudo_ok(status)) {
		say(a, "the runner refused the batch or stopped (status %d)",
		    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		l = read_json_at(gfd, "progress.json");
		json_array_foreach(json_object_get(l, "entries"), i, e) {
			if (i >= n || strcmp(json_str(e, "id"), json_str(json_array_get(cmds, i), "id")) != 0 ||
			    contains_credential(json_str(e, "output_tail")))
				break;
			json_array_append(a->entries, e);
		}
		json_decref(l);
		close(gfd);
		return GROUP_ERROR;
	}
	if (detach) {
		close(gfd);
		return GROUP_STARTED;
	}
	l = read_json_at(gfd, "ledger.json");
	close(gfd);
	ids = xcalloc(n, sizeof *ids);
	for (i = 0; i < n; i++)
		ids[i] = json_str(json_array_get(cmds, i), "id");
	if (l == NULL || ledger_check(l, a->gate_id, hex, ids, n, a->message,
	    sizeof a->message) != 0) {
		if (l == NULL)
			say(a, "the runner left no ledger");
		json_decref(l);
		free(ids);
		return GROUP_ERROR;
	}
	free(ids);
	json_array_foreach(json_object_get(l, "entries"), i, e)
		json_array_append(a->entries, e);
	json_decref(l);
	return GROUP_DONE;
}

static json_t *
failure(struct approval *a, const char *outcome)
{
	return json_pack("{s:s,s:s,s:s,s:s}", "request_id", a->gate_id, "status", "pending",
	    "outcome", outcome, "message", a->message);
}

/* The run of the commands once authenticated; returns the result object. */
static json_t *
execute(struct approval *a, int detach, int *code)
{
	size_t n = json_array_size(a->selected), i = 0, j;
	struct passwd *pw = getpwuid(getuid());
	char **env = pw != NULL ? userenv_build(pw) : NULL;
	json_t *c, *group, *ledger = NULL, *result;
	enum group_result gr;
	int g = 0, pipefd[2];
	pid_t pid;

	if (env == NULL) {
		say(a, "cannot find your passwd entry");
		*code = EXIT_INTERNAL;
		return failure(a, "runner_error");
	}
	while (i < n) {
		c = json_array_get(a->selected, i);
		if (stop_requested || stop_interrupted) {
			say(a, "warrant answer was told to stop (interrupt, SIGHUP or SIGTERM)");
			a->broken = 1;
			for (; i < n; i++) {
				c = json_array_get(a->selected, i);
				json_array_append_new(a->entries, ledger_entry_not_run(json_str(c, "id"),
				    is_root(c) ? "root" : "user", "skipped",
				    "not run: warrant answer was told to stop"));
			}
			break;
		}
		if (stop_now(a)) {
			json_array_append_new(a->entries, ledger_entry_not_run(json_str(c, "id"),
			    is_root(c) ? "root" : "user", "skipped",
			    "not run: an earlier command failed (stop_on_failure)"));
			i++;
			continue;
		}
		if (!is_root(c) || a->via_sudo) {
			json_array_append_new(a->entries, run_command(a, c, i, env));
			write_entries(a);
			i++;
			continue;
		}
		group = json_array();
		for (j = i; j < n && is_root(json_array_get(a->selected, j)); j++)
			json_array_append(group, json_array_get(a->selected, j));
		gr = run_group(a, group, g++, detach && j == n);
		json_decref(group);
		if (gr == GROUP_ERROR && !a->ran_any) {
			userenv_free(env);
			*code = EXIT_INTERNAL;
			return failure(a, "runner_error");
		}
		if (gr == GROUP_ERROR) {
			a->broken = 1;
			if (a->group_started)
				mark_interrupted(a, json_array_size(a->entries), a->message);
			else
				for (; i < n; i++) {
					c = json_array_get(a->selected, i);
					json_array_append_new(a->entries, ledger_entry_not_run(
					    json_str(c, "id"), is_root(c) ? "root" : "user",
					    i < j ? "refused" : "skipped", i < j ? a->message :
					    "not run: the runner refused an earlier command"));
				}
			break;
		}
		if (gr == GROUP_STARTED) {
			userenv_free(env);
			sudo_forget(a);
			if (pipe2(pipefd, O_CLOEXEC) != 0 || (pid = fork()) < 0) {
				say(a, "cannot start the finalizer");
				*code = EXIT_INTERNAL;
				return failure(a, "runner_error");
			}
			if (pid == 0) {
				close(pipefd[1]);
				close(a->lease);	/* the flock must not outlive answer */
				if (a->tty >= 0)
					close(a->tty);
				setsid();
				finalize_detached(a, pipefd[0]);
			}
			close(pipefd[0]);
			/* the finalizer owns the attempt before anyone can see us gone */
			attempt_set_pid(a->st, a->attempt, "running", pid);
			if (write(pipefd[1], "g", 1) != 1)
				warnx("cannot start the finalizer");
			close(pipefd[1]);
			*code = EXIT_OK;
			return json_pack("{s:s,s:s,s:s,s:i}", "request_id", a->gate_id,
			    "status", "started", "outcome", "started", "finalizer_pid", (int)pid);
		}
		i = j;
		write_entries(a);
	}
	userenv_free(env);
	sudo_forget(a);
	write_entries(a);
	if (settle(a, a->broken ? "runner_error" : "completed", a->broken ? a->message :
	    a->via_sudo && a->sudo_used ? VIA_SUDO_NOTE : NULL,
	    &ledger) != 0) {
		json_decref(ledger);
		say(a, "cannot settle the gate");
		*code = EXIT_INTERNAL;
		return failure(a, "runner_error");
	}
	*code = a->broken ? EXIT_INTERNAL : EXIT_OK;
	result = json_pack("{s:s,s:s,s:s,s:o}", "request_id", a->gate_id, "status", "approved",
	    "outcome", a->broken ? "runner_error" : ledger_all_ran(ledger) ? "completed" :
	    "command_failed", "ledger", ledger);
	return result;
}

/* Pick the approved commands (all when none named), in reviewed order. */
static int
select_commands(struct approval *a, const char *const *ids, size_t nids)
{
	json_t *cmds = json_object_get(a->manifest, "commands"), *c;
	size_t i, k;

	for (k = 0; k < nids; k++) {
		json_array_foreach(cmds, i, c)
			if (strcmp(json_str(c, "id"), ids[k]) == 0)
				break;
		if (i == json_array_size(cmds)) {
			say(a, "no command '%s' in this request", ids[k]);
			return -1;
		}
	}
	a->selected = json_array();
	json_array_foreach(cmds, i, c) {
		for (k = 0; k < nids; k++)
			if (strcmp(json_str(c, "id"), ids[k]) == 0)
				break;
		if (nids == 0 || k < nids)
			json_array_append(a->selected, c);
	}
	return 0;
}

static int
runner_trusted(struct approval *a)
{
	char why[PATH_MAX + 128];
	int rc = path_replaceable(&requester_anyone, WARRANT_RUNNER_PATH, why, sizeof why);

	if (rc == 0)
		return 1;
	say(a, "refusing to hand %s to sudo: %s", WARRANT_RUNNER_PATH,
	    rc > 0 ? why : "it is missing");
	return 0;
}

/*
 * Approve and run gate_id (the selected command ids, or all). *code gets
 * the exit code; the returned object is the answer's JSON result.
 */
json_t *
approve_run(struct store *st, const char *gate_id, const char *const *ids, size_t nids,
    const struct approve_opts *opts, int *code)
{
	static const struct approve_opts defaults = { .detach = -1, .via_sudo = 0 };
	struct sigaction saved[STOP_SIGNALS];
	struct approval a;
	json_t *c, *result = NULL;
	char holder[256], sha[SHA256_HEX_LEN + 1], *bytes;
	int root = 0, you_after_root = 0, status, detach;
	size_t i;

	memset(&a, 0, sizeof a);
	a.st = st;
	a.gate_id = gate_id;
	a.tty = a.run_fd = a.attempt = -1;
	a.entries = json_array();
	*code = EXIT_REFUSED;
	a.gate = store_gate(st, gate_id, 1);
	if (a.gate == NULL) {
		*code = EXIT_INTERNAL;
		say(&a, "cannot read the gate");
		return failure(&a, "runner_error");
	}
	a.manifest = json_object_get(a.gate, "manifest");
	/* the store holds canonical bytes: they must still hash to the seal */
	bytes = manifest_seal(a.manifest, sha);
	free(bytes);
	if (!digest_equal(sha, json_str(a.gate, "manifest_sha256"))) {
		say(&a, "the stored manifest no longer matches its seal");
		*code = EXIT_INTERNAL;
		result = failure(&a, "runner_error");
		goto out;
	}
	if (strcmp(json_str(a.gate, "state"), "pending") != 0) {
		say(&a, "the gate is %s, not pending", json_str(a.gate, "state"));
		result = json_pack("{s:s,s:O,s:s}", "request_id", gate_id, "status",
		    json_object_get(a.gate, "state"), "message", a.message);
		goto out;
	}
	if (select_commands(&a, ids, nids) != 0) {
		result = json_pack("{s:s,s:s,s:s}", "request_id", gate_id, "status", "pending",
		    "message", a.message);
		goto out;
	}
	json_array_foreach(a.selected, i, c) {
		if (is_root(c))
			root = 1;
		else if (root)
			you_after_root = 1;
	}
	if (opts == NULL)
		opts = &defaults;
	a.via_sudo = opts->via_sudo;
	/* sudo runs each command itself with --via sudo: it cannot detach,
	 * and the reviewed environment cannot be handed over */
	detach = opts->detach != 0 && !you_after_root && !a.via_sudo;
	if (a.via_sudo && root && json_object_size(json_object_get(a.manifest, "env")) > 0) {
		say(&a, "--via sudo cannot pass the reviewed environment; answer without it");
		*code = EXIT_INTERNAL;
		result = failure(&a, "runner_error");
		goto out;
	}
	bytes = seal_subset(a.manifest, a.selected, a.sha);
	free(bytes);

	if ((a.tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 && root) {
		say(&a, "approving ROOT commands needs a terminal for sudo's prompt");
		result = failure(&a, "missing_tty");
		goto out;
	}
	if (root && !a.via_sudo && !runner_trusted(&a)) {
		*code = EXIT_INTERNAL;
		result = failure(&a, "runner_error");
		goto out;
	}
	if ((a.run_fd = lease_take(st->dir, gate_id, holder, sizeof holder)) < 0) {
		say(&a, "another approval holds the lease: %s",
		    *holder ? holder : "the lease file cannot be used");
		result = failure(&a, "lock_contention");
		goto out;
	}
	{
		int lease = a.lease = a.run_fd;
		char runs[PATH_MAX];

		a.run_fd = -1;
		if ((size_t)snprintf(runs, sizeof runs, "%s/runs", st->dir) >= sizeof runs ||
		    (mkdir(runs, 0700) != 0 && errno != EEXIST) ||
		    (size_t)snprintf(a.run_dir, sizeof a.run_dir, "%s/%s.XXXXXX", runs, gate_id) >=
		    sizeof a.run_dir || mkdtemp(a.run_dir) == NULL ||
		    (a.run_fd = open(a.run_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			lease_release(lease);
			say(&a, "cannot create a run directory: %s",
			    strerror(errno));
			*code = EXIT_INTERNAL;
			result = failure(&a, "runner_error");
			goto out;
		}
		a.attempt = attempt_begin(st, gate_id, a.selected, a.sha, a.run_dir);
		if (a.attempt < 0) {
			lease_release(lease);
			say(&a, a.attempt == ATTEMPT_BUSY ?
			    "this request is already being executed" : "cannot record the attempt");
			*code = a.attempt == ATTEMPT_BUSY ? EXIT_REFUSED : EXIT_INTERNAL;
			result = failure(&a, a.attempt == ATTEMPT_BUSY ? "execution_in_progress" :
			    "runner_error");
			goto out;
		}
		set_stop_handlers(on_hangup, saved);
		stop_requested = stop_interrupted = 0;
		if (root) {
			attempt_set(st, a.attempt, "authenticating");
			a.authenticated = 1;	/* from here on, always sudo -k */
			sudo_forget(&a);
			a.authenticated = 1;
			status = run_sudo(a.tty, (const char *const[]){ SUDO, "-v", NULL });
			/* told to stop while sudo prompted: nothing runs either */
			if (!sudo_ok(status) || stop_interrupted || stop_requested) {
				int cancelled = stop_interrupted || stop_requested || WIFSIGNALED(status);

				sudo_forget(&a);
				lease_release(lease);
				say(&a, cancelled ? "authentication was cancelled; nothing ran" :
				    "sudo authentication failed; nothing ran");
				attempt_abandon(st, a.attempt, gate_id, cancelled ?
				    "cancellation" : "authentication_failed");
				result = failure(&a, cancelled ? "cancellation" : "authentication_failed");
				restore_stop_handlers(saved);
				goto out;
			}
		}
		a.sudo_caches = root && sudo_ok(run_sudo(-1, (const char *const[]){ SUDO, "-n", "-v",
		    NULL }));
		/* each --via sudo command is its own sudo in the background: it
		 * needs the ticket, it cannot prompt */
		if (a.via_sudo && root && !a.sudo_caches) {
			sudo_forget(&a);
			lease_release(lease);
			say(&a, "--via sudo needs a sudo policy that keeps a ticket "
			    "(timestamp_timeout > 0); nothing ran");
			attempt_abandon(st, a.attempt, gate_id, "runner_error");
			*code = EXIT_INTERNAL;
			result = failure(&a, "runner_error");
			restore_stop_handlers(saved);
			goto out;
		}
		attempt_set(st, a.attempt, "running");
		result = execute(&a, detach, code);
		restore_stop_handlers(saved);
		sudo_forget(&a);
		lease_release(lease);
		if (strcmp(json_str(result, "status"), "pending") == 0 && !a.ran_any)
			attempt_abandon(st, a.attempt, gate_id, json_str(result, "outcome"));
	}
out:
	if (a.tty >= 0)
		close(a.tty);
	if (a.run_fd >= 0)
		close(a.run_fd);
	json_decref(a.selected);
	json_decref(a.entries);
	json_decref(a.gate);
	return result;
}
