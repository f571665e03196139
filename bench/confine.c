/* SPDX-License-Identifier: ISC */
/*
 * Benchmark 10: one command run N times through the runner's own
 * executor (exec_capture), supervised (supervise.c) and not, interleaved
 * round-robin; median and p90 in ms of each, their ratio, and this
 * process's peak RSS (it plays the runner). Needs root.
 * usage: confine N LABEL PATH ARG...
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "shared.h"
#include "supervise.h"

static int
cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t
run(char **argv, int supervised, int *failed)
{
	static char *envp[] = { "PATH=" TRUSTED_PATH, "LC_ALL=C", NULL };
	struct writer nobody = { .uid = 65534 };
	static struct capture cap;
	struct exec_result res;
	struct supervisor sv;
	struct exec_spec x;
	int64_t t0;

	memset(&x, 0, sizeof x);
	if ((x.exefd = open(argv[0], O_RDONLY | O_CLOEXEC)) < 0)
		exit(2);
	x.argv = argv;
	x.envp = envp;
	x.group = EXEC_SESSION;
	x.timeout = 600;
	x.cwd = "/";
	supervise_init(&sv, &nobody);
	if (supervised)
		x.sv = &sv;
	capture_init(&cap, -1, 0);
	t0 = monotonic_ms();
	if (exec_capture(&x, &cap, &res) != 0 || res.exit_code != 0)
		(*failed)++;
	t0 = monotonic_ms() - t0;
	json_decref(supervise_record(&sv));
	supervise_end(&sv);
	close(x.exefd);
	return t0;
}

int
main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[1]) : 0, i, failed[2] = { 0, 0 };
	int64_t *t[2];
	struct rusage ru;
	char why[256];

	if (n <= 0 || geteuid() != 0) {
		fprintf(stderr, "usage (as root): confine N LABEL PATH ARG...\n");
		return 2;
	}
	if (supervise_probe(why, sizeof why) != 0) {
		fprintf(stderr, "no supervisor here: %s\n", why);
		return 2;
	}
	t[0] = calloc((size_t)n, sizeof *t[0]);
	t[1] = calloc((size_t)n, sizeof *t[1]);
	for (i = 0; i < n; i++) {
		t[0][i] = run(argv + 3, 0, &failed[0]);
		t[1][i] = run(argv + 3, 1, &failed[1]);
	}
	qsort(t[0], (size_t)n, sizeof *t[0], cmp);
	qsort(t[1], (size_t)n, sizeof *t[1], cmp);
	printf("  %-12s unconfined median %lld p90 %lld | confined median %lld p90 %lld ms | "
	    "ratio %.2f (aim <= 1.30)%s\n", argv[2], (long long)t[0][(n - 1) / 2],
	    (long long)t[0][(n * 9 + 9) / 10 - 1], (long long)t[1][(n - 1) / 2],
	    (long long)t[1][(n * 9 + 9) / 10 - 1],
	    t[0][(n - 1) / 2] > 0 ? (double)t[1][(n - 1) / 2] / (double)t[0][(n - 1) / 2] : 0.0,
	    failed[0] || failed[1] ? "  WARNING: some runs did not exit 0" : "");
	getrusage(RUSAGE_SELF, &ru);
	printf("  %-12s peak RSS of the supervising process %ld KiB\n", argv[2], ru.ru_maxrss);
	return 0;
}
