/* SPDX-License-Identifier: ISC */
/*
 * A request for an enrolled machine, judged where it will run: this host
 * checks its text, then sends it (without "machine") on the standard
 * input of `warrant exec --resolve` on the target (ssh, batch, no
 * terminal: the agent's words never reach a shell's command line). The
 * target's warrant runs the whole intake for its ssh user (resolve,
 * denylists by name and identity, writability, arguments) and answers
 * with its paths and SHA-256s and its contract, or with its refusal,
 * passed on with the same code. The daemon asks from a child process
 * (remote_ask) and applies the answer in its own (remote_apply), so that
 * a slow target holds up no other requester. Done at request time: the gate that the
 * reviewer sees already shows the target's paths and hashes, and the
 * target's runner hashes every executable again before it runs it.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "remote/remote.h"

/* Fill q's commands from the target's answer; 0 or -1 (malformed). */
static int
fill(struct wrequest *q, const json_t *a)
{
	json_t *cmds = json_object_get(a, "commands"), *c;
	size_t i;

	if (!json_is_array(cmds) || json_array_size(cmds) != q->ncmds)
		return -1;
	json_array_foreach(cmds, i, c) {
		struct wcommand *w = &q->cmds[i];
		const char *sha = json_str(c, "executable_sha256");

		if (strcmp(json_str(c, "id"), w->id) != 0 || json_str(c, "path")[0] != '/' ||
		    json_str(c, "cwd")[0] != '/' ||
		    snprintf(w->exe.path, sizeof w->exe.path, "%s", json_str(c, "path")) >=
		    (int)sizeof w->exe.path ||
		    snprintf(w->exe.given, sizeof w->exe.given, "%s", json_str(c, "given")) >=
		    (int)sizeof w->exe.given ||
		    snprintf(w->cwd, sizeof w->cwd, "%s", json_str(c, "cwd")) >= (int)sizeof w->cwd)
			return -1;
		w->sealed_at_run = json_is_true(json_object_get(c, "sealed_at_run"));
		if (!w->sealed_at_run && strlen(sha) != SHA256_HEX_LEN)
			return -1;
		snprintf(w->exe.sha256, sizeof w->exe.sha256, "%s", w->sealed_at_run ? "" : sha);
	}
	if (json_str(a, "cwd")[0] != '/' ||
	    snprintf(q->cwd, sizeof q->cwd, "%s", json_str(a, "cwd")) >= (int)sizeof q->cwd)
		return -1;
	return 0;
}

/* The request's commands fit the machine's accounts: one enrolled with
 * --root-via takes ROOT commands only (YOU commands would run in the
 * account whose password is typed). */
static int
accounts_fit(const json_t *m, const struct wrequest *q, struct refusal *r)
{
	size_t i;

	if (*json_str(m, "root_via") == '\0')
		return 0;
	for (i = 0; i < q->ncmds; i++)
		if (q->cmds[i].as_user)
			return refuse(r, "remote_root_only", "$.commands", "%s takes ROOT commands "
			    "only: they go through its account %s, which runs nothing of yours; "
			    "command %s runs as you", q->machine, json_str(m, "root_via"),
			    q->cmds[i].id);
	return 0;
}

/*
 * The target's answer to q: one batch ssh call (up to PROBE_TIMEOUT
 * seconds), reading the enrolled machines but no store, so that the
 * daemon can ask from a child process. The answer (a new reference), or
 * NULL with r filled.
 */
json_t *
remote_ask(const char *state, struct wrequest *q, struct refusal *r)
{
	json_t *m, *body, *a = NULL;
	struct ssh_result res;
	char why[512], *bytes;
	const char *code, *words[4];

	/* unknown_machine comes first, as locally (docs/decisions.md) */
	if ((m = machine_get(state, q->machine, r)) == NULL)
		return NULL;
	if (accounts_fit(m, q, r) != 0 || validate_remote_text(q, r) != 0) {
		json_decref(m);
		return NULL;
	}
	words[0] = json_str(m, "warrant");
	words[1] = "exec";
	words[2] = "--resolve";
	words[3] = NULL;
	body = json_deep_copy(q->json);
	json_object_del(body, "machine");
	bytes = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	{
		struct ssh_call c = { .state = state, .machine = m, .tty = -1, .words = words,
		    .in = bytes, .inlen = bytes != NULL ? strlen(bytes) : 0,
		    .timeout = PROBE_TIMEOUT };

		if (bytes == NULL || ssh_run(&c, &res) != 0) {
			refuse(r, "machine_unreachable", "$.machine", "cannot start " SSH_PATH);
			goto out;
		}
	}
	if (!ssh_answered(&res)) {
		code = ssh_failure(&res, why, sizeof why);
		refuse(r, code, "$.machine", "%s: %s", q->machine, why);
	} else if ((a = remote_answer(res.out)) == NULL)
		refuse(r, "machine_incompatible", "$.machine", "%s: `%s exec --resolve` gave no "
		    "answer", q->machine, words[0]);
	ssh_result_free(&res);
out:
	json_decref(m);
	free(bytes);
	return a;
}

/*
 * q judged by the target's answer a: its refusal passed on, or q's
 * commands filled with the target's paths and SHA-256s. 0, or -1 with r
 * filled.
 */
int
remote_apply(const char *state, struct wrequest *q, const json_t *a, struct refusal *r)
{
	json_t *m, *rf;
	int rc = -1;

	if ((m = machine_get(state, q->machine, r)) == NULL)
		return -1;
	if (accounts_fit(m, q, r) != 0 || validate_remote_text(q, r) != 0 ||
	    contract_matches(m, json_object_get(a, "contract"), r) != 0)
		goto out;
	if ((rf = json_object_get(a, "refusal")) != NULL) {
		struct refusal t;

		if (refusal_from_json(&t, rf) != 0) {
			refuse(r, "machine_incompatible", "$.machine", "%s: a malformed refusal",
			    q->machine);
			goto out;
		}
		*r = t;
		if (t.code == t.code_buf)
			r->code = r->code_buf;
		snprintf(r->message, sizeof r->message, "on %.64s: %.400s", q->machine, t.message);
		goto out;
	}
	if (fill(q, a) != 0) {
		refuse(r, "machine_incompatible", "$.machine", "%s: the target's answer is "
		    "malformed", q->machine);
		goto out;
	}
	snprintf(q->target_host, sizeof q->target_host, "%s",
	    json_str(json_object_get(a, "contract"), "host"));
	snprintf(q->target_dest, sizeof q->target_dest, "%s", json_str(m, "destination"));
	snprintf(q->target_sudo, sizeof q->target_sudo, "%s", machine_sudo_user(m));
	risk_all(q);
	rc = 0;
out:
	json_decref(m);
	return rc;
}

/* remote_ask and remote_apply, in this process. */
int
remote_resolve(const char *state, struct wrequest *q, struct refusal *r)
{
	json_t *a = remote_ask(state, q, r);
	int rc;

	if (a == NULL)
		return -1;
	rc = remote_apply(state, q, a, r);
	json_decref(a);
	return rc;
}
