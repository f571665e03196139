/* SPDX-License-Identifier: ISC */
/*
 * The runner's side of the two-person rule (docs/two-person.md): before
 * anything runs, a batch with ROOT commands needs the policy's approvals,
 * counted here as root from the spool, where each review's owner is the
 * kernel's word; the sudo user is one. Missing reviews, or a denial, exit
 * RUNNER_REVIEWS with nothing run; once the batch is under way the
 * request's reviews are spent and removed. The same policy may name a log
 * server (logship.c): a batch with ROOT commands starts only where its
 * sessions can be shipped there.
 *
 * In passkey mode (`warrant-runner passkey ...`) the sudo user's passkey
 * must also have signed this very run (passkey.c): the assertion in the
 * run directory, over a challenge recomputed here from the manifest just
 * verified, checked against the record root enrolled, its nonce spent.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "root.h"
#include "runner.h"

static json_t *
selected_ids(const json_t *manifest)
{
	json_t *ids = json_array(), *c;
	size_t i;

	json_array_foreach(json_object_get(manifest, "commands"), i, c)
		json_array_append(ids, json_object_get(c, "id"));
	return ids;
}

void
reviews_verify(const json_t *manifest, const char *sha, uid_t sudo_uid, uid_t requester,
    struct tp_policy *p)
{
	struct tp_binding b;
	struct tp_tally t;
	json_t *c, *ids;
	char why[512];
	size_t i;
	int root = 0;

	json_array_foreach(json_object_get(manifest, "commands"), i, c)
		root |= strcmp(json_string_value(json_object_get(c, "as")), "root") == 0;
	if (tp_policy_load(p, why, sizeof why) != 0)
		errx(RUNNER_REFUSED, "refusing: the host's policy is refused (policy_invalid): %s",
		    why);
	/* a log server named: the sessions can reach it, or nothing runs */
	if (root && logship_ready(&p->log_server, why, sizeof why) != 0)
		errx(RUNNER_REFUSED, "refusing: %s; nothing ran", why);
	if (!root || p->approvals <= 1) {
		p->approvals = 1;
		return;
	}
	ids = selected_ids(manifest);
	b = (struct tp_binding){ .request_id = json_string_value(json_object_get(manifest,
	    "request_id")), .sha = sha, .ids = ids, .requester = requester,
	    .reviewer = sudo_uid };
	if (tp_count(p, &b, &t, why, sizeof why) != 0)
		errx(RUNNER_REVIEWS, "refusing (reviews_missing): %s; nothing ran", why);
	json_decref(ids);
	if (t.denied)
		errx(RUNNER_REVIEWS, "refusing (review_denied): uid %u, a member of %s, denied "
		    "this request; nothing ran", (unsigned)t.denied_by, p->group);
	if (t.approvals < p->approvals - 1)
		errx(RUNNER_REVIEWS, "refusing (reviews_missing): the two-person rule needs %d "
		    "approvals of these commands: yours and %d by other members of %s; %d found "
		    "(%d review file%s of this request do not count); nothing ran",
		    p->approvals, p->approvals - 1, p->group, t.approvals, t.ignored,
		    t.ignored == 1 ? "" : "s");
}

/* Nothing ran: said on the terminal and in the system's log. */
static void __attribute__((noreturn, format(printf, 2, 3)))
passkey_refuse(const char *user, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	syslog(LOG_WARNING, "%s: passkey approval refused: %s", user, why);
	errx(RUNNER_REFUSED, "refusing (passkey_refused): %s; nothing ran", why);
}

/* RUN_PASSKEY: a regular file of the sudo user's, one link, bounded. */
static void
passkey_read(int rundfd, uid_t sudo_uid, const char *user, struct passkey_file *f)
{
	char why[256], *buf;
	struct stat st;
	size_t len;
	int fd, rc;

	fd = openat(rundfd, RUN_PASSKEY, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		passkey_refuse(user, "cannot open %s: %s", RUN_PASSKEY, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != sudo_uid ||
	    st.st_nlink != 1)
		passkey_refuse(user, "%s must be a regular file of the sudo user", RUN_PASSKEY);
	rc = read_bounded(fd, &buf, &len, PASSKEY_FILE_MAX);
	close(fd);
	if (rc != 0)
		passkey_refuse(user, "cannot read %s (at most %d bytes)", RUN_PASSKEY,
		    PASSKEY_FILE_MAX);
	rc = passkey_file_parse(buf, len, f, why, sizeof why);
	free(buf);
	if (rc != 0)
		passkey_refuse(user, "%s", why);
}

/* DIR/used, root's and 0700, made when missing: its descriptor. */
static int
passkey_used_dir(int dfd, const char *user)
{
	struct stat st;
	int fd;

	if (mkdirat(dfd, "used", 0700) != 0 && errno != EEXIST)
		passkey_refuse(user, "cannot create %s/used: %s", WARRANT_PASSKEY_DIR,
		    strerror(errno));
	fd = openat(dfd, "used", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 022) != 0)
		passkey_refuse(user, "%s/used must be a directory of root's that only root "
		    "can write", WARRANT_PASSKEY_DIR);
	return fd;
}

/*
 * Passkey mode: the sudo user's enrolled passkey signed this run (its
 * gate, the manifest's SHA-256 run_sha, the commands in order, the nonce,
 * the expiry) and its nonce was never used; the nonce is then spent and
 * the new sign count kept, before anything is staged. Else nothing runs.
 */
void
passkey_approval(const json_t *manifest, const char *run_sha, int rundfd, uid_t sudo_uid,
    const char *user)
{
	static struct passkey_file f;	/* about 5 KiB */
	struct passkey_assertion a;
	struct passkey_cred c;
	unsigned char challenge[32];
	const char **ids;
	char why[512];
	json_t *cmd;
	size_t i, n;
	int dfd, ufd, rc;
	int64_t now;

	passkey_read(rundfd, sudo_uid, user, &f);
	if ((dfd = passkey_dir_open(WARRANT_PASSKEY_DIR, why, sizeof why)) < 0)
		passkey_refuse(user, "%s", why);
	if (passkey_cred_load(dfd, user, &c, why, sizeof why) != 0)
		passkey_refuse(user, "%s", why);
	n = json_array_size(json_object_get(manifest, "commands"));
	ids = xcalloc(n + 1, sizeof *ids);
	json_array_foreach(json_object_get(manifest, "commands"), i, cmd)
		ids[i] = json_string_value(json_object_get(cmd, "id"));
	rc = passkey_challenge(json_string_value(json_object_get(manifest, "request_id")),
	    run_sha, ids, n, f.nonce, f.expires, challenge);
	free(ids);
	if (rc != 0)
		passkey_refuse(user, "cannot compute the challenge");
	passkey_file_assertion(&f, &a);
	now = now_seconds();
	if (passkey_verify(&c, &a, challenge, now, f.expires, why, sizeof why) != 0)
		passkey_refuse(user, "%s", why);
	ufd = passkey_used_dir(dfd, user);
	rc = passkey_nonce_use(ufd, f.nonce, now, why, sizeof why);
	close(ufd);
	if (rc != 0)
		passkey_refuse(user, "%s", why);
	c.sign_count = passkey_sign_count(&a);
	if (passkey_cred_save(dfd, &c, why, sizeof why) != 0)
		passkey_refuse(user, "%s", why);
	close(dfd);
	explicit_bzero(&f, sizeof f);
	syslog(LOG_NOTICE, "%s: passkey approval of request %s verified", user,
	    json_string_value(json_object_get(manifest, "request_id")));
}
