/* SPDX-License-Identifier: ISC */
/*
 * Agent text (reason, why, argv, env, output) is untrusted: before it
 * reaches a terminal every control character, escape introducer, invalid
 * UTF-8 byte and invisible or direction-changing code point is rewritten
 * as a visible escape, so it can neither drive the terminal nor disguise
 * what it says (cf. sudo CVE-2023-28486).
 */
#include <stdlib.h>
#include <string.h>
#include <unictype.h>
#include <uninorm.h>

#include "display.h"

struct sbuf {
	char	*p;
	size_t	 len, cap;
};

static void
sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *np;

		while (b->len + n + 1 > cap)
			cap *= 2;
		np = xmalloc(cap);
		if (b->p != NULL)
			memcpy(np, b->p, b->len);
		free(b->p);
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/*
 * Non-ASCII code points shown as <U+XXXX> instead of being rendered,
 * classified by libunistring rather than by hand-kept ranges: controls,
 * format characters (bidi, zero width, soft hyphen, tags), unassigned and
 * private use code points, spaces other than U+0020, line and paragraph
 * separators, and whatever Unicode says to draw as nothing
 * (Default_Ignorable_Code_Point: Hangul fillers, variation selectors,
 * Mongolian and Khmer invisibles, U+034F). U+2800 is a graphic character
 * whose glyph is blank.
 */
static int
invisible(unsigned cp)
{
	return cp >= 0x80 && (uc_is_general_category_withtable(cp,
	    UC_CATEGORY_MASK_Cc |
	    UC_CATEGORY_MASK_Cf | UC_CATEGORY_MASK_Cn | UC_CATEGORY_MASK_Co |
	    UC_CATEGORY_MASK_Zs | UC_CATEGORY_MASK_Zl | UC_CATEGORY_MASK_Zp) ||
	    uc_is_property_default_ignorable_code_point(cp) || cp == 0x2800);
}

/*
 * Symbols that read as the ASCII punctuation of an option or a path
 * ('-', '/', '\', '.', '~', '=', ':', ',') and that compatibility
 * normalisation leaves as they are; the soft hyphen is an invisible '-'.
 */
static const unsigned lookalike_symbols[] = {
	0x00AD, 0x02D7, 0x2043, 0x2212, 0x23AF, 0x2500, 0x2501, 0x2796,	/* - */
	0x1735, 0x2044, 0x2215, 0x2571, 0x27CB, 0x29F8,			/* / */
	0x2216, 0x2572, 0x27CD, 0x29F5, 0x29F9,				/* \ */
	0x02DC, 0x2053, 0x223C,						/* ~ */
	0x2550, 0xA78A,							/* = */
	0x0589, 0x02F8, 0x05C3, 0x2236, 0xA789,				/* : */
	0x201A,								/* , */
};

static int
dash_or_listed(unsigned cp)
{
	size_t i;

	if (uc_is_general_category(cp, UC_DASH_PUNCTUATION))
		return 1;
	for (i = 0; i < sizeof lookalike_symbols / sizeof lookalike_symbols[0]; i++)
		if (lookalike_symbols[i] == cp)
			return 1;
	return 0;
}

/*
 * Does non-ASCII cp read as ASCII in an option or a path? Dash
 * punctuation (U+2010 HYPHEN and the rest of Pd), the symbols above
 * (U+2212 MINUS SIGN, U+2044 FRACTION SLASH, U+2215 DIVISION SLASH,
 * U+29F8 BIG SOLIDUS, ...), and whatever Unicode itself calls a
 * compatibility variant of those or of ASCII: a code point whose NFKC
 * form is made of nothing else (full-width U+FF01-FF5E, small forms
 * such as U+FE63, superscript and subscript minus and equals, U+2024
 * ONE DOT LEADER, ligatures, mathematical letters). Letters of other
 * scripts are not look-alikes here (mixed-script is their badge).
 */
int
text_lookalike(unsigned cp)
{
	uint32_t in = cp, buf[32], *nf;
	size_t n, i;
	int all = 1;

	if (cp < 0x80)
		return 0;
	if (dash_or_listed(cp))
		return 1;
	n = sizeof buf / sizeof buf[0];
	if ((nf = u32_normalize(UNINORM_NFKC, &in, 1, buf, &n)) == NULL)
		return 0;
	if (n == 1 && nf[0] == cp)
		all = 0;
	for (i = 0; i < n && all; i++)
		all = nf[i] < 0x80 || dash_or_listed(nf[i]);
	if (nf != buf)
		free(nf);
	return all;
}

/* What a reviewer must notice in one argv word (TEXT_* flags). */
unsigned
text_word_marks(const char *w)
{
	const unsigned char *p = (const unsigned char *)w;
	unsigned marks = 0, cp;
	size_t n;
	int bidi;

	for (; *p != '\0'; p += n) {
		if ((n = utf8_decode(p, 4, &cp)) == 0) {	/* NUL-terminated */
			n = 1;
			continue;
		}
		if (text_lookalike(cp))
			marks |= TEXT_LOOKALIKE | (p == (const unsigned char *)w ?
			    TEXT_LOOKALIKE_FIRST : 0);
		bidi = uc_bidi_class(cp);
		if (bidi == UC_BIDI_R || bidi == UC_BIDI_AL)
			marks |= TEXT_RTL;
	}
	return marks;
}

/*
 * A look-alike that prose may keep: the en and em dash and the ellipsis
 * of ordinary writing, and the full-width punctuation of CJK writing but
 * for the full-width '/', '\\', '.', '~' and '-' (which build a path or an
 * option). A reason or a label may not pass for a path either; it may
 * read like text.
 */
static int
prose_keeps(unsigned cp)
{
	if (cp == 0x2013 || cp == 0x2014 || cp == 0x2026)
		return 1;
	return cp >= 0xFF01 && cp <= 0xFF5E && cp != 0xFF0F && cp != 0xFF3C &&
	    cp != 0xFF0E && cp != 0xFF5E && cp != 0xFF0D;
}

#define N_RAW		0x1	/* output: backslash, newline, tab as they are */
#define N_WORD		0x2	/* an argv word: every look-alike escaped */
#define N_RTL		0x4	/* and strong right-to-left letters */
#define N_PROSE		0x8	/* prose: look-alikes but prose_keeps escaped */

/*
 * Append n bytes of s, neutralised: invalid UTF-8, control characters
 * and invisible code points as visible escapes. For text_visible (no
 * N_RAW) a backslash is doubled and newline, tab and CR are escaped too,
 * so the result is one unambiguous line; for output (N_RAW) backslash,
 * newline and tab stay as they are. N_PROSE, N_WORD and N_RTL escape
 * more, for text_visible and text_word.
 */
static void
neutralise(struct sbuf *b, const char *s, size_t n, int how)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	char esc[16];
	unsigned cp;
	size_t k;
	int bidi;

	while (p < end) {
		k = *p == 0 ? 0 : utf8_decode(p, (size_t)(end - p), &cp);
		if (k == 0) {
			snprintf(esc, sizeof esc, "\\x%02x", *p);
			sb_put(b, esc, strlen(esc));
			p++;
			continue;
		}
		bidi = cp >= 0x80 && (how & N_RTL) ? uc_bidi_class(cp) : -1;
		if ((how & N_RAW) && (cp == '\\' || cp == '\n' || cp == '\t'))
			sb_put(b, (const char *)p, 1);
		else if (cp == '\\')
			sb_put(b, "\\\\", 2);
		else if (cp == '\n')
			sb_put(b, "\\n", 2);
		else if (cp == '\t')
			sb_put(b, "\\t", 2);
		else if (cp == '\r')
			sb_put(b, "\\r", 2);
		else if (cp < 0x20 || cp == 0x7f) {
			snprintf(esc, sizeof esc, "\\x%02x", cp);
			sb_put(b, esc, strlen(esc));
		} else if (invisible(cp) || ((how & N_WORD) && text_lookalike(cp)) ||
		    ((how & N_PROSE) && text_lookalike(cp) && !prose_keeps(cp)) ||
		    bidi == UC_BIDI_R || bidi == UC_BIDI_AL) {
			snprintf(esc, sizeof esc, "<U+%04X>", cp);
			sb_put(b, esc, strlen(esc));
		} else
			sb_put(b, (const char *)p, k);
		p += k;
	}
}

/* A newly allocated copy of s (prose: a reason, a label, a message) that
 * is safe to print on a terminal and cannot pass for a path or an option
 * it is not: look-alikes escaped as in a word, but the marks prose uses. */
char *
text_visible(const char *s)
{
	struct sbuf b = { NULL, 0, 0 };

	sb_put(&b, "", 0);
	neutralise(&b, s, strlen(s), N_PROSE);
	return b.p;
}

/*
 * One argv word (or a path) as every human-readable surface shows it,
 * the one renderer they share: text_visible's escapes, plus each
 * look-alike of option or path punctuation as <U+XXXX> (U+2010 HYPHEN
 * must not pass for '-'). A word with strong right-to-left letters is
 * kept from reordering what is around it: with isolate, wrapped in
 * U+2066 LEFT-TO-RIGHT ISOLATE ... U+2069 POP DIRECTIONAL ISOLATE (a
 * command line reads left to right, so its slashes and dashes keep their
 * places unless between two such letters); without, for a display that
 * cannot keep an isolate with its word (the console redraws cells, not
 * words), those letters are escaped too. Free the result.
 */
char *
text_word(const char *s, int isolate)
{
	struct sbuf b = { NULL, 0, 0 };
	int wrap = isolate && (text_word_marks(s) & TEXT_RTL);

	sb_put(&b, "", 0);
	if (wrap)
		sb_put(&b, "\xe2\x81\xa6", 3);	/* U+2066 */
	neutralise(&b, s, strlen(s), isolate ? N_WORD : N_WORD | N_RTL);
	if (wrap)
		sb_put(&b, "\xe2\x81\xa9", 3);	/* U+2069 */
	return b.p;
}

/* text_word printed on a terminal: right-to-left letters escaped, not
 * isolated (an isolate keeps the neighbours in place, but the word
 * itself still reads backwards: "/opt/\u05d0 1 2" as "/opt/2 1 \u05d0"). */
void
text_print_word(FILE *fp, const char *s)
{
	char *v = text_word(s, 0);

	fputs(v, fp);
	free(v);
}

/*
 * Command output (or other text) for its reader, the agent or a person at
 * a terminal: the text as it is, backslashes and tabs included, with only
 * what must not reach a terminal neutralised as in text_visible (escape
 * introducers and other control characters, invalid UTF-8, invisible and
 * direction-changing code points, shown as \xNN and <U+XXXX>). A carriage
 * return does what it does on a terminal: of a line only what follows
 * its last CR is kept (a progress bar ends as its last state), and CRs
 * at the end of a line (CR LF) are just the line end. Free the result.
 */
char *
text_output(const char *s)
{
	struct sbuf b = { NULL, 0, 0 };
	const char *nl, *end, *from, *q;

	sb_put(&b, "", 0);
	while (*s != '\0') {
		nl = strchr(s, '\n');
		end = nl != NULL ? nl : s + strlen(s);
		while (end > s && end[-1] == '\r')
			end--;
		for (from = s, q = s; q < end; q++)
			if (*q == '\r')
				from = q + 1;
		neutralise(&b, from, (size_t)(end - from), N_RAW);
		if (nl == NULL)
			break;
		sb_put(&b, "\n", 1);
		s = nl + 1;
	}
	return b.p;
}

/* text_output, line by line: the first line after first, the others
 * after indent; a final newline starts no empty line. */
void
text_print_output(FILE *fp, const char *s, const char *first, const char *indent)
{
	char *v = text_output(s), *line = v, *nl;

	while (*line != '\0') {
		nl = strchr(line, '\n');
		if (nl != NULL)
			*nl = '\0';
		fputs(line == v ? first : indent, fp);
		fputs(line, fp);
		fputc('\n', fp);
		if (nl == NULL)
			break;
		line = nl + 1;
	}
	free(v);
}

void
text_print(FILE *fp, const char *s)
{
	char *v = text_visible(s);

	fputs(v, fp);
	free(v);
}

/* Multi-line text for a reviewer's terminal: each line neutralised on its
 * own (text_visible), prefixed with indent. */
void
text_print_lines(FILE *fp, const char *s, const char *indent)
{
	const char *nl;
	char *line;

	while (*s != '\0') {
		nl = strchr(s, '\n');
		line = strndup(s, nl != NULL ? (size_t)(nl - s) : strlen(s));
		if (line == NULL)
			abort();
		fputs(indent, fp);
		text_print(fp, line);
		fputc('\n', fp);
		free(line);
		if (nl == NULL)
			break;
		s = nl + 1;
	}
}

/*
 * s as one word for a POSIX shell: single-quoted, each ' written as '\''.
 * Nothing inside single quotes is special to sh, so any bytes (newlines,
 * $(), backquotes, globs) come through as they are. Freed by the caller.
 */
char *
sh_quote(const char *s)
{
	size_t n = 2, i;
	const char *p;
	char *q;

	for (p = s; *p != '\0'; p++)
		n += *p == '\'' ? 4 : 1;
	q = xmalloc(n + 1);
	i = 0;
	q[i++] = '\'';
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'') {
			memcpy(q + i, "'\\''", 4);
			i += 4;
		} else
			q[i++] = *p;
	}
	q[i++] = '\'';
	q[i] = '\0';
	return q;
}

/* The words of argv (NULL-terminated), each quoted by sh_quote, joined by
 * single spaces: one command line that sh splits back into exactly argv. */
char *
sh_join(const char *const *argv)
{
	size_t n = 1, i, k;
	char **w, *out;

	for (k = 0; argv[k] != NULL; k++)
		;
	w = xcalloc(k + 1, sizeof *w);
	for (i = 0; i < k; i++) {
		w[i] = sh_quote(argv[i]);
		n += strlen(w[i]) + 1;
	}
	out = xmalloc(n);
	out[0] = '\0';
	for (n = 0, i = 0; i < k; i++) {
		size_t l = strlen(w[i]);

		if (i > 0)
			out[n++] = ' ';
		memcpy(out + n, w[i], l);
		n += l;
		out[n] = '\0';
		free(w[i]);
	}
	free(w);
	return out;
}
