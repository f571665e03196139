/* SPDX-License-Identifier: ISC */
/*
 * Which words of a command's argv name files, for the tools whose option
 * parsers this file knows (GNU getopt: options in clusters, joined or
 * next-word values, long options by unique prefix, options anywhere up
 * to "--"). A word is a path, a symbolic link's target, a file mode, or
 * something else (an owner, a sed script, a size, a member name); for
 * any other tool every word is unknown, and nothing is concluded from
 * it. The relative_path rule (validate.c) and the risk badges (risk.c)
 * read these roles; warrant-request(5) lists the tools.
 */
#include <string.h>

#include "warrant.h"

#define L(...)	((const char *const []){ __VA_ARGS__, NULL })

/* How a tool's operands are read. */
#define F_LINKS		0x01	/* ln, cp: with -s/--symbolic, targets before the link */
#define F_LN		0x40	/* ln: -r/--relative finds the targets from the cwd */
#define F_CHMOD		0x02	/* a word like "-w" or "-x,u+r" is the mode */
#define F_DD		0x04	/* KEY=VALUE operands: if= and of= are paths */
#define F_NO_OPERANDS	0x08	/* operands are not paths (tar: member names) */
#define F_OLD_STYLE	0x10	/* a first word without '-' is a bundle of options */
#define F_DPKG		0x20	/* operands are files only after a file action */

struct file_tool {
	const char *const *names;	/* base names */
	int		   flags;
	const char	  *short_value;	/* letters taking a value, joined or next */
	const char	  *short_path;	/* of those, whose value is a path */
	const char	  *short_mode;	/* of those, whose value is a mode */
	const char	  *short_joined;	/* letters whose optional value is only joined */
	const char *const *long_value;	/* long options taking a value */
	const char *const *long_path;	/* of those, whose value is a path */
	const char *const *long_mode;	/* of those, whose value is a mode */
	enum role	   first;	/* the first operand's role, ROLE_PATH when none */
	const char	  *first_off;	/* short options that make it a path (sed -e) */
	const char *const *first_off_long;
	const char	  *recursive;	/* letters meaning recursive */
};

static const struct file_tool file_tools[] = {
	{ L("cp"), F_LINKS, "St", "t", NULL, NULL,
	  L("suffix", "target-directory", "sparse", "no-preserve"), L("target-directory"), NULL,
	  ROLE_PATH, NULL, NULL, NULL },
	{ L("mv"), 0, "St", "t", NULL, NULL,
	  L("suffix", "target-directory"), L("target-directory"), NULL,
	  ROLE_PATH, NULL, NULL, NULL },
	{ L("ln"), F_LINKS | F_LN, "St", "t", NULL, NULL,
	  L("suffix", "target-directory"), L("target-directory"), NULL,
	  ROLE_PATH, NULL, NULL, NULL },
	{ L("rm"), 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ROLE_PATH, NULL, NULL, "rR" },
	{ L("rmdir"), 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ROLE_PATH, NULL, NULL, NULL },
	{ L("install"), 0, "gmoSt", "t", "m", NULL,
	  L("group", "mode", "owner", "suffix", "target-directory", "strip-program"),
	  L("target-directory", "strip-program"), L("mode"), ROLE_PATH, NULL, NULL, NULL },
	{ L("mkdir", "mkfifo"), 0, "m", NULL, "m", NULL, L("mode"), NULL, L("mode"),
	  ROLE_PATH, NULL, NULL, NULL },
	{ L("touch"), 0, "drt", "r", NULL, NULL, L("date", "reference", "time"),
	  L("reference"), NULL, ROLE_PATH, NULL, NULL, NULL },
	{ L("truncate"), 0, "rs", "r", NULL, NULL, L("reference", "size"), L("reference"),
	  NULL, ROLE_PATH, NULL, NULL, NULL },
	{ L("tee"), 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ROLE_PATH, NULL, NULL, NULL },
	{ L("shred"), 0, "ns", NULL, NULL, NULL, L("iterations", "size", "random-source"),
	  L("random-source"), NULL, ROLE_PATH, NULL, NULL, NULL },
	{ L("chmod"), F_CHMOD, NULL, NULL, NULL, NULL, L("reference"), L("reference"), NULL,
	  ROLE_MODE, NULL, L("reference"), "R" },
	{ L("chown", "chgrp"), 0, NULL, NULL, NULL, NULL, L("from", "reference"),
	  L("reference"), NULL, ROLE_OTHER, NULL, L("reference"), "R" },
	{ L("setfacl"), 0, "mMxX", "MX", NULL, NULL,
	  L("modify", "modify-file", "remove", "remove-file", "set", "set-file"),
	  L("modify-file", "remove-file", "set-file"), NULL, ROLE_PATH, NULL, NULL, "R" },
	{ L("sed"), 0, "efl", "f", NULL, "i",
	  L("expression", "file", "line-length"), L("file"), NULL,
	  ROLE_OTHER, "ef", L("expression", "file"), NULL },
	{ L("dd"), F_DD, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ROLE_OTHER, NULL, NULL, NULL },
	{ L("tar"), F_NO_OPERANDS | F_OLD_STYLE, "bCfFgHIKLNTVX", "CfgTX", NULL, NULL,
	  L("file", "directory", "files-from", "exclude-from", "listed-incremental",
	  "blocking-factor", "record-size", "format", "use-compress-program", "to-command",
	  "info-script", "new-volume-script", "starting-file", "tape-length", "label",
	  "newer", "after-date", "newer-mtime", "exclude", "owner", "group", "mode",
	  "mtime", "strip-components", "transform", "xform", "suffix", "checkpoint-action",
	  "rsh-command", "rmt-command", "index-file", "volno-file", "quoting-style",
	  "quote-chars", "no-quote-chars", "warning", "exclude-tag", "exclude-tag-all",
	  "exclude-tag-under", "exclude-ignore", "exclude-ignore-recursive",
	  "xattrs-include", "xattrs-exclude", "pax-option", "level", "owner-map",
	  "group-map", "sort", "hole-detection", "sparse-version", "add-file"),
	  L("file", "directory", "files-from", "exclude-from", "listed-incremental"), NULL,
	  ROLE_OTHER, NULL, NULL, NULL },
	{ L("dpkg"), F_DPKG, "D", NULL, NULL, NULL,
	  L("admindir", "instdir", "root", "path-include", "path-exclude", "log",
	  "status-fd", "status-logger", "pre-invoke", "post-invoke", "debug",
	  "ignore-depends", "abort-after"), L("admindir", "instdir", "root", "log"), NULL,
	  ROLE_PATH, NULL, NULL, NULL },
	{ L("cat"), 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ROLE_PATH, NULL, NULL, NULL },
	{ L("head"), 0, "cn", NULL, NULL, NULL, L("bytes", "lines"), NULL, NULL, ROLE_PATH,
	  NULL, NULL, NULL },
	{ L("tail"), 0, "cns", NULL, NULL, NULL, L("bytes", "lines", "pid", "sleep-interval",
	  "max-unchanged-stats"), NULL, NULL, ROLE_PATH, NULL, NULL, NULL },
	{ L("stat"), 0, "c", NULL, NULL, NULL, L("format", "printf"), NULL, NULL, ROLE_PATH,
	  NULL, NULL, NULL },
	{ L("ls"), 0, "ITw", NULL, NULL, NULL, L("block-size", "format", "hide", "ignore",
	  "indicator-style", "quoting-style", "sort", "time", "time-style", "tabsize",
	  "width"), NULL, NULL, ROLE_PATH, NULL, NULL, NULL },
};

/* dpkg's actions whose operands are files (archives, directories). */
static const char *const dpkg_file_actions[] = {
	"-i", "--install", "--unpack", "-A", "--record-avail", "-c", "--contents",
	"-x", "--extract", "-X", "--vextract", "-e", "--control", "-b", "--build", NULL
};

static int
listed(const char *const *list, const char *w)
{
	for (; list != NULL && *list != NULL; list++)
		if (strcmp(*list, w) == 0)
			return 1;
	return 0;
}

/* The long option a word names by prefix, among names, or NULL. */
static const char *
long_named(const char *w, const char *const *names)
{
	for (; names != NULL && *names != NULL; names++)
		if (opt_abbrev(w, *names))
			return *names;
	return NULL;
}

static int
has(const char *set, int letter)
{
	return set != NULL && letter != '\0' && strchr(set, letter) != NULL;
}

/*
 * A chmod mode ([ugoa]*[-+=][rwxXst]* or a copy of u, g or o, clauses
 * joined by ','), as a word that starts with '-' may be: chmod reads
 * "-w" as a mode, not an option.
 */
static int
symbolic_mode(const char *m)
{
	if (*m == '\0')
		return 0;
	for (;;) {
		m += strspn(m, "ugoa");
		if (strchr("+-=", *m) == NULL || *m == '\0')
			return 0;
		while (*m != '\0' && strchr("+-=", *m) != NULL) {
			m++;
			if (*m != '\0' && strchr("ugo", *m) != NULL)
				m++;
			else
				m += strspn(m, "rwxXst");
		}
		if (*m == '\0')
			return 1;
		if (*m++ != ',')
			return 0;
	}
}

static const struct file_tool *
tool_of(const struct wcommand *c)
{
	const char *prog = base_name(c->exe.path), *given = base_name(c->argv[0]);
	size_t t;

	for (t = 0; t < sizeof file_tools / sizeof file_tools[0]; t++)
		if (listed(file_tools[t].names, prog) || listed(file_tools[t].names, given))
			return &file_tools[t];
	return NULL;
}

/* The role of an option's value (letter, or the long option's name). */
static enum role
value_role(const struct file_tool *t, int letter, const char *name)
{
	if (name != NULL ? listed(t->long_path, name) : has(t->short_path, letter))
		return ROLE_VALUE_PATH;
	if (name != NULL ? listed(t->long_mode, name) : has(t->short_mode, letter))
		return ROLE_MODE;
	return ROLE_OTHER;
}

/* What the options said about the operands. */
struct seen {
	int	first_path;	/* the first operand is a path too (sed -e) */
	int	symbolic;	/* ln -s, cp -s */
	int	target_dir;	/* -t DIR */
	int	relative;	/* ln -r */
};

/*
 * The options of argv[i] (not "--", not an operand): their values'
 * roles set, and what they say about the operands. Returns how many
 * following words they took as a value (0 or 1).
 */
static size_t
read_option(const struct file_tool *t, const struct wcommand *c, size_t i,
    struct operands *o, struct seen *seen)
{
	const char *a = c->argv[i], *name, *p;

	if (a[1] == '-') {
		if (opt_abbrev(a, "recursive") && t->recursive != NULL)
			o->recursive = 1;
		if ((t->flags & F_LINKS) && (opt_abbrev(a, "symbolic") ||
		    opt_abbrev(a, "symbolic-link")))
			seen->symbolic = 1;
		if ((t->flags & F_LN) && opt_abbrev(a, "relative"))
			seen->relative = 1;
		if (long_named(a, t->first_off_long) != NULL)
			seen->first_path = 1;
		if ((name = long_named(a, t->long_value)) == NULL)
			return 0;
		if (strcmp(name, "target-directory") == 0)
			seen->target_dir = 1;
		if (strchr(a, '=') != NULL) {
			o->role[i] = value_role(t, 0, name);
			o->at[i] = (size_t)(strchr(a, '=') + 1 - a);
			return 0;
		}
		if (i + 1 < c->argc)
			o->role[i + 1] = value_role(t, 0, name);
		return 1;
	}
	for (p = a + 1; *p != '\0'; p++) {
		if (has(t->recursive, *p))
			o->recursive = 1;
		if (*p == 's' && (t->flags & F_LINKS))
			seen->symbolic = 1;
		if (*p == 'r' && (t->flags & F_LN))
			seen->relative = 1;
		if (has(t->first_off, *p))
			seen->first_path = 1;
		if (has(t->short_joined, *p))
			return 0;
		if (!has(t->short_value, *p))
			continue;
		if (*p == 't' && (t->flags & F_LINKS))
			seen->target_dir = 1;
		if (p[1] != '\0') {
			o->role[i] = value_role(t, *p, NULL);
			o->at[i] = (size_t)(p + 1 - a);
			return 0;
		}
		if (i + 1 < c->argc)
			o->role[i + 1] = value_role(t, *p, NULL);
		return 1;
	}
	return 0;
}

/*
 * Fill o (o->role and o->at, argc entries each, freed by operands_free)
 * for command c. Returns 1 when the tool is known; 0 when every word is
 * unknown, with nothing to free.
 */
int
argv_operands(const struct wcommand *c, struct operands *o)
{
	const struct file_tool *t = tool_of(c);
	struct seen seen = { 0, 0, 0, 0 };
	size_t i, k, nop = 0, *op;
	int dashdash = 0, mode_word = 0, dpkg_files = 0;
	const char *a;

	memset(o, 0, sizeof *o);
	if (t == NULL || c->command != NULL ||
	    ((t->flags & F_OLD_STYLE) && c->argc > 1 && c->argv[1][0] != '-'))
		return 0;
	o->argc = c->argc;
	o->role = xcalloc(c->argc + 1, sizeof *o->role);
	o->at = xcalloc(c->argc + 1, sizeof *o->at);
	op = xcalloc(c->argc + 1, sizeof *op);
	for (i = 1; i < c->argc; i++)
		o->role[i] = ROLE_UNKNOWN;
	o->role[0] = ROLE_OTHER;
	for (i = 1; i < c->argc; i++) {
		a = c->argv[i];
		if (!dashdash && strcmp(a, "--") == 0) {
			o->role[i] = ROLE_OPTION;
			dashdash = 1;
			continue;
		}
		if ((t->flags & F_CHMOD) && !dashdash && a[0] == '-' && !mode_word &&
		    symbolic_mode(a)) {
			o->role[i] = ROLE_MODE;
			mode_word = 1;
			continue;
		}
		if (dashdash || a[0] != '-' || a[1] == '\0') {
			op[nop++] = i;
			continue;
		}
		o->role[i] = ROLE_OPTION;
		if ((t->flags & F_DPKG) && listed(dpkg_file_actions, a))
			dpkg_files = 1;
		i += read_option(t, c, i, o, &seen);
	}
	if ((t->flags & F_DPKG) && !dpkg_files) {
		free(op);
		operands_free(o);
		return 0;
	}
	for (k = 0; k < nop; k++) {
		i = op[k];
		a = c->argv[i];
		if (t->flags & F_NO_OPERANDS)
			o->role[i] = ROLE_OTHER;
		else if (t->flags & F_DD) {
			o->role[i] = strncmp(a, "if=", 3) == 0 || strncmp(a, "of=", 3) == 0 ?
			    ROLE_VALUE_PATH : ROLE_OTHER;
			o->at[i] = o->role[i] == ROLE_VALUE_PATH ? 3 : 0;
		} else if (k == 0 && t->first != ROLE_PATH && !seen.first_path && !mode_word)
			o->role[i] = t->first;
		else if (strcmp(a, "-") == 0)
			o->role[i] = ROLE_OTHER;	/* standard input or output */
		else
			o->role[i] = ROLE_PATH;
	}
	/* ln -s, cp -s: each target is resolved from the link's directory
	 * (argscan.c judges it there), unless ln -r finds it from the cwd;
	 * the link is the last operand, unless -t names its directory or
	 * there is only the target */
	for (k = 0; seen.symbolic && !seen.relative && k < nop; k++)
		if (seen.target_dir || nop == 1 || k + 1 < nop)
			o->role[op[k]] = ROLE_LINK_TARGET;
	free(op);
	return 1;
}

/*
 * The command a wrapper (timeout, nice, env, setsid…: is_indirect_runner)
 * runs, when it is a file tool this file knows. The wrapper's own words
 * are skipped as far as they read as options, numbers (durations,
 * priorities, CPU masks) or NAME=VALUE assignments; the first other word
 * is the program it runs, and a wrapper there is looked through in turn.
 * Returns the offset of that program with *inner the command from there
 * (borrowing c's words), or 0. A wrapper whose option takes a word
 * ("flock FILE cmd", "env -u NAME cmd") is not read further: nothing is
 * concluded from it.
 */
size_t
wrapped_command(const struct wcommand *c, struct wcommand *inner)
{
	const char *w;
	size_t k;

	if (c->command != NULL || (!is_indirect_runner(c->argv[0]) &&
	    !is_indirect_runner(c->exe.path)))
		return 0;
	for (k = 1; k < c->argc; k++) {
		w = c->argv[k];
		if (w[0] == '-' || (w[0] >= '0' && w[0] <= '9') || strchr(w, '=') != NULL)
			continue;
		if (c->file[k] != NULL)
			return 0;
		*inner = *c;
		inner->argv = c->argv + k;
		inner->file = c->file + k;
		inner->argc = c->argc - k;
		inner->exe.path[0] = '\0';
		if (tool_of(inner) != NULL)
			return k;
		if (!is_indirect_runner(w))
			return 0;
	}
	return 0;
}

void
operands_free(struct operands *o)
{
	free(o->role);
	free(o->at);
	o->role = NULL;
	o->at = NULL;
}
