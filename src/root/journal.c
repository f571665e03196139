/* SPDX-License-Identifier: ISC */
/*
 * One ROOT command's record in the systemd journal, with fields a fleet
 * can search and ship (journalctl -t warrant WARRANT_REQUEST=ID;
 * systemd-journal-upload): the journal's native protocol, one datagram
 * to /run/systemd/journal/socket, each field as NAME "\n" LENGTH(le64)
 * VALUE "\n" so that a value may hold any byte. What sd_journal_send()
 * does, without linking libsystemd into the root binary for it.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "root.h"
#include "runner.h"

#define JOURNAL_SOCKET	"/run/systemd/journal/socket"
#define JOURNAL_MAX	(128 * 1024)	/* under the socket's datagram size */

/* Append NAME=VALUE (binary form) to buf at *len; 0, or -1 when it would
 * pass JOURNAL_MAX. */
static int
field(char *buf, size_t *len, const char *name, const char *value)
{
	size_t n = strlen(name), v = strlen(value);
	uint64_t le = htole64((uint64_t)v);

	if (*len + n + 1 + sizeof le + v + 1 > JOURNAL_MAX)
		return -1;
	memcpy(buf + *len, name, n);
	buf[*len + n] = '\n';
	memcpy(buf + *len + n + 1, &le, sizeof le);
	memcpy(buf + *len + n + 1 + sizeof le, value, v);
	buf[*len + n + 1 + sizeof le + v] = '\n';
	*len += n + 1 + sizeof le + v + 1;
	return 0;
}

/*
 * Send the fields (NULL-terminated pairs of name and value; a value that
 * does not fit is left out and WARRANT_TRUNCATED names it) as one entry.
 * 0 when the journal took it; -1 when there is no journal here (the
 * caller then writes to syslog) or it refused.
 */
int
journal_send(const char *const *fields)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char *buf = malloc(JOURNAL_MAX), cut[256] = "";
	size_t len = 0, i;
	ssize_t n;
	int fd, rc = -1;

	if (buf == NULL)
		return -1;
	for (i = 0; fields[i] != NULL && fields[i + 1] != NULL; i += 2)
		if (field(buf, &len, fields[i], fields[i + 1]) != 0 &&
		    strlen(cut) + strlen(fields[i]) + 2 < sizeof cut) {
			strcat(cut, *cut != '\0' ? " " : "");
			strcat(cut, fields[i]);
		}
	if (*cut != '\0' && field(buf, &len, "WARRANT_TRUNCATED", cut) != 0)
		goto out;
	memcpy(sun.sun_path, JOURNAL_SOCKET, sizeof JOURNAL_SOCKET);
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		goto out;
	n = sendto(fd, buf, len, MSG_NOSIGNAL, (struct sockaddr *)&sun, sizeof sun);
	rc = n == (ssize_t)len ? 0 : -1;
	close(fd);
out:
	free(buf);
	return rc;
}
