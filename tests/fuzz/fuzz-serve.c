/* SPDX-License-Identifier: ISC */
/* libFuzzer target: what a requester writes to the reviewer's daemon, one
 * message a line, handed to ops_message as the daemon's loop does, for a
 * connection of an admitted peer (this process's own uid) on one end of a
 * socket pair whose other end is drained. Every line gets a reply or
 * none; never a crash or a leak. An accepted request stores a gate in a
 * temporary WARRANT_HOME, under the daemon's quota. */
#include <sys/socket.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve/serve.h"

int LLVMFuzzerInitialize(int *, char ***);
int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct daemon d;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char home[] = "/tmp/warrant-fuzz-serve.XXXXXX";

	(void)argc;
	(void)argv;
	if (getenv("WARRANT_HOME") == NULL &&
	    (mkdtemp(home) == NULL || setenv("WARRANT_HOME", home, 1) != 0))
		abort();
	d.uid = getuid();
	d.max_pending = SERVE_QUOTA_PENDING;
	d.rate_count = SERVE_RATE_COUNT;
	snprintf(d.name, sizeof d.name, "fuzz");
	snprintf(d.group, sizeof d.group, "warrant-fuzz");
	if (store_open(&d.st) != 0)
		abort();
	return 0;
}

static void
drain(int fd)
{
	char buf[65536];

	while (read(fd, buf, sizeof buf) > 0)
		;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *nl;
	struct peer peer = { .uid = getuid(), .gid = getgid(), .pid = getpid(),
	    .start = -1 };
	struct conn *c;
	int sv[2];
	size_t n;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) != 0)
		abort();
	snprintf(peer.name, sizeof peer.name, "fuzzer");
	c = conn_open(sv[0], &peer);
	while (size > 0) {
		nl = memchr(p, '\n', size);
		n = nl != NULL ? (size_t)(nl - p) : size;
		ops_message(&d, c, p, n);
		drain(sv[1]);
		if (nl == NULL)
			break;
		p = nl + 1;
		size -= n + 1;
	}
	conn_close(c);
	close(sv[1]);
	return 0;
}
