/* SPDX-License-Identifier: ISC */
/*
 * An executable sealed at run time (docs/design.md §3, "install, then
 * use"): it did not exist when the request was made, an earlier ROOT
 * command of the batch was to create it, so the rules request validation
 * applies to an executable are applied now, just before it runs, by the
 * runner (ROOT and YOU commands of a runner batch) or `warrant answer`
 * (a local batch). What is hashed here is the descriptor then executed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "root.h"

/*
 * Resolve path now and judge it: a regular file with an execute bit,
 * that the requester w can neither replace nor change the way to (its
 * path as given, walked as root walks it, and the resolved file), and not
 * a privilege tool — for a ROOT command (root set) neither a shell, an
 * interactive program nor the dynamic loader — by name or by identity.
 * Returns the open descriptor with the resolved path in real and its
 * SHA-256 in sha (both set as far as they were found, for the ledger),
 * or -1 with the reason in why.
 */
int
exe_at_run(const char *path, const struct writer *w, int root, char real[PATH_MAX],
    char sha[SHA256_HEX_LEN + 1], char *why, size_t size)
{
	char reason[PATH_MAX + 128];
	struct denylist *d;
	enum deny_kind k;
	struct stat st;
	int fd, rc, loader;

	real[0] = sha[0] = '\0';
	if (realpath(path, real) == NULL) {
		real[0] = '\0';
		snprintf(why, size, "%s does not exist now (an earlier command was to create it): %s",
		    path, strerror(errno));
		return -1;
	}
	if ((fd = open_regular(real, &st)) < 0) {
		snprintf(why, size, "%s is not a readable regular file: %s", real, strerror(errno));
		return -1;
	}
	if ((st.st_mode & 0111) == 0) {
		snprintf(why, size, "%s is not executable", real);
		goto refuse;
	}
	if (sha256_fd(fd, sha) != 0) {
		snprintf(why, size, "%s cannot be read: %s", real, strerror(errno));
		sha[0] = '\0';
		goto refuse;
	}
	if ((rc = path_changeable(w, path, reason, sizeof reason)) != 0 ||
	    (rc = path_writable(w, real, reason, sizeof reason)) != 0) {
		snprintf(why, size, "the requester could change the executable: %s",
		    rc > 0 ? reason : "its path cannot be checked");
		goto refuse;
	}
	d = denylist_load();
	k = deny_file(d, path, real, &st, sha);
	loader = deny_loader_file(d, path, real, &st, sha);
	denylist_free(d);
	if (k == DENY_NESTED || (root && (k != DENY_NONE || loader))) {
		snprintf(why, size, "%s is %s and cannot be run%s", real, k == DENY_NESTED ?
		    "a privilege tool" : k != DENY_NONE ? "a shell or interactive program" :
		    "the dynamic loader", root ? " as root" : "");
		goto refuse;
	}
	return fd;
refuse:
	close(fd);
	return -1;
}

/* An executable sealed at request time, opened (no final symlink) and
 * still hashing to its seal, compared in constant time: the descriptor
 * that is then executed, or -1. */
int
exe_open_sealed(const char *path, const char *sha)
{
	char hex[SHA256_HEX_LEN + 1];
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || sha256_fd(fd, hex) != 0 ||
	    !digest_equal(hex, sha))) {
		close(fd);
		fd = -1;
	}
	return fd;
}
