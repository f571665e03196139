/* SPDX-License-Identifier: ISC */
/*
 * box remove: undo box init for one user (docs/box.md, "Taking a box user
 * down"). What warrant gave the account goes first, its root before the
 * rest: the NOPASSWD drop-in, the admin group, its requester groups, the
 * box password route's key, the stored password; then, only when asked
 * (--delete-user) and only for an account box init created (its record
 * says so; an adopted one never), the account itself, with --delete-home
 * its home and mail spool too; the box record last, so that a run that
 * fails half way can simply be run again. Each thing removed is one line;
 * a run that finds nothing says so.
 */
#include <sys/stat.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"
#include "box/box.h"

/* Anything of warrant box's in name's name: its drop-in, the box password
 * route's key, a stored password. */
static int
leftovers(const char *name)
{
	char dir[PATH_MAX], key[PATH_MAX];
	struct stat st;
	int n;

	if (box_dir_path(dir, sizeof dir) != 0 || (n = snprintf(key, sizeof key,
	    "%s/%s/%s.key", dir, BOX_API_DIR, name)) < 0 || (size_t)n >= sizeof key)
		return 1;
	return box_dropin_present(name) || lstat(key, &st) == 0 ||
	    box_secret_exists(name) != 0;
}

/*
 * May box remove run for name: an account of that name is a box user (box
 * init's record names its uid), or one with nothing of warrant box's; to
 * be deleted, one that box init created. 0, or a refusal; nothing changed.
 */
int
box_remove_check(const char *name, int delete_user, struct refusal *r)
{
	struct passwd *pw;
	uid_t uid;
	int rec;

	if (box_check_account(name, r) != 0)
		return -1;
	if ((pw = getpwnam(name)) == NULL)
		return 0;
	uid = pw->pw_uid;
	if ((rec = box_recorded(name, "user", uid)) < 0)
		return refuse(r, "bad_box_dir", "--user", "the box directory cannot be "
		    "read (see above); nothing changed");
	if (rec == 0 && (delete_user || leftovers(name)))
		return refuse(r, "not_box_user", "--user", "'%s' (uid %u) is not a box "
		    "user (warrant box neither created nor adopted it), so %s is not "
		    "warrant's to remove; nothing changed", name, (unsigned)uid,
		    delete_user ? "the account" : "what is there in its name");
	if (delete_user && rec != BOX_CREATED)
		return refuse(r, "not_created", "--delete-user", "'%s' (uid %u) was "
		    "adopted by warrant box (box init --adopt, or made by a version "
		    "that did not record which accounts it created), not created by "
		    "it: the account is not warrant's to delete; run box remove "
		    "without --delete-user, then delete the account yourself if it "
		    "should go", name, (unsigned)uid);
	return 0;
}

/* Out of every requester group it is in: how many, or -1. */
static int
leave_requester_groups(const char *name)
{
	json_t *revs = box_req_reviewers(name);
	size_t i;
	int n = 0;

	for (i = 0; i < json_array_size(revs) && n >= 0; i++)
		n = box_req_remove(json_string_value(json_array_get(revs, i)), name) == 0 ?
		    n + 1 : -1;
	json_decref(revs);
	return n;
}

/* userdel, saying what went with the account; 0, or -1. */
static int
delete_account(const char *name, uid_t uid, const char *home, int delete_home)
{
	const char *argv[] = { PATH_USERDEL, "--", name, NULL, NULL };
	struct group *gr = getgrnam(name);
	int own_group = gr != NULL;
	gid_t gid = own_group ? gr->gr_gid : 0;

	if (delete_home) {
		argv[1] = "-r";
		argv[2] = "--";
		argv[3] = name;
	}
	if (box_run("userdel", argv, NULL, 0) != 0)
		return -1;
	printf("account %s (uid %u): deleted\n", name, (unsigned)uid);
	if (delete_home && access(home, F_OK) != 0)
		printf("home %s: deleted\n", home);
	if (own_group && getgrnam(name) == NULL)
		printf("group %s (gid %u): deleted with the account\n", name, (unsigned)gid);
	return 0;
}

/* Remove name's box set-up, which passed box_remove_check; 0, or -1
 * after naming the step that failed. */
int
box_remove(const char *name, int delete_user, int delete_home)
{
	char path[PATH_MAX], dir[PATH_MAX], home[PATH_MAX] = "";
	struct passwd *pw;
	uid_t uid = 0;
	int lock, exists, removed = 0, rc = -1, n;

	if (box_dir_path(dir, sizeof dir) != 0 || (lock = box_lock()) < 0)
		return -1;
	if ((exists = (pw = getpwnam(name)) != NULL)) {
		uid = pw->pw_uid;
		snprintf(home, sizeof home, "%s", pw->pw_dir);
	}
	/* Not a box user (box_remove_check found nothing of warrant's). */
	if (exists && box_user_recorded(name, uid) != 1) {
		printf("%s: nothing to remove (not a box user)\n", name);
		goto prune;
	}
	if (box_dropin_present(name)) {
		if (box_dropin_path(name, path, sizeof path) != 0 ||
		    box_dropin_remove(name) != 0)
			goto out;
		printf("sudoers drop-in %s: removed\n", path);
		removed++;
	}
	if (exists) {
		if ((n = box_drop_admin(name, "box remove")) < 0)
			goto out;
		removed += n;
		if ((n = leave_requester_groups(name)) < 0)
			goto out;
		removed += n;
	}
	if ((n = box_apikey_remove(name)) < 0)
		goto out;
	removed += n == 0;
	if ((n = box_secret_clear(name)) < 0)
		goto out;
	if (n == 0) {
		printf("stored box password %s/%s.pw: removed\n", dir, name);
		removed++;
	}
	if (exists && delete_user) {
		if (delete_account(name, uid, home, delete_home) != 0)
			goto out;
		removed++;
	} else if (exists)
		printf("account %s (uid %u): kept (box remove --delete-user deletes "
		    "it); it is no longer a box user\n", name, (unsigned)uid);
	if ((n = box_unrecord(name, "user")) < 0)
		goto out;
	removed += n == 0;
	if (removed == 0)
		printf("box user %s: nothing to remove\n", name);
prune:
	/* box_lock made the directory if it was not there. */
	rc = box_dir_prune();
out:
	box_unlock(lock);
	return rc;
}
