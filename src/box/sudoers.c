/* SPDX-License-Identifier: ISC */
/*
 * warrant's sudoers drop-ins in /etc/sudoers.d: the box user's,
 * warrant-box-NAME, present (NOPASSWD) while no box password is stored,
 * absent once one is, so the admin group's own rule (%sudo or %wheel)
 * then asks for the password; and an enrolled reviewer's,
 * warrant-passkey-NAME (cmd-passkey.c). Each is written to a dotted
 * temporary name (sudo ignores names with a dot), checked with visudo
 * -cf, then renamed into place: sudo never reads a half-written or
 * invalid policy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"
#include "box/box.h"

int
box_dropin_path(const char *name, char *out, size_t size)
{
	return sudoers_dropin_path(BOX_DROPIN, name, out, size);
}

/* The drop-in file prefix+name in the sudoers directory. */
int
sudoers_dropin_path(const char *prefix, const char *name, char *out, size_t size)
{
	int n = snprintf(out, size, "%s/%s%s", BOX_SUDOERS_DIR, prefix, name);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* 1 when the drop-in exists (whatever it holds), 0 when not. */
int
box_dropin_present(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (box_dropin_path(name, path, sizeof path) != 0)
		return 0;
	return lstat(path, &st) == 0;
}

/* path is a regular file (not a link) that holds exactly text, root's,
 * with mode mode. */
int
box_file_is(const char *path, const char *text, mode_t mode)
{
	char buf[1024];
	struct stat st;
	ssize_t n;
	int fd, same = 0;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
	    st.st_gid == 0 && (st.st_mode & 07777) == mode &&
	    (size_t)st.st_size == strlen(text)) {
		n = read(fd, buf, sizeof buf - 1);
		same = n >= 0 && (size_t)n == strlen(text) &&
		    memcmp(buf, text, (size_t)n) == 0;
	}
	close(fd);
	return same;
}

static int
sudoers_dir_ok(void)
{
	struct stat st;

	if (lstat(BOX_SUDOERS_DIR, &st) != 0 || !S_ISDIR(st.st_mode)) {
		box_fail("sudoers", "%s is missing (is sudo installed?)", BOX_SUDOERS_DIR);
		return 0;
	}
	if (st.st_uid != 0 || (st.st_mode & 022) != 0) {
		box_fail("sudoers", "%s must be root's and not group or world "
		    "writable", BOX_SUDOERS_DIR);
		return 0;
	}
	return 1;
}

static void
sync_dir(void)
{
	int fd = open(BOX_SUDOERS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Install the NOPASSWD drop-in for name; 0, or -1 after saying why. */
int
box_dropin_install(const char *name)
{
	char *text = box_sudoers_text(name);
	int rc = sudoers_dropin_install(BOX_DROPIN, name, text);

	free(text);
	return rc;
}

/* Install text as the drop-in prefix+name (root's, 0440); 0, or -1
 * after saying why. */
int
sudoers_dropin_install(const char *prefix, const char *name, const char *text)
{
	const char *argv[] = { PATH_VISUDO, "-c", "-f", NULL, NULL };
	char path[PATH_MAX], tmp[PATH_MAX];
	int fd, rc = -1;

	if (sudoers_dropin_path(prefix, name, path, sizeof path) != 0 || !sudoers_dir_ok())
		goto out;
	if (box_file_is(path, text, 0440)) {
		rc = 0;
		goto out;
	}
	snprintf(tmp, sizeof tmp, "%s/.%s%s.XXXXXX", BOX_SUDOERS_DIR, prefix, name);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		box_fail("sudoers", "creating a file in %s: %s", BOX_SUDOERS_DIR,
		    strerror(errno));
		goto out;
	}
	if (write_all(fd, text, strlen(text)) != 0 || fchown(fd, 0, 0) != 0 ||
	    fchmod(fd, 0440) != 0 || fsync(fd) != 0) {
		box_fail("sudoers", "writing %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	argv[3] = tmp;
	if (box_run("sudoers", argv, NULL, 0) != 0) {
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) != 0) {
		box_fail("sudoers", "renaming %s to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	sync_dir();
	rc = 0;
out:
	return rc;
}

/* Remove name's drop-in; 0 (also when there was none), -1 on error. */
int
box_dropin_remove(const char *name)
{
	return sudoers_dropin_remove(BOX_DROPIN, name);
}

int
sudoers_dropin_remove(const char *prefix, const char *name)
{
	char path[PATH_MAX];

	if (sudoers_dropin_path(prefix, name, path, sizeof path) != 0)
		return -1;
	if (unlink(path) != 0) {
		if (errno == ENOENT)
			return 0;
		box_fail("sudoers", "removing %s: %s", path, strerror(errno));
		return -1;
	}
	sync_dir();
	return 0;
}
