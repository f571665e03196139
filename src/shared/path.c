/*
 * Could someone replace a file: the writability judgement shared by
 * request validation (for the requester, at request time) and the runner
 * (for the same requester, again just before the batch runs).
 */
#include <string.h>
#include <unistd.h>

#include "shared.h"

static int
in_groups(const struct writer *p, gid_t gid)
{
	int i;

	for (i = 0; i < p->ngroups; i++)
		if (p->groups[i] == gid)
			return 1;
	return 0;
}

/* Could p write to (or chmod) this inode? For uid 0 the question is
 * whether anyone other than root could. */
static int
writable_by(const struct writer *p, const struct stat *st)
{
	if (p->uid == 0)
		return st->st_uid != 0 || (st->st_mode & S_IWOTH) ||
		    ((st->st_mode & S_IWGRP) && st->st_gid != 0);
	return st->st_uid == p->uid || (st->st_mode & S_IWOTH) ||
	    ((st->st_mode & S_IWGRP) && in_groups(p, st->st_gid));
}

static int
owned_by(const struct writer *p, const struct stat *st)
{
	return p->uid == 0 ? st->st_uid != 0 : st->st_uid == p->uid;
}

/*
 * Could p replace the file at path (absolute, already resolved)? True when
 * p can write the file itself, or any directory from its parent up to /
 * lets p rename or unlink the entry below it: a writable directory does,
 * unless it is sticky and p owns neither the directory nor the entry.
 * ACLs are also honoured through access(2) when this process is p.
 * Returns 1 (with a reason in why), 0, or -1 when a component is missing.
 */
int
path_writable(const struct writer *p, const char *path, char *why, size_t size)
{
	char cur[PATH_MAX], dir[PATH_MAX];
	struct stat st, dst;
	char *slash;
	int self = p->self && p->uid != 0;

	if (strlen(path) >= sizeof cur || path[0] != '/')
		return -1;
	strcpy(cur, path);
	if (lstat(cur, &st) != 0)
		return -1;
	if (writable_by(p, &st) || (self && access(cur, W_OK) == 0)) {
		snprintf(why, size, "%s is writable by %s", cur,
		    p->uid == 0 ? "a non-root user" : "the requester");
		return 1;
	}
	while (strcmp(cur, "/") != 0) {
		strcpy(dir, cur);
		slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
		if (lstat(dir, &dst) != 0)
			return -1;
		if ((writable_by(p, &dst) || (self && access(dir, W_OK) == 0)) &&
		    (!(dst.st_mode & S_ISVTX) || owned_by(p, &st) || owned_by(p, &dst))) {
			snprintf(why, size, "directory %s lets %s replace %s", dir,
			    p->uid == 0 ? "a non-root user" : "the requester", cur);
			return 1;
		}
		strcpy(cur, dir);
		st = dst;
	}
	return 0;
}
