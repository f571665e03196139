/*
 * The approval flow of `warrant answer --run` (DESIGN §7): take the
 * authentication lease, authenticate through the real sudo on the
 * terminal before anything runs, run the selected commands in request
 * order (YOU commands from this process, each run of ROOT commands
 * through sudo and warrant-runner with a sealed subset manifest), check
 * every ledger, settle the gate, and always end with `sudo -k`.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "warrant.h"

#define SUDO		"/usr/bin/sudo"
#define FILE_MAX	(8 * 1024 * 1024)
#define DEFAULT_TIMEOUT	300

struct approval {
	struct store	*st;
	const char	*gate_id;
	json_t		*gate;
	json_t		*manifest;	/* the sealed one, from the store */
	json_t		*selected;	/* its commands that were approved */
	char		 sha[SHA256_HEX_LEN + 1];	/* of the selected subset */
	int64_t		 attempt;
	char		 run_dir[PATH_MAX];
	int		 run_fd;
	int		 tty;
	int		 authenticated;
	int		 ran_any;	/* something may have run: never pending again */
	int		 broken;	/* a runner failed part way */
	int		 group_started;	/* the last runner got past its checks */
	int		 via_sudo;	/* ROOT commands through sudo, not the runner */
	int		 sudo_caches;	/* the policy keeps a ticket: sudo -n works */
	int		 sudo_used;	/* a ROOT command ran through --via sudo */
	int		 lease;
	json_t		*entries;
	char		 message[512];
};

static void __attribute__((format(printf, 2, 3)))
say(struct approval *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->message, sizeof a->message, fmt, ap);
	va_end(ap);
}

static const char *
str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

static int
is_root(const json_t *cmd)
{
	return strcmp(str(cmd, "as"), "root") == 0;
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
static json_t *
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

#define SUDO_ENV_MAX	8
#define VIA_SUDO_NOTE	"ROOT commands ran with --via sudo: each executable was re-hashed " \
	"just before sudo ran it by path, a weaker binding than the runner's"

/* What sudo is started with: a fixed PATH and the terminal's settings
 * (sudo resets the rest itself). */
static void
sudo_env(char *envp[SUDO_ENV_MAX])
{
	static const char *const keep[] = { "TERM", "LANG", "LC_ALL", "LC_MESSAGES", NULL };
	const char *p;
	int i, k = 0;

	envp[k++] = xstrdup("PATH=/usr/sbin:/usr/bin:/sbin:/bin");
	for (i = 0; keep[i] != NULL; i++)
		if ((p = getenv(keep[i])) != NULL && strlen(p) < 64 &&
		    asprintf(&envp[k], "%s=%s", keep[i], p) > 0)
			k++;
	envp[k] = NULL;
}

static void
sudo_env_free(char *envp[SUDO_ENV_MAX])
{
	int i;

	for (i = 0; envp[i] != NULL; i++)
		free(envp[i]);
}

#define STOP_SIGNALS	4
#define RUNNER_ALIVE	2	/* finish_from_disk: the runner still runs */

static volatile sig_atomic_t interrupted, hangup;

/* SIGHUP, SIGTERM or an interrupt key once the handoff began: finish the
 * current command, run nothing more, and still end with sudo -k. */
static void
on_hangup(int sig)
{
	(void)sig;
	hangup = 1;
}

static void
on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Run sudo with argv on the terminal (or /dev/null when tty < 0). An
 * interrupt key reaches sudo and us alike: we only note it (sudo reports
 * a cancelled prompt as an ordinary failure). Returns the wait status. */
static int
run_sudo(int tty, const char *const *argv)
{
	char *envp[SUDO_ENV_MAX];
	struct sigaction note, oldint, oldquit;
	int status = -1, fd;
	pid_t pid;

	sudo_env(envp);
	memset(&note, 0, sizeof note);
	note.sa_handler = on_interrupt;
	sigaction(SIGINT, &note, &oldint);
	sigaction(SIGQUIT, &note, &oldquit);
	if ((pid = fork()) == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		fd = tty >= 0 ? tty : open("/dev/null", O_RDWR);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execve(SUDO, (char *const *)argv, envp);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	sigaction(SIGINT, &oldint, NULL);
	sigaction(SIGQUIT, &oldquit, NULL);
	sudo_env_free(envp);
	return status;
}

static const int stop_signals[STOP_SIGNALS] = { SIGHUP, SIGTERM, SIGINT, SIGQUIT };

/* Handle the stop signals with handler; the previous dispositions go to
 * saved (when given), for whoever called approve_run (the console). */
static void
set_stop_handlers(void (*handler)(int), struct sigaction saved[STOP_SIGNALS])
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	for (i = 0; i < STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &sa, saved != NULL ? &saved[i] : NULL);
}

static void
restore_stop_handlers(const struct sigaction saved[STOP_SIGNALS])
{
	int i;

	for (i = 0; i < STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &saved[i], NULL);
}

static int
sudo_ok(int status)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void
sudo_forget(struct approval *a)
{
	static const char *const argv[] = { SUDO, "-k", NULL };

	if (a->authenticated && !sudo_ok(run_sudo(-1, argv)))
		warnx_("sudo -k failed; run it yourself to drop the sudo ticket");
	a->authenticated = 0;
}

static int
write_entries(struct approval *a)
{
	/* a progress record: after a crash of the whole machine, recovery
	 * says "interrupted" without it, which is still true */
	return json_write_atomic(a->run_fd, "entries.json", a->entries, (uid_t)-1, (gid_t)-1, 0);
}

static int
stop_now(const struct approval *a)
{
	json_t *e;
	size_t i;

	if (!json_is_true(json_object_get(a->manifest, "stop_on_failure")))
		return 0;
	json_array_foreach(a->entries, i, e)
		if (strcmp(str(e, "status"), "ran") != 0)
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

	fd = open(str(cmd, "path"), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || sha256_fd(fd, hex) != 0 ||
	    !digest_equal(hex, str(cmd, "executable_sha256")) ||
	    (root && (sudofd = open(SUDO, O_RDONLY | O_CLOEXEC)) < 0)) {
		if (fd >= 0)
			close(fd);
		return ledger_entry_not_run(str(cmd, "id"), root ? "root" : "user", "refused",
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
		argv[k++] = (char *)str(a->manifest, "run_as");
		argv[k++] = "--";
		argv[k++] = (char *)str(cmd, "path");
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
	x.cwd = str(cmd, "cwd");
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
	e = ledger_entry_ran(str(cmd, "id"), root ? "root" : "user", &res, &cap,
	    str(a->manifest, "output_to_agent"));
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
			if (i >= n || strcmp(str(e, "id"), str(json_array_get(cmds, i), "id")) != 0 ||
			    contains_credential(str(e, "output_tail")))
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
		ids[i] = str(json_array_get(cmds, i), "id");
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

/* Entries for selected commands from index k on, once execution stopped
 * for a reason other than a failure: the first may have partly run. */
static void
mark_interrupted(struct approval *a, size_t k, const char *why)
{
	json_t *c;
	size_t i;

	for (i = k; i < json_array_size(a->selected); i++) {
		c = json_array_get(a->selected, i);
		json_array_append_new(a->entries, ledger_entry_not_run(str(c, "id"),
		    is_root(c) ? "root" : "user", i == k ? "failed" : "skipped",
		    i == k ? why : "not run: the batch was interrupted"));
	}
}

static int
settle(struct approval *a, const char *outcome, const char *diagnostic, json_t **ledger)
{
	json_t *l = ledger_new(a->gate_id, a->sha, outcome, json_incref(a->entries), diagnostic);
	int rc = gate_settle(a->st, a->gate_id, a->attempt, l);

	if (rc == 0) {
		json_t *line = json_pack("{s:s,s:I,s:s,s:O}", "event", "approved",
		    "at", (json_int_t)now_seconds(), "request_id", a->gate_id, "ledger", l);

		state_append_jsonl(a->st->dir, line);
		json_decref(line);
	}
	*ledger = l;
	return rc;
}

/* Sum of the selected commands' timeouts plus 30 s: the overall bound. */
static long
overall_bound(const json_t *cmds)
{
	json_t *c, *t;
	long sum = 30;
	size_t i;

	json_array_foreach(cmds, i, c) {
		t = json_object_get(c, "timeout_seconds");
		sum += json_is_integer(t) ? (long)json_integer_value(t) : DEFAULT_TIMEOUT;
	}
	return sum;
}

/*
 * What a finished or dead runner left for its group (manifest m): the
 * ledger when it is complete and checks out, else its progress when that
 * is for this request and manifest.
 */
static json_t *
group_ledger(struct approval *a, int gfd, json_t *m)
{
	json_t *cmds = json_object_get(m, "commands"), *l;
	char hex[SHA256_HEX_LEN + 1], why[256], *bytes;
	const char **ids;
	size_t i, n = json_array_size(cmds);
	int ok;

	if ((bytes = manifest_seal(m, hex)) == NULL)
		return NULL;
	free(bytes);
	ids = xcalloc(n + 1, sizeof *ids);
	for (i = 0; i < n; i++)
		ids[i] = str(json_array_get(cmds, i), "id");
	l = read_json_at(gfd, "ledger.json");
	ok = l != NULL && ledger_check(l, a->gate_id, hex, ids, n, why, sizeof why) == 0;
	free(ids);
	if (ok)
		return l;
	json_decref(l);
	l = read_json_at(gfd, "progress.json");
	if (l != NULL && (strcmp(str(l, "request_id"), a->gate_id) != 0 ||
	    !digest_equal(str(l, "manifest_sha256"), hex))) {
		json_decref(l);
		l = NULL;
	}
	return l;
}

/*
 * Bring the entries up to date from a run directory after the process
 * running the batch is gone: merge the in-flight group's ledger, or its
 * progress and an interrupted entry. Returns 1 when the runner of that
 * group is still alive (leave it be), 0 otherwise.
 */
static int
merge_from_disk(struct approval *a)
{
	size_t k = json_array_size(a->entries), i;
	json_t *m, *l, *started, *e;
	char dir[32];
	int g, gfd, alive;

	for (g = 0; g < 128 && k < json_array_size(a->selected); g++) {
		snprintf(dir, sizeof dir, "g%d", g);
		gfd = openat(a->run_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (gfd < 0)
			break;
		m = read_json_at(gfd, "manifest.json");
		if (m == NULL || strcmp(str(json_array_get(json_object_get(m, "commands"), 0), "id"),
		    str(json_array_get(a->selected, k), "id")) != 0) {
			json_decref(m);
			close(gfd);
			continue;
		}
		started = read_json_at(gfd, "started.json");
		alive = started != NULL && proc_alive((pid_t)json_integer_value(json_object_get(started,
		    "pid")), json_integer_value(json_object_get(started, "start_time")));
		json_decref(started);
		if (alive) {
			close(gfd);
			return 1;
		}
		l = group_ledger(a, gfd, m);
		json_decref(m);
		close(gfd);
		json_array_foreach(json_object_get(l, "entries"), i, e) {
			if (k >= json_array_size(a->selected) ||
			    strcmp(str(e, "id"), str(json_array_get(a->selected, k), "id")) != 0 ||
			    contains_credential(str(e, "output_tail")))
				break;
			json_array_append(a->entries, e);
			k++;
		}
		json_decref(l);
	}
	return 0;
}

/* Complete a batch whose executor is gone: what ran is in the ledger,
 * what may have been interrupted is said, nothing runs again. Returns
 * RUNNER_ALIVE (nothing done) or what settle returns. */
static int
finish_from_disk(struct approval *a, json_t **ledger)
{
	size_t k;

	if (merge_from_disk(a))
		return RUNNER_ALIVE;
	k = json_array_size(a->entries);
	if (k < json_array_size(a->selected) && !stop_now(a)) {
		mark_interrupted(a, k, "interrupted: the process running the batch stopped; "
		    "this command may have partly run");
		return settle(a, "runner_error", "the batch was interrupted", ledger);
	}
	for (; k < json_array_size(a->selected); k++) {
		json_t *c = json_array_get(a->selected, k);

		json_array_append_new(a->entries, ledger_entry_not_run(str(c, "id"),
		    is_root(c) ? "root" : "user", "skipped",
		    "not run: an earlier command failed (stop_on_failure)"));
	}
	return settle(a, "completed", NULL, ledger);
}

/* The detached finalizer: owned by the reviewer, no terminal; waits for
 * the runner's ledger (bounded by the overall timeout) and settles. */
static void
finalize(struct approval *a, int go)
{
	int64_t deadline = now_seconds() + overall_bound(a->selected);
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	struct store st;
	json_t *ledger = NULL;
	char c;
	int fd;

	set_stop_handlers(SIG_DFL, NULL);
	if (read(go, &c, 1) != 1)
		_exit(1);
	close(go);
	if ((fd = open("/dev/null", O_RDWR)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	/* never use the parent's SQLite connection across fork */
	if (store_open_at(&st, a->st->dir) != 0)
		_exit(1);
	a->st = &st;
	while (finish_from_disk(a, &ledger) == RUNNER_ALIVE && now_seconds() <= deadline)
		nanosleep(&ts, NULL);
	json_decref(ledger);
	store_close(&st);
	_exit(0);
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
		if (hangup || interrupted) {
			say(a, "warrant answer was told to stop (interrupt, SIGHUP or SIGTERM)");
			a->broken = 1;
			for (; i < n; i++) {
				c = json_array_get(a->selected, i);
				json_array_append_new(a->entries, ledger_entry_not_run(str(c, "id"),
				    is_root(c) ? "root" : "user", "skipped",
				    "not run: warrant answer was told to stop"));
			}
			break;
		}
		if (stop_now(a)) {
			json_array_append_new(a->entries, ledger_entry_not_run(str(c, "id"),
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
					    str(c, "id"), is_root(c) ? "root" : "user",
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
				finalize(a, pipefd[0]);
			}
			close(pipefd[0]);
			/* the finalizer owns the attempt before anyone can see us gone */
			attempt_set_pid(a->st, a->attempt, "running", pid);
			if (write(pipefd[1], "g", 1) != 1)
				warnx_("cannot start the finalizer");
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
			if (strcmp(str(c, "id"), ids[k]) == 0)
				break;
		if (i == json_array_size(cmds)) {
			say(a, "no command '%s' in this request", ids[k]);
			return -1;
		}
	}
	a->selected = json_array();
	json_array_foreach(cmds, i, c) {
		for (k = 0; k < nids; k++)
			if (strcmp(str(c, "id"), ids[k]) == 0)
				break;
		if (nids == 0 || k < nids)
			json_array_append(a->selected, c);
	}
	return 0;
}

static int
runner_trusted(struct approval *a)
{
	struct principal anyone = { .uid = 0 };
	char why[PATH_MAX + 128];
	int rc = path_replaceable(&anyone, WARRANT_RUNNER_PATH, why, sizeof why);

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
	if (!digest_equal(sha, str(a.gate, "manifest_sha256"))) {
		say(&a, "the stored manifest no longer matches its seal");
		*code = EXIT_INTERNAL;
		result = failure(&a, "runner_error");
		goto out;
	}
	if (strcmp(str(a.gate, "state"), "pending") != 0) {
		say(&a, "the gate is %s, not pending", str(a.gate, "state"));
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
		hangup = interrupted = 0;
		if (root) {
			attempt_set(st, a.attempt, "authenticating");
			a.authenticated = 1;	/* from here on, always sudo -k */
			sudo_forget(&a);
			a.authenticated = 1;
			status = run_sudo(a.tty, (const char *const[]){ SUDO, "-v", NULL });
			/* told to stop while sudo prompted: nothing runs either */
			if (!sudo_ok(status) || interrupted || hangup) {
				int cancelled = interrupted || hangup || WIFSIGNALED(status);

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
		if (strcmp(str(result, "status"), "pending") == 0 && !a.ran_any)
			attempt_abandon(st, a.attempt, gate_id, str(result, "outcome"));
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

/* Bring the store up to date before reading it: interrupted attempts
 * recovered, then lapsed review windows expired (in that order, so an
 * attempt is settled before its gate can expire). */
int
store_refresh(struct store *st)
{
	return approve_recover(st) != 0 || store_expire(st) != 0 ? -1 : 0;
}

int
store_open_current(struct store *st)
{
	if (store_open(st) != 0)
		return -1;
	if (store_refresh(st) != 0) {
		store_close(st);
		return -1;
	}
	return 0;
}

/* Recover attempts whose executor died (DESIGN §5): one that never got to
 * run anything leaves the gate pending; one that did settles with what ran. */
int
approve_recover(struct store *st)
{
	json_t *orphans = attempts_orphaned(st), *o, *ledger;
	struct approval a;
	size_t i;

	if (orphans == NULL)
		return -1;
	json_array_foreach(orphans, i, o) {
		memset(&a, 0, sizeof a);
		a.st = st;
		a.gate_id = str(o, "gate_id");
		a.attempt = json_integer_value(json_object_get(o, "id"));
		if (strcmp(str(o, "state"), "running") != 0) {
			attempt_abandon(st, a.attempt, a.gate_id, "interrupted");
			continue;
		}
		a.gate = store_gate(st, a.gate_id, 1);
		/* without its run directory nothing is known: what may have run
		 * is said as interrupted, and it is never run again */
		a.run_fd = open(str(o, "run_dir"), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (a.gate == NULL) {
			if (a.run_fd >= 0)
				close(a.run_fd);
			continue;
		}
		a.manifest = json_object_get(a.gate, "manifest");
		a.selected = json_incref(json_object_get(o, "selected"));
		snprintf(a.sha, sizeof a.sha, "%s", str(o, "manifest_sha256"));
		a.entries = read_json_at(a.run_fd, "entries.json");
		if (!json_is_array(a.entries)) {
			json_decref(a.entries);
			a.entries = json_array();
		}
		ledger = NULL;
		if (json_is_array(a.selected))
			finish_from_disk(&a, &ledger);
		json_decref(ledger);
		if (a.run_fd >= 0)
			close(a.run_fd);
		json_decref(a.selected);
		json_decref(a.entries);
		json_decref(a.gate);
	}
	json_decref(orphans);
	return 0;
}
