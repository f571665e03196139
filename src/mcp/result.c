/* SPDX-License-Identifier: ISC */
/*
 * What a tools/call returns: a readable text for the agent (every piece of
 * untrusted text neutralised, since clients show it on terminals; command
 * output, feedback and next.prompt as they are, text_output, with only
 * terminal controls made visible and \r progress resolved) and, for
 * protocol revisions that have it, structuredContent with the same facts
 * as JSON: the ledger filtered by output_to_agent, as `warrant wait -j`
 * prints it, or the refusal as `warrant request -j` prints it.
 */
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

/* {content: [text], isError, structuredContent?}; structured is stolen. */
json_t *
result_text(const char *text, int is_error, json_t *structured, int with_structured)
{
	json_t *r, *t = json_string(text);

	if (t == NULL)		/* not UTF-8: cannot happen for neutralised text */
		t = json_string("(unprintable result)");
	r = json_pack("{s:[{s:s,s:o}],s:b}", "content", "type", "text", "text", t,
	    "isError", is_error);
	if (r != NULL && structured != NULL && with_structured)
		json_object_set(r, "structuredContent", structured);
	json_decref(structured);
	return r;
}

/* "refused (CODE) at PATH: MESSAGE", and {error:{code,path,message}}. */
json_t *
result_refusal(const struct refusal *rf, int with_structured)
{
	char *path = text_visible(rf->path), *msg = text_visible(rf->message), *text;
	json_t *r;
	const char *hint = refusal_hint(rf);

	if (asprintf(&text, "refused (%s) at %s: %s\n%s%s%sNothing was stored. Fix the "
	    "request and call again.", rf->code, path, msg, hint != NULL ? "Hint: " : "",
	    hint != NULL ? hint : "", hint != NULL ? "\n" : "") < 0)
		text = NULL;
	r = result_text(text != NULL ? text : rf->code, 1,
	    json_pack("{s:{s:s,s:s,s:s,s:s?}}", "error", "code", rf->code, "path", path,
	    "message", msg, "hint", hint), with_structured);
	free(text);
	free(path);
	free(msg);
	return r;
}

/* Untrusted multi-line text (output, feedback, next.prompt) as it is, each
 * line made safe (text_output) and indented. */
static void
put_lines(FILE *fp, const char *s, const char *indent)
{
	text_print_output(fp, s, indent, indent);
}

static void
put_entry(FILE *fp, const json_t *e, const char *policy)
{
	const json_t *code = json_object_get(e, "exit_code"), *sig = json_object_get(e, "signal");
	json_int_t total = json_integer_value(json_object_get(e, "output_bytes"));
	const char *tail = json_str(e, "output_tail");

	fputs("== ", fp);
	text_print(fp, json_str(e, "id"));
	fprintf(fp, " (%s): ", strcmp(json_str(e, "as"), "user") == 0 ? "you" : "root");
	entry_status_print(fp, e);
	if (json_is_integer(code))
		fprintf(fp, ", exit %lld", (long long)json_integer_value(code));
	if (json_is_integer(sig))
		fprintf(fp, ", signal %lld", (long long)json_integer_value(sig));
	if (json_is_integer(json_object_get(e, "duration_ms")) &&
	    strcmp(json_str(e, "status"), "skipped") != 0 && strcmp(json_str(e, "status"), "refused") != 0)
		fprintf(fp, ", %lld ms",
		    (long long)json_integer_value(json_object_get(e, "duration_ms")));
	fputc('\n', fp);
	if (*json_str(e, "error") != '\0') {
		fputs("   error: ", fp);
		text_print(fp, json_str(e, "error"));
		fputc('\n', fp);
	}
	confinement_print(fp, e, "   ");
	if (total > 0 && strcmp(policy, "none") == 0)
		fprintf(fp, "   (%lld bytes of output withheld: output_to_agent is none)\n",
		    (long long)total);
	else if (*tail != '\0') {
		if ((json_int_t)strlen(tail) < total)
			fprintf(fp, "   (the last %zu of %lld bytes of output)\n", strlen(tail),
			    (long long)total);
		put_lines(fp, tail, "   | ");
	}
}

/* The first line: what happened, in one sentence. */
static void
put_summary(FILE *fp, const char *id, const json_t *ledger)
{
	size_t i, ran = 0, failed = 0, skipped = 0, left_out = 0, n;
	const json_t *e, *first = NULL;
	const char *st;

	n = json_array_size(json_object_get(ledger, "entries"));
	json_array_foreach(json_object_get(ledger, "entries"), i, e) {
		st = json_str(e, "status");
		if (strcmp(st, "ran") == 0)
			ran++;
		else if (strcmp(st, "skipped") == 0)
			skipped++;
		else if (strcmp(st, "not_approved") == 0)
			left_out++;
		else {
			failed++;
			if (first == NULL)
				first = e;
		}
	}
	if (left_out > 0)
		fprintf(fp, "%s was approved in part: approved %zu of %zu commands; ", id,
		    n - left_out, n);
	else
		fprintf(fp, "%s was approved: ", id);
	fprintf(fp, "%zu of %zu command%s ran successfully", ran, n - left_out,
	    n - left_out == 1 ? "" : "s");
	if (first != NULL) {
		fputs("; ", fp);
		text_print(fp, json_str(first, "id"));
		fprintf(fp, " %s", json_str(first, "status"));
		if (json_is_integer(json_object_get(first, "exit_code")))
			fprintf(fp, " (exit %lld)",
			    (long long)json_integer_value(json_object_get(first, "exit_code")));
		if (failed > 1)
			fprintf(fp, ", %zu failed in all", failed);
	}
	if (skipped > 0)
		fprintf(fp, "; %zu skipped", skipped);
	if (left_out > 0)
		fprintf(fp, "; %zu not approved (not run)", left_out);
	fputs(".\n", fp);
	if (strcmp(json_str(ledger, "outcome"), "completed") != 0) {
		fputs("outcome: ", fp);
		text_print(fp, json_str(ledger, "outcome"));
		fputc('\n', fp);
	}
	if (*json_str(ledger, "diagnostic") != '\0') {
		fputs("diagnostic: ", fp);
		text_print(fp, json_str(ledger, "diagnostic"));
		fputc('\n', fp);
	}
}

static void
put_settled(FILE *fp, const char *id, const json_t *g, const json_t *ledger)
{
	const char *state = json_str(g, "state"), *policy = json_str(g, "output_to_agent");
	const json_t *e;
	size_t i;

	if (strcmp(state, "approved") == 0) {
		if (ledger == NULL) {
			fprintf(fp, "%s was approved, but its ledger cannot be read; "
			    "ask the user to run `warrant show %s`.\n", id, id);
			return;
		}
		put_summary(fp, id, ledger);
		json_array_foreach(json_object_get(ledger, "entries"), i, e)
			put_entry(fp, e, policy);
		if (*json_str(g, "next_prompt") != '\0') {
			fputs("next:\n", fp);
			put_lines(fp, json_str(g, "next_prompt"), "   ");
		}
	} else if (strcmp(state, "denied") == 0) {
		fprintf(fp, "%s was denied by the reviewer; nothing ran.\n", id);
		if (*json_str(g, "feedback") != '\0') {
			fputs("feedback:\n", fp);
			put_lines(fp, json_str(g, "feedback"), "   ");
		} else
			fputs("(no feedback given)\n", fp);
		fputs("Change course according to the feedback, or ask the user; "
		    "do not send the same request again.\n", fp);
	} else if (strcmp(state, "expired") == 0) {
		fprintf(fp, "%s expired: nobody answered within its review window "
		    "(%lld s); nothing ran.\nAsk the user whether they still want it; a "
		    "request sent again waits for `warrant answer` or `warrant review`.\n", id,
		    (long long)json_integer_value(json_object_get(g, "gate_timeout_seconds")));
	} else
		fprintf(fp, "%s is %s.\n", id, state);
}

/*
 * The result for a settled gate's outcome (gate_outcome, or the daemon's
 * reply to wait): approved is a success, denied and expired are errors.
 */
json_t *
result_settled(json_t *outcome, int with_structured)
{
	const char *id = json_str(outcome, "request_id"), *state = json_str(outcome, "state");
	json_t *ledger = json_object_get(outcome, "ledger"), *r;
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	if ((fp = open_memstream(&text, &len)) == NULL)
		return NULL;
	put_settled(fp, id, outcome, json_is_object(ledger) ? ledger : NULL);
	if (fclose(fp) != 0) {
		free(text);
		return NULL;
	}
	json_incref(outcome);
	r = result_text(text, strcmp(state, "approved") != 0, outcome, with_structured);
	free(text);
	return r;
}

/*
 * The result for a gate still pending when its call has waited its time:
 * not an error; the outcome as `warrant wait -j` prints it, and what to
 * do next. expires is the end of the review window, or 0 when not known.
 */
json_t *
result_pending(json_t *outcome, int64_t expires, long long answer_s, int with_structured)
{
	const char *id = json_str(outcome, "request_id");
	int64_t left = expires - now_seconds();
	char window[64] = "", *text;
	json_t *r;

	if (expires > 0 && left > 0)
		snprintf(window, sizeof window, "; the review window closes in %lld s",
		    (long long)left);
	if (asprintf(&text, "%s is pending: it has no outcome yet (the reviewer has not "
	    "answered%s, or its approved commands are still running). Call " MCP_WAIT_TOOL
	    " with request_id \"%s\" to wait for the outcome: it answers within %lld s, "
	    "pending again while there is none. Do not send the request again.", id, window,
	    id, answer_s) < 0)
		return NULL;
	r = result_text(text, 0, json_incref(outcome), with_structured);
	free(text);
	return r;
}
