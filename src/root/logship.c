/* SPDX-License-Identifier: ISC */
/*
 * Audit at fleet scale (docs/audit.md), the runner's part: each ROOT
 * command's I/O log session, once it is complete, is sent to the fleet's
 * sudo_logsrvd with Debian's own sudo_sendlog, which reads sudo's I/O log
 * format, the one the runner writes (iolog.c). The host's policy names
 * the server:
 *
 *   "log_server": {"address": "HOST:PORT", "ca": "/etc/warrant/logsrv-ca.pem",
 *                  "cert": "/etc/warrant/logsrv-client.pem"}
 *
 * With "ca" the session goes over TLS, this host showing its own
 * certificate ("cert", and "key" when the key is in a file of its own:
 * sudo_sendlog speaks TLS only so); without, over plain TCP, and then
 * only to a loopback address (the end of an ssh or WireGuard tunnel):
 * any other address is refused, as is a "ca" where this host's
 * sudo_sendlog has no TLS (Debian 12's is built without).
 *
 * Nothing of the local log depends on the server: a session is first
 * noted in the spool (WARRANT_LOGSHIP_SPOOL, root's, mode 0755: one empty
 * file per session waiting, named by its six-character id, so a reviewer
 * can see which of their sessions wait and nothing else). The sending is
 * not the runner's: once the batch is over it starts warrant-logship
 * (src/logship/), which sends whatever waits, as `warrant gc` as root
 * does; so nothing that speaks to the network is linked into the runner.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "root.h"

#define SHIP_TIMEOUT	300	/* seconds warrant-logship may take after a batch */

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

/* Run a tool with argv (argv[0] its name) and stdin /dev/null, for at
 * most timeout seconds; the tail of what it wrote in out, or why it did
 * not run. Its exit status, or -1 when it could not run or was stopped. */
int
logship_tool_run(const char *path, const char *code, const char *const *argv, long timeout,
    char *out, size_t size)
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
	x.timeout = timeout;
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

/*
 * Before a batch with ROOT commands, where a server is named: warrant-logship
 * and sudo_sendlog are there, and for a "ca" it speaks TLS (its --help lists --ca-bundle;
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
	if ((fd = tool_open(WARRANT_LOGSHIP_PATH, "log_server_no_shipper", why, size)) < 0)
		return -1;
	close(fd);
	if ((fd = tool_open(LOGSHIP_SENDLOG, "log_server_no_sendlog", why, size)) < 0)
		return -1;
	close(fd);
	if (ls->ca[0] == '\0')
		return 0;
	if (logship_tool_run(LOGSHIP_SENDLOG, "log_server_no_sendlog", help, LOGSHIP_SEND_TIMEOUT,
	    out, sizeof out) < 0 ||
	    strstr(out, "--ca-bundle") == NULL) {
		snprintf(why, size, "log_server_tls_unsupported: %s has no TLS on this host, and "
		    "the policy's \"ca\" asks for it", LOGSHIP_SENDLOG);
		return -1;
	}
	if ((fd = tool_open(LOGSHIP_OPENSSL, "log_server_no_openssl", why, size)) < 0)
		return -1;
	close(fd);
	return 0;
}

/* The spool, created (root's, 0755, every component) when create is set
 * and it is missing; it must be a directory nobody but root can change.
 * A descriptor, -2 when it is missing and not created, or -1 with why. */
int
logship_spool_open(int create, char *why, size_t size)
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

/* A note's name: six base-36 digits, as sudo's seq writes them. */
int
logship_name_ok(const char *s)
{
	size_t i;

	for (i = 0; i < LOGSHIP_NAME; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	return s[i] == '\0';
}

/* Is session id ("00/00/01") waiting in the spool to be shipped? The I/O
 * log's ring passes over such a session rather than reuse its number. */
int
logship_unsent(const char *id)
{
	char path[PATH_MAX];
	struct stat st;

	if (strlen(id) != LOGSHIP_NAME + 2)
		return 0;
	snprintf(path, sizeof path, "%s/%.2s%.2s%.2s", WARRANT_LOGSHIP_SPOOL, id, id + 3,
	    id + 6);
	return lstat(path, &st) == 0;
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

/*
 * The runner's hook, once a ROOT command's session is complete (res: how
 * the command ended) and its root-log line written: the end recorded in
 * the session and the session noted in the spool; what waits is sent once
 * the batch is over (logship_start), never between two commands. Whatever fails is logged; the local session stays,
 * whatever happens here.
 */
void
logship_session(const struct log_server *ls, const char *id, const struct exec_result *res)
{
	char name[LOGSHIP_NAME + 1], why[2048];
	int dfd, fd;

	if (ls->host[0] == '\0')
		return;
	if (strlen(id) != LOGSHIP_NAME + 2 || id[2] != '/' || id[5] != '/')
		return;
	snprintf(name, sizeof name, "%.2s%.2s%.2s", id, id + 3, id + 6);
	if (!logship_name_ok(name))
		return;
	if (session_end(id, res) != 0)
		syslog(LOG_WARNING, "I/O log session %s: its end (exit, run time) could not be "
		    "added to log.json", id);
	if ((dfd = logship_spool_open(1, why, sizeof why)) < 0) {
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


/*
 * After a batch, where the policy names a server: warrant-logship, root's
 * and nobody else's to change (as sudo_sendlog is checked), sends what
 * waits and logs what it could not send; the runner waits for it,
 * SHIP_TIMEOUT at most (what is left waits for the next run).
 */
void
logship_start(const struct log_server *ls)
{
	static const char *const argv[] = { "warrant-logship", NULL };
	char out[1024];

	if (ls->host[0] != '\0' && logship_tool_run(WARRANT_LOGSHIP_PATH, "log_server_no_shipper",
	    argv, SHIP_TIMEOUT, out, sizeof out) < 0)
		syslog(LOG_WARNING, "%s did not run to its end: %s", WARRANT_LOGSHIP_PATH, out);
}
