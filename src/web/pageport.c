/* SPDX-License-Identifier: ISC */
/*
 * The page's listening sockets (docs/web.md, "A port anyone may bind").
 * Best, they come from a systemd socket unit (LISTEN_PID and LISTEN_FDS,
 * read as sd_listen_fds(3) does, without libsystemd): systemd holds the
 * port while the daemon is down, so nobody else can bind it and answer
 * the open page. Else the daemon binds them itself; on 127.0.0.1 or ::1
 * it binds the other one too, since `localhost` may take a browser to
 * either, and a port of the other family left free is anyone's.
 */
#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "web.h"

#define SD_LISTEN_FDS_START	3

/* A numeric address of this computer only (127.0.0.0/8, ::1). */
int
web_addr_loopback(const char *addr)
{
	struct in_addr a4;

	if (strchr(addr, ':') != NULL)
		return strcmp(addr, "::1") == 0;
	return inet_pton(AF_INET, addr, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127;
}

/* A TCP listener's address and port (numeric); 0, or -1 when fd is not one. */
int
web_listener_addr(int fd, char *addr, size_t size, unsigned *port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	int type = 0, acc = 0;
	socklen_t ol = sizeof type;

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &ol) != 0 || type != SOCK_STREAM)
		return -1;
	ol = sizeof acc;
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &ol) != 0 || !acc)
		return -1;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return -1;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		*port = ntohs(s4->sin_port);
		return inet_ntop(AF_INET, &s4->sin_addr, addr, (socklen_t)size) != NULL ? 0 : -1;
	}
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		*port = ntohs(s6->sin6_port);
		return inet_ntop(AF_INET6, &s6->sin6_addr, addr, (socklen_t)size) != NULL ? 0 : -1;
	}
	return -1;
}

/*
 * The sockets systemd handed over for the page, into fds: 0 none were
 * (n = 0), n > 0 their count, -1 after a message (one is not a TCP
 * listener of this port on loopback or the asked address). The variables
 * are removed, so no child takes them for its own.
 */
int
web_listen_inherited(const struct web_config *cfg, int fds[WEB_LISTEN_MAX])
{
	const char *pid = getenv("LISTEN_PID"), *nfds = getenv("LISTEN_FDS");
	char addr[INET6_ADDRSTRLEN];
	unsigned port;
	long n;
	int i;

	if (pid == NULL || nfds == NULL || strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	n = strtol(nfds, NULL, 10);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (n < 1 || n > WEB_LISTEN_MAX) {
		warnx("serve: LISTEN_FDS is %ld: the page takes 1 to %d sockets (127.0.0.1 and "
		    "[::1] of its port)", n, WEB_LISTEN_MAX);
		return -1;
	}
	for (i = 0; i < n; i++) {
		fds[i] = SD_LISTEN_FDS_START + i;
		if (web_listener_addr(fds[i], addr, sizeof addr, &port) != 0 || port != cfg->port ||
		    (!web_addr_loopback(addr) && strcmp(addr, cfg->addr) != 0)) {
			warnx("serve: socket %d from systemd is not a TCP listener on port %u of "
			    "loopback or %s", fds[i], cfg->port, cfg->addr);
			return -1;
		}
		(void)fcntl(fds[i], F_SETFD, FD_CLOEXEC);
	}
	return (int)n;
}

/* A listening socket on addr:port (numeric); the fd, or -1 with errno. */
int
web_listen_bind(const char *addr, unsigned port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, e;

	memset(&ss, 0, sizeof ss);
	if (strchr(addr, ':') != NULL) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, addr, &s6->sin6_addr) != 1)
			return errno = EINVAL, -1;
		len = sizeof *s6;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, addr, &s4->sin_addr) != 1)
			return errno = EINVAL, -1;
		len = sizeof *s4;
	}
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ss.ss_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 64) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
