/* SPDX-License-Identifier: ISC */
/*
 * warrant serve-intake: started by `warrant serve` for a request with
 * snapshots (src/serve/worker.c): reads the job the daemon wrote on its
 * standard input, judges and stores the request on a store connection of
 * its own, and answers on descriptor 3. Not listed in the help: nothing
 * else calls it, and by hand it stores into the caller's own store only
 * what the caller could put there itself.
 */
#include "serve/serve.h"

#ifndef WARRANT_LEAN
static int cmd_serve_intake_exec(int, char **);
#endif

const struct cmd_entry cmd_serve_intake_entry = {
	.name = "serve-intake",
	.summary = "store a request with snapshots for the reviewer's daemon",
	.group = CMD_REVIEWER,
	.usage = "",
	.help = "Started by warrant serve: store the request of the job on standard input.\n",
#ifdef WARRANT_LEAN
	.exec = ui_exec,	/* warrant-ui runs it */
#else
	.exec = cmd_serve_intake_exec,
#endif
	.internal = 1,
};

#ifndef WARRANT_LEAN
static int
cmd_serve_intake_exec(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return usage_error(&cmd_serve_intake_entry, NULL);
	return worker_main();
}
#endif
