/* SPDX-License-Identifier: ISC */
/*
 * The manifest (docs/design.md §4): the validated request as it will run,
 * every field present, absent optional values null; a reviewed file by
 * name, SHA-256, size and mode (its content is in the blob store), and
 * {"file": NAME} where an argv names one. Its canonical bytes are what
 * the seal covers (shared/manifest.c).
 */
#include "warrant.h"

static json_t *
seconds_or_null(long long t)
{
	return t > 0 ? json_integer(t) : json_null();
}

static json_t *
command_json(const struct wcommand *c)
{
	json_t *argv = json_array();
	size_t i;

	for (i = 0; i < c->argc; i++)
		json_array_append_new(argv, c->file[i] != NULL ?
		    json_pack("{s:s}", "file", c->file[i]->name) : json_string(c->argv[i]));
	return json_pack("{s:s,s:s,s:o,s:s,s:o,s:b,s:s,s:s,s:o}",
	    "id", c->id,
	    "as", c->as_user ? "user" : "root",
	    "argv", argv,
	    "path", c->exe.path,
	    "executable_sha256", c->sealed_at_run ? json_null() : json_string(c->exe.sha256),
	    "sealed_at_run", c->sealed_at_run,
	    "why", c->why,
	    "cwd", c->cwd,
	    "timeout_seconds", seconds_or_null(c->timeout));
}

/* The manifest of every command of q, as request id on host. */
json_t *
manifest_build(const struct wrequest *q, const char *id, const char *host)
{
	json_t *cmds = json_array(), *m;
	size_t i;


	for (i = 0; i < q->ncmds; i++)
		json_array_append_new(cmds, command_json(&q->cmds[i]));
	m = json_pack("{s:i,s:s,s:s,s:s,s:s,s:o,s:b,s:s,s:o,s:o}",
	    "schema_version", 1,
	    "request_id", id,
	    "host", host,
	    "run_as", q->run_as,
	    "cwd", q->cwd,
	    "env", q->env != NULL ? json_incref(q->env) : json_object(),
	    "stop_on_failure", q->stop_on_failure,
	    "output_to_agent", q->output_to_agent,
	    "commands", cmds,
	    "files", files_manifest(q));
	/* an enrolled machine: its name, destination and the account whose
	 * sudo runs the batch (whose password is typed), sealed */
	if (m != NULL && q->machine != NULL)
		json_object_set_new(m, "machine", json_pack("{s:s,s:s,s:s}", "name", q->machine,
		    "destination", q->target_dest, "sudo_user", q->target_sudo));
	return m;
}
