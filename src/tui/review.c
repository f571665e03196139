/* SPDX-License-Identifier: ISC */
/*
 * The review of one gate: a top bar counting the ticked commands as root
 * and as you with a "Root access" pill, the context, and a checklist of
 * cards, each command marked on its own card (a numbered red ROOT badge
 * and a red border, or a YOU badge with "as USER, in CWD" under it), never
 * by position. A reviewed file a command names is on its card by name,
 * size, mode and SHA-256. Details (v) add every argv element on its own
 * line, the resolved path, hashes, timeouts, environment and policies,
 * and the content of text files, each line neutralised.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "tui/tui.h"

#define LABEL_COL	12	/* where context values start */
#define CARD_INDENT	4	/* card text under the checkbox */
#define DETAIL_COL	9	/* card detail values, after labels at 0 */
#define FILE_SHOW_MAX	(64 * 1024)	/* bytes of a file's text shown */
#define LIVE_LINES	8	/* of a running command's output */

int
gate_cmd_root(const json_t *c)
{
	return strcmp(json_str(c, "as"), "root") == 0;
}

static int
pending(const struct tui *t)
{
	return strcmp(json_str(t->gate, "state"), "pending") == 0;
}

/* Does argv element a read the same to a shell without quotes? */
static int
plain_word(const char *a)
{
	if (*a == '\0')
		return 0;
	for (; *a != '\0'; a++)
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789_@%+=:,./-", *a) == NULL)
			return 0;
	return 1;
}

/*
 * The command line as a shell would read it: the resolved path, then the
 * arguments, quoted where needed so element boundaries stay visible, each
 * one word of the document (lines wrap between arguments). Each word is
 * made safe first and the quoting added after, so a quote inside a word
 * shows as '\'' and not with the backslash escaped again.
 */
static void
command_line(struct tdoc *d, enum style style, const json_t *c)
{
	json_t *argv = json_object_get(c, "argv"), *a;
	wchar_t *buf, *w, *p;
	size_t i, n;
	const char *s;

	json_array_foreach(argv, i, a) {
		if (i > 0)
			doc_addw(d, style, L" ");
		/* a reviewed file, unquoted: a literal "{file:x}" is quoted */
		if (file_ref(a) != NULL) {
			char *ref;

			if (asprintf(&ref, "{file:%s}", file_ref(a)) >= 0) {
				doc_word(d, style, ref);
				free(ref);
			}
			continue;
		}
		s = i == 0 && *json_str(c, "path") != '\0' ? json_str(c, "path") :
		    json_string_value(a);
		if (s == NULL)
			s = "";
		w = tui_word(s);
		if (plain_word(s)) {
			doc_wordw(d, style, w);
			free(w);
			continue;
		}
		buf = xcalloc(wcslen(w) * 4 + 3, sizeof *buf);
		n = 0;
		buf[n++] = L'\'';
		for (p = w; *p != L'\0'; p++) {
			if (*p == L'\'') {
				wmemcpy(buf + n, L"'\\''", 4);
				n += 4;
			} else
				buf[n++] = *p;
		}
		buf[n++] = L'\'';
		doc_wordw(d, style, buf);
		free(buf);
		free(w);
	}
}

/* A labelled line of prose (it wraps at spaces). */
static void
context_field(struct tdoc *d, const char *label, const char *value)
{
	doc_line(d, -1, LINE_PLAIN, LABEL_COL);
	doc_add(d, ST_LABEL, label);
	doc_tab(d, LABEL_COL);
	doc_add(d, ST_NORMAL, value);
}

/* A labelled value that is one word (a path, a hash): never split at
 * its spaces. */
static void
context_word(struct tdoc *d, const char *label, const char *value)
{
	doc_line(d, -1, LINE_PLAIN, LABEL_COL);
	doc_add(d, ST_LABEL, label);
	doc_tab(d, LABEL_COL);
	doc_word(d, ST_NORMAL, value);
}

static void
badges(struct tdoc *d, const json_t *list, int none)
{
	json_t *b;
	size_t i;

	if (json_array_size(list) == 0 && none)
		doc_add(d, ST_DIM, "none");
	json_array_foreach(list, i, b) {
		if (i > 0)
			doc_add(d, ST_NORMAL, " ");
		doc_add(d, ST_RISK, "[");
		doc_add(d, ST_RISK, json_string_value(b));
		doc_add(d, ST_RISK, "]");
	}
}

/* KEY=VALUE, one word. */
static void
env_word(struct tdoc *d, const char *key, const json_t *v)
{
	char *kv;

	if (asprintf(&kv, "%s=%s", key, json_is_string(v) ? json_string_value(v) : "") < 0)
		return;
	doc_word(d, ST_BOLD, kv);
	free(kv);
}

static void
env_inline(struct tdoc *d, const json_t *env)
{
	const char *key;
	json_t *v;

	doc_add(d, ST_NORMAL, "clean (LC_ALL=C, LANG=C, TERM, fixed PATH)");
	if (json_object_size(env) == 0) {
		doc_add(d, ST_DIM, ", nothing added");
		return;
	}
	doc_add(d, ST_NORMAL, " plus");
	json_object_foreach((json_t *)env, key, v) {
		doc_add(d, ST_NORMAL, " ");
		env_word(d, key, v);
	}
}

static void
expiry(struct tui *t, struct tdoc *d)
{
	json_t *g = t->gate;
	int64_t at = json_integer_value(json_object_get(g, "expires_at"));
	char when[32], left[32];

	format_time(at, when, sizeof when);
	doc_line(d, -1, LINE_PLAIN, LABEL_COL);
	doc_add(d, ST_LABEL, pending(t) ? "Expires" : "State");
	doc_tab(d, LABEL_COL);
	if (pending(t)) {
		tui_duration(at - now_seconds(), left, sizeof left);
		doc_addf(d, at - now_seconds() < 60 ? ST_BAD : ST_NORMAL, "in %s", left);
		doc_addf(d, ST_DIM, " (%s)", when);
		return;
	}
	doc_add(d, strcmp(json_str(g, "state"), "approved") == 0 ? ST_GOOD : ST_BAD,
	    tui_state_word(g));
	doc_addf(d, ST_DIM, " (review window to %s)", when);
}

static void
context(struct tui *t, struct tdoc *d)
{
	json_t *g = t->gate;
	char who[128], note[512];

	context_field(d, "Reason", json_str(g, "reason"));
	context_word(d, "Host", json_str(g, "host"));
	if (*json_str(g, "machine") != '\0') {
		doc_add(d, ST_NORMAL, ", for machine ");
		doc_word(d, ST_BOLD, json_str(g, "machine"));
		doc_add(d, ST_NORMAL, " at ");
		doc_word(d, ST_BOLD, json_str(json_object_get(json_object_get(g, "manifest"),
		    "machine"), "destination"));
		machine_account_note(g, note, sizeof note);
		if (*note != '\0')
			context_field(d, "Password", note);
	}
	/* run_as and cwd are the ROOT commands' own: a YOU-only gate has none */
	if (json_integer_value(json_object_get(g, "root_count")) > 0) {
		context_word(d, "Run as", json_str(g, "run_as"));
		context_word(d, "Cwd", json_str(g, "cwd"));
	} else
		context_field(d, "Root", "none: every command runs as you");
	doc_line(d, -1, LINE_PLAIN, LABEL_COL);
	doc_add(d, ST_LABEL, "Environment");
	doc_tab(d, LABEL_COL);
	env_inline(d, json_object_get(g, "env"));
	requester_label(g, who, sizeof who);
	context_field(d, "Requester", who);
	if (*json_str(g, "agent") != '\0') {
		doc_add(d, ST_NORMAL, " via agent ");
		doc_word(d, ST_NORMAL, json_str(g, "agent"));
	}
	context_word(d, "Project", *json_str(g, "project") ? json_str(g, "project") : "-");
	expiry(t, d);
	doc_line(d, -1, LINE_PLAIN, LABEL_COL);
	doc_add(d, ST_LABEL, "Risk");
	doc_tab(d, LABEL_COL);
	badges(d, json_object_get(g, "risk_badges"), 1);
	if (*json_str(g, "feedback") != '\0')
		context_field(d, "Feedback", json_str(g, "feedback"));
}

/* A detail of a card: its value is one word (an argv element, a path). */
static void
detail(struct tdoc *d, int card, const char *label, enum style s, const char *value)
{
	doc_line(d, card, LINE_MID, DETAIL_COL);
	doc_add(d, ST_LABEL, label);
	doc_tab(d, DETAIL_COL);
	doc_word(d, s, value);
}

static void
card_details(struct tui *t, struct tdoc *d, int card, const json_t *c)
{
	json_t *argv = json_object_get(c, "argv"), *a, *to;
	char label[32], buf[128];
	size_t i;

	json_array_foreach(argv, i, a) {
		snprintf(label, sizeof label, "argv[%zu]", i);
		if (file_ref(a) != NULL) {
			detail(d, card, label, ST_BOLD, "file ");
			doc_add(d, ST_BOLD, file_ref(a));
			doc_add(d, ST_DIM, " (the path of its staged copy)");
		} else
			detail(d, card, label, ST_NORMAL, json_string_value(a));
	}
	detail(d, card, "path", ST_NORMAL, json_str(c, "path"));
	if (strcmp(json_str(c, "path"), json_str(c, "given_path")) != 0) {
		doc_add(d, ST_DIM, " (given as ");
		doc_word(d, ST_DIM, json_str(c, "given_path"));
		doc_add(d, ST_DIM, ")");
	}
	if (json_is_true(json_object_get(c, "sealed_at_run")))
		detail(d, card, "sha256", ST_BAD, "at run time (the ledger gets the hash that ran)");
	else
		detail(d, card, "sha256", ST_NORMAL, json_str(c, "executable_sha256"));
	detail(d, card, "cwd", ST_NORMAL, json_str(c, "cwd"));
	to = json_object_get(c, "timeout_seconds");
	if (json_is_integer(to))
		snprintf(buf, sizeof buf, "%lld s", (long long)json_integer_value(to));
	else
		snprintf(buf, sizeof buf, "300 s (the default)");
	detail(d, card, "timeout", ST_NORMAL, buf);
	if (gate_cmd_root(c)) {
		detail(d, card, "env", ST_NORMAL, "");
		env_inline(d, json_object_get(t->gate, "env"));
	} else
		detail(d, card, "env", ST_NORMAL, "yours, from the user manager, allowlisted "
		    "(not the agent's)");
}

struct archive_put {
	struct tdoc	*d;
	int		 card;
};

/* A line of a file's archive summary (archive_lines) on its card;
 * flagged members and a partial read stand out. */
static void
archive_line(void *arg, int alert, const char *line)
{
	struct archive_put *p = arg;

	doc_line(p->d, p->card, LINE_MID, CARD_INDENT + 7);
	doc_tab(p->d, CARD_INDENT + 5);
	doc_add(p->d, alert ? ST_BAD : ST_NORMAL, line);
}

/* The reviewed files a command names: name, size, mode and SHA-256 on
 * the card, and an archive's summary with its flagged members; with
 * details, where it came from and its text or every member listed. */
static void
card_files(struct tui *t, struct tdoc *d, int card, const json_t *c)
{
	struct archive_put ap = { d, card };
	json_t *files = json_object_get(t->gate, "files"), *a, *f, *ft;
	const char *name, *text, *nl;
	long long size;
	size_t i, j;

	json_array_foreach(json_object_get(c, "argv"), i, a) {
		if ((name = file_ref(a)) == NULL)
			continue;
		/* each file once per card */
		for (j = 1; j < i; j++)
			if (file_ref(json_array_get(json_object_get(c, "argv"), j)) != NULL &&
			    strcmp(file_ref(json_array_get(json_object_get(c, "argv"), j)), name) == 0)
				break;
		if (j < i)
			continue;
		f = json_object_get(files, name);
		size = (long long)json_integer_value(json_object_get(f, "size"));
		doc_line(d, card, LINE_MID, CARD_INDENT + 5);
		doc_tab(d, CARD_INDENT);
		doc_add(d, ST_LABEL, "file ");
		doc_add(d, ST_BOLD, name);
		doc_addf(d, ST_NORMAL, "  %lld bytes  mode %s  sha256 ", size, json_str(f, "mode"));
		doc_add(d, ST_NORMAL, json_str(f, "sha256"));
		ft = json_object_get(t->file_text, name);
		archive_lines(json_object_get(ft, "archive"), t->details, archive_line, &ap);
		if (!t->details)
			continue;
		doc_line(d, card, LINE_MID, CARD_INDENT + 7);
		doc_tab(d, CARD_INDENT + 5);
		if (json_is_string(json_object_get(f, "source"))) {
			doc_add(d, ST_DIM, "snapshot of ");
			doc_add(d, ST_NORMAL, json_str(f, "source"));
			doc_add(d, ST_DIM, ", taken at request time");
		} else
			doc_add(d, ST_DIM, "inline in the request");
		if (!json_is_string(json_object_get(ft, "text"))) {
			/* an archive's members are its content, listed above */
			if (strcmp(json_str(ft, "what"), "binary") == 0 &&
			    json_object_get(ft, "archive") != NULL)
				continue;
			doc_line(d, card, LINE_MID, CARD_INDENT + 7);
			doc_tab(d, CARD_INDENT + 5);
			if (strcmp(json_str(ft, "what"), "binary") == 0)
				doc_addf(d, ST_NORMAL, "binary, %lld bytes", size);
			else
				doc_addf(d, ST_BAD, "content %s in the store: the runner will refuse it",
				    json_str(ft, "what"));
			continue;
		}
		for (text = json_str(ft, "text"); *text != '\0'; text = nl + 1) {
			char *line;

			nl = strchr(text, '\n');
			line = strndup(text, nl != NULL ? (size_t)(nl - text) : strlen(text));
			if (line == NULL)
				break;
			doc_line(d, card, LINE_MID, CARD_INDENT + 7);
			doc_tab(d, CARD_INDENT + 5);
			doc_add(d, ST_DIM, "| ");
			doc_add(d, ST_NORMAL, line);
			free(line);
			if (nl == NULL)
				break;
		}
		if ((long long)json_string_length(json_object_get(ft, "text")) < size) {
			doc_line(d, card, LINE_MID, CARD_INDENT + 7);
			doc_tab(d, CARD_INDENT + 5);
			doc_addf(d, ST_BAD, "... %lld more bytes not shown", size -
			    (long long)json_string_length(json_object_get(ft, "text")));
		}
	}
}

/* The text of every reviewed file of the gate, read once when it is
 * opened: NAME -> {"text": STR} or {"what": "binary"|"missing"|"changed"},
 * with "archive": an archive's summary (blob_archive). */
static json_t *
load_file_text(struct tui *t)
{
	json_t *out = json_object(), *f, *a;
	const char *name, *what;
	char *text;

	json_object_foreach(json_object_get(t->gate, "files"), name, f) {
		text = blob_text(t->st->dir, f, FILE_SHOW_MAX, &what);
		json_object_set_new(out, name, text != NULL ? json_pack("{s:s}", "text", text) :
		    json_pack("{s:s}", "what", what));
		if ((a = blob_archive(t->st->dir, f)) != NULL)
			json_object_set_new(json_object_get(out, name), "archive", a);
		free(text);
	}
	return out;
}

/* The tick box; once the gate is settled, what became of the command. */
static void
checkbox(struct tui *t, struct tdoc *d, int i, const json_t *c)
{
	json_t *e;
	size_t k;

	if (pending(t)) {
		doc_add(d, t->ticked[i] ? ST_BOLD : ST_DIM, t->ticked[i] ? "[x]" : "[ ]");
		return;
	}
	json_array_foreach(json_object_get(t->ledger, "entries"), k, e)
		if (strcmp(json_str(e, "id"), json_str(c, "id")) == 0) {
			doc_add(d, strcmp(json_str(e, "status"), "ran") == 0 ? ST_GOOD : ST_BAD,
			    json_str(e, "status"));
			return;
		}
	doc_add(d, ST_DIM, strcmp(json_str(t->gate, "state"), "approved") == 0 ?
	    "not run" : tui_state_word(t->gate));
}

/* One command's card; rootno is its number among the ROOT commands. */
static void
card(struct tui *t, struct tdoc *d, int i, const json_t *c, int rootno)
{
	int root = gate_cmd_root(c);
	char badge[32];

	doc_line(d, i, LINE_TOP, 0);
	t->card_first[i] = d->n - 1;
	doc_line(d, i, LINE_MID, CARD_INDENT);
	checkbox(t, d, i, c);
	doc_add(d, ST_NORMAL, " ");
	if (root) {
		snprintf(badge, sizeof badge, " ROOT %d ", rootno);
		doc_word(d, ST_ROOT_BADGE, badge);
	} else
		doc_word(d, ST_YOU_BADGE, " YOU ");
	doc_add(d, ST_NORMAL, " ");
	doc_word(d, ST_BOLD, json_str(c, "id"));
	if (json_array_size(json_object_get(c, "badges")) > 0) {
		doc_add(d, ST_NORMAL, "  ");
		badges(d, json_object_get(c, "badges"), 0);
	}
	if (!root) {
		doc_line(d, i, LINE_MID, CARD_INDENT);
		doc_tab(d, CARD_INDENT);
		doc_add(d, ST_NORMAL, "as ");
		doc_add(d, ST_BOLD, t->user);
		doc_add(d, ST_NORMAL, ", in ");
		doc_word(d, ST_BOLD, json_str(c, "cwd"));
	} else {
		doc_line(d, i, LINE_MID, CARD_INDENT);
		doc_tab(d, CARD_INDENT);
		doc_add(d, ST_NORMAL, "as ");
		doc_word(d, ST_ROOT_BORDER, json_str(t->gate, "run_as"));
		doc_add(d, ST_NORMAL, ", in ");
		doc_word(d, ST_BOLD, json_str(c, "cwd"));
	}
	doc_line(d, i, LINE_MID, CARD_INDENT + 2);
	doc_tab(d, CARD_INDENT);
	if (json_is_string(json_object_get(c, "command"))) {
		doc_add(d, ST_DIM, "$ ");
		doc_add(d, ST_BOLD, json_str(c, "command"));
	} else
		command_line(d, ST_BOLD, c);
	doc_line(d, i, LINE_MID, CARD_INDENT + 5);
	doc_tab(d, CARD_INDENT);
	doc_add(d, ST_LABEL, "why  ");
	doc_add(d, ST_NORMAL, json_str(c, "why"));
	/* the sealed-at-run badge says why on the card itself */
	if (json_is_true(json_object_get(c, "sealed_at_run"))) {
		doc_line(d, i, LINE_MID, CARD_INDENT + 5);
		doc_tab(d, CARD_INDENT);
		doc_add(d, ST_RISK, "[sealed-at-run] ");
		doc_word(d, ST_NORMAL, json_str(c, "path"));
		doc_add(d, ST_NORMAL, " does not exist yet: an earlier ROOT command may create it. "
		    "It is resolved, checked (who could change it, the denylists) and hashed "
		    "when it runs; the ledger gets the hash that ran.");
	}
	card_files(t, d, i, c);
	if (t->details)
		card_details(t, d, i, c);
	doc_line(d, i, LINE_BOTTOM, 0);
	t->card_last[i] = d->n - 1;
}

static void
policies(struct tui *t, struct tdoc *d)
{
	json_t *g = t->gate, *v;
	const char *key;

	doc_blank(d, -1);
	doc_line(d, -1, LINE_PLAIN, 0);
	doc_add(d, ST_BOLD, "Policies");
	context_field(d, "Stop", json_is_true(json_object_get(g, "stop_on_failure")) ?
	    "on the first failure of either kind (stop_on_failure)" :
	    "never: every ticked command runs (stop_on_failure false)");
	context_field(d, "Output", json_str(g, "output_to_agent"));
	doc_add(d, ST_DIM, strcmp(json_str(g, "output_to_agent"), "none") == 0 ?
	    " (the agent gets no output)" : strcmp(json_str(g, "output_to_agent"), "full") == 0 ?
	    " (the agent gets up to 64 KiB per command)" :
	    " (the agent gets the last 8 KiB per command)");
	context_field(d, "Environment", json_object_size(json_object_get(g, "env")) ?
	    "for ROOT commands, besides LC_ALL=C, LANG=C, TERM, a fixed PATH:" :
	    "clean for ROOT commands: LC_ALL=C, LANG=C, TERM, a fixed PATH");
	json_object_foreach(json_object_get(g, "env"), key, v) {
		doc_line(d, -1, LINE_PLAIN, LABEL_COL + 2);
		doc_tab(d, LABEL_COL);
		env_word(d, key, v);
	}
	if (*json_str(g, "next_prompt") != '\0')
		context_field(d, "Next", json_str(g, "next_prompt"));
	context_word(d, "Manifest", json_str(g, "manifest_sha256"));
	/* the host's two-person rule: how many of the others' approvals are in */
	{
		char reviews[768];

		if (cosign_tally_text(g, reviews, sizeof reviews))
			context_field(d, "Reviews", reviews);
	}
}

/* A line of a ROOT command's confinement record (confinement_lines),
 * under its ledger line; refused accesses and unconfined stand out. */
static void
confinement_line(void *arg, int alert, const char *line)
{
	struct tdoc *d = arg;

	doc_line(d, -1, LINE_PLAIN, 6);
	doc_tab(d, 4);
	doc_add(d, alert ? ST_BAD : ST_DIM, line);
}

/* Command output, line by line, each neutralised. */
static void
output_lines(struct tdoc *d, const char *out)
{
	const char *nl;
	char *line;

	for (; *out != '\0'; out = nl + 1) {
		nl = strchr(out, '\n');
		line = strndup(out, nl != NULL ? (size_t)(nl - out) : strlen(out));
		if (line == NULL)
			break;
		doc_line(d, -1, LINE_PLAIN, 6);
		doc_tab(d, 4);
		doc_add(d, ST_DIM, "| ");
		doc_add(d, ST_NORMAL, line);
		free(line);
		if (nl == NULL)
			break;
	}
}

/* The batch runs: which command, and its latest output lines (redacted by
 * approve_live, neutralised as the ledger's output is). */
static void
live(struct tui *t, struct tdoc *d)
{
	doc_line(d, -1, LINE_PLAIN, 9);
	doc_add(d, ST_BAD, "Running");
	doc_tab(d, 9);
	doc_word(d, ST_BOLD, json_str(t->live, "command"));
	doc_addf(d, ST_DIM, "  %lld bytes of output so far; s stops it",
	    (long long)json_integer_value(json_object_get(t->live, "output_bytes")));
	output_lines(d, live_last_lines(json_str(t->live, "output"), LIVE_LINES));
	doc_blank(d, -1);
}

static void
ledger(struct tui *t, struct tdoc *d)
{
	json_t *e, *code;
	const char *s;
	size_t i;

	doc_blank(d, -1);
	doc_line(d, -1, LINE_PLAIN, 0);
	doc_add(d, ST_BOLD, "Ledger");
	doc_addf(d, ST_DIM, " (%s)", json_str(t->ledger, "outcome"));
	/* a stopped batch: its killed command's signal is the stop */
	if (json_is_object(json_object_get(t->ledger, "stopped"))) {
		doc_add(d, ST_BAD, " stopped by ");
		doc_word(d, ST_BAD, json_str(json_object_get(t->ledger, "stopped"), "by"));
	}
	json_array_foreach(json_object_get(t->ledger, "entries"), i, e) {
		s = json_str(e, "status");
		doc_line(d, -1, LINE_PLAIN, 4);
		doc_tab(d, 2);
		doc_add(d, strcmp(s, "ran") == 0 ? ST_GOOD : ST_BAD, s);
		doc_tab(d, 11);
		doc_word(d, ST_BOLD, json_str(e, "id"));
		doc_addf(d, ST_DIM, " as %s", json_str(e, "as"));
		code = json_object_get(e, "exit_code");
		if (json_is_integer(code))
			doc_addf(d, ST_NORMAL, ", exit %lld", (long long)json_integer_value(code));
		if (*json_str(e, "error") != '\0') {
			doc_add(d, ST_NORMAL, ", ");
			doc_add(d, ST_NORMAL, json_str(e, "error"));
		}
		confinement_lines(e, confinement_line, d);
		if (t->details)
			output_lines(d, json_str(e, "output_tail"));
	}
	if (!t->details)
		return;
	if (*json_str(t->ledger, "diagnostic") != '\0')
		context_field(d, "Diagnostic", json_str(t->ledger, "diagnostic"));
}

/* Lay the whole review out again for the current size and state. */
void
gate_layout(struct tui *t)
{
	struct tdoc *d = &t->doc;
	json_t *cmds = json_object_get(t->gate, "commands"), *c;
	size_t i, nticked = 0;
	int rootno = 0;

	doc_reset(d, COLS - 2, COLS - 7);
	if (*t->outcome != '\0') {
		doc_line(d, -1, LINE_PLAIN, 9);
		doc_add(d, t->outcome_style, "Outcome");
		doc_tab(d, 9);
		doc_add(d, t->outcome_style, t->outcome);
		doc_blank(d, -1);
	}
	if (t->live != NULL)
		live(t, d);
	context(t, d);
	doc_blank(d, -1);
	for (i = 0; i < t->ncmds; i++)
		nticked += t->ticked[i] != 0;
	doc_line(d, -1, LINE_PLAIN, 0);
	doc_add(d, ST_BOLD, "Commands");
	doc_addf(d, ST_DIM, "  %zu of %zu ticked%s", nticked, t->ncmds,
	    pending(t) ? "; Space ticks, v details" : "");
	json_array_foreach(cmds, i, c) {
		if (i >= t->ncmds)
			break;
		card(t, d, (int)i, c, gate_cmd_root(c) ? ++rootno : 0);
	}
	if (t->details)
		policies(t, d);
	if (t->ledger != NULL)
		ledger(t, d);
	doc_blank(d, -1);
	doc_end(d);
}

static void
clamp_top(struct tui *t)
{
	size_t h = (size_t)tui_body_height();

	if (t->doc.n <= h)
		t->top = 0;
	else if (t->top > t->doc.n - h)
		t->top = t->doc.n - h;
}

/* Scroll so the focused card shows (its top first when it is taller). */
static void
show_focus(struct tui *t)
{
	size_t h = (size_t)tui_body_height(), f, l;

	if (t->ncmds == 0)
		return;
	f = t->card_first[t->focus];
	l = t->card_last[t->focus];
	if (f < t->top)
		t->top = f;
	else if (l >= t->top + h)
		t->top = l - f + 1 > h ? f : l - h + 1;
	clamp_top(t);
}

/* After a scroll: keep the focus on a card that can be seen. */
static void
follow(struct tui *t)
{
	size_t h = (size_t)tui_body_height(), i;

	if (t->ncmds == 0 || (t->card_last[t->focus] >= t->top &&
	    t->card_first[t->focus] < t->top + h))
		return;
	for (i = 0; i < t->ncmds; i++)
		if (t->card_last[i] >= t->top && t->card_first[i] < t->top + h) {
			t->focus = i;
			return;
		}
}

int
gate_open(struct tui *t, const char *id)
{
	json_t *g = store_gate(t->st, id, 1);
	size_t i;

	if (g == NULL) {
		tui_status(t, ST_BAD, "cannot read %s", id);
		return -1;
	}
	gate_close(t);
	snprintf(t->gate_id, sizeof t->gate_id, "%s", id);
	t->gate = g;
	t->ncmds = json_array_size(json_object_get(g, "commands"));
	t->ticked = xcalloc(t->ncmds + 1, sizeof *t->ticked);
	t->card_first = xcalloc(t->ncmds + 1, sizeof *t->card_first);
	t->card_last = xcalloc(t->ncmds + 1, sizeof *t->card_last);
	for (i = 0; i < t->ncmds; i++)
		t->ticked[i] = 1;
	t->focus = t->top = 0;
	t->details = 0;
	*t->outcome = '\0';
	t->ledger = strcmp(json_str(g, "state"), "approved") == 0 ? gate_ledger(t->st, id) : NULL;
	t->live = approve_live(t->st, id);
	t->file_text = load_file_text(t);
	t->view = VIEW_GATE;
	*t->status = '\0';
	gate_layout(t);
	return 0;
}

void
gate_close(struct tui *t)
{
	json_decref(t->gate);
	json_decref(t->ledger);
	json_decref(t->live);
	json_decref(t->file_text);
	t->file_text = NULL;
	t->live = NULL;
	free(t->ticked);
	free(t->card_first);
	free(t->card_last);
	t->gate = t->ledger = NULL;
	t->ticked = NULL;
	t->card_first = t->card_last = NULL;
	t->ncmds = 0;
	doc_free(&t->doc);
	t->view = VIEW_LIST;
	t->mode = MODE_NORMAL;
}

/* Read the gate again: its state may have moved (settled elsewhere,
 * expired, a detached run finished). */
void
gate_reload(struct tui *t)
{
	json_t *g = store_gate(t->st, t->gate_id, 1);
	const char *was, *now;

	if (g == NULL)
		return;
	if (json_array_size(json_object_get(g, "commands")) != t->ncmds) {
		json_decref(g);
		return;
	}
	was = json_str(t->gate, "state");
	now = json_str(g, "state");
	if (strcmp(was, now) != 0) {
		tui_status(t, strcmp(now, "approved") == 0 ? ST_GOOD : ST_BAD,
		    "%s is now %s", t->gate_id, tui_state_word(g));
		if (t->mode != MODE_NORMAL)
			t->mode = MODE_NORMAL;
	}
	json_decref(t->gate);
	t->gate = g;
	if (t->ledger == NULL && strcmp(now, "approved") == 0)
		t->ledger = gate_ledger(t->st, t->gate_id);
	json_decref(t->live);
	t->live = approve_live(t->st, t->gate_id);
	if (t->live == NULL && t->mode == MODE_STOP)
		t->mode = MODE_NORMAL;	/* it ended meanwhile */
	gate_layout(t);
	clamp_top(t);
}

static void
top_bar(struct tui *t)
{
	json_t *cmds = json_object_get(t->gate, "commands");
	int nroot = 0, nyou = 0, x;
	char buf[128], left[32];
	int64_t at;
	size_t i;

	for (i = 0; i < t->ncmds; i++) {
		if (!t->ticked[i])
			continue;
		if (gate_cmd_root(json_array_get(cmds, i)))
			nroot++;
		else
			nyou++;
	}
	tui_fill(0, 0, COLS, ST_BAR);
	x = 1 + tui_puts(0, 1, COLS - 2, ST_BAR, t->gate_id);
	snprintf(buf, sizeof buf, "  %d command%s as root and %d as you  ", nroot,
	    nroot == 1 ? "" : "s", nyou);
	x += tui_puts(0, x, COLS - 1 - x, ST_BAR, buf);
	if (nroot > 0)
		x += tui_puts(0, x, COLS - 1 - x, ST_PILL, " Root access ");
	if (pending(t)) {
		at = json_integer_value(json_object_get(t->gate, "expires_at"));
		tui_duration(at - now_seconds(), left, sizeof left);
		snprintf(buf, sizeof buf, "expires in %s ", left);
	} else
		snprintf(buf, sizeof buf, "%s ", tui_state_word(t->gate));
	if ((int)strlen(buf) < COLS - 1 - x)
		tui_puts(0, COLS - (int)strlen(buf), (int)strlen(buf), ST_BAR, buf);
}

static void
draw_line(struct tui *t, int y, const struct tline *l)
{
	enum style border = ST_YOU_BORDER;
	int x0 = 1, right = COLS - 3, k;
	size_t j;

	if (l->card >= 0) {
		border = gate_cmd_root(json_array_get(json_object_get(t->gate, "commands"),
		    (size_t)l->card)) ? ST_ROOT_BORDER : ST_YOU_BORDER;
		if ((size_t)l->card == t->focus)
			tui_puts(y, 0, 1, ST_FOCUS, ">");
		x0 = 3;
	}
	switch (l->kind) {
	case LINE_TOP:
	case LINE_BOTTOM:
		mvaddch(y, 1, (l->kind == LINE_TOP ? ACS_ULCORNER : ACS_LLCORNER) |
		    tui_chattr(border));
		mvhline(y, 2, ACS_HLINE | tui_chattr(border), right - 2);
		mvaddch(y, right, (l->kind == LINE_TOP ? ACS_URCORNER : ACS_LRCORNER) |
		    tui_chattr(border));
		break;
	case LINE_MID:
		mvaddch(y, 1, ACS_VLINE | tui_chattr(border));
		mvaddch(y, right, ACS_VLINE | tui_chattr(border));
		break;
	case LINE_PLAIN:
		break;
	}
	for (j = 0; j < l->nsegs; j++) {
		k = x0 + l->segs[j].col;
		tui_putw(y, k, (l->card >= 0 ? right - 1 : COLS - 1) - k, l->segs[j].style,
		    l->segs[j].w, 0);
	}
}

void
gate_draw(struct tui *t)
{
	int h = tui_body_height(), row;
	size_t i;

	top_bar(t);
	for (row = 0; row < h; row++) {
		i = t->top + (size_t)row;
		if (i >= t->doc.n)
			break;
		draw_line(t, 1 + row, &t->doc.l[i]);
	}
	if (t->doc.n > (size_t)h) {
		char pos[32];

		snprintf(pos, sizeof pos, " %zu-%zu/%zu ", t->top + 1,
		    t->top + (size_t)h < t->doc.n ? t->top + (size_t)h : t->doc.n, t->doc.n);
		tui_puts(LINES - 2, COLS - (int)strlen(pos), (int)strlen(pos), ST_DIM, pos);
	}
	tui_cut(LINES - 2, 0, COLS - 16, ST_DIM, t->live != NULL ?
	    " s stop  v details  ^D/^U g/G  q back" : pending(t) ?
	    " Space tick  v details  Enter run  a grant  d deny  ^D/^U g/G  q back" :
	    " v details  ^D/^U g/G  q back");
}

static void
toggle(struct tui *t)
{
	if (!pending(t)) {
		tui_status(t, ST_BAD, "%s is %s: nothing to tick", t->gate_id,
		    tui_state_word(t->gate));
		return;
	}
	if (t->ncmds == 0)
		return;
	t->ticked[t->focus] = !t->ticked[t->focus];
	gate_layout(t);
}

static void
down(struct tui *t)
{
	size_t h = (size_t)tui_body_height();

	if (t->ncmds > 0 && t->card_last[t->focus] >= t->top + h &&
	    t->card_first[t->focus] < t->top + h)
		t->top++;
	else if (t->focus + 1 < t->ncmds) {
		t->focus++;
		show_focus(t);
	} else
		t->top++;
	clamp_top(t);
}

static void
up(struct tui *t)
{
	if (t->ncmds > 0 && t->card_first[t->focus] < t->top &&
	    t->card_last[t->focus] >= t->top)
		t->top--;
	else if (t->focus > 0) {
		t->focus--;
		show_focus(t);
		if (t->focus == 0 && t->card_first[0] < (size_t)tui_body_height())
			t->top = 0;
	} else if (t->top > 0)
		t->top--;
}

void
gate_key(struct tui *t, int type, wint_t k)
{
	size_t half = (size_t)tui_body_height() / 2;

	if (type == KEY_CODE_YES) {
		switch (k) {
		case KEY_DOWN: down(t); return;
		case KEY_UP: up(t); return;
		case KEY_NPAGE: t->top += half; clamp_top(t); follow(t); return;
		case KEY_PPAGE: t->top = t->top > half ? t->top - half : 0; follow(t); return;
		case KEY_HOME: t->top = 0; t->focus = 0; return;
		case KEY_END:
			t->top = t->doc.n;
			clamp_top(t);
			t->focus = t->ncmds ? t->ncmds - 1 : 0;
			return;
		case KEY_ENTER: handoff_approve(t); return;
		default: return;
		}
	}
	switch (k) {
	case L' ': toggle(t); break;
	case L'v':
		t->details = !t->details;
		gate_layout(t);
		show_focus(t);
		break;
	case L'\n': case L'\r': handoff_approve(t); break;
	case L'd': deny_begin(t); break;
	case L's': stop_begin(t); break;
	case L'j': down(t); break;
	case L'k': up(t); break;
	case 4: t->top += half; clamp_top(t); follow(t); break;	/* ^D */
	case 21: t->top = t->top > half ? t->top - half : 0; follow(t); break;	/* ^U */
	case L'a': grant_begin(t); break;	/* allow again: approve and grant */
	case L'g': t->top = 0; t->focus = 0; break;
	case L'G':
		t->top = t->doc.n;
		clamp_top(t);
		t->focus = t->ncmds ? t->ncmds - 1 : 0;
		break;
	case L'q': case 27:
		gate_close(t);
		t->last_poll = 0;	/* read before the next draw (the loop's tui_poll) */
		break;
	default:
		break;
	}
}
