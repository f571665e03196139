/* SPDX-License-Identifier: ISC */
/*
 * The web page and its JSON API in `warrant serve --http` (docs/protocol.md,
 * "The web page and its API"). http.c owns the HTTP listener
 * (libmicrohttpd, a thread per connection), the checks every request
 * passes (Host, Origin, Sec-Fetch-Site, body size, a signed call of a
 * session (pagesig.c) or an event ticket), pairing and the static page; api.c answers the gate routes. The web side has a
 * store connection of its own, used under one mutex; it never shares the
 * requester socket's. Approval is by a `warrant answer` child: of YOU
 * commands only (--you-only), or, where root enrolled the reviewer's
 * passkey, with the page's assertion relayed to a `--passkey-relay`
 * child (passkeyapi.c), whose runner checks it as root: nothing here can
 * make sudo ask for a password, and nothing here is trusted by root.
 * web_mhd_start is shared with the root-only box password route
 * (boxapi.h).
 */
#ifndef WEB_H
#define WEB_H

#include <sys/types.h>
#include <sys/socket.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <microhttpd.h>

#include "warrant.h"
#include "web/pagesig.h"

#define WEB_CONN_MAX		128	/* connections at once */
#define WEB_CONN_PER_IP		16	/* per address, off loopback (MHD's own) */
#define WEB_UNAUTH_MAX		32	/* connections without a session yet */
#define WEB_PEER_POOL_MAX	8	/* of those, from one address */
#define WEB_SESSION_CONN_MAX	16	/* connections of one session */
#define WEB_READ_DEADLINE_MS	5000	/* to send a whole request, without a session */
#define WEB_WRITE_DEADLINE_MS	10000	/* an answer left unread in the socket, at most */
#define WEB_NONCES_MAX		4096	/* nonces spent within their TTL */
#define WEB_LISTEN_MAX		4	/* listening sockets of the page */
#define WEB_KEY_FILE		"web.key"	/* the page's secret, in the state directory */
#define WEB_WATCH_MS		250
#define WEB_LOG_GAP_S		10	/* between two lines about refusals */
#define WEB_TIMEOUT_S		30	/* an idle connection is closed */
#define WEB_TICKETS_MAX		16	/* event-stream tickets outstanding */
#define WEB_TICKET_TTL_MS	30000
#define WEB_BODY_MAX		(64 * 1024)	/* a request body */
#define WEB_HOSTS_MAX		8
#define WEB_SSE_BEAT_MS		15000	/* a comment line on an idle event stream */
#define WEB_SSE_TICK_MS		500	/* how often the event stream looks */
#define WEB_APPROVE_WAIT_S	25	/* then the answer is "running" */
#define WEB_CHILDREN_MAX	16	/* approvals still running, to reap */
#define WEB_CEREMONIES_MAX	4	/* passkey approvals waiting for the page */
#define WEB_CEREMONY_MS		60000	/* the page's time to bring the assertion */
#define WEB_RELAY_WAIT_MS	30000	/* the answer child's time to ask for it */
#define PAIR_TTL_MAX		300	/* seconds a pairing token lives, at most */
#define WEB_URL_FILE		"web.url"	/* in the state directory */

struct web_config {
	char		 addr[64];	/* numeric */
	unsigned	 port;
	int		 listen_any;	/* a non-loopback address was asked for */
	const char	*tls_cert, *tls_key;	/* PEM files, or NULL */
	const char	*hosts[WEB_HOSTS_MAX];	/* extra Host names (a reverse proxy) */
	size_t		 nhosts;
};

/* A connection of the page (conn.c). */
struct web_conn {
	int		 used, cut;
	int		 head_in;	/* its request's head is read, its body coming */
	int		 answering;	/* its request is in: no read deadline */
	unsigned	 served;	/* requests answered on it */
	int		 fd;
	unsigned char	 peer[17];	/* its address: family, then the bytes */
	int64_t		 since;		/* start, or the end of its last request */
	int64_t		 stalled;	/* since when its answer sits unread, or 0 */
	char		 device[32];	/* the session it carried, or "" */
};

/*
 * The connections of one server and their bounds (conn.c): the page's,
 * or the box password route's, which has no sessions.
 */
struct web_pool {
	const char	*name;		/* its log lines' prefix */
	pthread_mutex_t	 lock;		/* conns and the refusal count */
	struct web_conn	 conns[WEB_CONN_MAX];
	int64_t		 read_deadline_ms;
	int64_t		 write_deadline_ms;
	unsigned	 refused;	/* since the last line about them */
	int64_t		 refused_next;
	char		 refused_last[96];
	pthread_t	 watcher;
	int		 watching;
	volatile int	 stopping;
};

/* A single-use ticket to the event stream (http.c), by its hash. */
struct web_ticket {
	char		 sha[SHA256_HEX_LEN + 1];
	char		 sid[SHA256_HEX_LEN + 1];	/* the session it was given to */
	char		 device[32];
	int64_t		 expires;
};

/* A passkey approval waiting for the page's assertion (passkeyapi.c). */
struct web_ceremony {
	char		 token[44];	/* what the page sends back; "" when free */
	char		 gate[GATE_ID_LEN + 1];
	char		 device[32];	/* the session that started it */
	pid_t		 pid;		/* its `warrant answer --passkey-relay` */
	int		 relay;		/* our end of the child's stdin */
	int		 result;	/* the child's result JSON */
	int64_t		 deadline;	/* monotonic_ms() */
};

/* A nonce spent (http.c), until it would be stale anyway. */
struct web_spent {
	unsigned char	 tag[PAGESIG_TAG_LEN];
	int64_t		 until;
};

/* What web_mhd_start adds: the connection bounds (conn.c), the raw
 * request target; each may be NULL. */
struct web_hooks {
	MHD_AcceptPolicyCallback accept;
	MHD_NotifyConnectionCallback notify;
	void		*(*uri_log)(void *, const char *, struct MHD_Connection *);
	void		*cls;
};

struct web {
	struct web_config cfg;
	struct MHD_Daemon *mhd[WEB_LISTEN_MAX];	/* one per listening socket */
	size_t		 nmhd;
	int		 held;		/* its sockets came from systemd (LISTEN_FDS) */
	int		 tls;
	char		 url[192];	/* what `warrant pair` puts in front of #token= */
	char		 names[WEB_HOSTS_MAX + 3][160];	/* accepted Host values */
	size_t		 nnames;
	unsigned char	 secret[PAGESIG_KEY_LEN];	/* WEB_KEY_FILE: sessions' keys */
	unsigned char	 boot[PAGESIG_KEY_LEN];	/* this start's: the nonces' tags */
	char		*index_html, *app_js, *app_css;
	pthread_mutex_t	 lock;		/* st and children */
	struct store	 st;
	pid_t		 children[WEB_CHILDREN_MAX];
	struct web_ticket tickets[WEB_TICKETS_MAX];	/* under lock */
	struct web_spent spent[WEB_NONCES_MAX];	/* under lock */
	struct web_ceremony ceremonies[WEB_CEREMONIES_MAX];	/* under lock */
	struct web_pool	 pool;
	volatile int	 stopping;
};

/* One HTTP request, from its headers to its response. */
struct web_req {
	char		 target[PAGESIG_TARGET_MAX + 1];	/* as sent; "" when longer */
	int		 started;	/* its headers were checked */
	char		*body;		/* up to WEB_BODY_MAX bytes, NUL-terminated */
	size_t		 len;
	int		 too_large;
	int		 answered;	/* a response is queued already */
	char		 device[32];	/* the session's device, or "" */
	char		 sid[SHA256_HEX_LEN + 1];	/* the session's hash in the store */
	unsigned char	 key[PAGESIG_KEY_LEN];	/* its key: the answer is signed with it */
	struct pagesig_req sig;		/* the call's signature headers */
	struct pagesig_nonce nonce;	/* its nonce, checked, not spent yet */
	int		 signing;	/* the call was verified: sign what answers it */
};

/* http.c */
int	 web_parse_listen(const char *, struct web_config *);
void	 web_body_add(char **, size_t *, int *, size_t, const char *, size_t);
int	 web_secret_new(char [44]);
struct MHD_Daemon *web_mhd_start(const struct web_config *, int, const char *,
	    MHD_AccessHandlerCallback, void *, MHD_RequestCompletedCallback,
	    const struct web_hooks *, int *);
void	 web_host_name(const struct web_config *, char *, size_t);
int	 web_addr_loopback(const char *);
int	 web_start(struct web *, const struct web_config *);
void	 web_stop(struct web *);
/* reply.c */
void	 web_reply_signing(struct web_req *);
enum MHD_Result web_respond(struct MHD_Connection *, unsigned, char *, size_t, const char *);
enum MHD_Result web_json(struct MHD_Connection *, unsigned, json_t *);
enum MHD_Result web_error(struct MHD_Connection *, unsigned, const char *, const char *, ...)
	    __attribute__((format(printf, 4, 5)));

/* pageport.c */
int	 web_listen_inherited(const struct web_config *, int [WEB_LISTEN_MAX]);
int	 web_listen_bind(const char *, unsigned);
int	 web_listener_addr(int, char *, size_t, unsigned *);

/* conn.c */
void	 web_conn_hooks(struct web_pool *, struct web_hooks *);
int	 web_conn_start(struct web_pool *, const char *);
void	 web_conn_stop(struct web_pool *);
int	 web_conn_session(struct web_pool *, struct MHD_Connection *, const char *);
void	 web_conn_started(struct web_pool *, struct MHD_Connection *);
void	 web_conn_read(struct web_pool *, struct MHD_Connection *);
void	 web_conn_done(struct web_pool *, struct MHD_Connection *);
void	 web_refused(struct web_pool *, const char *);

/* api.c */
enum MHD_Result api_route(struct web *, struct MHD_Connection *, struct web_req *, const char *,
	    const char *);
void	 api_reap(struct web *);
char	*visible_lines(const char *);
json_t	*web_body_object(struct MHD_Connection *, const struct web_req *, const char *const *,
	    enum MHD_Result *);
int	 web_resolve(struct web *, struct MHD_Connection *, const char *, char [GATE_ID_LEN + 1],
	    enum MHD_Result *);
json_t	*approval_body(struct MHD_Connection *, const struct web_req *, const char *const *,
	    char [SHA256_HEX_LEN + 1], enum MHD_Result *);
int	 approval_check(struct web *, struct MHD_Connection *, const char *, const char *,
	    json_t *, int, enum MHD_Result *);
pid_t	 approval_start(struct web *, const char *, const char *, json_t *, const char *, int,
	    int *);
enum MHD_Result approval_answer(struct web *, struct MHD_Connection *, const char *, pid_t,
	    int);
void	 child_keep(struct web *, pid_t);

/* passkeyapi.c: enrolling and approving with the reviewer's passkey */
enum MHD_Result passkey_route(struct web *, struct MHD_Connection *, struct web_req *, int,
	    const char *);
enum MHD_Result passkey_gate_route(struct web *, struct MHD_Connection *, struct web_req *,
	    const char *, const char *);
void	 passkey_expire(struct web *, int);

/* assets.c (generated from data/web) */
extern const char web_index_html[], web_app_js[], web_app_css[];

#endif
