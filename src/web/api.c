/* SPDX-License-Identifier: ISC */
/*
 * The gate routes of the web page's JSON API (docs/protocol.md, "The web
 * page and its API"): list and show (every agent-supplied string
 * neutralised as on the terminal), deny with feedback, approve YOU-only
 * selections bound to (id, manifest_sha256, ids), optionally granting
 * them (answer --grant), the standing grants (list, revoke), and the
 * event stream.
 * An approval is a `warrant answer ID --run --you-only --expect HASH -c ...`
 * child in a session of its own, without a terminal: it refuses anything
 * that would need sudo, and so does this file before starting it.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "web.h"

#define FEEDBACK_MAX	4096
#define LIST_MAX	100
#define RESULT_MAX	(16 * 1024 * 1024)

extern char **environ;

/* Multi-line text (command output): each line neutralised, the newlines kept. */
char *
visible_lines(const char *s)
{
	char *buf = NULL, *line;
	const char *nl;
	size_t size = 0, n;
	FILE *f = open_memstream(&buf, &size);

	if (f == NULL)
		return NULL;
	for (;;) {
		nl = strchr(s, '\n');
		n = nl != NULL ? (size_t)(nl - s) : strlen(s);
		line = xmalloc(n + 1);
		memcpy(line, s, n);
		line[n] = '\0';
		text_print(f, line);
		free(line);
		if (nl == NULL)
			break;
		fputc('\n', f);
		s = nl + 1;
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

enum shown { SHOWN_TEXT, SHOWN_LINES, SHOWN_WORD };

/* How the value of a member is shown: output tails keep their line
 * breaks; argv words, paths, names and the environment's values are
 * words (text_word: every look-alike escaped); reasons, feedback and
 * messages are prose (text_visible). */
static enum shown
member_shown(const char *key)
{
	static const char *const words[] = { "argv", "path", "given_path", "cwd",
	    "source", "written", "env", "run_as", "host", "machine",
	    "machine_destination", "agent", "project", "requester", NULL };
	size_t i;

	if (strcmp(key, "output_tail") == 0)
		return SHOWN_LINES;
	for (i = 0; words[i] != NULL; i++)
		if (strcmp(key, words[i]) == 0)
			return SHOWN_WORD;
	return SHOWN_TEXT;
}

/*
 * A copy of j with every string (and every member name) neutralised as
 * on the terminal: control, bidi and invisible code points made visible,
 * and in argv words and paths look-alikes of option and path punctuation
 * too, a word with right-to-left letters isolated (the page isolates
 * each word as well).
 */
static json_t *
neutral(const json_t *j, enum shown how)
{
	const char *key;
	json_t *out, *v;
	size_t i;
	char *t;

	switch (json_typeof(j)) {
	case JSON_STRING:
		t = how == SHOWN_LINES ? visible_lines(json_string_value(j)) :
		    how == SHOWN_WORD ? text_word(json_string_value(j), 1) :
		    text_visible(json_string_value(j));
		out = t != NULL ? json_string(t) : NULL;
		free(t);
		return out != NULL ? out : json_string("");
	case JSON_ARRAY:
		out = json_array();
		json_array_foreach(j, i, v)
			json_array_append_new(out, neutral(v, how));
		return out;
	case JSON_OBJECT:
		out = json_object();
		json_object_foreach((json_t *)j, key, v) {
			t = text_visible(key);
			json_object_set_new(out, t, neutral(v, how == SHOWN_WORD ?
			    SHOWN_WORD : member_shown(key)));
			free(t);
		}
		return out;
	default:
		return json_deep_copy(j);
	}
}

/* Is an approval of gate id being executed now? */
static int
busy(struct web *w, const char *id)
{
	json_t *open = attempts_unsettled(&w->st), *a;
	size_t i;
	int b = 0;

	json_array_foreach(open, i, a)
		b |= strcmp(json_str(a, "gate_id"), id) == 0;
	json_decref(open);
	return b;
}

/* A line of an archive's summary (archive_lines) for the page, neutralised. */
static void
archive_line(void *arg, int alert, const char *line)
{
	char *v = text_visible(line);

	json_array_append_new(arg, json_pack("{s:b,s:s}", "alert", alert, "text",
	    v != NULL ? v : ""));
	free(v);
}

/*
 * The reviewed files' text for the page (w->lock held): "text", each line
 * neutralised, when a file is text and whole within SHOW_CONTENT_MAX,
 * else "not_shown" says why (binary, too_long, missing, changed). The
 * page approves nothing that uses a file it could not show. An archive
 * gets "archive_lines": its summary and members as the terminal says them.
 */
static void
add_file_texts(struct web *w, json_t *g)
{
	const char *name, *what;
	json_t *f, *a, *lines;
	char *text, *v;

	json_object_foreach(json_object_get(g, "files"), name, f) {
		if ((a = blob_archive(w->st.dir, f)) != NULL) {
			lines = json_array();
			archive_lines(a, 1, archive_line, lines);
			json_object_set_new(f, "archive_lines", lines);
			json_decref(a);
		}
		text = blob_text(w->st.dir, f, SHOW_CONTENT_MAX, &what);
		if (text != NULL && (json_int_t)strlen(text) <
		    json_integer_value(json_object_get(f, "size")))
			what = "too_long";
		else if (text != NULL && (v = visible_lines(text)) != NULL) {
			json_object_set_new(f, "text", json_string(v));
			free(v);
			free(text);
			continue;
		}
		free(text);
		json_object_set_new(f, "not_shown", json_string(what));
	}
}

/*
 * The first file command cmd names that the page cannot show (g with
 * add_file_texts' marks), or NULL when it shows them all.
 */
static const char *
file_not_shown(const json_t *g, const json_t *cmd)
{
	const json_t *files = json_object_get(g, "files"), *a;
	const char *name;
	size_t i;

	json_array_foreach(json_object_get(cmd, "argv"), i, a) {
		if ((name = json_string_value(json_object_get(a, "file"))) == NULL)
			continue;
		if (!json_is_string(json_object_get(json_object_get(files, name), "text")))
			return name;
	}
	return NULL;
}

/*
 * Which commands the page may offer to allow again (docs/grants.md):
 * "grantable" on each command of v, judged on the sealed commands of g
 * as `answer --grant` judges them, and for one that may not be, why
 * ("grant_refusal": answer --grant's code and sentence). The approval
 * judges them again.
 */
static void
mark_grantable(const json_t *g, json_t *v)
{
	struct refusal r;
	json_t *c, *why;
	size_t i;
	int ok;

	json_array_foreach(json_object_get(v, "commands"), i, c) {
		ok = grant_judge(g, i, &r) == 0;
		json_object_set_new(c, "grantable", json_boolean(ok));
		if (ok)
			continue;
		why = json_pack("{s:s,s:s}", "code", r.code, "message", r.message);
		json_object_set_new(c, "grant_refusal", neutral(why, SHOWN_TEXT));
		json_decref(why);
	}
}

/* A gate as the page shows it (w->lock held): neutralised, with what
 * the page may offer. */
static json_t *
gate_view(struct web *w, const char *id)
{
	json_t *g = store_gate(&w->st, id, 0), *v, *ledger, *full, *c, *live;
	int pending, root, any = 0;
	char cmd[256], note[1024];
	size_t i;

	if (g == NULL)
		return NULL;
	pending = strcmp(json_str(g, "state"), "pending") == 0;
	root = json_integer_value(json_object_get(g, "root_count")) > 0;
	/* an enrolled machine's batch runs under its sudo: a terminal's, always */
	if (*json_str(g, "machine") != '\0') {
		root = 1;
		if ((full = store_gate(&w->st, id, 1)) != NULL) {
			json_object_set_new(g, "machine_destination", json_string(json_str(
			    json_object_get(json_object_get(full, "manifest"), "machine"),
			    "destination")));
			/* whose password the target's sudo asks, as the card says */
			machine_account_note(full, note, sizeof note);
			if (*note != '\0')
				json_object_set_new(g, "machine_account", json_string(note));
		}
		json_decref(full);
	}
	if (strcmp(json_str(g, "state"), "approved") == 0 &&
	    (ledger = gate_ledger(&w->st, id)) != NULL)
		json_object_set_new(g, "ledger", ledger);
	v = neutral(g, SHOWN_TEXT);
	if (pending && !root)
		mark_grantable(g, v);
	json_decref(g);
	/* the files' text (neutralised line by line); the page offers a
	 * command only when it shows all of it */
	if (pending)
		add_file_texts(w, v);
	json_array_foreach(json_object_get(v, "commands"), i, c) {
		int ok = pending && !root && strcmp(json_str(c, "as"), "user") == 0 &&
		    file_not_shown(v, c) == NULL;

		json_object_set_new(c, "approvable", json_boolean(ok));
		any |= ok;
	}
	json_object_set_new(v, "busy", json_boolean(pending && busy(w, id)));
	/* a batch running: its command and latest output (redacted by
	 * approve_live), neutralised as the ledger's output is */
	if (pending && (live = approve_live(&w->st, id)) != NULL) {
		json_object_set_new(v, "live", json_pack("{s:o,s:o,s:O}",
		    "command", neutral(json_object_get(live, "command"), SHOWN_TEXT),
		    "output", neutral(json_object_get(live, "output"), SHOWN_LINES),
		    "output_bytes", json_object_get(live, "output_bytes")));
		json_decref(live);
	}
	json_object_set_new(v, "approvable", json_boolean(pending && !root && any));
	if (pending && root) {
		snprintf(cmd, sizeof cmd, "warrant answer %s --run --expect %s", id,
		    json_str(v, "manifest_sha256"));
		json_object_set_new(v, "terminal_command", json_string(cmd));
	} else
		json_object_set_new(v, "terminal_command", json_null());
	return v;
}

static enum MHD_Result
list_route(struct web *w, struct MHD_Connection *c, int all)
{
	json_t *list, *g, *out = json_array(), *v;
	size_t i;

	pthread_mutex_lock(&w->lock);
	(void)refresh_store(&w->st);
	list = store_list(&w->st, all, LIST_MAX, NULL, ANY_REQUESTER);
	json_array_foreach(list, i, g)
		if ((v = gate_view(w, json_str(g, "request_id"))) != NULL)
			json_array_append_new(out, v);
	pthread_mutex_unlock(&w->lock);
	if (list == NULL) {
		json_decref(out);
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "the daemon cannot read its store");
	}
	json_decref(list);
	return web_json(c, MHD_HTTP_OK, json_pack("{s:o}", "gates", out));
}

/* The gate of an id (w->lock held): 0, else -1 after a refusal was queued (*ret). */
int
web_resolve(struct web *w, struct MHD_Connection *c, const char *arg, char id[GATE_ID_LEN + 1],
    enum MHD_Result *ret)
{
	switch (store_resolve(&w->st, arg, ANY_REQUESTER, id)) {
	case 0:
		return 0;
	case 1:
		*ret = web_error(c, MHD_HTTP_NOT_FOUND, "unknown_gate", "no gate matches this id");
		return -1;
	case 2:
		*ret = web_error(c, MHD_HTTP_BAD_REQUEST, "ambiguous_id", "the id matches more "
		    "than one gate, or is shorter than 4 characters");
		return -1;
	default:
		*ret = web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "the daemon cannot read its store");
		return -1;
	}
}

static enum MHD_Result
show_route(struct web *w, struct MHD_Connection *c, const char *arg)
{
	char id[GATE_ID_LEN + 1];
	enum MHD_Result ret;
	json_t *v;

	pthread_mutex_lock(&w->lock);
	(void)refresh_store(&w->st);
	if (web_resolve(w, c, arg, id, &ret) != 0) {
		pthread_mutex_unlock(&w->lock);
		return ret;
	}
	v = gate_view(w, id);
	pthread_mutex_unlock(&w->lock);
	if (v == NULL)
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "the daemon cannot read the gate");
	return web_json(c, MHD_HTTP_OK, v);
}

/* The body as a JSON object with only the allowed members; NULL after a
 * refusal was queued (*ret). */
json_t *
web_body_object(struct MHD_Connection *c, const struct web_req *r, const char *const *allowed,
    enum MHD_Result *ret)
{
	json_t *b = json_loadb(r->body != NULL ? r->body : "", r->len, JSON_REJECT_DUPLICATES,
	    NULL), *v;
	const char *key, *const *a;

	if (!json_is_object(b)) {
		json_decref(b);
		*ret = web_error(c, MHD_HTTP_BAD_REQUEST, "invalid_json", "the body is one JSON "
		    "object");
		return NULL;
	}
	json_object_foreach(b, key, v) {
		for (a = allowed; *a != NULL && strcmp(*a, key) != 0; a++)
			;
		if (*a == NULL) {
			json_decref(b);
			*ret = web_error(c, MHD_HTTP_BAD_REQUEST, "invalid_field", "unknown member "
			    "in the body");
			return NULL;
		}
	}
	return b;
}

static enum MHD_Result
deny_route(struct web *w, struct MHD_Connection *c, struct web_req *r, const char *arg)
{
	static const char *const allowed[] = { "feedback", NULL };
	char id[GATE_ID_LEN + 1];
	enum MHD_Result ret;
	json_t *b, *f;
	int rc;

	if ((b = web_body_object(c, r, allowed, &ret)) == NULL)
		return ret;
	f = json_object_get(b, "feedback");
	if (f != NULL && !json_is_null(f) && (!json_is_string(f) ||
	    json_string_length(f) > FEEDBACK_MAX)) {
		json_decref(b);
		return web_error(c, MHD_HTTP_BAD_REQUEST, "invalid_field", "feedback is a "
		    "string of at most %d bytes", FEEDBACK_MAX);
	}
	pthread_mutex_lock(&w->lock);
	if (web_resolve(w, c, arg, id, &ret) != 0) {
		pthread_mutex_unlock(&w->lock);
		json_decref(b);
		return ret;
	}
	/* an attempt whose executor died is settled first; a live one is left */
	(void)approve_recover(&w->st);
	rc = gate_deny(&w->st, id, json_string_value(f));
	pthread_mutex_unlock(&w->lock);
	json_decref(b);
	if (rc == 0) {
		warnx("web: %s denied by device %s", id, r->device);
		return web_json(c, MHD_HTTP_OK, json_pack("{s:s,s:s}", "request_id", id,
		    "state", "denied"));
	}
	if (rc > 0)
		return web_error(c, MHD_HTTP_CONFLICT, "not_pending", "%s is settled or being "
		    "run; it was not denied", id);
	return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
	    "the daemon cannot deny the gate");
}

/* Stop a running batch (src/approve/askstop.c), as the reviewer this daemon
 * runs as: its command killed, the rest skipped. */
static enum MHD_Result
stop_route(struct web *w, struct MHD_Connection *c, struct web_req *r, const char *arg)
{
	static const char *const allowed[] = { NULL };
	char id[GATE_ID_LEN + 1];
	struct refusal why;
	enum MHD_Result ret;
	json_t *b;
	int rc;

	if ((b = web_body_object(c, r, allowed, &ret)) == NULL)
		return ret;
	json_decref(b);
	memset(&why, 0, sizeof why);
	pthread_mutex_lock(&w->lock);
	if (web_resolve(w, c, arg, id, &ret) != 0) {
		pthread_mutex_unlock(&w->lock);
		return ret;
	}
	rc = approve_stop(&w->st, id, &why);
	pthread_mutex_unlock(&w->lock);
	if (rc == EXIT_OK) {
		warnx("web: %s stopped by device %s", id, r->device);
		return web_json(c, MHD_HTTP_OK, json_pack("{s:s,s:s}", "request_id", id,
		    "status", "stopping"));
	}
	if (rc == EXIT_REFUSED)
		return web_error(c, MHD_HTTP_CONFLICT, why.code, "%s", why.message);
	return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
	    "the daemon cannot ask the batch to stop");
}

/* Remember a running approval's pid for api_reap (w->lock held). */
void
child_keep(struct web *w, pid_t pid)
{
	size_t i;

	for (i = 0; i < WEB_CHILDREN_MAX; i++)
		if (w->children[i] == 0) {
			w->children[i] = pid;
			return;
		}
	warnx("web: too many approvals running; pid %d stays a zombie", (int)pid);
}

/* Collect approvals that ended after their request was answered. */
void
api_reap(struct web *w)
{
	size_t i;

	pthread_mutex_lock(&w->lock);
	passkey_expire(w, 0);
	for (i = 0; i < WEB_CHILDREN_MAX; i++)
		if (w->children[i] > 0 && waitpid(w->children[i], NULL, WNOHANG) != 0)
			w->children[i] = 0;
	pthread_mutex_unlock(&w->lock);
}

/*
 * The checks of an approval before anything starts (w->lock held): the
 * gate pending, its seal the one the page showed, every selected id one
 * of its commands and (unless a passkey approves, root_ok) a YOU command,
 * no approval running. 0, or -1 after a refusal was queued.
 */
int
approval_check(struct web *w, struct MHD_Connection *c, const char *id, const char *sha,
    json_t *ids, int root_ok, enum MHD_Result *ret)
{
	json_t *g = store_gate(&w->st, id, 0), *cmds, *cmd = NULL, *sel;
	const char *file;
	size_t i, k;
	int rc = -1;

	if (g != NULL)
		add_file_texts(w, g);
	if (g == NULL) {
		*ret = web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "the daemon cannot read the gate");
		return -1;
	}
	cmds = json_object_get(g, "commands");
	if (strcmp(json_str(g, "state"), "pending") != 0)
		*ret = web_error(c, MHD_HTTP_CONFLICT, "not_pending", "%s is %s, not pending; "
		    "nothing ran", id, json_str(g, "state"));
	else if (!digest_equal(sha, json_str(g, "manifest_sha256")))
		*ret = web_error(c, MHD_HTTP_CONFLICT, "gate_changed", "the gate's sealed "
		    "manifest is not the one shown (%.16s…); reload it; nothing ran",
		    json_str(g, "manifest_sha256"));
	else if (busy(w, id))
		*ret = web_error(c, MHD_HTTP_CONFLICT, "execution_in_progress", "this request is "
		    "already being executed");
	else {
		rc = 0;
		json_array_foreach(ids, k, sel) {
			json_array_foreach(cmds, i, cmd)
				if (strcmp(json_str(cmd, "id"), json_string_value(sel)) == 0)
					break;
			if (i == json_array_size(cmds)) {
				*ret = web_error(c, MHD_HTTP_UNPROCESSABLE_CONTENT, "unknown_command",
				    "no command '%.64s' in this request; nothing ran",
				    json_string_value(sel));
				rc = -1;
				break;
			}
			if (!root_ok && strcmp(json_str(cmd, "as"), "user") != 0) {
				*ret = web_error(c, MHD_HTTP_FORBIDDEN, "root_needs_terminal",
				    "command %.64s runs as root: approve it with your passkey, or on "
				    "a terminal, `warrant answer %s --run --expect %s`; nothing ran",
				    json_string_value(sel), id,
				    json_str(g, "manifest_sha256"));
				rc = -1;
				break;
			}
			if ((file = file_not_shown(g, cmd)) != NULL) {
				char *vis = text_visible(file);

				*ret = web_error(c, MHD_HTTP_FORBIDDEN, "file_not_shown", "command "
				    "%.64s uses the file %.64s, which the page cannot show (%s): "
				    "read and approve it on a terminal, `warrant show %s` then "
				    "`warrant answer %s --run --expect %s`; nothing ran",
				    json_string_value(sel), vis, json_str(json_object_get(
				    json_object_get(g, "files"), file), "not_shown"), id, id,
				    json_str(g, "manifest_sha256"));
				free(vis);
				rc = -1;
				break;
			}
		}
	}
	json_decref(g);
	return rc;
}

/* Start `warrant answer ... --you-only [--grant DURATION]` for the
 * selection, or with relay >= 0 `... --passkey-relay` with relay (a
 * socket) as its stdin; its result JSON on *out; its pid, or -1. */
pid_t
approval_start(struct web *w, const char *id, const char *sha, json_t *ids, const char *grant,
    int relay, int *out)
{
	size_t n = json_array_size(ids), i, k = 0, e = 0;
	char **argv = xcalloc(12 + 2 * n, sizeof *argv), **envp, home[PATH_MAX + 16];
	int p[2];
	pid_t pid;
	json_t *v;

	for (i = 0; environ[i] != NULL; i++)
		;
	envp = xcalloc(i + 2, sizeof *envp);
	for (i = 0; environ[i] != NULL; i++)
		if (strncmp(environ[i], "WARRANT_HOME=", 13) != 0)
			envp[e++] = environ[i];
	snprintf(home, sizeof home, "WARRANT_HOME=%s", w->st.dir);
	envp[e++] = home;
	argv[k++] = "warrant";
	argv[k++] = "answer";
	argv[k++] = (char *)id;
	argv[k++] = "--run";
	argv[k++] = relay >= 0 ? "--passkey-relay" : "--you-only";
	argv[k++] = "--no-detach";
	argv[k++] = "--json";
	argv[k++] = "--expect";
	argv[k++] = (char *)sha;
	json_array_foreach(ids, i, v) {
		argv[k++] = "-c";
		argv[k++] = (char *)json_string_value(v);
	}
	if (grant != NULL) {
		argv[k++] = "--grant";
		argv[k++] = (char *)grant;
	}
	if (pipe2(p, O_CLOEXEC) != 0) {
		free(argv);
		free(envp);
		return -1;
	}
	{
		/* a session of its own: no controlling terminal, so nothing it
		 * starts could prompt anyone, even if it tried */
		const struct spawn s = { .path = "/proc/self/exe", .argv = argv, .envp = envp,
		    .fd = { relay, p[1], 2 }, .group = EXEC_SESSION };

		pid = spawn(&s);
	}
	close(p[1]);
	free(argv);
	free(envp);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	*out = p[0];
	return pid;
}

/* Read fd until EOF, the deadline or RESULT_MAX; 1 at EOF. */
static int
read_result(struct web *w, int fd, int64_t deadline, char **out, size_t *len)
{
	size_t cap = 0;
	ssize_t n;

	*out = NULL;
	*len = 0;
	while (!w->stopping && monotonic_ms() < deadline) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		if (*len + 4096 + 1 > cap) {
			char *bigger;

			if (cap >= RESULT_MAX || (bigger = realloc(*out, cap ? cap * 2 : 65536)) == NULL)
				return 0;
			*out = bigger;
			cap = cap ? cap * 2 : 65536;
		}
		n = read(fd, *out + *len, cap - *len - 1);
		if (n > 0)
			*len += (size_t)n;
		else if (n == 0)
			return 1;
		else if (errno != EINTR && errno != EAGAIN)
			return 0;
	}
	return 0;
}

/*
 * The approval's "grant" member: absent or null for none, else a duration
 * as `answer --grant` takes it (10m, 1h, at most 24h), copied to grant
 * ("" for none). 0, or -1 after a refusal was queued (*ret): the codes of
 * answer --grant.
 */
static int
grant_arg(struct MHD_Connection *c, const json_t *v, char grant[16], enum MHD_Result *ret)
{
	long long seconds;

	*grant = '\0';
	if (v == NULL || json_is_null(v))
		return 0;
	seconds = json_is_string(v) && json_string_length(v) < 16 ?
	    grant_duration_parse(json_string_value(v)) : 0;
	if (seconds == 0)
		*ret = web_error(c, MHD_HTTP_BAD_REQUEST, "grant_duration", "grant is a duration "
		    "such as 10m or 1h; nothing ran");
	else if (seconds < 0)
		*ret = web_error(c, MHD_HTTP_BAD_REQUEST, "grant_too_long", "a grant lasts at "
		    "most 24h; nothing ran");
	else
		snprintf(grant, 16, "%s", json_string_value(v));
	return seconds > 0 ? 0 : -1;
}

/*
 * A grant is never of a gate with a ROOT command or of an enrolled
 * machine's (w->lock held): each ROOT run authenticates with sudo by
 * design (docs/grants.md). 0, or -1 after a refusal was queued (*ret).
 */
static int
grant_root_check(struct web *w, struct MHD_Connection *c, const char *id, enum MHD_Result *ret)
{
	json_t *g = store_gate(&w->st, id, 0);
	int root;

	if (g == NULL) {
		*ret = web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "the daemon cannot read the gate");
		return -1;
	}
	root = json_integer_value(json_object_get(g, "root_count")) > 0 ||
	    *json_str(g, "machine") != '\0';
	json_decref(g);
	if (root)
		*ret = web_error(c, MHD_HTTP_FORBIDDEN, "grant_root", "%s runs commands as root "
		    "or on a machine: each such run authenticates with sudo, so nothing of it "
		    "is allowed again; nothing ran", id);
	return root ? -1 : 0;
}

/*
 * An approval's body: {"manifest_sha256", "commands"} (and what else
 * allowed names), the ids checked as command ids, the hash copied to
 * sha. The body, or NULL after a refusal was queued (*ret).
 */
json_t *
approval_body(struct MHD_Connection *c, const struct web_req *r, const char *const *allowed,
    char sha[SHA256_HEX_LEN + 1], enum MHD_Result *ret)
{
	json_t *b, *ids, *v;
	size_t i;

	if ((b = web_body_object(c, r, allowed, ret)) == NULL)
		return NULL;
	ids = json_object_get(b, "commands");
	v = json_object_get(b, "manifest_sha256");
	if (!json_is_string(v) || json_string_length(v) != SHA256_HEX_LEN ||
	    !json_is_array(ids) || json_array_size(ids) == 0 || json_array_size(ids) > 128) {
		json_decref(b);
		*ret = web_error(c, MHD_HTTP_BAD_REQUEST, "invalid_field", "the body is "
		    "{\"manifest_sha256\": the full hash shown, \"commands\": [1 to 128 ids]}");
		return NULL;
	}
	json_array_foreach(ids, i, v)
		if (!json_is_string(v) || !id_name_ok(json_string_value(v))) {
			json_decref(b);
			*ret = web_error(c, MHD_HTTP_BAD_REQUEST, "invalid_field", "commands are "
			    "command ids");
			return NULL;
		}
	snprintf(sha, SHA256_HEX_LEN + 1, "%s", json_str(b, "manifest_sha256"));
	return b;
}

/*
 * The answer to an approval whose `warrant answer` child is pid, its
 * result on fd (closed here): the result when it comes within
 * WEB_APPROVE_WAIT_S, else 202 "running" (the child kept for api_reap).
 */
enum MHD_Result
approval_answer(struct web *w, struct MHD_Connection *c, const char *id, pid_t pid, int fd)
{
	char *out;
	size_t len;
	int status = 0, eof;
	json_t *result, *v;

	/* its answer, for a while; after that the page follows the gate */
	eof = read_result(w, fd, monotonic_ms() + WEB_APPROVE_WAIT_S * 1000, &out, &len);
	close(fd);
	if (!eof || waitpid(pid, &status, 0) != pid) {
		pthread_mutex_lock(&w->lock);
		child_keep(w, pid);
		pthread_mutex_unlock(&w->lock);
		free(out);
		return web_json(c, MHD_HTTP_ACCEPTED, json_pack("{s:s,s:s}", "request_id", id,
		    "status", "running"));
	}
	result = out != NULL ? json_loadb(out, len, 0, NULL) : NULL;
	free(out);
	if (result == NULL)
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "the approval "
		    "said nothing (exit status %d); see the daemon's log", WEXITSTATUS(status));
	if (strcmp(json_str(result, "status"), "approved") == 0) {
		v = neutral(result, SHOWN_TEXT);
		json_decref(result);
		return web_json(c, MHD_HTTP_OK, v);
	}
	v = json_pack("{s:{s:s,s:s}}", "error", "code", *json_str(result, "outcome") ?
	    json_str(result, "outcome") : "not_approved", "message", json_str(result, "message"));
	json_decref(result);
	return web_json(c, MHD_HTTP_CONFLICT, v);
}

static enum MHD_Result
approve_route(struct web *w, struct MHD_Connection *c, struct web_req *r, const char *arg)
{
	static const char *const allowed[] = { "manifest_sha256", "commands", "grant", NULL };
	char id[GATE_ID_LEN + 1], sha[SHA256_HEX_LEN + 1], grant[16];
	enum MHD_Result ret;
	json_t *b, *ids;
	int fd = -1;
	pid_t pid;

	if ((b = approval_body(c, r, allowed, sha, &ret)) == NULL)
		return ret;
	ids = json_object_get(b, "commands");
	if (grant_arg(c, json_object_get(b, "grant"), grant, &ret) != 0) {
		json_decref(b);
		return ret;
	}
	pthread_mutex_lock(&w->lock);
	(void)refresh_store(&w->st);
	if (web_resolve(w, c, arg, id, &ret) != 0 || (*grant != '\0' && grant_root_check(w, c,
	    id, &ret) != 0) || approval_check(w, c, id, sha, ids, 0, &ret) != 0) {
		pthread_mutex_unlock(&w->lock);
		json_decref(b);
		return ret;
	}
	pid = approval_start(w, id, sha, ids, *grant != '\0' ? grant : NULL, -1, &fd);
	pthread_mutex_unlock(&w->lock);
	json_decref(b);
	if (pid < 0)
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "cannot start "
		    "the approval; nothing ran");
	warnx("web: %s: YOU commands approved by device %s (pid %d)", id, r->device, (int)pid);
	return approval_answer(w, c, id, pid, fd);
}

/* The live grants, newest first, each with its requester's name
 * ("requester"), every string neutralised. */
static enum MHD_Result
grants_list_route(struct web *w, struct MHD_Connection *c)
{
	char who[320];
	json_t *l, *g;
	size_t i;

	pthread_mutex_lock(&w->lock);
	(void)refresh_store(&w->st);
	l = grants_live(&w->st);
	pthread_mutex_unlock(&w->lock);
	if (l == NULL)
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "the daemon cannot read its grants");
	json_array_foreach(l, i, g)
		json_object_set_new(g, "requester", json_string(user_label((uid_t)
		    json_integer_value(json_object_get(g, "requester_uid")), who, sizeof who)));
	return web_json(c, MHD_HTTP_OK, json_pack("{s:o}", "grants", neutral(l, SHOWN_TEXT)));
}

/* Revoke one live grant, as `warrant grants --revoke ID` does. */
static enum MHD_Result
grant_revoke_route(struct web *w, struct MHD_Connection *c, struct web_req *r, const char *id)
{
	static const char *const allowed[] = { NULL };
	enum MHD_Result ret;
	json_t *b;
	long n = 0;

	if ((b = web_body_object(c, r, allowed, &ret)) == NULL)
		return ret;
	json_decref(b);
	if (grant_id_valid(id)) {
		pthread_mutex_lock(&w->lock);
		(void)refresh_store(&w->st);
		n = grants_revoke(&w->st, id);
		pthread_mutex_unlock(&w->lock);
	}
	if (n < 0)
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "the daemon cannot revoke the grant");
	if (n == 0)
		return web_error(c, MHD_HTTP_NOT_FOUND, "no_such_grant", "no live grant has this "
		    "id (revoked, expired, or never made)");
	warnx("web: grant %s revoked by device %s", id, r->device);
	return web_json(c, MHD_HTTP_OK, json_pack("{s:s,s:I}", "grant", id, "revoked", (json_int_t)n));
}

/* GET /api/grants, POST /api/grants/ID/revoke. */
static enum MHD_Result
grants_route(struct web *w, struct MHD_Connection *c, struct web_req *r, int get,
    const char *url)
{
	char id[GRANT_ID_LEN + 1];
	const char *rest = url + 11, *slash;

	if (get && *rest == '\0')
		return grants_list_route(w, c);
	if (!get && *rest++ == '/' && (slash = strchr(rest, '/')) != NULL &&
	    strcmp(slash, "/revoke") == 0 && (size_t)(slash - rest) < sizeof id) {
		memcpy(id, rest, (size_t)(slash - rest));
		id[slash - rest] = '\0';
		return grant_revoke_route(w, c, r, id);
	}
	return web_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no such route");
}

/*
 * The event stream: "event: gates" with the count of pending gates
 * whenever the list of gates or of live grants changes (then the page
 * reads /api/gates and /api/grants), a comment line when idle. A thread
 * per connection: the callback may wait.
 */
struct sse {
	struct web	*w;
	char		 sid[SHA256_HEX_LEN + 1];	/* the session it was opened for */
	char		 seen[SHA256_HEX_LEN + 1];
	int64_t		 beat;
};

/* Is the stream's session still paired? `warrant pair --revoke` (another
 * process) ends it in the store: the stream ends at its next look. */
static int
sse_paired(struct sse *e)
{
	char device[32];
	int rc;

	pthread_mutex_lock(&e->w->lock);
	rc = device_lookup(&e->w->st, e->sid, device, sizeof device);
	pthread_mutex_unlock(&e->w->lock);
	return rc == 0;
}

/* A fingerprint of every gate's id and state and of the live grants (one
 * made, revoked or expired anywhere changes the page's list), and the
 * pending count. */
static long
fingerprint(struct web *w, char out[SHA256_HEX_LEN + 1])
{
	json_t *list, *grants, *g, *key = json_array();
	long pending = 0;
	size_t i;
	char *s;

	pthread_mutex_lock(&w->lock);
	(void)refresh_store(&w->st);
	list = store_list(&w->st, 1, LIST_MAX, NULL, ANY_REQUESTER);
	json_array_foreach(list, i, g) {
		json_array_append_new(key, json_pack("[s,s,b]", json_str(g, "request_id"),
		    json_str(g, "state"), busy(w, json_str(g, "request_id"))));
		pending += strcmp(json_str(g, "state"), "pending") == 0;
	}
	grants = grants_live(&w->st);
	json_array_foreach(grants, i, g)
		json_array_append_new(key, json_pack("[s]", json_str(g, "id")));
	pthread_mutex_unlock(&w->lock);
	json_decref(grants);
	json_decref(list);
	s = json_dumps(key, JSON_COMPACT);
	json_decref(key);
	sha256_bytes(s != NULL ? s : "", s != NULL ? strlen(s) : 0, out);
	free(s);
	return pending;
}

static ssize_t
sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse *e = cls;
	char fp[SHA256_HEX_LEN + 1];
	long pending;
	int n;

	(void)pos;
	for (;;) {
		if (e->w->stopping || !sse_paired(e))
			return MHD_CONTENT_READER_END_OF_STREAM;
		pending = fingerprint(e->w, fp);
		if (strcmp(fp, e->seen) != 0) {
			memcpy(e->seen, fp, sizeof e->seen);
			e->beat = monotonic_ms() + WEB_SSE_BEAT_MS;
			n = snprintf(buf, max, "event: gates\ndata: {\"pending\":%ld}\n\n", pending);
			return n > 0 && (size_t)n < max ? n : MHD_CONTENT_READER_END_WITH_ERROR;
		}
		if (monotonic_ms() >= e->beat) {
			e->beat = monotonic_ms() + WEB_SSE_BEAT_MS;
			n = snprintf(buf, max, ": beat\n\n");
			return n > 0 && (size_t)n < max ? n : MHD_CONTENT_READER_END_WITH_ERROR;
		}
		usleep(WEB_SSE_TICK_MS * 1000);
	}
}

static enum MHD_Result
events_route(struct web *w, struct MHD_Connection *c, const struct web_req *r)
{
	struct sse *e = xcalloc(1, sizeof *e);
	struct MHD_Response *resp;
	enum MHD_Result rc;

	e->w = w;
	memcpy(e->sid, r->sid, sizeof e->sid);
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, sse_read, e, free);
	if (resp == NULL) {
		free(e);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", "text/event-stream");
	MHD_add_response_header(resp, "Content-Security-Policy", "default-src 'none'; "
	    "frame-ancestors 'none'");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	rc = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* The routes under /api/ that need a session (checked by http.c). */
enum MHD_Result
api_route(struct web *w, struct MHD_Connection *c, struct web_req *r, const char *method,
    const char *url)
{
	const char *rest, *slash, *all;
	char arg[64];
	size_t n;
	int get = strcmp(method, "GET") == 0;

	if (get && strcmp(url, "/api/events") == 0)
		return events_route(w, c, r);
	if (get && strcmp(url, "/api/gates") == 0) {
		all = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "all");
		return list_route(w, c, all != NULL && strcmp(all, "1") == 0);
	}
	if (strncmp(url, "/api/grants", 11) == 0)
		return grants_route(w, c, r, get, url);
	if (strncmp(url, "/api/passkey", 12) == 0)
		return passkey_route(w, c, r, get, url + 12);
	if (strncmp(url, "/api/gates/", 11) != 0)
		return web_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no such route");
	rest = url + 11;
	slash = strchr(rest, '/');
	n = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
	if (n == 0 || n >= sizeof arg)
		return web_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no such route");
	memcpy(arg, rest, n);
	arg[n] = '\0';
	if (get && slash == NULL)
		return show_route(w, c, arg);
	if (!get && slash != NULL && strcmp(slash, "/deny") == 0)
		return deny_route(w, c, r, arg);
	if (!get && slash != NULL && strcmp(slash, "/approve") == 0)
		return approve_route(w, c, r, arg);
	if (!get && slash != NULL && strcmp(slash, "/stop") == 0)
		return stop_route(w, c, r, arg);
	if (!get && slash != NULL && strncmp(slash, "/passkey", 8) == 0)
		return passkey_gate_route(w, c, r, arg, slash + 8);
	return web_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no such route");
}
