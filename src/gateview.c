/* SPDX-License-Identifier: ISC */
/* Human views of a gate for the terminal. Every piece of agent text goes
 * through text_print so it cannot drive the terminal, the content of a
 * reviewed file included. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warrant.h"

static void
print_badges(FILE *fp, const json_t *badges)
{
	json_t *b;
	size_t i;

	if (json_array_size(badges) == 0) {
		fputs("none", fp);
		return;
	}
	json_array_foreach(badges, i, b)
		fprintf(fp, "%s[%s]", i ? " " : "", json_string_value(b));
}

static void
print_time(FILE *fp, const json_t *g, const char *key)
{
	char when[32];
	json_t *v = json_object_get(g, key);

	if (!json_is_integer(v)) {
		fputs("-", fp);
		return;
	}
	format_time(json_integer_value(v), when, sizeof when);
	fputs(when, fp);
}

/* One line: id, state, counts, age, project, reason. */
void
gate_print_line(FILE *fp, const json_t *g)
{
	int64_t age = now_seconds() - json_integer_value(json_object_get(g, "created_at"));
	const char *project = json_str(g, "project");
	char who[128];

	fprintf(fp, "%s  %-8s  %lld root, %lld you  %4llds ago  ", json_str(g, "request_id"),
	    json_str(g, "state"), (long long)json_integer_value(json_object_get(g, "root_count")),
	    (long long)json_integer_value(json_object_get(g, "user_count")),
	    (long long)(age < 0 ? 0 : age));
	requester_label(g, who, sizeof who);
	if (strcmp(who, json_str(g, "requester")) != 0) {
		fputs("from ", fp);
		text_print_word(fp, who);
		fputs(": ", fp);
	}
	if (*project != '\0') {
		text_print_word(fp, project);
		fputs(": ", fp);
	}
	text_print_word(fp, json_str(g, "reason"));
	fputc('\n', fp);
}

/* A field of the gate: look-alikes and right-to-left letters escaped
 * (a cwd with U+2215 must not read as a path of the reviewer's). */
static void
field(FILE *fp, const char *label, const char *value)
{
	fprintf(fp, "%-12s ", label);
	text_print_word(fp, value);
	fputc('\n', fp);
}



/* A file's text as another reviewer's daemon sent it (statedir NULL):
 * shown only when it is the whole file and hashes to the seal. */
static char *
sent_text(const json_t *f, const char **what)
{
	const char *t = json_string_value(json_object_get(f, "content_text"));
	char sha[SHA256_HEX_LEN + 1];

	*what = "binary";
	if (t == NULL)
		return NULL;
	sha256_bytes(t, strlen(t), sha);
	if ((long long)strlen(t) != (long long)json_integer_value(json_object_get(f, "size")) ||
	    !digest_equal(sha, json_str(f, "sha256"))) {
		*what = "partial";
		return NULL;
	}
	return xstrdup(t);
}

/* A line of a record (a confinement record, an archive's summary) on
 * the terminal: after an indent, made safe. */
struct conf_print {
	FILE		*fp;
	const char	*indent;
};

static void
conf_print_line(void *arg, int alert, const char *line)
{
	struct conf_print *p = arg;

	(void)alert;
	fputs(p->indent, p->fp);
	text_print(p->fp, line);
	fputc('\n', p->fp);
}

/*
 * The reviewed files: name, size, mode and SHA-256 as sealed, where the
 * content came from, and the content itself when it is text (from the
 * blob store, checked against the seal), made safe line by line; an
 * archive's summary (its "archive", blob_archives) with its members.
 */
static void
print_files(FILE *fp, const json_t *files, const char *statedir)
{
	struct conf_print p = { fp, "    " };
	const char *name, *what;
	json_t *f;
	char *text;
	long long size;

	if (json_object_size(files) == 0)
		return;
	fprintf(fp, "\nfiles: %zu, staged for the commands at run time\n",
	    json_object_size(files));
	json_object_foreach((json_t *)files, name, f) {
		size = (long long)json_integer_value(json_object_get(f, "size"));
		fputs("\n  FILE    ", fp);
		text_print_word(fp, name);
		fprintf(fp, "  %lld bytes  mode %s\n", size, json_str(f, "mode"));
		fprintf(fp, "    sha256 %s\n", json_str(f, "sha256"));
		if (json_is_string(json_object_get(f, "source"))) {
			fputs("    from  snapshot of ", fp);
			text_print_word(fp, json_str(f, "source"));
			fputs(", taken at request time\n", fp);
		} else
			fputs("    from  the request (inline)\n", fp);
		text = statedir != NULL ? blob_text(statedir, f, SHOW_CONTENT_MAX, &what) :
		    sent_text(f, &what);
		if (text == NULL) {
			if (strcmp(what, "binary") == 0 && json_object_get(f, "archive") != NULL)
				archive_lines(json_object_get(f, "archive"), 1, conf_print_line, &p);
			else if (strcmp(what, "binary") == 0)
				fprintf(fp, "    binary, %lld bytes\n", size);
			else if (statedir == NULL)
				fputs("    content not shown here: what the daemon sent is not the "
				    "whole file as sealed\n", fp);
			else
				fprintf(fp, "    content %s in the store: it cannot be shown, and "
				    "the runner will refuse it\n", what);
			continue;
		}
		if (size == 0)
			fputs("    (empty)\n", fp);
		else
			text_print_lines(fp, text, "    | ");
		if ((long long)strlen(text) < size)
			fprintf(fp, "    ... %lld more bytes not shown\n",
			    size - (long long)strlen(text));
		free(text);
	}
}

void
gate_print_full(FILE *fp, const json_t *g, const char *statedir)
{
	const char *key;
	json_t *cmds = json_object_get(g, "commands"), *c, *a, *v;
	size_t i, j, nroot = 0;
	char who[128], note[512];

	field(fp, "request", json_str(g, "request_id"));
	field(fp, "state", json_str(g, "state"));
	fprintf(fp, "%-12s ", "reason");
	text_print_word(fp, json_str(g, "reason"));
	fputc('\n', fp);
	field(fp, "host", json_str(g, "host"));
	if (*json_str(g, "machine") != '\0') {
		const json_t *m = json_object_get(json_object_get(g, "manifest"), "machine");

		fprintf(fp, "%-12s ", "machine");
		text_print(fp, json_str(g, "machine"));
		fputs(" (", fp);
		text_print(fp, json_str(m, "destination"));
		fputs("): paths and SHA-256s below are the target's\n", fp);
		machine_account_note(g, note, sizeof note);
		if (*note != '\0') {
			fprintf(fp, "%-12s ", "password");
			text_print(fp, note);
			fputc('\n', fp);
		}
	}
	/* run_as and cwd are the ROOT commands' own: a YOU-only gate has none */
	if (json_integer_value(json_object_get(g, "root_count")) > 0) {
		field(fp, "run as", json_str(g, "run_as"));
		field(fp, "cwd", json_str(g, "cwd"));
	} else
		field(fp, "root", "none: every command runs as you");
	fprintf(fp, "%-12s ", "environment");
	if (json_object_size(json_object_get(g, "env")) == 0)
		fputs("clean (LC_ALL=C, LANG=C, TERM, fixed PATH)", fp);
	json_object_foreach(json_object_get(g, "env"), key, v) {
		text_print_word(fp, key);
		fputc('=', fp);
		text_print_word(fp, json_string_value(v));
		fputc(' ', fp);
	}
	fputc('\n', fp);
	requester_label(g, who, sizeof who);
	fprintf(fp, "%-12s ", "requester");
	text_print_word(fp, who);
	if (*json_str(g, "agent") != '\0') {
		fputs(" via agent ", fp);
		text_print_word(fp, json_str(g, "agent"));
	}
	fputc('\n', fp);
	if (*json_str(g, "project") != '\0')
		field(fp, "project", json_str(g, "project"));
	fprintf(fp, "%-12s ", "created");
	print_time(fp, g, "created_at");
	fprintf(fp, "\n%-12s ", "expires");
	print_time(fp, g, "expires_at");
	fprintf(fp, "\n%-12s ", "risk");
	print_badges(fp, json_object_get(g, "risk_badges"));
	fprintf(fp, "\n%-12s %s\n", "manifest", json_str(g, "manifest_sha256"));
	if (*json_str(g, "feedback") != '\0')
		field(fp, "feedback", json_str(g, "feedback"));
	fprintf(fp, "\ncommands: %lld as root, %lld as you\n",
	    (long long)json_integer_value(json_object_get(g, "root_count")),
	    (long long)json_integer_value(json_object_get(g, "user_count")));
	json_array_foreach(cmds, i, c) {
		int root = strcmp(json_str(c, "as"), "root") == 0;

		fputc('\n', fp);
		if (root)
			fprintf(fp, "  ROOT %zu  ", ++nroot);
		else
			fputs("  YOU     ", fp);
		text_print(fp, json_str(c, "id"));
		fputs("  ", fp);
		print_badges(fp, json_object_get(c, "badges"));
		fputc('\n', fp);
		if (!root) {
			fputs("          as you, in ", fp);
			text_print_word(fp, json_str(c, "cwd"));
			fputc('\n', fp);
		}
		fputs("    why   ", fp);
		text_print_word(fp, json_str(c, "why"));
		fputc('\n', fp);
		json_array_foreach(json_object_get(c, "argv"), j, a) {
			fprintf(fp, "    argv[%zu] ", j);
			if (file_ref(a) != NULL) {
				fputs("(file ", fp);
				text_print_word(fp, file_ref(a));
				fputs(": the path of its staged copy)", fp);
			} else
				text_print_word(fp, json_string_value(a));
			fputc('\n', fp);
		}
		fputs("    path  ", fp);
		text_print_word(fp, json_str(c, "path"));
		if (strcmp(json_str(c, "path"), json_str(c, "given_path")) != 0) {
			fputs("  (given as ", fp);
			text_print_word(fp, json_str(c, "given_path"));
			fputc(')', fp);
		}
		if (json_is_true(json_object_get(c, "sealed_at_run")))
			fputs("\n    sha256 (sealed at run time: it does not exist yet, an earlier "
			    "ROOT command may create it; it is resolved, checked and hashed when "
			    "it runs, and the hash that ran goes into the ledger)\n", fp);
		else
			fprintf(fp, "\n    sha256 %s\n", json_str(c, "executable_sha256"));
	}
	print_files(fp, json_object_get(g, "files"), statedir);
}

static void
conf_line(void (*put)(void *, int, const char *), void *arg, int alert, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
conf_line(void (*put)(void *, int, const char *), void *arg, int alert, const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (line == NULL)
		abort();
	put(arg, alert, line);
	free(line);
}

static json_int_t
conf_count(const json_t *c, const char *list)
{
	return (json_int_t)json_array_size(json_object_get(c, list)) +
	    json_integer_value(json_object_get(json_object_get(c, "omitted"), list));
}

/*
 * What ledger entry e's confinement record says, line by line, for every
 * surface that shows a ledger as text: put(arg, alert, line) for each
 * line, alert set on the refused accesses and on the unconfined marker.
 * A line holds the record's paths and reasons as they are: put must
 * neutralise it whole (text_print, tui_puts). Nothing when e has no
 * record (a YOU command, a ROOT command that never started).
 */
void
confinement_lines(const json_t *e, void (*put)(void *, int, const char *), void *arg)
{
	const json_t *c = json_object_get(e, "confinement"), *om, *v;
	const char *sha;
	size_t i;

	if (!json_is_object(c))
		return;
	om = json_object_get(c, "omitted");
	if (json_is_true(json_object_get(c, "unconfined"))) {
		put(arg, 1, "unconfined: ran without the run-time supervisor (the host's "
		    "policy allows it); nothing it did was checked or recorded");
		return;
	}
	conf_line(put, arg, 0, "run-time supervisor: %lld program%s executed, %lld "
	    "file%s written, %lld access%s refused",
	    (long long)conf_count(c, "executed"), conf_count(c, "executed") == 1 ? "" : "s",
	    (long long)conf_count(c, "written"), conf_count(c, "written") == 1 ? "" : "s",
	    (long long)conf_count(c, "refused"), conf_count(c, "refused") == 1 ? "" : "es");
	json_array_foreach(json_object_get(c, "refused"), i, v)
		conf_line(put, arg, 1, "refused at run time: %s %s \xe2\x80\x94 %s",
		    json_str(v, "call"), json_str(v, "path"), json_str(v, "reason"));
	if (json_integer_value(json_object_get(om, "refused")) > 0)
		conf_line(put, arg, 1, "refused at run time: (and %lld more)",
		    (long long)json_integer_value(json_object_get(om, "refused")));
	if (conf_count(c, "refused") > 0)
		put(arg, 0, "what to do instead: root only reads, runs and writes what the "
		    "requester cannot change. Pass content root needs as a reviewed file (the "
		    "request's files: inline, or a snapshot) and put it in place with install -o "
		    "root; extract archives with --no-same-owner; make set-id files, device nodes "
		    "and chowns of the requester's files in a command's own argv; start services "
		    "with systemctl");
	json_array_foreach(json_object_get(c, "executed"), i, v) {
		sha = json_str(v, "sha256");
		conf_line(put, arg, 0, "executed: %s (sha256 %.12s)", json_str(v, "path"), sha);
	}
	if (json_integer_value(json_object_get(om, "executed")) > 0)
		conf_line(put, arg, 0, "executed: (and %lld more)",
		    (long long)json_integer_value(json_object_get(om, "executed")));
	json_array_foreach(json_object_get(c, "left_running"), i, v)
		conf_line(put, arg, 1, "left running under the supervisor: %s (pid %lld) "
		    "\xe2\x80\x94 its file, program and process calls fail from now on (ENOSYS); "
		    "start services with systemctl", json_str(v, "command"),
		    (long long)json_integer_value(json_object_get(v, "pid")));
	json_array_foreach(json_object_get(c, "written"), i, v)
		conf_line(put, arg, 0, "written: %s", json_string_value(v) != NULL ?
		    json_string_value(v) : "");
	if (json_integer_value(json_object_get(om, "written")) > 0)
		conf_line(put, arg, 0, "written: (and %lld more)",
		    (long long)json_integer_value(json_object_get(om, "written")));
}

/* An entry's status for people: a command that ran but had accesses
 * refused at run time is not shown as a plain "ran" (it may have done
 * less than asked). */
static json_int_t
confinement_refusals(const json_t *e)
{
	const json_t *c = json_object_get(e, "confinement");

	return json_is_object(c) ? conf_count(c, "refused") : 0;
}

void
entry_status_print(FILE *fp, const json_t *e)
{
	json_int_t n = confinement_refusals(e);

	fputs(json_str(e, "status"), fp);
	if (n > 0)
		fprintf(fp, " with %lld access%s refused at run time", (long long)n,
		    n == 1 ? "" : "es");
}

/* confinement_lines on fp, each line after indent, neutralised. */
void
confinement_print(FILE *fp, const json_t *e, const char *indent)
{
	struct conf_print p = { fp, indent };

	confinement_lines(e, conf_print_line, &p);
}

/*
 * A ledger's entries for the reviewer, one line each (as, status, id,
 * exit code, error, the I/O log session of a ROOT command), each followed
 * by what the run-time supervisor recorded for it.
 */
void
ledger_print(FILE *fp, const json_t *l)
{
	json_t *e, *code;
	size_t i;

	json_array_foreach(json_object_get(l, "entries"), i, e) {
		code = json_object_get(e, "exit_code");
		fprintf(fp, "  %-4s %-8s ", json_str(e, "as"), json_str(e, "status"));
		text_print(fp, json_str(e, "id"));
		if (json_is_integer(code))
			fprintf(fp, "  exit %lld", (long long)json_integer_value(code));
		if (json_is_string(json_object_get(e, "error"))) {
			fputs("  ", fp);
			text_print(fp, json_str(e, "error"));
		}
		/* a ROOT command's output, for root to replay */
		if (json_is_string(json_object_get(e, "iolog"))) {
			fputs("  (sudoreplay -d " WARRANT_IOLOG_DIR " ", fp);
			text_print(fp, json_str(e, "iolog"));
			fputc(')', fp);
		}
		/* run with no review, by a standing grant (docs/grants.md) */
		if (json_is_string(json_object_get(e, "granted_by"))) {
			fputs("  granted by ", fp);
			text_print(fp, json_str(e, "granted_by"));
		}
		if (confinement_refusals(e) > 0)
			fprintf(fp, "  (%lld refused at run time)", (long long)confinement_refusals(e));
		fputc('\n', fp);
		confinement_print(fp, e, "         ");
	}
}
