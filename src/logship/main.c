/* SPDX-License-Identifier: ISC */
/*
 * warrant-logship: sends the ROOT sessions that wait in the spool to the
 * policy's log server (ship.c), then exits. The runner starts it, as
 * root, once a batch is over, so the runner itself links nothing that
 * speaks to the network; `warrant gc` as root does the same sending. It
 * takes no arguments and trusts nothing but root's own files: the policy,
 * the spool and the I/O log, each checked as the runner checks them.
 *
 * Exit: 0 when nothing waits any more (or no server is named), 1 when a
 * session still waits (the reason is in the system log), 2 when it cannot
 * run (not root, arguments, a bad policy).
 */
#include <stdio.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "root/root.h"
#include "logship/ship.h"

int
main(int argc, char **argv)
{
	struct tp_policy p;
	char why[2048];
	size_t sent, waiting;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: warrant-logship\n");
		return 2;
	}
	if (getuid() != 0 || geteuid() != 0) {
		fprintf(stderr, "warrant-logship: only root ships root's sessions\n");
		return 2;
	}
	umask(022);
	openlog("warrant", LOG_PID, LOG_AUTHPRIV);
	if (tp_policy_load(&p, why, sizeof why) != 0) {
		syslog(LOG_ERR, "warrant-logship: %s", why);
		return 2;
	}
	if (logship_flush(&p.log_server, &sent, &waiting, why, sizeof why) != 0) {
		fprintf(stderr, "warrant-logship: %s\n", why);	/* logged by ship.c */
		return 1;
	}
	return waiting == 0 ? 0 : 1;
}
