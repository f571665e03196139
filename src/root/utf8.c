/* SPDX-License-Identifier: ISC */
/*
 * UTF-8 as the root runner needs it, without libunistring: one sequence
 * decoded, and bytes made into a valid JSON string. The runner records
 * what commands print and the paths they meet as they are; what the text
 * says is judged only outside it: the finisher redacts credential shapes
 * (policy.c) and every display neutralises (text.c).
 */
#include <stdio.h>
#include <string.h>

#include "root.h"

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
 * n bytes of s for a JSON string, which must be valid UTF-8 without NUL:
 * invalid bytes and NUL become \xNN; everything else is kept (a record is
 * data: redacted by the finisher, neutralised again whenever it is
 * displayed). Newly allocated.
 */
char *
text_json_safe(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = xmalloc(4 * n + 1);
	size_t i = 0, o = 0, k;
	unsigned cp;

	while (i < n) {
		k = p[i] == 0 ? 0 : utf8_decode(p + i, n - i, &cp);
		if (k == 0) {
			snprintf(out + o, 5, "\\x%02x", p[i]);
			o += 4;
			i++;
		} else {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		}
	}
	out[o] = '\0';
	return out;
}
