/* SPDX-License-Identifier: ISC */
/*
 * Who is at the other end of a supervised command's connection on this
 * host (promise 8: what the requester serves, root would read and act
 * on). The kernel's socket tables of the caller's network namespace
 * (/proc/TID/net/tcp, tcp6, udp, udp6) give each socket's local and
 * remote address, port, state and owner: the far end of a connection the
 * runner has made (tcp_peer_owner: an accepted socket carries its
 * listener's owner), or who is bound to a port now (port_holder: a
 * socket bound to that address, or to every address while the address
 * is one of this host's); and which socket listens at a Unix socket's
 * file or abstract name (unix_listener, from sock_diag), so that whoever
 * holds it (held.c) can be judged.
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include "supervise.h"

#define TCP_LISTEN	0x0a

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

/* "ADDR:PORT" of a table line's field into a v6 address (v4 mapped) */
static int
table_addr(const char *hex, int v6, struct in6_addr *a)
{
	uint32_t w[4] = { 0, 0, 0, 0 };
	unsigned v;
	size_t i;

	if (strlen(hex) != (v6 ? 32u : 8u))
		return -1;
	for (i = 0; i < (v6 ? 4u : 1u); i++) {
		if (sscanf(hex + 8 * i, "%8x", &v) != 1)
			return -1;
		w[v6 ? i : 3] = v;
	}
	if (!v6)
		w[2] = htonl(0xffff);
	memcpy(a, w, sizeof w);
	return 0;
}

static void
to_v6(const struct sockaddr_storage *sa, struct in6_addr *a, unsigned *port)
{
	memset(a, 0, sizeof *a);
	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;

		a->s6_addr[10] = a->s6_addr[11] = 0xff;
		memcpy(a->s6_addr + 12, &s4->sin_addr, 4);
		*port = ntohs(s4->sin_port);
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;

		*a = s6->sin6_addr;
		*port = ntohs(s6->sin6_port);
	}
}

static int
unspecified(const struct in6_addr *a)
{
	static const unsigned char v4any[16] = { [10] = 0xff, [11] = 0xff };

	return IN6_IS_ADDR_UNSPECIFIED(a) || memcmp(a, v4any, sizeof v4any) == 0;
}

/* Could a socket of this host answer sa (loopback, 0.0.0.0 and ::, which
 * Linux connects to the loopback, or an interface's address)? */
int
address_local(const struct sockaddr_storage *sa)
{
	struct in6_addr a;
	unsigned port;

	to_v6(sa, &a, &port);
	return unspecified(&a) || local_address(&a);
}

/* The first port anyone may bind (this namespace's sysctl; 1024). */
unsigned
unprivileged_port_start(void)
{
	char buf[32];
	ssize_t n;
	int fd;

	if ((fd = open("/proc/sys/net/ipv4/ip_unprivileged_port_start",
	    O_RDONLY | O_CLOEXEC)) < 0)
		return 1024;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? (unsigned)strtoul(buf, NULL, 10) : 1024;
}

/*
 * The tables of tid's network namespace: the owner of the socket that
 * matches. Mode LISTENER: a TCP listener or a bound UDP socket on want's
 * port, at want's address or at every address (want being local). Mode
 * PEER: the TCP socket whose local end is want and remote end is other
 * (the far end of a connection this host made). 1 with *uid, 0, -1.
 */
enum { LISTENER, PEER };
static int
table_owner(pid_t tid, int tcp, int mode, const struct sockaddr_storage *want_sa,
    const struct sockaddr_storage *other_sa, uid_t *uid, unsigned long *ino)
{
	static const char *const names[2][2] = { { "udp", "udp6" }, { "tcp", "tcp6" } };
	char path[64], line[512], lhex[40], rhex[40];
	struct in6_addr want, other, la, ra;
	unsigned wport, oport = 0, lport, rport, state, u;
	unsigned long inode;
	int v6, here = -1, found = 0;
	FILE *fp;

	to_v6(want_sa, &want, &wport);
	if (other_sa != NULL)
		to_v6(other_sa, &other, &oport);
	for (v6 = 0; v6 < 2 && !found; v6++) {
		snprintf(path, sizeof path, "/proc/%d/net/%s", (int)tid, names[tcp][v6]);
		if ((fp = fopen(path, "re")) == NULL) {
			if (errno == ENOENT)
				continue;	/* no IPv6 in that namespace */
			return -1;
		}
		while (!found && fgets(line, sizeof line, fp) != NULL) {
			if (sscanf(line, " %*u: %39[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %x %*s %*s %*s "
			    "%u %*u %lu", lhex, &lport, rhex, &rport, &state, &u, &inode) != 7 ||
			    lport != wport ||
			    table_addr(lhex, v6, &la) != 0 || table_addr(rhex, v6, &ra) != 0)
				continue;
			if (mode == PEER) {
				found = state != TCP_LISTEN && rport == oport &&
				    memcmp(&la, &want, sizeof la) == 0 &&
				    memcmp(&ra, &other, sizeof ra) == 0;
			} else if (!tcp || state == TCP_LISTEN) {
				if (memcmp(&la, &want, sizeof la) == 0)
					found = 1;
				else if (unspecified(&la) && (v6 || IN6_IS_ADDR_V4MAPPED(&want))) {
					/* every address: a v4 table's only v4 ones */
					if (here < 0)
						here = unspecified(&want) || local_address(&want);
					found = here > 0;
				}
			}
			if (found) {
				*uid = (uid_t)u;
				if (ino != NULL)
					*ino = inode;	/* 0: no process has it yet */
			}
		}
		fclose(fp);
	}
	return found;
}

/* Who listens for sa (TCP) or is bound to it (UDP), in tid's network
 * namespace: 1 with *uid (and the socket's inode in *ino, when not
 * NULL), 0 for nobody, -1 when it cannot be told. */
int
port_holder(pid_t tid, const struct sockaddr_storage *sa, int tcp, uid_t *uid,
    unsigned long *ino)
{
	return table_owner(tid, tcp, LISTENER, sa, NULL, uid, ino);
}

/* Who owns the far end of the TCP connection from self to peer, both on
 * this host (an accepted socket is its listener's owner's): 1 with
 * *uid and the far end's inode in *ino (0 while nobody accepted it), 0,
 * -1. */
int
tcp_peer_owner(pid_t tid, const struct sockaddr_storage *peer,
    const struct sockaddr_storage *self, uid_t *uid, unsigned long *ino)
{
	return table_owner(tid, 1, PEER, peer, self, uid, ino);
}

/*
 * The inode of the Unix socket listening at the socket file st (a named
 * one), or at the abstract name of len bytes (st NULL), from the
 * kernel's socket table (sock_diag, the runner's network namespace: a
 * file is one object wherever it is reached from; an abstract name in
 * another namespace is not found). 1 with *ino, 0 when none is found,
 * -1 when the table cannot be read.
 */
int
unix_listener(const struct stat *st, const char *name, size_t len, unsigned long *ino)
{
	struct {
		struct nlmsghdr		nlh;
		struct unix_diag_req	r;
	} req;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	union {
		char		buf[32768];
		struct nlmsghdr	align;
	} u;
	const struct unix_diag_msg *m;
	const struct unix_diag_vfs *vfs;
	struct nlmsghdr *h;
	struct rtattr *a;
	ssize_t n;
	size_t off;
	int fd, alen, rc = -1, done = 0;

	memset(&req, 0, sizeof req);
	req.nlh.nlmsg_len = sizeof req;
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = AF_UNIX;
	req.r.udiag_states = 1U << TCP_LISTEN;
	req.r.udiag_show = st != NULL ? UDIAG_SHOW_VFS : UDIAG_SHOW_NAME;
	if ((fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) < 0)
		return -1;
	if (sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&nl, sizeof nl) !=
	    (ssize_t)sizeof req)
		goto out;
	rc = 0;
	while (!done && rc == 0 && (n = recv(fd, u.buf, sizeof u.buf, 0)) > 0) {
		for (off = 0; off + sizeof *h <= (size_t)n; off += NLMSG_ALIGN(h->nlmsg_len)) {
			h = (struct nlmsghdr *)(void *)(u.buf + off);
			if (h->nlmsg_len < sizeof *h || h->nlmsg_len > (size_t)n - off)
				break;
			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				rc = -1;
				break;
			}
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof *m))
				continue;
			m = NLMSG_DATA(h);
			alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *m));
			for (a = (struct rtattr *)(void *)(m + 1); RTA_OK(a, alen);
			    a = RTA_NEXT(a, alen)) {
				if (st != NULL && a->rta_type == UNIX_DIAG_VFS &&
				    (size_t)RTA_PAYLOAD(a) >= sizeof *vfs) {
					vfs = RTA_DATA(a);
					/* the kernel's own dev_t: major << 20 | minor */
					if (vfs->udiag_vfs_ino == st->st_ino &&
					    vfs->udiag_vfs_dev >> 20 == major(st->st_dev) &&
					    (vfs->udiag_vfs_dev & 0xfffff) == minor(st->st_dev))
						rc = 1;
				} else if (st == NULL && a->rta_type == UNIX_DIAG_NAME &&
				    (size_t)RTA_PAYLOAD(a) == len && memcmp(RTA_DATA(a), name, len) == 0)
					rc = 1;
				if (rc == 1) {
					*ino = m->udiag_ino;
					goto out;
				}
			}
		}
	}
	if (!done)
		rc = -1;
out:
	close(fd);
	return rc;
}
