/* SPDX-License-Identifier: ISC */
/*
 * `warrant serve --box-api [ADDR:]PORT`: root's listener for the box
 * password route, POST /box/set-password (the one box user with a key)
 * and POST /box/NAME/set-password, and nothing else: no requester socket,
 * no page, no store. Each request is checked in this order: the path,
 * the body's size and type, the box user's key, the timestamp and the
 * HMAC-SHA256 signature (boxsig.c), then the signature against those seen
 * within the window (kept in a root-only file, so a replay is refused
 * after a restart too; a signature is spent once checked), then the body;
 * the password is applied by box passwd's own code (src/box/passwd.c).
 * The body is never logged; the log says which user and what happened.
 * Its connections have the page's bounds (conn.c): a pool with a share
 * per address and deadlines to send a request and to read the answer.
 */
#include <err.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <openssl/crypto.h>

#include "web/web.h"
#include "web/boxapi.h"

#define SEEN_REC	(8 + BOXSIG_MAC_LEN)	/* big-endian time, then the MAC */

struct seen {
	int64_t		 ts;
	unsigned char	 mac[BOXSIG_MAC_LEN];
};

struct boxapi {
	struct web_pool	 pool;
	pthread_mutex_t	 lock;		/* the seen list and its file */
	struct seen	*seen;		/* BOXAPI_SEEN_MAX of them */
	size_t		 nseen;
};

struct boxreq {
	char		 target[BOXAPI_TARGET_MAX + 1];	/* as sent; "" when longer */
	char		*body;		/* BOXAPI_BODY_MAX + 1 bytes, wiped when freed */
	size_t		 len;
	int		 too_large;
	int		 started;	/* its headers were checked */
	int		 answered;
};

static void
seen_prune(struct boxapi *a, int64_t now)
{
	size_t i, k = 0;

	for (i = 0; i < a->nseen; i++)
		if (a->seen[i].ts + BOXSIG_WINDOW >= now)
			a->seen[k++] = a->seen[i];
	a->nseen = k;
}

static int
seen_save(const struct boxapi *a)
{
	unsigned char *buf = xmalloc(a->nseen * SEEN_REC + 1), *p = buf;
	size_t i;
	int b, rc;

	for (i = 0; i < a->nseen; i++) {
		for (b = 7; b >= 0; b--)
			*p++ = (unsigned char)((uint64_t)a->seen[i].ts >> (b * 8));
		memcpy(p, a->seen[i].mac, BOXSIG_MAC_LEN);
		p += BOXSIG_MAC_LEN;
	}
	rc = box_api_write(BOX_API_SEEN, buf, a->nseen * SEEN_REC);
	free(buf);
	return rc;
}

static int
seen_load(struct boxapi *a)
{
	size_t size = BOXAPI_SEEN_MAX * SEEN_REC, len, i;
	unsigned char *buf = xmalloc(size), *p;
	uint64_t t;
	int b, rc;

	a->nseen = 0;
	if ((rc = box_api_read(BOX_API_SEEN, buf, size, &len)) < 0 ||
	    (rc == 0 && len % SEEN_REC != 0)) {
		warnx("serve: the seen-signature file is damaged; remove it only when no "
		    "signature of the last %d seconds can be replayed", BOXSIG_WINDOW);
		free(buf);
		return -1;
	}
	for (i = 0, p = buf; rc == 0 && i < len / SEEN_REC; i++) {
		for (t = 0, b = 0; b < 8; b++)
			t = t << 8 | *p++;
		a->seen[a->nseen].ts = (int64_t)t;
		memcpy(a->seen[a->nseen].mac, p, BOXSIG_MAC_LEN);
		p += BOXSIG_MAC_LEN;
		a->nseen++;
	}
	free(buf);
	return 0;
}

/* Spend a signature: 0 recorded (on disk), 1 seen already, 2 the list is
 * full, -1 it could not be recorded. */
static int
seen_spend(struct boxapi *a, int64_t ts, const unsigned char mac[BOXSIG_MAC_LEN])
{
	size_t i;
	int rc = 0;

	pthread_mutex_lock(&a->lock);
	seen_prune(a, now_seconds());
	for (i = 0; i < a->nseen; i++)
		if (CRYPTO_memcmp(a->seen[i].mac, mac, BOXSIG_MAC_LEN) == 0)
			rc = 1;
	if (rc == 0 && a->nseen == BOXAPI_SEEN_MAX)
		rc = 2;
	if (rc == 0) {
		a->seen[a->nseen].ts = ts;
		memcpy(a->seen[a->nseen].mac, mac, BOXSIG_MAC_LEN);
		a->nseen++;
		if (seen_save(a) != 0) {
			a->nseen--;
			rc = -1;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return rc;
}

static const char *
header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* A refusal, logged with its code and the user (never the body). */
static enum MHD_Result
refuse_req(struct MHD_Connection *c, const char *user, unsigned status, const char *code,
    const char *msg)
{
	warnx("box-api: refused a request%s%s: %s", *user ? " for " : "", user, code);
	return web_error(c, status, code, "%s", msg);
}

/* Every reason a request is not authenticated gets this one answer (the
 * log says which): nobody learns from it which box users have keys. */
static enum MHD_Result
unauthorized(struct MHD_Connection *c, const char *user, const char *code)
{
	warnx("box-api: refused a request%s%s: %s", *user ? " for " : "", user, code);
	return web_error(c, MHD_HTTP_UNAUTHORIZED, BOXAPI_UNAUTH_CODE, "%s", BOXAPI_UNAUTH_MSG);
}

/* The route, once the whole body is in. */
static enum MHD_Result
set_password(struct boxapi *a, struct MHD_Connection *c, const char *url, struct boxreq *r)
{
	unsigned char key[BOXSIG_KEY_LEN], mac[BOXSIG_MAC_LEN];
	char name[BOX_NAME_MAX + 1], pw[BOX_PW_BYTES + 2], msg[512];
	const char *code, *ts = header(c, BOXAPI_TS_HEADER);
	struct refusal rf;
	enum MHD_Result ret;
	size_t pwlen;
	int rc, clear, known;

	if (r->target[0] == '\0')
		return refuse_req(c, "", MHD_HTTP_URI_TOO_LONG, "target_too_long", "the request "
		    "target is longer than 1,000 bytes");
	if (boxapi_parse_path(url, name) != 0)
		return refuse_req(c, "", MHD_HTTP_NOT_FOUND, "not_found", "POST "
		    BOXAPI_PATH " or /box/NAME/set-password");
	if (name[0] == '\0' && (rc = box_apikey_only(name)) != 0) {
		if (rc < 0)
			return refuse_req(c, "", MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
			    "the box keys cannot be read");
		name[0] = '\0';
		known = 0;
	} else if ((rc = box_apikey_load(name, key)) < 0)
		return refuse_req(c, name, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
		    "this box user's key cannot be read");
	else
		known = rc == 0;
	/* an unknown user's request is checked all the same, under a key
	 * nobody has, so it takes as long and is refused the same way */
	if (!known && getrandom(key, sizeof key, 0) != (ssize_t)sizeof key)
		memset(key, 0xa5, sizeof key);
	code = boxsig_verify(key, ts, header(c, BOXAPI_SIG_HEADER), "POST", r->target, r->body,
	    r->len, (time_t)now_seconds(), mac);
	OPENSSL_cleanse(key, sizeof key);
	if (!known)
		return unauthorized(c, name, "unknown_box_user");
	if (code != NULL)
		return unauthorized(c, name, code);
	rc = seen_spend(a, strtoll(ts, NULL, 10), mac);
	if (rc == 1)
		return refuse_req(c, name, MHD_HTTP_CONFLICT, "replayed", "this signature was "
		    "used already: sign each request afresh");
	if (rc == 2)
		return refuse_req(c, name, MHD_HTTP_SERVICE_UNAVAILABLE, "busy", "too many "
		    "signed requests in the last 300 seconds; try again later");
	if (rc < 0)
		return refuse_req(c, name, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "the "
		    "signature cannot be recorded as used, so nothing is applied");
	if ((code = boxapi_parse_body(r->body, r->len, pw, sizeof pw, &pwlen, &clear)) != NULL) {
		OPENSSL_cleanse(pw, sizeof pw);
		return refuse_req(c, name, MHD_HTTP_BAD_REQUEST, code,
		    strcmp(code, "bad_password") == 0 ? "the password is refused: 8 to 128 "
		    "characters, no line break or NUL; nothing changed" : "the body is "
		    "{\"password\": a string, or null to clear it}");
	}
	if (getpwnam(name) == NULL) {
		OPENSSL_cleanse(pw, sizeof pw);
		return refuse_req(c, name, MHD_HTTP_NOT_FOUND, "unknown_box_user", "this box "
		    "user does not exist on this machine");
	}
	if (box_passwd_check(name, &rf) != 0) {
		OPENSSL_cleanse(pw, sizeof pw);
		snprintf(msg, sizeof msg, "%s", rf.message);
		return refuse_req(c, name, MHD_HTTP_CONFLICT, rf.code, msg);
	}
	rc = clear ? box_passwd_clear(name, stderr) : box_passwd_set(name, pw, pwlen, stderr);
	OPENSSL_cleanse(pw, sizeof pw);
	if (rc != 0)
		return refuse_req(c, name, MHD_HTTP_INTERNAL_SERVER_ERROR, "apply_failed", "the "
		    "password could not be applied (the server's log says which step)");
	warnx("box-api: the box password of %s is %s", name, clear ? "cleared" : "set");
	ret = web_json(c, MHD_HTTP_OK, json_pack("{s:s,s:b}", "user", name, "password_set",
	    !clear));
	return ret;
}

static enum MHD_Result
handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size, void **ctx)
{
	struct boxapi *a = cls;
	struct boxreq *r = *ctx;
	const char *len = header(c, "Content-Length"), *type = header(c, "Content-Type");
	char name[BOX_NAME_MAX + 1];

	(void)version;
	if (r == NULL)
		return MHD_NO;
	if (!r->started) {
		r->started = 1;
		r->answered = 1;
		web_conn_started(&a->pool, c);
		if (strcmp(method, "POST") != 0)
			return refuse_req(c, "", MHD_HTTP_METHOD_NOT_ALLOWED,
			    "method_not_allowed", "only POST");
		if (boxapi_parse_path(url, name) != 0)
			return refuse_req(c, "", MHD_HTTP_NOT_FOUND, "not_found", "POST "
			    BOXAPI_PATH " or /box/NAME/set-password");
		if (len != NULL && strtoull(len, NULL, 10) > BOXAPI_BODY_MAX)
			return refuse_req(c, "", MHD_HTTP_CONTENT_TOO_LARGE, "body_too_large",
			    "the body is at most 4096 bytes");
		if (type == NULL || ascii_ncasecmp(type, "application/json", 16) != 0)
			return refuse_req(c, "", MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, "not_json",
			    "the body is JSON (Content-Type: application/json)");
		r->answered = 0;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		web_body_add(&r->body, &r->len, &r->too_large, BOXAPI_BODY_MAX, upload,
		    *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	if (r->answered)
		return MHD_YES;
	r->answered = 1;
	web_conn_read(&a->pool, c);
	if (r->too_large)
		return refuse_req(c, "", MHD_HTTP_CONTENT_TOO_LARGE, "body_too_large",
		    "the body is at most 4096 bytes");
	return set_password(a, c, url, r);
}

/* MHD_OPTION_URI_LOG_CALLBACK: each request's state, from its target as
 * sent (percent-escapes and query kept), which the signature covers. */
static void *
request_start(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct boxreq *r = xcalloc(1, sizeof *r);

	(void)cls;
	(void)c;
	if (strlen(uri) <= BOXAPI_TARGET_MAX)
		memcpy(r->target, uri, strlen(uri) + 1);
	return r;
}

static void
completed(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_RequestTerminationCode t)
{
	struct boxapi *a = cls;
	struct boxreq *r = *ctx;

	(void)t;
	web_conn_done(&a->pool, c);
	if (r != NULL) {
		if (r->body != NULL)
			OPENSSL_cleanse(r->body, BOXAPI_BODY_MAX + 1);
		free(r->body);
		free(r);
		*ctx = NULL;
	}
}

/* Serve the route until SIGINT or SIGTERM; 0, or -1 after a message. */
int
boxapi_serve(const struct web_config *cfg)
{
	struct rlimit rl = { 0, 0 };
	struct boxapi a;
	struct web_hooks hooks = { .uri_log = request_start };
	struct MHD_Daemon *mhd;
	sigset_t stop;
	char where[160];
	int tls, sig, rc;

	if (getuid() != 0 || geteuid() != 0) {
		warnx("serve: --box-api runs as root: it changes box users' passwords with "
		    "keys only root can read");
		return -1;
	}
	/* memory that holds a password never goes into a core dump */
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	(void)setrlimit(RLIMIT_CORE, &rl);
	memset(&a, 0, sizeof a);
	a.seen = xcalloc(BOXAPI_SEEN_MAX, sizeof *a.seen);
	pthread_mutex_init(&a.lock, NULL);
	if (seen_load(&a) != 0) {
		free(a.seen);
		return -1;
	}
	/* the main thread waits for the stop signals; no thread takes them */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	web_host_name(cfg, where, sizeof where);
	if (web_conn_start(&a.pool, "box-api") != 0) {
		free(a.seen);
		return -1;
	}
	web_conn_hooks(&a.pool, &hooks);
	if ((mhd = web_mhd_start(cfg, -1, "the box password route", handle, &a, completed, &hooks,
	    &tls)) == NULL) {
		warnx("serve: cannot serve the box password route on %s (is the port "
		    "taken?)", where);
		web_conn_stop(&a.pool);
		free(a.seen);
		return -1;
	}
	warnx("serve: the box password route is at %s://%s" BOXAPI_PATH,
	    tls ? "https" : "http", where);
	rc = 0;
	while (sigwait(&stop, &sig) != 0)
		;
	warnx("serve: stopping (signal %d)", sig);
	MHD_stop_daemon(mhd);
	web_conn_stop(&a.pool);
	pthread_mutex_destroy(&a.lock);
	free(a.seen);
	return rc;
}
