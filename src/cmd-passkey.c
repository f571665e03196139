/* SPDX-License-Identifier: ISC */
/*
 * warrant passkey: root enrols a reviewer's passkey, so that the reviewer
 * can approve ROOT commands with it (docs/passkeys.md). add prints a
 * one-time code on root's terminal, waits for the page to stage a
 * credential whose registration answers that code (enrol.c), writes the
 * root-owned record the runner checks assertions against, and installs
 * the sudoers drop-in that lets the reviewer start only `warrant-runner
 * passkey ...` without a password. remove takes both away; list shows
 * who is enrolled (anyone may run it: the records are world-readable).
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "warrant.h"
#include "box/box.h"

#define PASSKEY_DROPIN		"warrant-passkey-"	/* + reviewer: no dot */
#define ENROL_WAIT_S		300
#define ENROL_WAIT_MAX_S	900
#define ENROL_POLL_MS		300

static int cmd_passkey_exec(int, char **);

const struct cmd_entry cmd_passkey_entry = {
	.name = "passkey",
	.summary = "enrol a reviewer's passkey for approving ROOT (root)",
	.group = CMD_ADMIN,
	.usage = "add --reviewer USER [--state DIR] [--wait SECONDS] | "
	    "remove --reviewer USER | list [-j]",
	.help =
	"Enrol, list and remove the passkeys reviewers approve ROOT commands\n"
	"with (see docs/passkeys.md).\n\n"
	"  add     (root) print a one-time code, then wait (--wait, 300 s by\n"
	"          default, at most 900) for USER's page to stage a passkey made\n"
	"          with that code (the page: Passkey, type the code, Add a\n"
	"          passkey); check it, write the record under " WARRANT_PASSKEY_DIR "\n"
	"          and the sudoers drop-in " "/etc/sudoers.d/" PASSKEY_DROPIN "USER, which\n"
	"          lets USER start only `warrant-runner passkey ...` without a\n"
	"          password. A passkey enrolled before is replaced. --state is\n"
	"          USER's state directory when it is not ~USER/.local/state/warrant\n"
	"  remove  (root) delete USER's record and drop-in\n"
	"  list    the enrolled reviewers: RP ID, origin, when, sign count, and\n"
	"          whether the drop-in is in place (anyone may run it)\n\n"
	"Exit status: 0 done, 1 a step failed (named), 2 usage or refusal\n"
	"(nothing changed).\n",
	.exec = cmd_passkey_exec,
};

static int
refused(const struct refusal *r)
{
	return refusal_print("passkey", r);
}


/* The reviewer named: a user who is not root. 0, or a refusal's exit. */
static int
reviewer_of(const char *name, struct passwd *out, char *buf, size_t size)
{
	struct passwd *pw = NULL;
	struct refusal r;

	if (name == NULL)
		return usage_error(&cmd_passkey_entry, "--reviewer USER is needed");
	if (!id_name_ok(name) || getpwnam_r(name, out, buf, size, &pw) != 0 || pw == NULL) {
		refuse(&r, "passkey_no_reviewer", "$.reviewer", "no user '%.64s' here", name);
		return refused(&r);
	}
	if (pw->pw_uid == 0) {
		refuse(&r, "passkey_no_reviewer", "$.reviewer", "root approves in its own "
		    "shell: a passkey is for a reviewer who is not root");
		return refused(&r);
	}
	return 0;
}

/*
 * The staged file's bytes, read as the reviewer (a child that is that
 * user and nobody else): what root sees is what the reviewer may read,
 * through no link. 0 with *buf (to free), 1 when there is none, -1.
 */
static int
read_staged(const struct passwd *pw, const char *dir, char **buf, size_t *len)
{
	char path[PATH_MAX];
	int p[2], status = -1, rc = -1;
	pid_t pid;

	*buf = NULL;
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, PASSKEY_STAGED) >= sizeof path ||
	    pipe2(p, O_CLOEXEC) != 0)
		return -1;
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		struct stat st;
		char *data;
		size_t n;
		int fd;

		close(p[0]);
		if (setgroups(0, NULL) != 0 || setgid(pw->pw_gid) != 0 ||
		    setuid(pw->pw_uid) != 0 || getuid() != pw->pw_uid || geteuid() == 0)
			_exit(3);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			_exit(errno == ENOENT ? 1 : 3);
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != pw->pw_uid ||
		    read_bounded(fd, &data, &n, PASSKEY_STAGED_MAX) != 0)
			_exit(3);
		_exit(write_all(p[1], data, n) == 0 ? 0 : 3);
	}
	close(p[1]);
	if (read_bounded(p[0], buf, len, PASSKEY_STAGED_MAX) != 0) {
		free(*buf);
		*buf = NULL;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
		rc = 1;
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && *buf != NULL)
		rc = 0;
	if (rc != 0) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

/*
 * Wait for a staged registration that answers code: 0 with c filled, or
 * a refusal's exit. A staged file that does not answer it is said once
 * and waited past (it may be an older one, or not the reviewer's doing).
 */
static int
wait_staged(const struct passwd *pw, const char *dir, const char *code, long wait_s,
    struct passkey_cred *c)
{
	int64_t deadline = monotonic_ms() + wait_s * 1000;
	char *buf, *last = NULL, why[512];
	struct refusal r;
	size_t len;
	int bad_rp, rc;

	while (monotonic_ms() < deadline) {
		rc = read_staged(pw, dir, &buf, &len);
		if (rc == 0 && (last == NULL || strcmp(last, buf) != 0)) {
			if (passkey_enrol_check(buf, len, pw->pw_name, code, c, &bad_rp, why,
			    sizeof why) == 0) {
				free(buf);
				free(last);
				return 0;
			}
			if (bad_rp) {
				free(buf);
				free(last);
				refuse(&r, "passkey_rp_not_name", "$", "%s; nothing changed", why);
				return refused(&r);
			}
			fprintf(stderr, "warrant passkey: a staged passkey was passed over: ");
			text_print(stderr, why);
			fputc('\n', stderr);
			free(last);
			last = buf;
		} else
			free(buf);
		poll(NULL, 0, ENROL_POLL_MS);
	}
	free(last);
	refuse(&r, "passkey_enrol_timeout", "$", "no passkey answering the code was staged "
	    "in %s within %ld s; nothing changed", dir, wait_s);
	return refused(&r);
}

/* The passkey directory, made root's (0755) when missing: its fd, or -1
 * after saying why. */
static int
passkey_dir(void)
{
	char why[256], path[] = WARRANT_PASSKEY_DIR, *slash;
	int fd;

	/* its parent too (/etc/warrant): nothing else makes it */
	for (slash = strchr(path + 1, '/'); ; slash = strchr(slash + 1, '/')) {
		if (slash != NULL)
			*slash = '\0';
		if (mkdir(path, 0755) == 0)
			(void)chmod(path, 0755);	/* whatever root's umask */
		else if (errno != EEXIST) {
			warnx("cannot make %s: %s", path, strerror(errno));
			return -1;
		}
		if (slash == NULL)
			break;
		*slash = '/';
	}
	if ((fd = passkey_dir_open(WARRANT_PASSKEY_DIR, why, sizeof why)) < 0)
		warnx("%s", why);
	return fd;
}

static char *
dropin_text(const char *reviewer)
{
	char *text;

	if (asprintf(&text, "# warrant passkey add: %s's passkey approves ROOT; the runner\n"
	    "# checks the assertion (docs/passkeys.md). Remove with warrant passkey remove.\n"
	    "%s ALL=(root) NOPASSWD: %s passkey *\n", reviewer, reviewer,
	    WARRANT_RUNNER_PATH) < 0)
		return NULL;
	return text;
}

static int
passkey_add(const char *name, const char *state, long wait_s)
{
	struct passwd pw;
	struct passkey_cred c, old;
	char pwbuf[4096], dir[PATH_MAX], code[PASSKEY_CODE_LEN + 1], why[256], *text;
	int dfd, rc, had;

	if ((rc = root_needed("passkey", "warrant passkey list")) != 0 ||
	    (rc = reviewer_of(name, &pw, pwbuf, sizeof pwbuf)) != 0)
		return rc;
	if (state != NULL && *state != '/')
		return usage_error(&cmd_passkey_entry, "--state wants an absolute path");
	if ((size_t)snprintf(dir, sizeof dir, "%s", state != NULL ? state : "") >= sizeof dir ||
	    (state == NULL && (size_t)snprintf(dir, sizeof dir, "%s/.local/state/warrant",
	    pw.pw_dir) >= sizeof dir))
		return usage_error(&cmd_passkey_entry, "the state directory's path is too long");
	if (passkey_code_new(code) != 0 || (dfd = passkey_dir()) < 0) {
		warnx("step 'prepare' failed");
		return EXIT_FAILURE;
	}
	had = passkey_cred_load(dfd, pw.pw_name, &old, why, sizeof why) == 0;
	printf("On %s's page (`warrant pair` opens it), under Passkey, type this code and\n"
	    "tap \"Add a passkey\":\n\n    %.4s-%.4s\n\n"
	    "Waiting up to %ld s (Ctrl-C stops; nothing changes until it is done)...\n",
	    pw.pw_name, code, code + 4, wait_s);
	fflush(stdout);
	if ((rc = wait_staged(&pw, dir, code, wait_s, &c)) != 0) {
		close(dfd);
		return rc;
	}
	rc = passkey_cred_save(dfd, &c, why, sizeof why);
	close(dfd);
	if (rc != 0) {
		warnx("step 'record' failed: %s", why);
		return EXIT_FAILURE;
	}
	if ((text = dropin_text(pw.pw_name)) == NULL ||
	    sudoers_dropin_install(PASSKEY_DROPIN, pw.pw_name, text) != 0) {
		free(text);
		warnx("the record is written, but without the drop-in sudo still asks %s "
		    "for a password", pw.pw_name);
		return EXIT_FAILURE;
	}
	free(text);
	printf("Enrolled %s's passkey%s: RP ID %s, origin %s.\n"
	    "  record  %s/%s.json\n  sudoers /etc/sudoers.d/%s%s (%s may start only "
	    "`warrant-runner passkey ...` without a password)\n", pw.pw_name,
	    had ? " (it replaces the one enrolled before)" : "", c.rp_id, c.origin,
	    WARRANT_PASSKEY_DIR, pw.pw_name, PASSKEY_DROPIN, pw.pw_name, pw.pw_name);
	return EXIT_OK;
}

static int
passkey_remove(const char *name)
{
	struct passwd pw;
	struct refusal r;
	char pwbuf[4096], file[80], path[PATH_MAX];
	int rc, dfd, gone = 0, dropin;

	if ((rc = root_needed("passkey", "warrant passkey list")) != 0 ||
	    (rc = reviewer_of(name, &pw, pwbuf, sizeof pwbuf)) != 0)
		return rc;
	snprintf(file, sizeof file, "%s.json", pw.pw_name);
	dfd = open(WARRANT_PASSKEY_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd >= 0) {
		if (unlinkat(dfd, file, 0) == 0)
			gone = 1;
		else if (errno != ENOENT) {
			warnx("step 'record' failed: %s/%s: %s", WARRANT_PASSKEY_DIR, file,
			    strerror(errno));
			close(dfd);
			return EXIT_FAILURE;
		}
		fsync(dfd);
		close(dfd);
	}
	dropin = sudoers_dropin_path(PASSKEY_DROPIN, pw.pw_name, path, sizeof path) == 0 &&
	    access(path, F_OK) == 0;
	if (sudoers_dropin_remove(PASSKEY_DROPIN, pw.pw_name) != 0)
		return EXIT_FAILURE;
	if (!gone && !dropin) {
		refuse(&r, "passkey_not_enrolled", "$.reviewer", "%s has no passkey enrolled "
		    "here; nothing changed", pw.pw_name);
		return refused(&r);
	}
	printf("Removed %s's passkey%s%s.\n", pw.pw_name, gone ? " record" : "",
	    dropin ? (gone ? " and sudoers drop-in" : " sudoers drop-in") : "");
	return EXIT_OK;
}

static int
passkey_list(int json)
{
	struct passkey_cred c;
	struct dirent *e;
	char why[256], when[64], path[PATH_MAX], name[80];
	json_t *all = json_array(), *v;
	DIR *d;
	int dfd = passkey_dir_open(WARRANT_PASSKEY_DIR, why, sizeof why), rc;
	size_t n;

	if (dfd >= 0 && (d = fdopendir(dup(dfd))) != NULL) {
		while ((e = readdir(d)) != NULL) {
			n = strlen(e->d_name);
			if (n <= 5 || n - 5 >= sizeof name || strcmp(e->d_name + n - 5, ".json") != 0)
				continue;
			memcpy(name, e->d_name, n - 5);
			name[n - 5] = '\0';
			if (passkey_cred_load(dfd, name, &c, why, sizeof why) != 0)
				continue;
			json_array_append_new(all, json_pack("{ss ss ss sI sI sb}", "reviewer",
			    c.reviewer, "rp_id", c.rp_id, "origin", c.origin, "created",
			    (json_int_t)c.created, "sign_count", (json_int_t)c.sign_count,
			    "sudoers", sudoers_dropin_path(PASSKEY_DROPIN, c.reviewer, path,
			    sizeof path) == 0 && access(path, F_OK) == 0));
		}
		closedir(d);
	}
	if (dfd >= 0)
		close(dfd);
	if (json) {
		rc = print_json(all);
		json_decref(all);
		return rc;
	}
	if (json_array_size(all) == 0)
		printf("No passkey is enrolled here.\n");
	json_array_foreach(all, n, v) {
		format_time(json_integer_value(json_object_get(v, "created")), when, sizeof when);
		printf("%s  RP ID %s  origin %s  enrolled %s  count %lld  sudoers %s\n",
		    json_str(v, "reviewer"), json_str(v, "rp_id"), json_str(v, "origin"), when,
		    (long long)json_integer_value(json_object_get(v, "sign_count")),
		    json_is_true(json_object_get(v, "sudoers")) ? "yes" : "missing");
	}
	json_decref(all);
	return EXIT_OK;
}

static int
cmd_passkey_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "reviewer", required_argument, NULL, 'r' },
		{ "state", required_argument, NULL, 's' },
		{ "wait", required_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	const char *verb, *reviewer = NULL, *state = NULL;
	long wait_s = ENROL_WAIT_S;
	int ch, json = 0;

	if (argc < 2)
		return usage_error(&cmd_passkey_entry, NULL);
	verb = argv[1];
	optind = 2;
	while ((ch = getopt_long(argc, argv, "j", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r': reviewer = optarg; break;
		case 's': state = optarg; break;
		case 'w':
			if (parse_count(optarg, 1, ENROL_WAIT_MAX_S, &wait_s) != 0)
				return usage_error(&cmd_passkey_entry, "--wait wants 1 to %d seconds",
				    ENROL_WAIT_MAX_S);
			break;
		case 'j': json = 1; break;
		default: return usage_error(&cmd_passkey_entry, NULL);
		}
	}
	if (optind < argc)
		return usage_error(&cmd_passkey_entry, "unexpected argument '%s'", argv[optind]);
	if (strcmp(verb, "add") == 0 && !json)
		return passkey_add(reviewer, state, wait_s);
	if ((state != NULL || wait_s != ENROL_WAIT_S) && strcmp(verb, "add") != 0)
		return usage_error(&cmd_passkey_entry, "--state and --wait go with add");
	if (strcmp(verb, "remove") == 0 && !json)
		return passkey_remove(reviewer);
	if (strcmp(verb, "list") == 0 && reviewer == NULL)
		return passkey_list(json);
	return usage_error(&cmd_passkey_entry, "add, remove or list, with their options");
}
