/*
 * warrant-runner: the only part of warrant that runs as root, and only
 * when started by sudo. It trusts nothing it is handed that it cannot
 * verify: the manifest must sit in a 0700 directory owned by the sudo
 * user, hash to the value on its argv (compared in constant time) and be
 * canonical; sudoers must allow the sudo user every command as run_as;
 * every executable is re-hashed through the descriptor it is then
 * executed from. Anything refused runs nothing. It writes the ledger
 * atomically into the run directory and one line per command to the root
 * log.
 *
 * usage: warrant-runner --manifest FILE --expected-sha256 HEX [--detach]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared.h"

#define MANIFEST_MAX	(4 * 1024 * 1024)
#define OUTPUT_LOG_MAX	(64ULL * 1024 * 1024)
#define DEFAULT_TIMEOUT	300
#define EXIT_REFUSE	3	/* the manifest or the caller was refused */
#define POLICY_BATCH	16	/* sudoers questions asked at once */

struct runner {
	uid_t		 sudo_uid;
	gid_t		 sudo_gid;
	char		 sudo_user[64];
	int		 dfd;			/* the run directory */
	json_t		*manifest;
	const char	*sha;
	const char	*request_id;
	struct passwd	 target;		/* run_as */
	char		 target_name[64], target_home[PATH_MAX];
	size_t		 n;
	int		*exefd;
	const char	*refused_why;
	size_t		 refused_at;
};

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("warrant-runner: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static unsigned long
env_number(const char *name)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (s == NULL || *s < '0' || *s > '9')
		die(EXIT_REFUSE, "refusing: not started by sudo (%s is missing)", name);
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0')
		die(EXIT_REFUSE, "refusing: %s is not a number", name);
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
		die(EXIT_REFUSE, "the manifest path must be absolute");
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if ((r->dfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		die(EXIT_REFUSE, "run directory %s: %s", dir, strerror(errno));
	if (fstat(r->dfd, &st) != 0 || st.st_uid != r->sudo_uid || (st.st_mode & 07777) != 0700)
		die(EXIT_REFUSE, "run directory %s must be owned by uid %u with mode 0700",
		    dir, (unsigned)r->sudo_uid);
	fd = openat(r->dfd, slash + 1, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0)
		die(EXIT_REFUSE, "manifest %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_uid != r->sudo_uid || st.st_size > MANIFEST_MAX)
		die(EXIT_REFUSE, "manifest %s must be a regular file of the sudo user", path);
	buf = xmalloc((size_t)st.st_size + 1);
	got = read(fd, buf, (size_t)st.st_size + 1);
	if (got != st.st_size)
		die(EXIT_REFUSE, "manifest %s: short read", path);
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

/* The manifest's shape: everything the runner relies on, checked. */
static void
check_manifest(struct runner *r)
{
	json_t *m = r->manifest, *cmds = json_object_get(m, "commands"), *c, *v, *env;
	const char *key;
	size_t i, j;

	if (json_integer_value(json_object_get(m, "schema_version")) != 1 ||
	    (r->request_id = str(m, "request_id")) == NULL || str(m, "run_as") == NULL ||
	    str(m, "cwd") == NULL || str(m, "cwd")[0] != '/' ||
	    str(m, "output_to_agent") == NULL ||
	    !json_is_boolean(json_object_get(m, "stop_on_failure")) ||
	    !json_is_array(cmds) || json_array_size(cmds) == 0 || json_array_size(cmds) > 128)
		die(EXIT_REFUSE, "the manifest is malformed");
	env = json_object_get(m, "env");
	if (!json_is_object(env))
		die(EXIT_REFUSE, "the manifest's env is malformed");
	json_object_foreach(env, key, v)
		if (!json_is_string(v) || env_forbidden(key) || strchr(key, '=') != NULL)
			die(EXIT_REFUSE, "the manifest's env sets '%s'", key);
	json_array_foreach(cmds, i, c) {
		v = json_object_get(c, "argv");
		if (str(c, "id") == NULL || str(c, "as") == NULL || strcmp(str(c, "as"), "root") != 0 ||
		    str(c, "path") == NULL || str(c, "path")[0] != '/' ||
		    str(c, "executable_sha256") == NULL || !json_is_array(v) ||
		    json_array_size(v) == 0 || json_array_size(v) > 64)
			die(EXIT_REFUSE, "command %zu of the manifest is malformed", i);
		for (j = 0; j < json_array_size(v); j++)
			if (!json_is_string(json_array_get(v, j)))
				die(EXIT_REFUSE, "command %zu has a non-string argument", i);
		v = json_object_get(c, "timeout_seconds");
		if (!json_is_null(v) && !(json_is_integer(v) && json_integer_value(v) > 0 &&
		    json_integer_value(v) <= 86400))
			die(EXIT_REFUSE, "command %zu has a bad timeout", i);
	}
	r->n = json_array_size(cmds);
}

/* Ask sudoers whether the sudo user may run this command as run_as:
 * start `sudo -n -l -U USER -u RUN_AS -- PATH ARGS`; returns its pid. */
static pid_t
policy_start(const struct runner *r, const json_t *c)
{
	json_t *argv = json_object_get(c, "argv");
	size_t n = json_array_size(argv), i, k = 0;
	const char **av = xcalloc(n + 10, sizeof *av);
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
	int devnull;
	pid_t pid;

	av[k++] = "/usr/bin/sudo";
	av[k++] = "-n";
	av[k++] = "-l";
	av[k++] = "-U";
	av[k++] = r->sudo_user;
	av[k++] = "-u";
	av[k++] = r->target_name;
	av[k++] = "--";
	av[k++] = str(c, "path");
	for (i = 1; i < n; i++)
		av[k++] = json_string_value(json_array_get(argv, i));
	if ((pid = fork()) < 0)
		die(1, "fork: %s", strerror(errno));
	if (pid == 0) {
		if ((devnull = open("/dev/null", O_RDWR)) < 0 || dup2(devnull, 0) < 0 ||
		    dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0)
			_exit(127);
		execve("/usr/bin/sudo", (char *const *)av, envp);
		_exit(127);
	}
	free(av);
	return pid;
}

static int
policy_allows(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The policy answers for every command, asked a batch at a time. Returns
 * the index of the first command sudoers does not allow, or r->n. */
static size_t
policy_check(const struct runner *r)
{
	json_t *cmds = json_object_get(r->manifest, "commands");
	pid_t pids[POLICY_BATCH];
	size_t i, j, n, refused = r->n;

	for (i = 0; i < r->n && refused == r->n; i += n) {
		n = r->n - i < POLICY_BATCH ? r->n - i : POLICY_BATCH;
		for (j = 0; j < n; j++)
			pids[j] = policy_start(r, json_array_get(cmds, i + j));
		for (j = 0; j < n; j++)
			if (!policy_allows(pids[j]) && refused == r->n)
				refused = i + j;
	}
	return refused;
}

/* Before anything runs: policy for every command, then every executable
 * opened and hashed. The first refusal stops it all. */
static void
verify_commands(struct runner *r)
{
	json_t *cmds = json_object_get(r->manifest, "commands"), *c;
	char hex[SHA256_HEX_LEN + 1];
	struct stat st;
	size_t i;

	r->exefd = xcalloc(r->n, sizeof *r->exefd);
	for (i = 0; i < r->n; i++)
		r->exefd[i] = -1;
	if ((i = policy_check(r)) < r->n) {
		r->refused_why = "sudoers does not allow this command for the reviewer";
		r->refused_at = i;
		return;
	}
	json_array_foreach(cmds, i, c) {
		r->exefd[i] = open(str(c, "path"), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (r->exefd[i] < 0 || fstat(r->exefd[i], &st) != 0 || !S_ISREG(st.st_mode) ||
		    sha256_fd(r->exefd[i], hex) != 0 || !digest_equal(hex, str(c, "executable_sha256"))) {
			r->refused_why = "the executable changed since it was reviewed";
			r->refused_at = i;
			return;
		}
	}
}

static char **
build_env(const struct runner *r)
{
	json_t *env = json_object_get(r->manifest, "env"), *v;
	size_t n = json_object_size(env) + 8, k = 0;
	char **envp = xcalloc(n, sizeof *envp);
	const char *term = getenv("TERM"), *key;
	char *s;

	if (term == NULL || strlen(term) > 64 || strpbrk(term, "/ ") != NULL)
		term = "dumb";
	if (asprintf(&envp[k++], "PATH=%s", TRUSTED_PATH) < 0 ||
	    asprintf(&envp[k++], "LC_ALL=C") < 0 || asprintf(&envp[k++], "LANG=C") < 0 ||
	    asprintf(&envp[k++], "TERM=%s", term) < 0 ||
	    asprintf(&envp[k++], "HOME=%s", r->target_home) < 0 ||
	    asprintf(&envp[k++], "USER=%s", r->target_name) < 0 ||
	    asprintf(&envp[k++], "LOGNAME=%s", r->target_name) < 0)
		die(1, "out of memory");
	json_object_foreach(env, key, v) {
		size_t i, klen = strlen(key);

		if (asprintf(&s, "%s=%s", key, json_string_value(v)) < 0)
			die(1, "out of memory");
		/* a reviewed value replaces a base one of the same name */
		for (i = 0; i < k; i++)
			if (strncmp(envp[i], key, klen) == 0 && envp[i][klen] == '=')
				break;
		if (i < k)
			free(envp[i]);
		else
			k++;
		envp[i] = s;
	}
	return envp;
}

static void
root_log(const struct runner *r, const json_t *c, const json_t *entry)
{
	json_t *line = json_pack("{s:I,s:s,s:s,s:s,s:i,s:s,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O}",
	    "at", (json_int_t)now_seconds(), "request_id", r->request_id,
	    "manifest_sha256", r->sha, "sudo_user", r->sudo_user, "sudo_uid", (int)r->sudo_uid,
	    "run_as", r->target_name,
	    "id", json_object_get(c, "id"), "path", json_object_get(c, "path"),
	    "executable_sha256", json_object_get(c, "executable_sha256"),
	    "argv", json_object_get(c, "argv"), "status", json_object_get(entry, "status"),
	    "exit_code", json_object_get(entry, "exit_code"),
	    "duration_ms", json_object_get(entry, "duration_ms"),
	    "output_bytes", json_object_get(entry, "output_bytes"));
	char *s = json_dumps(line, JSON_COMPACT);
	struct stat st;
	int fd;

	json_decref(line);
	fd = open(WARRANT_ROOT_LOG, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0) {
		if ((st.st_mode & 077) != 0)
			fchmod(fd, 0600);
		if (s != NULL && (write_all(fd, s, strlen(s)) != 0 || write_all(fd, "\n", 1) != 0))
			fprintf(stderr, "warrant-runner: %s: %s\n", WARRANT_ROOT_LOG, strerror(errno));
	} else
		fprintf(stderr, "warrant-runner: cannot append to %s\n", WARRANT_ROOT_LOG);
	if (fd >= 0)
		close(fd);
	free(s);
}

static void
write_ledger(const struct runner *r, const char *name, json_t *entries, const char *outcome,
    int durable)
{
	json_t *l = ledger_new(r->request_id, r->sha, outcome, json_incref(entries), NULL);

	if (json_write_atomic(r->dfd, name, l, r->sudo_uid, r->sudo_gid, durable) != 0)
		fprintf(stderr, "warrant-runner: cannot write %s: %s\n", name, strerror(errno));
	json_decref(l);
}

static int
open_log(const struct runner *r, size_t i)
{
	char name[64];
	int fd;

	snprintf(name, sizeof name, "output-%zu.log", i);
	fd = openat(r->dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && fchown(fd, r->sudo_uid, r->sudo_gid) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void
run_all(struct runner *r)
{
	json_t *cmds = json_object_get(r->manifest, "commands"), *c, *entries = json_array();
	const char *policy = str(r->manifest, "output_to_agent");
	int stop = json_is_true(json_object_get(r->manifest, "stop_on_failure")), failed = 0;
	char **envp = build_env(r), **argv;
	static struct capture cap;
	struct exec_result res;
	struct exec_spec x;
	json_t *e;
	size_t i, j;

	json_array_foreach(cmds, i, c) {
		if (r->refused_why != NULL) {
			e = i == r->refused_at ?
			    ledger_entry_not_run(str(c, "id"), "root", "refused", r->refused_why) :
			    ledger_entry_not_run(str(c, "id"), "root", "skipped",
			    "not run: another command of the batch was refused");
		} else if (failed && stop) {
			e = ledger_entry_not_run(str(c, "id"), "root", "skipped",
			    "not run: an earlier command failed (stop_on_failure)");
		} else {
			json_t *av = json_object_get(c, "argv"), *t = json_object_get(c, "timeout_seconds");

			argv = xcalloc(json_array_size(av) + 1, sizeof *argv);
			for (j = 0; j < json_array_size(av); j++)
				argv[j] = (char *)json_string_value(json_array_get(av, j));
			memset(&x, 0, sizeof x);
			x.exefd = r->exefd[i];
			x.argv = argv;
			x.envp = envp;
			x.cwd = str(r->manifest, "cwd");
			x.user = r->target_name;
			x.uid = r->target.pw_uid;
			x.gid = r->target.pw_gid;
			x.timeout = json_is_integer(t) ? (long)json_integer_value(t) : DEFAULT_TIMEOUT;
			capture_init(&cap, open_log(r, i), OUTPUT_LOG_MAX);
			if (exec_capture(&x, &cap, &res) != 0) {
				res.exec_errno = errno ? errno : EAGAIN;
				res.exit_code = -1;
			}
			if (cap.logfd >= 0)
				close(cap.logfd);
			free(argv);
			e = ledger_entry_ran(str(c, "id"), "root", &res, &cap, policy);
			failed = strcmp(str(e, "status"), "ran") != 0;
			root_log(r, c, e);
		}
		json_array_append_new(entries, e);
		write_ledger(r, "progress.json", entries, "completed", 0);
	}
	write_ledger(r, "ledger.json", entries, "completed", 1);
	json_decref(entries);
}

/* Hand the terminal back: the child runs on in its own session, the
 * parent records who it is in started.json and exits. */
static void write_started(const struct runner *, pid_t);

static void
detach(struct runner *r)
{
	int devnull;
	pid_t pid;

	if ((pid = fork()) < 0)
		die(1, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (setsid() < 0 || (devnull = open("/dev/null", O_RDWR)) < 0 ||
		    dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0)
			_exit(1);
		return;
	}
	write_started(r, pid);
	exit(0);
}

/* started.json: who is running the batch, so a reader can tell a live
 * run from a dead one. */
static void
write_started(const struct runner *r, pid_t pid)
{
	json_t *j;

	j = json_pack("{s:s,s:i,s:I}", "request_id", r->request_id, "pid", (int)pid,
	    "start_time", (json_int_t)proc_start_time(pid));
	if (json_write_atomic(r->dfd, "started.json", j, r->sudo_uid, r->sudo_gid, 1) != 0)
		die(1, "cannot write started.json");
	json_decref(j);
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
	const char *path = NULL, *user;
	char sha[SHA256_HEX_LEN + 1], *bytes, *canon;
	struct passwd *pw;
	struct runner r;
	int ch, detached = 0;
	size_t len;

	umask(077);
	signal(SIGPIPE, SIG_IGN);
	memset(&r, 0, sizeof r);
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			path = optarg;
			break;
		case 'e':
			r.sha = optarg;
			break;
		case 'd':
			detached = 1;
			break;
		default:
			die(2, "usage: warrant-runner --manifest FILE --expected-sha256 HEX [--detach]");
		}
	}
	if (path == NULL || r.sha == NULL || optind != argc)
		die(2, "usage: warrant-runner --manifest FILE --expected-sha256 HEX [--detach]");
	if (geteuid() != 0 || getuid() != 0)
		die(EXIT_REFUSE, "refusing: must be started as root by sudo");
	r.sudo_uid = (uid_t)env_number("SUDO_UID");
	r.sudo_gid = (gid_t)env_number("SUDO_GID");
	user = getenv("SUDO_USER");
	if (user == NULL || (pw = getpwnam(user)) == NULL || pw->pw_uid != r.sudo_uid ||
	    strlen(user) >= sizeof r.sudo_user)
		die(EXIT_REFUSE, "refusing: SUDO_USER does not match SUDO_UID");
	strcpy(r.sudo_user, user);

	bytes = read_manifest(&r, path, &len);
	sha256_bytes(bytes, len, sha);
	if (!digest_equal(sha, r.sha))
		die(EXIT_REFUSE, "refusing: the manifest's SHA-256 is not the approved one");
	r.manifest = json_loadb(bytes, len, JSON_REJECT_DUPLICATES, NULL);
	canon = canon_dump(r.manifest, NULL);
	if (r.manifest == NULL || canon == NULL || strcmp(canon, bytes) != 0)
		die(EXIT_REFUSE, "refusing: the manifest is not canonical JSON");
	free(canon);
	free(bytes);
	check_manifest(&r);
	if ((pw = getpwnam(str(r.manifest, "run_as"))) == NULL ||
	    strlen(pw->pw_name) >= sizeof r.target_name || strlen(pw->pw_dir) >= sizeof r.target_home)
		die(EXIT_REFUSE, "refusing: no such user '%s'", str(r.manifest, "run_as"));
	r.target = *pw;
	strcpy(r.target_name, pw->pw_name);
	strcpy(r.target_home, pw->pw_dir);
	verify_commands(&r);
	if (detached)
		detach(&r);
	else
		write_started(&r, getpid());
	run_all(&r);
	return 0;
}
