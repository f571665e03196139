/* SPDX-License-Identifier: ISC */
/*
 * warrant finalize: started by `warrant answer` once a detached runner
 * took over a batch; waits for the runner and settles the gate from its
 * records. Not listed in the help: nothing else needs to call it, and
 * calling it by hand only settles what any reader of the store would.
 */
#include "warrant.h"

static int cmd_finalize_exec(int, char **);

const struct cmd_entry cmd_finalize_entry = {
	.name = "finalize",
	.summary = "settle a detached approval once its runner has ended",
	.group = CMD_REVIEWER,
	.usage = "ATTEMPT",
	.help = "Wait for the runner of a detached approval and settle its gate.\n",
	.exec = cmd_finalize_exec,
	.internal = 1,
};

static int
cmd_finalize_exec(int argc, char **argv)
{
	long id;

	if (argc != 2 || parse_count(argv[1], 1, 0x7fffffffL, &id) != 0)
		return usage_error(&cmd_finalize_entry, NULL);
	return finalize_main(NULL, id);
}
