/* SPDX-License-Identifier: ISC */
/*
 * warrant-runner: the part of warrant that runs as root, and only when
 * sudo started it (it starts warrant-logship, src/logship/, once a batch
 * is over). sudo authenticates this very invocation (`sudo -k
 * -- warrant-runner …`) and caches nothing, so there is never a ticket to
 * ride; the runner then runs the whole approved batch in request order:
 * ROOT commands as run_as, YOU commands dropped back to the sudo user with
 * the environment `warrant answer` built.
 *
 * It trusts nothing it is handed that it cannot verify: the run manifest
 * must sit in a 0700 directory owned by the sudo user, hash to the value
 * on its argv (compared in constant time), be canonical and well formed;
 * sudoers must allow the sudo user every ROOT command as run_as; every
 * executable is re-hashed through the descriptor it is then executed
 * from. Anything refused runs nothing. An executable sealed at run time
 * (an earlier command of the batch installs it) is judged just before
 * its command starts instead, by the request's rules, and the hash that
 * ran goes into the ledger and the root log.
 *
 * Reviewed files are staged before anything runs: each one's sealed
 * content, hard-linked into the run directory as blob-HEX by `answer`, is
 * copied into a fresh directory — root's (run_as's) under /run for ROOT
 * commands, the reviewer's RUN_DIR/files for YOU commands — and re-hashed
 * on the way; one that does not match refuses the whole batch. The
 * staging directories are removed when the runner ends, whatever happened.
 *
 * Under the two-person rule (approvals.c), the other reviewers' approvals
 * of exactly this subset must be in the spool before anything else.
 *
 * Its records in the run directory are root-owned, so nobody else can
 * forge them: runner.lock (held while the runner lives), started.json,
 * progress.json (made durable before each command starts) and
 * ledger.json. Every command runs in its own session with no terminal.
 * Each ROOT command's output is also kept as a sudo I/O log session
 * (iolog.c); a batch with one does not start when that log cannot be.
 *
 * The whole batch is bounded: from the runner's start, the sum of the
 * commands' timeouts plus 30 s. At that deadline the command in hand is
 * killed (its group, SIGKILL) and no other starts; the ledger says so.
 *
 * Parse, check, run, record, as doas does, and no more: output tails and
 * the names the supervisor met go into the records as they were
 * (bounded, valid UTF-8 for JSON). Credential redaction and display
 * neutralisation are the unprivileged finisher's, before anything is
 * stored, shown or handed to the agent (docs/execution.md, "Redaction"):
 * the records sit in the reviewer's own 0700 run directory, and the
 * reviewer just authenticated as root for this batch. The runner links
 * neither libunistring nor the credential shapes (meson test
 * runner-links). Each ROOT command also gets one syslog line
 * (LOG_AUTHPRIV, tag "warrant").
 *
 * usage: warrant-runner --manifest FILE --expected-sha256 HEX [--detach]
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <syslog.h>

#include "root.h"
#include "confine/supervise.h"
#include "runner.h"
#include "iolog.h"

#define MANIFEST_MAX	(4 * 1024 * 1024)
#define OUTPUT_LOG_MAX	(64ULL * 1024 * 1024)
#define POLICY_BATCH	16	/* sudoers questions asked at once */
#define USAGE		"usage: warrant-runner [passkey] --manifest FILE --expected-sha256 HEX " \
			"[--detach]"

struct runner {
	uid_t		 sudo_uid;
	gid_t		 sudo_gid;
	char		 sudo_user[64];
	int		 dfd;			/* the run directory */
	char		 run_dir[PATH_MAX];
	json_t		*manifest;
	const char	*run_sha;		/* of the run manifest, from argv */
	char		 sha[SHA256_HEX_LEN + 1];	/* seal of the approved subset */
	const char	*request_id;
	char		 target_name[64], target_home[PATH_MAX];	/* run_as */
	struct spawn_cred target_cred, sudo_cred;	/* uid, gid, groups */
	size_t		 n;
	char		***argv;		/* per command, files staged */
	char		 stage_root[PATH_MAX];	/* ROOT commands' files, or "" */
	char		 stage_you[PATH_MAX];	/* YOU commands' files, or "" */
	int		*exefd;
	char		(*atrun_path)[PATH_MAX];	/* sealed at run time: what ran */
	char		(*atrun_sha)[SHA256_HEX_LEN + 1];
	struct writer	 requester;		/* who asked; uid 0: anyone but root */
	struct tp_policy tp;			/* the two-person rule */
	gid_t		*requester_groups;	/* all of them: none is dropped */
	int		 unconfined;		/* the supervisor is missing; policy allows it */
	char		**root_env, **user_env;
	const char	*refused_why;
	size_t		 refused_at;
	struct iolog_host io_host;		/* ROOT commands' I/O log (iolog.c) */
	int64_t		 deadline_ms;		/* monotonic: start + batch_bound() */
	struct run_watch watch;			/* the reviewer's stop, live output */
	int		 passkey;		/* approved with the sudo user's passkey */
};

/* SIGHUP, SIGTERM, SIGINT, SIGQUIT: finish the command in hand, start no
 * other, still write the ledger. */
static volatile sig_atomic_t stop_requested;
static sigset_t job_control;	/* ignored here and in every command */

/* The staging directories, removed at exit by the process that owns
 * them (after a detach, the child that runs the batch). */
static struct {
	pid_t	 owner;
	char	 root[PATH_MAX];
	int	 rundfd;
} staged = { 0, "", -1 };

static void
on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void
signals(void)
{
	static const int stop[] = { SIGHUP, SIGTERM, SIGINT, SIGQUIT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	for (i = 0; i < sizeof stop / sizeof stop[0]; i++)
		sigaction(stop[i], &sa, NULL);
	/* a stopped runner would enforce no timeout */
	sigemptyset(&job_control);
	sigaddset(&job_control, SIGTSTP);
	sigaddset(&job_control, SIGTTIN);
	sigaddset(&job_control, SIGTTOU);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

static unsigned long
env_number(const char *name)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (s == NULL || *s < '0' || *s > '9')
		errx(RUNNER_REFUSED, "refusing: not started by sudo (%s is missing)", name);
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0')
		errx(RUNNER_REFUSED, "refusing: %s is not a number", name);
	return v;
}

/* Open the run directory and the manifest in it; both must belong to the
 * sudo user and the directory must be closed to everyone else. */
static char *
read_manifest(struct runner *r, const char *path, size_t *len)
{
	char dir[PATH_MAX], *slash, *buf;
	struct stat st;
	ssize_t got;
	int fd;

	if (path[0] != '/' || strlen(path) >= sizeof dir)
		errx(RUNNER_REFUSED, "the manifest path must be absolute");
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	strcpy(r->run_dir, *dir ? dir : "/");
	if ((r->dfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		errx(RUNNER_REFUSED, "run directory %s: %s", dir, strerror(errno));
	if (fstat(r->dfd, &st) != 0 || st.st_uid != r->sudo_uid || (st.st_mode & 07777) != 0700)
		errx(RUNNER_REFUSED, "run directory %s must be owned by uid %u with mode 0700",
		    dir, (unsigned)r->sudo_uid);
	fd = openat(r->dfd, slash + 1, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0)
		errx(RUNNER_REFUSED, "manifest %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_uid != r->sudo_uid || st.st_size > MANIFEST_MAX)
		errx(RUNNER_REFUSED, "manifest %s must be a regular file of the sudo user", path);
	buf = xmalloc((size_t)st.st_size + 1);
	got = read(fd, buf, (size_t)st.st_size + 1);
	if (got != st.st_size)
		errx(RUNNER_REFUSED, "manifest %s: short read", path);
	buf[got] = '\0';
	close(fd);
	*len = (size_t)got;
	return buf;
}

static const char *
str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int
is_root(const json_t *c)
{
	return strcmp(str(c, "as"), "root") == 0;
}

/* An executable sealed at run time (it did not exist at request time). */
static int
at_run(const json_t *c)
{
	return json_is_true(json_object_get(c, "sealed_at_run"));
}

/* Ask sudoers whether the sudo user may run this command as run_as:
 * start `sudo -n -l -U USER -u RUN_AS -- PATH ARGS`; returns its pid. */
static pid_t
policy_start(const struct runner *r, const json_t *c, size_t idx)
{
	json_t *argv = json_object_get(c, "argv");
	size_t n = json_array_size(argv), i, k = 0;
	const char **av = xcalloc(n + 10, sizeof *av);
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
	struct spawn s = { .path = SUDO_PATH, .argv = (char *const *)av, .envp = envp,
	    .fd = { -1, -1, -1 }, .group = EXEC_FOREGROUND };
	pid_t pid;

	av[k++] = SUDO_PATH;
	av[k++] = "-n";
	av[k++] = "-l";
	av[k++] = "-U";
	av[k++] = r->sudo_user;
	av[k++] = "-u";
	av[k++] = r->target_name;
	av[k++] = "--";
	av[k++] = str(c, "path");
	for (i = 1; i < n; i++)
		av[k++] = r->argv[idx][i];
	pid = spawn(&s);	/* -1: the policy cannot be asked */
	free(av);
	return pid;
}

static int
policy_allows(pid_t pid)
{
	int status;

	if (pid < 0)
		return 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The policy's answer for every ROOT command, asked a batch at a time.
 * Returns the index of the first command sudoers does not allow, or n. */
static size_t
policy_check(const struct runner *r)
{
	json_t *cmds = json_object_get(r->manifest, "commands");
	size_t idx[POLICY_BATCH], i = 0, j, k, refused = r->n;
	pid_t pids[POLICY_BATCH];

	while (i < r->n && refused == r->n) {
		for (k = 0; i < r->n && k < POLICY_BATCH; i++)
			/* one sealed at run time is asked just before it runs */
			if (is_root(json_array_get(cmds, i)) && !at_run(json_array_get(cmds, i))) {
				idx[k] = i;
				if ((pids[k++] = policy_start(r, json_array_get(cmds, i), i)) < 0)
					err(RUNNER_REFUSED, "cannot start sudo -l");
			}
		for (j = 0; j < k; j++)
			if (!policy_allows(pids[j]) && idx[j] < refused)
				refused = idx[j];
	}
	return refused;
}

/* The requester's groups now, not only when it asked: every group a
 * process of its uid holds (an old session keeps one the account lost). */
static void
live_groups(struct runner *r)
{
	gid_t *live;
	int n = r->requester.ngroups;

	if (r->requester.uid == 0)
		return;	/* no requester: anyone but root is judged */
	live = requester_groups_live(r->requester.uid, r->requester_groups, &n);
	free(r->requester_groups);
	r->requester_groups = live;
	r->requester.groups = live;
	r->requester.ngroups = n;
}

/* Could the requester change what this word names now (an absolute path,
 * or the one after '=' in NAME=/x or --opt=/x), as root would resolve it?
 * What cannot be judged counts as changeable. */
static int
word_changeable(const struct writer *w, const char *word, char *why, size_t size)
{
	const char *eq;
	int rc;

	if (word == NULL)
		return 0;	/* a reviewed file, staged root-owned */
	eq = strchr(word, '=');
	if (word[0] != '/' && eq != NULL && eq[1] == '/')
		word = eq + 1;
	if (word[0] != '/')
		return 0;
	if ((rc = path_changeable(w, word, why, size)) < 0)
		snprintf(why, size, "%s cannot be checked for who may change it", word);
	return rc != 0;
}

/*
 * Could the requester (the uid that asked, with all its groups) change
 * what ROOT command c runs or names now: its executable, an argv path,
 * an env value, the cwd? Request-time checks are a snapshot, and an
 * earlier command may have opened a path up; asked before anything runs
 * and again just before c starts. 1 with the reason in why, or 0.
 */
static int
changeable_now(const struct runner *r, const json_t *c, size_t idx, char *why, size_t size)
{
	const struct writer *w = &r->requester;
	const char *key, *word;
	json_t *v;
	size_t j, n = json_array_size(json_object_get(c, "argv"));
	int entry = acts_on_entry(base_name(str(c, "path")), (const char *const *)r->argv[idx], n);

	/* with no requester (a remote batch: the target knows none), w is
	 * uid 0: anyone but root may be the one that asked */
	if (!at_run(c) && word_changeable(w, str(c, "path"), why, size))
		return 1;
	json_array_foreach(json_object_get(c, "argv"), j, v) {
		if (j == 0 || (word = json_string_value(v)) == NULL)
			continue;	/* a reviewed file is staged root-owned */
		if (entry && word[0] == '/') {
			/* an operand of rm or chown -R: the way to it */
			if (entry_way_changeable(w, word, why, size) != 0)
				return 1;
		} else if (word_changeable(w, word, why, size))
			return 1;
	}
	json_object_foreach(json_object_get(r->manifest, "env"), key, v)
		if (word_changeable(w, json_string_value(v), why, size))
			return 1;
	return word_changeable(w, str(r->manifest, "cwd"), why, size);
}

/* The index of the first ROOT command the requester could change, or n. */
static size_t
requester_can_change(const struct runner *r)
{
	char why[PATH_MAX + 256];
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(r->manifest, "commands"), i, c)
		if (is_root(c) && changeable_now(r, c, i, why, sizeof why))
			return i;
	return r->n;
}

/* Before anything runs: policy for every ROOT command, then every
 * executable opened and hashed (but those sealed at run time: run_all
 * judges each just before it starts). The first refusal stops it all. */
static void
verify_commands(struct runner *r)
{
	json_t *cmds = json_object_get(r->manifest, "commands"), *c;
	size_t i;

	r->exefd = xcalloc(r->n, sizeof *r->exefd);
	r->atrun_path = xcalloc(r->n, sizeof *r->atrun_path);
	r->atrun_sha = xcalloc(r->n, sizeof *r->atrun_sha);
	for (i = 0; i < r->n; i++)
		r->exefd[i] = -1;
	if ((i = policy_check(r)) < r->n) {
		r->refused_why = "sudoers does not allow this command for the reviewer";
		r->refused_at = i;
		return;
	}
	if ((i = requester_can_change(r)) < r->n) {
		r->refused_why = "the requester can change its executable or a path it names, "
		    "since the request was made";
		r->refused_at = i;
		return;
	}
	json_array_foreach(cmds, i, c) {
		if (at_run(c))
			continue;
		if ((r->exefd[i] = exe_open_sealed(str(c, "path"),
		    str(c, "executable_sha256"))) < 0) {
			r->refused_why = "the executable changed since it was reviewed";
			r->refused_at = i;
			return;
		}
	}
}

/* At exit of the process that owns them: the staging directories go,
 * with whatever the batch left in them. */
static void
unstage(void)
{
	char parent[PATH_MAX], *slash;
	int fd;

	if (staged.owner == 0 || getpid() != staged.owner)
		return;
	if (staged.root[0] != '\0') {
		strcpy(parent, staged.root);
		slash = strrchr(parent, '/');
		*slash = '\0';
		if ((fd = open(parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
		    stage_remove(fd, slash + 1) != 0)
			warnx("cannot remove %s", staged.root);
		if (fd >= 0)
			close(fd);
	}
	if (staged.rundfd >= 0 && stage_remove(staged.rundfd, RUN_FILES) != 0)
		warnx("cannot remove the staged files in %s", RUN_FILES);
}

/* Copy the files that commands of one kind name into dfd, owned by
 * uid:gid; a file not matching its seal refuses the whole batch. */
static void
stage_into(const struct runner *r, int dfd, int root, uid_t uid, gid_t gid)
{
	json_t *files = json_object_get(r->manifest, "files"), *c, *a, *f;
	char blob[SHA256_HEX_LEN + 8];
	const char *name;
	size_t i, j;
	mode_t mode;
	int rc;

	json_array_foreach(json_object_get(r->manifest, "commands"), i, c) {
		if (is_root(c) != root)
			continue;
		json_array_foreach(json_object_get(c, "argv"), j, a) {
			if ((name = file_ref(a)) == NULL)
				continue;
			f = json_object_get(files, name);
			if (file_mode_parse(str(f, "mode"), &mode) != 0)
				errx(RUNNER_REFUSED, "refusing: file '%s' has a bad mode", name);
			snprintf(blob, sizeof blob, RUN_BLOB, str(f, "sha256"));
			rc = stage_copy(r->dfd, blob, dfd, name, str(f, "sha256"),
			    (uint64_t)json_integer_value(json_object_get(f, "size")), mode, uid, gid);
			if (rc > 0)
				errx(RUNNER_REFUSED, "refusing: file '%s' does not match its seal "
				    "(sha256 %s); nothing ran", name, str(f, "sha256"));
			if (rc < 0 && errno != EEXIST)	/* named twice: staged once */
				err(RUNNER_REFUSED, "refusing: cannot stage file '%s'", name);
		}
	}
}

/*
 * The files the commands name, before anything is checked or run: those
 * of ROOT commands in a fresh 0700 directory under STAGE_ROOT owned by
 * run_as (root, usually), those of YOU commands in RUN_DIR/files owned by
 * the reviewer; each re-hashed as it is copied. Then every command's argv
 * with the staged paths.
 */
static void
stage(struct runner *r)
{
	json_t *cmds = json_object_get(r->manifest, "commands"), *c;
	int need_root = 0, need_you = 0, dfd;
	struct stat st;
	size_t i;

	json_array_foreach(cmds, i, c)
		if (argv_has_files(json_object_get(c, "argv")))
			*(is_root(c) ? &need_root : &need_you) = 1;
	staged.owner = getpid();
	if (atexit(unstage) != 0)
		errx(RUNNER_REFUSED, "refusing: cannot arrange to remove staged files");
	if (need_root) {
		if (mkdir(STAGE_ROOT, 0711) != 0 && errno != EEXIST)
			err(RUNNER_REFUSED, "refusing: cannot create %s", STAGE_ROOT);
		if (lstat(STAGE_ROOT, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
		    (st.st_mode & 022) != 0)
			errx(RUNNER_REFUSED, "refusing: %s must be a directory of root's that "
			    "only root can write", STAGE_ROOT);
		/* run_as passes through to its own directory, lists nothing */
		if ((st.st_mode & 07777) != 0711 && chmod(STAGE_ROOT, 0711) != 0)
			err(RUNNER_REFUSED, "refusing: cannot make %s mode 0711", STAGE_ROOT);
		snprintf(r->stage_root, sizeof r->stage_root, "%s/batch.XXXXXX", STAGE_ROOT);
		if (mkdtemp(r->stage_root) == NULL)
			err(RUNNER_REFUSED, "refusing: cannot create a directory in %s", STAGE_ROOT);
		strcpy(staged.root, r->stage_root);
		if ((dfd = open(r->stage_root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
		    fchown(dfd, r->target_cred.uid, r->target_cred.gid) != 0 || fchmod(dfd, 0700) != 0)
			err(RUNNER_REFUSED, "refusing: cannot prepare %s", r->stage_root);
		stage_into(r, dfd, 1, r->target_cred.uid, r->target_cred.gid);
		close(dfd);
	}
	if (need_you) {
		if (mkdirat(r->dfd, RUN_FILES, 0700) != 0)
			err(RUNNER_REFUSED, "refusing: cannot create %s/%s", r->run_dir, RUN_FILES);
		staged.rundfd = r->dfd;
		if ((dfd = openat(r->dfd, RUN_FILES, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) < 0 || fstat(dfd, &st) != 0 || st.st_uid != 0 ||
		    fchown(dfd, r->sudo_uid, r->sudo_gid) != 0 || fchmod(dfd, 0700) != 0)
			errx(RUNNER_REFUSED, "refusing: cannot prepare %s/%s", r->run_dir, RUN_FILES);
		stage_into(r, dfd, 0, r->sudo_uid, r->sudo_gid);
		close(dfd);
		if ((size_t)snprintf(r->stage_you, sizeof r->stage_you, "%s/%s", r->run_dir,
		    RUN_FILES) >= sizeof r->stage_you)
			errx(RUNNER_REFUSED, "refusing: the run directory's path is too long");
	}
	r->argv = xcalloc(r->n, sizeof *r->argv);
	json_array_foreach(cmds, i, c)
		if ((r->argv[i] = argv_strings(json_object_get(c, "argv"), is_root(c) ?
		    (*r->stage_root ? r->stage_root : NULL) :
		    (*r->stage_you ? r->stage_you : NULL))) == NULL)
			errx(RUNNER_REFUSED, "refusing: command %zu names a file not staged", i);
}

/* "NAME=VALUE" replacing any entry of the same name. */
static void
env_set(char **envp, size_t *k, const char *name, size_t len, const char *value)
{
	size_t i;
	char *s;

	if (asprintf(&s, "%.*s=%s", (int)len, name, value) < 0)
		errx(RUNNER_REFUSED, "out of memory");
	for (i = 0; i < *k; i++)
		if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
			break;
	if (i < *k)
		free(envp[i]);
	else
		(*k)++;
	envp[i] = s;
}

/* ROOT commands: a clean base, then the reviewed env. HOME is always
 * run_as's own: root never reads a home the agent picked. */
static char **
root_env(const struct runner *r)
{
	json_t *env = json_object_get(r->manifest, "env"), *v;
	char **envp = xcalloc(json_object_size(env) + 8, sizeof *envp);
	const char *term = getenv("TERM"), *key;
	size_t k = 0;

	if (term == NULL || strlen(term) > 64 || strpbrk(term, "/ ") != NULL)
		term = "dumb";
	json_object_foreach(env, key, v)
		env_set(envp, &k, key, strlen(key), json_string_value(v));
	env_set(envp, &k, "PATH", 4, TRUSTED_PATH);
	env_set(envp, &k, "LC_ALL", 6, "C");
	env_set(envp, &k, "LANG", 4, "C");
	env_set(envp, &k, "TERM", 4, term);
	env_set(envp, &k, "HOME", 4, r->target_home);
	env_set(envp, &k, "USER", 4, r->target_name);
	env_set(envp, &k, "LOGNAME", 7, r->target_name);
	return envp;
}

/* Every directory of a YOU command's PATH: absolute, not world-writable. */
static int
safe_path(const char *value)
{
	char *copy = xstrdup(value), *dir, *save = NULL;
	struct stat st;
	int ok = 1;

	for (dir = strtok_r(copy, ":", &save); dir != NULL && ok; dir = strtok_r(NULL, ":", &save))
		ok = dir[0] == '/' && (stat(dir, &st) != 0 || (st.st_mode & S_IWOTH) == 0);
	free(copy);
	return ok;
}

/* YOU commands: the environment `answer` built, re-checked here. */
static char **
user_env(const struct runner *r)
{
	json_t *ue = json_object_get(r->manifest, "user_env"), *v;
	char **envp = xcalloc(json_array_size(ue) + 1, sizeof *envp);
	const char *s, *eq;
	size_t i, k = 0;
	json_t *c;

	json_array_foreach(json_object_get(r->manifest, "commands"), i, c)
		if (!is_root(c) && !json_is_array(ue))
			errx(RUNNER_REFUSED, "refusing: YOU commands without their environment");

	json_array_foreach(ue, i, v) {
		s = json_string_value(v);
		eq = strchr(s, '=');
		if (eq == s || (eq - s == 4 && strncmp(s, "PATH", 4) == 0 ? !safe_path(eq + 1) :
		    user_env_forbidden(strndupa(s, (size_t)(eq - s)))))
			errx(RUNNER_REFUSED, "refusing: the YOU environment sets %.*s",
			    (int)(eq - s), s);
		env_set(envp, &k, s, (size_t)(eq - s), eq + 1);
	}
	return envp;
}

/* One line per ROOT command for the system's log, as sudo and doas
 * write: who, which request, as whom, what ran and how it ended. Bytes
 * outside printable ASCII in the path become '?'. Where the systemd
 * journal runs, the same line goes there with fields of its own
 * (WARRANT_REQUEST, WARRANT_MANIFEST, WARRANT_COMMAND_ID, WARRANT_EXIT,
 * WARRANT_ARGV as JSON, ...; docs/audit.md) instead of through syslog. */
static void
syslog_command(const struct runner *r, const json_t *line, const json_t *entry)
{
	const char *path = str(line, "path");
	char safe[PATH_MAX], msg[PATH_MAX + 512], exit_code[24], uid[16], pid[16];
	char *argv = json_dumps(json_object_get(line, "argv"), JSON_COMPACT);
	size_t i;

	snprintf(safe, sizeof safe, "%s", path);
	for (i = 0; safe[i] != '\0'; i++)
		if ((unsigned char)safe[i] < 0x20 || (unsigned char)safe[i] >= 0x7f)
			safe[i] = '?';
	snprintf(exit_code, sizeof exit_code, "%lld",
	    (long long)json_integer_value(json_object_get(entry, "exit_code")));
	snprintf(msg, sizeof msg, "%s ran as %s: request %s command %s %s: %s (exit %s, %zu refused)%s",
	    r->sudo_user, r->target_name, r->request_id, str(line, "id"), safe,
	    str(entry, "status"), exit_code, json_array_size(json_object_get(json_object_get(
	    entry, "confinement"), "refused")), r->passkey ? ", approved with a passkey" : "");
	snprintf(uid, sizeof uid, "%d", (int)r->sudo_uid);
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	const char *const fields[] = { "MESSAGE", msg, "PRIORITY", "5",
	    "SYSLOG_FACILITY", "10", "SYSLOG_IDENTIFIER", "warrant", "SYSLOG_PID", pid,
	    "WARRANT_REQUEST", r->request_id, "WARRANT_MANIFEST", r->sha,
	    "WARRANT_COMMAND_ID", str(line, "id"), "WARRANT_STATUS", str(entry, "status"),
	    "WARRANT_EXIT", json_is_integer(json_object_get(entry, "exit_code")) ? exit_code : "",
	    "WARRANT_RUN_AS", r->target_name, "WARRANT_SUDO_USER", r->sudo_user,
	    "WARRANT_SUDO_UID", uid, "WARRANT_PATH", path,
	    "WARRANT_EXECUTABLE_SHA256", str(line, "executable_sha256"),
	    "WARRANT_ARGV", argv != NULL ? argv : "", NULL };

	if (journal_send(fields) != 0)
		syslog(LOG_NOTICE, "%s", msg);
	free(argv);
}

static void
root_log(const struct runner *r, const json_t *c, size_t idx, const json_t *entry,
    const char *iolog_error)
{
	json_t *argv = json_array(), *files = json_object(), *a, *line;
	const char *name;
	struct stat st;
	size_t i;
	char *s;
	int fd;

	/* argv as it ran, and the files it named by their seal */
	json_array_foreach(json_object_get(c, "argv"), i, a) {
		json_array_append_new(argv, json_string(r->argv[idx][i]));
		if ((name = file_ref(a)) != NULL)
			json_object_set(files, name, json_object_get(json_object_get(
			    json_object_get(r->manifest, "files"), name), "sha256"));
	}
	line = json_pack("{s:I,s:s,s:s,s:s,s:s,s:i,s:s,s:O,s:O,s:O,s:o,s:o,s:O,s:O,s:O,s:O}",
	    "at", (json_int_t)now_seconds(), "request_id", r->request_id,
	    "manifest_sha256", r->sha, "run_manifest_sha256", r->run_sha,
	    "sudo_user", r->sudo_user, "sudo_uid", (int)r->sudo_uid,
	    "run_as", r->target_name,
	    "id", json_object_get(c, "id"), "path", at_run(c) ?
	    json_object_get(entry, "path") : json_object_get(c, "path"),
	    "executable_sha256", at_run(c) ? json_object_get(entry, "executable_sha256") :
	    json_object_get(c, "executable_sha256"),
	    "argv", argv, "files", files, "status", json_object_get(entry, "status"),
	    "exit_code", json_object_get(entry, "exit_code"),
	    "duration_ms", json_object_get(entry, "duration_ms"),
	    "output_bytes", json_object_get(entry, "output_bytes"));
	if (at_run(c))
		json_object_set_new(line, "sealed_at_run", json_true());
	if (r->passkey)
		json_object_set_new(line, "approved_with", json_string("passkey"));
	json_object_set(line, "iolog", json_object_get(entry, "iolog"));
	if (iolog_error != NULL && *iolog_error != '\0')
		json_object_set_new(line, "iolog_error", json_string(iolog_error));
	s = json_dumps(line, JSON_COMPACT);
	syslog_command(r, line, entry);
	json_decref(line);
	fd = open(WARRANT_ROOT_LOG, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0) {
		/* a log others can read gets no line until it is root's alone */
		if ((st.st_mode & 077) != 0 && fchmod(fd, 0600) != 0)
			warn("%s is readable by others and cannot be made 0600; this command "
			    "is not logged there", WARRANT_ROOT_LOG);
		else if (s != NULL && (write_all(fd, s, strlen(s)) != 0 ||
		    write_all(fd, "\n", 1) != 0))
			warn("%s", WARRANT_ROOT_LOG);
	} else
		warnx("cannot append to %s", WARRANT_ROOT_LOG);
	if (fd >= 0)
		close(fd);
	free(s);
}

/* One of the runner's records: root-owned, readable by the reviewer,
 * atomic, and durable when the next step depends on it. */
static int
record(const struct runner *r, const char *name, const json_t *j, int durable)
{
	if (json_write_atomic(r->dfd, name, j, (uid_t)-1, (gid_t)-1, 0644, durable) == 0)
		return 0;
	warn("cannot write %s", name);
	return -1;
}

static int
record_entries(const struct runner *r, const char *name, json_t *entries, int durable)
{
	json_t *l = ledger_new(r->request_id, r->sha, "completed", json_incref(entries), NULL),
	    *stopped = run_watch_record(&r->watch);
	int rc;

	if (stopped != NULL)	/* who stopped the batch, and when it was heard */
		json_object_set_new(l, "stopped", stopped);
	if (r->passkey)
		json_object_set_new(l, "approved_with", json_string("passkey"));
	rc = record(r, name, l, durable);
	json_decref(l);
	return rc;
}

static int
open_log(const struct runner *r, size_t i)
{
	char name[64];
	int fd;

	snprintf(name, sizeof name, RUN_OUTPUT, i);
	fd = openat(r->dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && fchown(fd, r->sudo_uid, r->sudo_gid) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A ROOT command's I/O log session, before it starts (iolog.c). NULL, or
 * the entry of a command that could not start without one. */
static json_t *
open_iolog(const struct runner *r, const json_t *c, size_t i, struct iolog *io)
{
	struct iolog_info in = {
		.command = at_run(c) ? r->atrun_path[i] : str(c, "path"), .argv = r->argv[i],
		.cwd = str(r->manifest, "cwd"), .submituser = r->sudo_user,
		.runuser = r->target_name, .runuid = r->target_cred.uid,
		.rungid = r->target_cred.gid, .request_id = r->request_id,
		.command_id = str(c, "id"),
	};
	char why[PATH_MAX + 256], msg[sizeof why + 64];

	if (iolog_open(io, &r->io_host, &in, why, sizeof why) == 0)
		return NULL;
	snprintf(msg, sizeof msg, "could not start: no I/O log (%s)", why);
	return ledger_entry_not_run(str(c, "id"), str(c, "as"), "failed", msg);
}

static json_t *
run_one(struct runner *r, const json_t *c, size_t i, struct capture *cap)
{
	json_t *t = json_object_get(c, "timeout_seconds"), *e;
	struct exec_result res;
	struct supervisor sv;
	struct exec_spec x;
	struct iolog io;

	memset(&x, 0, sizeof x);
	x.exefd = r->exefd[i];
	x.argv = r->argv[i];
	x.group = EXEC_SESSION;	/* no terminal: nothing reaches the reviewer's */
	x.ignore = &job_control;
	x.timeout = json_is_integer(t) ? (long)json_integer_value(t) : DEFAULT_TIMEOUT;
	x.deadline_ms = r->deadline_ms;
	x.tick = run_watch_tick;	/* the reviewer's stop; the live output */
	x.tick_arg = &r->watch;
	run_watch_command(&r->watch, str(c, "id"));
	if (is_root(c)) {
		x.envp = r->root_env;
		x.cwd = str(r->manifest, "cwd");
		x.cred = &r->target_cred;
		if ((e = open_iolog(r, c, i, &io)) != NULL)
			return e;	/* fail closed: no record, no run */
		supervise_init(&sv, &r->requester);
		/* what the reviewer saw this argv do, the supervisor allows */
		sv.acts = argv_acts(at_run(c) ? r->atrun_path[i] : str(c, "path"), r->argv[i]);
		if (!r->unconfined)
			x.sv = &sv;
	} else {
		x.envp = r->user_env;
		x.cwd = str(c, "cwd");
		x.cred = &r->sudo_cred;
	}
	capture_init(cap, open_log(r, i), OUTPUT_LOG_MAX);
	if (is_root(c)) {
		cap->sink = iolog_write;
		cap->sink_arg = &io;
	}
	if (exec_capture(&x, cap, &res) != 0) {
		memset(&res, 0, sizeof res);
		res.exec_errno = errno ? errno : EAGAIN;
		res.exit_code = -1;
	}
	if (cap->logfd >= 0)
		close(cap->logfd);
	e = ledger_entry_ran(str(c, "id"), str(c, "as"), &res, cap,
	    str(r->manifest, "output_to_agent"));
	if (res.stopped)
		json_object_set_new(e, "error", json_string(r->watch.why));
	/* sealed at run time: the file that ran, by the hash it had */
	if (at_run(c)) {
		json_object_set_new(e, "path", json_string(r->atrun_path[i]));
		json_object_set_new(e, "executable_sha256", json_string(r->atrun_sha[i]));
	}
	if (is_root(c)) {
		iolog_close(&io);
		json_object_set_new(e, "iolog", json_string(io.id));
		json_object_set_new(e, "confinement", supervise_record(&sv));
		if (r->unconfined)
			json_object_set_new(json_object_get(e, "confinement"), "unconfined",
			    json_true());
		supervise_end(&sv);
		root_log(r, c, i, e, io.error);
		/* noted for the fleet's log server, sent once the batch is over */
		logship_session(&r->tp.log_server, io.id, &res);
	}
	return e;
}

/*
 * A command whose executable is sealed at run time, just before it
 * starts: for a ROOT command sudoers must allow it now that it exists;
 * then the executable is resolved and judged as at request time
 * (exe_at_run) and its descriptor kept for the command. NULL when it may
 * run; else its "refused" entry, with what was found.
 */
static json_t *
judge_at_run(struct runner *r, const json_t *c, size_t i)
{
	char why[PATH_MAX + 256];
	json_t *e;

	if (is_root(c) && !policy_allows(policy_start(r, c, i)))
		snprintf(why, sizeof why, "sudoers does not allow this command for the reviewer");
	else if ((r->exefd[i] = exe_at_run(str(c, "path"), &r->requester, is_root(c),
	    r->atrun_path[i], r->atrun_sha[i], why, sizeof why)) >= 0)
		return NULL;
	e = ledger_entry_not_run(str(c, "id"), str(c, "as"), "refused", why);
	json_object_set_new(e, "path", json_string(*r->atrun_path[i] ? r->atrun_path[i] :
	    str(c, "path")));
	json_object_set_new(e, "executable_sha256", *r->atrun_sha[i] ?
	    json_string(r->atrun_sha[i]) : json_null());
	return e;
}

/* Just before a command starts (batch_execute's judge): one sealed at
 * run time judged now, a ROOT command's paths judged again. */
static json_t *
judge_now(void *arg, const json_t *c, size_t i)
{
	struct runner *r = arg;
	char why[PATH_MAX + 256], msg[PATH_MAX + 320];

	if (at_run(c))
		return judge_at_run(r, c, i);
	if (!is_root(c) || !changeable_now(r, c, i, why, sizeof why))
		return NULL;
	snprintf(msg, sizeof msg, "not run: the requester can change what it names: %s", why);
	return ledger_entry_not_run(str(c, "id"), str(c, "as"), "refused", msg);
}

static int
record_progress(void *arg, json_t *entries)
{
	return record_entries(arg, RUN_PROGRESS, entries, 1);
}

static int
halted(void *arg)
{
	return run_watch_halted(&((struct runner *)arg)->watch);
}

static json_t *
run_next(void *arg, const json_t *c, size_t i)
{
	static struct capture cap;

	return run_one(arg, c, i, &cap);
}

/*
 * The batch, through the one batch loop (batch_execute), or, when a
 * check refused it before anything ran, the refused command and the
 * others skipped. Returns 0, or -1 when the ledger could not be written
 * (what ran is then only in progress.json and the root log).
 */
static int
run_all(struct runner *r)
{
	struct batch_exec x = {
		.cmds = json_object_get(r->manifest, "commands"),
		.stop_on_failure = json_is_true(json_object_get(r->manifest, "stop_on_failure")),
		.deadline_ms = r->deadline_ms, .stop = &stop_requested, .who = "the runner",
		.judge = judge_now, .record = record_progress, .run = run_next, .arg = r,
		.halted = halted, .halted_why = r->watch.why,
	};
	json_t *entries, *c;
	int broken, stopped, rc;
	size_t i;

	run_watch_init(&r->watch, r->dfd, r->sudo_uid, r->sudo_user);
	if (r->refused_why == NULL)
		entries = batch_execute(&x, &broken, &stopped);
	else {
		entries = json_array();
		json_array_foreach(x.cmds, i, c)
			json_array_append_new(entries, ledger_entry_not_run(str(c, "id"),
			    str(c, "as"), i == r->refused_at ? "refused" : "skipped",
			    i == r->refused_at ? r->refused_why :
			    "not run: another command of the batch was refused"));
	}
	rc = record_entries(r, RUN_LEDGER, entries, 1);
	json_decref(entries);
	/* what waits for the log server: never between two commands */
	logship_start(&r->tp.log_server);
	return rc;
}

/* started.json: the runner passed its checks and holds the lock; from
 * here on something may run. */
static int
write_started(const struct runner *r, pid_t pid)
{
	json_t *j = json_pack("{s:s,s:s,s:i,s:I}", "request_id", r->request_id,
	    "manifest_sha256", r->sha, "pid", (int)pid,
	    "start_time", (json_int_t)proc_start_time(pid));
	int rc = record(r, RUN_STARTED, j, 1);

	json_decref(j);
	return rc;
}

/*
 * Hand the terminal back: the child runs the batch in its own session,
 * but only once the parent has made started.json durable and said so
 * through the pipe. If the parent cannot, the child runs nothing.
 */
static void
detach(struct runner *r)
{
	int go[2], devnull;
	char c;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) != 0 || (pid = fork()) < 0)
		err(RUNNER_REFUSED, "cannot detach");
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1 || c != 'g' || setsid() < 0 ||
		    (devnull = open("/dev/null", O_RDWR)) < 0 || dup2(devnull, 0) < 0 ||
		    dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0)
			_exit(RUNNER_REFUSED);
		close(go[0]);
		staged.owner = getpid();	/* the batch's files are the child's now */
		return;
	}
	close(go[0]);
	if (write_started(r, pid) != 0)
		exit(RUNNER_REFUSED);	/* the child sees the pipe close: nothing runs */
	staged.owner = 0;	/* released: the child removes the staged files */
	if (write(go[1], "g", 1) != 1)
		err(RUNNER_BROKEN, "cannot release the batch");
	exit(0);
}

/* runner.lock, created fresh and held for as long as this process (or its
 * detached child) lives: the reviewer's tools tell a live run by it. */
static void
take_lock(const struct runner *r)
{
	int fd = openat(r->dfd, RUN_LOCK, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0 || fchmod(fd, 0644) != 0 || flock(fd, LOCK_EX | LOCK_NB) != 0)
		err(RUNNER_REFUSED, "refusing: cannot take %s", RUN_LOCK);
	/* the descriptor stays open (close-on-exec: commands never hold it) */
}

/* The records bind to the approved subset as the reviewer's seal names
 * it: the run manifest without what answer added (the YOU environment
 * and the requester). */
static void
seal_subset(struct runner *r)
{
	json_t *m = json_deep_copy(r->manifest);
	char *bytes;

	json_object_del(m, "user_env");
	json_object_del(m, "requester");
	if ((bytes = manifest_seal(m, r->sha)) == NULL)
		errx(RUNNER_REFUSED, "cannot seal the approved commands");
	free(bytes);
	json_decref(m);
}

/* ROOT commands run under the supervisor (supervise.c), or not at all
 * unless the policy allows them unconfined: the review shows that. */
static void
prepare_supervisor(struct runner *r)
{
	char why[256];
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(r->manifest, "commands"), i, c)
		if (is_root(c)) {
			if (supervise_probe(why, sizeof why) == 0)
				return;
			if (!r->tp.unconfined)
				errx(RUNNER_REFUSED, "refusing (supervisor_unavailable): ROOT commands "
				    "run only under the run-time supervisor, which cannot be installed "
				    "here: %s; nothing ran (%s may say \"unconfined\": \"allow\")",
				    why, WARRANT_POLICY_FILE);
			r->unconfined = 1;
			return;
		}
}

/* The I/O log directory must be usable before anything runs (fail
 * closed); the terminal's name and size are noted while it is there. */
static void
prepare_iolog(struct runner *r)
{
	char why[PATH_MAX + 128];
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(r->manifest, "commands"), i, c)
		if (is_root(c)) {
			if (iolog_prepare(&r->io_host, WARRANT_IOLOG_DIR, r->tp.iolog_sessions, why,
			    sizeof why) != 0)
				errx(RUNNER_REFUSED, "refusing: cannot keep the I/O log: %s", why);
			return;
		}
}

static void
load_users(struct runner *r)
{
	struct passwd pw, *p;
	char buf[4096];
	const char *user = getenv("SUDO_USER");

	r->sudo_gid = (gid_t)env_number("SUDO_GID");
	if (user == NULL || getpwnam_r(user, &pw, buf, sizeof buf, &p) != 0 || p == NULL ||
	    p->pw_uid != r->sudo_uid || r->sudo_uid == 0 || strlen(user) >= sizeof r->sudo_user)
		errx(RUNNER_REFUSED, "refusing: SUDO_USER does not match SUDO_UID");
	strcpy(r->sudo_user, user);
	if (getpwnam_r(str(r->manifest, "run_as"), &pw, buf, sizeof buf, &p) != 0 || p == NULL ||
	    strlen(p->pw_name) >= sizeof r->target_name ||
	    strlen(p->pw_dir) >= sizeof r->target_home)
		errx(RUNNER_REFUSED, "refusing: no such user '%s'", str(r->manifest, "run_as"));
	strcpy(r->target_name, p->pw_name);
	strcpy(r->target_home, p->pw_dir);
	if (spawn_cred_init(&r->target_cred, p->pw_name, p->pw_uid, p->pw_gid) != 0 ||
	    spawn_cred_init(&r->sudo_cred, r->sudo_user, r->sudo_uid, r->sudo_gid) != 0)
		errx(RUNNER_REFUSED, "refusing: cannot read the groups of %s or %s",
		    r->target_name, r->sudo_user);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "manifest", required_argument, NULL, 'm' },
		{ "expected-sha256", required_argument, NULL, 'e' },
		{ "detach", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	const char *path = NULL;
	char sha[SHA256_HEX_LEN + 1], why[256], *bytes;
	struct runner r;
	int ch, detached = 0;
	size_t len;

	umask(077);
	signals();
	openlog("warrant", LOG_PID, LOG_AUTHPRIV);
	memset(&r, 0, sizeof r);
	r.deadline_ms = monotonic_ms();	/* plus the bound, once the manifest is read */
	/* the mode is argv[1] itself, never an option getopt could move: a
	 * sudoers rule "RUNNER passkey *" matches only this mode */
	if (argc > 1 && strcmp(argv[1], "passkey") == 0) {
		r.passkey = 1;
		argc--;
		argv++;
	}
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			path = optarg;
			break;
		case 'e':
			r.run_sha = optarg;
			break;
		case 'd':
			detached = 1;
			break;
		default:
			errx(RUNNER_REFUSED, USAGE);
		}
	}
	if (path == NULL || r.run_sha == NULL || optind != argc)
		errx(RUNNER_REFUSED, USAGE);
	if (geteuid() != 0 || getuid() != 0)
		errx(RUNNER_REFUSED, "refusing: must be started as root by sudo");
	r.sudo_uid = (uid_t)env_number("SUDO_UID");

	bytes = read_manifest(&r, path, &len);
	sha256_bytes(bytes, len, sha);
	if (!digest_equal(sha, r.run_sha))
		errx(RUNNER_REFUSED, "refusing: the manifest's SHA-256 is not the approved one");
	if ((r.manifest = manifest_parse(bytes, len, why, sizeof why)) == NULL)
		errx(RUNNER_REFUSED, "refusing: %s", why);
	free(bytes);
	r.request_id = str(r.manifest, "request_id");
	seal_subset(&r);
	r.n = json_array_size(json_object_get(r.manifest, "commands"));
	r.deadline_ms += batch_bound(json_object_get(r.manifest, "commands")) * 1000;
	load_users(&r);
	/* the sudo user's passkey signed this run, or nothing: as early as
	 * the sudo user is known, so that a passwordless start (the enrolled
	 * reviewer's sudoers rule) reaches as little as possible without it */
	if (r.passkey)
		passkey_approval(r.manifest, r.run_sha, r.dfd, r.sudo_uid, r.sudo_user);
	r.root_env = root_env(&r);
	r.user_env = user_env(&r);
	manifest_requester(r.manifest, &r.requester, &r.requester_groups);
	live_groups(&r);
	/* the two-person rule: the other reviewers' approvals, or nothing */
	reviews_verify(r.manifest, r.sha, r.sudo_uid, r.requester.uid, &r.tp);
	prepare_supervisor(&r);
	stage(&r);
	verify_commands(&r);
	prepare_iolog(&r);
	take_lock(&r);
	if (r.tp.approvals > 1)
		tp_sweep(&r.tp, r.request_id);	/* spent: this batch settles the gate */
	if (detached)
		detach(&r);
	else if (write_started(&r, getpid()) != 0)
		return RUNNER_REFUSED;
	return run_all(&r) == 0 ? 0 : RUNNER_BROKEN;
}
