/* SPDX-License-Identifier: ISC */
/*
 * warrant exec: the target side of a remote machine (docs/remote.md). The
 * reviewer's warrant calls it over ssh by its enrolled absolute path (the
 * account's shell runs it with -c, and may answer in its place: the
 * reviewer's side reads every answer as untrusted); each mode answers
 * with one JSON line on stdout.
 *   --contract   what this warrant is, and its runner's SHA-256
 *   --resolve    a request on stdin, judged here for this user (the whole
 *                intake: resolve, denylists, writability, arguments) and
 *                answered with paths and SHA-256s, or the refusal
 *   --stage      the approved manifest on stdin, into a fresh 0700
 *                directory under STATE/runs (exclusive create)
 *   --manifest F --expected-sha256 H --ledger L
 *                the authenticated run, on the terminal ssh -t gave:
 *                `sudo -k -- RUNNER --manifest … --expected-sha256 …`,
 *                exactly as `warrant answer` runs it locally; no ticket
 *   --fetch DIR  the run's ledger (or progress), then DIR is removed
 * A DIR is only ever STATE/runs/remote.XXXXXX, reached without a symlink:
 * whatever the caller names, nothing else is read, written or removed.
 * Exit status: 0 answered; 2 usage; 5 the runner is not the one named by
 * --runner-sha256; 6 staging or set-up failed (nothing ran); otherwise
 * sudo's or the runner's own status.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "warrant.h"
#include "approve/batch.h"
#include "remote/remote.h"

#define APPROVED	"approved.json"
#define MANIFEST_MAX	(8 * 1024 * 1024)

static int cmd_exec_exec(int, char **);

const struct cmd_entry cmd_exec_entry = {
	.name = "exec",
	.summary = "the target side of a remote machine, run over ssh by warrant",
	.group = CMD_ADMIN,
	.usage = "--contract | --resolve | --manifest F --expected-sha256 H --ledger L",
	.help =
	"The target side of a remote machine, called by the reviewer's warrant\n"
	"over ssh (docs/remote.md); not for people.\n\n"
	"  --contract   print this warrant's schema, version, capabilities and\n"
	"               the SHA-256 of its runner\n"
	"  --resolve    judge the request on stdin for this user; print its\n"
	"               executables' paths and SHA-256s, or the refusal\n"
	"  --manifest F --expected-sha256 H --ledger L\n"
	"               run the approved manifest F (it must hash to H) with\n"
	"               `sudo -k -- RUNNER` on this terminal; the ledger goes to L\n",
	.exec = cmd_exec_exec,
};

static void
answer(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);

	if (s != NULL) {
		printf("\n%s\n", s);
		free(s);
	}
	fflush(stdout);
	json_decref(j);
}

/* Give up: the message on stderr, {"error","message"} as the answer, and
 * the exit status code. */
static int
bail(int code, const char *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int
bail(int code, const char *err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "warrant exec: %s\n", msg);
	answer(json_pack("{s:s,s:s}", "error", err, "message", msg));
	return code;
}

/* The runner here is the one the reviewer enrolled (sha, or NULL: any). */
static int
runner_is(const char *sha)
{
	json_t *c;
	int same;

	if (sha == NULL)
		return 1;
	c = contract_local();
	same = strlen(json_str(c, "runner_sha256")) == SHA256_HEX_LEN &&
	    strlen(sha) == SHA256_HEX_LEN && digest_equal(json_str(c, "runner_sha256"), sha);
	json_decref(c);
	return same;
}

static json_t *
command_answer(const struct wcommand *c)
{
	/* the size, for the reviewer's side to compare content with its own
	 * denylisted programs (only when the sizes match, as locally) */
	return json_pack("{s:s,s:s,s:s,s:s,s:b,s:s,s:I}", "id", c->id, "path", c->exe.path,
	    "given", c->exe.given, "executable_sha256", c->sealed_at_run ? "" : c->exe.sha256,
	    "sealed_at_run", c->sealed_at_run, "cwd", c->cwd,
	    "size", (json_int_t)(c->sealed_at_run ? 0 : c->exe.st.st_size));
}

static int
do_resolve(void)
{
	struct requester rq;
	struct refusal r;
	struct wrequest q;
	char *buf;
	size_t len, i;
	json_t *cmds;
	int rc;

	if (read_bounded(STDIN_FILENO, &buf, &len, REQUEST_MAX) != 0)
		return bail(EXIT_REFUSED, "bad_input", "the request is unreadable or larger "
		    "than %d bytes", REQUEST_MAX);
	if ((rc = requester_self(&rq, &r)) != EXIT_OK) {
		free(buf);
		if (rc == EXIT_REFUSED)
			answer(json_pack("{s:o,s:o}", "contract", contract_local(), "refusal",
			    refusal_json(&r)));
		return rc;
	}
	if (request_parse(buf, len, &q, &r) != 0) {
		answer(json_pack("{s:o,s:o}", "contract", contract_local(), "refusal",
		    refusal_json(&r)));
		free(buf);
		requester_free(&rq);
		return EXIT_OK;
	}
	if (validate_request(&q, &rq, &r) != 0)
		answer(json_pack("{s:o,s:o}", "contract", contract_local(), "refusal",
		    refusal_json(&r)));
	else {
		cmds = json_array();
		for (i = 0; i < q.ncmds; i++)
			json_array_append_new(cmds, command_answer(&q.cmds[i]));
		answer(json_pack("{s:o,s:s,s:o}", "contract", contract_local(), "cwd", q.cwd,
		    "commands", cmds));
	}
	request_free(&q);
	requester_free(&rq);
	free(buf);
	return EXIT_OK;
}

/*
 * A run directory of ours, named exactly STATE/runs/remote.XXXXXX: no
 * other path (no "..", no other absolute path), no symlink on the way
 * from STATE, each a directory we own with mode 0700. Its descriptor,
 * with *runs (STATE/runs, for removing it) when runs is not NULL; or -1.
 */
static int
open_run_dir(const char *dir, int *runs)
{
	char state[PATH_MAX];
	const char *name;
	struct stat st;
	size_t n;
	int sfd, rfd, fd = -1;

	if (runs != NULL)
		*runs = -1;
	if (state_dir(state, sizeof state) != 0)
		return -1;
	n = strlen(state);
	if (strncmp(dir, state, n) != 0 || strncmp(dir + n, "/runs/", 6) != 0 ||
	    strncmp((name = dir + n + 6), "remote.", 7) != 0 || strlen(name) != 13 ||
	    strchr(name, '/') != NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((sfd = state_dir_open(state)) < 0)
		return -1;
	rfd = openat(sfd, "runs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(sfd);
	if (rfd < 0)
		return -1;
	if (fstat(rfd, &st) == 0 && st.st_uid == getuid() && (st.st_mode & 077) == 0 &&
	    (fd = openat(rfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0 &&
	    (fstat(fd, &st) != 0 || st.st_uid != getuid() || (st.st_mode & 07777) != 0700)) {
		close(fd);
		fd = -1;
		errno = EPERM;
	}
	if (fd >= 0 && runs != NULL)
		*runs = rfd;
	else
		close(rfd);
	return fd;
}

static int
do_stage(const char *runner_sha)
{
	char state[PATH_MAX], dir[PATH_MAX], *buf;
	size_t len;
	int sfd, dfd, fd;

	if (!runner_is(runner_sha))
		return bail(EXEC_CHANGED, "machine_changed", "this host's runner (%s) is not the "
		    "enrolled one", WARRANT_RUNNER_PATH);
	if (read_bounded(STDIN_FILENO, &buf, &len, MANIFEST_MAX) != 0)
		return bail(EXEC_STAGE_FAILED, "stage_failed", "the manifest is unreadable or "
		    "too large");
	umask(077);
	if (state_dir(state, sizeof state) != 0 || (sfd = state_dir_open(state)) < 0) {
		free(buf);
		return bail(EXEC_STAGE_FAILED, "stage_failed", "no state directory");
	}
	close(sfd);
	if ((size_t)snprintf(dir, sizeof dir, "%s/runs", state) >= sizeof dir ||
	    (mkdir(dir, 0700) != 0 && errno != EEXIST) ||
	    (size_t)snprintf(dir, sizeof dir, "%s/runs/remote.XXXXXX", state) >= sizeof dir ||
	    mkdtemp(dir) == NULL || (dfd = open_run_dir(dir, NULL)) < 0) {
		free(buf);
		return bail(EXEC_STAGE_FAILED, "stage_failed", "cannot make a run directory: %s",
		    strerror(errno));
	}
	fd = openat(dfd, APPROVED, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, buf, len) != 0 || fsync(fd) != 0 || close(fd) != 0) {
		free(buf);
		close(dfd);
		return bail(EXEC_STAGE_FAILED, "stage_failed", "cannot write the manifest: %s",
		    strerror(errno));
	}
	free(buf);
	close(dfd);
	answer(json_pack("{s:s,s:o}", "dir", dir, "contract", contract_local()));
	return EXIT_OK;
}

/* The manifest of a run directory: bytes that hash to sha; parsed. */
static json_t *
load_approved(int dfd, const char *sha, char *why, size_t size)
{
	char got[SHA256_HEX_LEN + 1], *buf;
	struct stat st;
	size_t len;
	json_t *m;
	int fd;

	fd = openat(dfd, APPROVED, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() ||
	    read_bounded(fd, &buf, &len, MANIFEST_MAX) != 0) {
		if (fd >= 0)
			close(fd);
		snprintf(why, size, "the staged manifest cannot be read");
		return NULL;
	}
	close(fd);
	if ((m = manifest_parse(buf, len, why, size)) == NULL) {
		free(buf);
		return NULL;
	}
	free(buf);
	free(manifest_seal(m, got));
	if (!digest_equal(got, sha)) {
		snprintf(why, size, "the staged manifest does not hash to the approved one");
		json_decref(m);
		return NULL;
	}
	return m;
}

static int
do_run(const char *file, const char *sha, const char *ledger_path, const char *runner_sha)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], why[PATH_MAX + 128], run_sha[SHA256_HEX_LEN + 1];
	const char *argv[RUNNER_ARGV_MAX];
	json_t *m, *c, *l;
	const char **ids;
	char *bytes, *slash;
	size_t i, n;
	int dfd, tty, fd, status, you = 0;

	if (!runner_is(runner_sha))
		return bail(EXEC_CHANGED, "machine_changed", "this host's runner (%s) is not the "
		    "enrolled one; nothing ran", WARRANT_RUNNER_PATH);
	if (path_replaceable(&requester_anyone, WARRANT_RUNNER_PATH, why, sizeof why) != 0)
		return bail(EXEC_STAGE_FAILED, "runner_error", "refusing to hand %s to sudo; "
		    "nothing ran", WARRANT_RUNNER_PATH);
	if (strlen(sha) != SHA256_HEX_LEN || (slash = strrchr(file, '/')) == NULL ||
	    strcmp(slash + 1, APPROVED) != 0 || (size_t)(slash - file) >= sizeof dir)
		return bail(EXIT_REFUSED, "usage", "--manifest must name a staged %s", APPROVED);
	memcpy(dir, file, (size_t)(slash - file));
	dir[slash - file] = '\0';
	if ((dfd = open_run_dir(dir, NULL)) < 0)
		return bail(EXEC_STAGE_FAILED, "stage_failed", "%s is not a run directory of "
		    "yours (STATE/runs/remote.XXXXXX, 0700, no symlink); nothing ran", dir);
	if ((m = load_approved(dfd, sha, why, sizeof why)) == NULL) {
		close(dfd);
		return bail(EXEC_STAGE_FAILED, "stage_failed", "%s; nothing ran", why);
	}
	if (json_object_get(m, "user_env") != NULL || json_object_get(m, "requester") != NULL) {
		json_decref(m);
		close(dfd);
		return bail(EXEC_STAGE_FAILED, "stage_failed", "the approved manifest carries "
		    "what only this host adds; nothing ran");
	}
	json_array_foreach(json_object_get(m, "commands"), i, c)
		if (!is_root(c))
			you = 1;
	/* what this host adds: its user's YOU environment; the requester
	 * is nobody here (anyone but root may not change what runs) */
	json_object_set_new(m, "user_env", you ? user_env_json() : json_null());
	json_object_set_new(m, "requester", json_null());
	if ((bytes = manifest_seal(m, run_sha)) == NULL ||
	    (fd = openat(dfd, RUN_MANIFEST, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) < 0 || write_all(fd, bytes, strlen(bytes)) != 0 ||
	    fsync(fd) != 0 || close(fd) != 0) {
		free(bytes);
		json_decref(m);
		close(dfd);
		return bail(EXEC_STAGE_FAILED, "stage_failed", "cannot write the run manifest; "
		    "nothing ran");
	}
	free(bytes);
	if ((tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		json_decref(m);
		close(dfd);
		return bail(EXEC_STAGE_FAILED, "missing_tty", "no terminal for sudo's prompt "
		    "(ssh -t); nothing ran");
	}
	snprintf(path, sizeof path, "%s/%s", dir, RUN_MANIFEST);
	runner_argv(argv, path, run_sha, 0, 0);
	sudo_forget();
	status = run_sudo(tty, argv, NULL, 0);
	sudo_forget();
	close(tty);
	/* the runner's ledger, checked as answer checks it, redacted, copied
	 * to L */
	n = json_array_size(json_object_get(m, "commands"));
	ids = xcalloc(n + 1, sizeof *ids);
	json_array_foreach(json_object_get(m, "commands"), i, c)
		ids[i] = json_str(c, "id");
	l = read_record(dfd, RUN_LEDGER);
	if (l != NULL && ledger_check(l, json_str(m, "request_id"), sha, ids, n, why,
	    sizeof why) == 0) {
		int lfd;

		redact_json(l);
		slash = strrchr(ledger_path, '/');
		if (slash == NULL || (size_t)(slash - ledger_path) != strlen(dir) ||
		    strncmp(ledger_path, dir, strlen(dir)) != 0 ||
		    (lfd = openat(dfd, slash + 1, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600)) < 0)
			warnx("the ledger stays in %s/%s (--ledger must name a new file there)",
			    dir, RUN_LEDGER);
		else {
			bytes = json_dumps(l, JSON_COMPACT);
			if (bytes == NULL || write_all(lfd, bytes, strlen(bytes)) != 0)
				warnx("cannot write %s", ledger_path);
			free(bytes);
			close(lfd);
		}
	}
	json_decref(l);
	free(ids);
	json_decref(m);
	close(dfd);
	if (status == -1)
		return 127;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int
do_fetch(const char *dir)
{
	json_t *ledger, *progress;
	struct stat st;
	int dfd, rfd, started;

	if ((dfd = open_run_dir(dir, &rfd)) < 0)
		return bail(EXEC_STAGE_FAILED, "fetch_failed", "%s is not a run directory of "
		    "yours (STATE/runs/remote.XXXXXX, 0700, no symlink): left as it is", dir);
	ledger = read_record(dfd, RUN_LEDGER);
	progress = read_record(dfd, RUN_PROGRESS);
	started = fstatat(dfd, RUN_MANIFEST, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (runner_live(dfd)) {
		json_decref(ledger);
		json_decref(progress);
		close(dfd);
		close(rfd);
		return bail(EXEC_STAGE_FAILED, "execution_in_progress", "the runner still runs");
	}
	/* only the runner's own records count: root-owned */
	if (ledger != NULL && (fstatat(dfd, RUN_LEDGER, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    st.st_uid != 0)) {
		json_decref(ledger);
		ledger = NULL;
	}
	if (progress != NULL && (fstatat(dfd, RUN_PROGRESS, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    st.st_uid != 0)) {
		json_decref(progress);
		progress = NULL;
	}
	close(dfd);
	/* the runner recorded output and paths as they were: nothing of it
	 * leaves this machine unredacted */
	redact_json(ledger);
	redact_json(progress);
	/* the directory and what the run left in it (stage_remove: no
	 * symlink is followed) */
	if (stage_remove(rfd, strrchr(dir, '/') + 1) != 0)
		warn("cannot remove %s", dir);
	close(rfd);
	answer(json_pack("{s:o,s:o,s:b}", "ledger", ledger != NULL ? ledger : json_null(),
	    "progress", progress != NULL ? progress : json_null(), "started", started));
	return EXIT_OK;
}

static int
cmd_exec_exec(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "contract", no_argument, NULL, 'c' },
		{ "resolve", no_argument, NULL, 'r' },
		{ "stage", no_argument, NULL, 's' },
		{ "fetch", required_argument, NULL, 'f' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "expected-sha256", required_argument, NULL, 'e' },
		{ "ledger", required_argument, NULL, 'l' },
		{ "runner-sha256", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	const char *manifest = NULL, *sha = NULL, *ledger = NULL, *runner = NULL, *fetch = NULL;
	int ch, mode = 0, modes = 0;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': case 'r': case 's':
			mode = ch;
			modes++;
			break;
		case 'f':
			fetch = optarg;
			mode = ch;
			modes++;
			break;
		case 'm':
			manifest = optarg;
			mode = ch;
			modes++;
			break;
		case 'e':
			sha = optarg;
			break;
		case 'l':
			ledger = optarg;
			break;
		case 'R':
			runner = optarg;
			break;
		default:
			return usage_error(&cmd_exec_entry, NULL);
		}
	}
	if (optind != argc || modes != 1)
		return usage_error(&cmd_exec_entry, "give exactly one mode");
	switch (mode) {
	case 'c':
		answer(contract_local());
		return EXIT_OK;
	case 'r':
		return do_resolve();
	case 's':
		return do_stage(runner);
	case 'f':
		return do_fetch(fetch);
	default:
		if (sha == NULL || ledger == NULL)
			return usage_error(&cmd_exec_entry, "--manifest needs --expected-sha256 "
			    "and --ledger");
		return do_run(manifest, sha, ledger, runner);
	}
}
