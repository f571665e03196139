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
	.usage = "[--max-pending N] [--rate N]",
	.help =
	"Run the reviewer's daemon in the foreground: agents running as other users\n"
	"(members of the group warrant-REVIEWER, see `warrant requesters`) send their\n"
	"requests, wait for them and withdraw them through the socket\n"
	WARRANT_RUN_DIR "/REVIEWER/req.sock. Their gates join your queue (warrant\n"
	"list, warrant review). Logs go to standard error; Ctrl-C or SIGTERM stops it.\n"
	"As a systemd user service: systemctl --user enable --now warrant\n\n"
	"  --max-pending N  pending gates one requester may have (default 16)\n"
	"  --rate N         requests one requester may make in any 60 seconds\n"
	"                   (default 30)\n",
	.exec = cmd_serve_exec,
};

static int
cmd_serve_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max-pending", required_argument, NULL, 'P' },
		{ "rate", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	struct daemon d;
	int ch, rc;

	memset(&d, 0, sizeof d);
	d.max_pending = SERVE_QUOTA_PENDING;
	d.rate_count = SERVE_RATE_COUNT;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'P':
			if (parse_count(optarg, 1, SERVE_LIMIT_MAX, &d.max_pending) != 0)
				return usage_error(&cmd_serve_entry, "--max-pending takes 1 to %d",
				    SERVE_LIMIT_MAX);
			break;
		case 'R':
			if (parse_count(optarg, 1, SERVE_LIMIT_MAX, &d.rate_count) != 0)
				return usage_error(&cmd_serve_entry, "--rate takes 1 to %d",
				    SERVE_LIMIT_MAX);
			break;
		default:
			return usage_error(&cmd_serve_entry, NULL);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_serve_entry, "unexpected argument '%s'", argv[optind]);
	if (daemon_identity(&d) != 0)
		return EXIT_INTERNAL;
	if (store_open(&d.st) != 0)
		return EXIT_INTERNAL;
	rc = serve_run(&d) == 0 ? EXIT_OK : EXIT_INTERNAL;
	store_close(&d.st);
	rates_free(&d);
	free(d.rates);
	free(d.home);
	return rc;
}
