/* SPDX-License-Identifier: ISC */
/*
 * warrant serve: the reviewer's daemon. Runs in the foreground as the
 * reviewer, owns the reviewer's store and answers requesters of other
 * uids on /run/warrant/REVIEWER/req.sock (docs/protocol.md); with --http
 * it also serves the web page (src/web/). Logs to standard error. Ctrl-C
 * or SIGTERM stops it.
 */
#include <err.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"
#include "web/web.h"
#include "web/boxapi.h"

#ifndef WARRANT_LEAN
static int cmd_serve_exec(int, char **);
#endif

const struct cmd_entry cmd_serve_entry = {
	.name = "serve",
	.summary = "the reviewer's daemon: other users' agents, the web page",
	.group = CMD_REVIEWER,
	.usage = "[--max-pending N] [--rate N] [--meta-quota KIB] [--blob-quota MIB] [--blob-cap MIB] [--http [ADDR:]PORT [--host NAME]... "
	    "[--listen-any --tls-cert PEM --tls-key PEM]] [--notify-url URL] | --box-api [ADDR:]PORT "
	    "[--listen-any --tls-cert PEM --tls-key PEM]",
	.help =
	"Run the reviewer's daemon in the foreground: agents running as other users\n"
	"(members of the group warrant-REVIEWER, see `warrant requesters`) send their\n"
	"requests, wait for them and withdraw them through the socket\n"
	WARRANT_RUN_DIR "/REVIEWER/req.sock. Their gates join your queue (warrant\n"
	"list, warrant review). Logs go to standard error; Ctrl-C or SIGTERM stops it.\n"
	"As a systemd user service: systemctl --user enable --now warrant\n\n"
	"  --max-pending N  pending gates one requester may have (default 16)\n"
	"  --rate N         requests one requester may make in any 60 seconds\n"
	"                   (default 30)\n"
	"  --meta-quota KIB what one requester's gates may take in your state\n"
	"                   (manifests, ledgers; settled gates count until `warrant\n"
	"                   gc` prunes them; default " STR(SERVE_META_QUOTA_KIB) ")\n"
	"  --blob-quota MIB reviewed files one requester's gates may hold (pending\n"
	"                   ones, and for a day those that did not run; default "
	    STR(BLOB_QUOTA_MIB) ")\n"
	"  --blob-cap MIB   what all reviewed files may take on disk (default "
	    STR(BLOB_CAP_MIB) ")\n"
	"  --http [ADDR:]PORT  also serve the web page for a paired phone or browser\n"
	"                      (`warrant pair`) on ADDR (127.0.0.1 by default): it\n"
	"                      shows and denies every gate and approves commands that\n"
	"                      run as you (as root only with a passkey root enrolled,\n"
	"                      `warrant passkey`); a page that cannot start (its port\n"
	"                      taken) is logged and the requester socket goes on\n"
	"  --host NAME         another Host name the page answers to, such as a reverse\n"
	"                      proxy's (tailscale serve, ssh -L); repeatable\n"
	"  --listen-any        allow ADDR other than loopback (needs --tls-cert/--tls-key)\n"
	"  --tls-cert PEM, --tls-key PEM\n"
	"                      serve the page over HTTPS with this certificate and key\n"
	"  --notify-url URL    when the number of pending gates rises, POST the text\n"
	"                      \"N pending\" to URL (http or https; an ntfy topic, a\n"
	"                      webhook): no id, reason, command, link or secret; at\n"
	"                      most one every 30 seconds\n\n"
	"  --box-api [ADDR:]PORT  (root) instead of all the above, serve only the box\n"
	"                      password route, POST /box/set-password and\n"
	"                      /box/NAME/set-password, signed with the keys of\n"
	"                      `warrant box key` (see docs/web.md)\n",
#ifdef WARRANT_LEAN
	.exec = ui_exec,	/* warrant-ui runs it */
#else
	.exec = cmd_serve_exec,
#endif
};

#ifndef WARRANT_LEAN	/* the rest is warrant-ui's */

/* What `serve` was asked to run (serve_options). */
struct serve_args {
	struct web_config cfg;
	const char	*notify_url;
	long		 max_pending, rate_count;
	long		 blob_quota, blob_cap;	/* MiB */
	long		 meta;			/* KiB */
	int		 http, boxapi;
	int		 other;			/* an option of the requester socket's */
};

/* The options into a, checked together: -1, or the exit status of a
 * usage error (said already). */
static int
serve_options(int argc, char **argv, struct serve_args *a)
{
	static const struct option longopts[] = {
		{ "max-pending", required_argument, NULL, 'P' },
		{ "rate", required_argument, NULL, 'R' },
		{ "meta-quota", required_argument, NULL, 'M' },
		{ "blob-quota", required_argument, NULL, 'q' },
		{ "blob-cap", required_argument, NULL, 'c' },
		{ "http", required_argument, NULL, 'H' },
		{ "host", required_argument, NULL, 'n' },
		{ "listen-any", no_argument, NULL, 'A' },
		{ "tls-cert", required_argument, NULL, 'C' },
		{ "tls-key", required_argument, NULL, 'K' },
		{ "box-api", required_argument, NULL, 'B' },
		{ "notify-url", required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 }
	};
	const char *why;
	int ch;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'P':
			a->other = 1;
			if (parse_count(optarg, 1, SERVE_LIMIT_MAX, &a->max_pending) != 0)
				return usage_error(&cmd_serve_entry, "--max-pending takes 1 to %d",
				    SERVE_LIMIT_MAX);
			break;
		case 'R':
			a->other = 1;
			if (parse_count(optarg, 1, SERVE_LIMIT_MAX, &a->rate_count) != 0)
				return usage_error(&cmd_serve_entry, "--rate takes 1 to %d",
				    SERVE_LIMIT_MAX);
			break;
		case 'M':
			a->other = 1;
			if (parse_count(optarg, 1, SERVE_META_QUOTA_MAX, &a->meta) != 0)
				return usage_error(&cmd_serve_entry, "--meta-quota takes KiB from 1 "
				    "to %d", SERVE_META_QUOTA_MAX);
			break;
		case 'q':
		case 'c':
			a->other = 1;
			if (parse_count(optarg, 1, 1048576,
			    ch == 'q' ? &a->blob_quota : &a->blob_cap) != 0)
				return usage_error(&cmd_serve_entry, "--blob-%s takes MiB from 1 to "
				    "1048576", ch == 'q' ? "quota" : "cap");
			break;
		case 'H':
			if (web_parse_listen(optarg, &a->cfg) != 0)
				return usage_error(&cmd_serve_entry, "--http takes [ADDR:]PORT with a "
				    "numeric address, such as 8722 or 127.0.0.1:8722");
			a->http = 1;
			break;
		case 'N':
			if (push_url_check(optarg, &why) != 0)
				return usage_error(&cmd_serve_entry, "--notify-url is refused: %s",
				    why);
			a->notify_url = optarg;
			a->other = 1;
			break;
		case 'B':
			if (web_parse_listen(optarg, &a->cfg) != 0)
				return usage_error(&cmd_serve_entry, "--box-api takes [ADDR:]PORT "
				    "with a numeric address, such as 8723 or 127.0.0.1:8723");
			a->boxapi = 1;
			break;
		case 'n':
			if (a->cfg.nhosts == WEB_HOSTS_MAX || !label_valid(optarg) ||
			    strlen(optarg) > 150 || strpbrk(optarg, " /\\\"'") != NULL)
				return usage_error(&cmd_serve_entry, "--host takes a host name (at "
				    "most %d of them)", WEB_HOSTS_MAX);
			a->cfg.hosts[a->cfg.nhosts++] = optarg;
			break;
		case 'A': a->cfg.listen_any = 1; break;
		case 'C': a->cfg.tls_cert = optarg; break;
		case 'K': a->cfg.tls_key = optarg; break;
		default:
			return usage_error(&cmd_serve_entry, NULL);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_serve_entry, "unexpected argument '%s'", argv[optind]);
	if (a->boxapi && (a->http || a->other || a->cfg.nhosts > 0))
		return usage_error(&cmd_serve_entry, "--box-api is a mode of its own: it "
		    "takes only --listen-any and --tls-cert/--tls-key");
	if (!a->http && (a->cfg.nhosts > 0 || a->cfg.listen_any || a->cfg.tls_cert != NULL ||
	    a->cfg.tls_key != NULL))
		return usage_error(&cmd_serve_entry, "--host, --listen-any and --tls-* go "
		    "with --http");
	return -1;
}

/* The daemon: the requester socket, the page when asked, the push. */
static int
serve_daemon(struct serve_args *a)
{
	struct daemon d;
	struct web *w = NULL;
	struct push *push = NULL;
	int rc;

	memset(&d, 0, sizeof d);
	d.max_pending = a->max_pending;
	d.rate_count = a->rate_count;
	d.web = a->http;
	if (daemon_identity(&d) != 0)
		return EXIT_INTERNAL;
	if (store_open(&d.st) != 0)
		return EXIT_INTERNAL;
	d.st.blob_quota = a->blob_quota * 1048576LL;
	d.st.blob_cap = a->blob_cap * 1048576LL;
	d.meta_quota = a->meta * 1024LL;
	/* the page is a second door: one that cannot open (its port taken,
	 * its certificate unreadable) leaves the requesters' door open */
	if (a->http) {
		w = xcalloc(1, sizeof *w);
		if (web_start(w, &a->cfg) != 0) {
			warnx("serve: the web page is not served (said above why); the "
			    "requester socket goes on without it");
			free(w);
			w = NULL;
			d.web = 0;
		}
	}
	if (a->notify_url != NULL && (push = push_start(a->notify_url)) == NULL) {
		if (w != NULL) {
			web_stop(w);
			free(w);
		}
		store_close(&d.st);
		free(d.home);
		return EXIT_INTERNAL;
	}
	rc = serve_run(&d) == 0 ? EXIT_OK : EXIT_INTERNAL;
	push_stop(push);
	if (w != NULL) {
		web_stop(w);
		free(w);
	}
	store_close(&d.st);
	rates_free(&d);
	free(d.rates);
	free(d.home);
	return rc;
}

static int
cmd_serve_exec(int argc, char **argv)
{
	struct serve_args a = { .max_pending = SERVE_QUOTA_PENDING,
	    .rate_count = SERVE_RATE_COUNT, .blob_quota = BLOB_QUOTA_MIB,
	    .blob_cap = BLOB_CAP_MIB, .meta = SERVE_META_QUOTA_KIB };
	int rc;

	if ((rc = serve_options(argc, argv, &a)) >= 0)
		return rc;
	if (a.boxapi)
		return boxapi_serve(&a.cfg) == 0 ? EXIT_OK : EXIT_INTERNAL;
	return serve_daemon(&a);
}
#endif	/* !WARRANT_LEAN */
