/* SPDX-License-Identifier: ISC */
/*
 * timeit: wall-clock latency of whole processes, for the benchmarks.
 *
 *   timeit [-n RUNS] [-w WARMUP] GROUP [::: GROUP]...
 *   GROUP:  LABEL STDIN [NAME=VALUE]... PROGRAM [ARG]...
 *
 * Each group is one command line: STDIN is a file opened afresh for every
 * run ("-" for /dev/null), NAME=VALUE words are added to the environment,
 * PROGRAM is an absolute path started with posix_spawn. Standard output
 * and error go to /dev/null. The groups run interleaved, round-robin, so
 * they share whatever the machine was doing during the measurement. Each
 * run is timed from just before the spawn to the return of waitpid.
 *
 * One line per label on standard output:
 *   LABEL median=M p90=P min=A max=B mean=X n=N fail=F
 * (milliseconds; fail counts runs that did not exit 0). Groups given the
 * same LABEL are reported together, their runs pooled (the same command
 * as different users, say). It reports and never judges: the exit status
 * is 0 whenever the runs could be made.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct group {
	const char	 *label;
	const char	 *in;
	char		**argv;
	char		**envp;
	double		 *ms;
	int		  fail;
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted v[0..n). */
static double
pct(const double *v, int n, double p)
{
	int k = (int)(p / 100.0 * n + 0.999999);

	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

static void
usage(void)
{
	fputs("usage: timeit [-n RUNS] [-w WARMUP] LABEL STDIN [NAME=VALUE]... PROGRAM [ARG]..."
	    " [::: GROUP]...\n", stderr);
	exit(2);
}

static int
run_once(struct group *g, double *ms)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	double t0;
	int status, err;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, strcmp(g->in, "-") == 0 ? "/dev/null" : g->in,
	    O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	t0 = now_ms();
	err = posix_spawn(&pid, g->argv[0], &fa, NULL, g->argv, g->envp);
	posix_spawn_file_actions_destroy(&fa);
	if (err != 0) {
		fprintf(stderr, "timeit: %s: %s\n", g->argv[0], strerror(err));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("timeit: waitpid");
			return -1;
		}
	*ms = now_ms() - t0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct group *gs;
	int runs = 100, warmup = 5, ngroups = 0, ch, i, j, r, nenv;

	while ((ch = getopt(argc, argv, "+n:w:")) != -1) {
		switch (ch) {
		case 'n':
			runs = atoi(optarg);
			break;
		case 'w':
			warmup = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (runs < 1 || warmup < 0 || optind >= argc)
		usage();
	gs = calloc((size_t)argc, sizeof *gs);
	for (nenv = 0; environ[nenv] != NULL; nenv++)
		;
	i = optind;
	while (i < argc) {
		struct group *g = &gs[ngroups++];
		int e = 0;

		if (argc - i < 3)
			usage();
		g->label = argv[i++];
		g->in = argv[i++];
		g->envp = calloc((size_t)(nenv + argc + 1), sizeof *g->envp);
		while (i < argc && argv[i][0] != '/' && strchr(argv[i], '=') != NULL)
			g->envp[e++] = argv[i++];
		for (j = 0; j < nenv; j++)
			g->envp[e++] = environ[j];
		if (i >= argc || argv[i][0] != '/')
			usage();
		g->argv = &argv[i];
		while (i < argc && strcmp(argv[i], ":::") != 0)
			i++;
		if (i < argc)
			argv[i++] = NULL;	/* ends this group's argv */
		g->ms = calloc((size_t)runs, sizeof *g->ms);
	}
	for (r = 0; r < warmup + runs; r++) {
		for (j = 0; j < ngroups; j++) {
			double ms;
			int rc = run_once(&gs[j], &ms);

			if (rc < 0)
				return 1;
			if (r < warmup)
				continue;
			gs[j].ms[r - warmup] = ms;
			gs[j].fail += rc;
		}
	}
	for (j = 0; j < ngroups; j++) {
		double *pool, sum = 0;
		int k, np = 0, fail = 0;

		for (k = 0; k < j && strcmp(gs[k].label, gs[j].label) != 0; k++)
			;
		if (k < j)
			continue;	/* reported with its first group */
		pool = calloc((size_t)runs * (size_t)ngroups, sizeof *pool);
		for (k = j; k < ngroups; k++) {
			if (strcmp(gs[k].label, gs[j].label) != 0)
				continue;
			memcpy(pool + np, gs[k].ms, (size_t)runs * sizeof *pool);
			np += runs;
			fail += gs[k].fail;
		}
		qsort(pool, (size_t)np, sizeof *pool, cmp_double);
		for (r = 0; r < np; r++)
			sum += pool[r];
		printf("%s median=%.3f p90=%.3f min=%.3f max=%.3f mean=%.3f n=%d fail=%d\n",
		    gs[j].label, pct(pool, np, 50), pct(pool, np, 90), pool[0],
		    pool[np - 1], sum / np, np, fail);
		free(pool);
	}
	return 0;
}
