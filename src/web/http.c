/* SPDX-License-Identifier: ISC */
/*
 * The HTTP side of `warrant serve --http`: the libmicrohttpd daemon (a
 * thread per connection; conn.c bounds them), the checks before any
 * route (Host and Origin against the bound names, Sec-Fetch-Site, a JSON
 * body of bounded size, a session's signed call (pagesig.c) or an
 * event-stream ticket), pairing, the hello that proves this daemon holds
 * the session, the static page, and the headers every response carries
 * (reply.c signs the answer to a signed call). The gate routes are api.c's.
 */
#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <openssl/crypto.h>

#include "config.h"
#include "web.h"

#define PEM_MAX		(64 * 1024)

/* "[ADDR:]PORT" (ADDR numeric; IPv6 in brackets) into cfg. 0, or -1. */
int
web_parse_listen(const char *arg, struct web_config *cfg)
{
	const char *colon = strrchr(arg, ':'), *port = colon != NULL ? colon + 1 : arg;
	unsigned char buf[sizeof(struct in6_addr)];
	char *end;
	long p;
	size_t n;

	errno = 0;
	p = strtol(port, &end, 10);
	if (*port == '\0' || *end != '\0' || errno != 0 || p < 1 || p > 65535)
		return -1;
	cfg->port = (unsigned)p;
	if (colon == NULL) {
		snprintf(cfg->addr, sizeof cfg->addr, "127.0.0.1");
		return 0;
	}
	n = (size_t)(colon - arg);
	if (n >= 2 && arg[0] == '[' && arg[n - 1] == ']') {
		arg++;
		n -= 2;
	}
	if (n == 0 || n >= sizeof cfg->addr)
		return -1;
	memcpy(cfg->addr, arg, n);
	cfg->addr[n] = '\0';
	if (inet_pton(AF_INET, cfg->addr, buf) != 1 && inet_pton(AF_INET6, cfg->addr, buf) != 1)
		return -1;
	return 0;
}

static int
is_v6(const char *addr)
{
	return strchr(addr, ':') != NULL;
}

/*
 * One chunk of a request's body into *body (allocated at the first, max + 1
 * bytes, kept NUL-terminated). Past max the rest is read and dropped and
 * *too_large set: a chunked body has no length to refuse it by up front.
 */
void
web_body_add(char **body, size_t *len, int *too_large, size_t max, const char *p, size_t n)
{
	if (*too_large || *len + n > max) {
		*too_large = 1;
		return;
	}
	if (*body == NULL)
		*body = xmalloc(max + 1);
	memcpy(*body + *len, p, n);
	*len += n;
	(*body)[*len] = '\0';
}

static enum MHD_Result
static_file(struct MHD_Connection *c, const char *text, const char *type)
{
	return web_respond(c, MHD_HTTP_OK, xstrdup(text), strlen(text), type);
}

static const char *
header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static int
host_ok(const struct web *w, const char *host)
{
	size_t i;

	for (i = 0; host != NULL && i < w->nnames; i++)
		if (ascii_casecmp(host, w->names[i]) == 0)
			return 1;
	return 0;
}

/* Origin is scheme://host with a Host we answer to. */
static int
origin_ok(const struct web *w, const char *origin)
{
	const char *host;

	if (strncmp(origin, "https://", 8) == 0)
		host = origin + 8;
	else if (!w->tls && strncmp(origin, "http://", 7) == 0)
		host = origin + 7;
	else
		return 0;
	/* https:// to a bound name only under TLS; a proxy's name either way */
	if (!w->tls && strncmp(origin, "https://", 8) == 0) {
		size_t i;

		for (i = 0; i < w->cfg.nhosts; i++)
			if (ascii_casecmp(host, w->cfg.hosts[i]) == 0)
				return 1;
		return 0;
	}
	return host_ok(w, host);
}

/*
 * A fresh random secret, base64url without padding (43 characters): the
 * device sessions here, the pairing tokens of `warrant pair`.
 */
int
web_secret_new(char out[44])
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char r[33];
	size_t i, k = 0;

	if (getrandom(r, 32, 0) != 32)
		return -1;
	r[32] = 0;
	for (i = 0; i < 33; i += 3) {
		unsigned v = (unsigned)r[i] << 16 | (unsigned)r[i + 1] << 8 | r[i + 2];

		out[k++] = b64[v >> 18 & 63];
		out[k++] = b64[v >> 12 & 63];
		if (k < 43)
			out[k++] = b64[v >> 6 & 63];
		if (k < 43)
			out[k++] = b64[v & 63];
	}
	out[43] = '\0';
	explicit_bzero(r, sizeof r);
	return 0;
}

/* The daemon's log line for a refused header; its value is the client's,
 * so it is cut and neutralised like agent text. */
static void
log_refusal(struct web *w, const char *name, const char *value)
{
	char cut[48], line[96], *v;

	snprintf(cut, sizeof cut, "%s", value != NULL ? value : "(none)");
	v = text_visible(cut);
	snprintf(line, sizeof line, "refused a request: %s %s", name, v);
	free(v);
	web_refused(&w->pool, line);
}

/*
 * A session: its name (43 random characters, which the page sends with
 * every call and which is no secret), and its key, derived from the name
 * under the daemon's page secret (WEB_KEY_FILE): the key is in no request
 * and in no store, and the page got it once, at pairing. The store keeps
 * the SHA-256 of the two together, which is also the session's id here.
 */
static void
session_derive(const struct web *w, const char *name, unsigned char key[PAGESIG_KEY_LEN],
    char sid[SHA256_HEX_LEN + 1])
{
	char buf[128], k64[PAGESIG_B64_LEN + 1];
	int n;

	pagesig_key(w->secret, name, key);
	(void)pagesig_b64(key, PAGESIG_KEY_LEN, k64, sizeof k64);
	n = snprintf(buf, sizeof buf, "warrant-session\n%s\n%s", name, k64);
	sha256_bytes(buf, (size_t)n, sid);
	explicit_bzero(buf, sizeof buf);
	explicit_bzero(k64, sizeof k64);
}

/* The device of a session's name, its key and id into r; 0, 1 when there
 * is no such session. */
static int
session_find(struct web *w, const char *name, struct web_req *r)
{
	int rc;

	if (!pagesig_token(name))
		return 1;
	session_derive(w, name, r->key, r->sid);
	pthread_mutex_lock(&w->lock);
	rc = device_lookup(&w->st, r->sid, r->device, sizeof r->device);
	pthread_mutex_unlock(&w->lock);
	if (rc != 0) {
		explicit_bzero(r->key, sizeof r->key);
		r->device[0] = '\0';
		return 1;
	}
	return 0;
}

/*
 * A signed call's headers, before its body (pagesig.c): shapes, time, the
 * session, the nonce. NULL, or the refusal's code. The MAC itself needs
 * the body: sig_finish.
 */
static const char *
sig_start(struct web *w, struct MHD_Connection *c, struct web_req *r)
{
	const char *code;

	r->sig.session = header(c, PAGESIG_SESSION);
	r->sig.nonce = header(c, PAGESIG_NONCE);
	r->sig.time = header(c, PAGESIG_TIME);
	r->sig.mac = header(c, PAGESIG_MAC);
	/* the session first: a refusal of its call is then signed */
	if (session_find(w, r->sig.session, r) != 0)
		return "no_session";
	if ((code = pagesig_parse(&r->sig, now_seconds())) != NULL)
		return code;
	return pagesig_nonce_check(w->boot, r->sid, r->sig.nonce, monotonic_ms(), &r->nonce);
}

/* Spend a checked nonce (w->lock held): 0, 1 spent already, 2 too many. */
static int
nonce_spend(struct web *w, const struct pagesig_nonce *n)
{
	int64_t now = monotonic_ms();
	struct web_spent *free_slot = NULL, *e;
	size_t i;

	for (i = 0; i < WEB_NONCES_MAX; i++) {
		e = &w->spent[i];
		if (e->until > now && CRYPTO_memcmp(e->tag, n->tag, sizeof e->tag) == 0)
			return 1;
		if (free_slot == NULL && e->until <= now)
			free_slot = e;
	}
	if (free_slot == NULL)
		return 2;
	memcpy(free_slot->tag, n->tag, sizeof free_slot->tag);
	free_slot->until = n->issued_ms + PAGESIG_NONCE_TTL_MS + 1;
	return 0;
}

/* The whole call is in: its MAC, then its nonce spent. NULL, or the code. */
static const char *
sig_finish(struct web *w, struct web_req *r, const char *method)
{
	const char *code;
	int rc;

	if (r->target[0] == '\0')
		return "bad_signature";
	if ((code = pagesig_check(r->key, &r->sig, method, r->target, r->body, r->len)) != NULL)
		return code;
	pthread_mutex_lock(&w->lock);
	rc = nonce_spend(w, &r->nonce);
	pthread_mutex_unlock(&w->lock);
	return rc == 0 ? NULL : rc == 1 ? "replayed" : "busy";
}

/*
 * A refusal of a call short of a signed one of a session: one status for
 * all, the code says which (the page asks again on all but no_session).
 * When the call named a paired session and carried a MAC, the refusal is
 * signed as an answer to that MAC: the page then tells this daemon's
 * refusal (a stale time, a nonce spent) from someone else on the port.
 * The MAC binds the status and body, so a signed refusal is never more.
 */
static enum MHD_Result
unsigned_call(struct web *w, struct MHD_Connection *c, struct web_req *r, const char *code)
{
	enum MHD_Result ret;

	if (strcmp(code, "no_session") == 0)
		return web_error(c, MHD_HTTP_UNAUTHORIZED, "no_session", "this browser is not "
		    "paired (or was revoked): run `warrant pair` on the computer");
	if (r != NULL && r->device[0] != '\0' && pagesig_token(r->sig.mac))
		web_reply_signing(r);
	if (strcmp(code, "busy") == 0)
		ret = web_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "busy", "too many calls in "
		    "the last minute; try again");
	else {
		log_refusal(w, "signature", code);
		ret = web_error(c, MHD_HTTP_UNAUTHORIZED, code, "the call is not signed by "
		    "this session's key with a fresh nonce of this daemon (%s)", code);
	}
	web_reply_signing(NULL);
	return ret;
}

/*
 * POST /api/hello with the session's name and a challenge: a nonce for
 * one call, and the proof that this daemon holds the session's key. The
 * page sends no call until it has checked the proof.
 */
static enum MHD_Result
hello_route(struct web *w, struct MHD_Connection *c, struct web_req *r)
{
	const char *challenge = header(c, PAGESIG_CHALLENGE);
	char nonce[PAGESIG_NONCE_LEN + 1], proof[PAGESIG_B64_LEN + 1];

	if (!pagesig_token(challenge))
		return web_error(c, MHD_HTTP_BAD_REQUEST, "bad_challenge", PAGESIG_CHALLENGE
		    " is 43 base64url characters (32 random bytes)");
	if (session_find(w, header(c, PAGESIG_SESSION), r) != 0)
		return unsigned_call(w, c, NULL, "no_session");
	if (pagesig_nonce_make(w->boot, r->sid, monotonic_ms(), nonce) != 0)
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "no randomness for a nonce");
	pagesig_proof(r->key, challenge, nonce, proof);
	explicit_bzero(r->key, sizeof r->key);
	/* the time is this daemon's clock, which the page signs with: a
	 * phone's own may be off (it proves nothing; the nonce does) */
	return web_json(c, MHD_HTTP_OK, json_pack("{s:s,s:s,s:I}", "nonce", nonce, "proof", proof,
	    "time", (json_int_t)now_seconds()));
}

/* POST /api/events/ticket: a single-use ticket to the event stream, which
 * cannot sign (EventSource sends no headers of its own). */
static enum MHD_Result
ticket_route(struct web *w, struct MHD_Connection *c, struct web_req *r)
{
	struct web_ticket *t = NULL;
	char ticket[44];
	int64_t now = monotonic_ms();
	enum MHD_Result ret;
	size_t i;

	if (web_secret_new(ticket) != 0)
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "no randomness for a ticket");
	pthread_mutex_lock(&w->lock);
	/* an expired or unused slot, else the one that expires first */
	for (i = 0; i < WEB_TICKETS_MAX; i++)
		if (t == NULL || w->tickets[i].expires < t->expires)
			t = &w->tickets[i];
	sha256_bytes(ticket, 43, t->sha);
	memcpy(t->sid, r->sid, sizeof t->sid);
	snprintf(t->device, sizeof t->device, "%s", r->device);
	t->expires = now + WEB_TICKET_TTL_MS;
	pthread_mutex_unlock(&w->lock);
	ret = web_json(c, MHD_HTTP_OK, json_pack("{s:s,s:i}", "ticket", ticket,
	    "expires_in", WEB_TICKET_TTL_MS / 1000));
	explicit_bzero(ticket, sizeof ticket);
	return ret;
}

/* GET /api/events?ticket=T: spend the ticket, its session into r; 0, 1
 * when it is not one. */
static int
ticket_use(struct web *w, struct MHD_Connection *c, struct web_req *r)
{
	const char *ticket = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "ticket");
	char sha[SHA256_HEX_LEN + 1];
	int64_t now = monotonic_ms();
	struct web_ticket *t;
	size_t i;
	int rc = 1;

	if (!pagesig_token(ticket))
		return 1;
	sha256_bytes(ticket, strlen(ticket), sha);
	pthread_mutex_lock(&w->lock);
	for (i = 0; i < WEB_TICKETS_MAX; i++) {
		t = &w->tickets[i];
		if (t->expires > now && digest_equal(t->sha, sha)) {
			snprintf(r->device, sizeof r->device, "%s", t->device);
			memcpy(r->sid, t->sid, sizeof r->sid);
			memset(t, 0, sizeof *t);
			rc = 0;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

/* POST /api/pair {"token"[, "name"]}: the only way to a session. */
static enum MHD_Result
pair_route(struct web *w, struct MHD_Connection *c, struct web_req *r)
{
	json_t *body = json_loadb(r->body != NULL ? r->body : "", r->len, 0, NULL);
	const char *token = json_string_value(json_object_get(body, "token"));
	const char *name = json_string_value(json_object_get(body, "name"));
	char tsha[SHA256_HEX_LEN + 1], ssha[SHA256_HEX_LEN + 1], name_s[44];
	char device[GATE_ID_LEN + 1], k64[PAGESIG_B64_LEN + 1];
	unsigned char key[PAGESIG_KEY_LEN];
	enum MHD_Result ret;
	int rc;

	if (token == NULL || strlen(token) > 128 || (name != NULL && !label_valid(name))) {
		json_decref(body);
		return web_error(c, MHD_HTTP_BAD_REQUEST, "invalid_field", "the body is "
		    "{\"token\": the pairing token[, \"name\": a label for this device]}");
	}
	sha256_bytes(token, strlen(token), tsha);
	if (web_secret_new(name_s) != 0 || gate_id_new(device) != 0) {
		json_decref(body);
		return web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "no randomness for a session");
	}
	device[0] = 'd';	/* d-XXXXXXXXXX: a device, not a gate */
	session_derive(w, name_s, key, ssha);
	(void)pagesig_b64(key, sizeof key, k64, sizeof k64);
	explicit_bzero(key, sizeof key);
	pthread_mutex_lock(&w->lock);
	rc = pair_redeem(&w->st, tsha, device, name != NULL ? name : "browser", ssha);
	pthread_mutex_unlock(&w->lock);
	json_decref(body);
	if (rc > 0) {
		web_refused(&w->pool, "a pairing token was refused (unknown, used or expired)");
		ret = web_error(c, MHD_HTTP_FORBIDDEN, "pairing_refused", "this pairing link "
		    "is unknown, used or expired: run `warrant pair` again on the computer");
	} else if (rc < 0)
		ret = web_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "the daemon cannot store the device");
	else {
		/* the key, once: the page imports it as a key it cannot export */
		json_t *j = json_pack("{s:s,s:s,s:s}", "device", device, "session", name_s,
		    "key", k64);
		char *s = json_dumps(j, JSON_COMPACT);

		json_decref(j);
		warnx("web: device %s paired", device);
		ret = s != NULL ? web_respond(c, MHD_HTTP_OK, s, strlen(s), "application/json") :
		    MHD_NO;
	}
	explicit_bzero(k64, sizeof k64);
	return ret;
}

static int
is_static(const char *method, const char *url)
{
	return strcmp(method, "GET") == 0 && (strcmp(url, "/") == 0 ||
	    strcmp(url, "/app.js") == 0 || strcmp(url, "/app.css") == 0);
}

static enum MHD_Result
too_many(struct MHD_Connection *c)
{
	return web_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "too_many_connections",
	    "this session holds %d connections already", WEB_SESSION_CONN_MAX);
}

/*
 * Everything a request must pass before its body is read. Returns 0 to
 * go on, else the MHD result after a refusal was queued (r->answered).
 */
static int
precheck(struct web *w, struct MHD_Connection *c, struct web_req *r, const char *url,
    const char *method, enum MHD_Result *ret)
{
	const char *host = header(c, "Host"), *origin = header(c, "Origin");
	const char *site = header(c, "Sec-Fetch-Site"), *len = header(c, "Content-Length");
	const char *type = header(c, "Content-Type"), *code;
	int post = strcmp(method, "POST") == 0;

	r->answered = 1;
	if (!post && strcmp(method, "GET") != 0)
		*ret = web_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method_not_allowed",
		    "only GET and POST");
	else if (strncmp(url, "/box/", 5) == 0)
		/* root's, in `warrant serve --box-api`: never the reviewer's */
		*ret = web_error(c, MHD_HTTP_NOT_FOUND, "not_found", "the box password "
		    "route is served by `warrant serve --box-api`, as root, not by the "
		    "reviewer's daemon");
	else if (!host_ok(w, host)) {
		log_refusal(w, "Host", host);
		*ret = web_error(c, MHD_HTTP_MISDIRECTED_REQUEST, "bad_host", "this server "
		    "answers only to %s", w->names[0]);
	} else if (origin != NULL && !origin_ok(w, origin)) {
		log_refusal(w, "Origin", origin);
		*ret = web_error(c, MHD_HTTP_FORBIDDEN, "bad_origin", "requests from other "
		    "sites are refused");
	} else if (site != NULL && strcmp(site, "same-origin") != 0 &&
	    !(strcmp(site, "none") == 0 && strcmp(method, "GET") == 0 && strcmp(url, "/") == 0)) {
		log_refusal(w, "Sec-Fetch-Site", site);
		*ret = web_error(c, MHD_HTTP_FORBIDDEN, "cross_site", "requests from other "
		    "sites are refused");
	} else if (len != NULL && strtoull(len, NULL, 10) > WEB_BODY_MAX)
		*ret = web_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "body_too_large", "a body is "
		    "at most %d bytes", WEB_BODY_MAX);
	else if (post && (type == NULL || ascii_ncasecmp(type, "application/json", 16) != 0))
		*ret = web_error(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, "not_json", "POST bodies "
		    "are JSON (Content-Type: application/json)");
	else if (is_static(method, url) || (post && (strcmp(url, "/api/pair") == 0 ||
	    strcmp(url, "/api/hello") == 0)))
		r->answered = 0;
	else if (strcmp(method, "GET") == 0 && strcmp(url, "/api/events") == 0) {
		if (ticket_use(w, c, r) != 0)
			*ret = unsigned_call(w, c, NULL, "no_session");
		else if (web_conn_session(&w->pool, c, r->device) != 0)
			*ret = too_many(c);
		else
			r->answered = 0;
	} else if ((code = sig_start(w, c, r)) != NULL)
		*ret = unsigned_call(w, c, r, code);
	else
		r->answered = 0;
	return r->answered;
}

/* The routes of a signed call (or the event stream's ticket). */
static enum MHD_Result
signed_route(struct web *w, struct MHD_Connection *c, struct web_req *r, const char *method,
    const char *url)
{
	if (strcmp(method, "GET") == 0 && strcmp(url, "/api/session") == 0)
		return web_json(c, MHD_HTTP_OK, json_pack("{s:s,s:b}", "device", r->device,
		    "port_held", w->held));
	if (strcmp(method, "POST") == 0 && strcmp(url, "/api/events/ticket") == 0)
		return ticket_route(w, c, r);
	return api_route(w, c, r, method, url);
}

/* MHD_OPTION_URI_LOG_CALLBACK: a request begins; its target as sent (the
 * signed text names it so, query and all). */
static void *
request_start(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct web_req *r = xcalloc(1, sizeof *r);

	(void)cls;
	(void)c;
	if (strlen(uri) <= PAGESIG_TARGET_MAX)
		memcpy(r->target, uri, strlen(uri) + 1);
	return r;
}

static enum MHD_Result
handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size, void **ctx)
{
	struct web *w = cls;
	struct web_req *r = *ctx;
	enum MHD_Result ret = MHD_NO;

	(void)version;
	if (r == NULL)
		return MHD_NO;
	if (!r->started) {
		r->started = 1;
		web_conn_started(&w->pool, c);
		if (precheck(w, c, r, url, method, &ret))
			return ret;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		web_body_add(&r->body, &r->len, &r->too_large, WEB_BODY_MAX, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	if (r->answered)
		return MHD_YES;
	r->answered = 1;
	web_conn_read(&w->pool, c);
	if (r->too_large)
		return web_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "body_too_large", "a body is "
		    "at most %d bytes", WEB_BODY_MAX);
	api_reap(w);
	if (strcmp(method, "GET") == 0 && strcmp(url, "/") == 0)
		return static_file(c, web_index_html, "text/html; charset=utf-8");
	if (strcmp(method, "GET") == 0 && strcmp(url, "/app.js") == 0)
		return static_file(c, web_app_js, "text/javascript; charset=utf-8");
	if (strcmp(method, "GET") == 0 && strcmp(url, "/app.css") == 0)
		return static_file(c, web_app_css, "text/css; charset=utf-8");
	if (strcmp(method, "POST") == 0 && strcmp(url, "/api/pair") == 0)
		return pair_route(w, c, r);
	if (strcmp(method, "POST") == 0 && strcmp(url, "/api/hello") == 0)
		return hello_route(w, c, r);
	/* the event stream came with its ticket; every other call is signed */
	if (strcmp(method, "GET") != 0 || strcmp(url, "/api/events") != 0) {
		const char *code = sig_finish(w, r, method);

		if (code != NULL)
			return unsigned_call(w, c, r, code);
		if (web_conn_session(&w->pool, c, r->device) != 0)
			return too_many(c);
		r->signing = 1;
	}
	web_reply_signing(r->signing ? r : NULL);
	ret = signed_route(w, c, r, method, url);
	web_reply_signing(NULL);
	return ret;
}

static void
completed(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_RequestTerminationCode t)
{
	struct web_req *r = *ctx;

	(void)t;
	web_conn_done(&((struct web *)cls)->pool, c);
	if (r != NULL) {
		explicit_bzero(r->key, sizeof r->key);
		free(r->body);
		free(r);
		*ctx = NULL;
	}
}

/* libmicrohttpd's messages (a client's bad request, a limit reached):
 * a client can cause one per connection, so at most one line every
 * WEB_LOG_GAP_S seconds, with the count of those left out. */
static void __attribute__((format(printf, 2, 0)))
mhd_log(void *cls, const char *fmt, va_list ap)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static int64_t next;
	static unsigned left;
	int64_t now = monotonic_ms();
	char msg[512];

	(void)cls;
	vsnprintf(msg, sizeof msg, fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	pthread_mutex_lock(&lock);
	if (now >= next) {
		if (left > 0)
			warnx("web: %s (and %u more messages of the HTTP library in the last "
			    "%d s)", msg, left, WEB_LOG_GAP_S);
		else
			warnx("web: %s", msg);
		left = 0;
		next = now + WEB_LOG_GAP_S * 1000;
	} else
		left++;
	pthread_mutex_unlock(&lock);
}

/* A PEM file of the reviewer's, bounded; NULL after a message. */
static char *
read_pem(const char *path)
{
	char *buf = NULL;
	size_t len;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0 ||
	    read_bounded(fd, &buf, &len, PEM_MAX) != 0) {
		warn("serve: cannot read %s", path);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	close(fd);
	return buf;
}

/* Write the page's URL where `warrant pair` reads it (0600, atomically). */
static void
write_url(struct web *w)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 48], line[160];
	int fd, n;

	n = snprintf(line, sizeof line, "%s\n", w->url);
	if ((size_t)snprintf(path, sizeof path, "%s/%s", w->st.dir, WEB_URL_FILE) >= sizeof path ||
	    (size_t)snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid()) >= sizeof tmp)
		return;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0 ||
	    write_all(fd, line, (size_t)n) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
		warn("serve: cannot write %s", path);
		(void)unlink(tmp);
	}
}

/* cfg's address and TLS files go together; 0, or -1 after a message. */
static int
config_check(const struct web_config *cfg, const char *what)
{
	if (!web_addr_loopback(cfg->addr) && !cfg->listen_any) {
		warnx("serve: %s is not a loopback address: %s would be reachable from "
		    "other machines; give --listen-any (with --tls-cert and --tls-key) if that "
		    "is meant, or keep 127.0.0.1 behind `tailscale serve` or `ssh -L`",
		    cfg->addr, what);
		return -1;
	}
	if (!web_addr_loopback(cfg->addr) && (cfg->tls_cert == NULL || cfg->tls_key == NULL)) {
		warnx("serve: --listen-any needs --tls-cert and --tls-key: %s must not "
		    "cross a network in clear (or keep 127.0.0.1 behind `tailscale serve` "
		    "or `ssh -L`)", what);
		return -1;
	}
	if ((cfg->tls_cert == NULL) != (cfg->tls_key == NULL)) {
		warnx("serve: --tls-cert and --tls-key go together");
		return -1;
	}
	return 0;
}

/*
 * Check cfg's address and TLS files and start libmicrohttpd on it (or on
 * the listening socket fd, when fd >= 0; it is the daemon's then) with
 * the project's limits (connections, per address, idle time, memory,
 * strict parsing): what the web page and the box password route share.
 * The listener's threads take no stop signals. The daemon, or NULL after
 * a message naming what (such as "the page").
 */
struct MHD_Daemon *
web_mhd_start(const struct web_config *cfg, int fd, const char *what,
    MHD_AccessHandlerCallback handler, void *cls, MHD_RequestCompletedCallback done,
    const struct web_hooks *hooks, int *tls)
{
	struct MHD_OptionItem ops[5];
	unsigned per_ip = WEB_CONN_PER_IP;
	size_t nops = 0;
	struct sockaddr_storage ss;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
	    MHD_USE_ERROR_LOG | MHD_USE_POLL;
	char *cert = NULL, *key = NULL;
	unsigned timeout = WEB_TIMEOUT_S;
	struct MHD_Daemon *mhd;
	sigset_t block, old;

	if (config_check(cfg, what) != 0)
		return NULL;
	*tls = cfg->tls_cert != NULL;
	if (*tls) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			warnx("serve: this libmicrohttpd has no TLS");
			return NULL;
		}
		if ((cert = read_pem(cfg->tls_cert)) == NULL || (key = read_pem(cfg->tls_key)) == NULL) {
			free(cert);
			return NULL;
		}
		flags |= MHD_USE_TLS;
	}
	memset(&ss, 0, sizeof ss);
	if (is_v6(cfg->addr)) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)cfg->port);
		inet_pton(AF_INET6, cfg->addr, &s6->sin6_addr);
		flags |= MHD_USE_IPv6;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)cfg->port);
		inet_pton(AF_INET, cfg->addr, &s4->sin_addr);
	}
#if WARRANT_TEST_HOOKS
	/* the end-to-end build: a short idle timeout for the slow-client test */
	if (getenv("WARRANT_TEST_WEB_TIMEOUT") != NULL)
		timeout = (unsigned)strtoul(getenv("WARRANT_TEST_WEB_TIMEOUT"), NULL, 10);
#endif
	if (hooks != NULL && hooks->notify != NULL) {
		/* the pool's own bounds (conn.c), a share per address among them;
		 * on loopback every local user has 127.0.0.0/8 to come from, so a
		 * hard limit per address only ever hurts the reviewer's own
		 * browser and tunnels */
		ops[nops++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION,
		    (intptr_t)hooks->notify, hooks->cls };
		if (web_addr_loopback(cfg->addr))
			per_ip = 0;
	}
	if (hooks != NULL && hooks->uri_log != NULL)
		ops[nops++] = (struct MHD_OptionItem){ MHD_OPTION_URI_LOG_CALLBACK,
		    (intptr_t)hooks->uri_log, hooks->cls };
	if (fd >= 0)
		ops[nops++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, fd, NULL };
	else
		ops[nops++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, &ss };
	ops[nops++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	mhd = MHD_start_daemon(flags, (uint16_t)cfg->port,
	    hooks != NULL ? hooks->accept : NULL, hooks != NULL ? hooks->cls : NULL, handler, cls,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
	    MHD_OPTION_ARRAY, ops,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)WEB_CONN_MAX,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip,
	    MHD_OPTION_CONNECTION_TIMEOUT, timeout,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024),
	    MHD_OPTION_STRICT_FOR_CLIENT, 1,
	    MHD_OPTION_NOTIFY_COMPLETED, done, cls,
	    *tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, cert,
	    MHD_OPTION_HTTPS_MEM_KEY, key,
	    MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (key != NULL)
		explicit_bzero(key, strlen(key));
	free(cert);
	free(key);
	return mhd;
}

/* The host:port a listener answers to, first in URLs. */
void
web_host_name(const struct web_config *cfg, char *out, size_t size)
{
	if (is_v6(cfg->addr))
		snprintf(out, size, "[%s]:%u", cfg->addr, cfg->port);
	else
		snprintf(out, size, "%s:%u", cfg->addr, cfg->port);
}

/*
 * The page's secret, from which each session's key is derived: 32 bytes
 * in WEB_KEY_FILE (0600), made at the first start. Removing it ends every
 * page's session. 0, or -1 after a message.
 */
static int
secret_load(struct web *w)
{
	char path[PATH_MAX + 32];
	unsigned char buf[PAGESIG_KEY_LEN];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof path, "%s/%s", w->st.dir, WEB_KEY_FILE) >= sizeof path)
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if (getrandom(buf, sizeof buf, 0) != (ssize_t)sizeof buf) {
			warnx("serve: no randomness for the page's secret");
			return -1;
		}
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600)) < 0 || write_all(fd, buf, sizeof buf) != 0 || close(fd) != 0) {
			warn("serve: cannot write %s", path);
			explicit_bzero(buf, sizeof buf);
			return -1;
		}
		explicit_bzero(buf, sizeof buf);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		warn("serve: cannot read %s", path);
		return -1;
	}
	n = read(fd, w->secret, sizeof w->secret);
	close(fd);
	if (n != (ssize_t)sizeof w->secret) {
		warnx("serve: %s is not %d bytes: remove it (every paired page pairs again)",
		    path, PAGESIG_KEY_LEN);
		return -1;
	}
	return 0;
}

static int
is_family_loopback(const char *addr, int v6)
{
	return strcmp(addr, v6 ? "::1" : "127.0.0.1") == 0;
}

/*
 * The page's listening sockets into w (w->held when systemd's): 0, or -1
 * after a message. *localhost says whether the name may be answered:
 * only when 127.0.0.1 and ::1 of the port are both this daemon's (or this
 * computer has no ::1, so nobody has it).
 */
static int
listen_all(struct web *w, int fds[WEB_LISTEN_MAX], size_t *nfds, int *localhost)
{
	const struct web_config *cfg = &w->cfg;
	char addr[INET6_ADDRSTRLEN];
	int n, v4 = 0, v6 = 0, fd, other;
	unsigned port;

	if ((n = web_listen_inherited(cfg, fds)) < 0)
		return -1;
	if (n > 0) {
		w->held = 1;
		*nfds = (size_t)n;
		for (n = 0; (size_t)n < *nfds; n++)
			if (web_listener_addr(fds[n], addr, sizeof addr, &port) == 0) {
				v4 |= is_family_loopback(addr, 0);
				v6 |= is_family_loopback(addr, 1);
			}
		*localhost = v4 && v6;
		return 0;
	}
	if ((fd = web_listen_bind(cfg->addr, cfg->port)) < 0) {
		warn("serve: cannot serve the web page on %s (is the port taken?)", w->names[0]);
		return -1;
	}
	fds[0] = fd;
	*nfds = 1;
	*localhost = 0;
	if (!is_family_loopback(cfg->addr, 0) && !is_family_loopback(cfg->addr, 1))
		return 0;
	other = is_family_loopback(cfg->addr, 0);
	if ((fd = web_listen_bind(other ? "::1" : "127.0.0.1", cfg->port)) >= 0) {
		fds[(*nfds)++] = fd;
		*localhost = 1;
	} else if (errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT)
		*localhost = 1;
	else
		warn("serve: cannot bind %s port %u as well: the page does not answer to "
		    "localhost (a browser may reach whoever holds it), only to %s",
		    other ? "[::1]" : "127.0.0.1", cfg->port, w->names[0]);
	return 0;
}

/* Start the web page; 0, or -1 after a message. */
int
web_start(struct web *w, const struct web_config *cfg)
{
	struct web_hooks hooks = { .uri_log = request_start };
	int fds[WEB_LISTEN_MAX], localhost;
	char port[8];
	size_t i, nfds = 0;

	memset(w, 0, sizeof *w);
	w->cfg = *cfg;
	/* the names this page answers to (Host), the first one in URLs */
	snprintf(port, sizeof port, "%u", cfg->port);
	web_host_name(cfg, w->names[w->nnames++], sizeof w->names[0]);
	w->tls = cfg->tls_cert != NULL;
	snprintf(w->url, sizeof w->url, "%s://%s/", w->tls ? "https" : "http", w->names[0]);
	pthread_mutex_init(&w->lock, NULL);
	if (config_check(cfg, "the page") != 0 || store_open(&w->st) != 0)
		return -1;
	if (secret_load(w) != 0 || getrandom(w->boot, sizeof w->boot, 0) != sizeof w->boot ||
	    listen_all(w, fds, &nfds, &localhost) != 0) {
		store_close(&w->st);
		return -1;
	}
	if (localhost)
		snprintf(w->names[w->nnames++], sizeof w->names[0], "localhost:%s", port);
	for (i = 0; i < cfg->nhosts && w->nnames < sizeof w->names / sizeof w->names[0]; i++)
		snprintf(w->names[w->nnames++], sizeof w->names[0], "%s", cfg->hosts[i]);
	web_conn_hooks(&w->pool, &hooks);
	if (web_conn_start(&w->pool, "web") != 0) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		store_close(&w->st);
		return -1;
	}
	for (i = 0; i < nfds; i++) {
		w->mhd[w->nmhd] = web_mhd_start(cfg, fds[i], "the page", handle, w, completed,
		    &hooks, &w->tls);
		if (w->mhd[w->nmhd] == NULL) {
			warnx("serve: cannot serve the web page on %s", w->names[0]);
			close(fds[i]);
			while (++i < nfds)
				close(fds[i]);
			web_stop(w);
			return -1;
		}
		w->nmhd++;
	}
	write_url(w);
	warnx("serve: the web page is at %s (pair a browser with `warrant pair`)", w->url);
	if (!w->held)
		warnx("serve: warning: the page's port %u is not held by a systemd socket unit: "
		    "while this daemon is down, anyone on this computer may bind it and answer "
		    "the open page (see docs/web.md, \"A port anyone may bind\")", cfg->port);
	return 0;
}

void
web_stop(struct web *w)
{
	char path[PATH_MAX + 32];
	size_t i;

	if (w->st.dir[0] == '\0')
		return;
	w->stopping = 1;
	for (i = 0; i < w->nmhd; i++)
		MHD_stop_daemon(w->mhd[i]);
	w->nmhd = 0;
	web_conn_stop(&w->pool);
	pthread_mutex_lock(&w->lock);
	passkey_expire(w, 1);
	pthread_mutex_unlock(&w->lock);
	api_reap(w);
	if ((size_t)snprintf(path, sizeof path, "%s/%s", w->st.dir, WEB_URL_FILE) < sizeof path)
		(void)unlink(path);
	store_close(&w->st);
	pthread_mutex_destroy(&w->lock);
}
