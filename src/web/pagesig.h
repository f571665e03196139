/* SPDX-License-Identifier: ISC */
/*
 * The page's signed calls (docs/web.md, "A port anyone may bind"): the
 * texts the page and the daemon MAC with a session's key, the nonces the
 * daemon hands out, and the parse of a signed request's headers. Pure
 * parts, without the HTTP library: the unit of the fuzz target.
 */
#ifndef WARRANT_PAGESIG_H
#define WARRANT_PAGESIG_H

#include <stddef.h>
#include <stdint.h>

#define PAGESIG_KEY_LEN		32	/* bytes of a key (HMAC-SHA256) */
#define PAGESIG_B64_LEN		43	/* base64url of 32 bytes, no padding */
#define PAGESIG_NONCE_RAW	40	/* issue time (8), random (16), tag (16) */
#define PAGESIG_NONCE_LEN	54	/* its base64url */
#define PAGESIG_TAG_LEN		16
#define PAGESIG_WINDOW_S	60	/* a call's time, either side of the daemon's */
#define PAGESIG_NONCE_TTL_MS	60000	/* a nonce is spent within this, or never */
#define PAGESIG_TARGET_MAX	1000	/* bytes of a signed request target */

#define PAGESIG_SESSION		"X-Warrant-Session"
#define PAGESIG_NONCE		"X-Warrant-Nonce"
#define PAGESIG_TIME		"X-Warrant-Time"
#define PAGESIG_MAC		"X-Warrant-Mac"
#define PAGESIG_CHALLENGE	"X-Warrant-Challenge"
#define PAGESIG_ANSWER		"X-Warrant-Answer"

/* A signed call's headers, as sent (each NULL when absent). */
struct pagesig_req {
	const char	*session, *nonce, *time, *mac;
};

/* What a nonce says once its tag is checked. */
struct pagesig_nonce {
	int64_t		 issued_ms;	/* on the daemon's monotonic clock */
	unsigned char	 tag[PAGESIG_TAG_LEN];
};

int	 pagesig_b64(const unsigned char *, size_t, char *, size_t);
int	 pagesig_unb64(const char *, unsigned char *, size_t);
int	 pagesig_token(const char *);
void	 pagesig_hmac(const unsigned char [PAGESIG_KEY_LEN], const void *, size_t,
	    unsigned char [32]);
void	 pagesig_key(const unsigned char [PAGESIG_KEY_LEN], const char *,
	    unsigned char [PAGESIG_KEY_LEN]);
int	 pagesig_nonce_make(const unsigned char [PAGESIG_KEY_LEN], const char *, int64_t,
	    char [PAGESIG_NONCE_LEN + 1]);
const char *pagesig_nonce_check(const unsigned char [PAGESIG_KEY_LEN], const char *,
	    const char *, int64_t, struct pagesig_nonce *);
void	 pagesig_proof(const unsigned char [PAGESIG_KEY_LEN], const char *, const char *,
	    char [PAGESIG_B64_LEN + 1]);
const char *pagesig_parse(const struct pagesig_req *, int64_t);
const char *pagesig_check(const unsigned char [PAGESIG_KEY_LEN], const struct pagesig_req *,
	    const char *, const char *, const char *, size_t);
void	 pagesig_answer(const unsigned char [PAGESIG_KEY_LEN], const char *, unsigned,
	    const char *, size_t, char [PAGESIG_B64_LEN + 1]);

#endif
