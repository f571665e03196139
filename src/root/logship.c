/* SPDX-License-Identifier: ISC */
/*
 * Audit at fleet scale (docs/audit.md): each ROOT command's I/O log
 * session, once it is complete, is sent to the fleet's sudo_logsrvd with
 * Debian's own sudo_sendlog, which reads sudo's I/O log format, the one
 * the runner writes (iolog.c). The host's policy names the server:
 *
 *   "log_server": {"address": "HOST:PORT", "ca": "/etc/warrant/logsrv-ca.pem",
 *                  "cert": "/etc/warrant/logsrv-client.pem"}
 *
 * With "ca" the session goes over TLS, this host showing its own
 * certificate ("cert", and "key" when the key is in a file of its own:
 * sudo_sendlog speaks TLS only so), and the server's certificate checked
 * against that CA by openssl's client just before (sudo_sendlog checks
 * nothing of the server's); without, over
 * plain TCP, and then only to a loopback address (the end of an ssh or
 * WireGuard tunnel): any other address is refused, as is a "ca" where
 * this host's sudo_sendlog has no TLS (Debian 12's is built without).
 *
 * Nothing of the local log depends on the server: a session is first
 * noted in the spool (WARRANT_LOGSHIP_SPOOL, root's, mode 0755: one empty
 * file per session waiting, named by its six-character id, so a reviewer
 * can see which of their sessions wait and nothing else), then sent; a
 * send that fails leaves the note for the next runner or `warrant gc` as
 * root, which send whatever waits, oldest first. One process sends at a
 * time (a lock on the spool), and a run stops sending after its first
 * failure: a server that is down costs one bounded attempt per run.
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

#include "root.h"
#include "confine/supervise.h"

#define SENDLOG_PATH	"/usr/sbin/sudo_sendlog"
#define SPOOL_LOCK	".lock"		/* in the spool; not a session's name */
#define SPOOL_LOCK_WAIT_MS	5000
#define OPENSSL_PATH	"/usr/bin/openssl"	/* checks the server first (TLS) */
#define SEND_TIMEOUT	20	/* seconds one session may take */
#define SESSION_NAME	6	/* "000001": the id without its slashes */

/* a failed send in this process: the rest waits for the next run */
static int server_down;

static int
is_loopback(const char *host)
{
	unsigned char a[16];

	if (inet_pton(AF_INET, host, a) == 1)
		return a[0] == 127;
	if (inet_pton(AF_INET6, host, a) == 1)
		return IN6_IS_ADDR_LOOPBACK((struct in6_addr *)a) ||
		    (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)a) && a[12] == 127);
	return 0;
}

/* A host name as DNS spells it (letters, digits, '-' and '.'), or an
 * IPv4 address. */
static int
host_name_ok(const char *h)
{
	size_t i, n = strlen(h);

	if (n == 0 || n > 253 || h[0] == '-' || h[0] == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (!((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= 'A' && h[i] <= 'Z') ||
		    (h[i] >= '0' && h[i] <= '9') || h[i] == '-' || h[i] == '.'))
			return 0;
	return 1;
}

/* "HOST:PORT" or "[IPV6]:PORT", split into host and port: 0, or -1 when
 * it is neither. */
static int
address_split(const char *addr, struct log_server *ls)
{
	const char *colon, *host = addr, *end;
	unsigned char a[16];
	char *stop;
	long port;
	size_t n;

	if (addr[0] == '[') {
		host = addr + 1;
		if ((end = strchr(host, ']')) == NULL || end[1] != ':')
			return -1;
		colon = end + 1;
	} else if ((colon = end = strrchr(addr, ':')) == NULL)
		return -1;
	n = (size_t)(end - host);
	if (n == 0 || n >= sizeof ls->host)
		return -1;
	memcpy(ls->host, host, n);
	ls->host[n] = '\0';
	if (host != addr ? inet_pton(AF_INET6, ls->host, a) != 1 : !host_name_ok(ls->host))
		return -1;
	errno = 0;
	if (colon[1] < '1' || colon[1] > '9' || (port = strtol(colon + 1, &stop, 10)) > 65535 ||
	    *stop != '\0' || errno != 0)
		return -1;
	snprintf(ls->port, sizeof ls->port, "%hu", (unsigned short)port);
	return 0;
}

/*
 * One of the TLS files (field "ca", "cert" or "key" at path): a regular
 * file of root's that nobody else can change or replace (every directory
 * on the way counted), and, holding a private key, that nobody else can
 * read. Read by root's sudo_sendlog, so only stat()ed here: `answer`
 * checks the policy too, as the reviewer. 0, or -1 with why.
 */
static int
tls_file_ok(const char *field, const char *path, int private, char *why, size_t size)
{
	const struct writer anyone = { .uid = 0 };	/* anyone but root */
	char how[PATH_MAX + 128];
	struct stat st;

	if (path[0] != '/') {
		snprintf(why, size, "log_server.%s must be an absolute path", field);
		return -1;
	}
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0) {
		snprintf(why, size, "log_server.%s %s must be a regular file of root's", field, path);
		return -1;
	}
	if (path_changeable(&anyone, path, how, sizeof how) != 0) {
		snprintf(why, size, "log_server.%s %s can be changed by others than root", field,
		    path);
		return -1;
	}
	if (private && (st.st_mode & 077) != 0) {
		snprintf(why, size, "log_server.%s %s holds a private key: it must be readable by "
		    "root only (mode 0600)", field, path);
		return -1;
	}
	return 0;
}

/* The policy's path for field (ca, cert, key) into out, checked: 0 when
 * it is there and fine or absent, -1 with why. */
static int
tls_file(const json_t *v, const char *field, int private, char *out, size_t outsize,
    char *why, size_t size)
{
	json_t *f = json_object_get(v, field);
	const char *path = json_string_value(f);

	if (f == NULL)
		return 0;
	if (path == NULL || strlen(path) >= outsize) {
		snprintf(why, size, "log_server.%s must be the path of a file", field);
		return -1;
	}
	if (tls_file_ok(field, path, private, why, size) != 0)
		return -1;
	strcpy(out, path);
	return 0;
}

/*
 * The policy's "log_server" (v, or NULL: none): {"address": "HOST:PORT"}
 * and, for TLS, "ca" with "cert" (and "key" when the certificate's file
 * does not hold it): sudo_sendlog speaks TLS only with a client
 * certificate, which it checks against the same CA. Refused: anything
 * else, an address that is not HOST:PORT, TLS files others could change
 * (or read, for a key), "ca" without "cert" (log_server_needs_cert), and
 * plain TCP to an address that is not loopback (log_server_needs_tls).
 * 0 with ls filled, or -1 with why and ls cleared.
 */
int
logship_config(const json_t *v, struct log_server *ls, char *why, size_t size)
{
	static const char *const fields[] = { "address", "ca", "cert", "key", NULL };
	const char *key, *addr;
	json_t *f;
	int i, rc = -1;

	memset(ls, 0, sizeof *ls);
	if (v == NULL)
		return 0;
	if (!json_is_object(v)) {
		snprintf(why, size, "log_server must be an object");
		return -1;
	}
	json_object_foreach((json_t *)v, key, f) {
		for (i = 0; fields[i] != NULL && strcmp(key, fields[i]) != 0; i++)
			;
		if (fields[i] == NULL) {
			snprintf(why, size, "log_server: unknown field \"%.64s\"", key);
			return -1;
		}
	}
	addr = json_string_value(json_object_get(v, "address"));
	if (addr == NULL || address_split(addr, ls) != 0)
		snprintf(why, size, "log_server.address must be \"HOST:PORT\" (an IPv6 address in "
		    "brackets)");
	else if (tls_file(v, "ca", 0, ls->ca, sizeof ls->ca, why, size) == 0 &&
	    tls_file(v, "cert", ls->ca[0] != '\0' && json_object_get(v, "key") == NULL,
	    ls->cert, sizeof ls->cert, why, size) == 0 &&
	    tls_file(v, "key", 1, ls->key, sizeof ls->key, why, size) == 0) {
		if (ls->ca[0] != '\0' && ls->cert[0] == '\0')
			snprintf(why, size, "log_server_needs_cert: sudo_sendlog speaks TLS only with "
			    "a client certificate: give \"cert\" (signed by the CA of \"ca\")");
		else if (ls->ca[0] == '\0' && (ls->cert[0] != '\0' || ls->key[0] != '\0'))
			snprintf(why, size, "log_server: \"cert\" and \"key\" are for TLS, which "
			    "needs \"ca\"");
		else if (ls->ca[0] == '\0' && !is_loopback(ls->host))
			snprintf(why, size, "log_server_needs_tls: %.64s is not a loopback address, "
			    "and without \"ca\" the sessions would cross the network in plain text "
			    "(give a CA for TLS, or point it at a tunnel's end on 127.0.0.1)",
			    ls->host);
		else
			rc = 0;
	}
	if (rc != 0)
		memset(ls, 0, sizeof *ls);
	return rc;
}

/* A tool (sudo_sendlog, openssl), opened: root's, nobody else can change
 * it. A descriptor, or -1 with why (code: the refusal's). */
static int
tool_open(const char *path, const char *code, char *why, size_t size)
{
	const struct writer anyone = { .uid = 0 };
	char how[PATH_MAX + 128];
	struct stat st;
	int fd;

	if ((fd = open_regular(path, &st)) < 0 || st.st_uid != 0 ||
	    path_changeable(&anyone, path, how, sizeof how) != 0) {
		snprintf(why, size, "%s: %s %s", code, path, fd < 0 ? strerror(errno) :
		    "can be changed by others than root");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Run a tool with argv (argv[0] its name) and stdin /dev/null; the tail
 * of what it wrote in out, or why it did not run. Its exit status, or -1
 * when it could not run or was stopped. */
static int
tool_run(const char *path, const char *code, const char *const *argv, char *out, size_t size)
{
	static struct capture cap;	/* 128 KiB: not on the stack */
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
	struct exec_result res;
	struct exec_spec x;
	char *tail;

	memset(&x, 0, sizeof x);
	if ((x.exefd = tool_open(path, code, out, size)) < 0)
		return -1;
	x.argv = (char *const *)argv;
	x.envp = envp;
	x.cwd = "/";
	x.group = EXEC_SESSION;
	x.timeout = SEND_TIMEOUT;
	capture_init(&cap, -1, 0);
	if (exec_capture(&x, &cap, &res) != 0)
		res.exec_errno = errno ? errno : EAGAIN;
	close(x.exefd);
	tail = capture_tail(&cap, size - 1);
	snprintf(out, size, "%s", res.exec_errno ? strerror(res.exec_errno) : res.timed_out ?
	    "no answer in time" : tail);
	free(tail);
	if (res.exec_errno || res.timed_out || res.signal)
		return -1;
	return res.exit_code;
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
 * Before a batch with ROOT commands, where a server is named: sudo_sendlog
 * is there, and for a "ca" it speaks TLS (its --help lists --ca-bundle;
 * Debian 12's is built without) and openssl is there to check the
 * server. 0, or -1 with why (then nothing runs).
 */
int
logship_ready(const struct log_server *ls, char *why, size_t size)
{
	static const char *const help[] = { "sudo_sendlog", "--help", NULL };
	char out[4096];
	int fd;

	if (ls->host[0] == '\0')
		return 0;
	if ((fd = tool_open(SENDLOG_PATH, "log_server_no_sendlog", why, size)) < 0)
		return -1;
	close(fd);
	if (ls->ca[0] == '\0')
		return 0;
	if (tool_run(SENDLOG_PATH, "log_server_no_sendlog", help, out, sizeof out) < 0 ||
	    strstr(out, "--ca-bundle") == NULL) {
		snprintf(why, size, "log_server_tls_unsupported: %s has no TLS on this host, and "
		    "the policy's \"ca\" asks for it", SENDLOG_PATH);
		return -1;
	}
	if ((fd = tool_open(OPENSSL_PATH, "log_server_no_openssl", why, size)) < 0)
		return -1;
	close(fd);
	return 0;
}

/* The spool, created (root's, 0755, every component) when create is set
 * and it is missing; it must be a directory nobody but root can change.
 * A descriptor, -2 when it is missing and not created, or -1 with why. */
static int
spool_open(int create, char *why, size_t size)
{
	const struct writer anyone = { .uid = 0 };
	char path[PATH_MAX], how[PATH_MAX + 128], *slash;
	struct stat st;
	int fd;

	snprintf(path, sizeof path, "%s", WARRANT_LOGSHIP_SPOOL);
	for (slash = strchr(path + 1, '/'); create; slash = strchr(slash + 1, '/')) {
		if (slash != NULL)
			*slash = '\0';
		if (mkdir(path, 0755) == 0 && chmod(path, 0755) != 0)
			break;
		if (slash == NULL)
			break;
		*slash = '/';
	}
	if ((fd = open(WARRANT_LOGSHIP_SPOOL, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0 && errno == ENOENT && !create)
		return -2;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != 0 ||
	    path_changeable(&anyone, WARRANT_LOGSHIP_SPOOL, how, sizeof how) != 0) {
		snprintf(why, size, "the spool %s must be a directory of root's that only root can "
		    "change%s%s", WARRANT_LOGSHIP_SPOOL, fd < 0 ? ": " : "",
		    fd < 0 ? strerror(errno) : "");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

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

/* A note's name: six base-36 digits, as sudo's seq writes them. */
static int
session_name_ok(const char *s)
{
	size_t i;

	for (i = 0; i < SESSION_NAME; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	return s[i] == '\0';
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The notes in the spool, oldest first (same-width base-36 names sort as
 * their numbers). NULL-free: an array of n names (free it). */
static char (*spool_names(int dfd, size_t *n))[SESSION_NAME + 1]
{
	char (*v)[SESSION_NAME + 1] = NULL;
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
		if (!session_name_ok(de->d_name))
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
session_id(const char *name, char id[SESSION_NAME + 3])
{
	snprintf(id, SESSION_NAME + 3, "%.2s/%.2s/%.2s", name, name + 2, name + 4);
}

/* Is the session still in the I/O log (its timing file there)? */
static int
session_there(const char *name)
{
	char path[PATH_MAX], id[SESSION_NAME + 3];
	struct stat st;

	session_id(name, id);
	snprintf(path, sizeof path, "%s/%s/timing", WARRANT_IOLOG_DIR, id);
	return lstat(path, &st) == 0 || errno != ENOENT;
}

/* Is session id ("00/00/01") waiting in the spool to be shipped? The I/O
 * log's ring passes over such a session rather than reuse its number. */
int
logship_unsent(const char *id)
{
	char path[PATH_MAX];
	struct stat st;

	if (strlen(id) != SESSION_NAME + 2)
		return 0;
	snprintf(path, sizeof path, "%s/%.2s%.2s%.2s", WARRANT_LOGSHIP_SPOOL, id, id + 3,
	    id + 6);
	return lstat(path, &st) == 0;
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
	if ((rc = tool_run(OPENSSL_PATH, "log_server_no_openssl", argv, out, sizeof out)) == 0)
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
	char path[PATH_MAX], id[SESSION_NAME + 3], out[2048];
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
	if ((rc = tool_run(SENDLOG_PATH, "log_server_no_sendlog", argv, out, sizeof out)) == 0)
		return 0;
	snprintf(why, size, "%s%.900s", rc > 0 ? "sudo_sendlog failed: " : "", last_line(out));
	return -1;
}

/*
 * Send every session that waits, oldest first, each note removed once its
 * session is on the server; stop at the first failure (logged, and the
 * rest waits). With nothing named in the policy, nothing. The number
 * sent and left waiting; 0, or -1 with why (a failure, or a spool that
 * cannot be used).
 */
int
logship_flush(const struct log_server *ls, size_t *sent, size_t *waiting, char *why,
    size_t size)
{
	char (*names)[SESSION_NAME + 1], id[SESSION_NAME + 3], reason[1024];
	size_t n = 0, i, gone = 0;
	int dfd, lock, rc = 0;

	*sent = *waiting = 0;
	if (ls->host[0] == '\0')
		return 0;
	if ((dfd = spool_open(0, why, size)) == -2)
		return 0;
	if (dfd < 0)
		return -1;
	if ((lock = spool_lock(dfd, why, size)) < 0) {
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

/*
 * The session's end, added to its log.json as sudo records it: the exit
 * value (or the signal's name) and the run time. sudo_logsrvd refuses a
 * session without a run time ("invalid ExitMessage"), so it is at least
 * a nanosecond. Written beside it and renamed over it. 0 or -1.
 */
static int
session_end(const char *id, const struct exec_result *res)
{
	char path[PATH_MAX];
	int64_t ns = res->duration_ms > 0 ? res->duration_ms * 1000000 : 1;
	json_t *j = NULL;
	int dfd, fd = -1, rc = -1;
	char *buf = NULL;
	size_t len;
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", WARRANT_IOLOG_DIR, id);
	if ((dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if ((fd = openat(dfd, "log.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0 &&
	    read_bounded(fd, &buf, &len, 64 * 1024) == 0)
		j = json_loadb(buf, len, 0, NULL);
	if (fd >= 0)
		close(fd);
	free(buf);
	if (!json_is_object(j))
		goto out;
	json_object_set_new(j, "run_time", json_pack("{s:I,s:I}", "seconds",
	    (json_int_t)(ns / 1000000000), "nanoseconds", (json_int_t)(ns % 1000000000)));
	if (res->signal > 0 && sigabbrev_np(res->signal) != NULL)
		json_object_set_new(j, "signal", json_string(sigabbrev_np(res->signal)));
	else
		json_object_set_new(j, "exit_value", json_integer(res->exit_code < 0 ? 1 :
		    res->exit_code));
	(void)unlinkat(dfd, "log.json.new", 0);
	if ((fd = openat(dfd, "log.json.new", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) < 0 || (fp = fdopen(fd, "w")) == NULL)
		goto out;
	fd = -1;
	/* indented: sudo's parser wants a space or a comma after a number */
	rc = json_dumpf(j, fp, JSON_INDENT(4)) != 0 || fputc('\n', fp) == EOF;
	rc = (fclose(fp) != 0 || rc != 0 ||
	    renameat(dfd, "log.json.new", dfd, "log.json") != 0) ? -1 : 0;
out:
	if (fd >= 0)
		close(fd);
	json_decref(j);
	close(dfd);
	return rc;
}

/* After a batch: what waits sent; a failure is logged (logship_flush). */
void
logship_flush_quietly(const struct log_server *ls)
{
	char why[2048];
	size_t sent, waiting;

	(void)logship_flush(ls, &sent, &waiting, why, sizeof why);
}

/*
 * The runner's hook, once a ROOT command's session is complete (res: how
 * the command ended) and its root-log line written: the end recorded in
 * the session and the session noted in the spool; the runner sends what
 * waits once the batch is over (logship_flush_quietly), never between
 * two commands. Whatever fails is logged; the local session stays,
 * whatever happens here.
 */
void
logship_session(const struct log_server *ls, const char *id, const struct exec_result *res)
{
	char name[SESSION_NAME + 1], why[2048];
	int dfd, fd;

	if (ls->host[0] == '\0')
		return;
	if (strlen(id) != SESSION_NAME + 2 || id[2] != '/' || id[5] != '/')
		return;
	snprintf(name, sizeof name, "%.2s%.2s%.2s", id, id + 3, id + 6);
	if (!session_name_ok(name))
		return;
	if (session_end(id, res) != 0)
		syslog(LOG_WARNING, "I/O log session %s: its end (exit, run time) could not be "
		    "added to log.json", id);
	if ((dfd = spool_open(1, why, sizeof why)) < 0) {
		syslog(LOG_ERR, "I/O log session %s cannot be noted for the log server: %s", id,
		    why);
		return;
	}
	if ((fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0644)) >= 0)
		close(fd);
	else if (errno != EEXIST)
		syslog(LOG_ERR, "I/O log session %s cannot be noted in %s: %s", id,
		    WARRANT_LOGSHIP_SPOOL, strerror(errno));
	close(dfd);
}

/* The sessions waiting to be shipped, oldest first ("00/00/01"), as
 * anyone may read them; an empty array when there is no spool. NULL when
 * it cannot be read. */
json_t *
logship_waiting(void)
{
	char (*names)[SESSION_NAME + 1], id[SESSION_NAME + 3], why[PATH_MAX + 128];
	json_t *list;
	size_t n, i;
	int dfd;

	if ((dfd = spool_open(0, why, sizeof why)) == -2)
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
