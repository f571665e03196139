/* SPDX-License-Identifier: ISC */
/*
 * The reviewer's side of stopping a running batch and of its live output
 * (src/root/stopfile.c is the executor's side). Stopping is creating
 * RUN_STOP in the run directory of the gate's unsettled attempt: the
 * directory is the reviewer's own, 0700, so nobody else (the agent on
 * another uid, in particular) can ask; the executor hears the file and
 * kills the command in hand, and the commands after it are skipped.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"

/* The run directory of gate_id's unsettled attempt, opened and checked
 * to be ours and closed to others; -1 when there is none. */
static int
running_dir(struct store *st, const char *gate_id)
{
	json_t *list = attempts_unsettled(st), *a;
	struct stat sb;
	size_t i;
	int fd = -1;

	json_array_foreach(list, i, a)
		if (fd < 0 && strcmp(json_str(a, "gate_id"), gate_id) == 0)
			fd = open(json_str(a, "run_dir"), O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
	json_decref(list);
	if (fd >= 0 && (fstat(fd, &sb) != 0 || sb.st_uid != getuid() ||
	    (sb.st_mode & 07777) != 0700)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Ask the batch of gate_id to stop. 0 when asked (or asked already),
 * EXIT_REFUSED with r filled (not_running), EXIT_INTERNAL after saying why.
 */
int
approve_stop(struct store *st, const char *gate_id, struct refusal *r)
{
	int dfd, fd;

	if (refresh_store(st) != 0)
		return EXIT_INTERNAL;
	if ((dfd = running_dir(st, gate_id)) < 0) {
		refuse(r, "not_running", "ID", "%s is not running: there is nothing to stop; "
		    "nothing changed", gate_id);
		return EXIT_REFUSED;
	}
	fd = openat(dfd, RUN_STOP, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno != EEXIST) {
		warn("%s: cannot ask the batch to stop", gate_id);
		close(dfd);
		return EXIT_INTERNAL;
	}
	if (fd >= 0)
		close(fd);
	close(dfd);
	return EXIT_OK;
}

/* Wait (bounded by deadline, seconds since the epoch) until gate_id's
 * batch is over and settled; 1 when it is, 0 when it still runs. */
int
approve_stop_wait(struct store *st, const char *gate_id, int64_t deadline)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	int dfd;

	for (;;) {
		if (refresh_store(st) != 0)
			return 0;
		if ((dfd = running_dir(st, gate_id)) < 0)
			return 1;
		close(dfd);
		if (now_seconds() > deadline)
			return 0;
		nanosleep(&pause, NULL);
	}
}

/*
 * What gate_id's batch is running now: {"command": ID, "output": TAIL,
 * "output_bytes": N}, the tail redacted here (the executor writes it raw)
 * and still to be neutralised where it is shown; NULL when it is not
 * running or has printed nothing yet.
 */
json_t *
approve_live(struct store *st, const char *gate_id)
{
	json_t *live;
	int dfd;

	if ((dfd = running_dir(st, gate_id)) < 0)
		return NULL;
	live = read_record(dfd, RUN_LIVE);
	close(dfd);
	if (!json_is_string(json_object_get(live, "command")) ||
	    !json_is_string(json_object_get(live, "output"))) {
		json_decref(live);
		return NULL;
	}
	/* as the runner's other records: redacted until no shape is left */
	redact_json(live);
	return live;
}

/* The start of the last n lines of s (a final newline ends the last). */
const char *
live_last_lines(const char *s, int n)
{
	const char *p = s + strlen(s);

	if (p > s && p[-1] == '\n')
		p--;
	while (p > s && n > 0)
		if (*--p == '\n' && --n == 0)
			return p + 1;
	return s;
}

/* `warrant show`: the command running and its latest lines, neutralised. */
void
live_print(FILE *fp, const json_t *live, int lines)
{
	fputs("\nrunning ", fp);
	text_print(fp, json_str(live, "command"));
	fprintf(fp, " (%lld bytes of output so far); its latest lines:\n",
	    (long long)json_integer_value(json_object_get(live, "output_bytes")));
	text_print_output(fp, live_last_lines(json_str(live, "output"), lines), "  | ", "  | ");
}
