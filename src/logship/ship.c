/* SPDX-License-Identifier: ISC */
/*
 * Sending what waits in the spool (src/root/logship.c notes each ROOT
 * session there) to the policy's sudo_logsrvd with sudo_sendlog, oldest
 * first, each note removed once its session is on the server. Run as root
 * by warrant-logship (which the runner starts after a batch) and by
 * `warrant gc`; `warrant log --unshipped` lists what waits.
 *
 * With TLS the server's certificate is checked against the policy's CA by
 * openssl's client just before (sudo_sendlog checks nothing of the
 * server's); over plain TCP (loopback only) the listener must be root's.
 * One process sends at a time (a lock on the spool), and a run stops
 * sending after its first failure: a server that is down costs one
 * bounded attempt per run.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "root/root.h"
#include "root/confine/supervise.h"
#include "logship/ship.h"

#define SPOOL_LOCK	".lock"		/* in the spool; not a session's name */
#define SPOOL_LOCK_WAIT_MS	5000

/* a failed send in this process: the rest waits for the next run */
static int server_down;

/*
 * The spool's lock: a root-only file in it (0600: nobody else can open
 * it, so nobody else can hold the lock and stall a root process behind
 * it; the directory itself anyone may open and flock), taken within
 * SPOOL_LOCK_WAIT_MS or not at all. Its descriptor, or -1 with why.
 */
static int
spool_lock(int dfd, char *why, size_t size)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	int64_t until = monotonic_ms() + SPOOL_LOCK_WAIT_MS;
	struct stat st;
	int fd;

	if ((fd = openat(dfd, SPOOL_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0 ||
	    fstat(fd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 077) != 0) {
		snprintf(why, size, "the spool's lock %s/%s must be root's, 0600%s%s",
		    WARRANT_LOGSHIP_SPOOL, SPOOL_LOCK, fd < 0 ? ": " : "", fd < 0 ? strerror(errno) : "");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK || monotonic_ms() >= until) {
			snprintf(why, size, "the spool %s is busy (another root process ships): "
			    "left for the next run", WARRANT_LOGSHIP_SPOOL);
			close(fd);
			return -1;
		}
		(void)nanosleep(&pause, NULL);
	}
	return fd;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The notes in the spool, oldest first (same-width base-36 names sort as
 * their numbers). NULL-free: an array of n names (free it). */
static char (*spool_names(int dfd, size_t *n))[LOGSHIP_NAME + 1]
{
	char (*v)[LOGSHIP_NAME + 1] = NULL;
	struct dirent *de;
	size_t cap = 0;
	int fd;
	DIR *d;

	*n = 0;
	if ((fd = dup(dfd)) < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		if (!logship_name_ok(de->d_name))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			v = realloc(v, cap * sizeof *v);
			if (v == NULL)
				break;
		}
		strcpy(v[(*n)++], de->d_name);
	}
	closedir(d);
	if (v == NULL)
		*n = 0;
	else
		qsort(v, *n, sizeof *v, by_name);
	return v;
}

/* "000001" -> "00/00/01" */
static void
session_id(const char *name, char id[LOGSHIP_NAME + 3])
{
	snprintf(id, LOGSHIP_NAME + 3, "%.2s/%.2s/%.2s", name, name + 2, name + 4);
}

/* Is the session still in the I/O log (its timing file there)? */
static int
session_there(const char *name)
{
	char path[PATH_MAX], id[LOGSHIP_NAME + 3];
	struct stat st;

	session_id(name, id);
	snprintf(path, sizeof path, "%s/%s/timing", WARRANT_IOLOG_DIR, id);
	return lstat(path, &st) == 0 || errno != ENOENT;
}

/* The last line of s, in place. */
static const char *
last_line(char *s)
{
	char *nl;

	while ((nl = strrchr(s, '\n')) != NULL && nl[1] == '\0')
		*nl = '\0';
	return (nl = strrchr(s, '\n')) != NULL ? nl + 1 : s;
}

/*
 * TLS: the server must show a certificate of the policy's CA for its
 * address before anything is sent. sudo_sendlog does not check it (its
 * handshake verifies nothing of the server's: sudo 1.9.16 asks for no
 * peer check), so openssl's client does, with the same CA and this
 * host's certificate, just before. 0, or -1 with why.
 */
static int
server_verified(const struct log_server *ls, char *why, size_t size)
{
	char connect[sizeof ls->host + sizeof ls->port + 4], out[2048];
	unsigned char a[16];
	const char *argv[20];
	int ip = inet_pton(AF_INET, ls->host, a) == 1 || inet_pton(AF_INET6, ls->host, a) == 1;
	size_t k = 0;
	int rc;

	snprintf(connect, sizeof connect, strchr(ls->host, ':') != NULL ? "[%s]:%s" : "%s:%s",
	    ls->host, ls->port);
	argv[k++] = "openssl";
	argv[k++] = "s_client";
	argv[k++] = "-brief";
	argv[k++] = "-connect";
	argv[k++] = connect;
	argv[k++] = "-CAfile";
	argv[k++] = ls->ca;
	argv[k++] = "-verify_return_error";
	argv[k++] = ip ? "-verify_ip" : "-verify_hostname";
	argv[k++] = ls->host;
	if (!ip) {
		argv[k++] = "-servername";
		argv[k++] = ls->host;
	}
	argv[k++] = "-cert";
	argv[k++] = ls->cert;
	argv[k++] = "-key";
	argv[k++] = ls->key[0] != '\0' ? ls->key : ls->cert;
	argv[k] = NULL;
	if ((rc = logship_tool_run(LOGSHIP_OPENSSL, "log_server_no_openssl", argv,
	    LOGSHIP_SEND_TIMEOUT, out, sizeof out)) == 0)
		return 0;
	/* openssl's verify error says why ("certificate verify failed" is last) */
	snprintf(why, size, "the server's certificate is not one of the policy's CA for %.64s: "
	    "%.600s", ls->host, rc < 0 ? out : strstr(out, "verify error:") != NULL ?
	    strstr(out, "verify error:") : last_line(out));
	if ((rc = (int)strcspn(why, "\n")) > 0)
		why[rc] = '\0';
	return -1;
}

/*
 * Plain TCP (loopback only, a tunnel's end): is the listener on that
 * port root's? Anyone may bind a port while the tunnel or the server is
 * down, and would then get every ROOT session's output. While root's
 * socket holds the port nobody else can bind it. 0, or -1 with why (the
 * session stays in the spool).
 */
static int
listener_root(const struct log_server *ls, char *why, size_t size)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)(void *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)(void *)&ss;
	unsigned port = (unsigned)strtoul(ls->port, NULL, 10);
	uid_t uid;
	int rc;

	memset(&ss, 0, sizeof ss);
	if (inet_pton(AF_INET, ls->host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
	} else if (inet_pton(AF_INET6, ls->host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
	} else {
		snprintf(why, size, "log_server_unverified: %.64s is not an address", ls->host);
		return -1;
	}
	if ((rc = port_holder(getpid(), &ss, 1, &uid, NULL)) == 1 && uid == 0)
		return 0;
	if (rc == 1)
		snprintf(why, size, "log_server_unverified: the listener on %.64s port %u is "
		    "uid %u's, not root's: nothing sent", ls->host, port, (unsigned)uid);
	else
		snprintf(why, size, "log_server_unverified: nothing listens on %.64s port %u",
		    ls->host, port);
	return -1;
}

/* Send one session; 0, or -1 with why. */
static int
send_one(const struct log_server *ls, const char *name, char *why, size_t size)
{
	char path[PATH_MAX], id[LOGSHIP_NAME + 3], out[2048];
	const char *argv[16];
	size_t k = 0;
	int rc;

	session_id(name, id);
	snprintf(path, sizeof path, "%s/%s", WARRANT_IOLOG_DIR, id);
	if (ls->ca[0] != '\0' ? server_verified(ls, why, size) != 0 :
	    listener_root(ls, why, size) != 0)
		return -1;
	argv[k++] = "sudo_sendlog";
	argv[k++] = "-h";
	argv[k++] = ls->host;
	argv[k++] = "-p";
	argv[k++] = ls->port;
	if (ls->ca[0] != '\0') {
		argv[k++] = "-b";
		argv[k++] = ls->ca;
		argv[k++] = "-c";
		argv[k++] = ls->cert;
		if (ls->key[0] != '\0') {
			argv[k++] = "-k";
			argv[k++] = ls->key;
		}
	}
	argv[k++] = path;
	argv[k] = NULL;
	if ((rc = logship_tool_run(LOGSHIP_SENDLOG, "log_server_no_sendlog", argv,
	    LOGSHIP_SEND_TIMEOUT, out, sizeof out)) == 0)
		return 0;
	snprintf(why, size, "%s%.900s", rc > 0 ? "sudo_sendlog failed: " : "", last_line(out));
	return -1;
}

/*
 * Send every session that waits, oldest first, each note removed once its
 * session is on the server; stop at the first failure (logged, as a
 * spool that cannot be used is, and the rest waits). With nothing named in the policy, nothing. The number
 * sent and left waiting; 0, or -1 with why (a failure, or a spool that
 * cannot be used).
 */
int
logship_flush(const struct log_server *ls, size_t *sent, size_t *waiting, char *why,
    size_t size)
{
	char (*names)[LOGSHIP_NAME + 1], id[LOGSHIP_NAME + 3], reason[1024];
	size_t n = 0, i, gone = 0;
	int dfd, lock, rc = 0;

	*sent = *waiting = 0;
	if (ls->host[0] == '\0')
		return 0;
	if ((dfd = logship_spool_open(0, why, size)) == -2)
		return 0;
	if (dfd < 0 || (lock = spool_lock(dfd, why, size)) < 0) {
		syslog(LOG_WARNING, "nothing shipped to %s:%s: %s", ls->host, ls->port, why);
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	names = spool_names(dfd, &n);
	for (i = 0; i < n && !server_down; i++) {
		if (!session_there(names[i])) {
			/* removed by hand: nothing to send, and it must not
			 * hold up the ones after it */
			session_id(names[i], id);
			syslog(LOG_WARNING, "I/O log session %s is gone from %s before it was "
			    "shipped", id, WARRANT_IOLOG_DIR);
			if (unlinkat(dfd, names[i], 0) == 0)
				gone++;
			continue;
		}
		if (send_one(ls, names[i], reason, sizeof reason) != 0) {
			session_id(names[i], id);
			snprintf(why, size, "I/O log session %s not shipped to %s:%s (kept, sent "
			    "again by the next run or warrant gc): %s", id, ls->host, ls->port,
			    reason);
			syslog(LOG_WARNING, "%s", why);
			server_down = 1;
			rc = -1;
			break;
		}
		if (unlinkat(dfd, names[i], 0) == 0)
			(*sent)++;
	}
	*waiting = n - *sent - gone;
	free(names);
	close(lock);
	close(dfd);
	return rc;
}

/* The sessions waiting to be shipped, oldest first ("00/00/01"), as
 * anyone may read them; an empty array when there is no spool. NULL when
 * it cannot be read. */
json_t *
logship_waiting(void)
{
	char (*names)[LOGSHIP_NAME + 1], id[LOGSHIP_NAME + 3], why[PATH_MAX + 128];
	json_t *list;
	size_t n, i;
	int dfd;

	if ((dfd = logship_spool_open(0, why, sizeof why)) == -2)
		return json_array();
	if (dfd < 0)
		return NULL;
	names = spool_names(dfd, &n);
	close(dfd);
	list = json_array();
	for (i = 0; i < n; i++) {
		session_id(names[i], id);
		json_array_append_new(list, json_string(id));
	}
	free(names);
	return list;
}
