/* SPDX-License-Identifier: ISC */
/*
 * Who serves the address a supervised command connects to (promise 8:
 * what the requester serves on a port, root would read and act on). The
 * kernel's socket tables of the caller's network namespace
 * (/proc/TID/net/tcp, tcp6, udp, udp6) give each bound socket's local
 * address, port, state and owner. The address is served by the requester
 * when a socket of its (a TCP listener, or any UDP socket) is bound to
 * that port and to that address, or to every address while the address
 * is one of this host's (loopback, or an interface's).
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "supervise.h"

#define TCP_LISTEN	0x0a

/* An address as the kernel prints it in those tables: the 32-bit words
 * of the address as they lie in memory, each %08X. */
static void
table_hex(const struct in6_addr *a6, char hex[33])
{
	uint32_t w[4];
	size_t i;

	memcpy(w, a6, sizeof w);
	for (i = 0; i < 4; i++)
		snprintf(hex + 8 * i, 9, "%08X", (unsigned)w[i]);
}

/* Is a (v4-mapped when IPv4) an address of this host? */
static int
local_address(const struct in6_addr *a)
{
	struct ifaddrs *ifs, *i;
	int found = 0;

	if (IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127))
		return 1;
	if (getifaddrs(&ifs) != 0)
		return 1;	/* cannot tell: as if it were */
	for (i = ifs; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL)
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			found = IN6_IS_ADDR_V4MAPPED(a) && memcmp(a->s6_addr + 12,
			    &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, 4) == 0;
		else if (i->ifa_addr->sa_family == AF_INET6)
			found = memcmp(a, &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr,
			    sizeof *a) == 0;
	}
	freeifaddrs(ifs);
	return found;
}

/*
 * One table (v6: its addresses have 32 hex digits, else 8): 1 when a
 * socket of w's there serves want:port, 0 when none, -1 unreadable.
 */
static int
table_serves(pid_t tid, const char *table, int v6, int tcp, const struct writer *w,
    const struct in6_addr *want, unsigned port)
{
	char path[64], line[512], hex[40], whex[33], any[33];
	struct in6_addr zero;
	unsigned lport, state, uid;
	int found = 0, here = -1;
	FILE *fp;

	snprintf(path, sizeof path, "/proc/%d/net/%s", (int)tid, table);
	if ((fp = fopen(path, "re")) == NULL)
		return errno == ENOENT ? 0 : -1;	/* no IPv6 in that namespace */
	memset(&zero, 0, sizeof zero);
	table_hex(want, whex);
	table_hex(&zero, any);
	while (!found && fgets(line, sizeof line, fp) != NULL) {
		if (sscanf(line, " %*u: %39[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %u", hex, &lport,
		    &state, &uid) != 4 || lport != port || (tcp && state != TCP_LISTEN) ||
		    !touches_uid(w, uid))
			continue;
		/* a v4 table's address is the last word of a v4-mapped one */
		if (v6 ? strcmp(hex, whex) == 0 : (IN6_IS_ADDR_V4MAPPED(want) &&
		    strlen(hex) == 8 && strcmp(hex, whex + 24) == 0)) {
			found = 1;
		} else if ((v6 || IN6_IS_ADDR_V4MAPPED(want)) &&
		    strcmp(hex, v6 ? any : "00000000") == 0) {
			/* every address: a v4 table's only v4 ones; a v6 one both */
			if (here < 0)
				here = local_address(want);
			found = here > 0;
		}
	}
	fclose(fp);
	return found;
}

/*
 * Does the requester serve the address sa (AF_INET or AF_INET6) in the
 * network namespace of the caller tid? 1 (with why), 0, or -1 when it
 * cannot be told.
 */
int
port_served_by(pid_t tid, const struct sockaddr_storage *sa, const struct writer *w,
    char *why, size_t size)
{
	static const struct {
		const char *name;
		int v6, tcp;
	} tables[] = { { "tcp", 0, 1 }, { "tcp6", 1, 1 }, { "udp", 0, 0 }, { "udp6", 1, 0 } };
	struct in6_addr want;
	char text[INET6_ADDRSTRLEN];
	unsigned port;
	size_t i;
	int rc;

	memset(&want, 0, sizeof want);
	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;

		want.s6_addr[10] = want.s6_addr[11] = 0xff;
		memcpy(want.s6_addr + 12, &s4->sin_addr, 4);
		port = ntohs(s4->sin_port);
		inet_ntop(AF_INET, &s4->sin_addr, text, sizeof text);
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;

		want = s6->sin6_addr;
		port = ntohs(s6->sin6_port);
		inet_ntop(AF_INET6, &s6->sin6_addr, text, sizeof text);
	}
	for (i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		if ((rc = table_serves(tid, tables[i].name, tables[i].v6, tables[i].tcp, w, &want,
		    port)) != 0) {
			if (rc > 0)
				snprintf(why, size, "%s serves %s port %u (%s)", w->uid == 0 ?
				    "a non-root user" : "the requester", text, port,
				    tables[i].tcp ? "TCP" : "UDP");
			return rc;
		}
	}
	return 0;
}
