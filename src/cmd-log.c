/* SPDX-License-Identifier: ISC */
/* warrant log: the audit chain; --verify checks it link by link. */
#include <getopt.h>

#include "warrant.h"

static int cmd_log_exec(int, char **);

const struct cmd_entry cmd_log_entry = {
	.name = "log",
	.summary = "print or verify the audit chain of every request and change",
	.group = CMD_REVIEWER,
	.usage = "[-j] [--verify]",
	.help =
	"Print the audit chain: every request and state change, oldest first.\n\n"
	"  -j, --json     a JSON array of events\n"
	"  --verify       check the chain and the gates against it; exits 1 and names\n"
	"                 the first edited, inserted or deleted row when it is broken\n",
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

static int
cmd_log_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verify", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int ch, json = 0, check = 0, rc;
	struct store st;
	json_t *events, *e;
	char when[32], who[128];
	size_t i;

	while ((ch = getopt_long(argc, argv, "j", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = 1;
			break;
		case 'V':
			check = 1;
			break;
		default:
			return usage_error(&cmd_log_entry, NULL);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_log_entry, "unexpected argument '%s'", argv[optind]);
	if (store_open(&st) != 0)
		return EXIT_INTERNAL;
	if (check) {
		rc = verify(&st, json);
		store_close(&st);
		return rc;
	}
	if (refresh_store(&st) != 0 ||
	    (events = audit_events(&st)) == NULL) {
		store_close(&st);
		return EXIT_INTERNAL;
	}
	store_close(&st);
	if (json)
		rc = print_json(events);
	else {
		json_array_foreach(events, i, e) {
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
			putchar('\n');
		}
		rc = fflush(stdout);
	}
	json_decref(events);
	return rc == 0 ? EXIT_OK : EXIT_INTERNAL;
}
