/* SPDX-License-Identifier: ISC */
/*
 * Could someone replace a file, or change what a path names: the
 * writability judgement shared by request validation (for the requester,
 * at request time) and the runner (for the same requester, again just
 * before the batch runs). And two helpers both use: opening a regular
 * file, and finding a bare name on the trusted path.
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

/* writable_by, or the ACL lets p write; an ACL that cannot be read
 * counts as one that does. */
static int
may_write(const struct writer *p, const char *path, const struct stat *st)
{
	return writable_by(p, st) || acl_may_write(p, path, st) != 0;
}

/* Could p rename or unlink the entry st of directory dir (dst)? A
 * directory p can write lets it, unless it is sticky and p owns neither. */
static int
entry_replaceable(const struct writer *p, const char *dir, const struct stat *dst,
    const struct stat *st)
{
	return may_write(p, dir, dst) &&
	    (!(dst->st_mode & S_ISVTX) || owned_by(p, st) || owned_by(p, dst));
}

/*
 * Could p replace the file at path (absolute, already resolved)? True when
 * p can write the file itself, or any directory from its parent up to /
 * lets p rename or unlink the entry below it: a writable directory does,
 * unless it is sticky and p owns neither the directory nor the entry.
 * ACLs are honoured (acl_may_write), for p whoever this process is.
 * Returns 1 (with a reason in why), 0, or -1 when a component is missing.
 */
int
path_writable(const struct writer *p, const char *path, char *why, size_t size)
{
	char cur[PATH_MAX], dir[PATH_MAX];
	struct stat st, dst;
	char *slash;

	if (strlen(path) >= sizeof cur || path[0] != '/')
		return -1;
	strcpy(cur, path);
	if (lstat(cur, &st) != 0)
		return -1;
	if (may_write(p, cur, &st)) {
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
		if (entry_replaceable(p, dir, &dst, &st)) {
			snprintf(why, size, "directory %s lets %s replace %s", dir,
			    p->uid == 0 ? "a non-root user" : "the requester", cur);
			return 1;
		}
		strcpy(cur, dir);
		st = dst;
	}
	return 0;
}

/*
 * Could p change what root finds at path (absolute, as given)? The path
 * is walked as the kernel resolves it, symlinks followed and ".." taken
 * from the directory reached. Every entry met, a symlink included, counts
 * when its directory lets p replace it; the entry reached also when p can
 * write it (a character device excepted: writing /dev/null changes
 * nothing root reads); a missing entry when p can create it in the
 * directory reached, as a symlink to anywhere. /proc/self and
 * /proc/thread-self name root's own process and end the walk; so does a
 * directory p cannot search (EACCES: p reaches nothing below it) and a
 * path the kernel would refuse too (too long, ELOOP, ENOTDIR).
 * Returns 1 with a reason in why, 0, or -1 when it cannot be judged.
 */
static int
walk_changeable(const struct writer *p, const char *path, int final, char *why, size_t size)
{
	char cur[2 * PATH_MAX], rest[2 * PATH_MAX], next[2 * PATH_MAX],
	    link[PATH_MAX], tmp[2 * PATH_MAX];
	const char *who = p->uid == 0 ? "a non-root user" : "the requester";
	const char *s, *after;
	struct stat st, dst;
	int links = 0;
	ssize_t ll;
	size_t n;

	if (path[0] != '/' || strlen(path) >= sizeof rest)
		return -1;
	strcpy(rest, path);
	strcpy(cur, "/");
	if (lstat(cur, &dst) != 0)
		return -1;
	for (;;) {
		for (s = rest; *s == '/'; s++)
			;
		if (*s == '\0')
			break;
		n = strcspn(s, "/");
		after = s + n;
		if (n == 1 && s[0] == '.') {
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			*strrchr(cur, '/') = '\0';
			if (cur[0] == '\0')
				strcpy(cur, "/");
			if (lstat(cur, &dst) != 0)
				return -1;
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		if (strcmp(cur, "/proc") == 0 && ((n == 4 && strncmp(s, "self", 4) == 0) ||
		    (n == 11 && strncmp(s, "thread-self", 11) == 0)))
			return 0;
		if ((size_t)snprintf(next, sizeof next, "%s/%.*s",
		    strcmp(cur, "/") == 0 ? "" : cur, (int)n, s) >= sizeof next)
			return -1;
		if (lstat(next, &st) != 0) {
			if (errno == ENOENT && may_write(p, cur, &dst)) {
				snprintf(why, size, "%s does not exist and %s may create it in %s",
				    next, who, cur);
				return 1;
			}
			if (errno == ENOENT || errno == EACCES || errno == ENOTDIR ||
			    errno == ENAMETOOLONG)
				return 0;
			return -1;
		}
		if (entry_replaceable(p, cur, &dst, &st)) {
			snprintf(why, size, "directory %s lets %s replace %s", cur, who, next);
			return 1;
		}
		if (S_ISLNK(st.st_mode)) {
			if (++links > 40)
				return 0;	/* ELOOP for root too */
			if ((ll = readlink(next, link, sizeof link - 1)) < 0)
				return -1;
			link[ll] = '\0';
			if ((size_t)snprintf(tmp, sizeof tmp, "%s%s", link, after) >= sizeof tmp)
				return -1;
			strcpy(rest, tmp);
			if (link[0] == '/') {
				strcpy(cur, "/");
				if (lstat(cur, &dst) != 0)
					return -1;
			}
			continue;
		}
		strcpy(cur, next);
		dst = st;
		memmove(rest, after, strlen(after) + 1);
	}
	if (final && !S_ISCHR(dst.st_mode) && may_write(p, cur, &dst)) {
		snprintf(why, size, "%s is writable by %s", cur, who);
		return 1;
	}
	return 0;
}

int
path_changeable(const struct writer *p, const char *path, char *why, size_t size)
{
	return walk_changeable(p, path, 1, why, size);
}

/* For judgements through descriptors (judge.c): could p write (or chmod)
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

/*
 * For an operand of a command that acts_on_entry: could p change the
 * way to the entry (every entry above it, as root resolves them; the
 * directory holding it may be p's own)?
 * An operand whose last component is ".", ".." or followed by a slash
 * is judged whole (the kernel would follow the entry). Same answers as
 * path_changeable.
 */
int
entry_way_changeable(const struct writer *p, const char *path, char *why, size_t size)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t n = strlen(path);

	if (path[0] != '/' || n >= sizeof dir || slash == NULL || slash[1] == '\0' ||
	    strcmp(slash + 1, ".") == 0 || strcmp(slash + 1, "..") == 0)
		return path_changeable(p, path, why, size);
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	/* the directory holding it may be the requester's: the entry is */
	return walk_changeable(p, *dir ? dir : "/", 0, why, size);
}
