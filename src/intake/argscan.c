/* SPDX-License-Identifier: ISC */
/*
 * What a ROOT command's argv would make root run beyond its executable
 * (docs/design.md §3, beyond SASE). A list of indirect runners is always one
 * short, so every word is treated as a program root might run: the word,
 * the value after each '=' and the first word of a value with spaces are
 * matched against the denylists (by name, path and identity). Inline
 * code is refused in every spelling the program's option parser accepts
 * (short options in clusters or with joined values, long options by
 * unique prefix), and so are the options of common tools that hand a
 * string to a shell. A runner whose program is decided at run time is
 * refused. Words a package manager reads as package names, systemctl as
 * unit names, account tools as account and group names and useradd as
 * a login shell are exempt from the word scan;
 * so are update-alternatives' names, and its links and paths are only
 * recorded (a path still meets the rules of paths, never the denylists).
 * warrant-request(5) has the table.
 */
#include <limits.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

#define MAX_ARGV	64

struct scan {
	struct denylist		 *d;
	const struct requester	 *p;
	const struct wcommand	 *c;
	const char *const	 *argv;
	size_t			  argc;
	char			  exempt[MAX_ARGV];
	char			  recorded[MAX_ARGV];	/* a path written down, never run */
	char			  real[MAX_ARGV][NAME_MAX + 1];	/* resolved basename */
	char			  jpath[64];	/* $.commands[N] */
	struct refusal		 *r;
	int			  text_only;	/* for another machine: files judged there */
};

/* Refuse at argv[i] (or the command when i is the argc). */
static int
hit(struct scan *s, const char *code, size_t i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int
hit(struct scan *s, const char *code, size_t i, const char *fmt, ...)
{
	char sub[96], msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (i < s->argc)
		snprintf(sub, sizeof sub, "%s.argv[%zu]", s->jpath, i);
	else
		snprintf(sub, sizeof sub, "%s", s->jpath);
	return refuse(s->r, code, sub, "%s", msg);
}

/*
 * getopt_long's abbreviations: arg is "--NAME" or "--NAME=VALUE" (or one
 * dash for getopt_long_only tools) and NAME, not empty, is name or a
 * prefix of it. An ambiguous prefix makes the tool fail; counting it as a
 * match only refuses what would not run.
 */
int
opt_abbrev(const char *arg, const char *name)
{
	size_t n;

	if (arg[0] != '-')
		return 0;
	arg += arg[1] == '-' ? 2 : 1;
	n = strcspn(arg, "=");
	return n > 0 && strlen(name) >= n && strncmp(arg, name, n) == 0;
}

static int
abbrev_in(const char *arg, const char *const *names)
{
	for (; names != NULL && *names != NULL; names++)
		if (opt_abbrev(arg, *names))
			return 1;
	return 0;
}

/* The option's value: after '=', else the next word (NULL at the end). */
static const char *
opt_value(struct scan *s, size_t i)
{
	const char *eq = strchr(s->argv[i], '=');

	if (eq != NULL)
		return eq + 1;
	return i + 1 < s->argc ? s->argv[i + 1] : NULL;
}

static int
match_any(const char *const *pats, const char *name)
{
	for (; *pats != NULL; pats++)
		if (fnmatch(*pats, name, 0) == 0)
			return 1;
	return 0;
}

/* The basename of the file a word resolves to (an absolute path, or a
 * bare name on the trusted path) as p could look it up, or "". */
static void
resolved_base(const struct requester *p, const char *word, char out[NAME_MAX + 1])
{
	char found[PATH_MAX], real[PATH_MAX];
	const char *path = word;
	int fd;

	out[0] = '\0';
	if (word[0] != '/') {
		if (exe_lookup(word, found, sizeof found) != 0)
			return;
		path = found;
	}
	if ((fd = reach_path(p, path, 1, real)) < 0)
		return;
	close(fd);
	if (strlen(base_name(real)) <= NAME_MAX)
		strcpy(out, base_name(real));
}

/* Does the word name one of pats: its basename, or the basename of the
 * file it resolves to (on this host: not for another machine's)? */
static int
names(const struct scan *s, const char *word, const char *const *pats)
{
	char real[NAME_MAX + 1];

	if (match_any(pats, base_name(word)))
		return 1;
	if (s->text_only)
		return 0;
	resolved_base(s->p, word, real);
	return real[0] != '\0' && match_any(pats, real);
}

static int
word_names(struct scan *s, size_t j, const char *const *pats)
{
	if (j == 0)
		return match_any(pats, base_name(s->c->exe.given)) ||
		    match_any(pats, base_name(s->c->exe.path));
	return match_any(pats, base_name(s->argv[j])) ||
	    (s->real[j][0] != '\0' && match_any(pats, s->real[j]));
}

/* --- Exempt positions ------------------------------------------------ */

static const char *const apt_tools[] = {
	"apt", "apt-get", "aptitude", "apt-cache", "apt-mark", NULL
};
static const char *const other_pkg_tools[] = {
	"dnf", "yum", "microdnf", "zypper", "apk", "snap", "flatpak",
	"pip", "pip3", "pip3.*", NULL
};
/* Subcommands whose operands are package names. */
static const char *const pkg_verbs[] = {
	"install", "reinstall", "remove", "purge", "autoremove", "download",
	"source", "build-dep", "show", "showpkg", "showsrc", "policy",
	"depends", "rdepends", "changelog", "hold", "unhold", "auto", "manual",
	"markauto", "unmarkauto", "madison", "info", "upgrade", "full-upgrade",
	"erase", "uninstall", "update", "downgrade", "list", "provides", "add",
	"del", "search", "in", "rm", "up", "refresh", NULL
};
/* Options of those tools that take the next word as their value. */
static const char *const pkg_value_opts[] = {
	"-o", "--option", "-t", "--target-release", "-a", "--host-architecture",
	"--config-file", "--releasever", "--repo", "--enablerepo",
	"--disablerepo", "-r", "--installroot", NULL
};
static const char *const dpkg_tools[] = {
	"dpkg", "dpkg-query", NULL
};
/* dpkg actions whose operands are package names or file names to look up. */
static const char *const dpkg_name_actions[] = {
	"-r", "--remove", "-P", "--purge", "-s", "--status", "-L",
	"--listfiles", "-l", "--list", "-p", "--print-avail", "-S", "--search",
	"-W", "--show", NULL
};
static const char *const shell_setters[] = {
	"useradd", "usermod", "adduser", "chsh", "luseradd", "lusermod", NULL
};
/* Account tools: a word shaped like a name is an account or a group
 * (sudo is a group too), never a program they run. */
static const char *const account_tools[] = {
	"useradd", "usermod", "userdel", "adduser", "addgroup", "deluser", "delgroup",
	"gpasswd", "groupadd", "groupmod", "groupdel", NULL
};
/* Service and firewall tools: their operands name units and services
 * (ssh is one), never programs to run. */
static const char *const unit_tools[] = {
	"systemctl", "journalctl", "service", "invoke-rc.d", "update-rc.d",
	"ufw", "firewall-cmd", "loginctl", NULL
};

static int
in(const char *const *list, const char *w)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, w) == 0)
			return 1;
	return 0;
}

static const char *const alternatives_tools[] = {
	"update-alternatives", NULL
};
/*
 * update-alternatives' commands and how many words follow each (it
 * matches its options exactly, no abbreviations or '='): links, names
 * and paths that it writes into symbolic links and never runs.
 */
static const struct alt_command {
	const char	*name;
	size_t		 n;
	const char	*words;	/* per word: 'l' a link, 'n' a name, 'p' a path, 'x' other */
} alt_commands[] = {
	{ "--install", 4, "lnpx" }, { "--slave", 3, "lnp" }, { "--follower", 3, "lnp" },
	{ "--set", 2, "np" }, { "--remove", 2, "np" }, { "--remove-all", 1, "n" },
	{ "--auto", 1, "n" }, { "--display", 1, "n" }, { "--query", 1, "n" },
	{ "--list", 1, "n" }, { "--config", 1, "n" },
};

/* A package name as apt, dnf or pip spell one (version and
 * architecture qualifiers allowed, no path). */
static int
pkg_shaped(const char *w)
{
	if (!ascii_isalnum((unsigned char)w[0]))
		return 0;
	for (; *w != '\0'; w++)
		if (!ascii_isalnum((unsigned char)*w) && strchr("+._:@=<>~-[],*", *w) == NULL)
			return 0;
	return 1;
}

/* The operands after argv[j] (after a verb when need_verb), up to the
 * first word that is neither an option nor shaped like a name. */
static void
exempt_operands(struct scan *s, size_t j, int need_verb)
{
	size_t i;
	int verb = !need_verb;

	for (i = j + 1; i < s->argc; i++) {
		const char *a = s->argv[i];

		if (a[0] == '-') {
			if (in(pkg_value_opts, a))
				i++;
			continue;
		}
		if (!verb) {
			if (!in(pkg_verbs, a))
				return;
			verb = 1;
			continue;
		}
		if (!pkg_shaped(a))
			return;
		s->exempt[i] = 1;
	}
}

/* A number or duration (5, 2.5, 10s) or a NAME=VALUE assignment. */
static int
prefix_word(const char *a)
{
	size_t n;

	if (ascii_isdigit((unsigned char)a[0])) {
		n = strspn(a, "0123456789.");
		return a[n] == '\0' || (strchr("smhd", a[n]) != NULL && a[n + 1] == '\0');
	}
	n = strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
	return n > 0 && !ascii_isdigit((unsigned char)a[0]) && a[n] == '=';
}

/*
 * Is argv[j] the program the command runs: argv[0], or the first word
 * after a prefix of single-program runners (not find), their options,
 * NAME=VALUE assignments and numbers (timeout 5, nice -n 10)? Only there
 * do a package manager's operands name packages: elsewhere the same words
 * could be another program's (find -name apt-get -o -name install -exec sh).
 */
static int
runs_at(struct scan *s, size_t j)
{
	const char *a;
	size_t k;

	if (j == 0)
		return 1;
	if ((!is_indirect_runner(s->c->exe.given) && !is_indirect_runner(s->c->exe.path)) ||
	    strcmp(base_name(s->c->exe.path), "find") == 0)
		return 0;
	for (k = 1; k < j; k++) {
		a = s->argv[k];
		if (a[0] == '-' || prefix_word(a))
			continue;
		if (!is_indirect_runner(a) || strcmp(base_name(a), "find") == 0)
			return 0;
	}
	return 1;
}

/* The words after update-alternatives at argv[j]: a name is no
 * program; a link or a path is a file, judged as one (writable_argument,
 * /proc paths), but what it names is not run here. */
static void
alternatives_exempt(struct scan *s, size_t j)
{
	const struct alt_command *a;
	size_t i, k, n;

	for (i = j + 1; i < s->argc; i++)
		for (a = alt_commands; a < alt_commands + sizeof alt_commands /
		    sizeof alt_commands[0]; a++) {
			if (strcmp(s->argv[i], a->name) != 0)
				continue;
			for (k = 0, n = i; k < a->n && n + 1 < s->argc; k++) {
				n++;
				if (a->words[k] == 'n')
					s->exempt[n] = 1;
				else if (a->words[k] != 'x')
					s->recorded[n] = 1;
			}
			i = n;
			break;
		}
}

static void
find_exempt(struct scan *s)
{
	size_t i, j;

	for (j = 0; j < s->argc; j++) {
		if (s->exempt[j] || !runs_at(s, j))
			continue;
		if (word_names(s, j, apt_tools) || word_names(s, j, other_pkg_tools))
			exempt_operands(s, j, 1);
		else if (word_names(s, j, dpkg_tools)) {
			for (i = j + 1; i < s->argc; i++)
				if (in(dpkg_name_actions, s->argv[i]))
					break;
			if (i < s->argc)
				exempt_operands(s, j, 0);
		} else if (word_names(s, j, unit_tools)) {
			/* names, and --opt=NAME, up to the first other word */
			for (i = j + 1; i < s->argc; i++) {
				const char *a = s->argv[i], *eq = strchr(a, '=');

				if (a[0] == '-' && eq != NULL && pkg_shaped(eq + 1))
					s->exempt[i] = 1;
				else if (pkg_shaped(a))
					s->exempt[i] = 1;
				else if (a[0] != '-')
					break;
			}
		} else if (word_names(s, j, alternatives_tools)) {
			alternatives_exempt(s, j);
		} else if (word_names(s, j, shell_setters) || word_names(s, j, account_tools)) {
			int names = word_names(s, j, account_tools);

			/* the login shell recorded, not run; names */
			for (i = j + 1; i < s->argc; i++) {
				const char *a = s->argv[i];

				if (names && pkg_shaped(a))
					s->exempt[i] = 1;
				else if ((strcmp(a, "-s") == 0 || strcmp(a, "--shell") == 0) &&
				    i + 1 < s->argc)
					s->exempt[++i] = 1;
				else if (strncmp(a, "--shell=", 8) == 0 ||
				    (strncmp(a, "-s", 2) == 0 && a[2] == '/'))
					s->exempt[i] = 1;
			}
		}
	}
}

/* --- Strings handed to a shell anywhere ------------------------------ */

/* ssh options (any case, -o or a config value) that run a command or
 * load code. */
static const char *const ssh_keywords[] = {
	"proxycommand", "localcommand", "knownhostscommand",
	"pkcs11provider", "securitykeyprovider", "sshcommand", NULL
};
/* APT configuration names (X::Y) that run a command. */
static const char *const apt_keywords[] = {
	"invoke", "pre-install-pkgs", "dir::bin", "proxy-auto-detect",
	"command", NULL
};
/* Long options that, whatever tool takes them, hand a command to run. */
static const char *const hook_options[] = {
	"to-command", "use-compress-program", "compress-program", "rsh",
	"rsh-command", "rmt-command", "info-script", "new-volume-script",
	"upload-pack", "receive-pack", "unzip-command", "pre-invoke",
	"post-invoke", "status-logger", "eval-command", "init-eval-command",
	"config-env", NULL
};

static int
in_n(const char *const *list, const char *w, size_t n)
{
	for (; *list != NULL; list++)
		if (strlen(*list) == n && strncmp(*list, w, n) == 0)
			return 1;
	return 0;
}

static int
contains_ci(const char *w, const char *const *keys)
{
	for (; *keys != NULL; keys++)
		if (ascii_casestr(w, *keys) != NULL)
			return 1;
	return 0;
}

/* A word (or a value in it) that is itself a hook: why, or NULL. */
static const char *
hook_word(const char *w)
{
	const char *eq;
	size_t n;

	if (contains_ci(w, ssh_keywords))
		return "an ssh option that runs a command";
	if (strstr(w, "::") != NULL && contains_ci(w, apt_keywords))
		return "an APT option that runs a command";
	for (; w != NULL; w = (eq = strchr(w, '=')) != NULL ? eq + 1 : NULL) {
		if (strncmp(w, "--", 2) != 0)
			continue;
		n = strcspn(w + 2, "=");
		if ((n == 17 && strncmp(w + 2, "checkpoint-action", n) == 0 &&
		    ascii_casestr(w, "exec") != NULL) ||
		    (n > 0 && in_n(hook_options, w + 2, n)))
			return "an option that hands a command to a shell";
	}
	return NULL;
}

/* --- Tools and their inline-code options ------------------------------ */

#define T_LONGONLY	0x1	/* getopt_long_only: long options with one dash */
#define T_LATE		0x2	/* judged after the denylist word scan */
#define T_INTERP	0x4	/* an interpreter: named in a string, refused */

struct tool {
	const char *const *names;	/* fnmatch(3) patterns on a basename */
	int		   flags;
	const char	  *inline_short;	/* letters that take code */
	const char	  *arg_short;	/* letters taking a value, joined or next */
	const char	  *joined_short;	/* letters whose value is only joined */
	const char	  *digit_short;	/* letters with optional joined digits */
	const char *const *inline_long;	/* matched by prefix (opt_abbrev) */
	int		 (*check)(struct scan *, size_t);
	const char	  *what;
};

#define L(...)	((const char *const []){ __VA_ARGS__, NULL })

static int check_sed(struct scan *, size_t);
static int check_python(struct scan *, size_t);
static int check_awk(struct scan *, size_t);
static int check_perl(struct scan *, size_t);
static int check_tar(struct scan *, size_t);
static int check_git(struct scan *, size_t);
static int check_zip(struct scan *, size_t);
static int check_find(struct scan *, size_t);
static int check_xargs(struct scan *, size_t);
static int check_run_parts(struct scan *, size_t);
static int check_watch(struct scan *, size_t);
static int check_flock(struct scan *, size_t);
static int check_nsenter(struct scan *, size_t);
static int check_gdb(struct scan *, size_t);
static int check_pid_tool(struct scan *, size_t);
static int check_symlinker(struct scan *, size_t);
static int check_alternatives(struct scan *, size_t);

static const struct tool tools[] = {
	{ L("python", "python[0-9]*", "pypy", "pypy[0-9]*"), T_INTERP,
	  "c", "mWX", NULL, NULL, NULL, check_python, "Python code" },
	{ L("perl", "perl[0-9]*"), T_INTERP,
	  "eE", "IMm", "dDFix", "0lC", NULL, check_perl, "Perl code" },
	{ L("ruby", "ruby[0-9]*"), T_INTERP,
	  "eE", "CFIKr", "iTWx", "0", NULL, NULL, "Ruby code" },
	{ L("node", "nodejs", "node[0-9]*"), T_INTERP,
	  "ep", "r", NULL, NULL, L("eval", "print", "import", "require", "loader",
	  "experimental-loader", "run"), NULL, "JavaScript code" },
	{ L("php", "php[0-9]*"), T_INTERP,
	  "rRBE", "dfFtzS", NULL, NULL, L("run", "process-begin", "process-code",
	  "process-end"), NULL, "PHP code" },
	{ L("lua", "lua[0-9]*", "luajit*"), T_INTERP,
	  "e", "l", NULL, NULL, NULL, NULL, "Lua code" },
	{ L("Rscript", "R"), T_INTERP,
	  "e", NULL, NULL, NULL, NULL, NULL, "R code" },
	{ L("julia", "julia-*"), T_INTERP,
	  "eE", NULL, NULL, NULL, L("eval", "print"), NULL, "Julia code" },
	{ L("expect"), T_INTERP,
	  "c", "bDf", NULL, NULL, NULL, NULL, "Tcl code" },
	{ L("dc"), T_INTERP,
	  "e", "f", NULL, NULL, L("expression"), NULL, "dc code (its ! runs a shell)" },
	{ L("awk", "gawk", "mawk", "nawk", "original-awk"), T_INTERP,
	  NULL, NULL, NULL, NULL, NULL, check_awk, "an awk program" },
	{ L("sed", "gsed"), T_INTERP,
	  NULL, NULL, NULL, NULL, NULL, check_sed, "a sed script that runs commands" },
	{ L("gdb", "gdb-multiarch"), T_INTERP | T_LONGONLY,
	  NULL, NULL, NULL, NULL, L("eval-command", "command", "init-command",
	  "init-eval-command", "ex", "iex", "x", "ix"), check_gdb, "debugger commands" },
	{ L("lldb", "lldb-*"), T_INTERP,
	  "oOkKsS", NULL, NULL, NULL, L("one-line", "one-line-before-file",
	  "one-line-on-crash", "source", "source-before-file",
	  "source-on-crash", "source-quietly"), NULL, "debugger commands" },
	{ L("man"), 0,
	  "PH", "CELMmRSet", NULL, NULL, L("pager", "html", "preprocessor"), NULL,
	  "a pager or browser command for sh -c" },
	{ L("make", "gmake"), 0,
	  "E", "CfIoW", NULL, NULL, L("eval"), NULL, "make code" },
	{ L("tar", "gtar", "bsdtar"), 0,
	  "IF", "bCfgGHKLNTVX", NULL, NULL, L("to-command", "use-compress-program",
	  "rsh-command", "rmt-command", "info-script", "new-volume-script"),
	  check_tar, "a command for sh -c" },
	{ L("scp"), 0,
	  "S", "cDFiJlOoPX", NULL, NULL, NULL, NULL, "a program to run" },
	{ L("sftp"), 0,
	  "SD", "BbcFiJlOoPRsX", NULL, NULL, NULL, NULL, "a program to run" },
	{ L("rsync"), 0,
	  "e", "BfMT@", NULL, NULL, L("rsh", "rsync-path"), NULL,
	  "a command for the remote shell" },
	{ L("sort", "gsort"), 0,
	  NULL, NULL, NULL, NULL, L("compress-program"), NULL, "a program to run" },
	{ L("zip"), 0,
	  NULL, NULL, NULL, NULL, L("unzip-command"), check_zip, "a command for sh -c" },
	{ L("dpkg"), 0,
	  NULL, NULL, NULL, NULL, L("pre-invoke", "post-invoke", "status-logger"),
	  NULL, "a command for sh -c" },
	{ L("git"), 0, NULL, NULL, NULL, NULL, NULL, check_git, "a command git runs" },
	{ L("find"), 0, NULL, NULL, NULL, NULL, NULL, check_find, NULL },
	{ L("xargs"), 0, NULL, NULL, NULL, NULL, NULL, check_xargs, NULL },
	{ L("run-parts"), 0, NULL, NULL, NULL, NULL, NULL, check_run_parts, NULL },
	{ L("watch"), 0, NULL, NULL, NULL, NULL, NULL, check_watch, NULL },
	{ L("flock"), 0, NULL, NULL, NULL, NULL, NULL, check_flock, NULL },
	{ L("nsenter"), 0, NULL, NULL, NULL, NULL, NULL, check_nsenter, NULL },
	{ L("ln", "gln", "cp", "gcp"), 0, NULL, NULL, NULL, NULL, NULL, check_symlinker, NULL },
	{ L("update-alternatives"), 0, NULL, NULL, NULL, NULL, NULL, check_alternatives, NULL },
	{ L("strace", "ltrace", "gcore", "gdbserver", "perf", "pstack", "eu-stack",
	  "criu", "bpftrace"), 0, NULL, NULL, NULL, NULL, NULL, check_pid_tool, NULL },
	{ L("env"), T_LATE,
	  "S", "uCa", NULL, NULL, L("split-string"), NULL,
	  "a command line split at run time" },
};

static int
is_interpreter(const struct scan *s, const char *word)
{
	size_t t;

	for (t = 0; t < sizeof tools / sizeof tools[0]; t++)
		if ((tools[t].flags & T_INTERP) && names(s, word, tools[t].names))
			return 1;
	return 0;
}

static int
inline_refuse(struct scan *s, const struct tool *t, size_t j, size_t i)
{
	return hit(s, "shell_request", i, "'%s' hands %s to '%s' here; ROOT commands "
	    "must be exact argv (put code in a root-owned file, see files)",
	    s->argv[i], t->what, s->argv[j]);
}

/* Past the value joined to perl's -0, -l or -C (its digits or flag
 * letters); the cluster goes on after it. */
static const char *
skip_digits(const char *p)
{
	const char *set = *p == 'C' ? "0123456789IOEioSDALa" : "01234567";

	if (*p == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p++;
		set = "0123456789abcdefABCDEF";
	}
	while (p[1] != '\0' && strchr(set, p[1]) != NULL)
		p++;
	return p;
}

/* Options of the tool at argv[j], in clusters and by prefix. */
static int
walk_options(struct scan *s, const struct tool *t, size_t j)
{
	const char *a, *p;
	size_t i;

	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-' || a[1] == '\0')
			continue;
		if (a[1] == '-' || (t->flags & T_LONGONLY)) {
			if (abbrev_in(a, t->inline_long))
				return inline_refuse(s, t, j, i);
			continue;
		}
		for (p = a + 1; *p != '\0'; p++) {
			if (t->inline_short != NULL && strchr(t->inline_short, *p) != NULL)
				return inline_refuse(s, t, j, i);
			if (t->arg_short != NULL && strchr(t->arg_short, *p) != NULL) {
				if (p[1] == '\0')
					i++;
				break;
			}
			if (t->joined_short != NULL && strchr(t->joined_short, *p) != NULL)
				break;
			if (t->digit_short != NULL && strchr(t->digit_short, *p) != NULL)
				p = skip_digits(p);
		}
	}
	return 0;
}

/* --- sed scripts ------------------------------------------------------ */

/* Past a regular expression (or a y/s part) ending at delim. */
static const char *
skip_delimited(const char *p, char delim)
{
	for (; *p != '\0' && *p != delim; p++)
		if (*p == '\\' && p[1] != '\0')
			p++;
	return *p == delim ? p + 1 : NULL;
}

static const char *
skip_address(const char *p)
{
	if (*p == '/')
		p = skip_delimited(p + 1, '/');
	else if (*p == '\\' && p[1] != '\0' && p[1] != '\n')
		p = skip_delimited(p + 2, p[1]);
	else if (*p == '$')
		p++;
	else
		while (ascii_isdigit((unsigned char)*p) || *p == '~' || *p == '+')
			p++;
	while (p != NULL && (*p == 'I' || *p == 'M'))
		p++;
	return p;
}

static const char *
skip_to(const char *p, const char *stops)
{
	while (*p != '\0' && strchr(stops, *p) == NULL) {
		if (*p == '\\' && p[1] != '\0')
			p++;
		p++;
	}
	return p;
}

/*
 * Would this GNU sed script run a command: an 'e' command, or an 's'
 * command with the 'e' flag? A script this scan cannot follow counts as
 * one that would.
 */
int
sed_script_runs(const char *p)
{
	char delim;

	for (;;) {
		while (*p != '\0' && (ascii_isspace((unsigned char)*p) || *p == ';' ||
		    *p == '{' || *p == '}'))
			p++;
		if (*p == '\0')
			return 0;
		if (*p == '#') {
			p = skip_to(p, "\n");
			continue;
		}
		if ((p = skip_address(p)) == NULL)
			return 1;
		if (*p == ',' && (p = skip_address(p + 1)) == NULL)
			return 1;
		while (ascii_isspace((unsigned char)*p) || *p == '!')
			p++;
		switch (*p) {
		case 'e':
			return 1;
		case 's':
		case 'y':
			if ((delim = p[1]) == '\0' || delim == '\n' || delim == '\\')
				return 1;
			if ((p = skip_delimited(p + 2, delim)) == NULL ||
			    (p = skip_delimited(p, delim)) == NULL)
				return 1;
			for (; *p != '\0' && strchr(";\n}", *p) == NULL; p++) {
				if (*p == 'e')
					return 1;
				if (*p == 'w') {	/* a file name to the end of the line */
					p = skip_to(p, "\n");
					break;
				}
			}
			break;
		case 'a': case 'i': case 'c': case 'r': case 'R': case 'w': case 'W':
			p = skip_to(p + 1, "\n");
			break;
		case 'b': case 't': case 'T': case ':': case 'v':
			p = skip_to(p + 1, ";\n}");
			break;
		case 'l': case 'L': case 'q': case 'Q':
			p++;
			while (ascii_isdigit((unsigned char)*p) || *p == ' ')
				p++;
			break;
		case '=': case 'd': case 'D': case 'g': case 'G': case 'h': case 'H':
		case 'n': case 'N': case 'p': case 'P': case 'x': case 'z': case 'F':
			p++;
			break;
		default:
			return 1;
		}
	}
}

static int
check_sed(struct scan *s, size_t j)
{
	const char *a, *p, *v;
	size_t i, op = 0;
	int script = 0, dashdash = 0;

	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (!dashdash && strncmp(a, "--", 2) == 0 && opt_abbrev(a, "sandbox") &&
		    !opt_abbrev(a, "separate") && !opt_abbrev(a, "silent"))
			return 0;	/* GNU sed refuses e, r and w then */
	}
	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (dashdash || a[0] != '-' || a[1] == '\0') {
			if (op == 0)
				op = i;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			dashdash = 1;
			continue;
		}
		if (a[1] == '-') {
			if (opt_abbrev(a, "expression")) {
				script = 1;
				if ((v = opt_value(s, i)) != NULL && sed_script_runs(v))
					return hit(s, "shell_request", strchr(a, '=') ? i : i + 1,
					    "this sed script runs a command (e, or s///e); use an exact argv");
			} else if (opt_abbrev(a, "file"))
				script = 1;
			else if (!opt_abbrev(a, "line-length"))
				continue;
			if (strchr(a, '=') == NULL)
				i++;
			continue;
		}
		for (p = a + 1; *p != '\0'; p++) {
			if (*p == 'e' || *p == 'f' || *p == 'l') {
				v = p[1] != '\0' ? p + 1 : i + 1 < s->argc ? s->argv[++i] : NULL;
				if (*p != 'l')
					script = 1;
				if (*p == 'e' && v != NULL && sed_script_runs(v))
					return hit(s, "shell_request", i,
					    "this sed script runs a command (e, or s///e); use an exact argv");
				break;
			}
			if (*p == 'i')	/* -i[SUFFIX] */
				break;
		}
	}
	if (!script && op != 0 && sed_script_runs(s->argv[op]))
		return hit(s, "shell_request", op,
		    "this sed script runs a command (e, or s///e); use an exact argv");
	return 0;
}

/* --- awk, perl, tar, zip, git ---------------------------------------- */

static int
check_awk(struct scan *s, size_t j)
{
	static const char *const value_long[] = {
		"assign", "field-separator", "file", "exec", "include", "load", NULL
	};
	const char *a, *p;
	size_t i;
	int file = 0;

	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break;
		if (a[1] == '-') {
			if (opt_abbrev(a, "source"))
				return hit(s, "shell_request", i,
				    "'%s' gives awk program text; use -f with a root-owned file", a);
			if ((opt_abbrev(a, "file") && !opt_abbrev(a, "field-separator")) ||
			    opt_abbrev(a, "exec"))
				file = 1;
			if (strchr(a, '=') == NULL && abbrev_in(a, value_long))
				i++;
			continue;
		}
		for (p = a + 1; *p != '\0'; p++) {
			if (*p == 'e')
				return hit(s, "shell_request", i,
				    "'%s' gives awk program text; use -f with a root-owned file", a);
			if (*p == 'f' || *p == 'E')
				file = 1;
			if (strchr("fEvFWil", *p) != NULL) {
				if (p[1] == '\0')
					i++;
				break;
			}
			if (strchr("dDLop", *p) != NULL)
				break;
		}
	}
	if (!file && i < s->argc)
		return hit(s, "shell_request", i,
		    "an awk program is inline code (awk can run commands); use -f with a "
		    "root-owned file");
	return 0;
}

/* perl -M and -m take a module, and with it a 'use' line: no code. */
static int
check_perl(struct scan *s, size_t j)
{
	const char *a, *p, *v;
	size_t i;

	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (a[0] != '-' || strcmp(a, "--") == 0)
			break;
		for (p = a + 1; *p != '\0'; p++) {
			if (*p == 'M' || *p == 'm') {
				v = p[1] != '\0' ? p + 1 : i + 1 < s->argc ? s->argv[++i] : "";
				if (v[strspn(v, "-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_:=,.")] != '\0')
					return hit(s, "shell_request", i,
					    "'%s' is Perl code, not a module name", v);
				break;
			}
			if (strchr("IdDFix", *p) != NULL) {
				if (*p == 'I' && p[1] == '\0')
					i++;
				break;
			}
			if (strchr("0lC", *p) != NULL)
				p = skip_digits(p);
		}
	}
	return 0;
}

static int
check_tar(struct scan *s, size_t j)
{
	const char *a, *v;
	size_t i;

	/* the old style: a first argument of letters without a dash */
	if (j + 1 < s->argc && s->argv[j + 1][0] != '-' &&
	    strpbrk(s->argv[j + 1], "IF") != NULL)
		return hit(s, "shell_request", j + 1,
		    "tar's I or F hands a command to sh -c; use an exact argv");
	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (strcmp(a, "--") == 0)
			break;
		/* --checkpoint is an option of its own; longer prefixes are
		 * --checkpoint-action, whose exec= runs sh -c */
		if (strncmp(a, "--", 2) == 0 && strcspn(a + 2, "=") > 10 &&
		    opt_abbrev(a, "checkpoint-action") &&
		    (v = opt_value(s, i)) != NULL && ascii_casestr(v, "exec") != NULL)
			return hit(s, "shell_request", i,
			    "tar's checkpoint exec action hands a command to sh -c");
	}
	return 0;
}

static int
check_zip(struct scan *s, size_t j)
{
	size_t i;

	for (i = j + 1; i < s->argc; i++)
		if (s->argv[i][0] == '-' && s->argv[i][1] != '-' &&
		    strstr(s->argv[i], "TT") != NULL)
			return hit(s, "shell_request", i,
			    "zip -TT hands a command to sh -c; use an exact argv");
	return 0;
}

static int
has_short(const char *a, int letter)
{
	return a[0] == '-' && a[1] != '-' && strchr(a + 1, letter) != NULL;
}

static int
check_git(struct scan *s, size_t j)
{
	/* configuration names whose value is a command */
	static const char *const cmd_keys[] = {
		"pager", "editor", "sshcommand", "fsmonitor", "hookspath",
		"alias.", "helper", "filter.", "program", "textconv", "askpass",
		"gitproxy", "command", "cmd", "external", "uploadpack",
		"receivepack", "sequence.", "exec", NULL
	};
	static const char *const sub_hooks[] = {
		"upload-pack", "receive-pack", "exec", "extcmd",
		"open-files-in-pager", "sendmail-cmd", "to-cmd", "cc-cmd",
		"header-cmd", NULL
	};
	const char *a, *sub = NULL;
	size_t i;

	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (sub == NULL) {
			if (strncmp(a, "-c", 2) == 0 || (strncmp(a, "--", 2) == 0 &&
			    (opt_abbrev(a, "config-env") || strncmp(a, "--exec-path=", 12) == 0)))
				return hit(s, "shell_request", i,
				    "'%s' changes git's configuration or helpers, which name "
				    "commands git runs", a);
			if (strcmp(a, "-C") == 0 || strcmp(a, "--git-dir") == 0 ||
			    strcmp(a, "--work-tree") == 0 || strcmp(a, "--namespace") == 0)
				i++;
			else if (a[0] != '-')
				sub = a;
			if (sub != NULL && strcmp(sub, "filter-branch") == 0)
				return hit(s, "shell_request", i,
				    "git filter-branch runs its filters through sh -c");
			continue;
		}
		if ((strncmp(a, "--", 2) == 0 && abbrev_in(a, sub_hooks)) ||
		    ((strcmp(sub, "clone") == 0 || strcmp(sub, "ls-remote") == 0) &&
		    has_short(a, 'u')) ||
		    ((strcmp(sub, "rebase") == 0 || strcmp(sub, "difftool") == 0) &&
		    has_short(a, 'x')) ||
		    (strcmp(sub, "grep") == 0 && has_short(a, 'O')) ||
		    (strcmp(sub, "submodule") == 0 && strcmp(a, "foreach") == 0) ||
		    (strcmp(sub, "bisect") == 0 && strcmp(a, "run") == 0) ||
		    (strcmp(sub, "config") == 0 && contains_ci(a, cmd_keys)))
			return hit(s, "shell_request", i,
			    "'%s' makes git %s run a command; use an exact argv", a, sub);
	}
	return 0;
}

/* --- Runners whose program must be literal ---------------------------- */

/* A program named literally: an absolute path to an executable regular
 * file or a bare name on the trusted path; its real path in real. */
static int
literal_program(const struct requester *p, const char *w, char real[PATH_MAX])
{
	char found[PATH_MAX];
	struct stat st;
	int fd, rc;

	if (w[0] != '/') {
		if (exe_lookup(w, found, sizeof found) != 0)
			return 0;
		w = found;
	}
	if ((fd = reach_path(p, w, 1, real)) < 0)
		return 0;
	rc = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0;
	close(fd);
	return rc;
}

/* The program a runner runs, from argv[i]: literal, and not replaceable. */
static int
runner_program(struct scan *s, size_t i, const char *runner)
{
	char real[PATH_MAX], why[PATH_MAX + 128];
	int rc;

	if (strstr(s->argv[i], "{}") != NULL ||
	    (!s->text_only && !literal_program(s->p, s->argv[i], real)))
		return hit(s, "bad_executable", i, "%s would run '%s', a program decided "
		    "only at run time; name an executable literally", runner, s->argv[i]);
	/* another machine's program: there, and judged there */
	if (s->text_only)
		return 0;
	if ((rc = path_replaceable(s->p, real, why, sizeof why)) != 0)
		return hit(s, "writable_executable", i, "%s", rc > 0 ? why :
		    "the program's path cannot be checked");
	return 0;
}

static int
check_find(struct scan *s, size_t j)
{
	static const char *const acts[] = {
		"-exec", "-execdir", "-ok", "-okdir", NULL
	};
	size_t i;
	int rc;

	for (i = j + 1; i + 1 < s->argc; i++)
		if (in(acts, s->argv[i]) && (rc = runner_program(s, i + 1, "find")) != 0)
			return rc;
	return 0;
}

static int
check_xargs(struct scan *s, size_t j)
{
	static const char *const value_long[] = {
		"delimiter", "max-args", "max-procs", "max-chars",
		"process-slot-var", NULL
	};
	const char *a, *p, *repl = NULL;
	size_t i;

	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break;
		if (a[1] == '-') {
			if (opt_abbrev(a, "arg-file"))
				return hit(s, "bad_executable", i, "xargs would read its "
				    "command line from a file at run time");
			if (opt_abbrev(a, "replace"))
				repl = strchr(a, '=') != NULL ? strchr(a, '=') + 1 : "{}";
			else if (strchr(a, '=') == NULL && abbrev_in(a, value_long))
				i++;
			continue;
		}
		for (p = a + 1; *p != '\0'; p++) {
			if (*p == 'a')
				return hit(s, "bad_executable", i, "xargs would read its "
				    "command line from a file at run time");
			if (*p == 'I') {
				repl = p[1] != '\0' ? p + 1 : i + 1 < s->argc ? s->argv[++i] : NULL;
				break;
			}
			if (*p == 'i') {
				repl = p[1] != '\0' ? p + 1 : "{}";
				break;
			}
			if (strchr("dELnPs", *p) != NULL) {
				if (p[1] == '\0')
					i++;
				break;
			}
			if (strchr("el", *p) != NULL)
				break;
		}
	}
	if (i < s->argc && ((repl != NULL && *repl != '\0' && strstr(s->argv[i], repl)) ||
	    strstr(s->argv[i], "{}") != NULL))
		return runner_program(s, i, "xargs");
	return 0;
}

/*
 * update-alternatives --config (and --all, which asks for every group)
 * shows a menu and reads the choice from standard input: a ROOT command's
 * is /dev/null, so it would keep the current choice and report success.
 */
static int
check_alternatives(struct scan *s, size_t j)
{
	size_t i;

	for (i = j + 1; i < s->argc; i++)
		if (strcmp(s->argv[i], "--config") == 0 || strcmp(s->argv[i], "--all") == 0)
			return hit(s, "interactive_program", i, "update-alternatives %s asks "
			    "which alternative to use and reads the answer from standard input, "
			    "which is /dev/null for ROOT commands: it would change nothing; use "
			    "--set NAME PATH (or --auto NAME)", s->argv[i]);
	return 0;
}

static int
check_run_parts(struct scan *s, size_t j)
{
	const char *a;
	size_t i;

	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if ((strncmp(a, "--", 2) == 0 && (opt_abbrev(a, "arg") ||
		    opt_abbrev(a, "regex"))) || has_short(a, 'a'))
			return hit(s, "bad_executable", i, "run-parts would pick programs, and "
			    "pass them arguments, at run time; name each program in its own command");
	}
	return 0;
}

/* watch runs its arguments through sh -c unless -x/--exec comes among
 * its options, which end at the first operand (procps parses with '+'). */
static int
check_watch(struct scan *s, size_t j)
{
	const char *a;
	size_t i;

	for (i = j + 1; i < s->argc && s->argv[i][0] == '-'; i++) {
		a = s->argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (strcmp(a, "-x") == 0 || strcmp(a, "--exec") == 0)
			return 0;
		if (strcmp(a, "-n") == 0 || strcmp(a, "-q") == 0 ||
		    strcmp(a, "--interval") == 0 || strcmp(a, "--equexit") == 0)
			i++;
	}
	return hit(s, "shell_request", j,
	    "'%s' runs its arguments through sh -c here; use an exact argv", s->argv[j]);
}

/*
 * flock hands a string to sh -c when -c or --command (util-linux takes
 * any abbreviation here as the same) follows its lock file operand. Its
 * options end at the first operand; -w, -E and their long forms, by
 * prefix, take the next element.
 */
static int
check_flock(struct scan *s, size_t j)
{
	static const char *const value_long[] = {
		"timeout", "wait", "conflict-exit-code", NULL
	};
	const char *a, *p;
	size_t i;

	for (i = j + 1; i < s->argc && s->argv[i][0] == '-'; i++) {
		a = s->argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[1] == '-') {
			if (strchr(a, '=') == NULL && abbrev_in(a, value_long))
				i++;
			continue;
		}
		for (p = a + 1; *p != '\0'; p++)
			if (*p == 'w' || *p == 'E') {
				if (p[1] == '\0')
					i++;
				break;
			}
	}
	if (i + 1 < s->argc && (strcmp(s->argv[i + 1], "-c") == 0 ||
	    (strncmp(s->argv[i + 1], "--", 2) == 0 && opt_abbrev(s->argv[i + 1], "command"))))
		return hit(s, "shell_request", j,
		    "'%s' runs its arguments through sh -c here; use an exact argv", s->argv[j]);
	return 0;
}

/* The dynamic loader's program: its first operand, after its options. */
static int
check_loader(struct scan *s)
{
	static const char *const value_opts[] = {
		"--library-path", "--preload", "--audit", "--argv0",
		"--inhibit-rpath", "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask", NULL
	};
	size_t i;

	for (i = 1; i < s->argc && s->argv[i][0] == '-'; i++) {
		if (strcmp(s->argv[i], "--") == 0) {
			i++;
			break;
		}
		if (in(value_opts, s->argv[i]))
			i++;
	}
	return i < s->argc ? runner_program(s, i, "the dynamic loader") : 0;
}

/* A relative path with a slash (./x, bin/x) to an executable file from
 * the command's working directory: whatever runs it would run whatever is
 * there at run time. */
static int
relative_program(const struct requester *p, const struct wcommand *c, const char *w)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct stat st;
	int fd, rc;

	if (w[0] == '/' || strchr(w, '/') == NULL ||
	    (size_t)snprintf(path, sizeof path, "%s/%s", c->cwd, w) >= sizeof path ||
	    (fd = reach_path(p, path, 1, real)) < 0)
		return 0;
	rc = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0;
	close(fd);
	return rc;
}

/* python -m with a module that runs code given in its arguments. */
static int
check_python(struct scan *s, size_t j)
{
	static const char *const code_modules[] = {
		"timeit", "pdb", "code", "asyncio", "idlelib", "cProfile",
		"profile", "trace", "doctest", NULL
	};
	const char *a, *p, *v;
	size_t i;

	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (a[0] != '-' || strcmp(a, "--") == 0)
			break;
		for (p = a + 1; *p != '\0'; p++) {
			if (*p == 'W' || *p == 'X') {
				if (p[1] == '\0')
					i++;
				break;
			}
			if (*p != 'm')
				continue;
			v = p[1] != '\0' ? p + 1 : i + 1 < s->argc ? s->argv[i + 1] : "";
			if (in(code_modules, v))
				return hit(s, "shell_request", i, "python -m %s runs code given in "
				    "its arguments; use a root-owned script", v);
			return 0;
		}
	}
	return 0;
}

/* --- Symbolic links root would make --------------------------------- */

/*
 * A relative symbolic link is resolved from the directory the link is
 * in, not from the cwd of the command that made it: ln -s ../../tmp/x
 * /etc/profile.d/x points at /tmp/x whatever the cwd. Each relative
 * target of ln -s (and cp -s) is judged as root will later find it,
 * from the link's directory (writable_argument). The link is in -t DIR,
 * in the last operand when there are several targets or it is an
 * existing directory (not with -T, nor with -n when it is a symbolic
 * link), else in the last operand's directory; a lone target gets its
 * link in the cwd, as the word scan already judges it. ln -r makes the
 * link relative to where the target is from the cwd: judged there too.
 * GNU getopt permutes: options count wherever they are, up to "--".
 */
static int
judge_link_target(struct scan *s, size_t i, const char *dir)
{
	char full[2 * PATH_MAX], why[PATH_MAX + 128];
	const char *t = s->argv[i];
	int rc;

	if (t[0] == '/' || t[0] == '\0' || s->text_only)
		return 0;	/* absolute: judged as a path like any word */
	if ((size_t)snprintf(full, sizeof full, "%s%s%s/%s",
	    dir[0] == '/' ? "" : s->c->cwd, dir[0] == '/' || strcmp(s->c->cwd, "/") == 0 ?
	    "" : "/", dir, t) >= sizeof full)
		return hit(s, "writable_argument", i, "the symbolic link's target '%s' is "
		    "too long to be checked", t);
	if ((rc = path_changeable_by(s->p, full, why, sizeof why)) > 0)
		return hit(s, "writable_argument", i, "the symbolic link would point at '%s', "
		    "which root resolves from the link's directory as %s, a path the "
		    "requester can change: %s", t, full, why);
	if (rc < 0)
		return hit(s, "writable_argument", i, "the symbolic link would point at '%s', "
		    "resolved from the link's directory as %s, which cannot be checked", t, full);
	return 0;
}

static int
check_symlinker(struct scan *s, size_t j)
{
	static const char *const cp_value_long[] = {
		"suffix", "sparse", "no-preserve", NULL
	};
	const char *a, *p, *tdir = NULL, *last;
	char dir[PATH_MAX], *slash;
	size_t i, op[MAX_ARGV], nop = 0, k;
	int cp = word_names(s, j, L("cp", "gcp")), sym = 0, notdir = 0, nodef = 0,
	    rel = 0, dashdash = 0, rc;
	struct stat st;

	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (dashdash || a[0] != '-' || a[1] == '\0') {
			op[nop++] = i;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			dashdash = 1;
			continue;
		}
		if (a[1] == '-') {
			if (opt_abbrev(a, cp ? "symbolic-link" : "symbolic"))
				sym = 1;
			else if (opt_abbrev(a, "target-directory")) {
				tdir = opt_value(s, i);
				if (strchr(a, '=') == NULL)
					i++;
			} else if (opt_abbrev(a, "no-target-directory"))
				notdir = 1;
			else if (!cp && opt_abbrev(a, "no-dereference"))
				nodef = 1;
			else if (!cp && opt_abbrev(a, "relative"))
				rel = 1;
			else if (strchr(a, '=') == NULL && (cp ? abbrev_in(a, cp_value_long) :
			    opt_abbrev(a, "suffix")))
				i++;
			continue;
		}
		for (p = a + 1; *p != '\0'; p++) {
			if (*p == 's')
				sym = 1;
			else if (*p == 'T')
				notdir = 1;
			else if (*p == 'n' && !cp)
				nodef = 1;
			else if (*p == 'r' && !cp)
				rel = 1;
			else if (*p == 't' || *p == 'S') {
				const char *v = p[1] != '\0' ? p + 1 :
				    i + 1 < s->argc ? s->argv[++i] : NULL;

				if (*p == 't')
					tdir = v;
				break;
			}
		}
	}
	/* ln -r: the target is found from the cwd, as the word scan judges it */
	if (!sym || rel || nop == 0)
		return 0;
	if (tdir != NULL) {
		for (k = 0; k < nop; k++)
			if ((rc = judge_link_target(s, op[k], tdir)) != 0)
				return rc;
		return 0;
	}
	if (nop == 1)
		return 0;	/* the link is in the cwd */
	last = s->argv[op[nop - 1]];
	if ((size_t)snprintf(dir, sizeof dir, "%s%s%s", last[0] == '/' ? "" : s->c->cwd,
	    last[0] == '/' || strcmp(s->c->cwd, "/") == 0 ? "" : "/", last) >= sizeof dir)
		return hit(s, "writable_argument", op[nop - 1], "'%s' is too long to be "
		    "checked", last);
	/* into the directory, or as the last operand */
	if (notdir || (nop == 2 && !(stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    !(nodef && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))))) {
		if ((slash = strrchr(dir, '/')) == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
		return judge_link_target(s, op[0], dir);
	}
	for (k = 0; k + 1 < nop; k++)
		if ((rc = judge_link_target(s, op[k], dir)) != 0)
			return rc;
	return 0;
}

/* --- Processes root would enter or attach to ------------------------- */

/*
 * Root attaching to a process (ptrace: gdb, strace), reading its memory
 * or entering its namespaces (nsenter) would run or read what whoever
 * controls that process decides: refused (requester_process) when the
 * requester owns it, started it set-user-ID, or made its user namespace
 * (process_touchable), and when that cannot be told — a process that is
 * not there now may be the requester's by the time root runs.
 */
static int
all_digits(const char *w, size_t n)
{
	size_t i;

	if (n == 0 || n > 10)
		return 0;
	for (i = 0; i < n; i++)
		if (w[i] < '0' || w[i] > '9')
			return 0;
	return 1;
}

/* Judge one process id given as text (w, n bytes) at argv[i]. */
static int
judge_pid(struct scan *s, size_t i, const char *w, size_t n)
{
	char why[256];
	long pid;
	int rc;

	if (!all_digits(w, n) || (pid = strtol(w, NULL, 10)) <= 0 || pid > INT_MAX)
		return hit(s, "requester_process", i, "'%s' would name a process by '%.*s', "
		    "which is not a process id; name a process by its number", s->argv[i],
		    (int)(n < 64 ? n : 64), w);
	if (s->text_only)
		return 0;	/* another machine's process */
	if ((rc = process_touchable_by(s->p, (pid_t)pid, why, sizeof why)) > 0)
		return hit(s, "requester_process", i, "root would enter or attach to a process "
		    "the requester controls: %s", why);
	if (rc < 0)
		return hit(s, "requester_process", i, "root would enter or attach to process "
		    "%ld, which cannot be judged (%s); a process that is not there now may "
		    "be the requester's when root runs", pid, why);
	return 0;
}

/* A list of process ids (strace -p 1,2 or "1 2"); NULL: the value is
 * missing, which the tool refuses itself. */
static int
judge_pids(struct scan *s, size_t i, const char *v)
{
	size_t n;
	int rc;

	if (v == NULL)
		return 0;
	for (;;) {
		v += strspn(v, ", \t\n");
		if (*v == '\0')
			return 0;
		n = strcspn(v, ", \t\n");
		if ((rc = judge_pid(s, i, v, n)) != 0)
			return rc;
		v += n;
	}
}

/* /proc/PID/... in a word or after its '=': the files of a process
 * (its namespaces, root, cwd, mem, fd/N) are that process's to change. */
static int
proc_paths(struct scan *s, size_t i)
{
	const char *w = s->argv[i], *eq;
	size_t n;
	int rc;

	for (; w != NULL; w = (eq = strchr(w, '=')) != NULL ? eq + 1 : NULL) {
		if (strncmp(w, "/proc/", 6) != 0)
			continue;
		n = strcspn(w + 6, "/=");
		if (all_digits(w + 6, n) && (rc = judge_pid(s, i, w + 6, n)) != 0)
			return rc;
	}
	return 0;
}

/*
 * nsenter (getopt "+ahVt:m::u::i::n::p::C::U::T::S:G:r::w::W:FZ", long
 * options by prefix): the target of -t/--target is judged. A namespace
 * letter's joined value is its namespace file; one shaped "t" or "tPID"
 * (-mt PID, -mt123) is judged as a target too, as it was surely meant.
 * Entering namespaces (-a, a namespace option without a file) or taking
 * the target's root or directory (-r, -w without a value) with no target
 * named cannot be judged: refused.
 */
static int
check_nsenter(struct scan *s, size_t j)
{
	static const char *const ns_long[] = {
		"all", "mount", "uts", "ipc", "net", "pid", "cgroup", "user", "time",
		"root", "wd", NULL
	};
	static const char *const value_long[] = {
		"setuid", "setgid", "wdns", NULL
	};
	const char *a, *p, *v;
	size_t i, at = 0;
	int rc, target = 0;

	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (strcmp(a, "--") == 0 || a[0] != '-' || a[1] == '\0')
			break;
		if (a[1] == '-') {
			if (opt_abbrev(a, "target")) {
				target = 1;
				if ((rc = judge_pids(s, strchr(a, '=') ? i : i + 1,
				    opt_value(s, i))) != 0)
					return rc;
				if (strchr(a, '=') == NULL)
					i++;
			} else if (strchr(a, '=') != NULL)
				continue;
			else if (abbrev_in(a, ns_long)) {	/* --wd before --wdns */
				if (at == 0)
					at = i;
			} else if (abbrev_in(a, value_long))
				i++;
			continue;
		}
		for (p = a + 1; *p != '\0'; p++) {
			if (*p == 't') {
				target = 1;
				v = p[1] != '\0' ? p + 1 : i + 1 < s->argc ? s->argv[++i] : NULL;
				if ((rc = judge_pids(s, i, v)) != 0)
					return rc;
				break;
			}
			if (*p == 'S' || *p == 'G' || *p == 'W') {
				if (p[1] == '\0')
					i++;
				break;
			}
			if (strchr("muinpCUTrw", *p) != NULL) {
				if (p[1] == 't') {	/* -mt PID, -mtPID */
					v = p[2] != '\0' ? p + 2 : i + 1 < s->argc ?
					    s->argv[++i] : NULL;
					if (p[2] == '\0' || all_digits(p + 2, strlen(p + 2))) {
						target = 1;
						if ((rc = judge_pids(s, i, v)) != 0)
							return rc;
					}
				} else if (p[1] == '\0' && at == 0)
					at = i;
				break;
			}
			if (*p == 'a' && at == 0)
				at = i;
		}
	}
	if (!target && at != 0)
		return hit(s, "requester_process", at, "'%s' enters the namespaces of a target "
		    "process, and none is named; name it with --target PID", s->argv[at]);
	return 0;
}

/*
 * gdb attaches to a process by -p/--pid (one or two dashes, by prefix),
 * by a number as -c/--core, and by a number as its second operand (gdb
 * PROG PID). Every number before --args is judged as a process id: gdb's
 * options with numeric values are rare, and a refusal names the number.
 */
static int
check_gdb(struct scan *s, size_t j)
{
	const char *a, *v;
	size_t i;
	int rc;

	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (strcmp(a, "--args") == 0 || strcmp(a, "-args") == 0)
			break;
		if (a[0] == '-' && a[1] == 'p' && all_digits(a + 2, strlen(a + 2))) {
			if ((rc = judge_pids(s, i, a + 2)) != 0)	/* -p123 */
				return rc;
			continue;
		}
		if (a[0] == '-' && opt_abbrev(a, "pid")) {
			if ((rc = judge_pids(s, strchr(a, '=') ? i : i + 1, opt_value(s, i))) != 0)
				return rc;
			if (strchr(a, '=') == NULL)
				i++;
			continue;
		}
		if (a[0] == '-' && (v = strchr(a, '=')) != NULL &&
		    all_digits(v + 1, strlen(v + 1)) && (rc = judge_pids(s, i, v + 1)) != 0)
			return rc;
		if (all_digits(a, strlen(a)) && (rc = judge_pids(s, i, a)) != 0)
			return rc;
	}
	return 0;
}

/* Tools that take a process id by option (or as every operand). */
#define P_STOP		0x1	/* options end at the first operand */
#define P_OPERANDS	0x2	/* every operand is a process id */
#define P_SUBCMD	0x4	/* the first operand is a subcommand */
struct pid_tool {
	const char *const *names;
	int		   flags;
	const char	  *pid_short;	/* letters whose value is a process id */
	const char	  *arg_short;	/* other letters that take a value */
	const char *const *pid_long;	/* by prefix */
	const char *const *arg_long;	/* other long options with a value */
};
static const struct pid_tool pid_tools[] = {
	{ L("strace"), P_STOP, "p", "abeEIoOPsSuUX", L("attach"),
	  L("output", "trace-path", "signal", "status", "decode-fds", "user",
	  "columns", "const-print-style", "strsize", "string-limit", "summary-sort-by",
	  "absolute-timestamps", "timestamps", "syscall-times", "interruptible",
	  "env", "expr", "trace", "abbrev", "verbose", "raw", "read", "write",
	  "fault", "inject", "quiet", "kvm", "silence", "silent") },
	{ L("ltrace"), P_STOP, "p", "abeFlnosuwxXAD", NULL,
	  L("output", "library", "indent", "align", "user", "config") },
	{ L("gcore"), P_OPERANDS, NULL, "od", NULL, NULL },
	{ L("pstack"), P_OPERANDS, NULL, NULL, NULL, NULL },
	{ L("gdbserver"), 0, NULL, NULL, L("attach"), NULL },
	{ L("eu-stack"), 0, "p", "ecnS", L("pid"),
	  L("core", "executable", "debuginfo-path", "sysroot") },
	{ L("perf"), P_SUBCMD | P_STOP, "pt", "eFcCmoGIkMbjuxDwSNL",
	  L("pid", "tid"), L("event", "output", "input", "cpu", "freq", "count",
	  "mmap-pages", "cgroup", "call-graph", "uid", "filter", "duration") },
	{ L("criu"), P_SUBCMD, "t", "DWoLIp", L("tree"),
	  L("images-dir", "work-dir", "log-file", "pidfile", "root", "ext-mount-map",
	  "external", "inherit-fd", "address", "port", "page-server") },
	{ L("bpftrace"), P_STOP, "p", "eoBfIc", L("pid"), L("include", "output") },
};

static int
check_pid_tool(struct scan *s, size_t j)
{
	const struct pid_tool *t = NULL;
	const char *a, *p, *v;
	size_t i, n;
	int rc, sub = 0;

	for (n = 0; n < sizeof pid_tools / sizeof pid_tools[0]; n++)
		if (word_names(s, j, pid_tools[n].names)) {
			t = &pid_tools[n];
			break;
		}
	if (t == NULL)
		return 0;
	for (i = j + 1; i < s->argc; i++) {
		a = s->argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-' || a[1] == '\0') {
			if ((t->flags & P_SUBCMD) && !sub) {
				sub = 1;
				continue;
			}
			if (t->flags & P_OPERANDS) {
				if ((rc = judge_pids(s, i, a)) != 0)
					return rc;
				continue;
			}
			if (t->flags & P_STOP)
				break;
			continue;
		}
		if (a[1] == '-') {
			if (abbrev_in(a, t->pid_long)) {
				if ((rc = judge_pids(s, strchr(a, '=') ? i : i + 1,
				    opt_value(s, i))) != 0)
					return rc;
				if (strchr(a, '=') == NULL)
					i++;
			} else if (strchr(a, '=') == NULL && abbrev_in(a, t->arg_long))
				i++;
			continue;
		}
		for (p = a + 1; *p != '\0'; p++) {
			if (t->pid_short != NULL && strchr(t->pid_short, *p) != NULL) {
				v = p[1] != '\0' ? p + 1 : i + 1 < s->argc ? s->argv[++i] : NULL;
				if ((rc = judge_pids(s, i, v)) != 0)
					return rc;
				break;
			}
			if (t->arg_short != NULL && strchr(t->arg_short, *p) != NULL) {
				if (p[1] == '\0')
					i++;
				break;
			}
		}
	}
	return 0;
}

/* --- The scan ---------------------------------------------------------- */

static int
tool_rules(struct scan *s, size_t j, int late)
{
	const struct tool *t;
	size_t n;
	int rc;

	for (n = 0; n < sizeof tools / sizeof tools[0]; n++) {
		t = &tools[n];
		if ((t->flags & T_LATE) != late || !word_names(s, j, t->names))
			continue;
		if ((rc = walk_options(s, t, j)) != 0)
			return rc;
		if (t->check != NULL && (rc = t->check(s, j)) != 0)
			return rc;
	}
	return 0;
}

/*
 * The worst denylist verdict over w, the value after each '=' in it and
 * the first word of a value with spaces; *interp is set when such a value
 * (not the word itself) names an interpreter.
 */
static enum deny_kind
judge_word(struct scan *s, const char *w, int value, int *interp)
{
	char first[PATH_MAX];
	enum deny_kind k, acc;
	const char *eq, *t;
	size_t n;

	acc = s->text_only ? deny_by_name(s->d, w) : deny_word_for(s->d, s->p, w);
	if (acc == DENY_NESTED)
		return acc;
	if (value && acc == DENY_NONE && is_interpreter(s, w))
		*interp = 1;
	t = w + strspn(w, " \t\r\n\v\f|!");	/* '|cmd' (strace -o), '!cmd' */
	n = strcspn(t, " \t\r\n\v\f");
	if ((t != w || t[n] != '\0') && n > 0 && n < sizeof first) {
		memcpy(first, t, n);
		first[n] = '\0';
		k = judge_word(s, first, 1, interp);
		if (k != DENY_NONE && acc != DENY_NESTED)
			acc = k;
	}
	if ((eq = strchr(w, '=')) != NULL && eq[1] != '\0') {
		k = judge_word(s, eq + 1, 1, interp);
		if (k != DENY_NONE && acc != DENY_NESTED)
			acc = k;
	}
	return acc;
}

/*
 * The ROOT command at $.commands[idx], its executable resolved: first the
 * strings handed to a shell and inline code (shell_request), a runner's
 * program decided at run time (bad_executable); then every word as a
 * program (nested_privilege_tool, interactive_program, an interpreter in a
 * string: shell_request); last env -S.
 */
static int
scan_root(struct denylist *d, const struct wcommand *c, size_t idx,
    const struct requester *p, int text_only, struct refusal *r)
{
	struct scan s;
	enum deny_kind k, acc = DENY_NONE;
	const char *why;
	size_t j, at = 0, interp_at = 0;
	int interp, rc;

	memset(&s, 0, sizeof s);
	s.d = d;
	s.p = p;
	s.c = c;
	s.argv = c->argv;
	s.argc = c->argc < MAX_ARGV ? c->argc : MAX_ARGV;
	s.r = r;
	s.text_only = text_only;
	snprintf(s.jpath, sizeof s.jpath, "$.commands[%zu]", idx);
	for (j = 1; j < s.argc && !text_only; j++)
		resolved_base(p, s.argv[j], s.real[j]);
	find_exempt(&s);
	/* a reviewed file is content the reviewer reads, staged root-owned:
	 * not a word to judge (its identity is judged by files_deny) */
	for (j = 1; j < s.argc; j++)
		if (c->file != NULL && c->file[j] != NULL)
			s.exempt[j] = 1;

	for (j = 0; j < s.argc; j++) {
		if (s.exempt[j])
			continue;
		if (j > 0 && !text_only && relative_program(p, c, s.argv[j]))
			return hit(&s, "bad_executable", j, "'%s' is a program named by a path "
			    "relative to %s; name programs by absolute path", s.argv[j], c->cwd);
		if (j > 0 && (why = hook_word(s.argv[j])) != NULL)
			return hit(&s, "shell_request", j, "'%s' is %s; ROOT commands must "
			    "be exact argv", s.argv[j], why);
		if (j > 0 && (rc = proc_paths(&s, j)) != 0)
			return rc;
		if (!s.recorded[j] && (rc = tool_rules(&s, j, 0)) != 0)
			return rc;
	}
	if (deny_is_loader(d, &c->exe) && (rc = check_loader(&s)) != 0)
		return rc;

	for (j = 1; j < s.argc; j++) {
		if (s.exempt[j] || s.recorded[j])
			continue;
		interp = 0;
		k = judge_word(&s, s.argv[j], 0, &interp);
		if (k == DENY_NESTED)
			return hit(&s, "nested_privilege_tool", s.argc, "'%s' would run a "
			    "privilege tool named in its arguments ('%s')", s.argv[0], s.argv[j]);
		if (k != DENY_NONE && at == 0)
			at = j;
		if (interp && interp_at == 0)
			interp_at = j;
		if (k != DENY_NONE)
			acc = k;
	}
	if (acc != DENY_NONE)
		return hit(&s, "interactive_program", s.argc, "'%s' would run a shell or "
		    "interactive program named in its arguments ('%s')", s.argv[0], s.argv[at]);
	if (interp_at != 0)
		return hit(&s, "shell_request", interp_at, "'%s' names an interpreter in a "
		    "string that will be run; ROOT commands must be exact argv", s.argv[interp_at]);

	for (j = 0; j < s.argc; j++)
		if (!s.exempt[j] && !s.recorded[j] && (rc = tool_rules(&s, j, T_LATE)) != 0)
			return rc;
	return 0;
}

int
root_argv_check(struct denylist *d, const struct wcommand *c, size_t idx,
    const struct requester *p, struct refusal *r)
{
	return scan_root(d, c, idx, p, 0, r);
}

/*
 * The same scan for a ROOT command of a request for another machine,
 * judged by its words alone: names, inline code, strings for a shell,
 * runners whose program is decided at run time. What the words name
 * there (the files a word resolves to, who may change them, processes)
 * is the target's to judge.
 */
int
root_argv_text(struct denylist *d, const struct wcommand *c, size_t idx, struct refusal *r)
{
	return scan_root(d, c, idx, NULL, 1, r);
}
