/* SPDX-License-Identifier: ISC */
/*
 * A request for an enrolled machine, judged where it will run: this host
 * first judges it by every rule that does not depend on the target's
 * files (validate_remote_text), then sends it (without "machine") on the
 * standard input of `env -i … WARRANT exec --resolve` on the target
 * (ssh, batch, no terminal: the agent's words never reach a shell's
 * command line). The target's warrant runs the whole intake for its ssh
 * user and answers with its paths and SHA-256s, or with its refusal,
 * passed on with the same code. The daemon asks from a child process
 * (remote_ask) and applies the answer in its own (remote_apply), so that
 * a slow target holds up no other requester.
 *
 * The answer is untrusted input: sshd starts the ssh account's shell with
 * -c (Debian's bash reads ~/.bashrc then), so whatever that account runs
 * can answer in warrant's place. It is held to its exact schema, and
 * each executable to what its argv[0] can name on any machine by this
 * host's rules:
 *   - the given name is argv[0], exactly;
 *   - argv[0] (an absolute path or a bare name) resolves to itself or,
 *     through a trusted-path directory or symbolic links on the way
 *     (/bin -> usr/bin), to a path of the same name;
 *   - a program sealed at run time is an absolute argv[0] that an earlier
 *     ROOT command installs, kept as given;
 *   - ROOT commands run in the request's cwd, as it was given.
 * Anything else is remote_resolve_mismatch: a link to a program of
 * another name (awk -> mawk) cannot be told from a substitution (cat ->
 * rm), and is asked for by the name it resolves to. This host's
 * denylists are applied to the names the target gives and to the size
 * and SHA-256 it reports, as to a local executable's. The target's runner
 * hashes every executable again, through the descriptor it runs.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "remote/remote.h"

#define MISMATCH(r, sub, ...)	refuse(r, "remote_resolve_mismatch", sub, __VA_ARGS__)

static const char *const answer_keys[] = { "contract", "cwd", "commands", NULL };
static const char *const refusal_keys[] = { "contract", "refusal", NULL };
static const char *const command_keys[] = { "id", "path", "given", "executable_sha256",
	"sealed_at_run", "cwd", "size", NULL };

/* o is an object with exactly the keys of keys. */
static int
exact_keys(const json_t *o, const char *const *keys)
{
	const char *k;
	json_t *v;
	size_t n = 0, i;

	if (!json_is_object(o))
		return 0;
	for (i = 0; keys[i] != NULL; i++)
		if (json_object_get(o, keys[i]) == NULL)
			return 0;
	json_object_foreach((json_t *)o, k, v)
		n++;
	return n == i;
}

/* o's string at key: no NUL inside, no control character, shorter than
 * max bytes; or NULL. */
static const char *
bounded_str(const json_t *o, const char *key, size_t max)
{
	const json_t *v = json_object_get(o, key);
	const char *s = json_string_value(v), *p;

	if (s == NULL || json_string_length(v) != strlen(s) || strlen(s) >= max)
		return NULL;
	for (p = s; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return NULL;
	return s;
}

/* An absolute path without "." or ".." components, "//" or a trailing
 * '/': the form a resolved path has. */
static int
path_clean(const char *p)
{
	const char *s;
	size_t n;

	if (p[0] != '/')
		return 0;
	if (p[1] == '\0')
		return 1;
	for (s = p; *s == '/'; s += n) {
		s++;
		n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
	}
	return *s == '\0';
}

static int
hex64(const char *s)
{
	size_t i;

	for (i = 0; i < SHA256_HEX_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[i] == '\0';
}

/* What argv[0], an absolute path or a bare name, may resolve to on any
 * machine: itself, a DIR/name of the trusted path, or through symbolic
 * links a path of the same name. */
static int
resolves_as(const char *argv0, const char *path)
{
	if (argv0[0] != '/' && strchr(argv0, '/') != NULL)
		return 0;
	return strcmp(path, argv0) == 0 || strcmp(base_name(path), base_name(argv0)) == 0;
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

/* A directory as the request gave it, in the form the target resolves it
 * to when no link is on the way ("/srv//app/" is "/srv/app"); -1 when it
 * has "." or ".." components, which only the target can resolve. */
static int
cwd_given(const char *given, char out[PATH_MAX])
{
	size_t k = 0, n;

	out[0] = '\0';
	for (; *given != '\0'; given += n) {
		while (*given == '/')
			given++;
		n = strcspn(given, "/");
		if (n == 0)
			break;
		if ((n == 1 && given[0] == '.') || (n == 2 && given[0] == '.' && given[1] == '.') ||
		    k + 1 + n >= PATH_MAX)
			return -1;
		out[k++] = '/';
		memcpy(out + k, given, n);
		k += n;
		out[k] = '\0';
	}
	if (k == 0)
		strcpy(out, "/");
	return 0;
}

/* One command of the answer c for q's command idx; 0, or -1 with r filled. */
static int
read_command(struct wrequest *q, size_t idx, const json_t *c, const char *root_cwd,
    struct denylist *d, const char *machine, struct refusal *r)
{
	struct wcommand *w = &q->cmds[idx];
	const json_t *asked = json_array_get(json_object_get(q->json, "commands"), idx);
	const json_t *sealed = json_object_get(c, "sealed_at_run"), *size = json_object_get(c, "size");
	const char *path, *given, *sha, *cwd, *id;
	char sub[96], want[PATH_MAX];
	struct stat st;
	enum deny_kind k;
	json_int_t bytes;

	snprintf(sub, sizeof sub, "$.commands[%zu]", idx);
	if (!exact_keys(c, command_keys) || (id = bounded_str(c, "id", 128)) == NULL ||
	    (path = bounded_str(c, "path", PATH_MAX)) == NULL ||
	    (given = bounded_str(c, "given", PATH_MAX)) == NULL ||
	    (sha = bounded_str(c, "executable_sha256", SHA256_HEX_LEN + 1)) == NULL ||
	    (cwd = bounded_str(c, "cwd", PATH_MAX)) == NULL || !json_is_boolean(sealed) ||
	    !json_is_integer(size) || (bytes = json_integer_value(size)) < 0 ||
	    bytes > EXE_SIZE_MAX || strcmp(id, w->id) != 0 || !path_clean(path) ||
	    !path_clean(cwd) || (json_is_true(sealed) ? *sha != '\0' || bytes != 0 :
	    !hex64(sha)))
		return refuse(r, "machine_incompatible", sub, "%s: the target's answer for "
		    "command %s is malformed", machine, w->id);
	if (strcmp(given, w->argv[0]) != 0)
		return MISMATCH(r, sub, "%s: the target answered for another program than "
		    "argv[0] names; nothing is shown or run", machine);
	if (json_is_true(sealed)) {
		/* not there yet: an earlier ROOT command installs it, as asked */
		if (w->argv[0][0] != '/' || strcmp(path, w->argv[0]) != 0 || w->command != NULL ||
		    !path_clean(w->argv[0]) || !earlier_root(q, idx))
			return MISMATCH(r, sub, "%s: the target calls '%s' a program that an "
			    "earlier command installs, which this request does not say", machine,
			    w->argv[0]);
	} else if (!resolves_as(w->argv[0], path)) {
		char *v = text_visible(path);

		MISMATCH(r, sub, "%s: '%s' resolved to %s, a program of another name; the "
		    "target's answer cannot be checked, so a link to another name is not "
		    "followed: ask for it by the name it resolves to", machine, w->argv[0], v);
		free(v);
		return -1;
	}
	/* ROOT commands run in the request's cwd, a YOU command in its own
	 * (without one: the ssh account's home, the target's to say) */
	if (!w->as_user)
		snprintf(want, sizeof want, "%s", root_cwd);
	if ((!w->as_user && strcmp(cwd, want) != 0) ||
	    (w->as_user && json_object_get(asked, "cwd") != NULL &&
	    (cwd_given(json_str(asked, "cwd"), want) != 0 || strcmp(cwd, want) != 0)))
		return MISMATCH(r, sub, "%s: command %s would run in another directory than the "
		    "request names; give the cwd as the target resolves it (no link, '.' or '..' "
		    "on the way)", machine, w->id);
	/* this host's denylists: by the names given and resolved, and by
	 * content (the size and SHA-256 the target reports) */
	memset(&st, 0, sizeof st);
	st.st_dev = (dev_t)-1;	/* the same inode as nothing here */
	st.st_ino = (ino_t)-1;
	st.st_size = (off_t)bytes;
	k = json_is_true(sealed) ? deny_by_name(d, path) : deny_file(d, given, path, &st, sha);
	if (k == DENY_NESTED || (k != DENY_NONE && !w->as_user))
		return refuse(r, deny_code(k), sub, "%s: '%s' (%s) is a %s and cannot be "
		    "requested", machine, w->argv[0], path, k == DENY_NESTED ? "privilege tool" :
		    "shell or interactive program");
	memset(&w->exe, 0, sizeof w->exe);
	strcpy(w->exe.given, given);
	strcpy(w->exe.path, path);
	strcpy(w->exe.sha256, sha);
	w->exe.st.st_size = (off_t)bytes;
	w->sealed_at_run = json_is_true(sealed);
	strcpy(w->cwd, cwd);
	return 0;
}

/*
 * The target's answer a for q from machine: its refusal (returned as 1,
 * in r, its sentence after "on MACHINE:"), or q's commands and cwd filled
 * with the target's paths and SHA-256s (0). -1 with r filled when the
 * answer is malformed (machine_incompatible), does not match what the
 * request names (remote_resolve_mismatch) or names a denylisted program.
 */
int
resolve_answer_read(struct wrequest *q, const json_t *a, const char *machine,
    struct refusal *r)
{
	char root_cwd[PATH_MAX];
	const char *cwd;
	struct denylist *d;
	struct refusal t;
	size_t i;
	int rc = 0;

	if (exact_keys(a, refusal_keys)) {
		if (refusal_from_json(&t, json_object_get(a, "refusal")) != 0)
			return refuse(r, "machine_incompatible", "$.machine", "%s: a malformed "
			    "refusal", machine);
		*r = t;
		if (t.code == t.code_buf)
			r->code = r->code_buf;
		snprintf(r->message, sizeof r->message, "on %.64s: %.400s", machine, t.message);
		return 1;
	}
	if (!exact_keys(a, answer_keys) || (cwd = bounded_str(a, "cwd", PATH_MAX)) == NULL ||
	    !path_clean(cwd) || !json_is_array(json_object_get(a, "commands")) ||
	    json_array_size(json_object_get(a, "commands")) != q->ncmds)
		return refuse(r, "machine_incompatible", "$.machine", "%s: the target's answer "
		    "is malformed", machine);
	if (cwd_given(json_object_get(q->json, "cwd") != NULL ? json_str(q->json, "cwd") : "/",
	    root_cwd) != 0 || strcmp(cwd, root_cwd) != 0)
		return MISMATCH(r, "$.cwd", "%s: the target would run in another directory than "
		    "the request names; give the cwd as the target resolves it (no link, '.' or "
		    "'..' on the way)", machine);
	d = denylist_load();
	for (i = 0; i < q->ncmds && rc == 0; i++)
		rc = read_command(q, i, json_array_get(json_object_get(a, "commands"), i),
		    root_cwd, d, machine, r);
	denylist_free(d);
	if (rc == 0)
		strcpy(q->cwd, root_cwd);
	return rc;
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
	const char *code, *words[8];

	/* unknown_machine comes first, as locally (docs/decisions.md) */
	if ((m = machine_get(state, q->machine, r)) == NULL)
		return NULL;
	if (accounts_fit(m, q, r) != 0 || validate_remote_text(q, r) != 0) {
		json_decref(m);
		return NULL;
	}
	/* the enrolled warrant, run directly with nothing of the account's
	 * environment (what its shell's start-up files exported) */
	words[0] = ENV_PATH;
	words[1] = "-i";
	words[2] = "PATH=/usr/bin:/bin";
	words[3] = "LC_ALL=C";
	words[4] = json_str(m, "warrant");
	words[5] = "exec";
	words[6] = "--resolve";
	words[7] = NULL;
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
		    "answer", q->machine, words[4]);
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
	const json_t *contract = json_object_get(a, "contract");
	const char *host;
	json_t *m;
	int rc = -1;

	if ((m = machine_get(state, q->machine, r)) == NULL)
		return -1;
	if (accounts_fit(m, q, r) != 0 || validate_remote_text(q, r) != 0 ||
	    contract_matches(m, contract, r) != 0)
		goto out;
	if ((host = bounded_str(contract, "host", sizeof q->target_host)) == NULL) {
		refuse(r, "machine_incompatible", "$.machine", "%s: the target's contract is "
		    "malformed", q->machine);
		goto out;
	}
	if (resolve_answer_read(q, a, q->machine, r) != 0)
		goto out;
	snprintf(q->target_host, sizeof q->target_host, "%s", host);
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
