/* SPDX-License-Identifier: ISC */
/*
 * The box password route, POST /box/set-password (docs/protocol.md, "The
 * box password route"), served only by the root mode `warrant serve
 * --box-api`. boxsig.c holds the pure parts (the signed text, its check,
 * the path and the body), which the unit test and the fuzz target drive;
 * boxapi.c the listener, the keys, the seen-signature cache and the apply.
 */
#ifndef WARRANT_BOXAPI_H
#define WARRANT_BOXAPI_H

#include <stddef.h>
#include <time.h>

#include "box/box.h"

#define BOXSIG_KEY_LEN		32	/* bytes of the HMAC-SHA256 key */
#define BOXSIG_MAC_LEN		32
#define BOXSIG_WINDOW		300	/* seconds either side of now */
#define BOXSIG_TS_DIGITS	12
#define BOXSIG_PREFIX		"v1="
#define BOXAPI_BODY_MAX		4096
#define BOXAPI_SEEN_MAX		4096	/* signatures remembered, at most */
#define BOXAPI_PATH		"/box/set-password"
#define BOXAPI_TARGET_MAX	1000	/* bytes of the request target, signed as sent */
#define BOXAPI_UNAUTH_CODE	"unauthorized"
#define BOXAPI_UNAUTH_MSG	"the request is not signed by a key of this machine: " \
	"X-Warrant-Timestamp (seconds, within 300 of this clock) and X-Warrant-Signature " \
	"(v1=HEX, the HMAC-SHA256 of \"v1\\n\" TS \"\\n\" METHOD \"\\n\" TARGET \"\\n\" " \
	"BODY under the box user's key, TARGET the request target exactly as sent)"
#define BOXAPI_TS_HEADER	"X-Warrant-Timestamp"
#define BOXAPI_SIG_HEADER	"X-Warrant-Signature"

/* boxsig.c */
int	 boxsig_mac(const unsigned char [BOXSIG_KEY_LEN], const char *, const char *,
	    const char *, const char *, size_t, unsigned char [BOXSIG_MAC_LEN]);
const char *boxsig_verify(const unsigned char [BOXSIG_KEY_LEN], const char *,
	    const char *, const char *, const char *, const char *, size_t, time_t,
	    unsigned char [BOXSIG_MAC_LEN]);
int	 boxapi_parse_path(const char *, char [BOX_NAME_MAX + 1]);
const char *boxapi_parse_body(const char *, size_t, char *, size_t, size_t *, int *);

/* boxapi.c */
struct web_config;
int	 boxapi_serve(const struct web_config *);

#endif
