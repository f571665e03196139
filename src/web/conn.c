/* SPDX-License-Identifier: ISC */
/*
 * The connections of `warrant serve --http` and of `warrant serve
 * --box-api` (docs/web.md, "Connections"): who may hold one, and for how
 * long. At accept time nothing tells the reviewer's browser (or the
 * platform's call) from an agent's flood, so a connection starts in a
 * small pool of its own (WEB_UNAUTH_MAX): when the pool is full, a new
 * connection takes the place of one in it that is not being answered and
 * has no whole request head waiting to be read: the one that made the
 * least progress (nothing whole sent and nothing answered, before idle
 * after answers, before a request whose body is coming), then the
 * oldest. One address holds at most WEB_PEER_POOL_MAX of the pool the
 * same way: past that, a new connection from it takes the place of one
 * of its own, so a flood from a few addresses leaves room for the
 * others and never shuts out a browser, whose new connection may take
 * the place of a flood's, and whose requests in progress a flood's new
 * connections pass over. A connection in
 * the pool has WEB_READ_DEADLINE_MS in total, from its start or the end
 * of its last request, to send a whole request, headers and body: a
 * trickle of bytes does not extend it. A connection whose request was
 * authenticated (a session's cookie and key, or an event ticket) leaves
 * the pool and stays its session's through keep-alive, up to
 * WEB_SESSION_CONN_MAX for one session; the box route has no sessions,
 * so all its connections stay in the pool.
 * Any connection whose answer sits unread in its socket (the kernel's
 * send queue not empty) for WEB_WRITE_DEADLINE_MS without a pause is cut,
 * a session's too: a client that reads a byte now and then keeps the
 * HTTP library's idle timeout at bay, not this. When the pool is full, a
 * new connection may also take the place of one in the pool whose answer
 * is stalled so. Refusals and cut connections are logged at most once every
 * WEB_LOG_GAP_S seconds, with a count.
 */
#include <err.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <unistd.h>

#include "config.h"
#include "web.h"

static struct web_conn *
conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(c,
	    MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i != NULL ? i->socket_context : NULL;
}

/* A refusal (w->lock held): logged now, or counted for the next line. */
static void
refused_locked(struct web_pool *w, const char *what)
{
	int64_t now = monotonic_ms();

	w->refused++;
	if (what != w->refused_last)
		snprintf(w->refused_last, sizeof w->refused_last, "%s", what);
	if (now < w->refused_next)
		return;
	if (w->refused == 1)
		warnx("%s: %s", w->name, what);
	else
		warnx("%s: %u connections or requests refused or cut in the last %d s, the "
		    "last: %s", w->name, w->refused, WEB_LOG_GAP_S, what);
	w->refused = 0;
	w->refused_next = now + WEB_LOG_GAP_S * 1000;
}

void
web_refused(struct web_pool *w, const char *what)
{
	pthread_mutex_lock(&w->lock);
	refused_locked(w, what);
	pthread_mutex_unlock(&w->lock);
}

/* Cut a connection (w->lock held): its thread sees the end and closes it. */
static void
cut(struct web_conn *k)
{
	(void)shutdown(k->fd, SHUT_RDWR);
	k->cut = 1;
}

static int
in_pool(const struct web_conn *k)
{
	return k->used && !k->cut && k->device[0] == '\0';
}

/*
 * Has a whole request head arrived on fd, not yet read by its thread?
 * Such a connection is about to be served (or leave the pool with its
 * session): it is not the one to cut, however slow its thread is to run.
 */
static int
head_waiting(int fd)
{
	char buf[4096];
	ssize_t n = recv(fd, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);

	return n >= 4 && memmem(buf, (size_t)n, "\r\n\r\n", 4) != NULL;
}

/* Bytes of the answer not yet taken by the client (SIOCOUTQ). */
static int
unread(int fd)
{
	int n = 0;

	return ioctl(fd, SIOCOUTQ, &n) == 0 ? n : 0;
}

/*
 * May a new connection take k's place, and how readily (lower first; 0
 * not at all)? A flood of connections that never send a whole request
 * must not push out the reviewer's browser, whose connections make
 * progress; age alone would, since the flood's, cut and made again,
 * are always the youngest. First one whose answer is stalled, or that
 * has neither sent a whole request head nor been answered (1); then one
 * idle after answers, kept alive (2); last one whose request head is
 * read and whose body is coming (3). Never one being answered, or with
 * a whole head unread in its socket (it is about to be).
 */
static int
eviction_rank(const struct web_conn *k)
{
	if (!in_pool(k))
		return 0;
	if (k->answering)
		return k->stalled != 0 ? 1 : 0;
	if (head_waiting(k->fd))
		return 0;
	if (k->head_in)
		return 3;
	return k->served > 0 ? 2 : 1;
}

/* An address as a key: its family, then its bytes (zeros for others). */
static void
peer_key(const struct sockaddr *sa, unsigned char key[17])
{
	memset(key, 0, 17);
	if (sa == NULL)
		return;
	key[0] = (unsigned char)sa->sa_family;
	if (sa->sa_family == AF_INET)
		memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(key + 1, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

/* The connection of the pool a new one may replace (the lowest rank,
 * then the oldest), of the address peer only when peer is not NULL; or
 * NULL. */
static struct web_conn *
replaceable(struct web_pool *w, const unsigned char *peer)
{
	struct web_conn *best = NULL, *k;
	int rank, best_rank = 0;
	size_t i;

	for (i = 0; i < WEB_CONN_MAX; i++) {
		k = &w->conns[i];
		if (peer != NULL && memcmp(k->peer, peer, sizeof k->peer) != 0)
			continue;
		if ((rank = eviction_rank(k)) == 0)
			continue;
		if (best == NULL || rank < best_rank ||
		    (rank == best_rank && k->since < best->since)) {
			best = k;
			best_rank = rank;
		}
	}
	return best;
}

/*
 * MHD_OPTION_APC: a new connection. When its address holds
 * WEB_PEER_POOL_MAX of the pool, it takes the place of one of that
 * address's (replaceable: the least progress, then the oldest); else,
 * when the pool is full, of one of any address's. When there is none,
 * it is refused.
 */
static enum MHD_Result
conn_accept(void *cls, const struct sockaddr *addr, socklen_t len)
{
	struct web_pool *w = cls;
	struct web_conn *k = NULL;
	unsigned char peer[17];
	enum MHD_Result rc = MHD_YES;
	size_t i, n = 0, np = 0;
	int full;

	peer_key(len > 0 ? addr : NULL, peer);
	pthread_mutex_lock(&w->lock);
	for (i = 0; i < WEB_CONN_MAX; i++) {
		if (!in_pool(&w->conns[i]))
			continue;
		n++;
		np += memcmp(w->conns[i].peer, peer, sizeof peer) == 0;
	}
	if ((full = np >= WEB_PEER_POOL_MAX))
		k = replaceable(w, peer);
	else if ((full = n >= WEB_UNAUTH_MAX))
		k = replaceable(w, NULL);
	if (k != NULL) {
		cut(k);
		refused_locked(w, "a connection without a session was cut to make room");
	} else if (full) {
		refused_locked(w, np >= WEB_PEER_POOL_MAX ? "a connection was refused: every "
		    "one of its address without a session is being served" : "a connection "
		    "was refused: every one without a session is being served");
		rc = MHD_NO;
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

/* MHD_OPTION_NOTIFY_CONNECTION: a slot for each connection. */
static void
conn_notify(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_ConnectionNotificationCode t)
{
	struct web_pool *w = cls;
	const union MHD_ConnectionInfo *fd, *addr;
	struct web_conn *k = *ctx;
	size_t i;

	pthread_mutex_lock(&w->lock);
	if (t == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (k != NULL)
			memset(k, 0, sizeof *k);
		*ctx = NULL;
	} else if ((fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD)) != NULL) {
		for (i = 0; i < WEB_CONN_MAX && w->conns[i].used; i++)
			;
		if (i < WEB_CONN_MAX) {
			k = &w->conns[i];
			k->used = 1;
			k->fd = fd->connect_fd;
			addr = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
			peer_key(addr != NULL ? addr->client_addr : NULL, k->peer);
			k->since = monotonic_ms();
			*ctx = k;
		} else {
			/* more than MHD's own limit: never, but not untracked */
			(void)shutdown(fd->connect_fd, SHUT_RDWR);
			refused_locked(w, "a connection past the limit was cut");
		}
	}
	pthread_mutex_unlock(&w->lock);
}

/*
 * The request on c was authenticated for device: the connection leaves
 * the pool and is the session's. 0, or -1 when the session holds
 * WEB_SESSION_CONN_MAX connections already.
 */
int
web_conn_session(struct web_pool *w, struct MHD_Connection *c, const char *device)
{
	struct web_conn *k = conn_of(c);
	size_t i, n = 0;
	int rc = 0;

	if (k == NULL)
		return -1;
	pthread_mutex_lock(&w->lock);
	if (strcmp(k->device, device) != 0) {
		for (i = 0; i < WEB_CONN_MAX; i++)
			n += w->conns[i].used && !w->conns[i].cut &&
			    strcmp(w->conns[i].device, device) == 0;
		if (n >= WEB_SESSION_CONN_MAX) {
			refused_locked(w, "a session's request past its connection limit was "
			    "refused");
			rc = -1;
		} else
			snprintf(k->device, sizeof k->device, "%s", device);
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

/* A request's head on c is read: it is not cut before others for a
 * newcomer (its read deadline goes on). */
void
web_conn_started(struct web_pool *w, struct MHD_Connection *c)
{
	struct web_conn *k = conn_of(c);

	pthread_mutex_lock(&w->lock);
	if (k != NULL)
		k->head_in = 1;
	pthread_mutex_unlock(&w->lock);
}

/* A request on c is read in full: the read deadline stops. */
void
web_conn_read(struct web_pool *w, struct MHD_Connection *c)
{
	struct web_conn *k = conn_of(c);

	pthread_mutex_lock(&w->lock);
	if (k != NULL)
		k->answering = 1;
	pthread_mutex_unlock(&w->lock);
}

/* A request on c ended: the next one has its own deadline. */
void
web_conn_done(struct web_pool *w, struct MHD_Connection *c)
{
	struct web_conn *k = conn_of(c);

	pthread_mutex_lock(&w->lock);
	if (k != NULL) {
		k->head_in = k->answering = 0;
		k->served++;
		k->since = monotonic_ms();
	}
	pthread_mutex_unlock(&w->lock);
}

/* Cut what is past its deadline; flush the refusal count. */
static void *
watch(void *arg)
{
	struct web_pool *w = arg;
	struct web_conn *k;
	int64_t now;
	size_t i;

	while (!w->stopping) {
		usleep(WEB_WATCH_MS * 1000);
		now = monotonic_ms();
		pthread_mutex_lock(&w->lock);
		for (i = 0; i < WEB_CONN_MAX; i++) {
			k = &w->conns[i];
			if (!k->used || k->cut)
				continue;
			if (unread(k->fd) == 0)
				k->stalled = 0;
			else if (k->stalled == 0)
				k->stalled = now;
			if (k->stalled != 0 && now - k->stalled > w->write_deadline_ms) {
				cut(k);
				refused_locked(w, "a connection that did not read its answer in "
				    "time was cut");
			} else if (in_pool(k) && !k->answering &&
			    now - k->since > w->read_deadline_ms) {
				cut(k);
				refused_locked(w, "a connection without a session sent no whole "
				    "request in time and was cut");
			}
		}
		if (w->refused > 0 && now >= w->refused_next) {
			w->refused--;
			refused_locked(w, w->refused_last);
		}
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

/* The hooks web_mhd_start gives libmicrohttpd for the page. */
void
web_conn_hooks(struct web_pool *w, struct web_hooks *h)
{
	h->accept = conn_accept;
	h->notify = conn_notify;
	h->cls = w;
}

/* Start watching w's connections, its log lines headed name; 0, or -1
 * after a message. */
int
web_conn_start(struct web_pool *w, const char *name)
{
	memset(w, 0, sizeof *w);
	w->name = name;
	w->read_deadline_ms = WEB_READ_DEADLINE_MS;
	w->write_deadline_ms = WEB_WRITE_DEADLINE_MS;
#if WARRANT_TEST_HOOKS
	/* the end-to-end build: short deadlines for the slow-client tests */
	if (getenv("WARRANT_TEST_WEB_DEADLINE_MS") != NULL)
		w->read_deadline_ms = strtoll(getenv("WARRANT_TEST_WEB_DEADLINE_MS"), NULL, 10);
	if (getenv("WARRANT_TEST_WEB_WRITE_MS") != NULL)
		w->write_deadline_ms = strtoll(getenv("WARRANT_TEST_WEB_WRITE_MS"), NULL, 10);
#endif
	pthread_mutex_init(&w->lock, NULL);
	if (pthread_create(&w->watcher, NULL, watch, w) != 0) {
		warnx("serve: cannot start the connection watch of %s", name);
		pthread_mutex_destroy(&w->lock);
		return -1;
	}
	w->watching = 1;
	return 0;
}

/* After the servers of w stopped. */
void
web_conn_stop(struct web_pool *w)
{
	if (!w->watching)
		return;
	w->stopping = 1;
	pthread_join(w->watcher, NULL);
	pthread_mutex_destroy(&w->lock);
	w->watching = 0;
}
