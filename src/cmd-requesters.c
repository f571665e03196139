/* SPDX-License-Identifier: ISC */
/*
 * warrant requesters: root's set-up for agents that run as other users
 * and send their requests to a reviewer's warrant serve (docs/box.md,
 * "Requesters"; docs/protocol.md, "Where, and who may connect"). add puts
 * users in the group warrant-REVIEWER and makes the socket directory and
 * its tmpfiles.d entry; remove takes users out of the group, or with
 * --all takes all of that down again; list shows
 * every reviewer's set-up as it is (anyone may run it: it only reads).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"
#include "box/box.h"

static int cmd_requesters_exec(int, char **);

const struct cmd_entry cmd_requesters_entry = {
	.name = "requesters",
	.summary = "let other users' agents send requests to a reviewer (root)",
	.group = CMD_ADMIN,
	.usage = "add --reviewer REVIEWER [USER...] | remove --reviewer REVIEWER "
	    "(USER... | --all) | list [--reviewer REVIEWER] [-j]",
	.help =
	"Let other users' agents send requests to REVIEWER's warrant serve\n"
	"(see docs/box.md and docs/protocol.md).\n\n"
	"  add     (root; idempotent) create the group warrant-REVIEWER, put each\n"
	"          USER in it, make /run/warrant (root, 0755) and\n"
	"          /run/warrant/REVIEWER (REVIEWER:warrant-REVIEWER, 2750), and\n"
	"          write /etc/tmpfiles.d/warrant-REVIEWER.conf so the directory\n"
	"          comes back after a reboot\n"
	"  remove  (root) take each USER out of warrant-REVIEWER; with --all,\n"
	"          take the whole set-up down (idempotent): the directory, the\n"
	"          tmpfiles.d entry and the group, once REVIEWER's warrant serve\n"
	"          has stopped; a group warrant did not make is refused\n"
	"  list    every reviewer's group, requesters, directory and tmpfiles\n"
	"          entry, and whether each is right (anyone may run it)\n\n"
	"Exit status: 0 done, 1 a step failed (named, with its error output),\n"
	"2 usage or refusal (nothing changed).\n",
	.exec = cmd_requesters_exec,
};

static int
refused(const struct refusal *r)
{
	return refusal_print("requesters", r);
}


/* --reviewer REVIEWER and, where flag is given, its option (-j or --all)
 * into *flag; the rest of argv from *first. */
static int
parse(int argc, char **argv, const char **reviewer, int fch, int *flag, int *first)
{
	static const struct option longopts[] = {
		{ "reviewer", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	*first = argc;	/* on every path (gcc 14 warns otherwise) */
	while ((ch = getopt_long(argc, argv, fch == 'j' ? "j" : "", longopts,
	    NULL)) != -1) {
		if (ch == 'r')
			*reviewer = optarg;
		else if (ch == fch && flag != NULL)
			*flag = 1;
		else
			return usage_error(&cmd_requesters_entry, NULL);
	}
	*first = optind;
	return 0;
}

static int
add_exec(int argc, char **argv)
{
	const char *reviewer = NULL;
	struct refusal r;
	int i, first, rc, *skip;

	if (parse(argc, argv, &reviewer, 0, NULL, &first) != 0)
		return EXIT_REFUSED;
	if (reviewer == NULL)
		return usage_error(&cmd_requesters_entry, "add needs --reviewer REVIEWER");
	if (root_needed("requesters", "warrant requesters list") != 0)
		return EXIT_REFUSED;
	/* Every check before any change. */
	if (box_req_check_reviewer(reviewer, 1, &r) != 0)
		return refused(&r);
	skip = xmalloc(sizeof *skip * (size_t)(argc - first + 1));
	for (i = first; i < argc; i++) {
		if ((skip[i - first] = box_req_check_user(reviewer, argv[i], &r)) < 0) {
			free(skip);
			return refused(&r);
		}
	}
	if (box_req_check_dirs(reviewer, &r) != 0) {
		free(skip);
		return refused(&r);
	}
	rc = box_req_setup(reviewer) == 0 ? EXIT_OK : EXIT_INTERNAL;
	for (i = first; i < argc && rc == EXIT_OK; i++) {
		if (skip[i - first])
			printf("requester %s: is the reviewer itself, whose own uid warrant "
			    "serve takes without the group; not added\n", argv[i]);
		else if (box_req_add(reviewer, argv[i]) != 0)
			rc = EXIT_INTERNAL;
	}
	free(skip);
	return rc;
}

static int
remove_exec(int argc, char **argv)
{
	const char *reviewer = NULL;
	struct refusal r;
	int i, first, all = 0;

	if (parse(argc, argv, &reviewer, 'a', &all, &first) != 0)
		return EXIT_REFUSED;
	if (reviewer == NULL)
		return usage_error(&cmd_requesters_entry, "remove needs --reviewer REVIEWER");
	if (first == argc && !all)
		return usage_error(&cmd_requesters_entry, "remove needs at least one USER, "
		    "or --all for the whole set-up");
	if (first != argc && all)
		return usage_error(&cmd_requesters_entry, "remove takes USERs or --all, "
		    "not both");
	if (root_needed("requesters", "warrant requesters list") != 0)
		return EXIT_REFUSED;
	/* The reviewer's account need not exist any more: its group may. */
	if (box_req_check_reviewer(reviewer, 0, &r) != 0)
		return refused(&r);
	if (all) {
		if (box_req_check_teardown(reviewer, &r) != 0)
			return refused(&r);
		return box_req_teardown(reviewer) == 0 ? EXIT_OK : EXIT_INTERNAL;
	}
	for (i = first; i < argc; i++)
		if (!box_name_ok(argv[i])) {
			refuse(&r, "invalid_name", argv[i], "'%s' is not a user name "
			    "warrant accepts: lowercase [a-z0-9_-], starting with [a-z_], "
			    "at most %d characters", argv[i], BOX_NAME_MAX);
			return refused(&r);
		}
	for (i = first; i < argc; i++)
		if (box_req_remove(reviewer, argv[i]) != 0)
			return EXIT_INTERNAL;
	return EXIT_OK;
}

/* "ok", or what is wrong, for one directory of a box_req_describe. */
static void
print_dir(const json_t *d, const char *want)
{
	const char *state = json_str(d, "state");

	printf("  directory %s: ", json_str(d, "path"));
	if (strcmp(state, "ok") == 0)
		printf("ok (%s)\n", want);
	else if (strcmp(state, "wrong") == 0)
		printf("WRONG: %s:%s %s, want %s\n", json_str(d, "owner"),
		    json_str(d, "group"), json_str(d, "mode"), want);
	else
		printf("%s, want %s\n", strcmp(state, "missing") == 0 ? "MISSING" :
		    strcmp(state, "symlink") == 0 ? "A SYMBOLIC LINK" :
		    strcmp(state, "not_a_directory") == 0 ? "NOT A DIRECTORY" :
		    "UNREADABLE", want);
}

static void
print_one(const json_t *j)
{
	const char *rev = json_str(j, "reviewer"), *group = json_str(j, "group");
	const json_t *members = json_object_get(j, "members"), *gid = json_object_get(j, "gid");
	char want[BOX_NAME_MAX + BOX_GROUP_MAX + 16];
	size_t i;

	printf("reviewer %s%s: group %s", rev, json_is_true(json_object_get(j,
	    "reviewer_exists")) ? "" : " (NO SUCH USER)", group);
	if (json_is_integer(gid))
		printf(" (gid %lld)\n", (long long)json_integer_value(gid));
	else
		printf(" (MISSING)\n");
	printf("  requesters:");
	for (i = 0; i < json_array_size(members); i++)
		printf("%s %s", i > 0 ? "," : "", json_string_value(json_array_get(members, i)));
	printf("%s\n", json_array_size(members) == 0 ? " none" : "");
	print_dir(json_object_get(j, "run_dir"), "root:root 0755");
	snprintf(want, sizeof want, "%s:%s 2750", rev, group);
	print_dir(json_object_get(j, "directory"), want);
	printf("  tmpfiles %s: %s\n", json_str(json_object_get(j, "tmpfiles"), "path"),
	    json_str(json_object_get(j, "tmpfiles"), "state"));
	if (!json_is_true(json_object_get(j, "ok")))
		printf("  to fix it: warrant requesters add --reviewer %s\n", rev);
}

static int
list_exec(int argc, char **argv)
{
	const char *reviewer = NULL;
	struct refusal r;
	json_t *all, *one;
	int json = 0, first, rc = EXIT_OK;
	size_t i;

	if (parse(argc, argv, &reviewer, 'j', &json, &first) != 0)
		return EXIT_REFUSED;
	if (first != argc)
		return usage_error(&cmd_requesters_entry, "unexpected argument '%s'",
		    argv[first]);
	if (reviewer != NULL) {
		if (box_req_check_reviewer(reviewer, 0, &r) != 0)
			return refused(&r);
		all = json_array();
		if ((one = box_req_describe(reviewer)) != NULL)
			json_array_append_new(all, one);
	} else
		all = box_req_all();
	if (json)
		rc = print_json(all) == 0 ? EXIT_OK : EXIT_INTERNAL;
	else if (json_array_size(all) == 0)
		printf("no requester groups (warrant-REVIEWER) on this host\n");
	else
		for (i = 0; i < json_array_size(all); i++)
			print_one(json_array_get(all, i));
	json_decref(all);
	return rc;
}

static int
cmd_requesters_exec(int argc, char **argv)
{
	if (argc < 2)
		return usage_error(&cmd_requesters_entry, "which requesters command?");
	if (strcmp(argv[1], "add") == 0)
		return add_exec(argc - 1, argv + 1);
	if (strcmp(argv[1], "remove") == 0)
		return remove_exec(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return list_exec(argc - 1, argv + 1);
	return usage_error(&cmd_requesters_entry, "unknown requesters command '%s'",
	    argv[1]);
}
