/*
 * Creating a gate from a validated request: a fresh id, the sealed
 * manifest, one transaction in the store, a line in requests.jsonl, and
 * the descriptor the agent gets back. Shared by `warrant request` and the
 * MCP server.
 */
#include <err.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		json_array_append_new(argv, json_string(c->argv[i]));
	return json_pack("{s:s,s:s,s:o,s:s,s:s,s:s,s:s,s:o}",
	    "id", c->id,
	    "as", c->as_user ? "user" : "root",
	    "argv", argv,
	    "path", c->exe.path,
	    "executable_sha256", c->exe.sha256,
	    "why", c->why,
	    "cwd", c->cwd,
	    "timeout_seconds", seconds_or_null(c->timeout));
}

/* The manifest of every command of q, as request id on host. */
json_t *
manifest_build(const struct wrequest *q, const char *id, const char *host)
{
	json_t *cmds = json_array();
	size_t i;

	for (i = 0; i < q->ncmds; i++)
		json_array_append_new(cmds, command_json(&q->cmds[i]));
	return json_pack("{s:i,s:s,s:s,s:s,s:s,s:o,s:b,s:s,s:o}",
	    "schema_version", 1,
	    "request_id", id,
	    "host", host,
	    "run_as", q->run_as,
	    "cwd", q->cwd,
	    "env", q->env != NULL ? json_incref(q->env) : json_object(),
	    "stop_on_failure", q->stop_on_failure,
	    "output_to_agent", q->output_to_agent,
	    "commands", cmds);
}

static json_t *
descriptor(const char *id, const struct wrequest *q, const char *sha, int64_t expires)
{
	json_t *cmds = json_array();
	char when[32], answer[64];
	size_t i;

	for (i = 0; i < q->ncmds; i++)
		json_array_append_new(cmds, json_pack("{s:s,s:s,s:o}",
		    "id", q->cmds[i].id, "as", q->cmds[i].as_user ? "user" : "root",
		    "badges", badges_json(q->cmds[i].badges)));
	format_time(expires, when, sizeof when);
	snprintf(answer, sizeof answer, "warrant answer %s", id);
	return json_pack("{s:s,s:s,s:s,s:s,s:I,s:o,s:o,s:i,s:i,s:s}",
	    "request_id", id, "state", "pending", "manifest_sha256", sha,
	    "expires_at", when, "expires_at_epoch", (json_int_t)expires,
	    "commands", cmds, "risk_badges", badges_json(q->badges),
	    "root_count", q->nroot, "user_count", q->nuser,
	    "reviewer_command", answer);
}

/* requests.jsonl: the user's own record of every request and decision. */
static void
log_request(const char *dir, const char *id, const struct gate_meta *m,
    json_t *manifest, const char *sha, int64_t now)
{
	json_t *line = json_pack("{s:s,s:I,s:s,s:s,s:s?,s:s?,s:O}", "event", "request",
	    "at", (json_int_t)now, "request_id", id, "manifest_sha256", sha,
	    "agent", m->agent, "project", m->project, "manifest", manifest);

	state_append_jsonl(dir, line);
	json_decref(line);
}

/*
 * Store q (validated) as a pending gate. Returns 0 with the descriptor in
 * *desc, or -1 after saying why.
 */
int
gate_create(const struct wrequest *q, const char *agent, const char *project, json_t **desc)
{
	char id[GATE_ID_LEN + 1], host[256], sha[SHA256_HEX_LEN + 1], *bytes = NULL;
	struct passwd *pw = getpwuid(getuid());
	struct gate_meta meta;
	json_t *manifest = NULL;
	struct store st;
	int64_t now;
	int rc = -1;

	*desc = NULL;
	if (gate_id_new(id) != 0) {
		warnx("cannot read the system's random source: %m");
		return -1;
	}
	if (gethostname(host, sizeof host) != 0)
		strcpy(host, "localhost");
	host[sizeof host - 1] = '\0';
	manifest = manifest_build(q, id, host);
	if (manifest == NULL || (bytes = manifest_seal(manifest, sha)) == NULL) {
		warnx("cannot encode the manifest");
		goto out;
	}
	meta.agent = agent;
	meta.project = project;
	meta.requester = pw != NULL ? pw->pw_name : "unknown";
	meta.requester_uid = getuid();
	meta.host = host;
	now = now_seconds();
	if (store_open(&st) != 0)
		goto out;
	if (store_insert_request(&st, id, q, &meta, manifest, bytes, sha, now,
	    now + q->gate_timeout) == 0) {
		*desc = descriptor(id, q, sha, now + q->gate_timeout);
		log_request(st.dir, id, &meta, manifest, sha, now);
		rc = 0;
	}
	store_close(&st);
out:
	json_decref(manifest);
	free(bytes);
	return rc;
}
