/* SPDX-License-Identifier: ISC */
/*
 * warrant grants: the reviewer's live standing grants (made by `answer
 * --grant`, the console's g and the page's "allow again for"), and
 * revoking them. A revoked or expired grant matches nothing; its making,
 * uses and revocation stay in the audit chain (docs/grants.md).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "warrant.h"

static int cmd_grants_exec(int, char **);

const struct cmd_entry cmd_grants_entry = {
	.name = "grants",
	.summary = "list or revoke standing grants of exact YOU commands",
	.group = CMD_REVIEWER,
	.usage = "[-j] | --revoke ID [-j] | --revoke --all [-j]",
	.help =
	"List the live grants, newest first: each lets one requester (uid and\n"
	"agent label) run one exact YOU command (argv, executable SHA-256, cwd,\n"
	"env, output policy, timeout, badges) again without review until it\n"
	"expires. Grants are made with `warrant answer ID --run --grant DURATION`.\n\n"
	"  -j, --json       a JSON array of grants (with --revoke: {\"revoked\": N})\n"
	"  -r, --revoke ID  revoke the live grant ID (g-...); refused (no_such_grant)\n"
	"                   when no live grant has that id\n"
	"  -r, --revoke --all\n"
	"                   revoke every live grant (--all alone is refused: it\n"
	"                   would read as \"list all\")\n",
	.exec = cmd_grants_exec,
};

static void
print_grant(const json_t *g)
{
	char when[32], who[320];
	const char *agent = json_string_value(json_object_get(g, "agent"));
	uid_t uid = (uid_t)json_integer_value(json_object_get(g, "requester_uid"));
	json_t *a;
	size_t i;

	format_time(json_integer_value(json_object_get(g, "expires_at")), when, sizeof when);
	printf("%s  until %s  %s", json_str(g, "id"), when, user_label(uid, who, sizeof who));
	if (agent != NULL) {
		fputs("  agent ", stdout);
		text_print(stdout, agent);
	}
	fputs("\n    in ", stdout);
	text_print(stdout, json_str(g, "cwd"));
	fputs(":", stdout);
	json_array_foreach(json_object_get(g, "argv"), i, a) {
		putchar(' ');
		text_print(stdout, json_string_value(a));
	}
	printf("\n    %s sha256 %.16s…, output %s, ", json_str(g, "path"),
	    json_str(g, "executable_sha256"), json_str(g, "output_to_agent"));
	if (json_is_integer(json_object_get(g, "timeout_seconds")))
		printf("timeout %llds, ", (long long)json_integer_value(json_object_get(g,
		    "timeout_seconds")));
	printf("from %s command %s\n", json_str(g, "gate_id"), json_str(g, "command_id"));
}

static int
grants_list_print(struct store *st, int json)
{
	json_t *l = grants_live(st), *g;
	size_t i;

	if (l == NULL)
		return EXIT_INTERNAL;
	if (json)
		print_json(l);
	else if (json_array_size(l) == 0)
		puts("no live grants");
	else
		json_array_foreach(l, i, g)
			print_grant(g);
	json_decref(l);
	return EXIT_OK;
}

static int
grants_revoke_print(struct store *st, const char *id, int json)
{
	long n = grants_revoke(st, id);
	json_t *r;

	if (n < 0)
		return EXIT_INTERNAL;
	if (id != NULL && n == 0)
		r = json_pack("{s:s,s:s,s:s}", "code", "no_such_grant", "grant", id, "message",
		    "no live grant has this id (revoked, expired, or never made)");
	else
		r = json_pack("{s:I}", "revoked", (json_int_t)n);
	if (json)
		print_json(r);
	else if (id != NULL && n == 0)
		printf("%s: %s\n", id, json_str(r, "message"));
	else
		printf("revoked %ld grant%s\n", n, n == 1 ? "" : "s");
	json_decref(r);
	return id != NULL && n == 0 ? EXIT_REFUSED : EXIT_OK;
}

static int
cmd_grants_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "revoke", no_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	const char *id = NULL;
	int ch, json = 0, revoke = 0, all = 0, rc;
	struct store st;

	/* --revoke takes the grant's id as its operand, or --all */
	while ((ch = getopt_long(argc, argv, "jra", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j': json = 1; break;
		case 'r': revoke = 1; break;
		case 'a': all = 1; break;
		default:
			return usage_error(&cmd_grants_entry, NULL);
		}
	}
	if (all && !revoke)
		return usage_error(&cmd_grants_entry, "--all revokes, so it goes with --revoke: "
		    "`warrant grants --revoke --all`; `warrant grants` lists every live grant");
	if (revoke && !all && optind < argc)
		id = argv[optind++];
	if (optind != argc)
		return usage_error(&cmd_grants_entry, "unexpected argument '%s'", argv[optind]);
	if (revoke && !all && id == NULL)
		return usage_error(&cmd_grants_entry, "--revoke needs a grant's id, or --all");
	if (id != NULL && !grant_id_valid(id))
		return usage_error(&cmd_grants_entry, "a grant id is g- and 10 letters a-z "
		    "or digits 2-7");
	if (open_store_current(&st) != 0)
		return EXIT_INTERNAL;
	rc = revoke ? grants_revoke_print(&st, id, json) : grants_list_print(&st, json);
	store_close(&st);
	return rc;
}
