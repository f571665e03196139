/* SPDX-License-Identifier: ISC */
/*
 * The page's responses: the headers every one carries, JSON and errors,
 * and the answer's MAC when it answers a signed call (pagesig.c). Calls
 * nothing else of src/web: every route may use it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web.h"

#define CSP	"default-src 'none'; script-src 'self'; style-src 'self'; " \
		"connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; " \
		"frame-ancestors 'none'"

/* The signed call being answered on this connection's thread (a thread
 * per connection): web_respond() signs its answer. Set only around a
 * route (http.c). */
static _Thread_local struct web_req *signing;

void
web_reply_signing(struct web_req *r)
{
	signing = r;
}

/* Every response's headers. */
static void
security_headers(struct MHD_Response *resp)
{
	MHD_add_response_header(resp, "Content-Security-Policy", CSP);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	MHD_add_response_header(resp, "Cross-Origin-Resource-Policy", "same-origin");
}

enum MHD_Result
web_respond(struct MHD_Connection *c, unsigned status, char *buf, size_t len, const char *type)
{
	struct MHD_Response *resp;
	char answer[PAGESIG_B64_LEN + 1];
	enum MHD_Result rc;

	resp = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(buf);
		return MHD_NO;
	}
	security_headers(resp);
	MHD_add_response_header(resp, "Content-Type", type);
	if (signing != NULL) {
		pagesig_answer(signing->key, signing->sig.mac, status, buf, len, answer);
		MHD_add_response_header(resp, PAGESIG_ANSWER, answer);
	}
	rc = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* A JSON response (takes the reference). */
enum MHD_Result
web_json(struct MHD_Connection *c, unsigned status, json_t *j)
{
	char *s = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	if (s == NULL)
		return MHD_NO;
	return web_respond(c, status, s, strlen(s), "application/json");
}

/* {"error":{"code","message"}} with status. */
enum MHD_Result
web_error(struct MHD_Connection *c, unsigned status, const char *code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return web_json(c, status, json_pack("{s:{s:s,s:s}}", "error", "code", code,
	    "message", msg));
}

