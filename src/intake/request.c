/* SPDX-License-Identifier: ISC */
/*
 * Parse a schema v1 request (docs/design.md §3) into a struct wrequest: every
 * field's type, size and shape is checked here and refused whole with
 * invalid_field (or unsupported_schema / cwd_on_root_command) naming the
 * JSON path. Policy rules on the parsed request live in validate.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

#define MAX_COMMANDS	128
#define MAX_ARGV	64
#define MAX_ARG		4096
#define MAX_ENV_VALUE	4096
#define MAX_ENV_KEYS	128
#define MAX_WHY		2048
#define MAX_REASON	8192
#define MAX_PROMPT	16384
#define MAX_MACHINE	255
#define MAX_SECONDS	86400

static const char *const request_keys[] = {
	"schema_version", "reason", "why", "commands", "run_as", "cwd", "env",
	"stop_on_failure", "output_to_agent", "gate_timeout_seconds",
	"timeout_seconds", "machine", "next", "files", NULL
};
static const char *const command_keys[] = {
	"id", "argv", "why", "as", "cwd", "timeout_seconds", "command", NULL
};

int
refuse(struct refusal *r, const char *code, const char *path, const char *fmt, ...)
{
	va_list ap;

	r->code = code;
	snprintf(r->path, sizeof r->path, "%s", path ? path : "$");
	va_start(ap, fmt);
	vsnprintf(r->message, sizeof r->message, fmt, ap);
	va_end(ap);
	return -1;
}

/* The refusal for the agent. A path or message cut inside a character is
 * no JSON string as it is: such bytes become \xNN. */
json_t *
refusal_json(const struct refusal *r)
{
	char *path = text_json_safe(r->path, strlen(r->path));
	char *msg = text_json_safe(r->message, strlen(r->message));
	json_t *j = json_pack("{s:{s:s,s:s,s:s,s:s?}}", "error", "code", r->code,
	    "message", msg, "path", path, "hint", refusal_hint(r));

	free(path);
	free(msg);
	return j;
}

/*
 * Fill r from a refusal object as refusal_json makes it ({"error":{…}}),
 * read from the daemon. 0, or -1 when it is not one.
 */
int
refusal_from_json(struct refusal *r, const json_t *j)
{
	const json_t *e = json_object_get(j, "error");
	const char *code = json_string_value(json_object_get(e, "code"));
	const char *msg = json_string_value(json_object_get(e, "message"));
	const char *path = json_string_value(json_object_get(e, "path"));
	size_t i;

	memset(r, 0, sizeof *r);
	if (code == NULL || msg == NULL || strlen(code) >= sizeof r->code_buf)
		return -1;
	for (i = 0; code[i] != '\0'; i++)
		if (!(code[i] >= 'a' && code[i] <= 'z') && code[i] != '_')
			return -1;
	memcpy(r->code_buf, code, i + 1);
	r->code = r->code_buf;
	snprintf(r->message, sizeof r->message, "%s", msg);
	snprintf(r->path, sizeof r->path, "%s", path != NULL ? path : "");
	return 0;
}

static int
known_keys(json_t *obj, const char *const *keys, const char *path, struct refusal *r)
{
	const char *key, *const *k;
	char sub[256];
	json_t *v;

	json_object_foreach(obj, key, v) {
		for (k = keys; *k != NULL; k++)
			if (strcmp(*k, key) == 0)
				break;
		if (*k == NULL) {
			snprintf(sub, sizeof sub, "%s.%s", path, key);
			return refuse(r, "invalid_field", sub, "unknown field '%s'", key);
		}
	}
	return 0;
}

/* A non-empty string of at most max bytes; absent is fine unless required. */
static int
get_string(json_t *obj, const char *key, const char *path, int required,
    size_t max, const char **out, struct refusal *r)
{
	json_t *v = json_object_get(obj, key);
	char sub[256];

	snprintf(sub, sizeof sub, "%s.%s", path, key);
	if (v == NULL) {
		*out = NULL;
		return required ? refuse(r, "invalid_field", sub, "'%s' is required", key) : 0;
	}
	if (!json_is_string(v))
		return refuse(r, "invalid_field", sub, "'%s' must be a string", key);
	if (json_string_length(v) == 0)
		return refuse(r, "invalid_field", sub, "'%s' must not be empty", key);
	if (json_string_length(v) > max)
		return refuse(r, "invalid_field", sub, "'%s' is longer than %zu bytes", key, max);
	*out = json_string_value(v);
	return 0;
}

/* An integer in [1, MAX_SECONDS]; 0 when absent. */
static int
get_seconds(json_t *obj, const char *key, const char *path, long long *out,
    struct refusal *r)
{
	json_t *v = json_object_get(obj, key);
	char sub[256];

	*out = 0;
	if (v == NULL)
		return 0;
	snprintf(sub, sizeof sub, "%s.%s", path, key);
	if (!json_is_integer(v))
		return refuse(r, "invalid_field", sub, "'%s' must be an integer", key);
	if (json_integer_value(v) < 1 || json_integer_value(v) > MAX_SECONDS)
		return refuse(r, "invalid_field", sub, "'%s' must be between 1 and %d",
		    key, MAX_SECONDS);
	*out = json_integer_value(v);
	return 0;
}

/* An existing absolute directory, as q's requester could look it up
 * (reach_path), stored resolved. */
static int
get_directory(const struct wrequest *q, const char *dir, const char *sub, char out[PATH_MAX],
    struct refusal *r)
{
	struct stat st;
	int fd;

	if (dir[0] != '/')
		return refuse(r, "invalid_field", sub, "'%s' is not an absolute path", dir);
	if ((fd = reach_path(q->viewer, dir, 1, out)) < 0)
		return refuse(r, "invalid_field", sub, "'%s' cannot be resolved: %s",
		    dir, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return refuse(r, "invalid_field", sub, "'%s' is not a directory", dir);
	}
	close(fd);
	return 0;
}

static int
parse_env(struct wrequest *q, struct refusal *r)
{
	json_t *env = json_object_get(q->json, "env"), *v;
	const char *key;
	char sub[320];

	if (env == NULL) {
		q->env = NULL;
		return 0;
	}
	if (!json_is_object(env))
		return refuse(r, "invalid_field", "$.env", "'env' must be an object of strings");
	if (json_object_size(env) > MAX_ENV_KEYS)
		return refuse(r, "invalid_field", "$.env", "'env' has more than %d keys",
		    MAX_ENV_KEYS);
	json_object_foreach(env, key, v) {
		snprintf(sub, sizeof sub, "$.env.%s", key);
		if (!json_is_string(v))
			return refuse(r, "invalid_field", sub, "environment values must be strings");
		if (json_string_length(v) > MAX_ENV_VALUE)
			return refuse(r, "invalid_field", sub,
			    "environment value is longer than %d bytes", MAX_ENV_VALUE);
	}
	q->env = env;
	return 0;
}

static const char *const bash_argv[] = { "bash", "--noprofile", "--norc", "-c" };

static int
parse_command(struct wrequest *q, size_t idx, json_t *c, struct refusal *r)
{
	struct wcommand *cmd = &q->cmds[idx];
	char path[64], sub[128];
	const char *as, *dir;
	json_t *argv, *v;
	size_t i;

	snprintf(path, sizeof path, "$.commands[%zu]", idx);
	if (!json_is_object(c))
		return refuse(r, "invalid_field", path, "each command must be an object");
	if (known_keys(c, command_keys, path, r) != 0)
		return -1;
	if (get_string(c, "id", path, 1, 64, &cmd->id, r) != 0)
		return -1;
	snprintf(sub, sizeof sub, "%s.id", path);
	if (!id_name_ok(cmd->id))
		return refuse(r, "invalid_field", sub,
		    "command ids are 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
	for (i = 0; i < idx; i++)
		if (strcmp(q->cmds[i].id, cmd->id) == 0)
			return refuse(r, "invalid_field", sub, "duplicate command id '%s'", cmd->id);
	if (get_string(c, "why", path, 1, MAX_WHY, &cmd->why, r) != 0 ||
	    get_string(c, "as", path, 0, 16, &as, r) != 0 ||
	    get_seconds(c, "timeout_seconds", path, &cmd->timeout, r) != 0)
		return -1;
	snprintf(sub, sizeof sub, "%s.as", path);
	if (as == NULL || strcmp(as, "root") == 0)
		cmd->as_user = 0;
	else if (strcmp(as, "user") == 0)
		cmd->as_user = 1;
	else
		return refuse(r, "invalid_field", sub, "'as' must be \"root\" or \"user\"");
	if (cmd->timeout == 0)
		cmd->timeout = q->timeout;

	snprintf(sub, sizeof sub, "%s.cwd", path);
	if (json_object_get(c, "cwd") != NULL && !cmd->as_user)
		return refuse(r, "cwd_on_root_command", sub,
		    "ROOT commands run in the request's cwd; 'cwd' is only for as: user");
	if (get_string(c, "cwd", path, 0, PATH_MAX - 1, &dir, r) != 0)
		return -1;
	/* a YOU command without one runs in the requester's home (validate.c) */
	if (!cmd->as_user)
		strcpy(cmd->cwd, q->cwd);
	else if (dir != NULL && get_directory(q, dir, sub, cmd->cwd, r) != 0)
		return -1;

	if (get_string(c, "command", path, 0, MAX_ARG, &cmd->command, r) != 0)
		return -1;
	argv = json_object_get(c, "argv");
	snprintf(sub, sizeof sub, "%s.%s", path, cmd->command ? "command" : "argv");
	if (cmd->command != NULL && !cmd->as_user)
		return refuse(r, "invalid_field", sub,
		    "'command' is only for as: user; ROOT commands take an exact argv");
	if (cmd->command != NULL && argv != NULL)
		return refuse(r, "invalid_field", sub, "give 'argv' or 'command', not both");
	if (cmd->command != NULL) {
		cmd->argc = 5;
		cmd->argv = xcalloc(6, sizeof *cmd->argv);
		cmd->file = xcalloc(6, sizeof *cmd->file);
		memcpy(cmd->argv, bash_argv, sizeof bash_argv);
		cmd->argv[4] = cmd->command;
		return 0;
	}
	if (argv == NULL)
		return refuse(r, "invalid_field", sub, "'argv' is required");
	if (!json_is_array(argv) || json_array_size(argv) == 0)
		return refuse(r, "invalid_field", sub, "'argv' must be a non-empty array of strings");
	if (json_array_size(argv) > MAX_ARGV)
		return refuse(r, "invalid_field", sub, "'argv' has more than %d entries", MAX_ARGV);
	cmd->argc = json_array_size(argv);
	cmd->argv = xcalloc(cmd->argc + 1, sizeof *cmd->argv);
	cmd->file = xcalloc(cmd->argc + 1, sizeof *cmd->file);
	json_array_foreach(argv, i, v) {
		snprintf(sub, sizeof sub, "%s.argv[%zu]", path, i);
		/* {"file": NAME}: a reviewed file, staged at run time; the
		 * rules read it as "{file:NAME}" */
		if (json_is_object(v) && i > 0) {
			if ((cmd->file[i] = files_ref(q, v, sub, r)) == NULL)
				return -1;
			cmd->argv[i] = cmd->file[i]->placeholder;
			continue;
		}
		if (json_is_object(v))
			return refuse(r, "invalid_field", sub, "argv[0] names the program; a file "
			    "cannot be argv[0] (install it with an earlier ROOT command, then run it)");
		if (!json_is_string(v) || json_string_length(v) == 0)
			return refuse(r, "invalid_field", sub,
			    "argv entries must be non-empty strings or {\"file\": NAME}");
		if (json_string_length(v) > MAX_ARG)
			return refuse(r, "invalid_field", sub, "argv entry is longer than %d bytes",
			    MAX_ARG);
		cmd->argv[i] = json_string_value(v);
	}
	return 0;
}

static int
parse_top(struct wrequest *q, struct refusal *r)
{
	json_t *j = q->json, *v;
	const char *s, *why;

	if (!json_is_object(j))
		return refuse(r, "invalid_field", "$", "the request must be a JSON object");
	if (known_keys(j, request_keys, "$", r) != 0)
		return -1;
	v = json_object_get(j, "schema_version");
	if (v != NULL && !(json_is_integer(v) && json_integer_value(v) == 1))
		return refuse(r, "unsupported_schema", "$.schema_version",
		    "only schema_version 1 is supported");

	if (get_string(j, "reason", "$", 0, MAX_REASON, &q->reason, r) != 0 ||
	    get_string(j, "why", "$", 0, MAX_REASON, &why, r) != 0)
		return -1;
	if (q->reason != NULL && why != NULL)
		return refuse(r, "invalid_field", "$.why", "give 'reason' or its alias 'why', not both");
	if (q->reason == NULL)
		q->reason = why;
	if (q->reason == NULL)
		return refuse(r, "invalid_field", "$.reason", "'reason' is required");

	if (get_string(j, "run_as", "$", 0, 64, &q->run_as, r) != 0)
		return -1;
	if (q->run_as == NULL)
		q->run_as = "root";
	else if (!id_name_ok(q->run_as))
		return refuse(r, "invalid_field", "$.run_as", "'run_as' must be a user name");

	if (get_string(j, "cwd", "$", 0, PATH_MAX - 1, &s, r) != 0)
		return -1;
	if (get_directory(q, s ? s : "/", "$.cwd", q->cwd, r) != 0)
		return -1;
	if (parse_env(q, r) != 0)
		return -1;

	v = json_object_get(j, "stop_on_failure");
	if (v != NULL && !json_is_boolean(v))
		return refuse(r, "invalid_field", "$.stop_on_failure", "'stop_on_failure' must be true or false");
	q->stop_on_failure = v == NULL || json_is_true(v);

	if (get_string(j, "output_to_agent", "$", 0, 16, &q->output_to_agent, r) != 0)
		return -1;
	if (q->output_to_agent == NULL)
		q->output_to_agent = "tail";
	else if (strcmp(q->output_to_agent, "none") != 0 &&
	    strcmp(q->output_to_agent, "tail") != 0 && strcmp(q->output_to_agent, "full") != 0)
		return refuse(r, "invalid_field", "$.output_to_agent",
		    "'output_to_agent' must be \"none\", \"tail\" or \"full\"");

	if (get_seconds(j, "gate_timeout_seconds", "$", &q->gate_timeout, r) != 0 ||
	    get_seconds(j, "timeout_seconds", "$", &q->timeout, r) != 0)
		return -1;
	if (q->gate_timeout == 0)
		q->gate_timeout = q->timeout ? q->timeout : 300;

	v = json_object_get(j, "machine");
	if (v != NULL) {
		if (!json_is_string(v))
			return refuse(r, "invalid_field", "$.machine", "'machine' must be a string");
		if (json_string_length(v) > MAX_MACHINE)
			return refuse(r, "invalid_field", "$.machine",
			    "'machine' is longer than %d bytes", MAX_MACHINE);
		/* jansson refuses \u0000, so the string ends where its length does */
		for (s = json_string_value(v); *s != '\0'; s++)
			if ((unsigned char)*s <= ' ' || *s == 0x7f)
				return refuse(r, "invalid_field", "$.machine",
				    "'machine' must be a host alias without whitespace or control characters");
		s = json_string_value(v);
		if (*s != '\0' && strcmp(s, "local") != 0)
			q->machine = s;
	}
	v = json_object_get(j, "next");
	if (v != NULL) {
		if (!json_is_object(v))
			return refuse(r, "invalid_field", "$.next", "'next' must be an object");
		if (known_keys(v, (const char *const[]){ "prompt", NULL }, "$.next", r) != 0 ||
		    get_string(v, "prompt", "$.next", 0, MAX_PROMPT, &q->next_prompt, r) != 0)
			return -1;
	}
	return 0;
}

/*
 * A request's bytes as one JSON object (duplicate keys refused), or NULL
 * with r filled. A client of the daemon checks this much before sending.
 */
json_t *
request_load(const char *buf, size_t len, struct refusal *r)
{
	json_error_t err;
	json_t *j;

	if (len > REQUEST_MAX) {
		refuse(r, "invalid_field", "$", "the request is larger than %d bytes",
		    REQUEST_MAX);
		return NULL;
	}
	if ((j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err)) == NULL) {
		refuse(r, "invalid_json", "$", "not valid JSON at line %d column %d: %s",
		    err.line, err.column, err.text);
		return NULL;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		refuse(r, "invalid_field", "$", "the request must be a JSON object");
		return NULL;
	}
	return j;
}

/*
 * Parse buf into q, its paths looked up as this process's. On refusal
 * returns -1 with r filled and q freed.
 */
int
request_parse(const char *buf, size_t len, struct wrequest *q, struct refusal *r)
{
	return request_parse_for(buf, len, NULL, q, r);
}

/* As request_parse, with the paths looked up as p could (reach_path). */
int
request_parse_for(const char *buf, size_t len, const struct requester *p,
    struct wrequest *q, struct refusal *r)
{
	json_t *cmds, *c;
	size_t i;

	memset(q, 0, sizeof *q);
	q->viewer = p;
	if ((q->json = request_load(buf, len, r)) == NULL)
		return -1;
	if (parse_top(q, r) != 0 || files_parse(q, r) != 0)
		goto fail;
	cmds = json_object_get(q->json, "commands");
	if (cmds == NULL) {
		refuse(r, "invalid_field", "$.commands", "'commands' is required");
		goto fail;
	}
	if (!json_is_array(cmds) || json_array_size(cmds) == 0) {
		refuse(r, "invalid_field", "$.commands", "'commands' must be a non-empty array");
		goto fail;
	}
	if (json_array_size(cmds) > MAX_COMMANDS) {
		refuse(r, "invalid_field", "$.commands", "more than %d commands", MAX_COMMANDS);
		goto fail;
	}
	q->ncmds = json_array_size(cmds);
	q->cmds = xcalloc(q->ncmds, sizeof *q->cmds);
	json_array_foreach(cmds, i, c) {
		if (parse_command(q, i, c, r) != 0)
			goto fail;
		if (q->cmds[i].as_user)
			q->nuser++;
		else
			q->nroot++;
	}
	if (files_all_used(q, r) != 0)
		goto fail;
	return 0;
fail:
	request_free(q);
	return -1;
}

void
request_free(struct wrequest *q)
{
	size_t i;

	if (q->cmds != NULL)
		for (i = 0; i < q->ncmds; i++) {
			free(q->cmds[i].argv);
			free(q->cmds[i].file);
		}
	free(q->cmds);
	files_free(q);
	json_decref(q->json);
	memset(q, 0, sizeof *q);
}
