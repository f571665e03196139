/* SPDX-License-Identifier: ISC */
/*
 * May this sealed command be granted (docs/grants.md)? A grant lets the
 * same command run again without anyone reading it, so only what reads
 * the same every time may have one: a YOU command with an exact argv, no
 * reviewed files, no shell and no inline code, and no risk badge. Shells
 * and inline code are found by the rules ROOT commands are held to
 * (intake/argscan.c, the denylists), applied here to a YOU command's argv.
 * Its codes are the reviewer's (answer --grant), not the agent's.
 */
#include <string.h>
#include <sys/stat.h>

#include "warrant.h"

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

/*
 * Judge cmd (a command of store_gate's "commands", idx in the request):
 * 0 when it may be granted, else -1 with r filled: grant_root,
 * grant_files, grant_shell, grant_inline_code or grant_risky.
 */
int
grant_judge(const json_t *cmd, size_t idx, struct refusal *r)
{
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
		rc = refuse(r, strcmp(scan.code, "shell_request") == 0 ? "grant_inline_code" :
		    strcmp(scan.code, "interactive_program") == 0 ||
		    strcmp(scan.code, "nested_privilege_tool") == 0 ? "grant_shell" :
		    "grant_risky", path, "command '%s' cannot be granted: %s", id, scan.message);
	denylist_free(d);
	if (rc == 0 && json_array_size(json_object_get(cmd, "badges")) > 0)
		rc = refuse(r, "grant_risky", path, "command '%s' is badged %s: it cannot be "
		    "granted", id, json_string_value(json_array_get(json_object_get(cmd,
		    "badges"), 0)));
	return rc;
}
