/* SPDX-License-Identifier: ISC */
/*
 * The contract of `warrant exec` on a target: what this installed warrant
 * is (schema, version, capabilities) and the SHA-256 of the runner it
 * would hand to sudo. Enrollment records it; every later call compares
 * the target's answer with the record, and a different runner is
 * machine_changed until the machine is enrolled again.
 */
#include <err.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "remote/remote.h"

/*
 * The files of home that can run code in this account before warrant
 * does when sshd starts it (its shell's start-up files, sshd's own) and
 * that a user other than root can change or create: whatever runs in the
 * account can then answer in warrant's place (docs/remote.md).
 */
static json_t *
login_files(const char *home)
{
	static const char *const files[] = { ".bashrc", ".profile", ".bash_profile",
		".bash_login", ".zshenv", ".ssh/rc", ".ssh/environment",
		".ssh/authorized_keys", NULL };
	char path[PATH_MAX], why[PATH_MAX + 128];
	json_t *out = json_array();
	size_t i;

	for (i = 0; files[i] != NULL && home != NULL && home[0] == '/'; i++)
		if ((size_t)snprintf(path, sizeof path, "%s/%s", home, files[i]) < sizeof path &&
		    path_changeable_by(&requester_anyone, path, why, sizeof why) != 0)
			json_array_append_new(out, json_string(files[i]));
	return out;
}

/* This host's contract (as `warrant exec --contract` prints it). */
json_t *
contract_local(void)
{
	char host[256], sha[SHA256_HEX_LEN + 1] = "", why[PATH_MAX + 128], pwbuf[4096],
	    self[PATH_MAX] = "";
	struct passwd pw, *p = NULL;
	struct stat st;
	int fd, trusted, self_trusted;

	if (gethostname(host, sizeof host) != 0)
		strcpy(host, "localhost");
	host[sizeof host - 1] = '\0';
	if ((fd = open_regular(WARRANT_RUNNER_PATH, &st)) >= 0) {
		if (sha256_fd(fd, sha) != 0)
			*sha = '\0';
		close(fd);
	}
	trusted = path_replaceable(&requester_anyone, WARRANT_RUNNER_PATH, why, sizeof why) == 0;
	if (getpwuid_r(getuid(), &pw, pwbuf, sizeof pwbuf, &p) != 0)
		p = NULL;
	/* this warrant's own absolute path: what enrollment pins */
	if (realpath("/proc/self/exe", self) == NULL)
		*self = '\0';
	self_trusted = *self == '/' &&
	    path_replaceable(&requester_anyone, self, why, sizeof why) == 0;
	return json_pack("{s:i,s:s,s:[s,s],s:s,s:s,s:b,s:s,s:b,s:s,s:s,s:I,s:o}",
	    "schema_version", REMOTE_SCHEMA,
	    "version", WARRANT_VERSION,
	    "capabilities", "resolve", "run",
	    "runner", WARRANT_RUNNER_PATH,
	    "runner_sha256", sha,
	    "runner_trusted", trusted,
	    "warrant", self,
	    "warrant_trusted", self_trusted,
	    "host", host,
	    "user", p != NULL ? p->pw_name : "unknown",
	    "uid", (json_int_t)getuid(),
	    "login_files", login_files(p != NULL ? p->pw_dir : NULL));
}

/* The last line of out that is a JSON object, parsed; or NULL. The ssh
 * user's shell start-up files may print before it. */
json_t *
remote_answer(const char *out)
{
	const char *p = out, *last = NULL;
	size_t n;

	for (;;) {
		if (*p == '{')
			last = p;
		if ((p = strchr(p, '\n')) == NULL)
			break;
		p++;
	}
	if (last == NULL)
		return NULL;
	n = strcspn(last, "\n");
	return json_loadb(last, n, JSON_REJECT_DUPLICATES, NULL);
}

/*
 * The target's contract now: `WARRANT exec --contract` over ssh (batch)
 * as user (NULL: the record's). WARRANT is an absolute path, run as it
 * is, or a name, found by the user's login shell (enrollment only).
 * known_hosts NULL checks the pinned host key; a path accepts and records
 * a new one there (enrollment). 0 with *contract, or -1 with r filled
 * (machine_unreachable, machine_changed, machine_incompatible).
 */
int
contract_probe(const char *state, const json_t *m, const char *known_hosts, const char *user,
    const char *warrant, json_t **contract, struct refusal *r)
{
	const char *words[] = { warrant, "exec", "--contract", NULL };
	struct ssh_call c = { .state = state, .machine = m, .known_hosts = known_hosts,
	    .user = user, .login = warrant[0] != '/', .tty = -1, .words = words,
	    .timeout = PROBE_TIMEOUT };
	struct ssh_result res;
	char why[512];
	const char *code;
	json_t *j;

	*contract = NULL;
	if (ssh_run(&c, &res) != 0) {
		ssh_result_free(&res);
		return refuse(r, "machine_unreachable", "$.machine", "cannot start " SSH_PATH);
	}
	if (!ssh_answered(&res)) {
		code = ssh_failure(&res, why, sizeof why);
		ssh_result_free(&res);
		return refuse(r, code, "$.machine", "%s: %s", json_str(m, "name"), why);
	}
	j = remote_answer(res.out);
	if (WEXITSTATUS(res.status) != 0 || !json_is_object(j) ||
	    !json_is_integer(json_object_get(j, "schema_version"))) {
		int st = WEXITSTATUS(res.status);

		json_decref(j);
		ssh_result_free(&res);
		return refuse(r, "machine_incompatible", "$.machine", "%s: `%s exec --contract` "
		    "%s", json_str(m, "name"), words[0], st == 127 ? (c.login ? "was not found by the "
		    "target's login shell" : "was not found") : "gave no contract (is warrant "
		    "installed there?)");
	}
	ssh_result_free(&res);
	if (json_integer_value(json_object_get(j, "schema_version")) != REMOTE_SCHEMA) {
		json_decref(j);
		return refuse(r, "machine_incompatible", "$.machine", "%s: the target's warrant "
		    "speaks another schema", json_str(m, "name"));
	}
	if (json_str(j, "warrant")[0] != '/') {
		json_decref(j);
		return refuse(r, "machine_incompatible", "$.machine", "%s: the target's warrant "
		    "does not say its own path (an older warrant?)", json_str(m, "name"));
	}
	if (strlen(json_str(j, "runner_sha256")) != SHA256_HEX_LEN) {
		json_decref(j);
		return refuse(r, "machine_incompatible", "$.machine", "%s: the target has no "
		    "runner to hash", json_str(m, "name"));
	}
	*contract = j;
	return 0;
}

/* The contract now is the enrolled one (m's): same schema, same runner. */
int
contract_matches(const json_t *m, const json_t *now, struct refusal *r)
{
	const json_t *was = json_object_get(m, "contract");

	if (now == NULL || !json_is_object(now))
		return refuse(r, "machine_incompatible", "$.machine", "%s: the target gave no "
		    "contract", json_str(m, "name"));
	if (json_integer_value(json_object_get(now, "schema_version")) != REMOTE_SCHEMA)
		return refuse(r, "machine_incompatible", "$.machine", "%s: the target's warrant "
		    "speaks another schema", json_str(m, "name"));
	if (strcmp(json_str(was, "runner"), json_str(now, "runner")) != 0 ||
	    strlen(json_str(now, "runner_sha256")) != SHA256_HEX_LEN ||
	    !digest_equal(json_str(was, "runner_sha256"), json_str(now, "runner_sha256")))
		return refuse(r, "machine_changed", "$.machine", "%s: the target's runner is not "
		    "the enrolled one (was %.16s…, now %.16s…); check it and enroll the machine "
		    "again", json_str(m, "name"), json_str(was, "runner_sha256"),
		    json_str(now, "runner_sha256"));
	return 0;
}
