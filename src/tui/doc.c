/* SPDX-License-Identifier: ISC */
/*
 * A document for the review view: text laid out in lines of a fixed width,
 * each line plain or part of a command's card. What is added after a
 * doc_line is one paragraph, laid out when the next line starts (or at
 * doc_end): prose wraps at spaces, a word (an argv element, a badge) only
 * before it, onto continuation lines at the paragraph's hanging indent.
 * Only a word longer than a whole line is cut, and then the lines that go
 * on with it are marked in the gutter (↪, or \ without UTF-8), so a cut
 * is never mistaken for a new word or an option. A visible escape
 * (<U+XXXX>, \xNN) is never split. Every piece of text goes through
 * tui_wide first.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui.h"

#define TAB	L'\0'		/* a cell that moves to a column */

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
	free(d->p);
	d->l = NULL;
	d->p = NULL;
	d->n = d->cap = d->pn = d->pcap = 0;
}

void
doc_reset(struct tdoc *d, int plain_width, int card_width)
{
	doc_free(d);
	d->plain_width = plain_width < 8 ? 8 : plain_width;
	d->card_width = card_width < 8 ? 8 : card_width;
	d->indent = 0;
}

static int
width(const struct tdoc *d, const struct tline *l)
{
	return l->card >= 0 ? d->card_width : d->plain_width;
}

static int
cw(wchar_t c)
{
	int w;

	if (c == TAB)
		return 0;
	w = wcwidth(c);
	return w < 0 ? 1 : w;
}

/* A new physical line (no layout). */
static struct tline *
new_line(struct tdoc *d, int card, enum line_kind kind)
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
	return l;
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

/* Cells [from, to) onto line l: one segment per run of one style. */
static void
emit(struct tline *l, const struct tcell *p, size_t from, size_t to)
{
	wchar_t *buf = xcalloc(to - from + 1, sizeof *buf);
	size_t k, i, n = 0;

	for (i = from; i < to; i = k) {
		if (p[i].c == TAB) {
			k = i + 1;
			continue;
		}
		n = 0;
		for (k = i; k < to && p[k].c != TAB && p[k].style == p[i].style &&
		    (k == i || p[k].x == p[k - 1].x + cw(p[k - 1].c)); k++)
			buf[n++] = p[k].c;
		seg_push(l, buf, n, p[i].x, (enum style)p[i].style);
	}
	free(buf);
}

/* Is there a break opportunity just before cell i (i > 0)? */
static int
opportunity(const struct tcell *p, size_t i)
{
	return !p[i].nobreak && p[i].c != L' ' && p[i].c != TAB &&
	    (p[i - 1].c == L' ' || p[i - 1].c == TAB);
}

/* The width of the word that starts at cell i: up to a space between
 * words, a tab stop or the next break opportunity. */
static int
word_width(const struct tcell *p, size_t n, size_t i)
{
	int w = cw(p[i].c);

	for (i++; i < n && p[i].c != TAB && !(p[i].c == L' ' && !p[i].nobreak) &&
	    !opportunity(p, i); i++)
		w += cw(p[i].c);
	return w;
}

/*
 * Where to cut before cell i: at i, or earlier so that a visible escape
 * (<U+XXXX>, \xNN) that started in [start, i) moves to the next line whole.
 */
static size_t
cut_at(const struct tcell *p, size_t n, size_t start, size_t i)
{
	size_t k;

	for (k = i; k > start && i - k < 9; k--) {
		if (p[k - 1].c == L'>')
			break;
		if (p[k - 1].c == L'<' && k + 1 < n && p[k].c == L'U' && p[k + 1].c == L'+')
			return k - 1;
	}
	for (k = i; k > start && i - k < 4; k--)
		if (p[k - 1].c == L'\\' && p[k].c == L'x')
			return k - 1;
	return i;
}

/* Lay the paragraph out, from the last line on. */
static void
flush(struct tdoc *d)
{
	static const wchar_t mark_utf8[] = L"\x21aa", mark_ascii[] = L"\\";
	struct tcell *p = d->p;
	size_t n = d->pn, ls = 0, brk = 0, i = 0, b, end, k;
	int cont = d->indent < 2 ? 2 : d->indent, col = 0, w, t, cut;
	struct tline *l;

	if (n == 0 || d->n == 0)
		goto out;
	l = &d->l[d->n - 1];
	while (i < n) {
		if (p[i].c == TAB) {
			t = col >= p[i].tab ? col + 1 : p[i].tab;
			if (t >= width(d, l)) {
				emit(l, p, ls, i);
				l = new_line(d, l->card, l->card >= 0 ? LINE_MID : LINE_PLAIN);
				ls = i + 1;
				col = cont;
				brk = 0;
			} else
				col = t;
			p[i++].x = col;
			continue;
		}
		w = cw(p[i].c);
		if (i > ls && opportunity(p, i))
			brk = i;
		if (w > 0 && col + w > width(d, l) && i > ls) {
			if (p[i].c == L' ' && !p[i].nobreak) {
				/* a space between words: the line ends here */
				for (end = i; end > ls && p[end - 1].c == L' ' &&
				    !p[end - 1].nobreak; end--)
					;
				while (i < n && p[i].c == L' ' && !p[i].nobreak)
					i++;
				emit(l, p, ls, end);
				if (i == n)
					goto out;	/* nothing goes on */
				l = new_line(d, l->card, l->card >= 0 ? LINE_MID : LINE_PLAIN);
				ls = i;
				col = cont;
				brk = 0;
				continue;
			}
			cut = !(brk > ls && word_width(p, n, brk) <= width(d, l) - cont);
			if (cut) {
				b = cut_at(p, n, ls, i);
				if (b <= ls)
					b = i;	/* the escape alone is wider than a line */
				end = b;
			} else
				for (b = end = brk; end > ls && p[end - 1].c == L' ' &&
				    !p[end - 1].nobreak; end--)
					;
			emit(l, p, ls, end);
			l = new_line(d, l->card, l->card >= 0 ? LINE_MID : LINE_PLAIN);
			if (cut)
				seg_push(l, tui_utf8 ? mark_utf8 : mark_ascii, 1, cont - 2, ST_DIM);
			for (col = cont, k = b; k < i; k++) {
				p[k].x = col;
				col += cw(p[k].c);
			}
			ls = b;
			brk = 0;
			continue;	/* cell i again, on the new line */
		}
		p[i++].x = col;
		col += w;
	}
	emit(l, p, ls, n);
out:
	d->pn = 0;
}

/* Start a new line; continuation lines of wrapped text start at indent. */
void
doc_line(struct tdoc *d, int card, enum line_kind kind, int indent)
{
	flush(d);
	new_line(d, card, kind);
	d->indent = indent;
}

void
doc_blank(struct tdoc *d, int card)
{
	doc_line(d, card, card >= 0 ? LINE_MID : LINE_PLAIN, 0);
}

/* Lay out what was added last; call before reading the lines. */
void
doc_end(struct tdoc *d)
{
	flush(d);
}

static void
cell_push(struct tdoc *d, wchar_t c, enum style s, int nobreak, int tab)
{
	struct tcell *c1;

	if (d->n == 0)
		new_line(d, -1, LINE_PLAIN);
	if (d->pn == d->pcap) {
		size_t cap = d->pcap ? d->pcap * 2 : 128;
		struct tcell *np = xcalloc(cap, sizeof *np);

		if (d->p != NULL)
			memcpy(np, d->p, d->pn * sizeof *np);
		free(d->p);
		d->p = np;
		d->pcap = cap;
	}
	c1 = &d->p[d->pn++];
	c1->c = c;
	c1->style = (unsigned char)s;
	c1->nobreak = (unsigned char)nobreak;
	c1->tab = tab;
	c1->x = 0;
}

/* Append safe wide text (made by tui_wide) as prose: it may wrap at its
 * spaces. */
void
doc_addw(struct tdoc *d, enum style s, const wchar_t *w)
{
	for (; *w != L'\0'; w++)
		cell_push(d, *w, s, 0, 0);
}

/* Append safe wide text as one word: it wraps only before it, and is cut
 * (visibly) only when longer than a line. */
void
doc_wordw(struct tdoc *d, enum style s, const wchar_t *w)
{
	size_t i;

	for (i = 0; w[i] != L'\0'; i++)
		cell_push(d, w[i], s, i > 0, 0);
}

/* Append text (agent text or ours) in style s. */
void
doc_add(struct tdoc *d, enum style s, const char *text)
{
	wchar_t *w = tui_wide(text);

	doc_addw(d, s, w);
	free(w);
}

/* Append one word that must not be split (a path, a name, KEY=VALUE, a
 * hash): as an argv word is shown (tui_word), look-alikes escaped. */
void
doc_word(struct tdoc *d, enum style s, const char *text)
{
	wchar_t *w = tui_word(text);

	doc_wordw(d, s, w);
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
	cell_push(d, TAB, ST_NORMAL, 0, col);
}
