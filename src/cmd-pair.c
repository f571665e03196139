/* SPDX-License-Identifier: ISC */
/*
 * warrant pair: pair a phone or browser with the web page of `warrant
 * serve --http` (docs/review.md). Mints a single-use 256-bit token that
 * lives at most 5 minutes, stores only its SHA-256, and prints the page's
 * URL with the token in the fragment (never sent in a request line, a log
 * or a Referer) and as a QR code. --list and --revoke manage the devices
 * paired so far. Only this local command mints tokens: nothing on HTTP can.
 */
#include <err.h>
#include <fcntl.h>
#include <getopt.h>
#include <qrencode.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "warrant.h"
#include "web/web.h"

#define PAIR_TTL_DEFAULT	300
#define PAIR_TTL_MAX		300
#define URL_MAX			200

#ifndef WARRANT_LEAN
static int cmd_pair_exec(int, char **);
#endif

const struct cmd_entry cmd_pair_entry = {
	.name = "pair",
	.summary = "pair a phone or browser with the web page; list, revoke",
	.group = CMD_REVIEWER,
	.usage = "[--url URL] [--ttl SECONDS] [--no-qr] | --list [-j] | --revoke DEVICE",
	.help =
	"Pair a phone or browser with the web page of `warrant serve --http`: prints\n"
	"a link (and its QR code) that works once, within 5 minutes. Opening it makes\n"
	"that browser a device that can see and deny every gate and approve commands\n"
	"that run as you; ROOT approvals stay on a terminal, unless root enrolled\n"
	"your passkey (`warrant passkey add`) for the page's address.\n\n"
	"  --url URL         the page's address (default: where the running daemon\n"
	"                    serves it, such as http://127.0.0.1:8722/)\n"
	"  --ttl SECONDS     how long the link works (30-300, default 300)\n"
	"  --no-qr           print the link only\n"
	"  --list            the devices paired so far\n"
	"  --revoke DEVICE   end a device's session now\n"
	"  -j, --json        --list as JSON\n",
#ifdef WARRANT_LEAN
	.exec = ui_exec,	/* warrant-ui runs it */
#else
	.exec = cmd_pair_exec,
#endif
};

#ifndef WARRANT_LEAN	/* the rest is warrant-ui's */

/* The URL the running daemon wrote, or NULL after a message. */
static char *
daemon_url(const struct store *st)
{
	char path[PATH_MAX + 16], *buf = NULL;
	size_t len;
	int fd;

	if ((size_t)snprintf(path, sizeof path, "%s/web.url", st->dir) >= sizeof path)
		return NULL;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		warnx("no web page is being served (start `warrant serve --http 8722`), or give "
		    "--url");
		return NULL;
	}
	if (read_bounded(fd, &buf, &len, URL_MAX) != 0) {
		close(fd);
		free(buf);
		warnx("%s: unreadable", path);
		return NULL;
	}
	close(fd);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static int
url_ok(const char *u)
{
	const char *p;

	if (strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0)
		return 0;
	if (strlen(u) > URL_MAX || strchr(u, '#') != NULL)
		return 0;
	for (p = u; *p != '\0'; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '\'' || *p == '\\')
			return 0;
	return 1;
}

/*
 * Does url name this computer only (a loopback address or localhost)? A
 * phone that opens such a link reaches itself. host and port get the
 * URL's (port: its scheme's when it names none). url has passed url_ok.
 */
static int
url_loopback(const char *url, char host[64], char port[8])
{
	const char *h = strstr(url, "://") + 3, *end;
	size_t n;

	end = *h == '[' ? strchr(h, ']') : h + strcspn(h, ":/");
	if (end == NULL)
		return 0;
	end += *h == '[';
	n = (size_t)(end - h);
	if (n == 0 || n >= 64 || (*end == ':' && strcspn(end + 1, "/") >= 8))
		return 0;
	memcpy(host, h, n);
	host[n] = '\0';
	if (*end == ':')
		snprintf(port, 8, "%.*s", (int)strcspn(end + 1, "/"), end + 1);
	else
		snprintf(port, 8, "%s", strncmp(url, "https:", 6) == 0 ? "443" : "80");
	if (*host == '[') {
		char bare[64];

		snprintf(bare, sizeof bare, "%.*s", (int)(n - 2), host + 1);
		return web_addr_loopback(bare);
	}
	return strcasecmp(host, "localhost") == 0 || web_addr_loopback(host);
}

/* Before a link only this computer can open: the two ways that work from
 * a phone (docs/web.md, "Use"), as commands for this page's port. */
static void
print_phone_ways(const char *host, const char *port)
{
	printf("A phone cannot open this link as it is: %s is this computer's own\n"
	    "address, and a phone that opens it (or scans the code below) reaches\n"
	    "itself. Two ways work:\n\n"
	    "  1. A tunnel or a reverse proxy to the page, which stays on loopback:\n"
	    "     - an ssh client on the phone, then this very link works there:\n"
	    "         ssh -L %s:%s:%s USER@THIS-COMPUTER\n"
	    "     - a proxy with its own TLS, such as tailscale serve; NAME is the name\n"
	    "       the phone uses (this computer's on the tailnet), given with --host:\n"
	    "         tailscale serve --bg %s\n"
	    "         warrant serve --http 127.0.0.1:%s --host NAME\n"
	    "         warrant pair --url https://NAME/\n"
	    "  2. HTTPS from warrant itself, on an address ADDR of this computer that the\n"
	    "     phone can reach, with a certificate the phone trusts:\n"
	    "         warrant serve --http ADDR:%s --listen-any \\\n"
	    "             --tls-cert CERT.pem --tls-key KEY.pem\n"
	    "         warrant pair\n\n", host, port, host, port, port, port, port);
}

/* The QR code in UTF-8 half blocks, light modules drawn, with a quiet zone;
 * white on black when standard output is a terminal, whatever its colours. */
static void
print_qr(const char *text)
{
	QRcode *q = QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1);
	int tty = isatty(STDOUT_FILENO), x, y, w, m = 2;

	if (q == NULL) {
		warnx("cannot make a QR code of the link; use the link");
		return;
	}
	w = q->width;
	for (y = -m; y < w + m; y += 2) {
		fputs(tty ? "  \033[40;97m" : "  ", stdout);
		for (x = -m; x < w + m; x++) {
			int top = y < 0 || y >= w || x < 0 || x >= w || !(q->data[y * w + x] & 1);
			int bot = y + 1 < 0 || y + 1 >= w || x < 0 || x >= w ||
			    !(q->data[(y + 1) * w + x] & 1);

			fputs(top && bot ? "\u2588" : top ? "\u2580" : bot ? "\u2584" : " ", stdout);
		}
		fputs(tty ? "\033[0m\n" : "\n", stdout);
	}
	QRcode_free(q);
}

static int
list_devices(struct store *st, int json)
{
	json_t *list = device_list(st), *d;
	char made[32], gone[32], *name;
	size_t i;

	if (list == NULL)
		return EXIT_INTERNAL;
	if (json) {
		print_json(list);
		json_decref(list);
		return EXIT_OK;
	}
	if (json_array_size(list) == 0)
		printf("no devices paired (warrant pair)\n");
	json_array_foreach(list, i, d) {
		format_time(json_integer_value(json_object_get(d, "created_at")), made, sizeof made);
		if (json_is_integer(json_object_get(d, "revoked_at")))
			format_time(json_integer_value(json_object_get(d, "revoked_at")), gone,
			    sizeof gone);
		name = text_visible(json_str(d, "name"));
		printf("%s  %-16s paired %s%s%s\n", json_str(d, "device"), name, made,
		    json_is_integer(json_object_get(d, "revoked_at")) ? ", revoked " : "",
		    json_is_integer(json_object_get(d, "revoked_at")) ? gone : "");
		free(name);
	}
	json_decref(list);
	return EXIT_OK;
}

/* What `pair` was asked to do (pair_options). */
struct pair_args {
	const char	*url, *revoke;
	long		 ttl;
	int		 list, json, qr;
};

/* The options into a, checked together: -1, or the exit status of a
 * usage error (said already). */
static int
pair_options(int argc, char **argv, struct pair_args *a)
{
	static const struct option longopts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "ttl", required_argument, NULL, 't' },
		{ "no-qr", no_argument, NULL, 'Q' },
		{ "list", no_argument, NULL, 'l' },
		{ "revoke", required_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "j", longopts, NULL)) != -1) {
		switch (ch) {
		case 'u': a->url = optarg; break;
		case 't':
			if (parse_count(optarg, 30, PAIR_TTL_MAX, &a->ttl) != 0)
				return usage_error(&cmd_pair_entry, "--ttl takes 30 to %d seconds",
				    PAIR_TTL_MAX);
			break;
		case 'Q': a->qr = 0; break;
		case 'l': a->list = 1; break;
		case 'R': a->revoke = optarg; break;
		case 'j': a->json = 1; break;
		default:
			return usage_error(&cmd_pair_entry, NULL);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_pair_entry, "unexpected argument '%s'", argv[optind]);
	if (a->list + (a->revoke != NULL) > 1 ||
	    ((a->list || a->revoke != NULL) && a->url != NULL))
		return usage_error(&cmd_pair_entry, "--list, --revoke and pairing exclude "
		    "each other");
	if (a->json && !a->list)
		return usage_error(&cmd_pair_entry, "-j goes with --list");
	if (a->url != NULL && !url_ok(a->url))
		return usage_error(&cmd_pair_entry, "--url takes an http:// or https:// URL "
		    "without spaces, quotes or a fragment");
	return -1;
}

/* What device_revoke's rc (0, 1 for no such device, -1) says of device. */
static int
revoke_said(const char *device, int rc)
{
	if (rc == 0) {
		printf("%s: revoked; its session no longer works\n", device);
		return EXIT_OK;
	}
	if (rc > 0) {
		struct refusal r = { .code = "unknown_device" };

		snprintf(r.message, sizeof r.message, "no paired device %.64s that is not "
		    "revoked already (warrant pair --list)", device);
		return refusal_print("revoke", &r);
	}
	return EXIT_INTERNAL;
}

/* The pairing link made (ttl seconds to use it), printed, with the two
 * ways a phone can open it when it names this computer only, and its QR
 * code unless qr is 0; then wiped and freed. */
static int
link_print(char *link, long ttl, int qr)
{
	char host[64], port[8];

	if (url_loopback(link, host, port))
		print_phone_ways(host, port);
	printf("Open this link on the phone or in the browser to pair it (it works once,\n"
	    "within %ld seconds; `warrant pair --list` shows the devices):\n\n  %s\n\n", ttl, link);
	if (qr)
		print_qr(link);
	explicit_bzero(link, strlen(link));
	free(link);
	return EXIT_OK;
}

/* List or revoke the devices, or mint a token (only its SHA-256 stored)
 * and print the link to the page that carries it. */
static int
pair_run(const struct pair_args *a)
{
	const char *url = a->url;
	char token[44], sha[SHA256_HEX_LEN + 1], *found = NULL, *link = NULL;
	struct store st;
	int rc;

	if (store_open(&st) != 0)
		return EXIT_INTERNAL;
	if (a->list) {
		rc = list_devices(&st, a->json);
		store_close(&st);
		return rc;
	}
	if (a->revoke != NULL) {
		rc = device_revoke(&st, a->revoke);
		store_close(&st);
		return revoke_said(a->revoke, rc);
	}
	if (url == NULL && (url = found = daemon_url(&st)) == NULL) {
		store_close(&st);
		return EXIT_REFUSED;
	}
	if (!url_ok(url) || web_secret_new(token) != 0) {
		warnx("cannot make a pairing link for %s", url);
		free(found);
		store_close(&st);
		return EXIT_INTERNAL;
	}
	sha256_bytes(token, strlen(token), sha);
	rc = pair_token_add(&st, sha, now_seconds() + a->ttl);
	store_close(&st);
	if (rc != 0 || asprintf(&link, "%s%s#token=%s", url,
	    url[strlen(url) - 1] == '/' ? "" : "/", token) < 0) {
		free(found);
		return EXIT_INTERNAL;
	}
	free(found);
	explicit_bzero(token, sizeof token);
	return link_print(link, a->ttl, a->qr);
}

static int
cmd_pair_exec(int argc, char **argv)
{
	struct pair_args a = { .ttl = PAIR_TTL_DEFAULT, .qr = 1 };
	int rc;

	if ((rc = pair_options(argc, argv, &a)) >= 0)
		return rc;
	return pair_run(&a);
}
#endif	/* !WARRANT_LEAN */
