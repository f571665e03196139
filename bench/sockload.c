/* SPDX-License-Identifier: ISC */
/*
 * sockload: one requester's load on warrant serve's socket, for the
 * benchmarks (bench/serve.sh). A client of docs/protocol.md, as lean as
 * one can be: per request a fresh connection (as `warrant request` makes),
 * the request line, its reply; then the withdrawal of that gate on the
 * same connection, its reply; close.
 *
 *   sockload SOCKET REQUEST.json N START_MS OUT
 *
 * It waits until the wall clock reaches START_MS (milliseconds since the
 * epoch; several sockloads started together begin at once), makes N
 * requests, and writes to OUT one line per event:
 *   request MS          a stored gate: connect to its descriptor, in ms
 *   withdraw MS         its withdrawal's reply, in ms
 *   refused CODE        a request the daemon refused (nothing stored)
 *   error WHAT          no usable reply (the connection failed or closed)
 * and on standard output one summary line:
 *   ok=N refused=N errors=N start=MS end=MS
 * (start and end: wall clock in ms, around the N requests). The exit
 * status is 0 whenever it could run, whatever the daemon answered.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#define LINE_MAX_BYTES	(1024 * 1024)

static double
clock_ms(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
dial(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof sa.sun_path)
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
send_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One reply line as JSON (buf holds what came after it). NULL on failure. */
static json_t *
read_line(int fd, char *buf, size_t *have)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char *nl;
	json_t *j;
	ssize_t n;
	size_t len;

	for (;;) {
		if ((nl = memchr(buf, '\n', *have)) != NULL) {
			len = (size_t)(nl - buf);
			j = json_loadb(buf, len, 0, NULL);
			memmove(buf, nl + 1, *have - len - 1);
			*have -= len + 1;
			return j;
		}
		if (*have >= LINE_MAX_BYTES)
			return NULL;
		if (poll(&p, 1, 30000) <= 0)
			return NULL;
		n = recv(fd, buf + *have, LINE_MAX_BYTES - *have, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL;
		*have += (size_t)n;
	}
}

int
main(int argc, char **argv)
{
	json_t *body, *msg, *reply, *w;
	json_error_t err;
	char *line, *wline, *buf;
	const char *id, *code;
	double start, t0, t1, t2, begin, end;
	long n, i, ok = 0, refused = 0, errors = 0;
	size_t have;
	FILE *out;
	int fd;

	if (argc != 6) {
		fputs("usage: sockload SOCKET REQUEST.json N START_MS OUT\n", stderr);
		return 2;
	}
	n = strtol(argv[3], NULL, 10);
	start = strtod(argv[4], NULL);
	if ((body = json_load_file(argv[2], 0, &err)) == NULL) {
		fprintf(stderr, "sockload: %s: %s\n", argv[2], err.text);
		return 2;
	}
	if ((out = fopen(argv[5], "w")) == NULL) {
		perror(argv[5]);
		return 2;
	}
	msg = json_pack("{s:s,s:O,s:s}", "op", "request", "request", body, "agent", "bench");
	line = json_dumps(msg, JSON_COMPACT);
	buf = malloc(LINE_MAX_BYTES);
	if (msg == NULL || line == NULL || buf == NULL)
		return 2;
	line = realloc(line, strlen(line) + 2);
	strcat(line, "\n");
	while ((t0 = clock_ms(CLOCK_REALTIME)) < start)
		usleep((useconds_t)((start - t0) * 1000 > 50000 ? 50000 : (start - t0) * 1000 + 1));
	begin = clock_ms(CLOCK_REALTIME);
	for (i = 0; i < n; i++) {
		have = 0;
		t0 = clock_ms(CLOCK_MONOTONIC);
		if ((fd = dial(argv[1])) < 0) {
			fprintf(out, "error connect:%s\n", strerror(errno));
			errors++;
			continue;
		}
		if (send_all(fd, line, strlen(line)) != 0 ||
		    (reply = read_line(fd, buf, &have)) == NULL) {
			fprintf(out, "error request\n");
			errors++;
			close(fd);
			continue;
		}
		t1 = clock_ms(CLOCK_MONOTONIC);
		id = json_string_value(json_object_get(json_object_get(reply, "gate"), "request_id"));
		if (!json_is_true(json_object_get(reply, "ok")) || id == NULL) {
			code = json_string_value(json_object_get(json_object_get(reply, "error"), "code"));
			fprintf(out, "refused %s\n", code != NULL ? code : "?");
			refused++;
			json_decref(reply);
			close(fd);
			continue;
		}
		ok++;
		fprintf(out, "request %.3f\n", t1 - t0);
		w = json_pack("{s:s,s:s}", "op", "withdraw", "id", id);
		wline = json_dumps(w, JSON_COMPACT);
		json_decref(w);
		json_decref(reply);
		if (wline == NULL || send_all(fd, wline, strlen(wline)) != 0 ||
		    send_all(fd, "\n", 1) != 0 || (reply = read_line(fd, buf, &have)) == NULL) {
			fprintf(out, "error withdraw\n");
			errors++;
		} else {
			t2 = clock_ms(CLOCK_MONOTONIC);
			if (json_is_true(json_object_get(reply, "ok")))
				fprintf(out, "withdraw %.3f\n", t2 - t1);
			else {
				fprintf(out, "error withdraw-refused\n");
				errors++;
			}
			json_decref(reply);
		}
		free(wline);
		close(fd);
	}
	end = clock_ms(CLOCK_REALTIME);
	printf("ok=%ld refused=%ld errors=%ld start=%.3f end=%.3f\n", ok, refused, errors,
	    begin, end);
	fclose(out);
	return 0;
}
