/* SPDX-License-Identifier: ISC */
/*
 * From a request's bytes to a pending gate: parse and validate them for
 * the requester, then a fresh id, the sealed manifest, one transaction in
 * the store, a line in requests.jsonl, and the descriptor the agent gets
 * back. Shared by `warrant request` and the MCP server; the requester is
 * whoever the caller vouches for, never read from this process here.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"
#include "remote/remote.h"

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
	return json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:o,s:o,s:i,s:i,s:s}",
	    "request_id", id, "state", "pending", "manifest_sha256", sha,
	    "expires_at", when, "expires_at_epoch", (json_int_t)expires,
	    "gate_timeout_seconds", (json_int_t)q->gate_timeout,
	    "commands", cmds, "risk_badges", badges_json(q->badges),
	    "root_count", q->nroot, "user_count", q->nuser,
	    "reviewer_command", answer);
}

/* The store's record of q (validated) as gate id; free with record_free. */
static void
record_fill(struct gate_record *g, const struct wrequest *q, const char *id)
{
	size_t i, k;

	g->id = id;
	g->machine = q->machine;
	g->reason = q->reason;
	g->run_as = q->run_as;
	g->cwd = q->cwd;
	g->env = json_object_get(g->manifest, "env");	/* as sealed */
	g->stop_on_failure = q->stop_on_failure;
	g->output_to_agent = q->output_to_agent;
	g->next_prompt = q->next_prompt;
	g->risk_badges = badges_json(q->badges);
	g->root_count = q->nroot;
	g->user_count = q->nuser;
	g->commands = xcalloc(q->ncmds, sizeof *g->commands);
	g->ncommands = q->ncmds;
	for (i = 0; i < q->ncmds; i++) {
		const struct wcommand *c = &q->cmds[i];
		struct command_record *r = &g->commands[i];
		json_t *argv = json_array();

		for (k = 0; k < c->argc; k++)
			json_array_append_new(argv, c->file[k] != NULL ?
			    json_pack("{s:s}", "file", c->file[k]->name) : json_string(c->argv[k]));
		r->id = c->id;
		r->as_user = c->as_user;
		r->argv = argv;
		r->command = c->command;
		r->given_path = c->exe.given;
		r->path = c->exe.path;
		r->executable_sha256 = c->exe.sha256;	/* "" when sealed at run time */
		r->why = c->why;
		r->cwd = c->cwd;
		r->timeout = c->timeout;
		r->badges = badges_json(c->badges);
	}
}

static void
record_free(struct gate_record *g)
{
	size_t i;

	for (i = 0; i < g->ncommands; i++) {
		json_decref(g->commands[i].argv);
		json_decref(g->commands[i].badges);
	}
	free(g->commands);
	json_decref(g->risk_badges);
}

/*
 * Store q (validated for rq) as a pending gate: the content of its files
 * in the blob store first, then the gate. EXIT_OK with the descriptor in
 * *desc; EXIT_REFUSED with r filled (over the blob store's bounds, or a
 * snapshot changed since it was judged); EXIT_INTERNAL after saying why.
 */
static int
gate_create(struct store *given, const struct wrequest *q, const struct requester *rq,
    const char *agent, const char *project, const char *key, json_t **desc,
    struct refusal *r)
{
	char id[GATE_ID_LEN + 1], host[256], sha[SHA256_HEX_LEN + 1], *bytes = NULL;
	struct gate_record g = { 0 };
	json_t *manifest = NULL, *d = NULL;
	struct store st, *s;
	int64_t now;
	int rc = EXIT_INTERNAL, b, lock;

	*desc = NULL;
	if (gate_id_new(id) != 0) {
		warnx("cannot read the system's random source: %m");
		return EXIT_INTERNAL;
	}
	if (q->machine != NULL)
		snprintf(host, sizeof host, "%s", q->target_host);
	else if (gethostname(host, sizeof host) != 0)
		strcpy(host, "localhost");
	host[sizeof host - 1] = '\0';
	manifest = manifest_build(q, id, host);
	if (manifest == NULL || (bytes = manifest_seal(manifest, sha)) == NULL) {
		warnx("cannot encode the manifest");
		goto out;
	}
	now = now_seconds();
	g.host = host;
	g.requester = rq->name;
	g.requester_uid = rq->uid;
	g.requester_pid = rq->pid;
	g.requester_start = rq->pid_start;
	g.agent = agent;
	g.project = project;
	g.manifest = manifest;
	g.manifest_bytes = bytes;
	g.manifest_sha256 = sha;
	g.created = now;
	g.expires = now + q->gate_timeout;
	record_fill(&g, q, id);
	/* built first: a gate is stored only when its descriptor can be told */
	if ((d = descriptor(id, q, sha, g.expires)) == NULL) {
		warnx("cannot encode the gate descriptor");
		goto out;
	}
	g.request_key = key;
	g.descriptor = d;
	if (given == NULL && store_open(&st) != 0)
		goto out;
	s = given != NULL ? given : &st;
	/* admitted, written and named by the gate under the blob store's lock */
	if ((lock = q->nfiles > 0 ? blobs_lock(s->dir) : -2) == -1)
		b = -2;
	else if ((b = blobs_admit(s, lock, q, (int64_t)rq->uid, r)) == 0 &&
	    (b = blobs_store(q, s->dir, r)) == 0 && gate_insert(s, &g) == 0) {
		*desc = d;
		d = NULL;
		rc = EXIT_OK;
	} else if (b == -1)
		rc = EXIT_REFUSED;
	if (lock >= 0)
		close(lock);
	/* stored and waiting: what live grants cover runs by them */
	if (rc == EXIT_OK && q->nroot == 0)
		grants_offer(s, id);
	if (given == NULL)
		store_close(&st);
out:
	record_free(&g);
	json_decref(d);
	json_decref(manifest);
	free(bytes);
	return rc;
}

/*
 * Parse and validate len bytes as rq's request and store it as a pending
 * gate for agent and project (either may be NULL) in st, or (st NULL) in
 * this user's store, opened only once the request is accepted. EXIT_OK with the
 * descriptor in *desc; EXIT_REFUSED with r filled and nothing stored;
 * EXIT_INTERNAL after saying why.
 */
int
gate_submit(struct store *st, const char *bytes, size_t len, const struct requester *rq,
    const char *agent, const char *project, json_t **desc, struct refusal *r)
{
	return gate_submit_answered(st, bytes, len, rq, agent, project, NULL, NULL, desc, r);
}

/*
 * As gate_submit, for the daemon: for a request for an enrolled machine
 * whose target answered already (answer, from remote_ask in the daemon's
 * child process), that answer is applied instead of asking again; key
 * (or NULL) is the client's request key, stored with the gate (keys.c).
 */
int
gate_submit_answered(struct store *st, const char *bytes, size_t len,
    const struct requester *rq, const char *agent, const char *project, const json_t *answer,
    const char *key, json_t **desc, struct refusal *r)
{
	struct wrequest q;
	int rc;

	*desc = NULL;
	if (len > REQUEST_MAX) {
		refuse(r, "invalid_field", "$", "the request is larger than %d bytes",
		    REQUEST_MAX);
		return EXIT_REFUSED;
	}
	if (request_parse_for(bytes, len, rq, &q, r) != 0)
		return EXIT_REFUSED;
	if (q.machine != NULL) {
		char state[PATH_MAX];
		const char *dir = st != NULL ? st->dir : state;

		/* judged on the enrolled machine (remote/resolve.c) */
		if (st == NULL && state_dir(state, sizeof state) != 0)
			rc = EXIT_INTERNAL;
		else if ((answer != NULL ? remote_apply(dir, &q, answer, r) :
		    remote_resolve(dir, &q, r)) != 0)
			rc = EXIT_REFUSED;
		else
			rc = gate_create(st, &q, rq, agent, project, key, desc, r);
	} else if (validate_request(&q, rq, r) != 0)
		rc = EXIT_REFUSED;
	else
		rc = gate_create(st, &q, rq, agent, project, key, desc, r);
	request_free(&q);
	return rc;
}
