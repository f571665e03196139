/* SPDX-License-Identifier: ISC */
/*
 * A remote machine's destination, ssh://USER@HOST[:PORT], checked before
 * it reaches ssh's argv: a user name and a host name or IP address from a
 * small alphabet, never starting with '-' (ssh would read an option, such
 * as -oProxyCommand=...), no spaces, control or shell characters; an IPv6
 * address in brackets. Anything else is refused (bad_destination).
 */
#include <stdlib.h>
#include <string.h>

#include "remote/remote.h"

#define BAD(r, ...)	refuse(r, "bad_destination", "destination", __VA_ARGS__)

static int
user_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '.' || c == '-';
}

static int
host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '.' || c == '-';
}

static int
hex_char(char c)
{
	return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || (c >= '0' && c <= '9');
}

/* The n bytes at s are a user name ssh and a shell read as one word. */
int
dest_user_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n >= sizeof ((struct dest *)0)->user || *s == '-' || *s == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (!user_char(s[i]))
			return 0;
	return 1;
}

/* s as a destination; 0, or -1 with r filled. */
int
dest_parse(const char *s, struct dest *d, struct refusal *r)
{
	const char *at, *h, *end, *p;
	size_t n;
	char *num;
	unsigned long port;

	memset(d, 0, sizeof *d);
	if (strncmp(s, "ssh://", 6) != 0)
		return BAD(r, "a destination is ssh://USER@HOST or ssh://USER@HOST:PORT");
	s += 6;
	if ((at = strchr(s, '@')) == NULL)
		return BAD(r, "the destination names no user (ssh://USER@HOST)");
	n = (size_t)(at - s);
	if (!dest_user_ok(s, n))
		return BAD(r, "the user name must be 1 to %zu letters, digits, '_', '.' or '-', "
		    "not starting with '-' or '.'", sizeof d->user - 1);
	memcpy(d->user, s, n);
	h = at + 1;
	if (*h == '[') {
		if ((end = strchr(h, ']')) == NULL)
			return BAD(r, "an IPv6 address in brackets has no ']'");
		n = (size_t)(end - h - 1);
		/* brackets are for IPv6 alone: a name in them would format back
		 * without them, as something else */
		if (n < 2 || n >= sizeof d->host || memchr(h + 1, ':', n) == NULL)
			return BAD(r, "the IPv6 address is malformed");
		for (p = h + 1; p < end; p++)
			if (!hex_char(*p) && *p != ':' && *p != '.')
				return BAD(r, "the IPv6 address is malformed");
		memcpy(d->host, h + 1, n);
		end++;
	} else {
		for (end = h; *end != '\0' && *end != ':'; end++)
			if (!host_char(*end))
				return BAD(r, "the host has a character ssh or a shell could read "
				    "(only letters, digits, '.' and '-')");
		n = (size_t)(end - h);
		if (n == 0 || n >= sizeof d->host)
			return BAD(r, "the destination names no host, or too long a one");
		if (*h == '-' || *h == '.' || h[n - 1] == '.' || h[n - 1] == '-')
			return BAD(r, "the host must not start or end with '-' or '.'");
		memcpy(d->host, h, n);
	}
	if (*end == '\0')
		return 0;
	if (*end != ':' || end[1] < '1' || end[1] > '9')
		return BAD(r, "the port must be a number from 1 to 65535, after ':'");
	for (p = end + 1; *p != '\0'; p++)
		if (*p < '0' || *p > '9' || p - end > 5)
			return BAD(r, "the port must be a number from 1 to 65535, after ':'");
	port = strtoul(end + 1, &num, 10);
	if (*num != '\0' || port == 0 || port > 65535)
		return BAD(r, "the port must be a number from 1 to 65535, after ':'");
	d->port = (unsigned)port;
	return 0;
}

/* The destination as ssh://USER@HOST[:PORT] again. */
void
dest_format(const struct dest *d, char *buf, size_t size)
{
	const char *lb = strchr(d->host, ':') != NULL ? "[" : "";
	const char *rb = *lb ? "]" : "";

	if (d->port != 0)
		snprintf(buf, size, "ssh://%s@%s%s%s:%u", d->user, lb, d->host, rb, d->port);
	else
		snprintf(buf, size, "ssh://%s@%s%s%s", d->user, lb, d->host, rb);
}

/* A machine's name: the command id pattern, and never "local". */
int
machine_name_ok(const char *name)
{
	return id_name_ok(name) && strcmp(name, "local") != 0;
}
