/* SPDX-License-Identifier: ISC */
/*
 * Credential shapes: shared by request validation (a request may carry
 * none) and the redaction of what the runner recorded (output, paths),
 * so whatever a request may not carry is also what output never keeps;
 * both match in any case and after dropping soft hyphens and zero-width
 * characters, which would split a word without showing. Never linked
 * into warrant-runner: root records raw, and the unprivileged finisher
 * redacts every string of a ledger entry before it is stored, shown or
 * handed to the agent (redact_json).
 */
#include <stdlib.h>
#include <string.h>
#include <unictype.h>

#include "display.h"

enum shape_kind {
	SHAPE_NAME,	/* NAME=VALUE, NAME: VALUE, --NAME VALUE; env names */
	SHAPE_TOKEN,	/* a token known by its prefix, replaced whole */
	SHAPE_UPPER,	/* the same, its body in upper case and digits */
	SHAPE_ARG,	/* PREFIX then the value in the same word */
	SHAPE_BEARER,	/* Bearer and a long token */
	SHAPE_URL,	/* scheme://user:VALUE@host */
	SHAPE_PEM,	/* -----BEGIN ... PRIVATE KEY----- to its END line */
};

#define S(kind, text, min, label)	{ kind, text, sizeof text - 1, min, label }

static const struct shape {
	enum shape_kind	 kind;
	const char	*text;		/* lower case; SHAPE_UPPER: exact */
	size_t		 len;
	size_t		 min;		/* body length of a token */
	const char	*label;
} shapes[] = {
	S(SHAPE_NAME, "password", 0, "password"),
	S(SHAPE_NAME, "passwd", 0, "passwd"),
	S(SHAPE_NAME, "passphrase", 0, "passphrase"),
	S(SHAPE_NAME, "secret", 0, "secret"),
	S(SHAPE_NAME, "secret_id", 0, "secret_id"),
	S(SHAPE_NAME, "secret-id", 0, "secret-id"),
	S(SHAPE_NAME, "token", 0, "token"),
	S(SHAPE_NAME, "api_key", 0, "api_key"),
	S(SHAPE_NAME, "api-key", 0, "api-key"),
	S(SHAPE_NAME, "apikey", 0, "apikey"),
	S(SHAPE_NAME, "access_key", 0, "access_key"),
	S(SHAPE_NAME, "access-key", 0, "access-key"),
	S(SHAPE_NAME, "secret_key", 0, "secret_key"),
	S(SHAPE_NAME, "secret-key", 0, "secret-key"),
	S(SHAPE_NAME, "private_key", 0, "private_key"),
	S(SHAPE_NAME, "private-key", 0, "private-key"),
	S(SHAPE_NAME, "authorization", 0, "authorization"),
	S(SHAPE_NAME, "_pwd", 0, "_pwd"),
	S(SHAPE_TOKEN, "ghp_", 20, "a GitHub token"),
	S(SHAPE_TOKEN, "gho_", 20, "a GitHub token"),
	S(SHAPE_TOKEN, "ghu_", 20, "a GitHub token"),
	S(SHAPE_TOKEN, "ghs_", 20, "a GitHub token"),
	S(SHAPE_TOKEN, "ghr_", 20, "a GitHub token"),
	S(SHAPE_TOKEN, "github_pat_", 20, "a GitHub token"),
	S(SHAPE_TOKEN, "glpat-", 20, "a GitLab token"),
	S(SHAPE_TOKEN, "xoxa-", 10, "a Slack token"),
	S(SHAPE_TOKEN, "xoxb-", 10, "a Slack token"),
	S(SHAPE_TOKEN, "xoxp-", 10, "a Slack token"),
	S(SHAPE_TOKEN, "xoxr-", 10, "a Slack token"),
	S(SHAPE_TOKEN, "xoxs-", 10, "a Slack token"),
	S(SHAPE_TOKEN, "sk-", 20, "an API secret key (sk-)"),
	S(SHAPE_TOKEN, "sk_live_", 16, "a Stripe secret key"),
	S(SHAPE_TOKEN, "rk_live_", 16, "a Stripe secret key"),
	S(SHAPE_UPPER, "AKIA", 16, "an AWS access key id"),
	S(SHAPE_UPPER, "ASIA", 16, "an AWS access key id"),
	S(SHAPE_ARG, "pass:", 1, "an OpenSSL pass: argument"),
	S(SHAPE_BEARER, "bearer", 20, "a bearer token"),
	S(SHAPE_URL, "://", 0, "a password in a URL"),
	S(SHAPE_PEM, "-----begin ", 0, "a private key block"),
};
#undef S
#define NSHAPES	(sizeof shapes / sizeof shapes[0])
_Static_assert(NSHAPES <= 64, "shapes are indexed by 64-bit masks");

/*
 * The scan stops only at bytes that may anchor a shape: '=' and ':' of a
 * NAME, '-' of a flag, and for a prefix its first punctuation ("ghp_",
 * "sk-", "pass:") or, without any, its first letter ("AKIA", "Bearer",
 * read back to where the word starts). Plain words cost one table look-up
 * a byte. Masks over shapes[]: what an anchor byte selects (at: where it
 * sits in the prefix), and for NAMEs their last letter.
 */
static unsigned char	anchor[256], at[NSHAPES], indexed;
static uint64_t		by_anchor[256], by_last[256];

static int
upper(int c)
{
	return c >= 'a' && c <= 'z' ? c - 0x20 : c;
}

static void
index_shapes(void)
{
	const struct shape *sh;
	uint64_t bit;
	size_t q;
	int c, k;

	if (indexed)
		return;
	for (sh = shapes, k = 0; sh < shapes + NSHAPES; sh++, k++) {
		bit = 1ULL << k;
		if (sh->kind == SHAPE_NAME) {
			c = (unsigned char)sh->text[sh->len - 1];
			by_last[c] |= bit;
			by_last[upper(c)] |= bit;
			continue;
		}
		if (sh->kind == SHAPE_URL)
			continue;
		q = strcspn(sh->text, "-_:");
		if (sh->text[q] == '\0')
			q = 0;
		at[k] = (unsigned char)q;
		c = (unsigned char)sh->text[q];
		by_anchor[c] |= bit;
		if (sh->kind != SHAPE_UPPER)
			by_anchor[upper(c)] |= bit;
	}
	for (k = 0; k < 256; k++)
		anchor[k] = by_anchor[k] != 0;
	anchor['-'] = anchor[':'] = anchor['='] = 1;
	indexed = 1;
}

static const char mark[] = "[redacted]";
#define MARKLEN	(sizeof mark - 1)

/* Characters of a NAME before '=' or ':', of a flag, of a token. */
static int
name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

static int
token_char(int c)
{
	return name_char(c) && c != '.';
}

static int
letter(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Does s[0..n) start with the lower-case p[0..k), in any case? */
static int
prefix_nocase(const char *s, size_t n, const char *p, size_t k)
{
	size_t i;

	if (n < k)
		return 0;
	for (i = 0; i < k; i++)
		if (ascii_lower((unsigned char)s[i]) != p[i])
			return 0;
	return 1;
}

/*
 * Does the NAME s[0..n) end in a credential word? With boundary, the word
 * must also start the name or follow a non-letter ("db_password",
 * "X-Auth-Token", not "libsecret"), as for "NAME: VALUE" and flags, where
 * prose could otherwise match; NAME=VALUE keeps any start ("PGPASSWORD=").
 */
static const struct shape *
name_ends_in_word(const char *s, size_t n, int boundary)
{
	const struct shape *sh;
	uint64_t m;
	size_t k;

	for (m = n > 0 ? by_last[(unsigned char)s[n - 1]] : 0; m != 0; m &= m - 1) {
		sh = &shapes[__builtin_ctzll(m)];
		k = sh->len;
		if (n < k || !prefix_nocase(s + n - k, k, sh->text, k))
			continue;
		if (!boundary || n == k || !letter(s[n - k - 1]) || !letter(sh->text[0]))
			return sh;
	}
	return NULL;
}

/* The end of a value starting at v: a quoted string, or up to white
 * space, a quote or shell and list punctuation (a NUL is part of it, as
 * the ledger's \x00 would be). */
static size_t
value_end(const char *s, size_t n, size_t v)
{
	const char *q;

	if (v < n && (s[v] == '"' || s[v] == '\'')) {
		q = memchr(s + v + 1, s[v], n - v - 1);
		return q != NULL ? (size_t)(q - s) + 1 : n;
	}
	while (v < n && (s[v] == '\0' || strchr(" \t\r\n\"'`,;&|<>)}]", s[v]) == NULL))
		v++;
	return v;
}

static int
is_mark(const char *s, size_t n, size_t v)
{
	return n - v >= MARKLEN && memcmp(s + v, mark, MARKLEN) == 0;
}

/* "Authorization: Bearer X": the scheme word and its credential are one
 * value. */
static size_t
value_with_scheme(const char *s, size_t n, size_t v)
{
	static const char *const schemes[] = {
		"bearer", "basic", "digest", "token", "negotiate", "bot", NULL
	};
	const char *const *sc;
	size_t e = value_end(s, n, v), w;

	for (sc = schemes; *sc != NULL; sc++)
		if (e - v == strlen(*sc) && ascii_ncasecmp(s + v, *sc, e - v) == 0)
			break;
	if (*sc == NULL)
		return e;
	for (w = e; w < n && (s[w] == ' ' || s[w] == '\t'); w++)
		;
	return w > e && w < n && !is_mark(s, n, w) && value_end(s, n, w) > w ?
	    value_end(s, n, w) : e;
}

struct hit {
	size_t			 a, b;	/* replaced: s[a..b) */
	int			 open;	/* a key block runs on past the end */
	const struct shape	*shape;
};

/* NAME=VALUE or NAME: VALUE with its separator at s[e], its NAME not
 * reaching back before s[from]. */
static int
match_field(const char *s, size_t n, size_t from, size_t e, struct hit *h)
{
	size_t j = e, ns, v;

	if (j > from && (s[j - 1] == '"' || s[j - 1] == '\''))
		j--;			/* "password": "x" */
	for (ns = j; ns > from && j - ns < 128 && name_char(s[ns - 1]); ns--)
		;
	if ((h->shape = name_ends_in_word(s + ns, j - ns, s[e] == ':')) == NULL)
		return 0;
	v = e + 1;
	if (s[e] == ':') {
		while (v < n && (s[v] == ' ' || s[v] == '\t'))
			v++;
		if (v == n || s[v] == ':' || value_end(s, n, v) == v)
			return 0;
	}
	if (is_mark(s, n, v))
		return 0;
	h->a = j - h->shape->len;
	h->b = value_with_scheme(s, n, v);
	return 1;		/* an empty NAME= still counts */
}

/* A flag naming a credential (--password, --api-key; not --no-password
 * or --password-file) spanning s[i..*end). */
static const struct shape *
flag_at(const char *s, size_t n, size_t i, size_t *end)
{
	size_t d = i, f;

	while (d < n && d - i < 3 && s[d] == '-')
		d++;
	if (d == i || d - i > 2 || d == n || !letter(s[d]))
		return NULL;
	for (f = d; f < n && token_char(s[f]); f++)
		;
	if (prefix_nocase(s + d, f - d, "no-", 3) || prefix_nocase(s + d, f - d, "no_", 3))
		return NULL;
	*end = f;
	return name_ends_in_word(s + d, f - d, 1);
}

/* --password VALUE within one string. */
static int
match_flag(const char *s, size_t n, size_t i, struct hit *h)
{
	size_t f, v;

	if ((h->shape = flag_at(s, n, i, &f)) == NULL)
		return 0;
	for (v = f; v < n && (s[v] == ' ' || s[v] == '\t'); v++)
		;
	if (v == f || v == n || s[v] == '-' || is_mark(s, n, v) || value_end(s, n, v) == v)
		return 0;
	h->a = f - h->shape->len;
	h->b = value_end(s, n, v);
	return 1;
}

/* A token body: long enough, and random-looking (a digit, or both
 * cases), so that "sk-install-the-new-version" is not one. */
static int
match_token(const char *s, size_t n, size_t i, const struct shape *sh,
    struct hit *h)
{
	size_t k = sh->len, e;
	int digit = 0, lower = 0, upper = 0;

	for (e = i + k; e < n && token_char(s[e]); e++) {
		digit |= s[e] >= '0' && s[e] <= '9';
		lower |= s[e] >= 'a' && s[e] <= 'z';
		upper |= s[e] >= 'A' && s[e] <= 'Z';
		if (sh->kind == SHAPE_UPPER && !(s[e] >= '0' && s[e] <= '9') &&
		    !(s[e] >= 'A' && s[e] <= 'Z'))
			return 0;
	}
	if (e - i - k < sh->min || (sh->kind == SHAPE_TOKEN && !digit && !(lower && upper)))
		return 0;
	h->a = i;
	h->b = e;
	return 1;
}

static int
match_bearer(const char *s, size_t n, size_t i, const struct shape *sh,
    struct hit *h)
{
	size_t v = i + sh->len, e;

	if (v == n || (s[v] != ' ' && s[v] != '\t'))
		return 0;
	while (v < n && (s[v] == ' ' || s[v] == '\t'))
		v++;
	for (e = v; e < n && (token_char(s[e]) ||
	    (s[e] != '\0' && strchr(".~+/=", s[e]) != NULL)); e++)
		;
	if (e - v < sh->min)
		return 0;
	h->a = v;
	h->b = e;
	return 1;
}

/* scheme://user:VALUE@host with "://" at s[i]. */
static int
match_url(const char *s, size_t n, size_t i, struct hit *h)
{
	size_t u = i + 3, k, colon = 0;

	/* a NUL is part of the user information: the ledger writes it as
	 * \x00, which must not turn into a password nobody redacted */
	for (k = u; k < n && (s[k] == '\0' || strchr("/?#@ \t\r\n\"'<>`", s[k]) == NULL); k++)
		if (s[k] == ':' && colon == 0)
			colon = k;
	if (k == n || s[k] != '@' || colon == 0 || colon + 1 == k ||
	    is_mark(s, n, colon + 1))
		return 0;
	h->a = colon + 1;
	h->b = k;
	return 1;
}

/* Where s[from..n) case-insensitively holds p, or n. */
static size_t
find_nocase(const char *s, size_t n, size_t from, const char *p)
{
	size_t k = strlen(p);

	for (; from + k <= n; from++)
		if (ascii_ncasecmp(s + from, p, k) == 0)
			return from;
	return n;
}

/* The end of a key block whose body starts at s[from]: past the dashes
 * of its END line, or n when it runs on. */
static size_t
block_end(const char *s, size_t n, size_t from)
{
	size_t e = find_nocase(s, n, from, "-----end");

	if (e == n)
		return n;
	e = find_nocase(s, n, e + 8, "-----");
	return e == n ? n : e + 5;
}

static int
match_pem(const char *s, size_t n, size_t i, const struct shape *sh,
    struct hit *h)
{
	size_t eol, k;

	for (eol = i; eol < n && eol - i < 80 && s[eol] != '\n'; eol++)
		;
	k = find_nocase(s, eol, i + sh->len, "private key-----");
	if (k == eol)
		return 0;
	h->a = i;
	h->b = block_end(s, n, k + 16);
	h->open = find_nocase(s, n, k + 16, "-----end") == n;
	return 1;
}

/* Is s[i] where a word starts (for prefixes and flags)? */
static int
word_start(const char *s, size_t i)
{
	return i == 0 || !token_char(s[i - 1]);
}

/* The next byte at or after s[i] that may anchor a shape, or n: the hot
 * loop of redaction, kept apart so that it stays in registers. */
static size_t
skip_plain(const char *s, size_t n, size_t i)
{
	while (i < n && !anchor[(unsigned char)s[i]])
		i++;
	return i;
}

/* Does a prefix shape start at s[i]? */
static int
match_prefix(const char *s, size_t n, size_t i, const struct shape *sh,
    struct hit *h)
{
	if (!word_start(s, i))
		return 0;
	if (sh->kind == SHAPE_UPPER ? n - i < sh->len || memcmp(s + i, sh->text, sh->len) != 0 :
	    !prefix_nocase(s + i, n - i, sh->text, sh->len))
		return 0;
	h->shape = sh;
	switch (sh->kind) {
	case SHAPE_TOKEN:
	case SHAPE_UPPER:
		return match_token(s, n, i, sh, h);
	case SHAPE_ARG:
		h->a = i + sh->len;
		h->b = value_end(s, n, h->a);
		return h->b - h->a >= sh->min && !is_mark(s, n, h->a);
	case SHAPE_BEARER:
		return match_bearer(s, n, i, sh, h);
	case SHAPE_PEM:
		return match_pem(s, n, i, sh, h);
	default:
		return 0;
	}
}

/* The first credential shape in s[from..n), by where it is anchored. */
static int
find_shape(const char *s, size_t n, size_t from, struct hit *h)
{
	const struct shape *sh;
	uint64_t m;
	size_t i;
	int c, k;

	index_shapes();
	h->open = 0;
	for (i = from; (i = skip_plain(s, n, i)) < n; i++) {
		c = (unsigned char)s[i];
		if (c == ':' && n - i >= 3 && s[i + 1] == '/' && s[i + 2] == '/') {
			for (sh = shapes; sh->kind != SHAPE_URL; sh++)
				;
			h->shape = sh;
			if (match_url(s, n, i, h))
				return 1;
			continue;
		}
		if ((c == '=' || c == ':') && match_field(s, n, from, i, h))
			return 1;
		if (c == '-' && word_start(s, i) && match_flag(s, n, i, h))
			return 1;
		for (m = by_anchor[c]; m != 0; m &= m - 1) {
			k = __builtin_ctzll(m);
			if (i - from >= at[k] && match_prefix(s, n, i - at[k], &shapes[k], h))
				return 1;
		}
	}
	return 0;
}

/* Soft hyphens, zero-width and other format or ignorable characters:
 * they split a word without showing. */
static int
zero_width(unsigned cp)
{
	return cp >= 0x80 && (uc_is_general_category_withtable(cp, UC_CATEGORY_MASK_Cf) ||
	    uc_is_property_default_ignorable_code_point(cp));
}

/* in[0..n) without zero-width characters into out (n bytes at most);
 * map, when given, takes each out byte's offset in in, and n at the end. */
static size_t
strip_zero_width(const char *in, size_t n, char *out, size_t *map)
{
	size_t i = 0, o = 0, k;
	unsigned cp;

	while (i < n) {
		k = in[i] == '\0' ? 0 : utf8_decode((const unsigned char *)in + i, n - i, &cp);
		if (k > 1 && zero_width(cp)) {
			i += k;
			continue;
		}
		if (k == 0)
			k = 1;
		while (k-- > 0) {
			if (map != NULL)
				map[o] = i;
			out[o++] = in[i++];
		}
	}
	if (map != NULL)
		map[o] = n;
	return o;
}

/* What the first credential shape in s is (a word, or a description), or
 * NULL when it has none. */
const char *
credential_shape(const char *s)
{
	size_t n = strlen(s);
	char *t = xmalloc(n + 1);
	struct hit h;
	const char *what;

	n = strip_zero_width(s, n, t, NULL);
	what = find_shape(t, n, 0, &h) ? h.shape->label : NULL;
	free(t);
	return what;
}

int
contains_credential(const char *s)
{
	return credential_shape(s) != NULL;
}

/* Is the whole of word a flag naming a credential (--password), whose
 * value would be the next argv element? */
int
credential_flag(const char *word)
{
	size_t n = strlen(word), end;
	char *t = xmalloc(n + 1);
	int yes;

	index_shapes();
	n = strip_zero_width(word, n, t, NULL);
	yes = n > 0 && t[0] == '-' && flag_at(t, n, 0, &end) != NULL && end == n;
	free(t);
	return yes;
}

/* The credential word an environment name mentions anywhere (any case,
 * MY_TOKEN, DB_PASSWORD, OPENAI_API_KEY, MYSQL_PWD), or NULL. */
const char *
credential_word(const char *name)
{
	const struct shape *sh;
	size_t n = strlen(name);
	char *t = xmalloc(n + 1);
	const char *w = NULL;

	n = strip_zero_width(name, n, t, NULL);
	t[n] = '\0';
	for (sh = shapes; sh < shapes + NSHAPES && w == NULL; sh++)
		if (sh->kind == SHAPE_NAME && find_nocase(t, n, 0, sh->text) < n)
			w = sh->text;
	free(t);
	return w;
}

static int
ascii(const char *s, size_t n)
{
	uint64_t w, any = 0;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		any |= w;
	}
	for (; i < n; i++)
		any |= (unsigned char)s[i];
	return (any & 0x8080808080808080ULL) == 0;
}

/*
 * Copy in to out with every credential shape replaced by "[redacted]":
 * from its credential word to the end of its value (db_password=x,
 * "Token: x", --password x), a token or a key block as a whole, the
 * password of a URL, so that the result carries no credential shape. *block carries an
 * unfinished private key block from one call to the next: its lines are
 * dropped until its END line. Pure ASCII is matched in place; other text
 * is matched without its zero-width characters and mapped back. Returns
 * the output length; out must hold 2 * n + 16 bytes.
 */
size_t
redact_credentials(const char *in, size_t n, char *out, size_t size, int *block)
{
	size_t i = 0, k = 0, o = 0, sn = n, a, *map = NULL;
	const char *s = in;
	char *norm = NULL;
	struct hit h;

	if (!ascii(in, n)) {
		norm = xmalloc(n);
		map = xmalloc((n + 1) * sizeof *map);
		sn = strip_zero_width(in, n, norm, map);
		s = norm;
	}
#define ORIG(x)	(map != NULL ? map[x] : (x))
	if (*block) {
		k = block_end(s, sn, 0);
		i = ORIG(k);
		*block = k == sn && find_nocase(s, sn, 0, "-----end") == sn;
	}
	while (!*block && find_shape(s, sn, k, &h)) {
		a = ORIG(h.a);
		if (o + (a - i) + MARKLEN > size)
			goto done;
		memcpy(out + o, in + i, a - i);
		o += a - i;
		memcpy(out + o, mark, MARKLEN);
		o += MARKLEN;
		i = ORIG(h.b);
		k = h.b;
		*block = h.open;
	}
	if (o + (n - i) <= size) {
		memcpy(out + o, in + i, n - i);
		o += n - i;
	}
done:
#undef ORIG
	free(norm);
	free(map);
	return o;
}

/*
 * A tail of output may begin inside a key block whose BEGIN line scrolled
 * out of it: an END ... PRIVATE KEY line before any BEGIN line means
 * everything up to it is the body of a key.
 */
static int
starts_in_key_block(const char *s, size_t n)
{
	size_t e = find_nocase(s, n, 0, "-----end "), eol;

	if (e == n || find_nocase(s, e, 0, "-----begin ") < e)
		return 0;
	for (eol = e; eol < n && eol - e < 80 && s[eol] != '\n'; eol++)
		;
	return find_nocase(s, eol, e, "private key-----") < eol;
}

static char *
redact_once(const char *s)
{
	size_t n = strlen(s), len;
	char *t = xmalloc(n + 1), *out = xmalloc(2 * n + 16);
	int block;

	len = strip_zero_width(s, n, t, NULL);
	block = starts_in_key_block(t, len);
	free(t);
	len = redact_credentials(s, n, out, 2 * n + 16, &block);
	out[len] = '\0';
	return out;
}

/*
 * s with every credential shape redacted, newly allocated. A shape whose
 * redaction starts past where it was found (a URL's password, after its
 * user) hides the shapes before it from that pass ("https://AKIA...:pw@h"
 * keeps the key id), so the text is redacted again until none is left;
 * text that still has one after a few passes is dropped whole.
 */
char *
redact_text(const char *s)
{
	char *out = redact_once(s), *again;
	int pass;

	for (pass = 0; pass < 8 && contains_credential(out); pass++) {
		again = redact_once(out);
		free(out);
		out = again;
	}
	if (contains_credential(out)) {
		free(out);
		out = xstrdup(mark);
	}
	return out;
}

/*
 * What the runner recorded (a ledger, a progress record, or entries of
 * one), made fit to keep: every string redacted in place, every member
 * whose name mentions a credential word (db_password) removed. The finisher does this
 * to whatever it reads of the runner's records, so the store, the agent,
 * the page and the console never see what root only recorded.
 */
void
redact_json(json_t *j)
{
	const char *key;
	json_t *v;
	void *tmp;
	size_t i;
	char *r;

	if (json_is_object(j)) {
		json_object_foreach_safe(j, tmp, key, v) {
			if (credential_word(key) != NULL)
				json_object_del(j, key);
			else if (json_is_string(v)) {
				r = redact_text(json_string_value(v));
				json_object_set_new(j, key, json_string(r));
				free(r);
			} else
				redact_json(v);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			if (json_is_string(v)) {
				r = redact_text(json_string_value(v));
				json_array_set_new(j, i, json_string(r));
				free(r);
			} else
				redact_json(v);
		}
	}
}
