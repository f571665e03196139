/* Small helpers every part uses: allocation that never returns NULL,
 * bounded reads, time formatting, messages. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "warrant.h"

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL) {
		fputs("warrant: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL) {
		fputs("warrant: out of memory\n", stderr);
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

void
warnx_(const char *fmt, ...)
{
	va_list ap;

	fputs("warrant: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

int64_t
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec;
}

/* RFC 3339 in UTC, e.g. 2026-11-30T03:04:05Z. */
void
format_time(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "%lld", (long long)t);
}

/* A decimal count in [lo, hi]; 0 on success. */
int
parse_count(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A string member of a JSON object, or "" when it is missing or not one. */
const char *
json_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The start time of pid in clock ticks since boot (procfs field 22), or
 * -1: with the pid it identifies a process even after pid reuse. */
long long
proc_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	long long start = -1;
	char state = 'Z';
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u"
	    " %*d %*d %*d %*d %*d %*d %lld", &state, &start) != 2)
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
