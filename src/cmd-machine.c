/* SPDX-License-Identifier: ISC */
/*
 * warrant machine: enrolled remote machines (docs/remote.md). add checks
 * the destination, asks the target's `warrant exec --contract` over ssh,
 * pins the host key ssh saw (HostKeyAlias=NAME) and records the
 * contract; check asks again and says what changed; list and remove.
 * Records: STATE/machines.json (0600); keys: STATE/known_hosts.
 */
#include <err.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"
#include "remote/remote.h"

static int cmd_machine_exec(int, char **);

const struct cmd_entry cmd_machine_entry = {
	.name = "machine",
	.summary = "enroll the remote machines that requests may name",
	.group = CMD_ADMIN,
	.usage = "add NAME ssh://USER@HOST[:PORT] [--warrant PATH] [--root-via USER2] | "
	    "list [-j] | check NAME | remove NAME",
	.help =
	"Remote machines that requests may name in \"machine\" (docs/remote.md).\n\n"
	"  add     enroll NAME: ssh to the destination (BatchMode, your ssh keys),\n"
	"          pin the host key it shows in warrant's own known_hosts, run\n"
	"          `warrant exec --contract` there (no terminal) and record its\n"
	"          schema, version, capabilities, the SHA-256 of its runner and\n"
	"          the absolute path of that warrant, which every later call\n"
	"          runs directly (no login shell). --warrant PATH names it\n"
	"          (default: `warrant` on the login shell's PATH, looked up\n"
	"          once, now). --root-via USER2: ROOT commands go through the\n"
	"          target account USER2 (its password is the one typed), which\n"
	"          never runs a YOU command; USER stays the agent's account\n"
	"          there, and YOU commands are refused on NAME. Adding an\n"
	"          enrolled NAME again enrolls it anew (after a checked change).\n"
	"  list    the enrolled machines (-j: JSON)\n"
	"  check   ask the target again and say what changed (host key,\n"
	"          runner, version); exit 0 only when nothing did\n"
	"  remove  forget NAME and its host key\n\n"
	"Exit status: 0 done, 1 internal error, 2 refusal (bad_destination,\n"
	"unknown_machine, machine_unreachable, machine_changed,\n"
	"machine_incompatible) or usage.\n",
	.exec = cmd_machine_exec,
};

static int
refused(const struct refusal *r)
{
	return refusal_print("machine", r);
}

/* The lines of text for host alias name: its pinned keys. */
static char *
alias_lines(const char *text, const char *name)
{
	size_t n = strlen(name), len = 0;
	char *out = xcalloc(1, strlen(text) + 2);
	const char *p = text, *e;

	while (*p != '\0') {
		e = strchr(p, '\n');
		if (e == NULL)
			e = p + strlen(p);
		if (strncmp(p, name, n) == 0 && p[n] == ' ') {
			memcpy(out + len, p, (size_t)(e - p));
			len += (size_t)(e - p);
			out[len++] = '\n';
		}
		p = *e == '\n' ? e + 1 : e;
	}
	out[len] = '\0';
	return out;
}

/*
 * Is the ssh user, by its name here, a requester of this reviewer: a
 * member of warrant-REVIEWER (docs/design.md §11), or the same uid as
 * one? Such an account's own commands can answer for warrant on the
 * target. 1 with the reason in why, else 0.
 */
static int
user_is_requester(const char *user, char *why, size_t size)
{
	char group[64], pwbuf[4096], grbuf[16384], mbuf[4096];
	struct passwd me, *mep = NULL, u, *up = NULL, m, *mp;
	struct group g, *gp = NULL;
	size_t i;

	if (getpwuid_r(getuid(), &me, pwbuf, sizeof pwbuf, &mep) != 0 || mep == NULL ||
	    (size_t)snprintf(group, sizeof group, "warrant-%s", me.pw_name) >= sizeof group ||
	    getgrnam_r(group, &g, grbuf, sizeof grbuf, &gp) != 0 || gp == NULL)
		return 0;
	/* me's strings are no longer needed: pwbuf is reused for user */
	if (getpwnam_r(user, &u, pwbuf, sizeof pwbuf, &up) == 0 && up != NULL &&
	    u.pw_gid == g.gr_gid) {
		snprintf(why, size, "%s's group is %s", user, group);
		return 1;
	}
	for (i = 0; g.gr_mem[i] != NULL; i++) {
		if (strcmp(g.gr_mem[i], user) == 0) {
			snprintf(why, size, "%s is in %s", user, group);
			return 1;
		}
		mp = NULL;
		if (up != NULL && getpwnam_r(g.gr_mem[i], &m, mbuf, sizeof mbuf, &mp) == 0 &&
		    mp != NULL && m.pw_uid == u.pw_uid) {
			snprintf(why, size, "%s has the uid of %s, who is in %s", user,
			    g.gr_mem[i], group);
			return 1;
		}
	}
	return 0;
}

/* Warn when what runs as user on the target can answer for warrant:
 * start-up files a user other than root can change (as the contract,
 * itself an answer of the target, says). */
static void
warn_login_files(const char *name, const char *user, const json_t *contract)
{
	const json_t *files = json_object_get(contract, "login_files");
	char list[512] = "";
	size_t i, k = 0;
	char *v;

	for (i = 0; i < json_array_size(files) && k < sizeof list; i++) {
		v = text_visible(json_string_value(json_array_get(files, i)) != NULL ?
		    json_string_value(json_array_get(files, i)) : "?");
		k += (size_t)snprintf(list + k, sizeof list - k, "%s~/%s", i > 0 ? ", " : "", v);
		free(v);
	}
	if (json_array_size(files) > 0)
		printf("%s: WARNING: %s's %s can be changed by a user other than root there: "
		    "what runs as %s can answer in warrant's place (paths and hashes, never what "
		    "is approved; see docs/remote.md)\n", name, user, list, user);
}

/* Ask user's warrant at enrollment (ssh recording the host key into
 * known_hosts); its contract, checked to name its own absolute path. */
static json_t *
enroll_probe(const char *state, const json_t *rec, const char *known_hosts, const char *user,
    const char *wpath, struct refusal *r)
{
	json_t *contract;

	if (contract_probe(state, rec, known_hosts, user, wpath != NULL ? wpath : "warrant",
	    &contract, r) != 0)
		return NULL;
	if (!json_is_true(json_object_get(contract, "warrant_trusted")))
		printf("%s: WARNING: %s's warrant (%s) can be replaced by a user other than "
		    "root; give a root-owned one with --warrant\n", json_str(rec, "name"),
		    user != NULL ? user : json_str(rec, "user"), json_str(contract, "warrant"));
	warn_login_files(json_str(rec, "name"), user != NULL ? user : json_str(rec, "user"),
	    contract);
	return contract;
}

/* What `machine add` was asked to enroll (add_options). */
struct add_args {
	const char	*name;
	struct dest	 d;		/* the destination, parsed */
	const char	*wpath;		/* --warrant; NULL: the login shell's */
	const char	*root_via;	/* --root-via */
};

/* The operands and options of add into a, checked together: -1, or the
 * exit status of a refusal (said already). */
static int
add_options(const char *name, const char *destination, const char *wpath,
    const char *root_via, struct add_args *a)
{
	struct refusal r = { 0 };

	if (!machine_name_ok(name)) {
		refuse(&r, "invalid_field", "NAME", "a machine's name is 1 to 64 letters, digits, "
		    "'_', '.' or '-', starting with a letter or digit, and not \"local\"");
		return refused(&r);
	}
	if (dest_parse(destination, &a->d, &r) != 0)
		return refused(&r);
	if (wpath != NULL && strcmp(wpath, "warrant") != 0 && (wpath[0] != '/' ||
	    strpbrk(wpath, "\n\r\t ") != NULL || strlen(wpath) >= PATH_MAX)) {
		refuse(&r, "invalid_field", "--warrant", "--warrant is an absolute path without "
		    "white space");
		return refused(&r);
	}
	if (wpath != NULL && strcmp(wpath, "warrant") == 0)
		wpath = NULL;
	if (root_via != NULL && (!dest_user_ok(root_via, strlen(root_via)) ||
	    strcmp(root_via, a->d.user) == 0)) {
		refuse(&r, "bad_destination", "--root-via", "--root-via names another user of "
		    "the target: letters, digits, '_', '.' or '-', not starting with '-' or '.'");
		return refused(&r);
	}
	a->name = name;
	a->wpath = wpath;
	a->root_via = root_via;
	return -1;
}

/* STATE/.known_hosts.enroll into tmp, made anew and empty: where ssh
 * records the key it is shown. 0, or -1. */
static int
enroll_file(const char *state, char tmp[PATH_MAX])
{
	int fd;

	if ((size_t)snprintf(tmp, PATH_MAX, "%s/.known_hosts.enroll", state) >= PATH_MAX)
		return -1;
	unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		warn("%s", tmp);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * The contract of the destination's account (and of --root-via's, which
 * must see the same host and runner) into *contract, a reference of the
 * caller's, and the paths every later call runs into rec; 0, or -1 with
 * the refusal in r.
 */
static int
enroll_contracts(const char *state, const struct add_args *a, json_t *rec,
    const char *tmp, json_t **contract, struct refusal *r)
{
	json_t *rc2 = NULL;

	if ((*contract = enroll_probe(state, rec, tmp, NULL, a->wpath, r)) == NULL ||
	    (a->root_via != NULL && (rc2 = enroll_probe(state, rec, tmp, a->root_via,
	    a->wpath, r)) == NULL)) {
		json_decref(*contract);
		return -1;
	}
	/* the paths every later call runs directly: --warrant's, or the one
	 * the login shell found now */
	json_object_set_new(rec, "warrant", json_string(a->wpath != NULL ? a->wpath :
	    json_str(*contract, "warrant")));
	json_object_set(rec, "contract", *contract);
	if (rc2 != NULL) {
		/* one host, one runner: both accounts see the same */
		if (contract_matches(rec, rc2, r) == 0 &&
		    strcmp(json_str(rc2, "host"), json_str(*contract, "host")) != 0)
			refuse(r, "machine_changed", "--root-via", "%s and %s see different "
			    "hosts", a->d.user, a->root_via);
		if (*r->message != '\0') {
			json_decref(*contract);
			json_decref(rc2);
			return -1;
		}
		json_object_set_new(rec, "root_via", json_string(a->root_via));
		json_object_set_new(rec, "root_warrant", json_string(a->wpath != NULL ?
		    a->wpath : json_str(rc2, "warrant")));
	}
	json_decref(rc2);
	return 0;
}

/* The keys ssh recorded in tmp for host alias name (tmp removed); NULL
 * after a message. */
static char *
enroll_keys(const char *tmp, const char *name)
{
	char *text = NULL, *keys;
	size_t len;
	int fd;

	if ((fd = open(tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    read_bounded(fd, &text, &len, 256 * 1024) != 0) {
		warnx("cannot read the host key ssh recorded in %s", tmp);
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		free(text);
		return NULL;
	}
	close(fd);
	unlink(tmp);
	keys = alias_lines(text, name);
	free(text);
	return keys;
}

/* What was enrolled (rec, as canon) and whose password ROOT commands take. */
static void
print_enrolled(const struct add_args *a, const char *canon, const json_t *rec,
    const json_t *contract)
{
	printf("enrolled %s: %s (host %s, warrant %s at %s, runner %s sha256 %s%s)\n", a->name,
	    canon, json_str(contract, "host"), json_str(contract, "version"),
	    json_str(rec, "warrant"), json_str(contract, "runner"),
	    json_str(contract, "runner_sha256"),
	    json_is_true(json_object_get(contract, "runner_trusted")) ? "" :
	    "; WARNING: a non-root user can replace it, so approvals will be refused");
	if (a->root_via != NULL)
		printf("%s: ROOT commands go through %s (warrant at %s), whose password is the "
		    "one typed; YOU commands are refused on %s\n", a->name, a->root_via,
		    json_str(rec, "root_warrant"), a->name);
	else
		printf("%s: YOU and ROOT commands both go through %s, whose password is the one "
		    "typed: anything %s ran can read it (see --root-via)\n", a->name, a->d.user,
		    a->d.user);
}

/* Enroll a->name: ask its warrant over ssh, pin the host key ssh saw,
 * record the contract in STATE/machines.json. */
static int
machine_add(const char *state, const struct add_args *a)
{
	char tmp[PATH_MAX], canon[320], sha[SHA256_HEX_LEN + 1], why[256], *keys = NULL;
	json_t *all, *rec = NULL, *contract, *old;
	struct refusal r = { 0 };
	int rc = EXIT_INTERNAL;

	if (user_is_requester(a->d.user, why, sizeof why))
		printf("%s: WARNING: %s is a requester of yours here (%s): if the agent runs as "
		    "that account on the target too, it can answer for warrant there; enroll "
		    "with --root-via an account that runs nothing of the agent's (docs/remote.md)\n",
		    a->name, a->d.user, why);
	if ((all = machines_load(state)) == NULL)
		return EXIT_INTERNAL;
	dest_format(&a->d, canon, sizeof canon);
	rec = json_pack("{s:s,s:s,s:s,s:s,s:i}", "name", a->name, "destination", canon,
	    "user", a->d.user, "host", a->d.host, "port", (int)a->d.port);
	/* ssh records the key it is shown in a file of its own */
	if (enroll_file(state, tmp) != 0)
		goto out;
	if (enroll_contracts(state, a, rec, tmp, &contract, &r) != 0) {
		unlink(tmp);
		rc = refused(&r);
		goto out;
	}
	if ((keys = enroll_keys(tmp, a->name)) == NULL) {
		json_decref(contract);
		goto out;
	}
	if (*keys == '\0') {
		json_decref(contract);
		refuse(&r, "machine_incompatible", "destination", "ssh recorded no host key for "
		    "%s", a->name);
		rc = refused(&r);
		goto out;
	}
	sha256_bytes(keys, strlen(keys), sha);
	json_object_set_new(rec, "host_key", json_string(keys));
	json_object_set_new(rec, "host_key_sha256", json_string(sha));
	json_object_set_new(rec, "contract", contract);	/* the reference taken above */
	json_object_set_new(rec, "enrolled_at", json_integer(now_seconds()));
	if ((old = json_object_get(all, a->name)) != NULL) {
		if (strcmp(json_str(old, "host_key_sha256"), sha) != 0)
			printf("%s: the host key changed; the new one is pinned\n", a->name);
		if (strcmp(json_str(json_object_get(old, "contract"), "runner_sha256"),
		    json_str(contract, "runner_sha256")) != 0)
			printf("%s: the runner changed; the new one is recorded\n", a->name);
	}
	json_object_set(all, a->name, rec);
	if (machines_save(state, all) != 0)
		goto out;
	print_enrolled(a, canon, rec, contract);
	rc = EXIT_OK;
out:
	free(keys);
	json_decref(rec);
	json_decref(all);
	return rc;
}

static int
machine_list(const char *state, int json)
{
	json_t *all = machines_load(state), *m, *out;
	const char *name;

	if (all == NULL)
		return EXIT_INTERNAL;
	if (json) {
		out = json_array();
		json_object_foreach(all, name, m) {
			json_t *c = json_object_get(m, "contract");

			json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:O,s:s,s:s,s:s,"
			    "s:O}", "name", name, "destination", json_str(m, "destination"),
			    "host_key_sha256", json_str(m, "host_key_sha256"),
			    "warrant", json_str(m, "warrant"),
			    "sudo_user", machine_sudo_user(m),
			    "sudo_warrant", machine_sudo_warrant(m),
			    "schema_version", json_object_get(c, "schema_version"),
			    "version", json_str(c, "version"), "runner", json_str(c, "runner"),
			    "runner_sha256", json_str(c, "runner_sha256"),
			    "capabilities", json_object_get(c, "capabilities")));
		}
		print_json(out);
		json_decref(out);
	} else
		json_object_foreach(all, name, m) {
			json_t *c = json_object_get(m, "contract");

			printf("%s\t%s\tROOT via %s\thost key %.16s…\twarrant %s\trunner "
			    "%.16s…\n", name, json_str(m, "destination"), machine_sudo_user(m),
			    json_str(m, "host_key_sha256"), json_str(c, "version"),
			    json_str(c, "runner_sha256"));
		}
	json_decref(all);
	return EXIT_OK;
}

static int
machine_check(const char *state, const char *name)
{
	json_t *m, *now = NULL;
	struct refusal r;
	int rc = EXIT_OK, k;

	if ((m = machine_get(state, name, &r)) == NULL)
		return refused(&r);
	/* the destination's account, then --root-via's */
	for (k = 0; k < 2 && rc == EXIT_OK; k++) {
		const char *user = k == 0 ? json_str(m, "user") : machine_sudo_user(m);

		if (k == 1 && *json_str(m, "root_via") == '\0')
			break;
		json_decref(now);
		if (contract_probe(state, m, NULL, user, k == 0 ? json_str(m, "warrant") :
		    machine_sudo_warrant(m), &now, &r) != 0) {
			if (strcmp(r.code, "machine_changed") == 0)
				snprintf(r.message, sizeof r.message, "%s: the host key is not the "
				    "pinned one (%.16s…); if the change is expected, enroll it again "
				    "with `warrant machine add %s %s`", name,
				    json_str(m, "host_key_sha256"), name, json_str(m, "destination"));
			rc = refused(&r);
		} else if (contract_matches(m, now, &r) != 0)
			rc = refused(&r);
	}
	if (rc == EXIT_OK) {
		if (strcmp(json_str(json_object_get(m, "contract"), "version"),
		    json_str(now, "version")) != 0)
			printf("%s: warrant's version changed (%s, was %s); the runner did not\n",
			    name, json_str(now, "version"),
			    json_str(json_object_get(m, "contract"), "version"));
		printf("%s: unchanged (host key %.16s…, runner %.16s…)\n", name,
		    json_str(m, "host_key_sha256"), json_str(now, "runner_sha256"));
	}
	json_decref(now);
	json_decref(m);
	return rc;
}

static int
machine_remove(const char *state, const char *name)
{
	json_t *all = machines_load(state);
	struct refusal r;
	int rc;

	if (all == NULL)
		return EXIT_INTERNAL;
	if (json_object_get(all, name) == NULL) {
		json_decref(all);
		refuse(&r, "unknown_machine", "NAME", "no machine named so is enrolled");
		return refused(&r);
	}
	json_object_del(all, name);
	rc = machines_save(state, all) == 0 ? EXIT_OK : EXIT_INTERNAL;
	json_decref(all);
	if (rc == EXIT_OK)
		printf("removed %s\n", name);
	return rc;
}

static int
cmd_machine_exec(int argc, char **argv)
{
	const char *wpath = NULL, *root_via = NULL, *sub, *pos[3] = { NULL, NULL, NULL };
	char state[PATH_MAX];
	struct add_args add;
	int i, n = 0, json = 0, fd, rc;

	if (argc < 2)
		return usage_error(&cmd_machine_entry, NULL);
	sub = argv[1];
	/* no getopt: a destination such as -oProxyCommand=... is a word to
	 * check and refuse, never an option */
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "-j") == 0 || strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (strcmp(argv[i], "--warrant") == 0 && i + 1 < argc)
			wpath = argv[++i];
		else if (strncmp(argv[i], "--warrant=", 10) == 0)
			wpath = argv[i] + 10;
		else if (strcmp(argv[i], "--root-via") == 0 && i + 1 < argc)
			root_via = argv[++i];
		else if (strncmp(argv[i], "--root-via=", 11) == 0)
			root_via = argv[i] + 11;
		else if (n == 2)
			return usage_error(&cmd_machine_entry, "too many arguments");
		else
			pos[n++] = argv[i];
	}
	argc = n;
	argv = (char **)pos;
	if (state_dir(state, sizeof state) != 0 || (fd = state_dir_open(state)) < 0)
		return EXIT_INTERNAL;
	close(fd);
	if (strcmp(sub, "add") == 0 && argc == 2) {
		if ((rc = add_options(argv[0], argv[1], wpath, root_via, &add)) >= 0)
			return rc;
		return machine_add(state, &add);
	}
	if (strcmp(sub, "list") == 0 && argc == 0)
		return machine_list(state, json);
	if (strcmp(sub, "check") == 0 && argc == 1)
		return machine_check(state, argv[0]);
	if (strcmp(sub, "remove") == 0 && argc == 1)
		return machine_remove(state, argv[0]);
	return usage_error(&cmd_machine_entry, NULL);
}
