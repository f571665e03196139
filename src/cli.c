/* SPDX-License-Identifier: ISC */
/* Helpers of the CLI and its commands that the root runner does not need. */
#include <err.h>
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "warrant.h"

/* RFC 3339 in UTC, e.g. 2026-11-30T03:04:05Z. */
void
format_time(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "%lld", (long long)t);
}

/* "NAME (uid N)", or "uid N" when no account has uid. */
const char *
user_label(uid_t uid, char *buf, size_t size)
{
	struct passwd pw, *p;
	char nss[4096];

	if (getpwuid_r(uid, &pw, nss, sizeof nss, &p) == 0 && p != NULL)
		snprintf(buf, size, "%s (uid %u)", p->pw_name, (unsigned)uid);
	else
		snprintf(buf, size, "uid %u", (unsigned)uid);
	return buf;
}

/* A decimal count in [lo, hi]; 0 on success. */
int
parse_count(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A denial note within FEEDBACK_RULE: valid UTF-8 of at most FEEDBACK_MAX
 * bytes. */
int
feedback_ok(const char *s)
{
	size_t n = strlen(s), i, k;
	unsigned cp;

	if (n > FEEDBACK_MAX)
		return 0;
	for (i = 0; i < n; i += k)
		if ((k = utf8_decode((const unsigned char *)s + i, n - i, &cp)) == 0)
			return 0;
	return 1;
}

/* A string member of a JSON object, or "" when it is missing or not one. */
const char *
json_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

/* Print a usage error for c and return the usage exit code. */
int
usage_error(const struct cmd_entry *c, const char *fmt, ...)
{
	va_list ap;

	if (fmt != NULL) {
		fprintf(stderr, "warrant %s: ", c->name);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "usage: warrant %s%s%s\n", c->name, *c->usage ? " " : "", c->usage);
	return EXIT_REFUSED;
}

/* JSON for the caller; ASCII only, so that agent text in it cannot
 * reach a terminal as control or bidi characters either. */
int
print_json(const json_t *j)
{
	if (j == NULL || json_dumpf(j, stdout, JSON_COMPACT | JSON_ENSURE_ASCII) != 0)
		return -1;
	fputc('\n', stdout);
	return fflush(stdout) == 0 ? 0 : -1;
}

/*
 * Resolve a gate named on the command line (id or unique prefix). Returns
 * EXIT_OK with the full id, or the exit code after saying why; the
 * argument may have been pasted from agent text, so it is echoed inert.
 */
int
gate_arg(struct store *st, const char *arg, char id[GATE_ID_LEN + 1])
{
	int rc = store_resolve(st, arg, ANY_REQUESTER, id);
	char *shown;

	if (rc == 0)
		return EXIT_OK;
	if (rc < 0)
		return EXIT_INTERNAL;
	shown = text_visible(arg);
	warnx(rc == 1 ? "no gate matches '%s'" :
	    "'%s' does not name exactly one gate (give 4 or more characters of a unique id)",
	    shown);
	free(shown);
	return EXIT_REFUSED;
}

/* A refusal on standard error, its agent-controlled parts made inert:
 * "warrant: WHAT refused (CODE) at PATH: MESSAGE". Returns EXIT_REFUSED. */
int
refusal_print(const char *what, const struct refusal *r)
{
	fprintf(stderr, "%s: %s refused (%s)", program_invocation_short_name, what, r->code);
	if (r->path[0] != '\0') {
		fputs(" at ", stderr);
		text_print(stderr, r->path);
	}
	fputs(": ", stderr);
	text_print(stderr, r->message);
	fputc('\n', stderr);
	if (refusal_hint(r) != NULL)
		fprintf(stderr, "%s: hint: %s\n", program_invocation_short_name, refusal_hint(r));
	return EXIT_REFUSED;
}

/* 0 when running as root; else refuses (not_root) for command what, with
 * the command that needs no root (or NULL). Returns the exit code. */
int
root_needed(const char *what, const char *without)
{
	struct refusal r;

	if (getuid() == 0 && geteuid() == 0)
		return 0;
	refuse(&r, "not_root", "$", "this needs root (run it with sudo)%s%s%s",
	    without != NULL ? "; `" : "", without != NULL ? without : "",
	    without != NULL ? "` needs none" : "");
	return refusal_print(what, &r);
}

/* An agent or project label: 1-128 bytes, no control characters. */
int
label_valid(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 128)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

const struct exit_meaning exit_meanings[] = {
	{ EXIT_OK, "done: the gate was created (request); approved and every approved "
	    "command ran (wait, request -w)" },
	{ EXIT_INTERNAL, "an internal error; the message on standard error says why" },
	{ EXIT_REFUSED, "refused: a usage error or a refused request; nothing was stored" },
	{ EXIT_WAIT_FAILED, "approved, but a command failed or was not run: read the ledger" },
	{ EXIT_WAIT_DENIED, "denied by the reviewer; nothing ran: read the feedback" },
	{ EXIT_WAIT_EXPIRED, "expired: nobody answered in time; nothing ran" },
	{ EXIT_WAIT_PENDING, "still pending when -t ran out" },
	{ EXIT_UNREACHABLE, "the reviewer's daemon cannot be reached (--to, WARRANT_SOCKET), "
	    "also after waiting for a restart; when a gate id is printed, do not resend: "
	    "`warrant wait ID`" },
	{ 0, NULL },
};

const char *
exit_meaning(int code)
{
	const struct exit_meaning *e;

	for (e = exit_meanings; e->meaning != NULL; e++)
		if (e->code == code)
			return e->meaning;
	return NULL;
}

/*
 * The exit code of `warrant wait` for an outcome (gate_outcome): 0
 * approved and every command ran, 3 approved with a failure, 4 denied,
 * 5 expired, 6 still pending.
 */
int
outcome_exit(const json_t *outcome)
{
	const char *state = json_str(outcome, "state");
	const json_t *ledger = json_object_get(outcome, "ledger");

	return strcmp(state, "pending") == 0 ? EXIT_WAIT_PENDING :
	    strcmp(state, "denied") == 0 ? EXIT_WAIT_DENIED :
	    strcmp(state, "expired") == 0 ? EXIT_WAIT_EXPIRED :
	    json_is_object(ledger) && ledger_all_ran(ledger) ? EXIT_OK : EXIT_WAIT_FAILED;
}

/*
 * Who asked for gate g, for people: the name, and its uid when that is
 * not this user's (an agent of its own, through the daemon).
 */
void
requester_label(const json_t *g, char *buf, size_t size)
{
	json_int_t uid = json_integer_value(json_object_get(g, "requester_uid"));

	if (json_is_integer(json_object_get(g, "requester_uid")) && uid != (json_int_t)getuid())
		snprintf(buf, size, "%s (uid %lld)", json_str(g, "requester"), (long long)uid);
	else
		snprintf(buf, size, "%s", json_str(g, "requester"));
}

/*
 * For a gate of an enrolled machine: whose password the target's sudo
 * asks (the account sealed as the manifest's machine.sudo_user) and, when
 * YOU commands run there too, that they run in that very account, which
 * is how they could capture it. "" for a local gate or an older one.
 */
void
machine_account_note(const json_t *g, char *buf, size_t size)
{
	const char *who = json_str(json_object_get(json_object_get(g, "manifest"), "machine"),
	    "sudo_user");

	*buf = '\0';
	if (*json_str(g, "machine") == '\0' || *who == '\0')
		return;
	if (json_integer_value(json_object_get(g, "user_count")) > 0)
		snprintf(buf, size, "the password typed is %s's on %s, and the YOU commands "
		    "run there as %s too: what they leave in its shell start-up files can read "
		    "it (docs/remote.md: --root-via)", who, json_str(g, "machine"), who);
	else
		snprintf(buf, size, "the password typed is %s's on %s", who,
		    json_str(g, "machine"));
}

/*
 * The commands that draw or serve (review, serve, pair) are warrant-ui's,
 * the same program linked with ncursesw, libmicrohttpd and libqrencode:
 * `warrant` itself loads none of them, so a request does not pay for
 * loading them. It runs with the same arguments and environment: from
 * the directory of this very program when it is there (a build tree),
 * else from where it is installed. Returns only on failure.
 */
int
ui_exec(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX], **av = xcalloc((size_t)argc + 2, sizeof *av);
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *slash;

	av[0] = "warrant";
	memcpy(av + 1, argv, (size_t)argc * sizeof *av);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL &&
		    (size_t)snprintf(path, sizeof path, "%.*s/warrant-ui", (int)(slash - self),
		    self) < sizeof path && access(path, X_OK) == 0)
			execv(path, av);
	}
	execv(WARRANT_UI_PATH, av);
	warn("cannot start %s", WARRANT_UI_PATH);
	free(av);
	return EXIT_INTERNAL;
}
