/* SPDX-License-Identifier: ISC */
/* warrant box: the non-root user an agent runs as (docs/design.md §10, docs/box.md). */
#ifndef WARRANT_BOX_H
#define WARRANT_BOX_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <jansson.h>

#define BOX_NAME_MAX	32		/* Linux user names, useradd's limit */
#define BOX_NAME_FALLBACK "warrant"
#define BOX_PW_MIN	8		/* characters */
#define BOX_PW_MAX	128
#define BOX_PW_BYTES	(BOX_PW_MAX * 4)	/* the most UTF-8 can take */
#define BOX_ID_MIN	1000		/* below: system accounts and groups */
#define BOX_ID_MAX	2147483646L

#define BOX_HOMES	"/home"		/* the only tree box homes live in */
#define BOX_DIR_DEFAULT	"/var/lib/warrant/box"
#define BOX_SUDOERS_DIR	"/etc/sudoers.d"
#define BOX_DROPIN	"warrant-box-"	/* + name; no dot, so sudo reads it */
#define BOX_MARKER	".warrant-box-chown-v1"
#define BOX_COMMENT	"warrant box"
#define BOX_SHELL	"/bin/bash"

#define PATH_USERADD	"/usr/sbin/useradd"
#define PATH_USERMOD	"/usr/sbin/usermod"
#define PATH_GROUPADD	"/usr/sbin/groupadd"
#define PATH_GROUPDEL	"/usr/sbin/groupdel"
#define PATH_USERDEL	"/usr/sbin/userdel"
#define PATH_CHPASSWD	"/usr/sbin/chpasswd"
#define PATH_VISUDO	"/usr/sbin/visudo"
#define PATH_CHOWN	"/usr/bin/chown"
#define PATH_GPASSWD	"/usr/bin/gpasswd"
#define PATH_DETECT_VIRT "/usr/bin/systemd-detect-virt"
#define PATH_LOGINCTL	"/usr/bin/loginctl"

/* Requesters on other uids (docs/protocol.md, "Where, and who may connect"). */
#define BOX_REQ_GROUP	"warrant-"	/* + reviewer: its requesters */
#define BOX_GROUP_MAX	32		/* groupadd's limit */
#define BOX_REVIEWER_MAX (BOX_GROUP_MAX - (int)sizeof BOX_REQ_GROUP + 1)
#define BOX_RUN_DIR	WARRANT_RUN_DIR	/* root's, 0755 (config.h) */
#define BOX_REV_MODE	02750		/* BOX_RUN_DIR/REVIEWER: reviewer:group */
#define BOX_SOCKET	"req.sock"	/* in it, warrant serve's (src/serve/peer.c) */
#define BOX_TMPFILES_DIR "/etc/tmpfiles.d"

/* rules.c: pure functions, no I/O (tests/unit/test-box.c). */
void	 box_username(const char *, char [BOX_NAME_MAX + 1]);
int	 box_name_ok(const char *);
const char *box_password_check(const char *, size_t);
const char *box_path_check(const char *);
const char *box_home_check(const char *);
int	 box_id_ok(long);
long	 box_id_pick(long, long, long, long, int (*)(long, void *), void *);
int	 box_login_defs_line(const char *, const char *, long *);
char	*box_sudoers_text(const char *);
void	 box_shell_quote(FILE *, const char *);
int	 box_req_group(const char *, char *, size_t);
char	*box_tmpfiles_text(const char *);
int	 box_sudo_rules(const char *, json_t *);

/* run.c: programs by absolute path, argv only, stdin from a buffer. */
int	 box_run(const char *, const char *const [], const void *, size_t);
int	 box_run_output(const char *const [], char *, size_t);
void	 box_fail(const char *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/* secret.c: the encrypted password store under the box directory. */
int	 box_dir_path(char *, size_t);
int	 box_dir_open(int);
int	 box_open_private(int, const char *, off_t *);
int	 box_read_exact(int, void *, size_t);
int	 box_replace_file(int, const char *, const void *, size_t);
int	 box_lock(void);
void	 box_unlock(int);
int	 box_secret_exists(const char *);
int	 box_secret_store(const char *, const char *, size_t);
int	 box_secret_load(const char *, char *, size_t, size_t *);
int	 box_secret_clear(const char *);

/* record.c: what warrant made (box users, requester groups), the ids it
 * retired, and the box directory's removal once it records nothing. */
#define BOX_RECORDED	1	/* box_recorded: adopted (or an older record) */
#define BOX_CREATED	2	/* made by warrant */
int	 box_recorded(const char *, const char *, unsigned);
int	 box_user_recorded(const char *, uid_t);
int	 box_user_record(const char *, uid_t, int);
int	 box_group_record(const char *, gid_t);
int	 box_unrecord(const char *, const char *);
int	 box_dir_prune(void);
int	 box_retired(const char *, unsigned);
int	 box_retired_top(const char *, long, long, long *);
int	 box_retire(const char *, unsigned, const char *);

/* sudoers.c: the per-user NOPASSWD drop-in. */
int	 box_dropin_path(const char *, char *, size_t);
int	 box_dropin_present(const char *);
int	 box_dropin_install(const char *);
int	 box_dropin_remove(const char *);
int	 sudoers_dropin_path(const char *, const char *, char *, size_t);
int	 sudoers_dropin_install(const char *, const char *, const char *);
int	 sudoers_dropin_remove(const char *, const char *);
int	 box_file_is(const char *, const char *, mode_t);

/* requesters.c: group warrant-REVIEWER, BOX_RUN_DIR/REVIEWER, tmpfiles.d. */
struct refusal;
int	 box_req_check_reviewer(const char *, int, struct refusal *);
int	 box_req_check_user(const char *, const char *, struct refusal *);
int	 box_req_check_dirs(const char *, struct refusal *);
int	 box_req_setup(const char *);
int	 box_req_add(const char *, const char *);
int	 box_req_remove(const char *, const char *);
int	 box_req_check_teardown(const char *, struct refusal *);
int	 box_req_teardown(const char *);
int	 box_req_member(const char *, const char *);
json_t	*box_req_describe(const char *);
json_t	*box_req_reviewers(const char *);
json_t	*box_req_all(void);

/* profile.c: which profile a user has, whether this is a container, and
 * the sudo rules a user holds. */
enum box_profile { BOX_PROFILE_AGENT, BOX_PROFILE_CONTAINER };
const char *box_profile_name(int);
int	 box_in_container(char *, size_t);
const char *box_profile_of(const char *);
int	 box_admin_member(const char *, const char **);
json_t	*box_sudo_list(const char *, char *, size_t);

/* provision.c: box init on this host, and the live password changes. */
struct box_spec {
	const char	*name;
	long		 uid, gid;	/* -1: not given */
	const char	*home;		/* NULL: keep, or /home/NAME when new */
	const char	*shell;		/* NULL: keep, or BOX_SHELL when new */
	int		 adopt;		/* take over an account init did not create */
	int		 profile;	/* BOX_PROFILE_AGENT (default) or _CONTAINER */
	const char	*reviewer;	/* agent: whose requester it becomes */
};
int	 box_check_spec(const struct box_spec *, struct refusal *);
int	 box_check_host(const struct box_spec *, struct refusal *);
int	 box_check_account(const char *, struct refusal *);
int	 box_check_owned(const char *, struct refusal *);
const char *box_admin_group(void);
int	 box_in_group(const char *, const char *);
int	 box_init(const struct box_spec *);
int	 box_apply_password(const char *, const char *, size_t);
int	 box_apply_clear(const char *);
int	 box_drop_admin(const char *, const char *);

/* remove.c: box remove, which undoes box init. */
struct box_removal {
	int	 delete_user;	/* the account too, if box init created it */
	int	 delete_home;	/* and its home and mail spool (userdel -r) */
	int	 delete_files;	/* and its files where every user may write */
	int	 stop_sessions;	/* end its processes rather than refuse */
};
int	 box_remove_check(const char *, const struct box_removal *, struct refusal *);
int	 box_remove(const char *, const struct box_removal *);

/* passwd.c: box passwd's work once the password is read, for the CLI
 * and the box password route alike. */
struct refusal;
int	 box_passwd_check(const char *, struct refusal *);
int	 box_passwd_set(const char *, const char *, size_t, FILE *);
int	 box_passwd_clear(const char *, FILE *);

/* apikey.c: the box password route's keys (BOX_API_DIR/NAME.key, 32 bytes,
 * root 0600 in a root 0700 directory) and its file of seen signatures. */
#define BOX_API_DIR	"api"		/* under the box directory */
#define BOX_API_KEY_LEN	32
#define BOX_API_SEEN	"seen"
int	 box_apikey_create(const char *, int, unsigned char [BOX_API_KEY_LEN]);
int	 box_apikey_load(const char *, unsigned char [BOX_API_KEY_LEN]);
int	 box_apikey_remove(const char *);
int	 box_apikey_only(char [BOX_NAME_MAX + 1]);
int	 box_api_read(const char *, void *, size_t, size_t *);
int	 box_api_write(const char *, const void *, size_t);

/* script.c: the same work as a root shell script, password-free. */
int	 box_script(FILE *, const struct box_spec *);

#endif
