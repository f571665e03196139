/* SPDX-License-Identifier: ISC */
/*
 * Reviewed files (docs/design.md §3 files) as the runner and `warrant
 * answer` handle them: the shape of a name and a mode, the argv element
 * {"file": NAME}, and staging — the sealed content copied into a fresh
 * directory for the commands of one batch, hashed while it is copied so
 * that what is staged is what was hashed, and removed after the batch.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "root.h"

#define REMOVE_DEPTH	16

/* ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$: command ids, run_as names and file
 * names. Never '/', never "." or "..": a file name is always one entry of
 * a directory. */
int
id_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 64)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9');

		if (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-')))
			return 0;
	}
	return 1;
}

/*
 * A mode as a request spells it: three or four octal digits ("644",
 * "0644"), never a setuid, setgid or sticky bit. 0 with the mode, -1.
 */
int
file_mode_parse(const char *s, mode_t *mode)
{
	size_t n = strlen(s), i;
	mode_t m = 0;

	if (n == 4 && s[0] != '0')
		return -1;	/* 4755, 2755, 1777: refused */
	if (n != 3 && n != 4)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '7')
			return -1;
		m = m * 8 + (mode_t)(s[i] - '0');
	}
	*mode = m;
	return 0;
}

/* The NAME of an argv element {"file": NAME}, or NULL for anything else. */
const char *
file_ref(const json_t *a)
{
	return json_is_object(a) && json_object_size(a) == 1 ?
	    json_string_value(json_object_get(a, "file")) : NULL;
}

int
argv_has_files(const json_t *argv)
{
	json_t *a;
	size_t i;

	json_array_foreach(argv, i, a)
		if (file_ref(a) != NULL)
			return 1;
	return 0;
}

/* argv as strings, each {"file": NAME} as DIR/NAME (dir may be NULL when
 * there is none); free with argv_strings_free. */
char **
argv_strings(const json_t *argv, const char *dir)
{
	char **out = xcalloc(json_array_size(argv) + 1, sizeof *out);
	const char *name;
	json_t *a;
	size_t i;

	json_array_foreach(argv, i, a) {
		if ((name = file_ref(a)) != NULL) {
			if (dir == NULL || asprintf(&out[i], "%s/%s", dir, name) < 0) {
				argv_strings_free(out);
				return NULL;
			}
		} else
			out[i] = xstrdup(json_is_string(a) ? json_string_value(a) : "");
	}
	return out;
}

void
argv_strings_free(char **v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/*
 * Copy src (in srcdfd, a regular file, never through a symlink) to a new
 * dst in dstdfd, hashing what is copied: it must be exactly size bytes
 * hashing to sha. Then dst gets owner uid:gid (unless uid is -1) and
 * mode. Returns 0; 1 when the content is not the sealed one (dst is
 * removed); -1 with errno on any other failure (dst is removed).
 */
int
stage_copy(int srcdfd, const char *src, int dstdfd, const char *dst, const char *sha,
    uint64_t size, mode_t mode, uid_t uid, gid_t gid)
{
	char hex[SHA256_HEX_LEN + 1];
	uint64_t total = 0;
	struct stat st;
	int in, out = -1, rc = -1, saved;

	in = openat(srcdfd, src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (in < 0)
		return -1;
	if (fstat(in, &st) != 0)
		goto out;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != size) {
		rc = 1;
		goto out;
	}
	out = openat(dstdfd, dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		goto out;
	if ((rc = sha256_stream(in, size, write_sink, &out, hex, &total)) != 0)
		goto out;
	if (total != size || !digest_equal(hex, sha)) {
		rc = 1;
		goto out;
	}
	rc = -1;
	if ((uid != (uid_t)-1 && fchown(out, uid, gid) != 0) || fchmod(out, mode) != 0)
		goto out;
	rc = 0;
out:
	saved = errno;
	close(in);
	if (out >= 0 && close(out) != 0 && rc == 0) {
		saved = errno;
		rc = -1;
	}
	if (out >= 0 && rc != 0)
		unlinkat(dstdfd, dst, 0);
	errno = saved;
	return rc;
}

/* Remove name in parentfd and, when it is a directory, everything under
 * it (at most REMOVE_DEPTH levels; symlinks are removed, not followed). */
static int
remove_at(int parentfd, const char *name, int depth)
{
	struct dirent *e;
	DIR *d;
	int fd, rc = 0;

	if (unlinkat(parentfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if ((errno != EISDIR && errno != EPERM) || depth >= REMOVE_DEPTH)
		return -1;
	fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (remove_at(dirfd(d), e->d_name, depth + 1) != 0)
			rc = -1;
	}
	closedir(d);
	if (unlinkat(parentfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

/* Remove a staging directory (name in parentfd) with whatever is in it:
 * the staged files and anything the batch's commands left there. */
int
stage_remove(int parentfd, const char *name)
{
	return remove_at(parentfd, name, 0);
}
