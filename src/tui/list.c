/* SPDX-License-Identifier: ISC */
/*
 * The gate list: pending gates first, the first to expire first, two
 * lines each (id, ROOT/YOU counts, age, expiry countdown, requester and
 * project; then the risk badges and the reason). Settled gates on the 'a'
 * toggle. Every gate is in it, however many: the loop in tui.c has
 * list_load read all their ids (cheap), and only the gates on screen are
 * read whole.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui.h"

#define ROWS_PER_GATE	2

static size_t
visible_gates(void)
{
	int h = tui_body_height() / ROWS_PER_GATE;

	return h > 0 ? (size_t)h : 1;
}

static void
keep_sel_visible(struct tui *t)
{
	size_t v = visible_gates();

	if (t->sel < t->list_top)
		t->list_top = t->sel;
	else if (t->sel >= t->list_top + v)
		t->list_top = t->sel - v + 1;
}

static void
remember_sel(struct tui *t)
{
	snprintf(t->sel_id, sizeof t->sel_id, "%s", t->sel < t->nrows ? t->rows[t->sel].id : "");
}

static void
add_row(const char *id, int pending, void *arg)
{
	struct tui *t = arg;

	if (t->nrows == t->rows_cap) {
		t->rows_cap = t->rows_cap ? 2 * t->rows_cap : 256;
		t->rows = realloc(t->rows, t->rows_cap * sizeof *t->rows);
		if (t->rows == NULL)
			err(EXIT_INTERNAL, "review: out of memory");
	}
	snprintf(t->rows[t->nrows].id, sizeof t->rows[t->nrows].id, "%s", id);
	t->rows[t->nrows++].pending = pending;
	t->npending += pending != 0;
}

/* Read the list from the store when it changed since the last read; the
 * selection stays on the same gate. 0, or -1 (the last list stays). */
int
list_load(struct tui *t)
{
	struct list_row *old = t->rows;
	size_t oldn = t->nrows, oldcap = t->rows_cap, oldp = t->npending, i;
	int64_t v[2] = { -1, -1 };

	if (store_version(t->st, v) == 0 && v[0] == t->version[0] && v[1] == t->version[1])
		return 0;
	t->rows = NULL;
	t->nrows = t->rows_cap = t->npending = 0;
	if (store_review_ids(t->st, t->all, t->project, add_row, t) != 0) {
		free(t->rows);
		t->rows = old;
		t->nrows = oldn;
		t->rows_cap = oldcap;
		t->npending = oldp;
		return -1;
	}
	free(old);
	t->version[0] = v[0];
	t->version[1] = v[1];
	for (i = 0; i < t->nrows; i++)
		if (strcmp(t->rows[i].id, t->sel_id) == 0) {
			t->sel = i;
			break;
		}
	if (t->sel >= t->nrows)
		t->sel = t->nrows ? t->nrows - 1 : 0;
	remember_sel(t);
	keep_sel_visible(t);
	json_decref(t->page);
	t->page = NULL;
	return 0;
}

void
list_free(struct tui *t)
{
	free(t->rows);
	t->rows = NULL;
	t->nrows = t->rows_cap = t->npending = 0;
	json_decref(t->page);
	t->page = NULL;
}

/* The gates on screen, read whole after the list or the scroll changed. */
static const json_t *
page(struct tui *t)
{
	size_t want = t->nrows - t->list_top < visible_gates() ? t->nrows - t->list_top :
	    visible_gates();

	if (t->page != NULL && t->page_top == t->list_top && json_array_size(t->page) >= want)
		return t->page;
	json_decref(t->page);
	t->page_top = t->list_top;
	if ((t->page = store_review_page(t->st, t->all, t->project, (long)t->list_top,
	    (long)visible_gates())) == NULL)
		tui_status(t, ST_BAD, "cannot read the store in %s", t->st->dir);
	return t->page;
}

static void
gate_rows(int y, const json_t *g, int selected)
{
	int64_t now = now_seconds(), created, at;
	int x, pend = strcmp(json_str(g, "state"), "pending") == 0;
	long long nroot = json_integer_value(json_object_get(g, "root_count"));
	long long nyou = json_integer_value(json_object_get(g, "user_count"));
	char buf[64], d[32], who[128];
	json_t *b;
	size_t i;

	if (selected)
		tui_puts(y, 0, 1, ST_FOCUS, ">");
	x = 2 + tui_puts(y, 2, 12, selected ? ST_SELECT : ST_BOLD, json_str(g, "request_id"));
	x += 2;
	if (nroot > 0) {
		snprintf(buf, sizeof buf, " ROOT %lld ", nroot);
		tui_puts(y, x, 10, ST_ROOT_BADGE, buf);
	}
	x += 9;
	if (nyou > 0) {
		snprintf(buf, sizeof buf, " YOU %lld ", nyou);
		tui_puts(y, x, 9, ST_YOU_BADGE, buf);
	}
	x += 9;
	created = json_integer_value(json_object_get(g, "created_at"));
	tui_duration(now - created, d, sizeof d);
	snprintf(buf, sizeof buf, "%s ago", d);
	x += tui_puts(y, x, COLS - 1 - x, ST_DIM, buf) + 2;
	if (pend) {
		at = json_integer_value(json_object_get(g, "expires_at"));
		tui_duration(at - now, d, sizeof d);
		snprintf(buf, sizeof buf, "%s left", d);
		x += tui_puts(y, x, COLS - 1 - x, at - now < 60 ? ST_BAD : ST_NORMAL, buf) + 2;
	} else
		x += tui_puts(y, x, COLS - 1 - x, strcmp(json_str(g, "state"), "approved") == 0 ?
		    ST_GOOD : ST_BAD, tui_state_word(g)) + 2;
	requester_label(g, who, sizeof who);
	if (x < COLS - 1)
		x += tui_cut(y, x, COLS - 1 - x < 28 ? COLS - 1 - x : 28, ST_NORMAL, who);
	if (*json_str(g, "project") != '\0' && x + 4 < COLS - 1) {
		x += tui_puts(y, x, 3, ST_DIM, " / ");
		tui_cut(y, x, COLS - 1 - x, ST_BOLD, json_str(g, "project"));
	}
	x = 4;
	json_array_foreach(json_object_get(g, "risk_badges"), i, b) {
		if (x >= COLS / 2)
			break;
		x += tui_puts(y + 1, x, COLS / 2 - x, ST_RISK, "[");
		x += tui_cut(y + 1, x, COLS / 2 - x, ST_RISK, json_string_value(b));
		x += tui_puts(y + 1, x, COLS / 2 - x, ST_RISK, "] ");
	}
	tui_cut(y + 1, x, COLS - 1 - x, ST_NORMAL, json_str(g, "reason"));
}

void
list_draw(struct tui *t)
{
	size_t v = visible_gates(), i, n = t->nrows;
	const json_t *shown = page(t), *g;
	char head[128];

	tui_fill(0, 0, COLS, ST_BAR);
	snprintf(head, sizeof head, "warrant review  %zu pending%s", t->npending,
	    t->all ? ", settled shown" : "");
	tui_puts(0, 1, COLS - 2, ST_BAR, head);
	if (t->project != NULL) {
		int x = 3 + (int)strlen(head);

		x += tui_puts(0, x, COLS - 1 - x, ST_BAR, "project ");
		tui_cut(0, x, COLS - 1 - x, ST_BAR, t->project);
	}
	if (n == 0)
		tui_puts(2, 2, COLS - 3, ST_DIM, t->all ? "No gates yet. Waiting for requests..." :
		    "No pending gates. Waiting for requests... (a: show settled)");
	for (i = t->list_top; i < n && i < t->list_top + v; i++)
		if ((g = json_array_get(shown, i - t->list_top)) != NULL)
			gate_rows(1 + (int)(i - t->list_top) * ROWS_PER_GATE, g, i == t->sel);
	tui_cut(LINES - 2, 0, COLS, ST_DIM,
	    " j/k move  Enter review  a settled  ^D/^U g/G scroll  q quit");
}

static void
move_to(struct tui *t, size_t i)
{
	size_t n = t->nrows;

	if (n == 0)
		return;
	t->sel = i >= n ? n - 1 : i;
	remember_sel(t);
	keep_sel_visible(t);
}

static void
open_sel(struct tui *t)
{
	if (t->sel < t->nrows)
		gate_open(t, t->rows[t->sel].id);
}

void
list_key(struct tui *t, int type, wint_t k)
{
	size_t half = visible_gates() / 2 ? visible_gates() / 2 : 1;

	if (type == KEY_CODE_YES) {
		switch (k) {
		case KEY_DOWN: move_to(t, t->sel + 1); break;
		case KEY_UP: move_to(t, t->sel ? t->sel - 1 : 0); break;
		case KEY_NPAGE: move_to(t, t->sel + half); break;
		case KEY_PPAGE: move_to(t, t->sel > half ? t->sel - half : 0); break;
		case KEY_HOME: move_to(t, 0); break;
		case KEY_END: move_to(t, t->nrows); break;
		case KEY_ENTER: case KEY_RIGHT: open_sel(t); break;
		default: break;
		}
		return;
	}
	switch (k) {
	case L'j': move_to(t, t->sel + 1); break;
	case L'k': move_to(t, t->sel ? t->sel - 1 : 0); break;
	case 4: move_to(t, t->sel + half); break;
	case 21: move_to(t, t->sel > half ? t->sel - half : 0); break;
	case L'g': move_to(t, 0); break;
	case L'G': move_to(t, t->nrows); break;
	case L'\n': case L'\r': case L'l': open_sel(t); break;
	case L'a':
		t->all = !t->all;
		t->version[0] = -1;	/* another list */
		t->last_poll = 0;	/* read before the next draw (the loop's tui_poll) */
		tui_status(t, ST_NORMAL, t->all ? "showing settled gates too" :
		    "showing pending gates only");
		break;
	case L'q': case 27: t->quit = 1; break;
	default: break;
	}
}
