/* SPDX-License-Identifier: ISC */
/*
 * Reviewed files (docs/design.md §3 files): parsed from the request
 * (inline content, or a snapshot of a file the requester can read),
 * judged for the requester, hashed, scanned for credential shapes when
 * they are text, read for their members when they are archives
 * (archive.c), and sealed in the manifest by name, SHA-256, size and
 * mode. Their content goes to the blob store (blob.c), never into the
 * manifest. An argv element {"file": NAME} names one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

#define SCAN_CHUNK	(64 * 1024)
#define SCAN_LINE	4096

static const char *const file_keys[] = { "content", "encoding", "snapshot", "mode", NULL };

/* Strict base64 (RFC 4648 §4): the standard alphabet, padded to a
 * multiple of 4, no whitespace, no bits set after the last byte. Returns
 * the decoded length, or -1; out holds at least len / 4 * 3 bytes. */
static long
base64_decode(const char *in, size_t len, unsigned char *out)
{
	static const char alpha[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, o = 0, pad = 0;
	unsigned v[4];
	const char *p;
	int k;

	if (len % 4 != 0)
		return -1;
	if (len > 0 && in[len - 1] == '=')
		pad = len > 1 && in[len - 2] == '=' ? 2 : 1;
	for (i = 0; i < len; i += 4) {
		for (k = 0; k < 4; k++) {
			if (in[i + k] == '=' && i + 4 == len && k >= 4 - (int)pad)
				v[k] = 0;
			else if (in[i + k] != '\0' && (p = strchr(alpha, in[i + k])) != NULL)
				v[k] = (unsigned)(p - alpha);
			else
				return -1;
		}
		out[o++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (i + 4 < len || pad < 2)
			out[o++] = (unsigned char)((v[1] & 0xf) << 4 | v[2] >> 2);
		if (i + 4 < len || pad < 1)
			out[o++] = (unsigned char)((v[2] & 0x3) << 6 | v[3]);
	}
	/* canonical: what padding hides is zero */
	if ((pad == 1 && (v[2] & 0x3) != 0) || (pad == 2 && (v[1] & 0xf) != 0))
		return -1;
	return (long)o;
}

static int
get_obj_string(json_t *o, const char *key, const char *sub, const char **out,
    struct refusal *r)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (v == NULL)
		return 0;
	if (!json_is_string(v))
		return refuse(r, "invalid_field", sub, "'%s' must be a string", key);
	*out = json_string_value(v);
	return 0;
}

/* One entry of "files": its shape, and inline content decoded. */
static int
parse_one(struct wfile *f, const char *name, json_t *o, size_t *inline_total,
    struct refusal *r)
{
	const char *key, *content, *encoding, *snapshot, *mode, *const *k;
	char path[128], sub[160];
	json_t *v;
	long n;

	snprintf(path, sizeof path, "$.files.%s", name);
	f->name = name;
	f->fd = -1;
	snprintf(f->placeholder, sizeof f->placeholder, "{file:%s}", name);
	if (!id_name_ok(name))
		return refuse(r, "invalid_field", path, "file names are 1-64 letters, digits, "
		    "'.', '_' or '-', starting with a letter or digit");
	if (!json_is_object(o))
		return refuse(r, "invalid_field", path, "each file must be an object with "
		    "\"content\" or \"snapshot\"");
	json_object_foreach(o, key, v) {
		for (k = file_keys; *k != NULL && strcmp(*k, key) != 0; k++)
			;
		if (*k == NULL) {
			snprintf(sub, sizeof sub, "%s.%s", path, key);
			return refuse(r, "invalid_field", sub, "unknown field '%s'", key);
		}
	}
#define SUB(key) (snprintf(sub, sizeof sub, "%s.%s", path, key), sub)
	if (get_obj_string(o, "content", SUB("content"), &content, r) != 0 ||
	    get_obj_string(o, "encoding", SUB("encoding"), &encoding, r) != 0 ||
	    get_obj_string(o, "snapshot", SUB("snapshot"), &snapshot, r) != 0 ||
	    get_obj_string(o, "mode", SUB("mode"), &mode, r) != 0)
		return -1;
	if ((content == NULL) == (snapshot == NULL))
		return refuse(r, "invalid_field", path, "give a file either \"content\" or "
		    "\"snapshot\"");
	if (encoding != NULL && snapshot != NULL)
		return refuse(r, "invalid_field", SUB("encoding"), "'encoding' is only for "
		    "inline \"content\"");
	if (mode == NULL)
		mode = "0644";
	if (file_mode_parse(mode, &f->mode) != 0)
		return refuse(r, "invalid_field", SUB("mode"), "'mode' must be three or four "
		    "octal digits such as \"0644\" or \"0755\", without setuid, setgid or "
		    "sticky bits");
	snprintf(f->modestr, sizeof f->modestr, "%04o", (unsigned)f->mode);
	if (snapshot != NULL) {
		if (snapshot[0] != '/')
			return refuse(r, "invalid_field", SUB("snapshot"), "'snapshot' must be an "
			    "absolute path");
		if (strlen(snapshot) >= PATH_MAX)
			return refuse(r, "invalid_field", SUB("snapshot"), "'snapshot' is too long");
		f->snapshot = snapshot;
		return 0;
	}
	v = json_object_get(o, "content");
	if (encoding == NULL || strcmp(encoding, "utf-8") == 0) {
		/* a JSON string is valid UTF-8 and jansson refuses \u0000 */
		f->size = json_string_length(v);
		if (f->size > FILE_INLINE_MAX)
			return refuse(r, "invalid_field", SUB("content"), "inline content is longer "
			    "than %d bytes; give a \"snapshot\" instead", FILE_INLINE_MAX);
		f->data = xmalloc(f->size + 1);
		memcpy(f->data, content, f->size);
	} else if (strcmp(encoding, "base64") == 0) {
		if (json_string_length(v) / 4 * 3 > FILE_INLINE_MAX + 2)
			return refuse(r, "invalid_field", SUB("content"), "inline content is longer "
			    "than %d bytes; give a \"snapshot\" instead", FILE_INLINE_MAX);
		f->data = xmalloc(json_string_length(v) / 4 * 3 + 1);
		if ((n = base64_decode(content, json_string_length(v), f->data)) < 0)
			return refuse(r, "invalid_field", SUB("content"), "the content is not "
			    "strict base64 (RFC 4648: A-Z a-z 0-9 + /, '=' padding, no whitespace)");
		f->size = (uint64_t)n;
		if (f->size > FILE_INLINE_MAX)
			return refuse(r, "invalid_field", SUB("content"), "inline content is longer "
			    "than %d bytes; give a \"snapshot\" instead", FILE_INLINE_MAX);
	} else
		return refuse(r, "invalid_field", SUB("encoding"), "'encoding' must be "
		    "\"utf-8\" or \"base64\"");
#undef SUB
	*inline_total += f->size;
	if (*inline_total > FILES_INLINE_TOTAL)
		return refuse(r, "invalid_field", path, "inline files add up to more than %d "
		    "bytes; give \"snapshot\" files instead", FILES_INLINE_TOTAL);
	return 0;
}

/* The "files" object of the request (before the commands that use it). */
int
files_parse(struct wrequest *q, struct refusal *r)
{
	json_t *files = json_object_get(q->json, "files"), *o;
	size_t inline_total = 0, i = 0;
	const char *name;

	if (files == NULL)
		return 0;
	if (!json_is_object(files))
		return refuse(r, "invalid_field", "$.files", "'files' must be an object of "
		    "NAME: {\"content\" or \"snapshot\", \"mode\"}");
	if (json_object_size(files) > FILES_MAX)
		return refuse(r, "invalid_field", "$.files", "'files' has more than %d entries",
		    FILES_MAX);
	q->files = xcalloc(json_object_size(files), sizeof *q->files);
	json_object_foreach(files, name, o) {
		q->files[i].fd = -1;
		q->nfiles = ++i;
		if (parse_one(&q->files[i - 1], name, o, &inline_total, r) != 0)
			return -1;
	}
	return 0;
}

/* argv[i] of a command is {"file": NAME}: the file, or a refusal. */
struct wfile *
files_ref(struct wrequest *q, json_t *v, const char *sub, struct refusal *r)
{
	const char *name = json_string_value(json_object_get(v, "file"));
	char at[192];
	size_t i;

	if (json_object_size(v) != 1 || name == NULL) {
		refuse(r, "invalid_field", sub, "an argv entry is a string or {\"file\": NAME}");
		return NULL;
	}
	for (i = 0; i < q->nfiles; i++)
		if (strcmp(q->files[i].name, name) == 0) {
			q->files[i].used = 1;
			return &q->files[i];
		}
	snprintf(at, sizeof at, "%s.file", sub);
	refuse(r, "invalid_field", at, "no file '%s' in \"files\"", name);
	return NULL;
}

/* Every file is used by some command (after the commands are parsed). */
int
files_all_used(const struct wrequest *q, struct refusal *r)
{
	char path[128];
	size_t i;

	for (i = 0; i < q->nfiles; i++)
		if (!q->files[i].used) {
			snprintf(path, sizeof path, "$.files.%s", q->files[i].name);
			return refuse(r, "invalid_field", path, "file '%s' is not used by any "
			    "command; pass it as {\"file\": \"%s\"} in an argv, or leave it out",
			    q->files[i].name, q->files[i].name);
		}
	return 0;
}

void
files_free(struct wrequest *q)
{
	size_t i;

	for (i = 0; i < q->nfiles; i++) {
		free(q->files[i].data);
		json_decref(q->files[i].archive);
		if (q->files[i].fd >= 0)
			close(q->files[i].fd);
	}
	free(q->files);
	q->files = NULL;
	q->nfiles = 0;
}

/* --- Judging content: text or binary, and credential shapes in text --- */

struct scan {
	int		 binary;	/* not valid UTF-8, or a NUL */
	unsigned char	 carry[4];	/* a UTF-8 sequence cut by a chunk */
	size_t		 ncarry;
	char		 line[SCAN_LINE + 1];
	size_t		 linelen;
	unsigned long	 lineno;
	const char	*shape;		/* the first credential shape met */
	unsigned long	 shape_line;
};

static void
scan_line(struct scan *s)
{
	const char *shape;

	s->line[s->linelen] = '\0';
	if (s->shape == NULL && s->linelen > 0 && (shape = credential_shape(s->line)) != NULL) {
		s->shape = shape;
		s->shape_line = s->lineno + 1;
	}
	s->linelen = 0;
}

static void
scan_feed(struct scan *s, const unsigned char *p, size_t n, int last)
{
	unsigned char buf[SCAN_CHUNK + 4];
	size_t len, i, k;
	unsigned cp;

	if (s->binary)
		return;
	while (n > 0 || (last && s->ncarry > 0)) {
		k = n < SCAN_CHUNK ? n : SCAN_CHUNK;
		memcpy(buf, s->carry, s->ncarry);
		memcpy(buf + s->ncarry, p, k);
		len = s->ncarry + k;
		s->ncarry = 0;
		p += k;
		n -= k;
		for (i = 0; i < len; i += k) {
			if (buf[i] == 0) {
				s->binary = 1;
				return;
			}
			if ((k = utf8_decode(buf + i, len - i, &cp)) == 0) {
				/* cut short by the chunk, or invalid */
				if (len - i < 4 && !(last && n == 0)) {
					memcpy(s->carry, buf + i, len - i);
					s->ncarry = len - i;
					break;
				}
				s->binary = 1;
				return;
			}
			if (s->linelen + k > SCAN_LINE)
				scan_line(s);
			if (buf[i] == '\n') {
				scan_line(s);
				s->lineno++;
				continue;
			}
			memcpy(s->line + s->linelen, buf + i, k);
			s->linelen += k;
		}
		if (last && n == 0 && s->ncarry == 0)
			break;
	}
	if (last)
		scan_line(s);
}

/* --- Snapshots: a regular file the requester can read -------------------- */

/*
 * Open the snapshot path for requester p: looked up as p could
 * (reach_path: a path through a directory closed to p is as missing as
 * one that is not there), its last entry not followed, a regular file p
 * may read. The real path goes to source.
 */
static int
snapshot_open(const struct wfile *f, const struct requester *p, char *source,
    struct stat *st, struct refusal *r, const char *sub)
{
	int fd;

	if ((fd = reach_path(p, f->snapshot, 0, source)) < 0)
		return refuse(r, "invalid_field", sub, "'%s' cannot be resolved: %s", f->snapshot,
		    strerror(errno));
	/* a device is never opened, a FIFO never waited for */
	if (fstat(fd, st) != 0)
		st->st_mode = 0;
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return refuse(r, "invalid_field", sub, "'%s' is %s, not a regular file",
		    f->snapshot, S_ISLNK(st->st_mode) ? "a symbolic link" :
		    S_ISDIR(st->st_mode) ? "a directory" : S_ISFIFO(st->st_mode) ? "a FIFO" :
		    "a device or socket");
	}
	if ((fd = reopen_regular(fd, st)) >= 0 && !requester_may(p, fd, S_IROTH)) {
		close(fd);
		errno = EACCES;
		fd = -1;
	}
	if (fd < 0)
		return refuse(r, "invalid_field", sub, "'%s' cannot be read by the requester: %s",
		    f->snapshot, strerror(errno));
	return fd;
}

static int
scan_sink(void *arg, const void *p, size_t n)
{
	scan_feed(arg, p, n, 0);
	return 0;
}

/* Hash and scan fd from its start; the byte count in f->size (more than
 * FILE_SNAPSHOT_MAX is refused by the caller). */
static int
snapshot_read(int fd, struct wfile *f, struct scan *s)
{
	int rc = sha256_stream(fd, FILE_SNAPSHOT_MAX, scan_sink, s, f->sha256, &f->size);

	if (rc == 0)
		scan_feed(s, NULL, 0, 1);
	return rc < 0 ? -1 : 0;
}

/* A snapshot's content read again, whole, for archive_scan: NULL unless
 * it is what was hashed (the requester may change the file meanwhile). */
static unsigned char *
snapshot_again(const struct wfile *f)
{
	unsigned char *buf = xmalloc(f->size + 1);
	char hex[SHA256_HEX_LEN + 1];
	uint64_t len = 0;
	ssize_t n;

	/* one byte more than sealed: a file that grew is seen */
	while (len <= f->size && (n = pread(f->fd, buf + len, f->size + 1 - len,
	    (off_t)len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (uint64_t)n;
	}
	if (len == f->size) {
		sha256_bytes(buf, len, hex);
		if (digest_equal(hex, f->sha256))
			return buf;
	}
	free(buf);
	return NULL;
}

/*
 * Every file: a snapshot opened for p (kept open: its content is copied
 * from that descriptor when the gate is stored) and at most
 * FILE_SNAPSHOT_MAX bytes; each hashed, and when it is text, refused if a
 * line has a credential shape; when it is not, read as an archive.
 */
int
files_judge(struct wrequest *q, const struct requester *p, struct refusal *r)
{
	int64_t budget = ARCHIVE_BYTES_MAX;
	unsigned char *again;
	long long total = 0;
	struct stat st;
	char sub[160];
	size_t i;

	for (i = 0; i < q->nfiles; i++) {
		struct wfile *f = &q->files[i];
		struct scan *s = xcalloc(1, sizeof *s);

		snprintf(sub, sizeof sub, "$.files.%s.%s", f->name, f->snapshot ? "snapshot" :
		    "content");
		if (f->snapshot != NULL) {
			if ((f->fd = snapshot_open(f, p, f->source, &st, r, sub)) < 0) {
				free(s);
				return -1;
			}
			/* too big as it stands: refused before it is read */
			if (st.st_size > FILE_SNAPSHOT_MAX) {
				free(s);
				return refuse(r, "invalid_field", sub, "'%s' is larger than %lld "
				    "bytes", f->snapshot, (long long)FILE_SNAPSHOT_MAX);
			}
			if (total + (long long)st.st_size > FILES_TOTAL_MAX) {
				free(s);
				return refuse(r, "invalid_field", "$.files", "the files add up to "
				    "more than %lld bytes", (long long)FILES_TOTAL_MAX);
			}
			if (snapshot_read(f->fd, f, s) != 0) {
				free(s);
				return refuse(r, "invalid_field", sub, "'%s' cannot be read: %s",
				    f->snapshot, strerror(errno));
			}
			if (f->size > FILE_SNAPSHOT_MAX) {
				free(s);
				return refuse(r, "invalid_field", sub, "'%s' is larger than %lld "
				    "bytes", f->snapshot, (long long)FILE_SNAPSHOT_MAX);
			}
		} else {
			sha256_bytes(f->data, f->size, f->sha256);
			scan_feed(s, f->data, f->size, 1);
		}
		f->text = !s->binary;
		if (!f->text && f->snapshot == NULL)
			archive_scan(f, f->data, f->size, &budget);
		else if (!f->text) {
			if ((again = snapshot_again(f)) == NULL) {
				free(s);
				return refuse(r, "invalid_field", sub, "'%s' changed while it was "
				    "being checked; ask again once it no longer changes",
				    f->snapshot);
			}
			archive_scan(f, again, f->size, &budget);
			free(again);
		}
		if (f->text && s->shape != NULL) {
			refuse(r, "credential_field_rejected", sub, "line %lu of file '%s' has a "
			    "credential shape (%s); never pass credentials", s->shape_line,
			    f->name, s->shape);
			free(s);
			return -1;
		}
		free(s);
		total += (long long)f->size;
		if (total > FILES_TOTAL_MAX)
			return refuse(r, "invalid_field", "$.files", "the files add up to more than "
			    "%lld bytes", (long long)FILES_TOTAL_MAX);
	}
	return 0;
}

/*
 * A file a ROOT command hands over is judged by the denylists by identity
 * (a copy of bash is still bash, whatever it is called): refused at its
 * argv element.
 */
int
files_deny(struct denylist *d, const struct wcommand *c, const char *path,
    struct refusal *r)
{
	enum deny_kind k;
	char sub[96];
	size_t i;

	for (i = 1; i < c->argc; i++) {
		if (c->file[i] == NULL)
			continue;
		k = deny_content(d, (off_t)c->file[i]->size, c->file[i]->sha256);
		if (k == DENY_NONE)
			continue;
		snprintf(sub, sizeof sub, "%s.argv[%zu]", path, i);
		return refuse(r, deny_code(k), sub, "file '%s' is a copy of a %s and cannot be "
		    "handed to a ROOT command", c->file[i]->name, k == DENY_NESTED ?
		    "privilege tool" : "shell, interactive program or the dynamic loader");
	}
	return 0;
}

/* The manifest's "files": NAME -> {mode, sha256, size, source}. */
json_t *
files_manifest(const struct wrequest *q)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < q->nfiles; i++) {
		const struct wfile *f = &q->files[i];

		json_object_set_new(o, f->name, json_pack("{s:s,s:s,s:I,s:o}",
		    "mode", f->modestr, "sha256", f->sha256, "size", (json_int_t)f->size,
		    "source", f->snapshot ? json_string(f->source) : json_null()));
	}
	return o;
}
