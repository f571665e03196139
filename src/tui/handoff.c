/* SPDX-License-Identifier: ISC */
/*
 * Answering from the console. Enter approves the ticked commands: when any
 * is ROOT the console leaves curses so that sudo owns the terminal for its
 * own prompt, prints a banner naming the request and the command ids, runs
 * approve_run, prints the outcome and waits for Enter before coming back;
 * YOU-only approvals need no prompt and run without leaving the screen.
 * A detached run (the root runner goes on in the background) is waited
 * for a few seconds, so that a quick batch's ledger is printed there too.
 * d asks for an optional feedback note on one line, then denies.
 */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wctype.h>

#include "tui/tui.h"

#define SETTLE_WAIT_MS	3000	/* a detached run's ledger is waited for this long */
#define OUTPUT_LINES	3	/* of each command's output, printed */
#define OUTPUT_LINE_MAX	160	/* bytes of one such line */

struct outcome_text {
	const char	*key;
	enum style	 style;
	int		 detail;	/* approve_run's message adds to it */
	const char	*text;
};

static const struct outcome_text outcomes[] = {
	{ "started", ST_GOOD, 0, "execution started: authenticated, the commands run in the "
	    "background and the gate settles when they finish" },
	{ "completed", ST_GOOD, 0, "completed: every ticked command ran" },
	{ "command_failed", ST_BAD, 0, "a ticked command failed: the gate settled as approved, "
	    "see the ledger" },
	{ "authentication_failed", ST_BAD, 0, "authentication failed: nothing ran, the gate is "
	    "still pending" },
	{ "cancellation", ST_BAD, 0, "authentication cancelled: nothing ran, the gate is still "
	    "pending" },
	{ "lock_contention", ST_BAD, 1, "another approval holds the lease: the gate is still "
	    "pending" },
	{ "missing_tty", ST_BAD, 1, "no terminal for sudo's prompt: the gate is still pending" },
	{ "execution_in_progress", ST_BAD, 1, "this request is already being executed" },
	{ "gate_changed", ST_BAD, 1, "the gate changed since it was shown: nothing ran" },
	{ "traced", ST_BAD, 1, "the console is being traced: nothing ran" },
	{ "not_pending", ST_BAD, 1, "the gate is no longer pending" },
	{ "runner_error", ST_BAD, 1, "runner error" },
	{ NULL, ST_BAD, 1, NULL }
};

/* The outcome of an approve_run result, as one line for the reviewer. */
static void
outcome_of(const json_t *r, char *buf, size_t size, enum style *style)
{
	const char *outcome = json_str(r, "outcome"), *msg = json_str(r, "message");
	const struct outcome_text *o;

	for (o = outcomes; o->key != NULL; o++)
		if (strcmp(o->key, outcome) == 0)
			break;
	*style = o->style;
	if (o->key != NULL && !o->detail)
		snprintf(buf, size, "%s", o->text);
	else if (o->key != NULL)
		snprintf(buf, size, "%s%s%s", o->text, *msg ? ": " : "", msg);
	else if (*json_str(r, "status") != '\0')
		snprintf(buf, size, "%s%s%s", json_str(r, "status"), *msg ? ": " : "", msg);
	else
		snprintf(buf, size, "the approval could not be carried out");
}

/* The ticked command ids, borrowed from the gate; *root set when one is
 * ROOT. */
static const char **
ticked_ids(struct tui *t, size_t *n, int *root)
{
	json_t *cmds = json_object_get(t->gate, "commands"), *c;
	const char **ids = xcalloc(t->ncmds + 1, sizeof *ids);
	size_t i;

	*n = 0;
	*root = 0;
	json_array_foreach(cmds, i, c) {
		if (i >= t->ncmds || !t->ticked[i])
			continue;
		ids[(*n)++] = json_str(c, "id");
		if (gate_cmd_root(c))
			*root = 1;
	}
	return ids;
}

/* An interrupt only ends the wait: read(2) returns EINTR. */
static void
on_int(int sig)
{
	(void)sig;
}

/* Wait for a line on the terminal (an interrupt counts as one). */
static void
wait_enter(void)
{
	struct sigaction sa, old;
	char c;
	ssize_t r;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_int;
	sigaction(SIGINT, &sa, &old);
	while ((r = read(STDIN_FILENO, &c, 1)) == 1 && c != '\n' && c != '\r')
		;
	if (r < 0 && errno != EINTR)
		warnx("cannot read the terminal: %s", strerror(errno));
	sigaction(SIGINT, &old, NULL);
}

static void
print_visible(const char *s)
{
	text_print(stdout, s);
}

/* The first lines of a command's output, each cut and neutralised; the
 * review's details (v) show it all. */
static void
print_output(const char *out)
{
	const char *nl;
	size_t len, cut, n;
	char *line;

	for (n = 0; *out != '\0'; n++, out = nl + 1) {
		if (n == OUTPUT_LINES) {
			printf("    | ... (v in the review shows all of it)\n");
			return;
		}
		nl = strchr(out, '\n');
		len = nl != NULL ? (size_t)(nl - out) : strlen(out);
		cut = len;
		if (cut > OUTPUT_LINE_MAX)	/* at a character's start */
			for (cut = OUTPUT_LINE_MAX; cut > 0 && (out[cut] & 0xc0) == 0x80; cut--)
				;
		if ((line = strndup(out, cut)) == NULL)
			return;
		fputs("    | ", stdout);
		print_visible(line);
		fputs(cut < len ? " ...\n" : "\n", stdout);
		free(line);
		if (nl == NULL)
			return;
	}
}

static void
print_result(const json_t *r, const char *line)
{
	json_t *e, *code;
	size_t i;

	printf("\nwarrant: ");
	print_visible(line);
	putchar('\n');
	json_array_foreach(json_object_get(json_object_get(r, "ledger"), "entries"), i, e) {
		fputs("  ", stdout);
		print_visible(json_str(e, "status"));
		fputs(" ", stdout);
		print_visible(json_str(e, "id"));
		fputs(" (as ", stdout);
		print_visible(json_str(e, "as"));
		fputs(")", stdout);
		code = json_object_get(e, "exit_code");
		if (json_is_integer(code))
			printf(", exit %lld", (long long)json_integer_value(code));
		if (*json_str(e, "error") != '\0') {
			fputs(", ", stdout);
			print_visible(json_str(e, "error"));
		}
		putchar('\n');
		confinement_print(stdout, e, "    ");
		print_output(json_str(e, "output_tail"));
	}
}

/* How long a detached run is waited for (the e2e build's tests give a
 * loaded machine longer). */
static int64_t
settle_wait_ms(void)
{
#if WARRANT_TEST_HOOKS
	if (getenv("WARRANT_TEST_SETTLE_WAIT_MS") != NULL)
		return strtoll(getenv("WARRANT_TEST_SETTLE_WAIT_MS"), NULL, 10);
#endif
	return SETTLE_WAIT_MS;
}

/*
 * After a detached start: wait, at most settle_wait_ms, for the finalizer
 * to settle the gate, woken by the store's watch at each commit rather
 * than looking at intervals. The answer's result as a settled run's would
 * be, with the ledger; NULL when the batch still runs at the bound.
 */
static json_t *
settled_result(struct tui *t)
{
	int64_t end = tui_now_ms() + settle_wait_ms(), left;
	json_t *g, *l = NULL;
	const char *outcome;

	for (;;) {
		if ((g = store_gate(t->st, t->gate_id, 0)) != NULL &&
		    strcmp(json_str(g, "state"), "approved") == 0)
			l = gate_ledger(t->st, t->gate_id);
		json_decref(g);
		if (l != NULL)
			break;
		if ((left = end - tui_now_ms()) <= 0)
			return NULL;
		(void)store_watch_wait(t->watch, left < POLL_MS ? (int)left : POLL_MS);
	}
	outcome = json_str(l, "outcome");
	return json_pack("{s:s,s:s,s:s,s:s,s:o}", "request_id", t->gate_id, "status",
	    "approved", "outcome", strcmp(outcome, "completed") != 0 ? outcome :
	    ledger_all_ran(l) ? "completed" : "command_failed", "message",
	    json_str(l, "diagnostic"), "ledger", l);
}

/* Leave curses, hand the terminal to sudo through approve_run, come back. */
static json_t *
run_outside(struct tui *t, const char **ids, size_t n, int *code)
{
	/* the approval binds to the seal this console showed */
	const struct approve_opts opts = { .detach = -1,
	    .expect = json_str(t->gate, "manifest_sha256") };
	char line[1024];
	const char *clear;
	enum style s;
	json_t *r;
	size_t i;

	def_prog_mode();
	endwin();
	if ((clear = tigetstr("clear")) != NULL && clear != (char *)-1)
		putp(clear);
	printf("warrant: approving %s; running ", t->gate_id);
	for (i = 0; i < n; i++) {
		printf("%s", i ? ", " : "");
		print_visible(ids[i]);
	}
	printf("\nmanifest %s\n", json_str(t->gate, "manifest_sha256"));
	printf("any password prompt below is sudo's own; warrant never reads it\n\n");
	fflush(stdout);
	r = approve_run(t->st, t->gate_id, ids, n, &opts, code);
	if (r != NULL && strcmp(json_str(r, "outcome"), "started") == 0) {
		json_t *settled;

		printf("\nwarrant: authenticated; waiting for the commands, which run in the "
		    "background\n");
		fflush(stdout);
		if ((settled = settled_result(t)) != NULL) {
			json_decref(r);
			r = settled;
		}
	}
	if (r != NULL) {
		outcome_of(r, line, sizeof line, &s);
		print_result(r, line);
	}
	if (r != NULL && strcmp(json_str(r, "outcome"), "started") == 0)
		printf("  still running after %lld seconds; once it settles, its ledger is in the "
		    "review\n  (v for all the output) and in `warrant show %s`\n",
		    (long long)(settle_wait_ms() / 1000), t->gate_id);
	printf("\nPress Enter to return to the review console. ");
	fflush(stdout);
	tcflush(STDIN_FILENO, TCIFLUSH);	/* keys typed while it ran */
	wait_enter();
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
	tui_forget_interrupt();
	return r;
}

/* Approve the ticked commands; with grant_seconds > 0, grant them too. */
static void
approve_ticked(struct tui *t, long long grant_seconds)
{
	const struct approve_opts opts = { .detach = -1,
	    .expect = json_str(t->gate, "manifest_sha256"), .grant_seconds = grant_seconds };
	const char **ids;
	size_t n;
	int root, code = EXIT_INTERNAL;
	json_t *r;

	if (strcmp(json_str(t->gate, "state"), "pending") != 0) {
		tui_status(t, ST_BAD, "%s is %s: nothing to approve", t->gate_id,
		    json_str(t->gate, "state"));
		return;
	}
	ids = ticked_ids(t, &n, &root);
	if (n == 0) {
		free(ids);
		tui_status(t, ST_BAD, "nothing is ticked: Space ticks a command, d denies");
		return;
	}
	if (root)
		r = run_outside(t, ids, n, &code);
	else {
		tui_status(t, ST_NORMAL, "running %zu command%s as %s...", n, n == 1 ? "" : "s",
		    t->user);
		t->redraw(t);
		r = approve_run(t->st, t->gate_id, ids, n, &opts, &code);
		clearok(curscr, TRUE);
	}
	free(ids);
	if (r != NULL)
		outcome_of(r, t->outcome, sizeof t->outcome, &t->outcome_style);
	else
		snprintf(t->outcome, sizeof t->outcome, "the approval could not be carried out");
	if (r != NULL && json_is_array(json_object_get(r, "grants")))
		snprintf(t->outcome + strlen(t->outcome), sizeof t->outcome - strlen(t->outcome),
		    "; granted %zu command%s", json_array_size(json_object_get(r, "grants")),
		    json_array_size(json_object_get(r, "grants")) == 1 ? "" : "s");
	json_decref(r);
	gate_reload(t);
	tui_status(t, t->outcome_style, "%s", t->outcome);
	t->top = 0;
}

void
handoff_approve(struct tui *t)
{
	approve_ticked(t, 0);
}

/*
 * Is every ticked command one that may be granted? Judged as `answer
 * --grant` judges (grant_judge); the first that may not be is said with
 * answer's code and sentence. 1, or 0 (said).
 */
static int
ticked_grantable(struct tui *t)
{
	struct refusal r;
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(t->gate, "commands"), i, c)
		if (i < t->ncmds && t->ticked[i] && grant_judge(t->gate, i, &r) != 0) {
			tui_status(t, ST_BAD, "%s: %s", r.code, r.message);
			return 0;
		}
	return 1;
}

/*
 * a ("allow again"): type how long the ticked commands may run again
 * without review, then approve them as Enter would and grant them
 * (answer --grant). The key is not g, which is "top" (docs/review.md).
 * Refused at once, with the reason, when a ticked command may not be
 * granted.
 */
void
grant_begin(struct tui *t)
{
	const char **ids;
	size_t n;
	int root;

	if (strcmp(json_str(t->gate, "state"), "pending") != 0) {
		tui_status(t, ST_BAD, "%s is %s: nothing to approve", t->gate_id,
		    json_str(t->gate, "state"));
		return;
	}
	ids = ticked_ids(t, &n, &root);
	free(ids);
	if (n == 0 || root) {
		tui_status(t, ST_BAD, n == 0 ? "nothing is ticked: Space ticks a command" :
		    "a ticked command runs as root: each ROOT run authenticates with sudo, "
		    "so only YOU commands are granted (Space unticks)");
		return;
	}
	if (!ticked_grantable(t))
		return;
	t->mode = MODE_GRANT;
	t->fblen = 0;
	t->fb[0] = L'\0';
	*t->status = '\0';
}

static void
grant_now(struct tui *t)
{
	char text[16];
	long long seconds = 0;
	size_t i;

	for (i = 0; i < t->fblen && i + 1 < sizeof text && t->fb[i] < 0x80; i++)
		text[i] = (char)t->fb[i];
	text[i] = '\0';
	if (i == t->fblen)
		seconds = grant_duration_parse(text);
	if (seconds <= 0) {
		tui_status(t, ST_BAD, "%s: a duration such as 90s, 10m or 1h, at most 24h",
		    seconds < 0 ? "too long" : "not a duration");
		return;
	}
	t->mode = MODE_NORMAL;
	approve_ticked(t, seconds);
}

void
deny_begin(struct tui *t)
{
	if (strcmp(json_str(t->gate, "state"), "pending") != 0) {
		tui_status(t, ST_BAD, "%s is %s: nothing to deny", t->gate_id,
		    json_str(t->gate, "state"));
		return;
	}
	t->mode = MODE_DENY;
	t->fblen = 0;
	t->fb[0] = L'\0';
	*t->status = '\0';
}

/* The bytes of c in the note (the locale's encoding: UTF-8, or ASCII). */
static size_t
char_bytes(wchar_t c)
{
	char buf[MB_LEN_MAX];
	mbstate_t ps;
	size_t k;

	memset(&ps, 0, sizeof ps);
	k = wcrtomb(buf, c, &ps);
	return k == (size_t)-1 ? 0 : k;
}

/* The note's length in bytes, as feedback_utf8 will make it. */
static size_t
note_bytes(const struct tui *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->fblen; i++)
		n += char_bytes(t->fb[i]);
	return n;
}

/* The note as UTF-8 (ASCII only outside UTF-8 locales); NULL when empty. */
static char *
feedback_utf8(const struct tui *t)
{
	char *out = xcalloc(t->fblen * MB_LEN_MAX + 1, 1), *p = out;
	mbstate_t ps;
	size_t i, k;

	memset(&ps, 0, sizeof ps);
	for (i = 0; i < t->fblen; i++) {
		if ((k = wcrtomb(p, t->fb[i], &ps)) == (size_t)-1)
			continue;
		p += k;
	}
	*p = '\0';
	if (*out == '\0') {
		free(out);
		return NULL;
	}
	return out;
}

static void
deny_now(struct tui *t)
{
	char *fb = feedback_utf8(t);
	int rc;

	t->mode = MODE_NORMAL;
	rc = gate_deny(t->st, t->gate_id, fb);
	if (rc == 0) {
		snprintf(t->outcome, sizeof t->outcome, "denied%s", fb ? "; the agent gets your note" :
		    " without a note");
		t->outcome_style = ST_BAD;
	}
	free(fb);
	gate_reload(t);
	if (rc == 0)
		tui_status(t, ST_BAD, "%s denied", t->gate_id);
	else
		tui_status(t, ST_BAD, rc > 0 ? "%s is no longer pending" : "cannot deny %s",
		    t->gate_id);
	t->top = 0;
}

static int
acceptable(wint_t k)
{
	if (k > 0x7e && !tui_utf8)
		return 0;
	return k >= 0x20 && k != 0x7f && iswprint(k) && wcwidth((wchar_t)k) > 0;
}

void
deny_key(struct tui *t, int type, wint_t k)
{
	if (type == KEY_CODE_YES) {
		if (k == KEY_BACKSPACE && t->fblen > 0) {
			t->fb[--t->fblen] = L'\0';
			*t->status = '\0';
		} else if (k == KEY_ENTER)
			t->mode == MODE_GRANT ? grant_now(t) : deny_now(t);
		return;
	}
	switch (k) {
	case 27:
		tui_status(t, ST_NORMAL, "not %s: %s is still pending",
		    t->mode == MODE_GRANT ? "approved" : "denied", t->gate_id);
		t->mode = MODE_NORMAL;
		return;
	case L'\n': case L'\r':
		t->mode == MODE_GRANT ? grant_now(t) : deny_now(t);
		return;
	case 0x7f: case 8:
		if (t->fblen > 0)
			t->fb[--t->fblen] = L'\0';
		*t->status = '\0';
		return;
	case 21:	/* ^U */
		t->fblen = 0;
		t->fb[0] = L'\0';
		*t->status = '\0';
		return;
	default:
		break;
	}
	if (!acceptable(k)) {
		beep();
		return;
	}
	if (t->fblen >= FEEDBACK_MAX || note_bytes(t) + char_bytes((wchar_t)k) > FEEDBACK_MAX) {
		beep();
		tui_status(t, ST_BAD, "%s", FEEDBACK_RULE);
		return;
	}
	t->fb[t->fblen++] = (wchar_t)k;
	t->fb[t->fblen] = L'\0';
}

/* The two bottom lines while the note (or a grant's duration) is typed;
 * the end stays in view. */
void
deny_draw(struct tui *t)
{
	const wchar_t *w = t->fb;
	int room = COLS - 4;

	tui_fill(LINES - 2, 0, COLS, ST_BAR);
	if (*t->status != '\0')	/* the note is full */
		tui_cut(LINES - 2, 1, COLS - 2, t->status_style, t->status);
	else
		tui_cut(LINES - 2, 1, COLS - 2, ST_BAR, t->mode == MODE_GRANT ?
		    "Grant: run the ticked commands, and again without review for (10m, 1h, "
		    "24h at most). Enter approves, Esc cancels" :
		    "Deny: a note for the agent (optional). Enter denies, Esc cancels");
	move(LINES - 1, 0);
	clrtoeol();
	tui_puts(LINES - 1, 0, 2, ST_BOLD, "> ");
	while (tui_wwidth(w) > room)
		w++;
	tui_putw(LINES - 1, 2, room, ST_NORMAL, w, 0);
	curs_set(1);
	move(LINES - 1, 2 + tui_wwidth(w));
}
