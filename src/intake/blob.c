/* SPDX-License-Identifier: ISC */
/*
 * The blob store (docs/store.md "Blobs"): the content of reviewed files,
 * content-addressed in the state directory as STATE/blobs/sha256/HEX
 * (0600, directories 0700), written through a temporary file that is
 * fsynced and renamed, one copy per content. A gate's manifest names a
 * file's SHA-256 and size; whoever reads a blob checks both. What the
 * store may hold is bounded (blobs_admit) and what no gate holds any more
 * is collected (blobs_collect). An archive's member summary (archive.c)
 * is kept beside its blob as HEX.archive.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

/* Blobs blob_text found whole, remembered by inode: the page shows each
 * pending gate's files at every load, and hashing 64 MiB again each time
 * under the page's lock would stall it. */
#define VERIFIED_MAX	64

/* A blob that hashed to its name, as it was then: its inode, size and
 * times. Any write moves the change time, which no user can set back. */
static struct verified {
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	struct timespec	 mtime, ctime;
	char		 sha[SHA256_HEX_LEN + 1];
} verified[VERIFIED_MAX];
static size_t verified_next;
static pthread_mutex_t verified_lock = PTHREAD_MUTEX_INITIALIZER;

static int
verified_same(const struct verified *v, const struct stat *st, const char *sha)
{
	return v->dev == st->st_dev && v->ino == st->st_ino && v->size == st->st_size &&
	    v->mtime.tv_sec == st->st_mtim.tv_sec && v->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	    v->ctime.tv_sec == st->st_ctim.tv_sec && v->ctime.tv_nsec == st->st_ctim.tv_nsec &&
	    digest_equal(v->sha, sha);
}

/* Does the blob open on fd hash to sha? Hashed once per inode as it is
 * (verified), or again. */
static int
blob_hashes_to(int fd, const char *sha)
{
	char hex[SHA256_HEX_LEN + 1];
	struct stat st;
	size_t i;
	int known = 0;

	if (fstat(fd, &st) != 0)
		return 0;
	pthread_mutex_lock(&verified_lock);
	for (i = 0; i < VERIFIED_MAX && !known; i++)
		known = verified_same(&verified[i], &st, sha);
	pthread_mutex_unlock(&verified_lock);
	if (known)
		return 1;
	if (sha256_fd(fd, hex) != 0 || !digest_equal(hex, sha))
		return 0;
	pthread_mutex_lock(&verified_lock);
	verified[verified_next] = (struct verified){ st.st_dev, st.st_ino, st.st_size,
	    st.st_mtim, st.st_ctim, "" };
	snprintf(verified[verified_next].sha, sizeof verified[verified_next].sha, "%s", sha);
	verified_next = (verified_next + 1) % VERIFIED_MAX;
	pthread_mutex_unlock(&verified_lock);
	return 1;
}

/* STATE/blobs/sha256, created when asked; a descriptor, or -1. */
static int
blob_dir(const char *statedir, int create)
{
	int sfd, bfd, dfd = -1;

	sfd = open(statedir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return -1;
	if (create && mkdirat(sfd, "blobs", 0700) != 0 && errno != EEXIST)
		goto out;
	bfd = openat(sfd, "blobs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (bfd < 0)
		goto out;
	if (create && mkdirat(bfd, "sha256", 0700) != 0 && errno != EEXIST) {
		close(bfd);
		goto out;
	}
	dfd = openat(bfd, "sha256", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(bfd);
out:
	close(sfd);
	return dfd;
}

/* Does dfd/name hold exactly size bytes hashing to sha? */
static int
blob_good(int dfd, const char *name, const char *sha, uint64_t size)
{
	char hex[SHA256_HEX_LEN + 1];
	struct stat st;
	int fd, ok;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size &&
	    sha256_fd(fd, hex) == 0 && digest_equal(hex, sha);
	close(fd);
	return ok;
}

/*
 * One file's content into a new temporary file in dfd, hashed as it is
 * written; a snapshot is read again from the descriptor it was judged
 * through. 0 with the name in tmp; 1 when the content is no longer the
 * one judged; -1 with errno.
 */
static int
tmp_open(int dfd, char tmp[32])
{
	int fd = -1, n;

	/* a name of our own: another request may store the same content */
	for (n = 0; n < 100 && fd < 0; n++) {
		snprintf(tmp, 32, ".tmp-%ld-%d", (long)getpid(), n);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

static int
blob_write_tmp(int dfd, const struct wfile *f, char tmp[32])
{
	char hex[SHA256_HEX_LEN + 1];
	uint64_t total = 0;
	int fd, rc = -1, saved;

	if ((fd = tmp_open(dfd, tmp)) < 0)
		return -1;
	if (f->snapshot == NULL) {
		if (write_all(fd, f->data, f->size) != 0)
			goto out;
		total = f->size;
		sha256_bytes(f->data, f->size, hex);
	} else if ((rc = sha256_stream(f->fd, f->size, write_sink, &fd, hex, &total)) != 0)
		goto out;
	rc = -1;
	if (total != f->size || !digest_equal(hex, f->sha256)) {
		rc = 1;
		goto out;
	}
	if (fchmod(fd, 0600) != 0 || fsync(fd) != 0)
		goto out;
	rc = 0;
out:
	saved = errno;
	if (close(fd) != 0 && rc == 0) {
		saved = errno;
		rc = -1;
	}
	if (rc != 0)
		unlinkat(dfd, tmp, 0);
	errno = saved;
	return rc;
}

#define SUMMARY_SUFFIX	".archive"
#define SUMMARY_MAX	(16 * 1024 * 1024)

/*
 * An archive's summary (archive.c) beside its blob, as HEX.archive, with
 * the SHA-256 it was read from: derived from the sealed content, so kept
 * out of the manifest; reused like the blob. 0, or -1 with errno.
 */
static int
summary_write(int dfd, const struct wfile *f)
{
	char tmp[32], name[SHA256_HEX_LEN + sizeof SUMMARY_SUFFIX], *bytes;
	json_t *j = json_deep_copy(f->archive);
	int fd, rc = -1, saved;

	snprintf(name, sizeof name, "%s" SUMMARY_SUFFIX, f->sha256);
	if (utimensat(dfd, name, NULL, AT_SYMLINK_NOFOLLOW) == 0) {
		json_decref(j);
		return 0;
	}
	json_object_set_new(j, "sha256", json_string(f->sha256));
	bytes = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (bytes == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if ((fd = tmp_open(dfd, tmp)) < 0) {
		free(bytes);
		return -1;
	}
	if (write_all(fd, bytes, strlen(bytes)) == 0 && fsync(fd) == 0)
		rc = 0;
	saved = errno;
	if (close(fd) != 0 && rc == 0) {
		saved = errno;
		rc = -1;
	}
	if (rc == 0 && renameat(dfd, tmp, dfd, name) != 0) {
		saved = errno;
		rc = -1;
	}
	if (rc != 0)
		unlinkat(dfd, tmp, 0);
	free(bytes);
	errno = saved;
	return rc;
}

/*
 * The content of every file of q into the blob store of statedir, before
 * the gate that names it is stored. All are written to temporary files
 * first, so a snapshot that changed since it was judged stores nothing
 * (a refusal); then each is renamed to its name, unless a good copy is
 * there already. 0; -1 with r filled (a refusal); -2 after saying why.
 */
int
blobs_store(const struct wrequest *q, const char *statedir, struct refusal *r)
{
	char (*tmp)[32] = NULL, path[160];
	size_t i, made = 0;
	int dfd, rc = -2, w;

	if (q->nfiles == 0)
		return 0;
	if ((dfd = blob_dir(statedir, 1)) < 0) {
		warn("%s/blobs/sha256", statedir);
		return -2;
	}
	tmp = xcalloc(q->nfiles, sizeof *tmp);
	for (made = 0; made < q->nfiles; made++) {
		const struct wfile *f = &q->files[made];

		if ((w = blob_write_tmp(dfd, f, tmp[made])) == 1) {
			snprintf(path, sizeof path, "$.files.%s.snapshot", f->name);
			refuse(r, "invalid_field", path, "'%s' changed while warrant was copying "
			    "it; ask again once it no longer changes", f->snapshot);
			rc = -1;
			goto out;
		}
		if (w != 0) {
			warn("%s/blobs/sha256: storing file %s", statedir, f->name);
			goto out;
		}
	}
	for (i = 0; i < q->nfiles; i++) {
		const struct wfile *f = &q->files[i];

		/* a copy there already is reused, and newly so: gc's grace */
		if (blob_good(dfd, f->sha256, f->sha256, f->size)) {
			utimensat(dfd, f->sha256, NULL, AT_SYMLINK_NOFOLLOW);
			continue;
		}
		if (renameat(dfd, tmp[i], dfd, f->sha256) != 0) {
			warn("%s/blobs/sha256/%s", statedir, f->sha256);
			goto out;
		}
		tmp[i][0] = '\0';
	}
	for (i = 0; i < q->nfiles; i++)
		if (q->files[i].archive != NULL && summary_write(dfd, &q->files[i]) != 0) {
			warn("%s/blobs/sha256/%s" SUMMARY_SUFFIX, statedir, q->files[i].sha256);
			goto out;
		}
	if (fsync(dfd) != 0) {
		warn("%s/blobs/sha256", statedir);
		goto out;
	}
	rc = 0;
out:
	for (i = 0; i < made; i++)
		if (tmp[i][0] != '\0')
			unlinkat(dfd, tmp[i], 0);
	free(tmp);
	close(dfd);
	return rc;
}

#define MIB	(1024LL * 1024)

/* What a blob of size bytes takes on disk: whole 4 KiB blocks, holes and
 * all (a blob is written dense, whatever its source was). */
static long long
blob_cost(int64_t size)
{
	return ((long long)size + 4095) / 4096 * 4096;
}

/* Is name a blob's (64 lowercase hex digits)? */
static int
blob_name(const char *name)
{
	size_t i;

	for (i = 0; name[i] != '\0'; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return 0;
	return i == SHA256_HEX_LEN;
}

/* Is name a blob's summary (its name, then SUMMARY_SUFFIX)? */
static int
summary_name(const char *name)
{
	char sha[SHA256_HEX_LEN + 1];

	if (strlen(name) != SHA256_HEX_LEN + strlen(SUMMARY_SUFFIX) ||
	    strcmp(name + SHA256_HEX_LEN, SUMMARY_SUFFIX) != 0)
		return 0;
	snprintf(sha, sizeof sha, "%s", name);
	return blob_name(sha);
}

/* What the entries of dfd take on disk, in bytes. */
static long long
blob_dir_use(int dfd)
{
	struct dirent *e;
	struct stat sb;
	long long n = 0;
	DIR *d;
	int fd;

	if ((fd = dup(dfd)) < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && fstatat(dfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
			n += (long long)sb.st_blocks * 512;
	closedir(d);
	return n;
}

struct held {
	const struct wrequest	*q;
	long long		 bytes;		/* held by the requester's gates */
	unsigned char		*mine;		/* q's files among them */
};

static int
held_add(void *arg, const char *sha, int64_t size)
{
	struct held *h = arg;
	size_t i;

	h->bytes += blob_cost(size);
	for (i = 0; i < h->q->nfiles; i++)
		if (strcmp(h->q->files[i].sha256, sha) == 0)
			h->mine[i] = 1;
	return 0;
}

/*
 * The blob store's lock, taken from a request's admission to the insert of
 * its gate, and by collection: two requests stored at once (by the daemon
 * and by the reviewer's own `warrant request`) are judged with each
 * other's blobs, and gc never removes a blob between its reuse and the
 * gate that names it. The locked descriptor, to close; -1 after saying
 * why.
 */
int
blobs_lock(const char *statedir)
{
	int dfd = blob_dir(statedir, 1);

	if (dfd < 0) {
		warn("%s/blobs/sha256", statedir);
		return -1;
	}
	while (flock(dfd, LOCK_EX) != 0)
		if (errno != EINTR) {
			warn("%s/blobs/sha256: lock", statedir);
			close(dfd);
			return -1;
		}
	return dfd;
}

/*
 * May q's files go into st's blob store for requester uid? Each requester
 * may hold st->blob_quota bytes of blobs through its gates (pending ones,
 * and for GC_BLOB_UNRUN_HOURS those that settled without running, so that
 * asking and withdrawing does not get round it), counted at what the
 * blobs take on disk; all blobs together may take st->blob_cap. Checked
 * before anything is written, in dfd: the store's directory as
 * blobs_lock holds it. 0; -1 with r filled; -2 after saying why.
 */
int
blobs_admit(struct store *st, int dfd, const struct wrequest *q, int64_t uid,
    struct refusal *r)
{
	long long quota = st->blob_quota > 0 ? st->blob_quota : BLOB_QUOTA_MIB * MIB;
	long long cap = st->blob_cap > 0 ? st->blob_cap : BLOB_CAP_MIB * MIB;
	long long add = 0, grow = 0, used;
	struct held h = { .q = q };
	struct stat sb;
	size_t i, j;
	int rc = -2;

	if (q->nfiles == 0)
		return 0;
	h.mine = xcalloc(q->nfiles, 1);
	if (store_blob_refs(st, uid, INT64_MAX, now_seconds() - GC_BLOB_UNRUN_HOURS * 3600LL,
	    held_add, &h) != 0)
		goto out;
	for (i = 0; i < q->nfiles; i++) {
		for (j = 0; j < i && strcmp(q->files[j].sha256, q->files[i].sha256) != 0; j++)
			;
		if (j < i)
			continue;
		if (!h.mine[i])
			add += blob_cost((int64_t)q->files[i].size);
		if (fstatat(dfd, q->files[i].sha256, &sb, AT_SYMLINK_NOFOLLOW) != 0)
			grow += blob_cost((int64_t)q->files[i].size);
	}
	used = blob_dir_use(dfd);
	if (used < 0) {
		warn("%s/blobs/sha256", st->dir);
		goto out;
	}
	rc = -1;
	if (h.bytes + add > quota)
		refuse(r, "quota_exceeded", "$.files", "your gates hold %lld MiB of files in the "
		    "reviewer's store (pending ones, and for %d hours those that did not run); "
		    "these files would add %lld MiB, over the %lld MiB one requester may hold",
		    (h.bytes + MIB - 1) / MIB, GC_BLOB_UNRUN_HOURS, (add + MIB - 1) / MIB,
		    quota / MIB);
	else if (used + grow > cap)
		refuse(r, "blob_store_full", "$.files", "the reviewer's store of reviewed files "
		    "takes %lld MiB of its %lld MiB and these files would add %lld MiB; the "
		    "reviewer frees space with `warrant gc`", (used + MIB - 1) / MIB, cap / MIB,
		    (grow + MIB - 1) / MIB);
	else
		rc = 0;
out:
	free(h.mine);
	return rc;
}

struct keep {
	char	(*sha)[SHA256_HEX_LEN + 1];
	size_t	 n, cap;
};

static int
keep_add(void *arg, const char *sha, int64_t size)
{
	struct keep *k = arg;

	(void)size;
	if (strlen(sha) != SHA256_HEX_LEN)
		return 0;
	if (k->n == k->cap) {
		void *w;

		k->cap = k->cap ? k->cap * 2 : 64;
		if ((w = reallocarray(k->sha, k->cap, sizeof *k->sha)) == NULL)
			err(EXIT_INTERNAL, "out of memory");
		k->sha = w;
	}
	memcpy(k->sha[k->n++], sha, SHA256_HEX_LEN + 1);
	return 0;
}

static int
by_sha(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * warrant gc: remove the blobs no gate holds any more (store_blob_refs
 * with ran_since and unrun_since) and temporary files left by a crash,
 * none written or reused in the last BLOB_GRACE_SECONDS, under the blob
 * store's lock (a request being stored writes its blobs before its gate
 * and holds the lock until then). A blob still linked into a
 * run directory frees its space with that directory. The report:
 * {"count", "removed", "freed_bytes", "kept_bytes"}; NULL after saying why.
 */
json_t *
blobs_collect(struct store *st, int64_t ran_since, int64_t unrun_since, int dry)
{
	long long freed = 0, kept = 0, count = 0, removed = 0;
	int64_t young = now_seconds() - BLOB_GRACE_SECONDS;
	struct keep k = { 0 };
	struct dirent *e;
	struct stat sb, bb;
	int dfd, fd, failed = 0;
	DIR *d;

	if ((dfd = blob_dir(st->dir, 0)) < 0) {
		if (errno == ENOENT)
			return json_pack("{s:i,s:i,s:i,s:i}", "count", 0, "removed", 0,
			    "freed_bytes", 0, "kept_bytes", 0);
		warn("%s/blobs/sha256", st->dir);
		return NULL;
	}
	while (flock(dfd, LOCK_EX) != 0)
		if (errno != EINTR) {
			warn("%s/blobs/sha256: lock", st->dir);
			close(dfd);
			return NULL;
		}
	if (store_blob_refs(st, -1, ran_since, unrun_since, keep_add, &k) != 0) {
		close(dfd);
		free(k.sha);
		return NULL;
	}
	if (k.n > 0)
		qsort(k.sha, k.n, sizeof *k.sha, by_sha);
	if ((fd = dup(dfd)) < 0 || (d = fdopendir(fd)) == NULL) {
		warn("%s/blobs/sha256", st->dir);
		if (fd >= 0)
			close(fd);
		close(dfd);
		free(k.sha);
		return NULL;
	}
	while ((e = readdir(d)) != NULL) {
		int blob = blob_name(e->d_name), summary = summary_name(e->d_name);
		char sha[SHA256_HEX_LEN + 1];

		if ((!blob && !summary && strncmp(e->d_name, ".tmp-", 5) != 0) ||
		    fstatat(dfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
			continue;
		count += blob;
		/* a summary goes with its blob: as young as it, and kept with it */
		snprintf(sha, sizeof sha, "%.*s", SHA256_HEX_LEN, e->d_name);
		if (summary && fstatat(dfd, sha, &bb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    bb.st_mtime > sb.st_mtime)
			sb.st_mtime = bb.st_mtime;
		if (sb.st_mtime > young || ((blob || summary) && k.n > 0 &&
		    bsearch(sha, k.sha, k.n, sizeof *k.sha, by_sha) != NULL)) {
			kept += (long long)sb.st_blocks * 512;
			continue;
		}
		if (!dry && unlinkat(dfd, e->d_name, 0) != 0) {
			warn("%s/blobs/sha256/%s", st->dir, e->d_name);
			failed = 1;
			continue;
		}
		removed += blob;
		if (sb.st_nlink == 1)
			freed += (long long)sb.st_blocks * 512;
	}
	closedir(d);
	close(dfd);
	free(k.sha);
	if (failed)
		return NULL;
	return json_pack("{s:I,s:I,s:I,s:I}", "count", (json_int_t)count, "removed",
	    (json_int_t)removed, "freed_bytes", (json_int_t)freed, "kept_bytes",
	    (json_int_t)kept);
}

/* The blob of sha (size bytes), opened read-only, never through a
 * symlink, a regular file of that size; or -1. Its content is not
 * hashed here. */
int
blob_open(const char *statedir, const char *sha, uint64_t size)
{
	struct stat st;
	int dfd, fd;

	if ((dfd = blob_dir(statedir, 0)) < 0)
		return -1;
	fd = openat(dfd, sha, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size != size)) {
		close(fd);
		errno = EINVAL;
		fd = -1;
	}
	return fd;
}

/*
 * Put the blob of sha into the run directory rundfd as blob-HEX, where
 * the executor reads it from: a hard link (the same file, no copy), after
 * checking that it still hashes to sha. 0; -1 with the reason in why.
 */
int
blob_link(const char *statedir, const char *sha, uint64_t size, int rundfd, char *why,
    size_t whysize)
{
	char name[SHA256_HEX_LEN + 8], hex[SHA256_HEX_LEN + 1];
	int dfd, fd, rc = -1;

	snprintf(name, sizeof name, RUN_BLOB, sha);
	if ((fd = blob_open(statedir, sha, size)) < 0) {
		snprintf(why, whysize, "its content is missing from the store (%s/blobs/sha256/%s)",
		    statedir, sha);
		return -1;
	}
	if (sha256_fd(fd, hex) != 0 || !digest_equal(hex, sha)) {
		close(fd);
		snprintf(why, whysize, "its content in the store no longer hashes to its seal "
		    "(%s/blobs/sha256/%s was changed)", statedir, sha);
		return -1;
	}
	close(fd);
	if ((dfd = blob_dir(statedir, 0)) < 0) {
		snprintf(why, whysize, "the blob store cannot be opened: %s", strerror(errno));
		return -1;
	}
	if (linkat(dfd, sha, rundfd, name, 0) == 0 || errno == EEXIST)
		rc = 0;
	else
		snprintf(why, whysize, "its content cannot be linked into the run directory: %s",
		    strerror(errno));
	close(dfd);
	return rc;
}

/*
 * A file of a manifest (its "sha256" and "size") as text to show: the
 * first max bytes of its content when the whole blob hashes to its seal
 * and is text (valid UTF-8 without NUL), NULL otherwise, with *what
 * saying why ("binary", "missing", "changed").
 */
char *
blob_text(const char *statedir, const json_t *file, size_t max, const char **what)
{
	const char *sha = json_string_value(json_object_get(file, "sha256"));
	uint64_t size = (uint64_t)json_integer_value(json_object_get(file, "size"));
	char *buf;
	size_t len = 0, i, k;
	unsigned cp;
	ssize_t n;
	int fd;

	*what = "missing";
	if (sha == NULL || statedir == NULL || (fd = blob_open(statedir, sha, size)) < 0)
		return NULL;
	if (!blob_hashes_to(fd, sha)) {
		close(fd);
		*what = "changed";
		return NULL;
	}
	buf = xmalloc(size + 1);
	while (len < size && (n = pread(fd, buf + len, size - len, (off_t)len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	*what = "binary";
	for (i = 0; len == size && i < len; i += k)
		if (buf[i] == '\0' || (k = utf8_decode((unsigned char *)buf + i, len - i, &cp)) == 0)
			break;
	if (len != size || i < len) {
		free(buf);
		if (len != size)
			*what = "changed";
		return NULL;
	}
	/* cut at max, at a character boundary */
	if (len > max) {
		for (len = max; len > 0 && ((unsigned char)buf[len] & 0xc0) == 0x80; len--)
			;
	}
	buf[len] = '\0';
	*what = "text";
	return buf;
}

/*
 * The archive summary of a manifest's file (its "sha256"), as intake
 * stored it beside the blob: NULL when there is none (not an archive, a
 * gate older than summaries) or it is not one for that SHA-256.
 */
json_t *
blob_archive(const char *statedir, const json_t *file)
{
	const char *sha = json_string_value(json_object_get(file, "sha256"));
	char name[SHA256_HEX_LEN + sizeof SUMMARY_SUFFIX];
	json_t *j = NULL;
	struct stat st;
	int dfd, fd;

	if (sha == NULL || !blob_name(sha) || statedir == NULL ||
	    (dfd = blob_dir(statedir, 0)) < 0)
		return NULL;
	snprintf(name, sizeof name, "%s" SUMMARY_SUFFIX, sha);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= SUMMARY_MAX)
		j = json_loadfd(fd, JSON_REJECT_DUPLICATES, NULL);
	close(fd);
	if (j != NULL && (!json_is_object(j) ||
	    !digest_equal(json_str(j, "sha256"), sha))) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

/* Each file of a gate's "files" with a summary gets it as "archive". */
void
blob_archives(const char *statedir, json_t *files)
{
	const char *name;
	json_t *f, *a;

	json_object_foreach(files, name, f)
		if ((a = blob_archive(statedir, f)) != NULL)
			json_object_set_new(f, "archive", a);
}
