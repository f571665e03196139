/* SPDX-License-Identifier: ISC */
/*
 * Safe text for the review console. Agent text reaches curses only as wide
 * characters made here: text_visible() first (control characters, escape
 * introducers, bidi and invisible code points become visible escapes), then
 * every code point this terminal could not show as one ordinary glyph
 * becomes <U+XXXX> as well. Also the console's styles: colour where the
 * terminal has it and NO_COLOR is unset, bold and reverse otherwise.
 */
#include <langinfo.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <curses.h>

#include "tui/tui.h"

int tui_utf8;
int tui_color;

static attr_t	st_attr[ST_COUNT];
static short	st_pair[ST_COUNT];

void
wtext_init(void)
{
	const char *cs = nl_langinfo(CODESET);

	tui_utf8 = cs != NULL && strcmp(cs, "UTF-8") == 0;
}

static void
style_set(enum style s, attr_t mono, attr_t col, short fg, short bg)
{
	if (!tui_color) {
		st_attr[s] = mono;
		st_pair[s] = 0;
		return;
	}
	st_pair[s] = (short)s;
	if (init_pair((short)s, fg, bg) == ERR)
		st_pair[s] = 0;
	st_attr[s] = col;
}

/* Called after initscr: decide on colour and set every style up. */
void
tui_styles(void)
{
	const char *nc = getenv("NO_COLOR");

	tui_color = 0;
	if (has_colors() && (nc == NULL || *nc == '\0') && start_color() != ERR &&
	    COLORS >= 8) {
		tui_color = 1;
		use_default_colors();
	}
	style_set(ST_NORMAL, A_NORMAL, A_NORMAL, -1, -1);
	style_set(ST_BOLD, A_BOLD, A_BOLD, -1, -1);
	style_set(ST_DIM, A_DIM, A_DIM, -1, -1);
	style_set(ST_LABEL, A_BOLD, A_NORMAL, COLOR_CYAN, -1);
	style_set(ST_BAR, A_BOLD | A_UNDERLINE, A_REVERSE, -1, -1);
	style_set(ST_ROOT_BADGE, A_REVERSE | A_BOLD, A_BOLD, COLOR_WHITE, COLOR_RED);
	style_set(ST_ROOT_BORDER, A_BOLD, A_BOLD, COLOR_RED, -1);
	style_set(ST_YOU_BADGE, A_BOLD | A_UNDERLINE, A_BOLD, COLOR_WHITE, COLOR_BLUE);
	style_set(ST_YOU_BORDER, A_NORMAL, A_NORMAL, -1, -1);
	style_set(ST_PILL, A_REVERSE | A_BOLD, A_BOLD, COLOR_WHITE, COLOR_RED);
	style_set(ST_RISK, A_BOLD, A_NORMAL, COLOR_YELLOW, -1);
	style_set(ST_GOOD, A_BOLD, A_BOLD, COLOR_GREEN, -1);
	style_set(ST_BAD, A_BOLD | A_REVERSE, A_BOLD, COLOR_RED, -1);
	style_set(ST_FOCUS, A_BOLD, A_BOLD, COLOR_CYAN, -1);
	style_set(ST_SELECT, A_REVERSE, A_REVERSE, -1, -1);
}

void
tui_style(enum style s)
{
	attr_set(st_attr[s], st_pair[s], NULL);
}

struct wbuf {
	wchar_t	*w;
	size_t	 len, cap;
};

static void
wb_put(struct wbuf *b, wchar_t c)
{
	if (b->len + 2 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		wchar_t *nw = xcalloc(cap, sizeof *nw);

		if (b->w != NULL)
			memcpy(nw, b->w, b->len * sizeof *nw);
		free(b->w);
		b->w = nw;
		b->cap = cap;
	}
	b->w[b->len++] = c;
	b->w[b->len] = L'\0';
}

static void
wb_ascii(struct wbuf *b, const char *s)
{
	while (*s != '\0')
		wb_put(b, (wchar_t)(unsigned char)*s++);
}

/*
 * v (text made safe by text_visible or text_word, freed here) as safe
 * wide characters: only printable ASCII, and where the locale is UTF-8
 * code points of positive width plus at most two combining marks after a
 * visible character. Anything else is a visible escape. Never fails; free
 * the result.
 */
static wchar_t *
wide_of(char *v)
{
	const unsigned char *p = (const unsigned char *)v;
	struct wbuf b = { NULL, 0, 0 };
	char esc[16];
	unsigned cp;
	int base = 0, marks = 0, w;
	size_t n;

	wb_put(&b, L'\0');
	b.len = 0;
	while (*p != '\0') {
		if ((n = utf8_decode(p, 4, &cp)) == 0) {	/* NUL-terminated */
			snprintf(esc, sizeof esc, "\\x%02x", *p++);
			wb_ascii(&b, esc);
			base = 0;
			continue;
		}
		p += n;
		if (cp < 0x20 || cp == 0x7f) {
			snprintf(esc, sizeof esc, "\\x%02x", cp);
			wb_ascii(&b, esc);
			base = 0;
			continue;
		}
		if (cp < 0x80) {
			wb_put(&b, (wchar_t)cp);
			base = 1, marks = 0;
			continue;
		}
		w = tui_utf8 ? wcwidth((wchar_t)cp) : -1;
		if (w < 0 || (w == 0 && (!base || marks >= 2))) {
			snprintf(esc, sizeof esc, "<U+%04X>", cp);
			wb_ascii(&b, esc);
			base = 0;
			continue;
		}
		wb_put(&b, (wchar_t)cp);
		if (w == 0)
			marks++;
		else
			base = 1, marks = 0;
	}
	free(v);
	return b.w;
}

/* s (UTF-8 agent text, NULL as "") for the console. */
wchar_t *
tui_wide(const char *s)
{
	return wide_of(text_visible(s != NULL ? s : ""));
}

/* An argv word or a path (text_word): look-alikes and right-to-left
 * letters escaped, since curses redraws cells, not words, and cannot
 * keep an isolate with its word. */
wchar_t *
tui_word(const char *s)
{
	return wide_of(text_word(s != NULL ? s : "", 0));
}

static int
wcol(wchar_t c)
{
	int w = wcwidth(c);

	return w < 0 ? 1 : w;
}

int
tui_wwidth(const wchar_t *w)
{
	int n = 0;

	while (*w != L'\0')
		n += wcol(*w++);
	return n;
}

/*
 * Draw w at (y, x) in at most maxcols columns. With cut, text that does
 * not fit ends in a visible ellipsis instead of stopping silently.
 * Returns the columns used.
 */
int
tui_putw(int y, int x, int maxcols, enum style s, const wchar_t *w, int cut)
{
	static const wchar_t ell[] = L"\x2026", ell_ascii[] = L">";
	int used = 0, c;
	size_t n = 0;

	if (maxcols <= 0)
		return 0;
	if (cut && tui_wwidth(w) > maxcols) {
		maxcols--;
		cut = 2;
	}
	while (w[n] != L'\0') {
		c = wcol(w[n]);
		if (used + c > maxcols)
			break;
		used += c;
		n++;
	}
	tui_style(s);
	if (n > 0)
		mvaddnwstr(y, x, w, (int)n);
	if (cut == 2) {
		mvaddnwstr(y, x + used, tui_utf8 ? ell : ell_ascii, 1);
		used++;
	}
	tui_style(ST_NORMAL);
	return used;
}

int
tui_puts(int y, int x, int maxcols, enum style s, const char *text)
{
	wchar_t *w = tui_wide(text);
	int used = tui_putw(y, x, maxcols, s, w, 0);

	free(w);
	return used;
}

/* Like tui_puts, but text that does not fit is visibly cut. */
int
tui_cut(int y, int x, int maxcols, enum style s, const char *text)
{
	wchar_t *w = tui_wide(text);
	int used = tui_putw(y, x, maxcols, s, w, 1);

	free(w);
	return used;
}

/* The attributes of style s, to OR into a chtype (line drawing). */
chtype
tui_chattr(enum style s)
{
	return st_attr[s] | COLOR_PAIR(st_pair[s]);
}

void
tui_fill(int y, int x, int cols, enum style s)
{
	if (cols > 0)
		mvhline(y, x, ' ' | tui_chattr(s), cols);
}
