/* SPDX-License-Identifier: ISC */
/*
 * The enrolled machines: STATE/machines.json (0600, written atomically),
 * one record per name with its destination, pinned host key and the
 * contract its `warrant exec --contract` gave at enrollment (schema,
 * version, capabilities, the runner's path and SHA-256). STATE/known_hosts,
 * the only known_hosts file warrant's ssh reads, is written from it: one
 * line per pinned key, under the machine's name (ssh's HostKeyAlias).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "remote/remote.h"

/* The records by name (an empty object when there are none), or NULL
 * after saying why. */
json_t *
machines_load(const char *state)
{
	struct stat st;
	json_t *j = NULL;
	char path[PATH_MAX], *buf;
	size_t len;
	int fd;

	if ((size_t)snprintf(path, sizeof path, "%s/%s", state, MACHINES_FILE) >= sizeof path)
		return NULL;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return json_object();
		warn("%s", path);
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		warnx("%s must be a regular file of yours, mode 0600", path);
		close(fd);
		return NULL;
	}
	if (read_bounded(fd, &buf, &len, 4 * 1024 * 1024) == 0) {
		j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
		free(buf);
	}
	close(fd);
	if (!json_is_object(j)) {
		warnx("%s is not a JSON object", path);
		json_decref(j);
		return NULL;
	}
	return j;
}

/* Write the records and the known_hosts made from them; 0, or -1 after
 * saying why. */
int
machines_save(const char *state, const json_t *all)
{
	const char *name;
	json_t *m;
	char tmp[64] = "." KNOWN_HOSTS_FILE ".tmp";
	int dfd, fd = -1, rc = -1;

	if ((dfd = state_dir_open(state)) < 0)
		return -1;
	if (json_write_atomic(dfd, MACHINES_FILE, all, (uid_t)-1, (gid_t)-1, 0600, 1) != 0) {
		warn("cannot write %s/%s", state, MACHINES_FILE);
		goto out;
	}
	unlinkat(dfd, tmp, 0);
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600)) < 0)
		goto fail;
	json_object_foreach((json_t *)all, name, m) {
		const char *k = json_str(m, "host_key");

		if (write_all(fd, k, strlen(k)) != 0)
			goto fail;
	}
	if (fsync(fd) != 0 || close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, KNOWN_HOSTS_FILE) != 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	warn("cannot write %s/%s", state, KNOWN_HOSTS_FILE);
	if (fd >= 0)
		close(fd);
	unlinkat(dfd, tmp, 0);
out:
	close(dfd);
	return rc;
}

/* The record of the enrolled machine name (a new reference), or NULL with
 * r filled: unknown_machine, or machine_incompatible for a record without
 * the absolute path of the target's warrant (enrolled by an older warrant). */
json_t *
machine_get(const char *state, const char *name, struct refusal *r)
{
	json_t *all = machines_load(state), *m;

	if (all == NULL) {
		refuse(r, "unknown_machine", "$.machine", "the enrolled machines cannot be read");
		return NULL;
	}
	m = json_incref(json_object_get(all, name));
	json_decref(all);
	if (m == NULL) {
		char *v = text_visible(name);

		refuse(r, "unknown_machine", "$.machine", "machine '%s' is not enrolled", v);
		free(v);
	} else if (json_str(m, "warrant")[0] != '/' || (*json_str(m, "root_via") != '\0' &&
	    json_str(m, "root_warrant")[0] != '/')) {
		refuse(r, "machine_incompatible", "$.machine", "%s was enrolled without the "
		    "absolute path of its warrant (an older warrant); enroll it again with "
		    "`warrant machine add`", name);
		json_decref(m);
		m = NULL;
	}
	return m;
}

/* The account an approved batch runs through on m (its sudo asks for that
 * account's password): --root-via's, else the destination's user. */
const char *
machine_sudo_user(const json_t *m)
{
	return *json_str(m, "root_via") != '\0' ? json_str(m, "root_via") : json_str(m, "user");
}

/* The absolute path of that account's warrant, pinned at enrollment. */
const char *
machine_sudo_warrant(const json_t *m)
{
	return *json_str(m, "root_via") != '\0' ? json_str(m, "root_warrant") :
	    json_str(m, "warrant");
}
