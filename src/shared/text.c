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

/* A newly allocated copy of s that is safe to print on a terminal. */
char *
text_visible(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	struct sbuf b = { NULL, 0, 0 };
	char esc[16];
	unsigned cp;
	size_t n;

	sb_put(&b, "", 0);
	while (*p != '\0') {
		n = utf8_decode(p, 4, &cp);	/* NUL-terminated: a NUL ends any sequence */
		if (n == 0) {
			snprintf(esc, sizeof esc, "\\x%02x", *p);
			sb_put(&b, esc, strlen(esc));
			p++;
			continue;
		}
		if (cp == '\\')
			sb_put(&b, "\\\\", 2);
		else if (cp == '\n')
			sb_put(&b, "\\n", 2);
		else if (cp == '\t')
			sb_put(&b, "\\t", 2);
		else if (cp == '\r')
			sb_put(&b, "\\r", 2);
		else if (cp < 0x20 || cp == 0x7f) {
			snprintf(esc, sizeof esc, "\\x%02x", cp);
			sb_put(&b, esc, strlen(esc));
		} else if (invisible(cp)) {
			snprintf(esc, sizeof esc, "<U+%04X>", cp);
			sb_put(&b, esc, strlen(esc));
		} else
			sb_put(&b, (const char *)p, n);
		p += n;
	}
	return b.p;
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

/* Multi-line output for a terminal: each line neutralised on its own,
 * prefixed with indent. */
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
