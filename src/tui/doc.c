/* SPDX-License-Identifier: ISC */
/*
 * A document for the review view: text laid out in lines of a fixed width,
 * wrapped (never cut) with a hanging indent, each line plain or part of a
 * command's card. Every piece of text goes through tui_wide first.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui.h"

void
doc_free(struct tdoc *d)
{
	size_t i, j;

	for (i = 0; i < d->n; i++) {
		for (j = 0; j < d->l[i].nsegs; j++)
			free(d->l[i].segs[j].w);
		free(d->l[i].segs);
	}
	free(d->l);
	d->l = NULL;
	d->n = d->cap = 0;
}

void
doc_reset(struct tdoc *d, int plain_width, int card_width)
{
	doc_free(d);
	d->plain_width = plain_width < 8 ? 8 : plain_width;
	d->card_width = card_width < 8 ? 8 : card_width;
	d->col = d->indent = 0;
}

static struct tline *
cur(struct tdoc *d)
{
	if (d->n == 0)
		doc_line(d, -1, LINE_PLAIN, 0);
	return &d->l[d->n - 1];
}

static int
width(const struct tdoc *d, const struct tline *l)
{
	return l->card >= 0 ? d->card_width : d->plain_width;
}

/* Start a new line; continuation lines of wrapped text start at indent. */
void
doc_line(struct tdoc *d, int card, enum line_kind kind, int indent)
{
	struct tline *l;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		struct tline *nl = xcalloc(cap, sizeof *nl);

		if (d->l != NULL)
			memcpy(nl, d->l, d->n * sizeof *nl);
		free(d->l);
		d->l = nl;
		d->cap = cap;
	}
	l = &d->l[d->n++];
	memset(l, 0, sizeof *l);
	l->kind = kind;
	l->card = card;
	d->col = 0;
	d->indent = indent;
}

void
doc_blank(struct tdoc *d, int card)
{
	doc_line(d, card, card >= 0 ? LINE_MID : LINE_PLAIN, 0);
}

static void
seg_push(struct tline *l, const wchar_t *w, size_t n, int col, enum style s)
{
	struct tseg *ns = xcalloc(l->nsegs + 1, sizeof *ns);

	if (l->segs != NULL)
		memcpy(ns, l->segs, l->nsegs * sizeof *ns);
	free(l->segs);
	l->segs = ns;
	ns = &l->segs[l->nsegs++];
	ns->w = xcalloc(n + 1, sizeof *ns->w);
	memcpy(ns->w, w, n * sizeof *w);
	ns->col = col;
	ns->style = s;
}

/*
 * Where to wrap before w[i]: at i, or earlier so that a visible escape
 * (<U+XXXX>, \xNN) that started in [start, i) moves to the next line whole.
 */
static size_t
break_at(const wchar_t *w, size_t start, size_t i)
{
	size_t k;

	for (k = i; k > start && i - k < 9; k--) {
		if (w[k - 1] == L'>')
			break;
		if (w[k - 1] == L'<' && w[k] == L'U' && w[k + 1] == L'+')
			return k - 1;
	}
	for (k = i; k > start && i - k < 4; k--)
		if (w[k - 1] == L'\\' && w[k] == L'x')
			return k - 1;
	return i;
}

/* Append safe wide text (made by tui_wide), wrapping onto continuation
 * lines as needed. */
void
doc_addw(struct tdoc *d, enum style s, const wchar_t *w)
{
	struct tline *l = cur(d);
	size_t start = 0, i, b;
	int startcol = d->col, c;

	for (i = 0; w[i] != L'\0'; i++) {
		c = wcwidth(w[i]);
		if (c < 0)
			c = 1;
		if (c > 0 && d->col + c > width(d, l) && d->col > d->indent) {
			b = break_at(w, start, i);
			if (b == start && startcol <= d->indent)
				b = i;		/* the escape alone is wider than a line */
			if (b > start)
				seg_push(l, w + start, b - start, startcol, s);
			doc_line(d, l->card, l->card >= 0 ? LINE_MID : LINE_PLAIN, d->indent);
			l = cur(d);
			d->col = d->indent;
			for (start = b; b < i; b++)
				d->col += wcwidth(w[b]) < 0 ? 1 : wcwidth(w[b]);
			startcol = d->indent;
		}
		d->col += c;
	}
	if (i > start)
		seg_push(l, w + start, i - start, startcol, s);
}

/* Append text (agent text or ours) in style s. */
void
doc_add(struct tdoc *d, enum style s, const char *text)
{
	wchar_t *w = tui_wide(text);

	doc_addw(d, s, w);
	free(w);
}

void
doc_addf(struct tdoc *d, enum style s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	doc_add(d, s, buf);
}

/* Move to column col of the line (at least one space on from the text). */
void
doc_tab(struct tdoc *d, int col)
{
	struct tline *l = cur(d);

	if (d->col >= col)
		col = d->col + 1;
	if (col >= width(d, l)) {
		doc_line(d, l->card, l->card >= 0 ? LINE_MID : LINE_PLAIN, d->indent);
		d->col = d->indent;
		return;
	}
	d->col = col;
}
