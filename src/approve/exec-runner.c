/* SPDX-License-Identifier: ISC */
/*
 * The runner executor: the whole approved batch runs in warrant-runner,
 * started as `sudo -k -- RUNNER --manifest F --expected-sha256 H` on the
 * reviewer's terminal. sudo authenticates that one invocation and caches
 * nothing, so no ticket exists at any moment for anyone to ride. What
 * sudo's status says decides what is known: only sudo failing by itself
 * or the runner's explicit refusal mean that nothing ran; anything else
 * unclear is "may have run".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch.h"

static int
write_run_manifest(struct batch *b)
{
	char *bytes = canon_dump(b->run, NULL);
	int fd, rc = -1;

	fd = openat(b->run_fd, RUN_MANIFEST, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (bytes != NULL && fd >= 0 && write_all(fd, bytes, strlen(bytes)) == 0 && fsync(fd) == 0)
		rc = 0;
	if (fd >= 0 && close(fd) != 0)
		rc = -1;
	free(bytes);
	if (rc != 0)
		tell(b, "runner_error", "cannot write the run manifest in %s: %s", b->run_dir,
		    strerror(errno));
	return rc;
}

/*
 * The runner may have started: settle from its records once it is gone.
 * sudo can die (SIGKILL) while its runner goes on, and then the records
 * are not final: a command after the last one recorded may still run, so
 * none may be called skipped. Wait for the runner as long as the batch
 * may take; one alive after that is left to the finalizer, which waits
 * for it in turn (the gate stays running meanwhile).
 */
static enum exec_end
from_records(struct batch *b, const char *why)
{
	if (runner_live(b->run_fd)) {
		fprintf(stderr, "warrant: %s, but the runner goes on; waiting for it to end\n",
		    why);
		if (runner_await(b->run_fd, now_seconds() + batch_bound(b->selected)))
			return EXEC_STARTED;
	}
	switch (batch_from_disk(b)) {
	case 2:
		return EXEC_DONE;
	case 1:
		batch_mark_rest(b, "skipped", "not run: the runner stopped before it");
		break;
	default:
		batch_mark_rest(b, "interrupted", "may have run: the runner left no record of it");
	}
	tell(b, "runner_error", "%s", why);
	return EXEC_BROKEN;
}

/*
 * The runner refused before running anything. On a terminal its message
 * is above; else (the page's approval) its last `refusing (CODE): WHY`
 * line, kept from its stderr in said, is the refusal told.
 */
static void
refused_said(struct batch *b, const char *said)
{
	const char *p = NULL, *q, *at = said;
	char code[48];
	size_t n;

	while ((q = strstr(at, "refusing (")) != NULL) {
		p = q;
		at = q + 1;
	}
	if (p != NULL) {
		p += 10;
		n = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
		if (n > 0 && n < sizeof code && strncmp(p + n, "): ", 3) == 0) {
			memcpy(code, p, n);
			code[n] = '\0';
			q = p + n + 3;
			tell(b, code, "the runner refused: %.*s", (int)strcspn(q, "\r\n"), q);
			return;
		}
	}
	tell(b, "runner_error", "the runner refused the batch before running anything "
	    "(its message is above)");
}

enum exec_end
exec_runner(struct batch *b, const struct approve_opts *opts)
{
	char path[PATH_MAX], said[1024];
	const char *argv[RUNNER_ARGV_MAX];
	int status;

	if (write_run_manifest(b) != 0)
		return EXEC_NOTHING_RAN;
	if ((size_t)snprintf(path, sizeof path, "%s/%s", b->run_dir, RUN_MANIFEST) >= sizeof path) {
		tell(b, "runner_error", "the run directory's path is too long");
		return EXEC_NOTHING_RAN;
	}
	/* the reviewer's passkey signs this manifest before sudo starts */
	if (opts->passkey && passkey_assert(b, opts->passkey_relay) != 0)
		return EXEC_NOTHING_RAN;
	runner_argv(argv, path, b->run_sha, opts->detach, opts->passkey);
	status = run_sudo(b->tty, argv, said, sizeof said);
	if (sudo_ok(status)) {
		if (opts->detach)
			return EXEC_STARTED;
		return from_records(b, "the runner's ledger is missing or does not check out");
	}
	if (status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 127)) {
		tell(b, "runner_error", "cannot start " SUDO_PATH "; nothing ran");
		return EXEC_NOTHING_RAN;
	}
	/* the runner handles these signals and never dies of them: sudo did,
	 * at its prompt */
	if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGQUIT ||
	    WTERMSIG(status) == SIGHUP || WTERMSIG(status) == SIGTERM)) {
		tell(b, "cancellation", "authentication was cancelled; nothing ran");
		return EXEC_NOTHING_RAN;
	}
	/* the runner never exits 1: that is sudo's own failure */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 1) {
		if (stop_requested)
			tell(b, "cancellation", "authentication was cancelled; nothing ran");
		else
			tell(b, "authentication_failed", "sudo authentication failed (or sudoers "
			    "does not allow the runner%s); nothing ran", opts->passkey ?
			    ": is the passkey enrolled, with its sudoers rule?" : "");
		return EXEC_NOTHING_RAN;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == RUNNER_REVIEWS) {
		tell(b, "reviews_missing", "the runner refused the batch: the two-person rule's "
		    "reviews are missing or one denies it (its message is above); nothing ran, "
		    "the gate stays pending");
		return EXEC_NOTHING_RAN;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == RUNNER_REFUSED) {
		refused_said(b, said);
		return EXEC_NOTHING_RAN;
	}
	return from_records(b, WIFSIGNALED(status) ? "the runner was killed" :
	    "the runner stopped part way");
}
