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

/* Append safe wide text, wrapping onto continuation lines as needed. */
static void
doc_addw(struct tdoc *d, enum style s, const wchar_t *w)
{
	struct tline *l = cur(d);
	size_t start = 0, i;
	int startcol = d->col, c;

	for (i = 0; w[i] != L'\0'; i++) {
		c = wcwidth(w[i]);
		if (c < 0)
			c = 1;
		if (c > 0 && d->col + c > width(d, l) && d->col > d->indent) {
			if (i > start)
				seg_push(l, w + start, i - start, startcol, s);
			doc_line(d, l->card, l->card >= 0 ? LINE_MID : LINE_PLAIN, d->indent);
			l = cur(d);
			d->col = d->indent;
			start = i;
			startcol = d->col;
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
