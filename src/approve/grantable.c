/* SPDX-License-Identifier: ISC */
/*
 * May this sealed command be granted (docs/grants.md)? A grant lets the
 * same command run again without anyone reading it, so only what reads
 * the same every time may have one: a YOU command with an exact argv, no
 * reviewed files, no shell and no inline code, no input the requester
 * can change (its program, its cwd, a path in its argv or env, the
 * project a reads-cwd program finds in its cwd), and no risk badge.
 * Shells and inline code are found by the rules ROOT commands are held
 * to (intake/argscan.c, the denylists), applied here to a YOU command's
 * argv; writability is judged for the requester as intake judges it
 * (path.c). Its codes are the reviewer's (answer --grant), not the
 * agent's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch.h"

#define AGENT_INPUT_HINT	"run it reviewed each time, or grant a command whose " \
	"inputs the requester cannot change"

/* The program's argv, as the scan reads it; -1 when a word is not a
 * string (a reviewed file). */
static int
argv_words(const json_t *argv, const char **words, size_t max, size_t *n)
{
	json_t *a;
	size_t i;

	json_array_foreach(argv, i, a) {
		if (!json_is_string(a) || i + 1 >= max)
			return -1;
		words[i] = json_string_value(a);
	}
	words[json_array_size(argv)] = NULL;
	*n = json_array_size(argv);
	return 0;
}

/* grant_agent_input: why (cut short, so the hint is always said) names
 * the input the requester can change. */
static int
agent_input(struct refusal *r, const char *path, const char *id, const char *why)
{
	return refuse(r, "grant_agent_input", path, "command '%s' cannot be granted: %.240s; "
	    "the requester could change what it does after review: " AGENT_INPUT_HINT, id, why);
}

/*
 * Could w change what the command finds at path (absolute, or relative
 * to cwd)? As path_changeable judges it, and more: this process is the
 * reviewer, and a directory it cannot search would hide from the walk
 * what the requester keeps below it, so such a path counts, as does one
 * that cannot be judged. 1 with why, or 0.
 */
static int
path_agent_input(const struct writer *w, const char *cwd, const char *path, char *why,
    size_t size)
{
	char full[2 * PATH_MAX];
	struct stat st;
	int rc;

	if ((size_t)snprintf(full, sizeof full, "%s%s%s", path[0] == '/' ? "" : cwd,
	    path[0] == '/' || strcmp(cwd, "/") == 0 ? "" : "/", path) >= sizeof full) {
		snprintf(why, size, "'%.64s…' is too long to be checked", path);
		return 1;
	}
	if (lstat(full, &st) != 0 && errno == EACCES) {
		snprintf(why, size, "%.200s lies below a directory the reviewer cannot search",
		    full);
		return 1;
	}
	if ((rc = path_changeable(w, full, why, size)) < 0)
		snprintf(why, size, "%.200s cannot be checked for who may change it", full);
	return rc != 0;
}

struct agent_check {
	const struct writer *w;
	const char	*cwd;
	char		*why;
	size_t		 size;
};

static int
agent_check_one(void *arg, const char *path)
{
	const struct agent_check *c = arg;

	return path_agent_input(c->w, c->cwd, path, c->why, c->size);
}

/* Is a path the word may name (word_paths) the requester's to change?
 * 1 with why. */
static int
word_agent_input(const struct writer *w, const char *cwd, const char *word, char *why,
    size_t size)
{
	struct agent_check c = { w, cwd, why, size };

	return word_paths(word, agent_check_one, &c) != 0;
}

/*
 * grant_agent_input, for c of gate (its executable resolved): the
 * program, the cwd, an argv word or an env value names something the
 * requester can write or replace, or the program reads its project from
 * its cwd (badge reads-cwd). 0, or -1 with r filled.
 */
static int
input_check(const json_t *gate, const json_t *cmd, const struct wcommand *c,
    const char *path, struct refusal *r)
{
	char why[PATH_MAX + 160];
	const char *key;
	struct writer w;
	gid_t *groups;
	json_t *rq, *v, *b;
	size_t i;
	int rc = 0;

	/* who asked, with the groups the database gives it now; anyone but
	 * root when it cannot be looked up */
	rq = json_pack("{s:o}", "requester", requester_json(gate));
	manifest_requester(rq, &w, &groups);
	json_decref(rq);
	if ((rc = path_writable(&w, c->exe.path, why, sizeof why)) != 0)
		rc = agent_input(r, path, c->id, rc > 0 ? why :
		    "its program cannot be checked for who may replace it");
	else if (path_agent_input(&w, "/", c->cwd, why, sizeof why))
		rc = agent_input(r, path, c->id, why);
	for (i = 1; rc == 0 && i < c->argc; i++)
		if (word_agent_input(&w, c->cwd, c->argv[i], why, sizeof why))
			rc = agent_input(r, path, c->id, why);
	json_object_foreach(json_object_get(gate, "env"), key, v)
		if (rc == 0 && json_is_string(v) &&
		    word_agent_input(&w, c->cwd, json_string_value(v), why, sizeof why))
			rc = agent_input(r, path, c->id, why);
	json_array_foreach(json_object_get(cmd, "badges"), i, b)
		if (rc == 0 && json_is_string(b) && strcmp(json_string_value(b), "reads-cwd") == 0) {
			snprintf(why, sizeof why, "%s reads its project from its working "
			    "directory (badge reads-cwd)", c->exe.path);
			rc = agent_input(r, path, c->id, why);
		}
	free(groups);
	return rc;
}

/*
 * Judge command idx of gate (store_gate's, its "commands" with their
 * badges): 0 when it may be granted, else -1 with r filled: grant_root,
 * grant_files, grant_shell, grant_inline_code, grant_agent_input or
 * grant_risky.
 */
int
grant_judge(const json_t *gate, size_t idx, struct refusal *r)
{
	const json_t *cmd = json_array_get(json_object_get(gate, "commands"), idx);
	const char *words[65], *id = json_str(cmd, "id");
	struct wcommand c = { 0 };
	struct refusal scan;
	struct denylist *d;
	enum deny_kind k;
	char path[64];
	int rc;

	snprintf(path, sizeof path, "$.commands[%zu]", idx);
	if (strcmp(json_str(cmd, "as"), "root") == 0)
		return refuse(r, "grant_root", path, "command '%s' runs as root: every ROOT run "
		    "authenticates with sudo, so it cannot be granted", id);
	if (argv_words(json_object_get(cmd, "argv"), words, sizeof words / sizeof *words,
	    &c.argc) != 0)
		return refuse(r, "grant_files", path, "command '%s' uses reviewed files: their "
		    "content is read again each time, so it cannot be granted", id);
	if (json_is_string(json_object_get(cmd, "command")))
		return refuse(r, "grant_shell", path, "command '%s' is a shell string: it "
		    "cannot be granted (only an exact argv can)", id);
	c.id = id;
	c.as_user = 1;
	c.argv = words;
	snprintf(c.cwd, sizeof c.cwd, "%s", json_str(cmd, "cwd"));
	snprintf(c.exe.given, sizeof c.exe.given, "%s", json_str(cmd, "given_path"));
	snprintf(c.exe.path, sizeof c.exe.path, "%s", json_str(cmd, "path"));
	snprintf(c.exe.sha256, sizeof c.exe.sha256, "%s", json_str(cmd, "executable_sha256"));
	if (*c.exe.sha256 == '\0' || stat(c.exe.path, &c.exe.st) != 0)
		return refuse(r, "grant_risky", path, "command '%s': its executable is sealed "
		    "only at run time or is gone, so it cannot be granted", id);
	if ((d = denylist_load()) == NULL)
		return refuse(r, "grant_risky", path, "cannot read the denylists to judge "
		    "command '%s'", id);
	if ((k = deny_executable(d, &c.exe)) != DENY_NONE)
		rc = refuse(r, "grant_shell", path, "command '%s' runs %s, which can run "
		    "anything: it cannot be granted", id, c.exe.path);
	else if ((rc = root_argv_check(d, &c, idx, &requester_anyone, &scan)) != 0)
		rc = strncmp(scan.code, "writable_", 9) == 0 ?
		    agent_input(r, path, id, scan.message) :
		    refuse(r, strcmp(scan.code, "shell_request") == 0 ? "grant_inline_code" :
		    strcmp(scan.code, "interactive_program") == 0 ||
		    strcmp(scan.code, "nested_privilege_tool") == 0 ? "grant_shell" :
		    "grant_risky", path, "command '%s' cannot be granted: %s", id, scan.message);
	denylist_free(d);
	if (rc == 0)
		rc = input_check(gate, cmd, &c, path, r);
	if (rc == 0 && json_array_size(json_object_get(cmd, "badges")) > 0)
		rc = refuse(r, "grant_risky", path, "command '%s' is badged %s: it cannot be "
		    "granted", id, json_string_value(json_array_get(json_object_get(cmd,
		    "badges"), 0)));
	return rc;
}
