/*
 * Who asks: a uid with every group it may act with, its name and home.
 * requester_self builds it for this process; requester_lookup for a uid and gid the
 * kernel vouched for, such as a socket peer's credentials.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

#define PW_BUF_MAX	(1024 * 1024)
#define GROUPS_MAX	65536

/* uid 0 judges for "anyone but root" (path_replaceable). */
const struct requester requester_anyone = { .uid = 0, .gid = 0 };

static int
add_group(struct requester *rq, size_t *cap, gid_t g)
{
	gid_t *n;
	int i;

	for (i = 0; i < rq->ngroups; i++)
		if (rq->groups[i] == g)
			return 0;
	if ((size_t)rq->ngroups == *cap) {
		if (*cap >= GROUPS_MAX ||
		    (n = reallocarray(rq->groups, *cap * 2, sizeof *n)) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		rq->groups = n;
		*cap *= 2;
	}
	rq->groups[rq->ngroups++] = g;
	return 0;
}

/* The groups of the group database for name (primary gid included). */
static int
add_db_groups(struct requester *rq, size_t *cap, const char *name, gid_t gid)
{
	gid_t *list = NULL, *n;
	int count = 64, want, i, rc = -1;

	for (;;) {
		if ((n = reallocarray(list, (size_t)count, sizeof *n)) == NULL)
			goto out;
		list = n;
		want = count;
		if (getgrouplist(name, gid, list, &want) >= 0) {
			count = want;
			break;
		}
		if (want <= count || want > GROUPS_MAX) {
			errno = ENOMEM;
			goto out;
		}
		count = want;
	}
	for (i = 0; i < count; i++)
		if (add_group(rq, cap, list[i]) != 0)
			goto out;
	rc = 0;
out:
	free(list);
	return rc;
}

/*
 * uid and gid with the extra groups given (a process's supplementary
 * groups), the groups the database gives the user, and its name and home.
 * 0, or -1 with errno; a uid without a passwd entry is "unknown" without
 * a home.
 */
int
requester_lookup(struct requester *rq, uid_t uid, gid_t gid, const gid_t *extra,
    int nextra)
{
	struct passwd pw, *res = NULL;
	size_t size = 1024, cap = 16;
	char *buf = NULL, *n;
	int e, i;

	memset(rq, 0, sizeof *rq);
	rq->uid = uid;
	rq->gid = gid;
	rq->groups = xcalloc(cap, sizeof *rq->groups);
	if (add_group(rq, &cap, gid) != 0)
		goto fail;
	for (i = 0; i < nextra; i++)
		if (add_group(rq, &cap, extra[i]) != 0)
			goto fail;
	for (;;) {
		if ((n = realloc(buf, size)) == NULL)
			goto fail;
		buf = n;
		e = getpwuid_r(uid, &pw, buf, size, &res);
		if (e != ERANGE)
			break;
		if (size >= PW_BUF_MAX) {
			errno = ENOMEM;
			goto fail;
		}
		size *= 2;
	}
	if (e != 0 && e != ENOENT && e != ESRCH) {
		errno = e;
		goto fail;
	}
	if (res != NULL) {
		rq->name = xstrdup(pw.pw_name);
		if (pw.pw_dir != NULL && pw.pw_dir[0] == '/')
			rq->home = xstrdup(pw.pw_dir);
		if (add_db_groups(rq, &cap, pw.pw_name, pw.pw_gid) != 0)
			goto fail;
	} else
		rq->name = xstrdup("unknown");
	free(buf);
	return 0;
fail:
	e = errno;
	free(buf);
	requester_free(rq);
	errno = e;
	return -1;
}

/*
 * This process as the requester: its real uid and gid, its groups and
 * those the database gives it. EXIT_OK, or EXIT_INTERNAL with errno.
 */
int
requester_self(struct requester *rq, struct refusal *r)
{
	gid_t *groups;
	int n, rc;

	memset(rq, 0, sizeof *rq);
	(void)r;		/* nothing refused yet */
	if ((n = getgroups(0, NULL)) < 0)
		return EXIT_INTERNAL;
	groups = xcalloc((size_t)n + 1, sizeof *groups);
	if ((n = getgroups(n, groups)) < 0) {
		free(groups);
		return EXIT_INTERNAL;
	}
	rc = requester_lookup(rq, getuid(), getgid(), groups, n);
	free(groups);
	if (rc != 0)
		return EXIT_INTERNAL;
	rq->self = 1;
	return EXIT_OK;
}

void
requester_free(struct requester *rq)
{
	free(rq->groups);
	free(rq->name);
	free(rq->home);
	memset(rq, 0, sizeof *rq);
}
