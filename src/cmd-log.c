/* SPDX-License-Identifier: ISC */
/*
 * warrant log: the audit chain; --verify checks it link by link;
 * --unshipped lists the I/O log sessions of ROOT commands that have not
 * reached the policy's log server yet (logship.c): the caller's own, found
 * through their ledgers, or, as root, every one, named by its log.json.
 */
#include <err.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "warrant.h"
#include "logship/ship.h"

static int cmd_log_exec(int, char **);

const struct cmd_entry cmd_log_entry = {
	.name = "log",
	.summary = "print or verify the audit chain of every request and change",
	.group = CMD_REVIEWER,
	.usage = "[-j] [--verify | --unshipped]",
	.help =
	"Print the audit chain: every request and state change, oldest first.\n\n"
	"  -j, --json     a JSON array of events\n"
	"  --verify       check the chain and the gates against it; exits 1 and names\n"
	"                 the first edited, inserted or deleted row when it is broken\n"
	"  --unshipped    the I/O log sessions of your ROOT commands (as root: of\n"
	"                 everyone's) not yet shipped to the policy's log server\n",
	.exec = cmd_log_exec,
};

static int
verify(struct store *st, int json)
{
	char why[512] = "";
	long count;
	int rc = audit_verify(st, why, sizeof why, &count);
	json_t *j;

	if (rc < 0)
		return EXIT_INTERNAL;
	if (json) {
		j = json_pack("{s:b,s:I,s:s?}", "ok", rc == 0, "events", (json_int_t)count,
		    "problem", rc == 0 ? NULL : why);
		print_json(j);
		json_decref(j);
	} else if (rc == 0)
		printf("audit chain intact: %ld events\n", count);
	else
		printf("audit chain broken: %s\n", why);
	return rc == 0 ? EXIT_OK : EXIT_INTERNAL;
}

/* As root: who a session belongs to, from its own log.json. */
static json_t *
session_owner(const char *id)
{
	char path[PATH_MAX], *buf = NULL;
	json_t *j = NULL, *o;
	size_t len;
	int fd;

	snprintf(path, sizeof path, "%s/%s/log.json", WARRANT_IOLOG_DIR, id);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0 &&
	    read_bounded(fd, &buf, &len, 64 * 1024) == 0)
		j = json_loadb(buf, len, 0, NULL);
	if (fd >= 0)
		close(fd);
	free(buf);
	o = json_pack("{s:O?,s:O?,s:O?}", "request_id", json_object_get(j, "warrant_request_id"),
	    "command_id", json_object_get(j, "warrant_command_id"),
	    "reviewer", json_object_get(j, "submituser"));
	json_decref(j);
	return o;
}

static int
unshipped(struct store *st, int json)
{
	json_t *waiting = logship_waiting(), *mine = NULL, *list, *v, *o;
	size_t i;
	int rc;

	if (waiting == NULL) {
		warnx("%s cannot be read", WARRANT_LOGSHIP_SPOOL);
		return EXIT_INTERNAL;
	}
	if (geteuid() != 0 && (mine = store_iolog_sessions(st)) == NULL) {
		json_decref(waiting);
		return EXIT_INTERNAL;
	}
	list = json_array();
	json_array_foreach(waiting, i, v) {
		o = mine != NULL ? json_deep_copy(json_object_get(mine, json_string_value(v))) :
		    session_owner(json_string_value(v));
		if (o == NULL)
			continue;	/* another reviewer's */
		json_object_set(o, "iolog", v);
		json_array_append_new(list, o);
	}
	json_decref(waiting);
	json_decref(mine);
	if (json)
		rc = print_json(list);
	else {
		if (json_array_size(list) == 0)
			printf("no I/O log session waits for the log server\n");
		json_array_foreach(list, i, o) {
			printf("%s  %s  ", json_string_value(json_object_get(o, "iolog")),
			    json_is_string(json_object_get(o, "request_id")) ?
			    json_string_value(json_object_get(o, "request_id")) : "-");
			text_print(stdout, json_is_string(json_object_get(o, "command_id")) ?
			    json_string_value(json_object_get(o, "command_id")) : "-");
			fputs("  not yet shipped\n", stdout);
		}
		rc = fflush(stdout);
	}
	json_decref(list);
	return rc == 0 ? EXIT_OK : EXIT_INTERNAL;
}

/* What `log` was asked to do (log_options). */
struct log_args {
	int		 json;
	int		 verify, unshipped;	/* --verify, --unshipped */
};

/* The options into a, checked together: -1, or the exit status of a
 * usage error (said already). */
static int
log_options(int argc, char **argv, struct log_args *a)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verify", no_argument, NULL, 'V' },
		{ "unshipped", no_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "j", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			a->json = 1;
			break;
		case 'V':
			a->verify = 1;
			break;
		case 'U':
			a->unshipped = 1;
			break;
		default:
			return usage_error(&cmd_log_entry, NULL);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_log_entry, "unexpected argument '%s'", argv[optind]);
	if (a->verify && a->unshipped)
		return usage_error(&cmd_log_entry, "--verify and --unshipped do not go together");
	return -1;
}

/* One audit event as a line: its sequence, time, kind and gate, and who
 * asked, the grant, or who stopped the batch where it names them. */
static void
print_event(const json_t *e)
{
	char when[32], who[128];
	json_t *stopper;

	format_time(json_integer_value(json_object_get(e, "at")), when, sizeof when);
	printf("%5lld  %s  %-8s  %s",
	    (long long)json_integer_value(json_object_get(e, "seq")), when,
	    json_string_value(json_object_get(e, "kind")),
	    json_is_string(json_object_get(e, "gate_id")) ?
	    json_string_value(json_object_get(e, "gate_id")) : "-");
	/* a request event names who asked (with the uid when not you) */
	requester_label(json_object_get(e, "detail"), who, sizeof who);
	if (*who != '\0') {
		fputs("  requester ", stdout);
		text_print(stdout, who);
	}
	/* a grant's events (grants.c) name it and its gate */
	if (json_is_string(json_object_get(json_object_get(e, "detail"), "grant"))) {
		json_t *d = json_object_get(e, "detail");

		printf("  grant %s", json_str(d, "grant"));
		if (*json_str(d, "gate") != '\0')
			printf("  gate %s", json_str(d, "gate"));
	}
	/* a batch the reviewer stopped names who did */
	stopper = json_object_get(json_object_get(json_object_get(e, "detail"),
	    "stopped"), "by");
	if (json_is_string(stopper)) {
		fputs("  stopped by ", stdout);
		text_print(stdout, json_string_value(stopper));
	}
	putchar('\n');
}

/* The audit chain printed, verified (--verify), or the sessions still
 * waiting for the log server (--unshipped). */
static int
log_run(const struct log_args *a)
{
	struct store st;
	json_t *events, *e;
	size_t i;
	int rc;

	if (store_open(&st) != 0)
		return EXIT_INTERNAL;
	if (a->verify || a->unshipped) {
		rc = a->verify ? verify(&st, a->json) : unshipped(&st, a->json);
		store_close(&st);
		return rc;
	}
	if (refresh_store(&st) != 0 ||
	    (events = audit_events(&st)) == NULL) {
		store_close(&st);
		return EXIT_INTERNAL;
	}
	store_close(&st);
	if (a->json)
		rc = print_json(events);
	else {
		json_array_foreach(events, i, e)
			print_event(e);
		rc = fflush(stdout);
	}
	json_decref(events);
	return rc == 0 ? EXIT_OK : EXIT_INTERNAL;
}

static int
cmd_log_exec(int argc, char **argv)
{
	struct log_args a = { 0 };
	int rc;

	if ((rc = log_options(argc, argv, &a)) >= 0)
		return rc;
	return log_run(&a);
}
