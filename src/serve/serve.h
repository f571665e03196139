/* SPDX-License-Identifier: ISC */
/*
 * warrant serve: the reviewer's daemon (docs/protocol.md). listen.c owns
 * the socket and the loop over the connections (framing, limits,
 * timeouts) and knows nothing of gates; connection.c is what an operation does
 * with a connection (replies, output buffers, workers); peer.c says who a peer is and
 * whether it may ask; ops.c answers the requester operations for one
 * peer, on the reviewer's store, only ever about that peer's own gates;
 * worker.c judges and stores each request in a process of its own.
 */
#ifndef SERVE_H
#define SERVE_H

#include <sys/stat.h>

#include "warrant.h"

#define SERVE_LINE_MAX		(256 * 1024)	/* one message with its newline */
#define SERVE_CONN_MAX		64		/* connections at once */
#define SERVE_CONN_PER_UID	8
#define SERVE_MESSAGE_MS	30000		/* to send a whole message */
#define SERVE_OUT_MAX		(4 * 1024 * 1024)	/* replies not yet read */
#define SERVE_TICK_MS		250		/* how often waited gates are read */
#define SERVE_BEAT_MS		5000		/* "pending" lines while waiting */
#define SERVE_QUOTA_PENDING	16		/* pending gates per requester ... */
#define SERVE_RATE_COUNT	30		/* ... and requests ... */
#define SERVE_RATE_SECONDS	60		/* ... in any this many seconds */
#define SERVE_LIMIT_MAX		100000		/* what the options may raise them to */
/* The metadata a requester's gates may take (manifests, ledgers; settled
 * ones until `warrant gc` prunes them): a few thousand ordinary requests,
 * a few hundred of the largest. */
#define SERVE_META_QUOTA_KIB	65536
#define SERVE_META_QUOTA_MAX	(16 * 1048576)	/* KiB the option may raise it to */
#define SERVE_RATE_UIDS		1024		/* requesters remembered for the rate */
#define SERVE_CHILDREN_MAX	8		/* workers (conn_fork) at once ... */
#define SERVE_CHILDREN_PER_UID	2		/* ... and for one requester */
#define SERVE_CHILD_MS		45000		/* a worker's time: ssh's 15 s and more */
#define SERVE_CHILD_OUT_MAX	(16 * 1024 * 1024)	/* what a worker may say */

/* Who is on the other end, as the kernel said at accept. */
struct peer {
	uid_t		 uid;
	gid_t		 gid;
	pid_t		 pid;
	long long	 start;		/* the pid's procfs start time, or -1 */
	gid_t		*groups;	/* SO_PEERGROUPS */
	int		 ngroups;
	char		 name[64];	/* from the passwd entry of uid, or "" */
};

/* The daemon's own identity and where it listens. */
struct daemon {
	uid_t		 uid;
	char		 name[64];	/* the reviewer */
	char		*home;		/* its home: where YOU commands run by default */
	char		 group[80];	/* warrant-REVIEWER */
	char		 dir[96];
	char		 path[108];	/* sizeof sun_path */
	struct stat	 bound;		/* the socket file made here */
	struct store	 st;
	long		 max_pending;	/* serve --max-pending */
	long		 rate_count;	/* serve --rate */
	long long	 meta_quota;	/* serve --meta-quota, in bytes */
	struct rate {
		uid_t	 uid;
		int64_t	*at;		/* ring of the last rate_count request times */
		long	 next;
	}		*rates;
	size_t		 nrates;
	int		 web;		/* the web page is served too: the socket may be missing */
};

struct conn;

/* listen.c */
int	 serve_run(struct daemon *);

/* connection.c */
struct conn *conn_open(int, struct peer *);
void	 conn_close(struct conn *);
void	 conn_reply(struct conn *, json_t *, int);
void	 conn_error(struct conn *, const char *, const char *, const char *, ...)
	    __attribute__((format(printf, 4, 5)));
const struct peer *conn_peer(const struct conn *);
void	 conn_wait(struct conn *, const char *, int64_t);
pid_t	 conn_fork(struct conn *, json_t *, int, int *);
size_t	 conn_workers(uid_t);

/* peer.c */
int	 peer_read(int, struct peer *);
void	 peer_free(struct peer *);
int	 peer_admitted(const struct daemon *, struct peer *, char *, size_t);
int	 daemon_identity(struct daemon *);

/* coreview.c: the co-reviewers' operations (two-person rule) */
void	 op_review_list(struct daemon *, struct conn *, json_t *);
void	 op_review_show(struct daemon *, struct conn *, json_t *);
void	 op_review(struct daemon *, struct conn *, json_t *);

/* ops.c */
void	 ops_message(struct daemon *, struct conn *, const char *, size_t);
int	 ops_wait_tick(struct daemon *, struct conn *, const char *, int64_t, int);
void	 rates_free(struct daemon *);
void	 ops_child_done(struct daemon *, struct conn *, json_t *, const char *, size_t);
int	 members_only(struct conn *, json_t *, const char *const *);
int	 request_submit(struct store *, const struct peer *, const char *, json_t *,
	    const json_t *, json_t **, struct refusal *);

/* worker.c: requests with snapshots, stored by a fresh warrant process */
void	 worker_start(struct daemon *, struct conn *, json_t *);
int	 worker_main(void);

/* push.c: the hint-only push of serve --notify-url. */
struct push;
int	 push_url_check(const char *, const char **);
struct push *push_start(const char *);
void	 push_stop(struct push *);

#endif
