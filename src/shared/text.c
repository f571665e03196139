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

#include "shared.h"

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

/* Decode one UTF-8 sequence from at most avail bytes; returns its
 * length, or 0 when invalid or cut short. */
size_t
utf8_decode(const unsigned char *s, size_t avail, unsigned *cp)
{
	unsigned c = s[0];
	size_t n, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07;
	else
		return 0;
	if (n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
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
 * Append n bytes of s, neutralised: invalid UTF-8, control characters
 * and invisible code points as visible escapes. For text_visible (raw 0)
 * a backslash is doubled and newline, tab and CR are escaped too, so the
 * result is one unambiguous line; for output (raw 1) backslash, newline
 * and tab stay as they are.
 */
static void
neutralise(struct sbuf *b, const char *s, size_t n, int raw)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	char esc[16];
	unsigned cp;
	size_t k;

	while (p < end) {
		k = *p == 0 ? 0 : utf8_decode(p, (size_t)(end - p), &cp);
		if (k == 0) {
			snprintf(esc, sizeof esc, "\\x%02x", *p);
			sb_put(b, esc, strlen(esc));
			p++;
			continue;
		}
		if (raw && (cp == '\\' || cp == '\n' || cp == '\t'))
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
		} else if (invisible(cp)) {
			snprintf(esc, sizeof esc, "<U+%04X>", cp);
			sb_put(b, esc, strlen(esc));
		} else
			sb_put(b, (const char *)p, k);
		p += k;
	}
}

/* A newly allocated copy of s that is safe to print on a terminal. */
char *
text_visible(const char *s)
{
	struct sbuf b = { NULL, 0, 0 };

	sb_put(&b, "", 0);
	neutralise(&b, s, strlen(s), 0);
	return b.p;
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
		neutralise(&b, from, (size_t)(end - from), 1);
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

/*
 * Command output for the ledger: JSON strings must be valid UTF-8 without
 * NUL, so invalid bytes and NUL become \xNN; everything else is kept (the
 * ledger is data, and is neutralised again whenever it is displayed).
 */
char *
text_json_safe(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	struct sbuf b = { NULL, 0, 0 };
	char esc[8];
	unsigned cp;
	size_t i = 0, k;

	sb_put(&b, "", 0);
	while (i < n) {
		k = p[i] == 0 ? 0 : utf8_decode(p + i, n - i, &cp);
		if (k == 0) {
			snprintf(esc, sizeof esc, "\\x%02x", p[i]);
			sb_put(&b, esc, strlen(esc));
			i++;
		} else {
			sb_put(&b, s + i, k);
			i += k;
		}
	}
	return b.p;
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
