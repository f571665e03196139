/* SPDX-License-Identifier: ISC */
/*
 * warrant box: provision the non-root user an agent runs as (docs/design.md §10,
 * docs/box.md). username prints the sanitized Linux name; init creates or
 * updates the user on this host (or prints the same work as a script);
 * passwd stores the box password encrypted and applies it live; status
 * says whether one is set; remove undoes init. The password is write-only: read from stdin,
 * never printed, never in argv, the environment, a plaintext file or a log.
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <openssl/crypto.h>

#include "warrant.h"
#include "box/box.h"

static int cmd_box_exec(int, char **);

const struct cmd_entry cmd_box_entry = {
	.name = "box",
	.summary = "provision the user an agent runs as (root)",
	.group = CMD_ADMIN,
	.usage = "username NAME | init --user NAME [--profile agent|container] "
	    "[--reviewer REVIEWER] [--uid N] [--gid N] [--home DIR] [--shell PATH] "
	    "[--adopt] [--script] | passwd --user NAME [--clear] | "
	    "status --user NAME [-j] | key --user NAME [--rotate] | "
	    "remove --user NAME [--delete-user [--delete-home] [--delete-files] "
	    "[--stop-sessions]]",
	.help =
	"Provision the non-root user an agent runs as (see docs/box.md).\n\n"
	"  username NAME   print NAME sanitized into a Linux user name\n"
	"  init            create or update the box user (root; idempotent), with\n"
	"                  a one-time home ownership migration; the home must lie\n"
	"                  under /home; an existing account it did not create is\n"
	"                  refused unless --adopt is given. Profiles:\n"
	"                    agent (the default): no admin group, no sudoers\n"
	"                    drop-in (both removed if an earlier init gave them);\n"
	"                    the user becomes a requester of --reviewer REVIEWER\n"
	"                    (default: $SUDO_USER), as warrant requesters add does\n"
	"                    container: admin group, NOPASSWD drop-in while no\n"
	"                    password is stored; refused where this machine is not\n"
	"                    a container, unless --script\n"
	"                  --script prints the same work as a root shell script\n"
	"                  (to pipe into a container), without password\n"
	"  passwd          (container profile) read a new password (8-128\n"
	"                  characters) on stdin, store it encrypted and apply it\n"
	"                  now; --clear removes it and restores passwordless sudo\n"
	"  key             (root) create the key that signs this user's box password\n"
	"                  route (warrant serve --box-api) and print it once, in\n"
	"                  hex, for the platform to store; an existing key is never\n"
	"                  printed again: --rotate replaces it (the old one stops\n"
	"                  working)\n"
	"  status          the profile, the requester groups, the sudo rules the\n"
	"                  user holds, and whether a password is set (never what)\n"
	"  remove          (root; idempotent) undo init: the sudoers drop-in, the\n"
	"                  admin group, the requester groups, the route's key, the\n"
	"                  stored password, the box record, each said as removed;\n"
	"                  the account stays unless --delete-user (only one init\n"
	"                  created, never an adopted one), its home and mail spool\n"
	"                  unless --delete-home too. --delete-user refuses while a\n"
	"                  process of the uid runs (in any namespace or chroot),\n"
	"                  listing them; --stop-sessions ends them (loginctl\n"
	"                  terminate-user, SIGTERM, then SIGKILL). It lists the\n"
	"                  uid's files in /tmp, /var/tmp, /dev/shm, /run, /var/mail\n"
	"                  and the crontabs, and refuses while a set-id file is\n"
	"                  among them; --delete-files removes them. The uid and gid\n"
	"                  are retired: init never gives them again\n\n"
	"Exit status: 0 done, 1 a step failed (named, with its error output),\n"
	"2 usage or refusal (nothing changed).\n",
	.exec = cmd_box_exec,
};

static int
refused(const struct refusal *r)
{
	return refusal_print("box", r);
}


/* Memory that holds a password never goes into a core dump. */
static void
no_dumps(void)
{
	struct rlimit rl = { 0, 0 };

	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	(void)setrlimit(RLIMIT_CORE, &rl);
}

static int
parse_id(const char *s, const char *opt, long *out)
{
	if (parse_count(s, 0, BOX_ID_MAX, out) != 0)
		return usage_error(&cmd_box_entry, "%s wants a number, not '%s'", opt, s);
	return 0;
}

static int
box_username_exec(int argc, char **argv)
{
	char name[BOX_NAME_MAX + 1];

	if (argc != 2)
		return usage_error(&cmd_box_entry, "username wants exactly one NAME");
	box_username(argv[1], name);
	printf("%s\n", name);
	return EXIT_OK;
}

/* What `box init` was asked to do (init_options). */
struct init_args {
	struct box_spec	 s;
	const char	*from_sudo;	/* the reviewer, taken from $SUDO_USER */
	int		 script;
};

/* The options into a, checked together, the agent profile's reviewer
 * defaulted: -1, or the exit status of a usage error (said already). */
static int
init_options(int argc, char **argv, struct init_args *a)
{
	static const struct option longopts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "uid", required_argument, NULL, 'U' },
		{ "gid", required_argument, NULL, 'G' },
		{ "home", required_argument, NULL, 'd' },
		{ "shell", required_argument, NULL, 's' },
		{ "script", no_argument, NULL, 'S' },
		{ "adopt", no_argument, NULL, 'A' },
		{ "profile", required_argument, NULL, 'P' },
		{ "reviewer", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	struct box_spec *s = &a->s;
	const char *sudo_user;
	int ch;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'u': s->name = optarg; break;
		case 'U':
			if (parse_id(optarg, "--uid", &s->uid) != 0)
				return EXIT_REFUSED;
			break;
		case 'G':
			if (parse_id(optarg, "--gid", &s->gid) != 0)
				return EXIT_REFUSED;
			break;
		case 'd': s->home = optarg; break;
		case 's': s->shell = optarg; break;
		case 'S': a->script = 1; break;
		case 'A': s->adopt = 1; break;
		case 'P':
			if (strcmp(optarg, "agent") == 0)
				s->profile = BOX_PROFILE_AGENT;
			else if (strcmp(optarg, "container") == 0)
				s->profile = BOX_PROFILE_CONTAINER;
			else
				return usage_error(&cmd_box_entry, "--profile is agent "
				    "or container");
			break;
		case 'R': s->reviewer = optarg; break;
		default:
			return usage_error(&cmd_box_entry, NULL);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_box_entry, "unexpected argument '%s'", argv[optind]);
	if (s->name == NULL)
		return usage_error(&cmd_box_entry, "init needs --user NAME");
	if (s->profile == BOX_PROFILE_CONTAINER && s->reviewer != NULL)
		return usage_error(&cmd_box_entry, "--reviewer goes with --profile "
		    "agent: a container-profile user has sudo in its container");
	/* The agent profile's reviewer: given, or the user who ran sudo. */
	if (s->profile == BOX_PROFILE_AGENT && s->reviewer == NULL &&
	    (sudo_user = getenv("SUDO_USER")) != NULL && *sudo_user != '\0' &&
	    strcmp(sudo_user, "root") != 0)
		s->reviewer = a->from_sudo = sudo_user;
	if (s->profile == BOX_PROFILE_AGENT && s->reviewer == NULL)
		return usage_error(&cmd_box_entry, "the agent profile needs --reviewer "
		    "REVIEWER, the user whose warrant serve takes this box user's "
		    "requests (or --profile container, inside a container)");
	return -1;
}

/* Create or update the box user a->s on this host, or print the same
 * work as a script. */
static int
init_provision(const struct init_args *a)
{
	struct refusal r;

	if (box_check_spec(&a->s, &r) != 0)
		return refused(&r);
	if (a->from_sudo != NULL)	/* a checked name by now */
		fprintf(a->script ? stderr : stdout, "reviewer: %s (from $SUDO_USER)\n",
		    a->from_sudo);
	if (a->script)
		return box_script(stdout, &a->s) == 0 ? EXIT_OK : EXIT_INTERNAL;
	if (root_needed("box", NULL) != 0)
		return EXIT_REFUSED;
	if (box_check_host(&a->s, &r) != 0)
		return refused(&r);
	no_dumps();
	return box_init(&a->s) == 0 ? EXIT_OK : EXIT_INTERNAL;
}

static int
box_init_exec(int argc, char **argv)
{
	struct init_args a = { .s = { .uid = -1, .gid = -1, .profile = BOX_PROFILE_AGENT } };
	int rc;

	if ((rc = init_options(argc, argv, &a)) >= 0)
		return rc;
	return init_provision(&a);
}

static struct termios saved_tio;
static volatile sig_atomic_t tio_changed;

static void
restore_tty(int sig)
{
	if (tio_changed)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* One line from the terminal without echo; 1 when it was longer than
 * size - 1 bytes (the rest is read and dropped), -1 on error or EOF. */
static int
tty_line(const char *prompt, char *buf, size_t size, size_t *len)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP };
	struct sigaction sa, old[5];
	struct termios t;
	size_t i, n = 0;
	int rc = 0;
	ssize_t got;
	char c;

	if (tcgetattr(STDIN_FILENO, &saved_tio) != 0)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = restore_tty;
	for (i = 0; i < 5; i++)
		sigaction(sigs[i], &sa, &old[i]);
	t = saved_tio;
	t.c_lflag &= ~(tcflag_t)ECHO;
	t.c_lflag |= ECHONL;
	/* Echo goes off (dropping anything typed ahead, which was echoed)
	 * before the prompt appears, so no answer is ever shown. */
	tio_changed = tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) == 0;
	fputs(prompt, stderr);
	fflush(stderr);
	for (;;) {
		got = read(STDIN_FILENO, &c, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rc = -1;
			break;
		}
		if (c == '\n')
			break;
		if (n + 1 < size)
			buf[n++] = c;
		else
			rc = 1;
	}
	c = 0;
	if (tio_changed)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
	tio_changed = 0;
	for (i = 0; i < 5; i++)
		sigaction(sigs[i], &old[i], NULL);
	*len = n;
	return rc;
}

/*
 * The new password: on a terminal asked twice without echo, else all of
 * stdin with one trailing newline dropped. 0 with it in buf, or a refusal.
 */
static int
read_password(const char *name, char *buf, size_t size, size_t *len,
    struct refusal *r)
{
	char again[BOX_PW_BYTES + 2], prompt[96];
	size_t n2;
	ssize_t got;
	int long1 = 0, long2, same;
	const char *why;

	*len = 0;
	if (isatty(STDIN_FILENO)) {
		snprintf(prompt, sizeof prompt, "New box password for %s: ", name);
		if ((long1 = tty_line(prompt, buf, size, len)) < 0 ||
		    (long2 = tty_line("Retype it: ", again, sizeof again, &n2)) < 0) {
			OPENSSL_cleanse(again, sizeof again);
			return refuse(r, "no_password", "stdin", "no password was read");
		}
		same = long1 == long2 && *len == n2 && CRYPTO_memcmp(buf, again, n2) == 0;
		OPENSSL_cleanse(again, sizeof again);
		if (!same)
			return refuse(r, "password_mismatch", "stdin",
			    "the two passwords differ; nothing changed");
	} else {
		for (;;) {
			got = read(STDIN_FILENO, buf + *len, size - *len);
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0)
				return refuse(r, "no_password", "stdin", "reading stdin: %s",
				    strerror(errno));
			if (got == 0)
				break;
			*len += (size_t)got;
			if (*len == size) {
				long1 = 1;
				break;
			}
		}
		if (!long1 && *len > 0 && buf[*len - 1] == '\n')
			(*len)--;
	}
	why = long1 ? "it is longer than 128 characters" : box_password_check(buf, *len);
	if (why != NULL) {
		OPENSSL_cleanse(buf, size);
		return refuse(r, "bad_password", "stdin", "password refused: %s "
		    "(8 to 128 characters, no line break or NUL); nothing changed", why);
	}
	return 0;
}

static int
passwd_set(const char *name)
{
	char pw[BOX_PW_BYTES + 2];
	struct refusal r;
	size_t len;
	int rc;

	if (read_password(name, pw, sizeof pw, &len, &r) != 0)
		return refused(&r);
	rc = box_passwd_set(name, pw, len, stdout) == 0 ? EXIT_OK : EXIT_INTERNAL;
	OPENSSL_cleanse(pw, sizeof pw);
	return rc;
}

/* The invalid_name refusal of --user NAME, as init words it. */
static int
name_refused(const char *name)
{
	struct box_spec s = { .name = name, .uid = -1, .gid = -1,
	    .profile = BOX_PROFILE_CONTAINER };
	struct refusal r;

	box_check_spec(&s, &r);
	return refused(&r);
}

/* Parse --user NAME plus one flag (--clear or -j) for passwd and status. */
static int
user_opts(int argc, char **argv, const char *flag, int fch, const char **name,
    int *on)
{
	const struct option longopts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ flag, no_argument, NULL, fch },
		{ NULL, 0, NULL, 0 }
	};
	const char shortopts[] = { (char)fch, '\0' };
	struct refusal r;
	int ch;

	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (ch == 'u')
			*name = optarg;
		else if (ch == fch)
			*on = 1;
		else
			return usage_error(&cmd_box_entry, NULL);
	}
	if (optind != argc)
		return usage_error(&cmd_box_entry, "unexpected argument '%s'", argv[optind]);
	if (*name == NULL)
		return usage_error(&cmd_box_entry, "%s needs --user NAME", argv[0]);
	if (root_needed("box", NULL) != 0)
		return EXIT_REFUSED;
	if (!box_name_ok(*name))
		return name_refused(*name);
	if (box_check_account(*name, &r) != 0)
		return refused(&r);
	return 0;
}

static int
box_passwd_exec(int argc, char **argv)
{
	const char *name = NULL;
	struct refusal r;
	int clear = 0, rc;

	if ((rc = user_opts(argc, argv, "clear", 'c', &name, &clear)) != 0)
		return rc;
	if (box_passwd_check(name, &r) != 0)
		return refused(&r);
	no_dumps();
	if (clear)
		return box_passwd_clear(name, stdout) == 0 ? EXIT_OK : EXIT_INTERNAL;
	return passwd_set(name);
}

static int
box_key_exec(int argc, char **argv)
{
	unsigned char key[BOX_API_KEY_LEN];
	char hex[2 * BOX_API_KEY_LEN + 1];
	const char *name = NULL;
	struct refusal r;
	size_t i;
	int rotate = 0, rc;

	if ((rc = user_opts(argc, argv, "rotate", 'r', &name, &rotate)) != 0)
		return rc;
	if (box_passwd_check(name, &r) != 0)
		return refused(&r);
	no_dumps();
	if ((rc = box_apikey_create(name, rotate, key)) == 1) {
		refuse(&r, "key_exists", "--user", "'%s' has a key already; it is printed "
		    "only when made: give --rotate to replace it (the old one stops "
		    "working)", name);
		return refused(&r);
	}
	if (rc != 0)
		return EXIT_INTERNAL;
	for (i = 0; i < BOX_API_KEY_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	OPENSSL_cleanse(key, sizeof key);
	printf("%s\n", hex);
	fflush(stdout);
	OPENSSL_cleanse(hex, sizeof hex);
	fprintf(stderr, "warrant box: the %s key of %s; store it now (it is not "
	    "shown again) and sign POST /box/%s/set-password with it\n",
	    rotate ? "new" : "box password route", name, name);
	return EXIT_OK;
}

static int
box_remove_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "delete-user", no_argument, NULL, 'D' },
		{ "delete-home", no_argument, NULL, 'H' },
		{ "delete-files", no_argument, NULL, 'F' },
		{ "stop-sessions", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	struct box_removal o = { 0 };
	const char *name = NULL;
	struct refusal r;
	int ch;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (ch == 'u')
			name = optarg;
		else if (ch == 'D')
			o.delete_user = 1;
		else if (ch == 'H')
			o.delete_home = 1;
		else if (ch == 'F')
			o.delete_files = 1;
		else if (ch == 'S')
			o.stop_sessions = 1;
		else
			return usage_error(&cmd_box_entry, NULL);
	}
	if (optind != argc)
		return usage_error(&cmd_box_entry, "unexpected argument '%s'", argv[optind]);
	if (name == NULL)
		return usage_error(&cmd_box_entry, "remove needs --user NAME");
	if (!o.delete_user && (o.delete_home || o.delete_files || o.stop_sessions))
		return usage_error(&cmd_box_entry, "%s goes with --delete-user",
		    o.delete_home ? "--delete-home" : o.delete_files ? "--delete-files" :
		    "--stop-sessions");
	if (root_needed("box", NULL) != 0)
		return EXIT_REFUSED;
	if (!box_name_ok(name))
		return name_refused(name);
	if (box_remove_check(name, &o, &r) != 0)
		return refused(&r);
	return box_remove(name, &o) == 0 ? EXIT_OK : EXIT_INTERNAL;
}

/* The requester groups' reviewers, "a, b", or "none". */
static void
print_list(const json_t *a, const char *none)
{
	size_t i;

	for (i = 0; i < json_array_size(a); i++)
		printf("%s%s", i > 0 ? ", " : "", json_string_value(json_array_get(a, i)));
	printf("%s\n", json_array_size(a) == 0 ? none : "");
}

/* What `box status` says of a user (status_facts). */
struct box_facts {
	const char	*name, *group, *profile;
	char		 err[256];		/* why the sudo rules are unknown */
	char		 home[PATH_MAX];
	uid_t		 uid;
	gid_t		 gid;
	int		 exists, set, dropin, member, boxuser, container;
	int		 warn;			/* sudo rules outside review */
	json_t		*revs, *rules;
};

/* The facts of user name into f (f->revs and f->rules to release);
 * 0, or -1 when whether a password is set cannot be told. */
static int
status_facts(const char *name, struct box_facts *f)
{
	char why[128];
	struct passwd *pw;

	f->name = name;
	f->group = box_admin_group();
	f->profile = "unknown";
	if ((f->set = box_secret_exists(name)) < 0)
		return -1;
	f->dropin = box_dropin_present(name);
	f->member = f->group != NULL && box_in_group(name, f->group);
	/* Copied: the lookups below reuse getpwnam's buffer. */
	if ((f->exists = (pw = getpwnam(name)) != NULL)) {
		f->uid = pw->pw_uid;
		f->gid = pw->pw_gid;
		snprintf(f->home, sizeof f->home, "%s", pw->pw_dir);
	}
	f->boxuser = f->exists && box_user_recorded(name, f->uid) == 1;
	f->revs = box_req_reviewers(name);
	f->container = box_in_container(why, sizeof why);
	if (f->exists) {
		f->profile = box_profile_of(name);
		f->rules = box_sudo_list(name, f->err, sizeof f->err);
	}
	/* Sudo is the container profile's, inside a container; anywhere else
	 * a rule is root for the agent, outside review. */
	f->warn = f->rules != NULL && json_array_size(f->rules) > 0 &&
	    (strcmp(f->profile, "container") != 0 || !f->container);
	return 0;
}

/* The facts as one JSON object. */
static int
status_json(const struct box_facts *f)
{
	json_t *j;
	int rc;

	j = json_pack("{s:s,s:b,s:b,s:b,s:b,s:s?,s:b}", "user", f->name,
	    "exists", f->exists, "box_user", f->boxuser, "password_set", f->set,
	    "nopasswd_dropin", f->dropin, "admin_group", f->group, "admin_member",
	    f->member);
	if (j != NULL && f->exists)
		json_object_set_new(j, "uid", json_integer(f->uid));
	if (j != NULL) {
		json_object_set_new(j, "profile", json_string(f->profile));
		json_object_set(j, "requester_of", f->revs);
		json_object_set(j, "sudo_rules", f->rules != NULL ? f->rules : json_null());
		json_object_set_new(j, "sudo_warning", json_boolean(f->warn));
		json_object_set_new(j, "container", json_boolean(f->container));
	}
	rc = print_json(j) == 0 ? EXIT_OK : EXIT_INTERNAL;
	json_decref(j);
	return rc;
}

/* The facts as lines, with the warnings and notes they call for. */
static int
status_print(const struct box_facts *f)
{
	size_t i;

	if (f->exists)
		printf("user: %s (uid %u, gid %u, home %s)\n", f->name, (unsigned)f->uid,
		    (unsigned)f->gid, f->home);
	else
		printf("user: %s (does not exist on this host)\n", f->name);
	if (f->exists && !f->boxuser)
		printf("note: warrant box did not create %s; box init refuses it "
		    "without --adopt\n", f->name);
	printf("profile: %s\n", f->profile);
	printf("requester of: ");
	print_list(f->revs, "none");
	printf("admin group: %s\n", f->group == NULL ? "none (neither wheel nor sudo)" :
	    f->member ? f->group : "not a member");
	printf("password: %s\n", f->set ? "set" : "not set");
	printf("drop-in: %s\n", f->dropin ? "NOPASSWD (sudo without a password)" : "none");
	if (!f->exists)
		;
	else if (f->rules == NULL)
		printf("sudo: unknown (%s)\n", f->err);
	else if (json_array_size(f->rules) == 0)
		printf("sudo: no rules\n");
	else {
		printf("sudo: %zu rule%s\n", json_array_size(f->rules),
		    json_array_size(f->rules) == 1 ? "" : "s");
		for (i = 0; i < json_array_size(f->rules); i++) {
			fputs("  ", stdout);
			text_print(stdout, json_string_value(json_array_get(f->rules, i)));
			fputc('\n', stdout);
		}
	}
	if (f->warn)
		printf("warning: %s holds sudo rules on %s: it can run commands as root "
		    "without a warrant review (%s)\n", f->name,
		    f->container ? "this machine" : "this host, which is not a container",
		    strcmp(f->profile, "container") == 0 ? "the container profile is for "
		    "containers: re-run box init with --profile agent" : "remove them");
	if (f->exists && strcmp(f->profile, "container") == 0 && f->set == f->dropin)
		printf("note: run warrant box init --user %s --profile container to bring "
		    "sudo in line\n", f->name);
	return EXIT_OK;
}

static int
box_status_exec(int argc, char **argv)
{
	struct box_facts f = { 0 };
	const char *name = NULL;
	int json = 0, rc;

	if ((rc = user_opts(argc, argv, "json", 'j', &name, &json)) != 0)
		return rc;
	if (status_facts(name, &f) != 0)
		return EXIT_INTERNAL;
	rc = json ? status_json(&f) : status_print(&f);
	json_decref(f.revs);
	json_decref(f.rules);
	return rc;
}

static int
cmd_box_exec(int argc, char **argv)
{
	if (argc < 2)
		return usage_error(&cmd_box_entry, "which box command?");
	if (strcmp(argv[1], "username") == 0)
		return box_username_exec(argc - 1, argv + 1);
	if (strcmp(argv[1], "init") == 0)
		return box_init_exec(argc - 1, argv + 1);
	if (strcmp(argv[1], "passwd") == 0)
		return box_passwd_exec(argc - 1, argv + 1);
	if (strcmp(argv[1], "status") == 0)
		return box_status_exec(argc - 1, argv + 1);
	if (strcmp(argv[1], "key") == 0)
		return box_key_exec(argc - 1, argv + 1);
	if (strcmp(argv[1], "remove") == 0)
		return box_remove_exec(argc - 1, argv + 1);
	return usage_error(&cmd_box_entry, "unknown box command '%s'", argv[1]);
}
