/* SPDX-License-Identifier: ISC */
/*
 * box passwd's work once the new password is in hand (or --clear was
 * asked): which users it applies to, storing the password encrypted and
 * applying it live (chpasswd, the NOPASSWD drop-in removed), or clearing
 * it (the drop-in back, the password locked). `warrant box passwd` and
 * the box password route of `warrant serve --box-api` both call these, so
 * the two cannot drift. Sentences for the person go to out; failures are
 * said on standard error by the steps themselves.
 */
#include <pwd.h>
#include <string.h>

#include "warrant.h"
#include "box/box.h"

/* May name's box password be changed: an ordinary account (or none yet)
 * that box init created, of the container profile. 0, or a refusal. */
int
box_passwd_check(const char *name, struct refusal *r)
{
	if (box_check_account(name, r) != 0 || box_check_owned(name, r) != 0)
		return -1;
	/* The password gates the container profile's sudo; elsewhere a clear
	 * would hand out the NOPASSWD rule. */
	if (getpwnam(name) != NULL && strcmp(box_profile_of(name), "container") != 0)
		return refuse(r, "not_container_profile", "--user", "'%s' has the %s "
		    "profile: it has no sudo rule for a box password to gate (and "
		    "clearing it would give it sudo without a password); box passwords "
		    "are for --profile container users", name, box_profile_of(name));
	return 0;
}

/* Store pw (checked already) and apply it now; 0, or -1. */
int
box_passwd_set(const char *name, const char *pw, size_t len, FILE *out)
{
	int lock, rc = -1;

	if ((lock = box_lock()) < 0)
		return -1;
	if (box_secret_store(name, pw, len) != 0)
		goto out;
	if (getpwnam(name) == NULL) {
		fprintf(out, "box password of %s stored; %s does not exist on this host, "
		    "so it applies at the next warrant box init\n", name, name);
		rc = 0;
		goto out;
	}
	if (box_apply_password(name, pw, len) != 0) {
		fprintf(stderr, "warrant box: the password is stored and applies at the "
		    "next `warrant box init --user %s`\n", name);
		goto out;
	}
	fprintf(out, "box password of %s set; sudo asks for it\n", name);
	if (box_admin_group() == NULL || !box_in_group(name, box_admin_group()))
		fprintf(out, "note: %s is not in the admin group yet: run warrant box "
		    "init\n", name);
	rc = 0;
out:
	box_unlock(lock);
	return rc;
}

/* Remove the stored password and restore passwordless sudo; 0, or -1. */
int
box_passwd_clear(const char *name, FILE *out)
{
	int lock, had, rc = -1;

	if ((lock = box_lock()) < 0)
		return -1;
	if ((had = box_secret_clear(name)) < 0)
		goto out;
	if (getpwnam(name) != NULL && box_apply_clear(name) != 0) {
		fprintf(stderr, "warrant box: the stored password is removed; sudo "
		    "becomes passwordless at the next `warrant box init --user %s`\n", name);
		goto out;
	}
	fprintf(out, "box password of %s %s; sudo works without a password\n", name,
	    had == 0 ? "cleared" : "was not set");
	rc = 0;
out:
	box_unlock(lock);
	return rc;
}
