/* SPDX-License-Identifier: ISC */
/*
 * The policy rules of docs/design.md §3 over a parsed request: executables that
 * resolve and cannot be swapped, no nested privilege tools, no shells or
 * shell strings as root (directly, in any word of a ROOT command's argv,
 * or as inline code: argscan.c), no
 * credential-shaped data, no environment that steers a loader or an
 * interpreter. Each rule refuses the whole request with its stable code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

static int
valid_env_key(const char *k)
{
	size_t i;

	if (!((k[0] >= 'A' && k[0] <= 'Z') || (k[0] >= 'a' && k[0] <= 'z') || k[0] == '_'))
		return 0;
	for (i = 1; k[i] != '\0'; i++)
		if (!((k[i] >= 'A' && k[i] <= 'Z') || (k[i] >= 'a' && k[i] <= 'z') ||
		    (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
			return 0;
	return i <= 256;
}

/* The name and value rules of one environment entry, from the request's
 * env or from an env word in argv. */
static int
check_env_pair(const char *key, const char *value, struct refusal *r, const char *sub)
{
	const char *word;

	if (env_forbidden(key))
		return refuse(r, "forbidden_env", sub,
		    "'%s' may not be set for a reviewed command", key);
	if ((word = credential_word(key)) != NULL)
		return refuse(r, "credential_field_rejected", sub,
		    "environment names mentioning '%s' are refused; never pass credentials",
		    word);
	if ((word = credential_shape(value)) != NULL)
		return refuse(r, "credential_field_rejected", sub,
		    "the value has a credential shape (%s); never pass credentials", word);
	return 0;
}

static int
check_env(const struct wrequest *q, struct refusal *r)
{
	const char *key;
	char sub[320];
	json_t *v;

	if (q->env == NULL)
		return 0;
	json_object_foreach(q->env, key, v) {
		snprintf(sub, sizeof sub, "$.env.%s", key);
		if (check_env_pair(key, json_string_value(v), r, sub) != 0)
			return -1;
		if (!valid_env_key(key))
			return refuse(r, "invalid_field", sub,
			    "environment names are letters, digits and '_', not starting with a digit");
	}
	return 0;
}

/* The reviewer reads reason, why and ids, and the store keeps them: no
 * credential shape in them either. */
static int
check_text(const struct wrequest *q, struct refusal *r)
{
	const char *shape;
	char sub[64];
	size_t i;

	if ((shape = credential_shape(q->reason)) != NULL)
		return refuse(r, "credential_field_rejected", "$.reason",
		    "the reason has a credential shape (%s); never pass credentials", shape);
	if (q->next_prompt != NULL && (shape = credential_shape(q->next_prompt)) != NULL)
		return refuse(r, "credential_field_rejected", "$.next.prompt",
		    "the prompt has a credential shape (%s); never pass credentials", shape);
	for (i = 0; i < q->ncmds; i++) {
		snprintf(sub, sizeof sub, "$.commands[%zu].id", i);
		if ((shape = credential_shape(q->cmds[i].id)) != NULL)
			return refuse(r, "credential_field_rejected", sub,
			    "the id has a credential shape (%s)", shape);
		snprintf(sub, sizeof sub, "$.commands[%zu].why", i);
		if ((shape = credential_shape(q->cmds[i].why)) != NULL)
			return refuse(r, "credential_field_rejected", sub,
			    "why has a credential shape (%s); never pass credentials", shape);
	}
	return 0;
}

/*
 * Judge each word of s by deny_word, split at whitespace and shell or
 * option punctuation, so that "env -S 'sh -x'" or "--command=bash" yield
 * "sh" and "bash"; the worst verdict over the words. p NULL: a request
 * for another machine, whose files are not here: by name alone.
 */
static enum deny_kind
worst_word(struct denylist *d, const struct requester *p, const char *s)
{
	char word[PATH_MAX];
	enum deny_kind k, acc = DENY_NONE;
	size_t n;

	while (*s != '\0') {
		n = strcspn(s, " \t\r\n\v\f=,;|&`()<>'\"$\\{}!");
		if (n > 0 && n < sizeof word) {
			memcpy(word, s, n);
			word[n] = '\0';
			k = p != NULL ? deny_word_for(d, p, word) : deny_by_name(d, word);
			if (k == DENY_NESTED)
				return k;
			if (k != DENY_NONE)
				acc = k;
		}
		s += n;
		if (*s != '\0')
			s++;
	}
	return acc;
}

static int
has_arg(const struct wcommand *c, const char *const *list)
{
	const char *const *l;
	size_t i;

	for (i = 1; i < c->argc; i++)
		for (l = list; *l != NULL; l++)
			if (strcmp(c->argv[i], *l) == 0)
				return 1;
	return 0;
}

static enum deny_kind
runner_target(struct denylist *d, const struct requester *p, const struct wcommand *c)
{
	static const char *const find_exec[] = {
		"-exec", "-execdir", "-ok", "-okdir", NULL
	};
	enum deny_kind k, acc = DENY_NONE;
	size_t i;

	if (!is_indirect_runner(c->exe.path) && !is_indirect_runner(c->argv[0]) &&
	    !deny_is_loader(d, &c->exe))
		return DENY_NONE;
	if (strcmp(base_name(c->exe.path), "find") == 0 && !has_arg(c, find_exec))
		return DENY_NONE;
	for (i = 1; i < c->argc; i++) {
		k = worst_word(d, p, c->argv[i]);
		if (k == DENY_NESTED)
			return k;
		if (k != DENY_NONE)
			acc = k;
	}
	return acc;
}

/*
 * path (absolute) with "." and ".." taken by their names, as a program
 * that cleans paths before opening them takes them (Go's filepath.Clean,
 * Python's normpath): "file/../x" is "x" to it, ENOTDIR to the kernel.
 */
static void
clean_by_name(const char *path, char *out, size_t size)
{
	size_t len = 0, n;
	const char *s;

	for (s = path; *s != '\0' && size > 1; s += n) {
		for (; *s == '/'; s++)
			;
		n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.'))
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (len > 0 && out[--len] != '/')
				;
			continue;
		}
		if (len + 1 + n >= size)
			break;
		out[len++] = '/';
		memcpy(out + len, s, n);
		len += n;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
}

/*
 * writable_argument: root never reads or acts on a path the requester
 * could still change (path_changeable_by), as the kernel resolves it nor
 * as a program that cleans ".." by name would. path is absolute, or
 * relative to cwd, the directory root runs in.
 */
static int
check_path_as(const struct requester *p, const char *cwd, const char *path,
    struct refusal *r, const char *sub, int entry)
{
	const struct writer w = { p->uid, p->groups, p->ngroups, p->self };
	char full[2 * PATH_MAX], clean[2 * PATH_MAX], why[PATH_MAX + 128];
	const char *abs = path[0] == '/' ? path : full;
	int rc;

	if (path[0] != '/' && (size_t)snprintf(full, sizeof full, "%s/%s",
	    strcmp(cwd, "/") == 0 ? "" : cwd, path) >= sizeof full)
		rc = -1;
	else if (entry)		/* the operand of rm or chown -R: the way to it */
		rc = entry_way_changeable(&w, abs, why, sizeof why);
	else
		rc = path_changeable(&w, abs, why, sizeof why);
	if (rc == 0 && strstr(abs, "..") != NULL) {
		clean_by_name(abs, clean, sizeof clean);
		rc = entry ? entry_way_changeable(&w, clean, why, sizeof why) :
		    path_changeable(&w, clean, why, sizeof why);
	}
	if (rc > 0)
		return refuse(r, "writable_argument", sub,
		    "root would use a path the requester can change: %s", why);
	if (rc < 0)
		return refuse(r, "writable_argument", sub,
		    "'%s' cannot be checked for who may change it", path);
	return 0;
}

static int
check_path(const struct requester *p, const char *cwd, const char *path,
    struct refusal *r, const char *sub)
{
	return check_path_as(p, cwd, path, r, sub, 0);
}

/*
 * The paths a word may name: the word itself, what follows its first '='
 * (--config=/x, NAME=/x) and the letters of a short option (-f/x), and
 * each absolute piece of a ':' or ',' list (search paths, mount options),
 * also after a '=' of its own; each given to each(arg, path) in turn. The
 * first nonzero answer, or 0.
 */
int
word_paths(const char *w, int (*each)(void *, const char *), void *arg)
{
	char piece[PATH_MAX];
	const char *s, *e, *v;
	size_t n;
	int rc;

	if ((rc = each(arg, w)) != 0)
		return rc;
	if ((e = strchr(w, '=')) != NULL && e[1] != '\0' && (rc = each(arg, e + 1)) != 0)
		return rc;
	if (w[0] == '-' && w[1] != '-' && (v = strchr(w, '/')) != NULL && (rc = each(arg, v)) != 0)
		return rc;
	for (s = w; *s != '\0'; s += n + (s[n] != '\0')) {
		n = strcspn(s, ":,");
		if (n == 0 || n >= sizeof piece)
			continue;
		memcpy(piece, s, n);
		piece[n] = '\0';
		if (piece[0] == '/')
			v = piece;
		else if ((e = strchr(piece, '=')) != NULL && e[1] == '/')
			v = e + 1;
		else
			continue;
		if ((rc = each(arg, v)) != 0)
			return rc;
	}
	return 0;
}

struct word_check {
	const struct requester *p;
	const char	*cwd, *sub;
	struct refusal	*r;
};

static int
word_check_one(void *arg, const char *path)
{
	const struct word_check *c = arg;

	return check_path(c->p, c->cwd, path, c->r, c->sub) != 0;
}

/* Every path a word may name for root (word_paths), checked. */
static int
check_word_paths(const struct requester *p, const char *cwd, const char *w,
    struct refusal *r, const char *sub)
{
	struct word_check c = { p, cwd, sub, r };

	return word_paths(w, word_check_one, &c) != 0 ? -1 : 0;
}

/* An element after an env that looks like NAME=VALUE goes through the
 * environment rules: every such element, erring on the side of more. */
static int
check_env_word(const char *w, struct refusal *r, const char *sub)
{
	const char *e = strchr(w, '=');
	char key[320];
	size_t k;

	if (e == NULL || e == w || w[0] == '-')
		return 0;
	k = (size_t)(e - w) < sizeof key ? (size_t)(e - w) : sizeof key - 1;
	memcpy(key, w, k);
	key[k] = '\0';
	return check_env_pair(key, e + 1, r, sub);
}

/* The env words of a ROOT command (env as argv[0], or after an indirect
 * runner at any depth: timeout 5 env LD_PRELOAD=x id), judged as the
 * request's env is. */
static int
check_env_words(const struct wcommand *c, struct refusal *r, const char *path)
{
	char sub[96];
	size_t i, env = 0;

	if (strcmp(base_name(c->exe.path), "env") == 0 ||
	    strcmp(base_name(c->argv[0]), "env") == 0)
		env = 1;
	else if (is_indirect_runner(c->exe.path) || is_indirect_runner(c->argv[0]))
		for (i = 1; i < c->argc && env == 0; i++)
			if (strcmp(base_name(c->argv[i]), "env") == 0)
				env = i + 1;
	/* a reviewed file is neither an env word nor a path the requester
	 * could change: it is staged root-owned at run time */
	for (i = env; env > 0 && i < c->argc; i++) {
		snprintf(sub, sizeof sub, "%s.argv[%zu]", path, i);
		if (c->file[i] == NULL && check_env_word(c->argv[i], r, sub) != 0)
			return -1;
	}
	return 0;
}

/* The arguments of a ROOT command: its env words, and no path the
 * requester can change. */
static int
check_arguments(const struct wrequest *q, const struct wcommand *c,
    const struct requester *p, struct refusal *r, const char *path)
{
	char sub[96];
	size_t i;
	int entry;

	if (check_env_words(c, r, path) != 0)
		return -1;
	entry = acts_on_entry(base_name(c->exe.path), c->argv, c->argc);
	for (i = 1; i < c->argc; i++) {
		if (c->file[i] != NULL)
			continue;
		snprintf(sub, sizeof sub, "%s.argv[%zu]", path, i);
		if (entry && c->argv[i][0] != '-') {
			if (check_path_as(p, q->cwd, c->argv[i], r, sub, 1) != 0)
				return -1;
		} else if (check_word_paths(p, q->cwd, c->argv[i], r, sub) != 0)
			return -1;
	}
	return 0;
}

/* A word that names a place relative to the cwd by its spelling, whatever
 * reads it: ".", "..", "./x", "../x", or an option's value "--opt=./x". */
static const char *
dotted_relative(const char *w)
{
	const char *eq;

	if (w[0] == '-' && (eq = strchr(w, '=')) != NULL)
		w = eq + 1;
	if (w[0] == '.' && (w[1] == '\0' || w[1] == '/'))
		return w;
	if (w[0] == '.' && w[1] == '.' && (w[2] == '\0' || w[2] == '/'))
		return w;
	return NULL;
}

static int
refuse_relative(struct refusal *r, const char *path, size_t i, const char *v)
{
	char sub[96], *shown;
	int rc;

	snprintf(sub, sizeof sub, "%s.argv[%zu]", path, i);
	shown = text_word(v, 1);
	rc = refuse(r, "relative_path", sub, "'%s' is a relative path, and ROOT "
	    "commands run in / when the request names no cwd: root would use /%s; "
	    "name it by absolute path, or give it as a reviewed file (files)",
	    shown, shown);
	free(shown);
	return rc;
}

/*
 * The relative paths of a ROOT command: the path operands of the file
 * tool it is, or that a wrapper runs from argv[off] on (operands.c), and
 * every word spelled relative, but for a symbolic link's target (found
 * from the link's directory, and judged there by argscan.c).
 */
static int
check_relative_words(const struct wcommand *c, struct refusal *r, const char *path)
{
	struct wcommand inner;
	struct operands o;
	size_t i, off = 0;
	enum role role;
	const char *v;
	int known, rc = 0;

	if (!(known = argv_operands(c, &o)) && (off = wrapped_command(c, &inner)) != 0)
		known = argv_operands(&inner, &o);
	for (i = 1; i < c->argc && rc == 0; i++) {
		if (c->file[i] != NULL)
			continue;
		role = known && i > off ? o.role[i - off] : ROLE_UNKNOWN;
		v = c->argv[i] + (known && i > off ? o.at[i - off] : 0);
		if (role == ROLE_LINK_TARGET)
			continue;
		if ((role == ROLE_PATH || role == ROLE_VALUE_PATH) && v[0] != '/' &&
		    v[0] != '\0' && strcmp(v, "-") != 0)
			rc = refuse_relative(r, path, i, v);
		else if ((v = dotted_relative(c->argv[i])) != NULL)
			rc = refuse_relative(r, path, i, v);
	}
	if (known)
		operands_free(&o);
	return rc;
}

/*
 * Words of a ROOT command a reviewer would misread. lookalike_word: a
 * word that starts with a look-alike of option or path punctuation
 * (U+2010 HYPHEN, U+2212 MINUS SIGN, U+FF0F FULLWIDTH SOLIDUS) reads as
 * an option or an absolute path and is neither. relative_path, when the
 * request names no cwd: root runs in /, so "nc2hello" is /nc2hello, not
 * the agent's file the reviewer imagines. It covers every word spelled
 * relative (".", "./x", "../x", "--opt=./x"), whatever the program, and
 * the path operands of the tools operands.c knows, also when a wrapper
 * runs them ("timeout 5 cp x /etc/x"). A request that names its cwd shows
 * it, and its relative paths are judged from there (check_arguments).
 */
static int
check_root_words(const struct wrequest *q, const struct wcommand *c, struct refusal *r,
    const char *path)
{
	char sub[96], *shown;
	size_t i;
	int rc = 0;

	for (i = 0; i < c->argc && rc == 0; i++) {
		if (c->file[i] != NULL || !(text_word_marks(c->argv[i]) & TEXT_LOOKALIKE_FIRST))
			continue;
		snprintf(sub, sizeof sub, "%s.argv[%zu]", path, i);
		shown = text_word(c->argv[i], 1);
		rc = refuse(r, "lookalike_word", sub, "'%s' starts with a character that "
		    "only looks like ASCII punctuation: it would be read as neither an option "
		    "nor a path; use the ASCII character", shown);
		free(shown);
	}
	if (rc != 0 || json_object_get(q->json, "cwd") != NULL || c->command != NULL)
		return rc;
	return check_relative_words(c, r, path);
}

/* The directory ROOT commands run in and the values of their environment
 * are paths root uses too (a relative path is one under the cwd). */
static int
check_root_paths(const struct wrequest *q, const struct requester *p, struct refusal *r)
{
	const char *key;
	char sub[320], why[PATH_MAX + 128];
	json_t *v;
	int rc;

	if (q->nroot == 0)
		return 0;
	if ((rc = path_changeable_by(p, q->cwd, why, sizeof why)) != 0)
		return refuse(r, "writable_argument", "$.cwd", "%s",
		    rc > 0 ? why : "the cwd cannot be checked for who may change it");
	if (q->env == NULL)
		return 0;
	json_object_foreach(q->env, key, v) {
		snprintf(sub, sizeof sub, "$.env.%s", key);
		if (check_word_paths(p, q->cwd, json_string_value(v), r, sub) != 0)
			return -1;
	}
	return 0;
}

/* Does an earlier command of q than idx run as root? */
static int
earlier_root(const struct wrequest *q, size_t idx)
{
	size_t i;

	for (i = 0; i < idx; i++)
		if (!q->cmds[i].as_user)
			return 1;
	return 0;
}

/*
 * An absolute argv[0] that does not exist (lstat: ENOENT) when an earlier
 * ROOT command of the request may create it (install, then use;
 * docs/design.md §3): 1 when it is sealed at run time, its path kept as
 * given; 0 when the path exists (resolve it as usual); -1 refused — a
 * path that is not clean, that the requester could create itself, or
 * that no earlier ROOT command precedes.
 */
static int
sealed_at_run(struct wrequest *q, size_t idx, const struct requester *p,
    struct refusal *r, const char *sub)
{
	struct wcommand *c = &q->cmds[idx];
	const char *path = c->argv[0];
	char why[PATH_MAX + 128], real[PATH_MAX];
	size_t n = strlen(path);
	int rc, fd;

	if (path[0] != '/' || c->command != NULL)
		return 0;
	/* as p sees it: behind a directory closed to p, nothing exists */
	if ((fd = reach_path(p, path, 0, real)) >= 0 || errno != ENOENT) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (!earlier_root(q, idx))
		return refuse(r, "bad_executable", sub, "'%s' does not exist; a program that does "
		    "not exist yet may be named (by absolute path) only after a ROOT command of "
		    "the same request that installs it", path);
	if (n >= PATH_MAX || strstr(path, "//") != NULL || strstr(path, "/./") != NULL ||
	    strstr(path, "/../") != NULL || path[n - 1] == '/' ||
	    (n >= 2 && strcmp(path + n - 2, "/.") == 0) ||
	    (n >= 3 && strcmp(path + n - 3, "/..") == 0))
		return refuse(r, "bad_executable", sub, "'%s' does not exist yet; name it by a "
		    "plain absolute path (no '.', '..', '//' or trailing '/')", path);
	/* what the requester could create itself is not root's to run */
	if ((rc = path_changeable_by(p, path, why, sizeof why)) != 0)
		return refuse(r, "writable_executable", sub, "%s", rc > 0 ? why :
		    "the executable's path cannot be checked");
	memset(&c->exe, 0, sizeof c->exe);
	strcpy(c->exe.given, path);
	strcpy(c->exe.path, path);
	c->sealed_at_run = 1;
	return 1;
}

/* Every word of a command: no credential, and no -c for root. */
static int
check_words(const struct wcommand *c, struct refusal *r, const char *path)
{
	char sub[96];
	const char *shape;
	size_t i;

	for (i = 0; i < c->argc; i++) {
		snprintf(sub, sizeof sub, c->command ? "%s.command" : "%s.argv[%zu]", path, i);
		if ((shape = credential_shape(c->argv[i])) != NULL)
			return refuse(r, "credential_field_rejected", sub,
			    "argument has a credential shape (%s); never pass credentials", shape);
		if (i > 0 && credential_flag(c->argv[i - 1]) && c->argv[i][0] != '-')
			return refuse(r, "credential_field_rejected", sub,
			    "argument is the value of '%s'; never pass credentials", c->argv[i - 1]);
		if (!c->as_user && strcmp(c->argv[i], "-c") == 0)
			return refuse(r, "shell_request", sub,
			    "'-c' hands a string to a shell; ROOT commands must be exact argv");
	}
	return 0;
}

static int
check_command(struct wrequest *q, size_t idx, const struct requester *p,
    struct denylist *d, struct refusal *r)
{
	struct wcommand *c = &q->cmds[idx];
	char path[64], sub[96], why[PATH_MAX + 128];
	enum deny_kind k;
	int rc;

	snprintf(path, sizeof path, "$.commands[%zu]", idx);
	if (check_words(c, r, path) != 0)
		return -1;
	snprintf(sub, sizeof sub, c->command ? "%s.command" : "%s.argv[0]", path);
	/* by name first: a privilege tool is refused as one even where it
	 * is not installed */
	k = deny_by_name(d, c->argv[0]);
	if (k == DENY_NESTED || (k != DENY_NONE && !c->as_user))
		return refuse(r, deny_code(k), sub, "'%s' is a %s and cannot be requested",
		    c->argv[0], k == DENY_NESTED ? "privilege tool" : "shell or interactive program");
	if ((rc = sealed_at_run(q, idx, p, r, sub)) < 0 ||
	    (rc == 0 && exe_resolve(p, c->argv[0], &c->exe, r, sub) != 0))
		return -1;
	/* sealed at run time: judged by name above, by identity when it runs */
	k = c->sealed_at_run ? DENY_NONE : deny_executable(d, &c->exe);
	if (k == DENY_NESTED || (k != DENY_NONE && !c->as_user))
		return refuse(r, deny_code(k), sub, "'%s' (%s) is a %s and cannot be requested",
		    c->argv[0], c->exe.path, k == DENY_NESTED ?
		    "privilege tool" : "shell or interactive program");
	if (c->command != NULL) {
		snprintf(sub, sizeof sub, "%s.command", path);
		if (worst_word(d, p, c->command) == DENY_NESTED)
			return refuse(r, "nested_privilege_tool", sub,
			    "the command string names a privilege tool (sudo, su, doas, pkexec, run0)");
	} else if (!c->as_user) {
		if (root_argv_check(d, c, idx, p, r) != 0 || files_deny(d, c, path, r) != 0)
			return -1;
	} else {
		/* YOU commands may run shells: only privilege tools, through
		 * indirect runners */
		k = runner_target(d, p, c);
		if (k == DENY_NESTED || (k != DENY_NONE && !c->as_user))
			return refuse(r, deny_code(k), path,
			    "'%s' would run a %s named in its arguments", c->argv[0],
			    k == DENY_NESTED ? "privilege tool" : "shell or interactive program");
	}
	if (!c->as_user) {
		rc = c->sealed_at_run ? 0 : path_replaceable(p, c->exe.path, why, sizeof why);
		if (rc != 0)
			return refuse(r, "writable_executable", sub, "%s",
			    rc > 0 ? why : "the executable's path cannot be checked");
		if (c->command == NULL && (check_arguments(q, c, p, r, path) != 0 ||
		    check_root_words(q, c, r, path) != 0))
			return -1;
	}
	return 0;
}

/*
 * Apply every rule for the requester p; on refusal r says which and where.
 * Sets badges, and the requester's home as the cwd of YOU commands that
 * name none.
 */
int
validate_request(struct wrequest *q, const struct requester *p, struct refusal *r)
{
	struct denylist *d;
	size_t i;
	int rc = 0;

	if (q->machine != NULL)
		return refuse(r, "unknown_machine", "$.machine",
		    "a request for another machine is judged on that machine");
	if (check_env(q, r) != 0 || check_text(q, r) != 0 || files_judge(q, p, r) != 0 ||
	    check_root_paths(q, p, r) != 0)
		return -1;
	d = denylist_load();
	q->badges = 0;
	for (i = 0; i < q->ncmds; i++) {
		if (q->cmds[i].as_user && q->cmds[i].cwd[0] == '\0' &&
		    (p->home == NULL || realpath(p->home, q->cmds[i].cwd) == NULL))
			strcpy(q->cmds[i].cwd, "/");
		if ((rc = check_command(q, i, p, d, r)) != 0)
			break;
		q->cmds[i].badges = risk_command(&q->cmds[i], q);
		q->badges |= q->cmds[i].badges;
	}
	denylist_free(d);
	return rc;
}

/*
 * A command of a request for an enrolled machine, by every rule of
 * check_command that does not depend on that machine's files: its words,
 * its program's name (argv[0] stands in for the executable the target
 * will resolve, which must have the same name: remote/answer.c), a YOU
 * command string's words, and a ROOT command's argv by the scan of
 * argscan.c read as text (inline code, strings for a shell, shells and
 * privilege tools named in it), its env words, look-alikes and relative
 * paths.
 */
static int
check_command_text(struct wrequest *q, size_t idx, struct denylist *d, struct refusal *r)
{
	struct wcommand *c = &q->cmds[idx];
	char path[64], sub[96];
	enum deny_kind k;

	snprintf(path, sizeof path, "$.commands[%zu]", idx);
	snprintf(sub, sizeof sub, c->command ? "%s.command" : "%s.argv[0]", path);
	if (check_words(c, r, path) != 0)
		return -1;
	k = deny_by_name(d, c->argv[0]);
	if (k == DENY_NESTED || (k != DENY_NONE && !c->as_user))
		return refuse(r, deny_code(k), sub, "'%s' is a %s and cannot be requested",
		    c->argv[0], k == DENY_NESTED ? "privilege tool" : "shell or interactive program");
	if (strlen(c->argv[0]) >= sizeof c->exe.given)
		return refuse(r, "bad_executable", sub, "the executable path is too long");
	memset(&c->exe, 0, sizeof c->exe);
	strcpy(c->exe.given, c->argv[0]);
	strcpy(c->exe.path, c->argv[0]);
	c->exe.st.st_dev = (dev_t)-1;	/* the same inode as nothing here */
	c->exe.st.st_ino = (ino_t)-1;
	if (c->command != NULL) {
		if (worst_word(d, NULL, c->command) == DENY_NESTED)
			return refuse(r, "nested_privilege_tool", path, "the command string "
			    "names a privilege tool (sudo, su, doas, pkexec, run0)");
		return 0;
	}
	if (c->as_user) {
		k = runner_target(d, NULL, c);
		return k == DENY_NESTED ? refuse(r, deny_code(k), path, "'%s' would run a "
		    "privilege tool named in its arguments", c->argv[0]) : 0;
	}
	return root_argv_text(d, c, idx, r) != 0 || check_env_words(c, r, path) != 0 ||
	    check_root_words(q, c, r, path) != 0 ? -1 : 0;
}

/*
 * The rules of a request for an enrolled machine that this host judges
 * before asking the target, and again with its answer: every rule that
 * does not depend on the target's files (text, environment, each
 * command's words and names). The target's warrant judges the rest for
 * its ssh user (`warrant exec --resolve`, remote/resolve.c), and its
 * answer is held to what argv[0] names (remote/answer.c). Reviewed files
 * cannot be sent to a target (remote_files).
 */
int
validate_remote_text(struct wrequest *q, struct refusal *r)
{
	struct denylist *d;
	size_t i;
	int rc = 0;

	if (q->nfiles > 0)
		return refuse(r, "remote_files", "$.files", "reviewed files cannot be sent to "
		    "another machine; ask for them on this host, or have a command on the "
		    "target fetch them");
	if (check_env(q, r) != 0 || check_text(q, r) != 0)
		return -1;
	d = denylist_load();
	for (i = 0; i < q->ncmds && rc == 0; i++)
		rc = check_command_text(q, i, d, r);
	denylist_free(d);
	return rc;
}

/* The badges of q once its executables are known. */
void
risk_all(struct wrequest *q)
{
	size_t i;

	q->badges = 0;
	for (i = 0; i < q->ncmds; i++) {
		q->cmds[i].badges = risk_command(&q->cmds[i], q);
		q->badges |= q->cmds[i].badges;
	}
}
