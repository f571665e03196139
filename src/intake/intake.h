/* SPDX-License-Identifier: ISC */
/*
 * The intake: a request's bytes, from whoever asks, to a sealed pending
 * gate or a refusal. Nothing here reads the identity of the process it
 * runs in, except requester_self: the requester is always given, so that
 * a daemon can validate for a peer exactly as `warrant request` does for
 * its own user (docs/design.md §11). No process-wide state either: every
 * call builds what it needs and frees it.
 */
#ifndef INTAKE_H
#define INTAKE_H

#include <sys/types.h>
#include <sys/stat.h>
#include <limits.h>
#include <stddef.h>
#include <jansson.h>

#include "root/root.h"

#define REQUEST_MAX	(256 * 1024)	/* whole request, bytes */

/* A refusal: stable code, JSON path of the offending field, one sentence.
 * code points at a literal, or at code_buf for one read from the daemon. */
struct refusal {
	const char	*code;
	char		 path[256];
	char		 message[512];
	char		 code_buf[48];
};
int	 refuse(struct refusal *, const char *, const char *, const char *, ...)
	    __attribute__((format(printf, 4, 5)));
json_t	*refusal_json(const struct refusal *);
int	 refusal_from_json(struct refusal *, const json_t *);
const char *refusal_hint(const struct refusal *);

/* hint.c: every code a request can be refused with (the validator's,
 * and the daemon's quota), what it means and how to ask instead; and
 * the shapes behind a code that have a hint of their own. The hints and
 * `warrant skill` both read these tables. */
struct refusal_code {
	const char	*code;
	const char	*meaning;
	const char	*hint;
};
struct refusal_case {
	const char	*code;
	const char	*when;
	int		(*applies)(const struct refusal *);
	const char	*hint;
};
extern const struct refusal_code refusal_codes[];	/* ends with a NULL code */
extern const struct refusal_case refusal_cases[];
const struct refusal_code *refusal_code_find(const char *);

/*
 * requester.c: who asks. Writability is judged for uid and groups; the
 * gate records uid and name; YOU commands default to home. uid 0 asks
 * "could anyone but root" (requester_anyone); ACLs are read from the
 * files for any requester. self is set when this process runs as the
 * requester (the kernel may judge a snapshot's reads for it). requester_self refuses (user_namespace) a process in a user
 * namespace of its own: EXIT_OK, EXIT_REFUSED or EXIT_INTERNAL.
 */
struct requester {
	uid_t	 uid;
	gid_t	 gid;
	gid_t	*groups;	/* every group, gid included */
	int	 ngroups;
	char	*name;		/* "unknown" without a passwd entry */
	char	*home;		/* NULL without a passwd entry */
	int	 self;
	pid_t	 pid;		/* the asking process (recorded, never trusted) */
	long long pid_start;	/* its procfs start time, or -1 */
};
extern const struct requester requester_anyone;
int	 requester_self(struct requester *, struct refusal *);
int	 requester_lookup(struct requester *, uid_t, gid_t, const gid_t *, int);
void	 requester_free(struct requester *);

/* exe.c: executables and paths. */
struct exe {
	char		given[PATH_MAX];
	char		path[PATH_MAX];		/* resolved, no symlinks */
	char		sha256[SHA256_HEX_LEN + 1];
	struct stat	st;
};
/* An executable larger than this is refused (executable_too_large) before
 * it is read: hashing is the daemon's time, and a sparse file of any size
 * costs its maker nothing. Programs are far smaller. */
#define EXE_SIZE_MAX	(1024LL * 1024 * 1024)
int	 exe_resolve(const struct requester *, const char *, struct exe *, struct refusal *,
	    const char *);
int	 reach_path(const struct requester *, const char *, int, char *);
int	 reopen_regular(int, struct stat *);
int	 requester_may(const struct requester *, int, mode_t);
int	 path_replaceable(const struct requester *, const char *, char *, size_t);
int	 path_changeable_by(const struct requester *, const char *, char *, size_t);
int	 process_touchable_by(const struct requester *, pid_t, char *, size_t);

/* The denylists (shared/denylist.c, shared.h) for a resolved executable. */
enum deny_kind deny_executable(struct denylist *, const struct exe *);
int	 deny_is_loader(struct denylist *, const struct exe *);
enum deny_kind deny_word_for(struct denylist *, const struct requester *, const char *);

/* risk.c: badges, shown and never blocking. */
#define BADGE_SHELL		0x001
#define BADGE_NETWORK		0x002
#define BADGE_PACKAGE_MANAGER	0x004
#define BADGE_SYSTEM_PATH_WRITE	0x008
#define BADGE_SERVICE_RESTART	0x010
#define BADGE_LOCKOUT_PRONE	0x020
#define BADGE_INDIRECT_EXEC	0x040
#define BADGE_REMOTE		0x080
#define BADGE_LONG_TIMEOUT	0x100
#define BADGE_MIXED_SCRIPT	0x200
#define BADGE_SEALED_AT_RUN	0x400
#define BADGE_ARCHIVE_WRITABLE_DIR	0x800
#define BADGE_UNCONFINED	0x1000
#define BADGE_WORLD_WRITABLE	0x2000
#define BADGE_SETUID		0x4000
#define BADGE_RECURSIVE_HOME	0x8000
#define BADGE_SYSTEM_CHOWN	0x10000
#define BADGE_LOOKALIKE		0x20000
#define BADGE_RTL_TEXT		0x40000
#define BADGE_FILE_CAPABILITY	0x80000
#define BADGE_MOUNT		0x100000
#define BADGE_SWAP		0x200000
#define BADGE_GROUP_CHANGE	0x400000
#define BADGE_PRIVILEGED_GROUP	0x800000
#define BADGE_STARTS_SERVICE	0x1000000
#define BADGE_ARCHIVE_SETID	0x2000000
#define BADGE_ARCHIVE_DEVICE	0x4000000
#define BADGE_ARCHIVE_ESCAPE	0x8000000
#define BADGE_READS_CWD		0x10000000
#define LONG_TIMEOUT_SECONDS	3600

/* request.c: schema v1, parsed; nothing in it depends on who asks. */

/* A reviewed file ("files"; files.c). */
struct wfile {
	const char	*name;
	const char	*snapshot;	/* the path given, or NULL: inline content */
	char		 source[PATH_MAX];	/* a snapshot's path, its directory resolved */
	unsigned char	*data;		/* inline: the decoded content (owned) */
	uint64_t	 size;
	mode_t		 mode;
	char		 modestr[8];	/* "0644" */
	int		 fd;		/* a snapshot, opened and judged; else -1 */
	char		 sha256[SHA256_HEX_LEN + 1];
	int		 text;		/* valid UTF-8 without NUL */
	/* an archive (archive.c): its summary, and facts for the badges */
	json_t		*archive;	/* or NULL: not an archive */
	int		 archive_writable_dir;	/* a group/world-writable dir */
	int		 archive_setid;		/* a set-id member (not a directory) */
	int		 archive_device;	/* a device or FIFO member */
	int		 archive_escape;	/* absolute, "..", or a link out */
	int		 archive_unscanned;	/* not fully read: bound or damage */
	int		 used;
	char		 placeholder[72];	/* "{file:NAME}": argv as the rules read it */
};

struct wcommand {
	const char	 *id;
	int		  as_user;
	const char	**argv;		/* NULL-terminated; borrowed */
	struct wfile	**file;		/* per argv entry: the file it names, or NULL */
	size_t		  argc;
	const char	 *command;	/* YOU shell string, or NULL */
	const char	 *why;
	char		  cwd[PATH_MAX];	/* "" until validated: the home */
	long long	  timeout;	/* 0: none given */
	struct exe	  exe;
	int		  sealed_at_run;	/* exe.path is created by an earlier command */
	unsigned	  badges;
};

struct wrequest {
	json_t		 *json;		/* owns every borrowed string */
	const struct requester *viewer;	/* whose lookups (reach_path); NULL: ours */
	const char	 *reason;
	struct wcommand	 *cmds;
	size_t		  ncmds;
	const char	 *run_as;
	char		  cwd[PATH_MAX];
	json_t		 *env;		/* borrowed object of strings */
	int		  stop_on_failure;
	const char	 *output_to_agent;
	long long	  gate_timeout;	/* the review window, resolved */
	long long	  timeout;	/* default per command; 0: none */
	const char	 *machine;	/* NULL: this host */
	char		  target_host[256];	/* a remote machine's host name, as it says */
	char		  target_dest[320];	/* and its destination */
	char		  target_sudo[33];	/* the account whose sudo runs the batch */
	const char	 *next_prompt;
	unsigned	  badges;
	int		  nroot, nuser;
	struct wfile	 *files;
	size_t		  nfiles;
};
json_t	*request_load(const char *, size_t, struct refusal *);
int	 request_parse(const char *, size_t, struct wrequest *, struct refusal *);
int	 request_parse_for(const char *, size_t, const struct requester *, struct wrequest *,
	    struct refusal *);
void	 request_free(struct wrequest *);

/* argscan.c: what a ROOT command's argv would make root run (docs/design.md §3,
 * beyond SASE); the getopt-style matching and the sed script scan are
 * exported for the unit tests. */
int	 root_argv_check(struct denylist *, const struct wcommand *, size_t,
	    const struct requester *, struct refusal *);
int	 root_argv_text(struct denylist *, const struct wcommand *, size_t, struct refusal *);
int	 opt_abbrev(const char *, const char *);
int	 sed_script_runs(const char *);

/* operands.c: which argv words of a known file tool name files. */
enum role {
	ROLE_UNKNOWN,		/* not a tool known here: could be anything */
	ROLE_OPTION,		/* an option (or "--") */
	ROLE_PATH,		/* an operand that is a file, found from the cwd */
	ROLE_VALUE_PATH,	/* an option's value that is one (-t DIR, --reference=F) */
	ROLE_LINK_TARGET,	/* ln -s's target, found from the link's directory */
	ROLE_MODE,		/* a file mode: chmod's, install -m's */
	ROLE_OTHER,		/* an owner, a script, a size, a member name ... */
};
struct operands {
	size_t		 argc;
	enum role	*role;	/* per argv word; an option's joined value has its role */
	size_t		*at;	/* where that value starts ("--mode=", "-t", "of=") */
	int		 recursive;	/* -R, --recursive (rm -r) */
};
int	 argv_operands(const struct wcommand *, struct operands *);
void	 operands_free(struct operands *);
size_t	 wrapped_command(const struct wcommand *, struct wcommand *);

/* files.c: reviewed files. blob.c: their content in the state directory
 * (STATE/blobs/sha256/HEX). */
int	 files_parse(struct wrequest *, struct refusal *);
struct wfile *files_ref(struct wrequest *, json_t *, const char *, struct refusal *);
int	 files_all_used(const struct wrequest *, struct refusal *);
int	 files_judge(struct wrequest *, const struct requester *, struct refusal *);
int	 files_deny(struct denylist *, const struct wcommand *, const char *, struct refusal *);
json_t	*files_manifest(const struct wrequest *);
void	 files_free(struct wrequest *);
int	 blobs_store(const struct wrequest *, const char *, struct refusal *);
struct store;
int	 blobs_lock(const char *);
int	 blobs_admit(struct store *, int, const struct wrequest *, int64_t, struct refusal *);
json_t	*blobs_collect(struct store *, int64_t, int64_t, int);
int	 blob_open(const char *, const char *, uint64_t);
int	 blob_link(const char *, const char *, uint64_t, int, char *, size_t);
char	*blob_text(const char *, const json_t *, size_t, const char **);

/* archive.c: reviewed files that are archives, read for their members. */
#define ARCHIVE_ENTRIES_MAX	100000	/* members read */
#define ARCHIVE_LIST_MAX	1000	/* members listed, the flagged ones first */
#define ARCHIVE_BYTES_MAX	(256LL * 1024 * 1024)	/* decompressed, per request */
#define ARCHIVE_STRING_MAX	1024	/* of a member's name or link target, kept */
void	 archive_scan(struct wfile *, const void *, size_t, int64_t *);
void	 archive_lines(const json_t *, int, void (*)(void *, int, const char *), void *);
json_t	*blob_archive(const char *, const json_t *);
void	 blob_archives(const char *, json_t *);

/* validate.c: the rules, judged for the requester; fills its defaults. */
int	 word_paths(const char *, int (*)(void *, const char *), void *);
int	 validate_request(struct wrequest *, const struct requester *, struct refusal *);
int	 validate_remote_text(struct wrequest *, struct refusal *);
void	 risk_all(struct wrequest *);

/* risk.c */
unsigned risk_command(const struct wcommand *, const struct wrequest *);
json_t	*badges_json(unsigned);

/* normalize.c: the manifest of a validated request (docs/design.md §4). */
json_t	*manifest_build(const struct wrequest *, const char *, const char *);

/*
 * submit.c: bytes to a pending gate. EXIT_OK with the descriptor,
 * EXIT_REFUSED with the refusal (nothing stored), or EXIT_INTERNAL after
 * saying why.
 */
int	 gate_submit(struct store *, const char *, size_t, const struct requester *,
	    const char *, const char *, json_t **, struct refusal *);
int	 gate_submit_answered(struct store *, const char *, size_t, const struct requester *,
	    const char *, const char *, const json_t *, const char *, json_t **,
	    struct refusal *);

#endif
