/* SPDX-License-Identifier: ISC */
/*
 * `warrant list -j` written straight from the rows: each gate's JSON
 * object is put together from its columns in a buffer and written whole,
 * without building jansson objects for it (which cost three quarters of
 * a large list's time). The bytes are the ones gate_row's object would
 * dump to with JSON_COMPACT | JSON_ENSURE_ASCII: the same members in the
 * same order, strings escaped the same way (a string that is not valid
 * UTF-8 becomes null, as json_string makes it); the two JSON columns (env,
 * risk_badges) still go through jansson unless they are empty.
 */
#include <stdlib.h>
#include <string.h>

#include "store/store-int.h"

struct buf {
	char	*p;
	size_t	 len, cap;
};

static void
put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n > b->cap) {
		while (b->len + n > b->cap)
			b->cap *= 2;
		char *p = xmalloc(b->cap);

		memcpy(p, b->p, b->len);
		free(b->p);
		b->p = p;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void
puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* The next code point of s (n bytes left), as jansson's UTF-8 check takes
 * it; its length, or 0 when the bytes are not valid UTF-8. */
static size_t
utf8_next(const unsigned char *s, size_t n, unsigned *cp)
{
	size_t len, i;
	unsigned v;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, v = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, v = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, v = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) || v > 0x10ffff ||
	    (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* A string column as a JSON string (ASCII only), or null. */
static void
put_string(struct buf *b, const unsigned char *s, size_t n)
{
	size_t start = b->len, i = 0, k;
	char esc[16];
	unsigned cp;

	if (s == NULL) {
		puts_(b, "null");
		return;
	}
	put(b, "\"", 1);
	while (i < n) {
		if ((k = utf8_next(s + i, n - i, &cp)) == 0 || cp == 0) {
			b->len = start;		/* not a string jansson would take */
			puts_(b, "null");
			return;
		}
		if (cp >= 0x20 && cp < 0x80 && cp != '"' && cp != '\\') {
			put(b, (const char *)s + i, 1);
			i++;
			continue;
		}
		switch (cp) {
		case '"': puts_(b, "\\\""); break;
		case '\\': puts_(b, "\\\\"); break;
		case '\b': puts_(b, "\\b"); break;
		case '\f': puts_(b, "\\f"); break;
		case '\n': puts_(b, "\\n"); break;
		case '\r': puts_(b, "\\r"); break;
		case '\t': puts_(b, "\\t"); break;
		default:
			if (cp < 0x10000)
				snprintf(esc, sizeof esc, "\\u%04X", cp);
			else {
				cp -= 0x10000;
				snprintf(esc, sizeof esc, "\\u%04X\\u%04X", 0xd800 | (cp >> 10),
				    0xdc00 | (cp & 0x3ff));
			}
			puts_(b, esc);
		}
		i += k;
	}
	put(b, "\"", 1);
}

/* A column holding JSON text, dumped as gate_row's column_json would be. */
static void
put_json(struct buf *b, sqlite3_stmt *s, int i)
{
	const char *txt = (const char *)sqlite3_column_text(s, i);
	json_t *j;
	char *d;

	if (txt != NULL && (strcmp(txt, "{}") == 0 || strcmp(txt, "[]") == 0)) {
		puts_(b, txt);
		return;
	}
	j = txt != NULL ? json_loads(txt, JSON_DECODE_ANY, NULL) : NULL;
	d = j != NULL ? json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY) : NULL;
	puts_(b, d != NULL ? d : "null");
	free(d);
	json_decref(j);
}

static int
dump_row(sqlite3_stmt *s, struct buf *b, int first, FILE *out)
{
	static const char *const names[] = {
		"request_id", "state", "created_at", "expires_at", "settled_at",
		"requester", "requester_uid", "agent", "project", "host", "machine",
		"reason", "run_as", "cwd", "env", "stop_on_failure", "output_to_agent",
		"next_prompt", "risk_badges", "root_count", "user_count",
		"manifest_sha256", "feedback", "requester_pid", "requester_start",
	};
	char num[32];
	int i;

	b->len = 0;
	put(b, first ? "[{" : ",{", 2);
	for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
		if (i > 0)
			put(b, ",", 1);
		put(b, "\"", 1);
		puts_(b, names[i]);
		put(b, "\":", 2);
		if (i == 14 || i == 18)
			put_json(b, s, i);
		else if (i == 15)
			puts_(b, sqlite3_column_int(s, i) ? "true" : "false");
		else if (sqlite3_column_type(s, i) == SQLITE_INTEGER) {
			snprintf(num, sizeof num, "%lld", (long long)sqlite3_column_int64(s, i));
			puts_(b, num);
		} else
			put_string(b, sqlite3_column_text(s, i), (size_t)sqlite3_column_bytes(s, i));
	}
	put(b, "}", 1);
	return fwrite(b->p, 1, b->len, out) == b->len ? 0 : -1;
}

/* The gates store_list_each would give, as one JSON array on out (and a
 * newline); how many in *n. 0, or -1 (a store error is said; a write
 * error is not). */
int
store_list_dump(struct store *st, int all, long limit, const char *project, int64_t uid,
    FILE *out, size_t *n)
{
	struct buf b = { xmalloc(4096), 0, 4096 };
	sqlite3_stmt *s;
	int rc, bad = 0;

	*n = 0;
	if ((s = store_list_prepare(st, all, limit, project, uid)) == NULL) {
		free(b.p);
		return -1;
	}
	for (rc = sqlite3_step(s); rc == SQLITE_ROW && !bad; rc = sqlite3_step(s))
		bad = dump_row(s, &b, (*n)++ == 0, out) != 0;
	sqlite3_finalize(s);
	free(b.p);
	if (bad)
		return -1;
	if (rc != SQLITE_DONE)
		return store_fail(st, "listing gates");
	return fputs(*n == 0 ? "[]\n" : "]\n", out) == EOF ? -1 : 0;
}
