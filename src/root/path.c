/* SPDX-License-Identifier: ISC */
/*
 * Who could write an inode or replace its entry (its owner, its mode, its
 * ACL), the rule under every judgement of a path (confine/judge.c walks
 * the path through descriptors and asks these of what it meets). And two
 * helpers the runner and the CLI both use: opening a regular file, and
 * finding a bare name on the trusted path.
 */
#include <sys/xattr.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "root.h"

/* Open a regular file for reading without following a final symlink and
 * without blocking on a FIFO; -1 with errno when it is anything else. */
int
open_regular(const char *path, struct stat *st)
{
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0) {
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	return fd;
}

static const char *const trusted_dirs[] = {
	"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
};

/*
 * The directories of the trusted path, in order, each real directory
 * once: on a merged /usr (Debian) /sbin and /bin are links to /usr/sbin
 * and /usr/bin, and a name missing from those is missing from them too.
 * Same directory = same device and inode (stat follows the links); a
 * directory that is not there is left out. Loaded for one judgement, by
 * whoever makes many lookups (the denylist), never cached.
 */
void
trusted_path_load(struct trusted_path *tp)
{
	struct stat st[TRUSTED_DIRS];
	size_t i, j;

	tp->n = 0;
	for (i = 0; i < TRUSTED_DIRS; i++) {
		if (stat(trusted_dirs[i], &st[tp->n]) != 0 || !S_ISDIR(st[tp->n].st_mode))
			continue;
		for (j = 0; j < tp->n; j++)
			if (st[j].st_dev == st[tp->n].st_dev && st[j].st_ino == st[tp->n].st_ino)
				break;
		if (j == tp->n)
			tp->dir[tp->n++] = trusted_dirs[i];
	}
}

/* Find a bare name in tp's directories (every directory of the trusted
 * path when tp is NULL); 0 with the path in out. */
int
exe_lookup_in(const struct trusted_path *tp, const char *name, char *out, size_t size)
{
	size_t i, n = tp != NULL ? tp->n : TRUSTED_DIRS;
	struct stat st;

	if (*name == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if ((size_t)snprintf(out, size, "%s/%s",
		    tp != NULL ? tp->dir[i] : trusted_dirs[i], name) >= size)
			return -1;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 0111) != 0)
			return 0;
	}
	return -1;
}

/* Find a bare name on the trusted path; 0 with the path in out. */
int
exe_lookup(const char *name, char *out, size_t size)
{
	return exe_lookup_in(NULL, name, out, size);
}

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

/* The access ACL's layout (linux/posix_acl_xattr.h): a header, then
 * entries of {tag, perm, id}, little-endian. */
#define ACL_XATTR		"system.posix_acl_access"
#define ACL_XATTR_VERSION	2
#define ACL_ENTRIES_MAX		1024	/* more than ext4 holds in a block */
#define ACL_USER_OBJ		0x01
#define ACL_USER		0x02
#define ACL_GROUP_OBJ		0x04
#define ACL_GROUP		0x08
#define ACL_MASK		0x10
#define ACL_OTHER		0x20
#define ACL_WRITE		0x02

static uint32_t
le_u32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
}

/*
 * Does the access ACL of path (read as root would: getxattr follows a
 * final symlink, so "/proc/self/fd/N" names the open file) let p write
 * it? Only named users and groups, and the owning group, are read here,
 * each limited by the mask, as the kernel checks them: a named entry for
 * p's uid decides alone, else any entry of p's groups that allows
 * writing. The owner and others are the mode bits (writable_by). For uid
 * 0 the question is whether anyone but root could: an entry for a
 * non-root user or a group other than gid 0 that allows writing. 1, 0
 * (no ACL: ENODATA, ENOTSUP; a symbolic link, which has none), or -1
 * when the ACL cannot be read or is not one. errno is kept but for -1.
 */
int
acl_may_write(const struct writer *p, const char *path, const struct stat *st)
{
	unsigned char buf[4 + 8 * ACL_ENTRIES_MAX];
	unsigned tag, perm, mask = 07, user = 0, group = 0, mine = 0;
	int saved = errno;
	uint32_t id;
	ssize_t n;
	size_t i;

	if (S_ISLNK(st->st_mode))
		return 0;
	if ((n = getxattr(path, ACL_XATTR, buf, sizeof buf)) < 0) {
		if (errno != ENODATA && errno != ENOTSUP && errno != EOPNOTSUPP)
			return -1;
		errno = saved;
		return 0;
	}
	if (n < 4 || (n - 4) % 8 != 0 || le_u32(buf) != ACL_XATTR_VERSION) {
		errno = EINVAL;
		return -1;
	}
	for (i = 4; i < (size_t)n; i += 8)
		if ((buf[i] | buf[i + 1] << 8) == ACL_MASK)
			mask = buf[i + 2] | buf[i + 3] << 8;
	for (i = 4; i < (size_t)n; i += 8) {
		tag = buf[i] | buf[i + 1] << 8;
		perm = (buf[i + 2] | buf[i + 3] << 8) & mask;
		id = le_u32(buf + i + 4);
		switch (tag) {
		case ACL_USER:
			if (p->uid == 0 ? id != 0 : id == p->uid) {
				mine = 1;
				user |= perm & ACL_WRITE;
			}
			break;
		case ACL_GROUP_OBJ:
			id = st->st_gid;
			/* FALLTHROUGH */
		case ACL_GROUP:
			if (p->uid == 0 ? id != 0 : in_groups(p, (gid_t)id))
				group |= perm & ACL_WRITE;
			break;
		case ACL_USER_OBJ: case ACL_MASK: case ACL_OTHER:
			break;
		default:
			errno = EINVAL;
			return -1;
		}
	}
	/* for uid 0 a named user and a group are different people */
	if (p->uid != 0 && mine)
		return user != 0;
	return user != 0 || group != 0;
}

/* Could p write (or chmod)
 * the inode open as fd (st its fstat), its ACL included? An ACL that
 * cannot be read counts as one that lets it when the mode's group bits
 * allow writing (below). */
int
inode_writable(const struct writer *p, int fd, const struct stat *st)
{
	/* inodes seen without an ACL, by identity and change time (setting
	 * an ACL changes ctime): most have none, and the question is asked
	 * for every directory of every path the supervisor judges */
	static struct {
		dev_t dev;
		ino_t ino;
		struct timespec ctime;
	} none[256];
	size_t h = (size_t)(st->st_ino ^ st->st_dev) % (sizeof none / sizeof none[0]);
	char proc[32];

	if (writable_by(p, st))
		return 1;
	/* every ACL entry that could let p write (a named user or group,
	 * the owning group) passes through the mask, and while an ACL is
	 * set the mode's group bits are its mask (the kernel keeps them
	 * one: posix_acl_update_mode, posix_acl_chmod): in st, read from fd
	 * just now, no group write means no entry grants it, whatever the
	 * ACL holds or whether it reads. Most directories are 0755: no
	 * attribute to read, nothing to remember */
	if (!(st->st_mode & S_IWGRP))
		return 0;
	if (none[h].ino == st->st_ino && none[h].dev == st->st_dev &&
	    none[h].ctime.tv_sec == st->st_ctim.tv_sec &&
	    none[h].ctime.tv_nsec == st->st_ctim.tv_nsec)
		return 0;
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	if (getxattr(proc, ACL_XATTR, NULL, 0) < 0 &&
	    (errno == ENODATA || errno == ENOTSUP || errno == EOPNOTSUPP)) {
		none[h].dev = st->st_dev;
		none[h].ino = st->st_ino;
		none[h].ctime = st->st_ctim;
		return 0;
	}
	return acl_may_write(p, proc, st) != 0;
}

/* Does p own st (uid 0: does anyone but root)? */
int
inode_owned(const struct writer *p, const struct stat *st)
{
	return owned_by(p, st);
}

/*
 * rm, and chown or chgrp -R without -H, -L or --dereference, act on the
 * entry an operand names without following it (rm unlinks a symlink,
 * chown -R changes the link itself) and walk a directory through
 * descriptors. For their operands only the way to the entry must be
 * beyond the requester: the entry may be the requester's own (root
 * removing or handing back the requester's files). prog is the resolved
 * program's base name, argv[0] included in argv.
 */
int
acts_on_entry(const char *prog, const char *const *argv, size_t argc)
{
	size_t i;
	int recursive = 0;

	if (strcmp(prog, "rm") == 0)
		return 1;
	if (strcmp(prog, "chown") != 0 && strcmp(prog, "chgrp") != 0)
		return 0;
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (argv[i][0] != '-' || argv[i][1] == '\0')
			continue;
		if (strcmp(argv[i], "--recursive") == 0)
			recursive = 1;
		else if (strcmp(argv[i], "--dereference") == 0)
			return 0;
		else if (argv[i][1] != '-') {
			if (strchr(argv[i], 'H') != NULL || strchr(argv[i], 'L') != NULL)
				return 0;
			if (strchr(argv[i], 'R') != NULL)
				recursive = 1;
		}
	}
	return recursive;
}
