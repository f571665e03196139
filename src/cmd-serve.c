/* SPDX-License-Identifier: ISC */
/*
 * warrant serve: the reviewer's daemon. Runs in the foreground as the
 * reviewer, owns the reviewer's store and answers requesters of other
 * uids on /run/warrant/REVIEWER/req.sock (docs/protocol.md); logs to
 * standard error. Ctrl-C or SIGTERM stops it.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"

static int cmd_serve_exec(int, char **);

const struct cmd_entry cmd_serve_entry = {
	.name = "serve",
	.usage = "",
	.help =
	"Run the reviewer's daemon in the foreground: agents running as other users\n"
	"(members of the group warrant-REVIEWER, see `warrant requesters`) send their\n"
	"requests, wait for them and withdraw them through the socket\n"
	WARRANT_RUN_DIR "/REVIEWER/req.sock. Their gates join your queue (warrant\n"
	"list, warrant review). Logs go to standard error; Ctrl-C or SIGTERM stops it.\n"
	"As a systemd user service: systemctl --user enable --now warrant\n",
	.exec = cmd_serve_exec,
};

static int
cmd_serve_exec(int argc, char **argv)
{
	static const struct option longopts[] = { { NULL, 0, NULL, 0 } };
	struct daemon d;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1)
		return usage_error(&cmd_serve_entry, NULL);
	if (optind != argc)
		return usage_error(&cmd_serve_entry, "unexpected argument '%s'", argv[optind]);
	memset(&d, 0, sizeof d);
	if (daemon_identity(&d) != 0)
		return EXIT_INTERNAL;
	if (store_open(&d.st) != 0)
		return EXIT_INTERNAL;
	rc = serve_run(&d) == 0 ? EXIT_OK : EXIT_INTERNAL;
	store_close(&d.st);
	free(d.rates);
	free(d.home);
	return rc;
}
