/* SPDX-License-Identifier: ISC */
/*
 * hashfile: SHA-256 of one file through warrant's own sha256_fd (the code
 * that hashes every executable of a request), for the benchmarks.
 *
 *   hashfile FILE
 *
 * Prints "DIGEST SECONDS" where SECONDS is the time spent inside
 * sha256_fd alone (process start-up excluded).
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "warrant.h"

int
main(int argc, char **argv)
{
	char hex[SHA256_HEX_LEN + 1];
	struct timespec a, b;
	int fd;

	if (argc != 2) {
		fputs("usage: hashfile FILE\n", stderr);
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY | O_CLOEXEC)) < 0) {
		perror(argv[1]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (sha256_fd(fd, hex) != 0) {
		perror(argv[1]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	close(fd);
	printf("%s %.6f\n", hex, (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
}
