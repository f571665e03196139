/* SPDX-License-Identifier: ISC */
/* Small helpers every part uses: allocation that never returns NULL,
 * bounded reads, time formatting, messages. */
#include <sys/random.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "root.h"

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL) {
		warnx("out of memory");
		abort();
	}
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL) {
		warnx("out of memory");
		abort();
	}
	return p;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

/*
 * Read all of fd, but never more than max bytes: returns 0 with the data
 * (NUL-terminated), 1 when the input is longer than max (reading stops
 * there), -1 on a read error.
 */
int
read_bounded(int fd, char **out, size_t *outlen, size_t max)
{
	char *buf = xmalloc(max + 2);
	size_t len = 0;
	ssize_t n;

	while (len <= max) {
		n = read(fd, buf + len, max + 1 - len);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -1;
		}
		len += (size_t)n;
	}
	if (len > max) {
		free(buf);
		return 1;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

int
write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	ssize_t w;

	while (n > 0) {
		w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* write_all as a sha256_stream sink: arg points to the descriptor. */
int
write_sink(void *arg, const void *p, size_t n)
{
	return write_all(*(int *)arg, p, n);
}

int64_t
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec;
}

/* Milliseconds of the monotonic clock, for timeouts and intervals. */
int64_t
monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* n bytes from the system's random source (the CSPRNG): 0, or -1. */
int
random_bytes(void *buf, size_t n)
{
	ssize_t r;

	do
		r = getrandom(buf, n, 0);
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)n ? 0 : -1;
}

const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The fields of /proc/PID/stat after the command name (from the state
 * on: field 3), read into buf; NULL when there is no such process. */
const char *
proc_stat_fields(pid_t pid, char *buf, size_t size)
{
	char path[64], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return NULL;
	return p + 2;
}

/* The state, parent and start time in clock ticks since boot (procfs
 * fields 3, 4 and 22) of pid: 0, or -1 when there is no such process. */
int
proc_stat(pid_t pid, char *state, pid_t *ppid, long long *start)
{
	char buf[1024];
	const char *f = proc_stat_fields(pid, buf, sizeof buf);
	int parent;

	if (f == NULL || sscanf(f, "%c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u"
	    " %*d %*d %*d %*d %*d %*d %lld", state, &parent, start) != 3)
		return -1;
	*ppid = (pid_t)parent;
	return 0;
}

/* The start time of pid, or -1: with the pid it identifies a process
 * even after pid reuse. */
long long
proc_start_time(pid_t pid)
{
	long long start;
	pid_t ppid;
	char state;

	if (proc_stat(pid, &state, &ppid, &start) != 0)
		return -1;
	/* a zombie has finished: it executes nothing any more */
	return state == 'Z' || state == 'X' ? -1 : start;
}

/* Is the process that had this start time still there (and not a zombie)? */
int
proc_alive(pid_t pid, long long start)
{
	return pid > 0 && start >= 0 && proc_start_time(pid) == start;
}

/*
 * Case folding and character classes for comparisons that decide
 * something (credential shapes, forbidden environment names, option
 * words, host names): ASCII only, whatever the locale. The C library's
 * follow LC_CTYPE, and under tr_TR or az_AZ "I" does not fold to "i", so
 * "PRIVATE KEY" would not match "private key" in a process that set the
 * user's locale (the review console does, then approves in the same
 * process).
 */
int
ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

int
ascii_isdigit(int c)
{
	return c >= '0' && c <= '9';
}

int
ascii_isalnum(int c)
{
	return ascii_isdigit(c) || (ascii_lower(c) >= 'a' && ascii_lower(c) <= 'z');
}

int
ascii_isspace(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* strncasecmp, folding ASCII letters only. */
int
ascii_ncasecmp(const char *a, const char *b, size_t n)
{
	int x, y;

	for (; n > 0; a++, b++, n--) {
		x = ascii_lower((unsigned char)*a);
		y = ascii_lower((unsigned char)*b);
		if (x != y || x == '\0')
			return x - y;
	}
	return 0;
}

int
ascii_casecmp(const char *a, const char *b)
{
	return ascii_ncasecmp(a, b, SIZE_MAX);
}

/* strcasestr, folding ASCII letters only. */
const char *
ascii_casestr(const char *s, const char *p)
{
	size_t k = strlen(p);

	for (; *s != '\0' || k == 0; s++)
		if (ascii_ncasecmp(s, p, k) == 0)
			return s;
	return NULL;
}

static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* base64url without padding of n bytes into out; 0, or -1 when it does not fit. */
int
b64url_encode(const unsigned char *in, size_t n, char *out, size_t size)
{
	size_t i, k = 0;
	unsigned v;

	if (n > (SIZE_MAX - 2) / 4 || (n * 4 + 2) / 3 + 1 > size)
		return -1;
	for (i = 0; i < n; i += 3) {
		v = (unsigned)in[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		out[k++] = b64url[v >> 18 & 63];
		out[k++] = b64url[v >> 12 & 63];
		if (i + 1 < n)
			out[k++] = b64url[v >> 6 & 63];
		if (i + 2 < n)
			out[k++] = b64url[v & 63];
	}
	out[k] = '\0';
	return 0;
}

/* base64url without padding, in its one canonical spelling (the bits left
 * over are zero), into at most size bytes: 0 with *n set, or -1. */
int
b64url_decode(const char *s, unsigned char *out, size_t size, size_t *n)
{
	const char *p;
	unsigned acc = 0;
	size_t k = 0;
	int bits = 0;

	if (s == NULL || strlen(s) % 4 == 1)
		return -1;
	for (; *s != '\0'; s++) {
		if ((p = strchr(b64url, *s)) == NULL)
			return -1;
		acc = (acc << 6 | (unsigned)(p - b64url)) & 0xfff;
		if ((bits += 6) >= 8) {
			if (k == size)
				return -1;
			bits -= 8;
			out[k++] = (unsigned char)(acc >> bits);
		}
	}
	if ((acc & ((1u << bits) - 1)) != 0)
		return -1;
	*n = k;
	return 0;
}
