/* SPDX-License-Identifier: ISC */
/*
 * A reviewed file that is an archive, read for what extracting it would
 * make: tar (plain or compressed with gzip, bzip2, xz, lzma or zstd), zip,
 * ar, and a Debian package's data.tar. Read with libarchive from the
 * sealed bytes, in the unprivileged intake only (the runner never links
 * it), within bounds: ARCHIVE_ENTRIES_MAX members, ARCHIVE_BYTES_MAX
 * bytes decompressed for a whole request, ARCHIVE_LIST_MAX members listed
 * (the flagged ones first). What it finds is a summary (JSON) shown on
 * every review surface, and facts on the file for the risk badges. The
 * summary is derived from content the manifest seals by SHA-256, so it is
 * kept beside the blob (blob.c), not in the manifest.
 */
#include <archive.h>
#include <archive_entry.h>
#include <err.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warrant.h"

/* What a member is flagged for, in the order the summary names them. */
enum flag {
	FLAG_SETUID, FLAG_SETGID, FLAG_DEVICE, FLAG_ABSOLUTE, FLAG_DOTDOT,
	FLAG_LINK_OUT, FLAG_WORLD_WRITABLE, NFLAGS
};
static const char *const flag_names[NFLAGS] = {
	"setuid", "setgid", "device", "absolute", "dotdot", "link-out", "world-writable"
};
/* "1 setuid, 2 absolute paths": singular and plural */
static const char *const flag_counted[NFLAGS][2] = {
	{ "setuid", "setuid" }, { "setgid", "setgid" }, { "device", "devices" },
	{ "absolute path", "absolute paths" }, { "path with ..", "paths with .." },
	{ "link out", "links out" }, { "world-writable", "world-writable" }
};

struct scan {
	struct wfile	*f;
	struct archive	*outer, *inner;	/* inner: a package's data.tar */
	json_t		*flagged, *others;
	long long	 members, bytes, counts[NFLAGS];
	int64_t		 zip_data;	/* a zip's members, decompressed */
	int64_t		 left;		/* of the request's budget */
	char		 note[256];	/* why it is not fully scanned */
};

/* A string from an archive for JSON: invalid UTF-8 escaped, at most
 * ARCHIVE_STRING_MAX bytes of it (its flags are judged on all of it). */
static json_t *
member_string(const char *s)
{
	size_t n = strlen(s);
	json_t *j;
	char *t;

	t = text_json_safe(s, n > ARCHIVE_STRING_MAX ? ARCHIVE_STRING_MAX : n);
	j = n > ARCHIVE_STRING_MAX ? json_sprintf("%s...", t) : json_string(t);
	free(t);
	return j;
}

/*
 * How deep a path leads below the archive's root, name by name from depth
 * ("." and empty names stay, ".." goes up): -1 once it has left the root.
 */
static int
path_depth(const char *p, int depth)
{
	const char *e;
	size_t n;

	for (; *p != '\0' && depth >= 0; p = *e == '\0' ? e : e + 1) {
		e = strchrnul(p, '/');
		n = (size_t)(e - p);
		if (n == 2 && p[0] == '.' && p[1] == '.')
			depth--;
		else if (n > 0 && !(n == 1 && p[0] == '.'))
			depth++;
	}
	return depth < 0 ? -1 : depth;
}

static int
has_dotdot(const char *p)
{
	const char *e;

	for (; ; p = e + 1) {
		e = strchrnul(p, '/');
		if (e - p == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		if (*e == '\0')
			return 0;
	}
}

/* Does a link lead out of the archive? A symbolic link's target is found
 * from the link's directory, a hard link's from the root. */
static int
link_out(const char *path, const char *target, int symbolic)
{
	int depth = 0;
	const char *slash;

	if (target[0] == '/')
		return 1;
	if (symbolic && (slash = strrchr(path, '/')) != NULL) {
		char *dir = strndup(path, (size_t)(slash - path));

		if (dir == NULL)
			abort();
		depth = path_depth(dir, 0);
		free(dir);
	}
	return depth < 0 || path_depth(target, depth) < 0;
}

static const char *
type_name(mode_t type, int hardlink)
{
	if (hardlink)
		return "hardlink";
	switch (type) {
	case AE_IFREG:	return "file";
	case AE_IFDIR:	return "dir";
	case AE_IFLNK:	return "symlink";
	case AE_IFCHR:	return "char";
	case AE_IFBLK:	return "block";
	case AE_IFIFO:	return "fifo";
	case AE_IFSOCK:	return "socket";
	default:	return "unknown";
	}
}

static void
incomplete(struct scan *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
incomplete(struct scan *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->note, sizeof s->note, fmt, ap);
	va_end(ap);
}

/* One member: counted, flagged, and listed while there is room (a flagged
 * member takes the place of the last unflagged one listed). */
static void
member(struct scan *s, struct archive_entry *e)
{
	const char *path = archive_entry_pathname(e), *sym = archive_entry_symlink(e);
	const char *hard = archive_entry_hardlink(e), *target = hard != NULL ? hard : sym;
	mode_t type = archive_entry_filetype(e), mode = archive_entry_perm(e);
	int flags[NFLAGS] = { 0 }, any = 0, i;
	json_t *m, *fl;

	if (path == NULL)
		path = "";
	s->members++;
	if (archive_entry_size_is_set(e) && type == AE_IFREG && hard == NULL)
		s->bytes += archive_entry_size(e);
	if (type != AE_IFLNK) {
		flags[FLAG_SETUID] = (mode & 04000) != 0;
		flags[FLAG_SETGID] = (mode & 02000) != 0;
		/* a group that may write a directory root makes is no better */
		flags[FLAG_WORLD_WRITABLE] = (mode & 002) != 0 ||
		    (type == AE_IFDIR && (mode & 020) != 0);
	}
	flags[FLAG_DEVICE] = type == AE_IFCHR || type == AE_IFBLK || type == AE_IFIFO;
	flags[FLAG_ABSOLUTE] = path[0] == '/';
	flags[FLAG_DOTDOT] = has_dotdot(path);
	flags[FLAG_LINK_OUT] = target != NULL && link_out(path, target, hard == NULL);
	if (type != AE_IFDIR && type != AE_IFLNK && (mode & 06000) != 0)
		s->f->archive_setid = 1;
	if (type == AE_IFDIR && (mode & 022) != 0)
		s->f->archive_writable_dir = 1;
	s->f->archive_device |= flags[FLAG_DEVICE];
	s->f->archive_escape |= flags[FLAG_ABSOLUTE] | flags[FLAG_DOTDOT] |
	    flags[FLAG_LINK_OUT];
	fl = json_array();
	for (i = 0; i < NFLAGS; i++)
		if (flags[i]) {
			s->counts[i]++;
			json_array_append_new(fl, json_string(flag_names[i]));
			any = 1;
		}
	if (json_array_size(s->flagged) + json_array_size(s->others) >= ARCHIVE_LIST_MAX) {
		if (!any || json_array_size(s->others) == 0) {
			json_decref(fl);
			return;
		}
		json_array_remove(s->others, json_array_size(s->others) - 1);
	}
	m = json_pack("{s:o,s:s,s:o,s:I,s:I,s:I,s:o}", "path", member_string(path),
	    "type", type_name(type, hard != NULL), "mode", json_sprintf("%04o", (unsigned)mode),
	    "uid", (json_int_t)archive_entry_uid(e), "gid", (json_int_t)archive_entry_gid(e),
	    "size", (json_int_t)(archive_entry_size_is_set(e) ? archive_entry_size(e) : 0),
	    "flags", fl);
	if (archive_entry_uname(e) != NULL)
		json_object_set_new(m, "user", member_string(archive_entry_uname(e)));
	if (archive_entry_gname(e) != NULL)
		json_object_set_new(m, "group", member_string(archive_entry_gname(e)));
	if (target != NULL)
		json_object_set_new(m, "target", member_string(target));
	json_array_append_new(any ? s->flagged : s->others, m);
}

/* Decompressed bytes read so far: each reader's stream, and a zip's
 * members, which it compresses one by one. */
static int64_t
used(const struct scan *s)
{
	int64_t n = archive_filter_bytes(s->outer, 0) + s->zip_data;

	if (s->inner != NULL)
		n += archive_filter_bytes(s->inner, 0);
	return n;
}

/* Read the current member's content, to get past it within the budget:
 * 0 at its end, -1 when scanning stops (the note says why). */
static int
skip_data(struct scan *s, struct archive *a)
{
	const void *p;
	size_t n;
	la_int64_t off;
	int r;

	while ((r = archive_read_data_block(a, &p, &n, &off)) == ARCHIVE_OK ||
	    r == ARCHIVE_WARN) {
		if ((archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP)
			s->zip_data += (int64_t)n;
		if (used(s) > s->left) {
			incomplete(s, "stopped after %lld MiB decompressed (the bound for a "
			    "request's archives)", (long long)(ARCHIVE_BYTES_MAX >> 20));
			return -1;
		}
	}
	if (r != ARCHIVE_EOF) {
		incomplete(s, "unreadable after %lld members: %s", s->members,
		    archive_error_string(a) ? archive_error_string(a) : "read error");
		return -1;
	}
	return 0;
}

/* The readers for what a reviewed file may be: built-in decompressors
 * only (libarchive would run an external program for one it lacks). */
static struct archive *
reader(int package_data)
{
	struct archive *a = archive_read_new();

	if (a == NULL)
		return NULL;
	if (archive_read_support_filter_gzip(a) != ARCHIVE_OK ||
	    archive_read_support_filter_bzip2(a) != ARCHIVE_OK ||
	    archive_read_support_filter_xz(a) != ARCHIVE_OK ||
	    archive_read_support_filter_lzma(a) != ARCHIVE_OK ||
	    archive_read_support_filter_zstd(a) != ARCHIVE_OK ||
	    archive_read_support_format_tar(a) != ARCHIVE_OK ||
	    (!package_data && (archive_read_support_format_zip(a) != ARCHIVE_OK ||
	    archive_read_support_format_ar(a) != ARCHIVE_OK))) {
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/* "tar.gz": the format, then the filters from the innermost out. */
static json_t *
format_name(struct archive *a)
{
	int base = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK, i;
	char name[64];
	size_t n;

	n = (size_t)snprintf(name, sizeof name, "%s", base == ARCHIVE_FORMAT_ZIP ? "zip" :
	    base == ARCHIVE_FORMAT_AR ? "ar" : base == ARCHIVE_FORMAT_TAR ? "tar" :
	    "compressed");
	for (i = 0; i < archive_filter_count(a) && n < sizeof name; i++) {
		int code = archive_filter_code(a, i);

		if (code == ARCHIVE_FILTER_NONE)
			continue;
		n += (size_t)snprintf(name + n, sizeof name - n, ".%s",
		    code == ARCHIVE_FILTER_GZIP ? "gz" : code == ARCHIVE_FILTER_BZIP2 ? "bz2" :
		    code == ARCHIVE_FILTER_XZ ? "xz" : code == ARCHIVE_FILTER_LZMA ? "lzma" :
		    code == ARCHIVE_FILTER_ZSTD ? "zst" : archive_filter_name(a, i));
	}
	return json_string(name);
}

/* A package's data.tar, read from the outer reader's member. */
static la_ssize_t
package_read(struct archive *inner, void *arg, const void **buf)
{
	struct scan *s = arg;
	la_int64_t off;
	size_t n;
	int r;

	r = archive_read_data_block(s->outer, buf, &n, &off);
	if (r == ARCHIVE_EOF)
		return 0;
	if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
		archive_set_error(inner, EIO, "%s",
		    archive_error_string(s->outer) ? archive_error_string(s->outer) : "read error");
		return -1;
	}
	return (la_ssize_t)n;
}

/* Every member of a, until its end, a bound or an error (the note). */
static void
members(struct scan *s, struct archive *a)
{
	struct archive_entry *e;
	int r;

	for (;;) {
		if (s->members >= ARCHIVE_ENTRIES_MAX) {
			incomplete(s, "stopped after %d members", ARCHIVE_ENTRIES_MAX);
			return;
		}
		r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			return;
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			incomplete(s, "unreadable after %lld members: %s", s->members,
			    archive_error_string(a) ? archive_error_string(a) : "read error");
			return;
		}
		member(s, e);
		if (skip_data(s, a) != 0)
			return;
	}
}

/* A Debian package (an ar archive whose first member is debian-binary):
 * its data.tar's members, which dpkg unpacks; "deb (data.tar.xz)". */
static json_t *
package(struct scan *s)
{
	struct archive_entry *e;
	const char *name;
	json_t *format = NULL;
	int r = ARCHIVE_OK;

	/* each member before data.tar is read past within the budget: the
	 * ar archive itself may be compressed */
	while (skip_data(s, s->outer) == 0 &&
	    ((r = archive_read_next_header(s->outer, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN)) {
		name = archive_entry_pathname(e);
		if (name == NULL || strncmp(name, "data.tar", 8) != 0)
			continue;
		if ((s->inner = reader(1)) == NULL) {
			incomplete(s, "unscannable: this libarchive has no built-in decompressor "
			    "for one of the formats");
			return json_string("deb");
		}
		if (archive_read_open(s->inner, s, NULL, package_read, NULL) != ARCHIVE_OK) {
			incomplete(s, "its %s is unreadable: %s", name,
			    archive_error_string(s->inner) ? archive_error_string(s->inner) : "");
			format = json_string("deb");
		} else {
			members(s, s->inner);
			format = json_sprintf("deb (%s)", name);
			s->left -= archive_filter_bytes(s->inner, 0);
		}
		archive_read_free(s->inner);
		s->inner = NULL;
		return format;
	}
	if (s->note[0] != '\0')
		return json_string("deb");	/* skip_data said why */
	if (r != ARCHIVE_EOF)
		incomplete(s, "unreadable: %s", archive_error_string(s->outer) ?
		    archive_error_string(s->outer) : "read error");
	else
		incomplete(s, "it has no data.tar member");
	return json_string("deb");
}

/*
 * Read f's content (len bytes at data) as an archive. When it is one,
 * f->archive gets the summary:
 *   {"format", "members", "bytes", "complete", "note" (when not complete),
 *    "counts": {FLAG: N}, "flagged": [MEMBER], "others": [MEMBER],
 *    "unlisted": N}
 * where a MEMBER is {"path", "type", "mode", "uid", "gid", "user",
 * "group", "size", "target", "flags"}, and f's archive facts are set.
 * Nothing when it is not an archive. *budget (bytes) is what the
 * request's archives may still decompress; it is lessened.
 */
void
archive_scan(struct wfile *f, const void *data, size_t len, int64_t *budget)
{
	struct scan s = { .f = f, .left = *budget };
	struct archive_entry *e;
	json_t *format, *counts;
	int r, i;

	if ((s.outer = reader(0)) == NULL) {
		warnx("libarchive has no built-in decompressor for one of the formats: "
		    "reviewed archives are shown as binary");
		return;
	}
	s.flagged = json_array();
	s.others = json_array();
	/* libarchive knows its formats by their first bytes, as it opens */
	if (archive_read_open_memory(s.outer, data, len) != ARCHIVE_OK) {
		/* EILSEQ: no format it knows; else a decompressor failed */
		if (archive_errno(s.outer) == EILSEQ) {
			json_decref(s.flagged);
			json_decref(s.others);
			archive_read_free(s.outer);
			return;
		}
		format = json_string("unknown");
		incomplete(&s, "unscannable: %s", archive_error_string(s.outer) ?
		    archive_error_string(s.outer) : "read error");
	} else if ((r = archive_read_next_header(s.outer, &e)) != ARCHIVE_OK &&
	    r != ARCHIVE_WARN) {
		format = format_name(s.outer);
		if (r != ARCHIVE_EOF)
			incomplete(&s, "unscannable: %s", archive_error_string(s.outer) ?
			    archive_error_string(s.outer) : "read error");
	} else if ((archive_format(s.outer) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_AR &&
	    strcmp(archive_entry_pathname(e) ? archive_entry_pathname(e) : "",
	    "debian-binary") == 0)
		format = package(&s);
	else {
		format = format_name(s.outer);
		member(&s, e);
		if (skip_data(&s, s.outer) == 0)
			members(&s, s.outer);
	}
	if (s.note[0] != '\0')
		f->archive_unscanned = 1;
	counts = json_object();
	for (i = 0; i < NFLAGS; i++)
		if (s.counts[i] > 0)
			json_object_set_new(counts, flag_names[i], json_integer(s.counts[i]));
	f->archive = json_pack("{s:o,s:I,s:I,s:b,s:o,s:o,s:o,s:I}", "format", format,
	    "members", (json_int_t)s.members, "bytes", (json_int_t)s.bytes,
	    "complete", s.note[0] == '\0', "counts", counts, "flagged", s.flagged,
	    "others", s.others, "unlisted", (json_int_t)(s.members -
	    (long long)json_array_size(s.flagged) - (long long)json_array_size(s.others)));
	if (s.note[0] != '\0')
		json_object_set_new(f->archive, "note", member_string(s.note));
	/* a reader that never opened has read nothing (-1) */
	if (used(&s) > 0)
		s.left -= used(&s);
	*budget = s.left > 0 ? s.left : 0;
	archive_read_free(s.outer);
}

/* --- The summary as text, for every surface ------------------------------ */

/* "1.5 MiB", "812 bytes" */
static void
human_size(long long n, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = -1;

	if (n < 1024) {
		snprintf(buf, size, "%lld byte%s", n, n == 1 ? "" : "s");
		return;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", v, units[u]);
}

/* "-rwsr-xr-x", as ls shows a member */
static void
mode_string(const json_t *m, char out[11])
{
	static const char *const types[] = { "file", "dir", "symlink", "hardlink", "char",
		"block", "fifo", "socket" };
	const char *type = json_str(m, "type");
	unsigned long mode = strtoul(json_str(m, "mode"), NULL, 8);
	size_t i;

	out[0] = '?';
	for (i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strcmp(type, types[i]) == 0)
			out[0] = "-dlhcbps"[i];
	for (i = 0; i < 9; i++)
		out[1 + i] = mode & (0400 >> i) ? "rwxrwxrwx"[i] : '-';
	if (mode & 04000)
		out[3] = out[3] == 'x' ? 's' : 'S';
	if (mode & 02000)
		out[6] = out[6] == 'x' ? 's' : 'S';
	if (mode & 01000)
		out[9] = out[9] == 'x' ? 't' : 'T';
	out[10] = '\0';
}

/* An owner as tar restores it as root: by name when the archive has one
 * (the number in brackets), else by number. */
static void
owner(const json_t *m, const char *name, const char *id, char *buf, size_t size)
{
	long long n = (long long)json_integer_value(json_object_get(m, id));

	if (json_is_string(json_object_get(m, name)))
		snprintf(buf, size, "%s(%lld)", json_str(m, name), n);
	else
		snprintf(buf, size, "%lld", n);
}

/* One member: "[setuid] -rwsr-xr-x root(0):root(0) 16.0 KiB usr/bin/x -> y" */
static char *
member_line(const json_t *m)
{
	char mode[11], size[32], flags[128] = "", user[ARCHIVE_STRING_MAX + 32];
	char group[ARCHIVE_STRING_MAX + 32], *line;
	const char *link = "";
	const json_t *fl;
	size_t i, n = 0;

	json_array_foreach(json_object_get(m, "flags"), i, fl)
		n += (size_t)snprintf(flags + n, n < sizeof flags ? sizeof flags - n : 0,
		    "%s%s", i ? " " : "[", json_string_value(fl));
	if (n > 0 && n < sizeof flags - 2)
		strcat(flags, "] ");
	mode_string(m, mode);
	human_size((long long)json_integer_value(json_object_get(m, "size")), size, sizeof size);
	owner(m, "user", "uid", user, sizeof user);
	owner(m, "group", "gid", group, sizeof group);
	if (json_is_string(json_object_get(m, "target")))
		link = strcmp(json_str(m, "type"), "hardlink") == 0 ? " link to " : " -> ";
	if (asprintf(&line, "%s%s %s:%s %s %s%s%s", flags, mode, user, group, size,
	    json_str(m, "path"), link, json_str(m, "target")) < 0)
		abort();
	return line;
}

/*
 * The summary a (archive_scan's) as lines: put(arg, alert, line) for
 * each, alert set when something is flagged or it was not fully read.
 * First "archive (tar.gz): 12 members, 3.4 MiB; 1 setuid, 1 absolute
 * path", then every flagged member listed, and with details the others
 * too. A line holds member names as they are: put must neutralise it.
 */
void
archive_lines(const json_t *a, int details, void (*put)(void *, int, const char *), void *arg)
{
	const json_t *counts = json_object_get(a, "counts"), *m;
	long long members = (long long)json_integer_value(json_object_get(a, "members"));
	long long unlisted = (long long)json_integer_value(json_object_get(a, "unlisted"));
	char *line = NULL, size[32];
	size_t len = 0, i;
	FILE *fp;
	int k, first, alert = json_object_size(counts) > 0;

	if (!json_is_object(a) || (fp = open_memstream(&line, &len)) == NULL)
		return;
	human_size((long long)json_integer_value(json_object_get(a, "bytes")), size, sizeof size);
	fprintf(fp, "archive (%s): %lld member%s, %s", json_str(a, "format"), members,
	    members == 1 ? "" : "s", size);
	for (k = 0, first = 1; k < NFLAGS; k++) {
		long long n = (long long)json_integer_value(json_object_get(counts,
		    flag_names[k]));

		if (n > 0)
			fprintf(fp, "%s%lld %s", first ? "; " : ", ", n, flag_counted[k][n != 1]);
		first &= n == 0;
	}
	if (!json_is_true(json_object_get(a, "complete"))) {
		fprintf(fp, "; not fully scanned: %s", json_str(a, "note"));
		alert = 1;
	}
	if (fclose(fp) != 0)
		abort();
	put(arg, alert, line);
	free(line);
	json_array_foreach(json_object_get(a, "flagged"), i, m) {
		line = member_line(m);
		put(arg, 1, line);
		free(line);
	}
	if (!details)
		return;
	json_array_foreach(json_object_get(a, "others"), i, m) {
		line = member_line(m);
		put(arg, 0, line);
		free(line);
	}
	if (unlisted > 0) {
		if (asprintf(&line, "(and %lld more member%s, not listed)", unlisted,
		    unlisted == 1 ? "" : "s") < 0)
			abort();
		put(arg, 0, line);
		free(line);
	}
}
