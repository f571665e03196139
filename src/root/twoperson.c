/* SPDX-License-Identifier: ISC */
/*
 * The two-person rule for ROOT (docs/two-person.md): the host's policy
 * (WARRANT_POLICY_FILE: how many approvals a run with ROOT commands needs,
 * and the group whose members review) and the reviews in the spool
 * (WARRANT_REVIEW_SPOOL, root:GROUP mode 1770: members create files, the
 * sticky bit keeps anyone from removing another's). A review is a small
 * canonical JSON file; who wrote it is its owner, which the kernel set,
 * never a name in it. The same counting runs in `warrant answer` (to tell
 * the reviewer early) and in the root runner (which decides).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "root.h"

#define POLICY_MAX	4096
#define REVIEW_MAX	8192
#define NSS_BUF_MAX	(1024 * 1024)

static void why_set(char *, size_t, const char *, ...) __attribute__((format(printf, 3, 4)));

static void
why_set(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

/* The group's gid (when gid is given) and whether name (primary gid
 * pgid) is a member, as the group database says now: 1 yes, 0 no, -1 no
 * such group (or it cannot be read). */
int
group_has_member(const char *group, const char *name, gid_t pgid, gid_t *gid)
{
	struct group gr, *res = NULL;
	size_t len = 4096;
	char *buf = NULL, *n, **m;
	int member = -1;

	for (;;) {
		if ((n = realloc(buf, len)) == NULL)
			break;
		buf = n;
		if (getgrnam_r(group, &gr, buf, len, &res) != ERANGE || len >= NSS_BUF_MAX)
			break;
		len *= 2;
	}
	if (res != NULL) {
		if (gid != NULL)
			*gid = gr.gr_gid;
		member = name != NULL && gr.gr_gid == pgid;
		for (m = gr.gr_mem; name != NULL && !member && *m != NULL; m++)
			member = strcmp(*m, name) == 0;
	}
	free(buf);
	return member;
}

/* Is uid (by its passwd entry, now) a member of the policy's group? */
int
tp_is_member(const struct tp_policy *p, uid_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (uid == 0 || getpwuid_r(uid, &pw, buf, sizeof buf, &res) != 0 || res == NULL)
		return 0;
	return group_has_member(p->group, pw.pw_name, pw.pw_gid, NULL) == 1;
}

/*
 * The policy: no file (or no directory for it) is one approval, as
 * without the rule. A file that is there must be root's, in a directory
 * of root's, writable by nobody else, a single link, and say exactly
 * {"root_approvals": N, "reviewers_group": "G"} with N >= 1 (G may be left
 * out when N is 1) and G an existing group, and may say "unconfined" and
 * "log_server" (logship.c). 0, or -1 with why.
 */
int
tp_policy_load(struct tp_policy *p, char *why, size_t size)
{
	char dir[PATH_MAX], lwhy[PATH_MAX + 256], *slash, *buf = NULL;
	const char *key;
	json_t *j, *v;
	struct stat st;
	json_error_t err;
	size_t len;
	int fd, dfd;

	memset(p, 0, sizeof *p);
	p->approvals = 1;
	p->iolog_sessions = IOLOG_SESSIONS_DEFAULT;
	snprintf(dir, sizeof dir, "%s", WARRANT_POLICY_FILE);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if ((dfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : (why_set(why, size, "cannot open %s: %s", dir,
		    strerror(errno)), -1);
	if (fstat(dfd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 022) != 0) {
		close(dfd);
		why_set(why, size, "%s%s must be a directory of root's that only root can write",
		    dir, "");
		return -1;
	}
	fd = openat(dfd, slash + 1, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return errno == ENOENT ? 0 : (why_set(why, size, "cannot open %s: %s",
		    WARRANT_POLICY_FILE, strerror(errno)), -1);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) != 0 || st.st_nlink != 1 ||
	    read_bounded(fd, &buf, &len, POLICY_MAX) != 0) {
		close(fd);
		why_set(why, size, "%s must be a regular file of root's (one link, at most 4 KiB) "
		    "that only root can write%s", WARRANT_POLICY_FILE, "");
		return -1;
	}
	close(fd);
	j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	free(buf);
	if (!json_is_object(j)) {
		json_decref(j);
		why_set(why, size, "%s is not a JSON object%s", WARRANT_POLICY_FILE, "");
		return -1;
	}
	json_object_foreach(j, key, v)
		if (strcmp(key, "root_approvals") != 0 && strcmp(key, "reviewers_group") != 0 &&
		    strcmp(key, "unconfined") != 0 && strcmp(key, "iolog_max_sessions") != 0 &&
		    strcmp(key, "log_server") != 0) {
			why_set(why, size, "%s: unknown field \"%.64s\"", WARRANT_POLICY_FILE, key);
			json_decref(j);
			return -1;
		}
	v = json_object_get(j, "unconfined");
	if (v != NULL && (!json_is_string(v) || (strcmp(json_string_value(v), "allow") != 0 &&
	    strcmp(json_string_value(v), "refuse") != 0))) {
		why_set(why, size, "%s: unconfined must be \"allow\" or \"refuse\"%s",
		    WARRANT_POLICY_FILE, "");
		json_decref(j);
		return -1;
	}
	p->unconfined = v != NULL && strcmp(json_string_value(v), "allow") == 0;
	v = json_object_get(j, "iolog_max_sessions");
	if (v != NULL && (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    (unsigned long long)json_integer_value(v) > IOLOG_SESSIONS_MAX)) {
		why_set(why, size, "%s: iolog_max_sessions must be a whole number from 1 to "
		    "%lu", WARRANT_POLICY_FILE, IOLOG_SESSIONS_MAX);
		json_decref(j);
		return -1;
	}
	if (v != NULL)
		p->iolog_sessions = (unsigned long)json_integer_value(v);
	if (logship_config(json_object_get(j, "log_server"), &p->log_server, lwhy,
	    sizeof lwhy) != 0) {
		why_set(why, size, "%s: %s", WARRANT_POLICY_FILE, lwhy);
		json_decref(j);
		return -1;
	}
	v = json_object_get(j, "root_approvals");
	if (v == NULL && json_object_get(j, "reviewers_group") == NULL) {
		json_decref(j);
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > TP_APPROVALS_MAX) {
		why_set(why, size, "%s: root_approvals must be a whole number from 1 to "
		    "16%s", WARRANT_POLICY_FILE, "");
		json_decref(j);
		return -1;
	}
	p->approvals = (int)json_integer_value(v);
	v = json_object_get(j, "reviewers_group");
	if (v == NULL && p->approvals == 1) {
		json_decref(j);
		return 0;
	}
	if (!json_is_string(v) || json_string_length(v) == 0 ||
	    json_string_length(v) >= sizeof p->group ||
	    group_has_member(json_string_value(v), NULL, 0, &p->gid) < 0) {
		why_set(why, size, "%s: reviewers_group must name a group of this host%s",
		    WARRANT_POLICY_FILE, "");
		json_decref(j);
		p->approvals = 1;
		return -1;
	}
	snprintf(p->group, sizeof p->group, "%s", json_string_value(v));
	json_decref(j);
	return 0;
}

/* The spool, opened: root's directory of the reviewers' group, mode
 * 1770 exactly. A descriptor, or -1 with why. */
static int
spool_open(const struct tp_policy *p, char *why, size_t size)
{
	struct stat st;
	int dfd;

	if ((dfd = open(WARRANT_REVIEW_SPOOL, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		why_set(why, size, "cannot open the review spool %s: %s", WARRANT_REVIEW_SPOOL,
		    strerror(errno));
		return -1;
	}
	if (fstat(dfd, &st) != 0 || st.st_uid != 0 || st.st_gid != p->gid ||
	    (st.st_mode & 07777) != 01770) {
		close(dfd);
		snprintf(why, size, "the review spool %s must be root's, of group %s, mode 1770 "
		    "(install -d -o root -g %s -m 1770 %s)", WARRANT_REVIEW_SPOOL, p->group,
		    p->group, WARRANT_REVIEW_SPOOL);
		return -1;
	}
	return dfd;
}

/* The review object of one decision, as it is written. */
json_t *
tp_review_json(const struct tp_binding *b, const char *decision)
{
	return json_pack("{s:i,s:s,s:s,s:s,s:O,s:I,s:I}", "schema_version", 1,
	    "decision", decision, "request_id", b->request_id,
	    "manifest_sha256", b->sha, "ids", b->ids,
	    "requester_uid", (json_int_t)b->requester, "reviewer_uid", (json_int_t)b->reviewer);
}

/* A review's file name starts with the request id and a dot; ids are
 * "w-" and base32 (gateid.c), never anything a path could misuse. */
static int
id_ok(const char *id)
{
	size_t i;

	if (id == NULL || strncmp(id, "w-", 2) != 0 || strlen(id) < 4 || strlen(id) > 32)
		return 0;
	for (i = 2; id[i] != '\0'; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '2' && id[i] <= '7')))
			return 0;
	return 1;
}

static int
prefix_of(const char *name, const char *id)
{
	size_t n = strlen(id);

	return strncmp(name, id, n) == 0 && name[n] == '.';
}

static int
ids_equal(const json_t *a, const json_t *b)
{
	size_t i;

	if (!json_is_array(a) || !json_is_array(b) || json_array_size(a) != json_array_size(b))
		return 0;
	for (i = 0; i < json_array_size(a); i++)
		if (!json_is_string(json_array_get(a, i)) ||
		    !json_is_string(json_array_get(b, i)) ||
		    strcmp(json_string_value(json_array_get(a, i)),
		    json_string_value(json_array_get(b, i))) != 0)
			return 0;
	return 1;
}

/* One file of the spool: its owner and content, when it is a regular
 * file with one link, not too big, a JSON object. NULL otherwise. */
static json_t *
review_read(int dfd, const char *name, uid_t *owner)
{
	struct stat st;
	json_t *j = NULL;
	char *buf;
	size_t len;
	int fd;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	    st.st_size <= REVIEW_MAX && read_bounded(fd, &buf, &len, REVIEW_MAX) == 0) {
		j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
		free(buf);
		*owner = st.st_uid;
	}
	close(fd);
	if (!json_is_object(j)) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static int
uid_field(const json_t *r, const char *key, uid_t want)
{
	json_t *v = json_object_get(r, key);

	return json_is_integer(v) && json_integer_value(v) == (json_int_t)want;
}

/*
 * Count the reviews of b in the spool. An approval counts when its owner
 * is a member of the group now, is neither root, the requester nor the
 * reviewer who runs the batch, has not counted already, and its content
 * is exactly this binding (request id, the seal of the subset that runs,
 * its ids, the requester and the reviewer who runs). A denial of this
 * request (to this reviewer) by any member denies. 0 with t filled, or -1
 * with why (the spool cannot be used).
 */
int
tp_count(const struct tp_policy *p, const struct tp_binding *b, struct tp_tally *t,
    char *why, size_t size)
{
	json_t *r, *want = tp_review_json(b, "approve");
	const char *decision;
	struct dirent *de;
	uid_t owner;
	DIR *d;
	int dfd, i, dup;

	memset(t, 0, sizeof *t);
	if (!id_ok(b->request_id)) {
		snprintf(why, size, "the request id is not one warrant makes");
		json_decref(want);
		return -1;
	}
	if ((dfd = spool_open(p, why, size)) < 0 || (d = fdopendir(dfd)) == NULL) {
		if (dfd >= 0) {
			snprintf(why, size, "cannot read the review spool: %s", strerror(errno));
			close(dfd);
		}
		json_decref(want);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (!prefix_of(de->d_name, b->request_id) ||
		    (r = review_read(dirfd(d), de->d_name, &owner)) == NULL)
			continue;
		decision = json_string_value(json_object_get(r, "decision"));
		if (decision == NULL || owner == 0 || !tp_is_member(p, owner) ||
		    !json_is_string(json_object_get(r, "request_id")) ||
		    strcmp(json_string_value(json_object_get(r, "request_id")),
		    b->request_id) != 0 || !uid_field(r, "reviewer_uid", b->reviewer)) {
			t->ignored++;
			json_decref(r);
			continue;
		}
		if (strcmp(decision, "deny") == 0) {
			if (!t->denied)
				t->denied_by = owner;
			t->denied = 1;
			json_decref(r);
			continue;
		}
		for (dup = 0, i = 0; i < t->approvals; i++)
			dup |= t->by[i] == owner;
		if (strcmp(decision, "approve") != 0 || dup || owner == b->requester ||
		    owner == b->reviewer || !json_equal(r, want) ||
		    !digest_equal(json_string_value(json_object_get(r, "manifest_sha256")), b->sha) ||
		    !ids_equal(json_object_get(r, "ids"), b->ids)) {
			t->ignored++;
			json_decref(r);
			continue;
		}
		if (t->approvals < TP_APPROVALS_MAX)
			t->by[t->approvals++] = owner;
		json_decref(r);
	}
	closedir(d);
	json_decref(want);
	return 0;
}

/*
 * Write this user's review of b (decision "approve" or "deny") into the
 * spool: any earlier review of theirs for the request goes first, then a
 * fresh file created O_EXCL (the kernel makes it ours), written and made
 * durable. 0, or -1 with why.
 */
int
tp_write(const struct tp_policy *p, const struct tp_binding *b, const char *decision,
    char *why, size_t size)
{
	char name[128], *bytes = NULL;
	unsigned char rnd[8];
	struct dirent *de;
	struct stat st;
	json_t *j;
	DIR *d;
	int dfd, fd = -1, i, rc = -1;

	if (!id_ok(b->request_id)) {
		snprintf(why, size, "the request id is not one warrant makes");
		return -1;
	}
	if ((dfd = spool_open(p, why, size)) < 0)
		return -1;
	/* our own earlier reviews of this request are replaced */
	if ((d = fdopendir(dup(dfd))) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (prefix_of(de->d_name, b->request_id) &&
			    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    st.st_uid == getuid())
				(void)unlinkat(dfd, de->d_name, 0);
		closedir(d);
	}
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		snprintf(why, size, "no random bytes for the review's name");
		goto out;
	}
	i = snprintf(name, sizeof name, "%s.%u.%s.", b->request_id, (unsigned)getuid(),
	    decision);
	for (size_t k = 0; k < sizeof rnd; k++)
		i += snprintf(name + i, sizeof name - (size_t)i, "%02x", rnd[k]);
	j = tp_review_json(b, decision);
	bytes = canon_dump(j, NULL);
	json_decref(j);
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (bytes == NULL || fd < 0 || fchmod(fd, 0644) != 0 ||
	    write_all(fd, bytes, strlen(bytes)) != 0 || fsync(fd) != 0 || fsync(dfd) != 0) {
		snprintf(why, size, "cannot write your review into %s: %s", WARRANT_REVIEW_SPOOL,
		    strerror(errno));
		if (fd >= 0)
			(void)unlinkat(dfd, name, 0);
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(bytes);
	close(dfd);
	return rc;
}

/*
 * As root, once a batch is under way: remove the reviews of this request
 * (they are spent) and any review older than TP_SPOOL_DAYS (its gate was
 * settled some other way long ago). Best effort.
 */
void
tp_sweep(const struct tp_policy *p, const char *request_id)
{
	char why[256];
	struct dirent *de;
	struct stat st;
	int dfd;
	DIR *d;

	if ((dfd = spool_open(p, why, sizeof why)) < 0)
		return;
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "w-", 2) != 0 ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    S_ISDIR(st.st_mode))
			continue;
		if ((request_id != NULL && prefix_of(de->d_name, request_id)) ||
		    st.st_mtime < now_seconds() - TP_SPOOL_DAYS * 86400LL)
			(void)unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}
