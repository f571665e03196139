/* SPDX-License-Identifier: ISC */
/*
 * Box profiles (docs/box.md, "Profiles"): which one an account has, from
 * what is there (an admin group or the NOPASSWD drop-in: container; a
 * requester group: agent); whether this machine is a container, where
 * --profile container may give sudo without a password; and the sudo rules
 * an account holds, as `sudo -l -U` lists them.
 *
 * A build with -Dtest_hooks=true (the end-to-end tests' only) looks for
 * the container marks under $WARRANT_TEST_ROOT instead, and skips
 * systemd-detect-virt; other builds never read that variable.
 */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "warrant.h"
#include "box/box.h"

const char *
box_profile_name(int profile)
{
	return profile == BOX_PROFILE_CONTAINER ? "container" : "agent";
}

/* 1 when name is in wheel or sudo (either: an earlier box init chose the
 * one that existed), with the group's name in *group. */
int
box_admin_member(const char *name, const char **group)
{
	static const char *const admin[] = { "wheel", "sudo" };
	size_t i;

	for (i = 0; i < sizeof admin / sizeof admin[0]; i++) {
		if (box_in_group(name, admin[i])) {
			if (group != NULL)
				*group = admin[i];
			return 1;
		}
	}
	return 0;
}

/* "container", "agent" or "unknown", from what the account has now. */
const char *
box_profile_of(const char *name)
{
	json_t *revs;
	int agent;

	if (box_dropin_present(name) || box_admin_member(name, NULL))
		return "container";
	revs = box_req_reviewers(name);
	agent = json_array_size(revs) > 0;
	json_decref(revs);
	return agent ? "agent" : "unknown";
}

/* 1 when this machine is a container (why says how it knows), else 0. */
int
box_in_container(char *why, size_t size)
{
	static const char *const marks[] = { "/run/.containerenv", "/.dockerenv" };
	const char *argv[] = { PATH_DETECT_VIRT, "-c", NULL };
	const char *root = "";
	char path[PATH_MAX], out[128];
	struct stat st;
	int hooked = 0;
	size_t i;

#if WARRANT_TEST_HOOKS
	const char *t = getenv("WARRANT_TEST_ROOT");

	if (t != NULL && *t != '\0') {
		root = t;
		hooked = 1;
	}
#endif
	for (i = 0; i < sizeof marks / sizeof marks[0]; i++) {
		snprintf(path, sizeof path, "%s%s", root, marks[i]);
		if (lstat(path, &st) == 0) {
			snprintf(why, size, "%s exists", marks[i]);
			return 1;
		}
	}
	if (hooked || access(PATH_DETECT_VIRT, X_OK) != 0)
		return 0;
	if (box_run_output(argv, out, sizeof out) == 0) {
		snprintf(why, size, "systemd-detect-virt -c says %s", out);
		return 1;
	}
	return 0;
}

/*
 * The sudo rules name holds on this host (`sudo -n -l -U NAME`, as root),
 * one string each; an empty array when it may not run sudo. NULL, with
 * why in err, when sudo is missing or says something else.
 */
json_t *
box_sudo_list(const char *name, char *err, size_t size)
{
	const char *argv[] = { SUDO_PATH, "-n", "-l", "-U", name, NULL };
	char out[16384];
	json_t *rules;
	int rc;

	if (access(SUDO_PATH, X_OK) != 0) {
		snprintf(err, size, "sudo is not installed (%s)", SUDO_PATH);
		return NULL;
	}
	rc = box_run_output(argv, out, sizeof out);
	rules = json_array();
	if (rc < 0 || box_sudo_rules(out, rules) < 0) {
		json_decref(rules);
		snprintf(err, size, "`sudo -l -U %s` did not list its rules (exit %d): %.200s",
		    name, rc, out);
		return NULL;
	}
	return rules;
}
