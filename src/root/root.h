/* SPDX-License-Identifier: ISC */
/*
 * The trusted base: what warrant-runner links, and the CLI may too.
 * Hashing, canonical JSON and the manifest seal, the environment policy,
 * starting children, output capture, the ledger, JSON-safe UTF-8 and a
 * few small helpers; the run-time supervisor has its own header
 * (confine/supervise.h). Nothing here includes a header from outside
 * src/root/ but the build's config.h.
 */
#ifndef WARRANT_ROOT_H
#define WARRANT_ROOT_H

#include <sys/types.h>
#include <sys/stat.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "config.h"

#define SHA256_HEX_LEN	64
#define TRUSTED_PATH	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define SUDO_PATH	"/usr/bin/sudo"	/* the sudo warrant runs and asks, never looked up */

/* util.c */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
char	*xstrdup(const char *);
int	 read_bounded(int, char **, size_t *, size_t);
int64_t	 now_seconds(void);
int64_t	 monotonic_ms(void);
int	 random_bytes(void *, size_t);
int	 write_all(int, const void *, size_t);
int	 write_sink(void *, const void *, size_t);
const char *base_name(const char *);
const char *proc_stat_fields(pid_t, char *, size_t);
int	 proc_stat(pid_t, char *, pid_t *, long long *);
long long proc_start_time(pid_t);
int	 proc_alive(pid_t, long long);
/* util.c: ASCII-only case folding and classes, never the locale's */
int	 ascii_lower(int);
int	 ascii_isdigit(int);
int	 ascii_isalnum(int);
int	 ascii_isspace(int);
int	 ascii_ncasecmp(const char *, const char *, size_t);
int	 ascii_casecmp(const char *, const char *);
const char *ascii_casestr(const char *, const char *);
/* util.c: base64url without padding (RFC 4648 §5) */
int	 b64url_encode(const unsigned char *, size_t, char *, size_t);
int	 b64url_decode(const char *, unsigned char *, size_t, size_t *);

/* sha256.c: digests, always lowercase hex (sha256_digest: the 32 bytes). */
typedef int (*sha256_sink)(void *, const void *, size_t);
int	 sha256_stream(int, uint64_t, sha256_sink, void *, char [SHA256_HEX_LEN + 1],
	    uint64_t *);
int	 sha256_fd(int, char [SHA256_HEX_LEN + 1]);
void	 sha256_bytes(const void *, size_t, char [SHA256_HEX_LEN + 1]);
void	 sha256_digest(const void *, size_t, unsigned char [32]);
int	 digest_equal(const char *, const char *);

/* utf8.c: UTF-8 without libunistring (what the runner needs). */
size_t	 utf8_decode(const unsigned char *, size_t, unsigned *);
char	*text_json_safe(const char *, size_t);

/* canon.c: canonical JSON bytes. */
char	*canon_dump(const json_t *, size_t *);

/* manifest.c: the seal of a manifest, the SHA-256 of its canonical bytes. */
char	*manifest_seal(const json_t *, char [SHA256_HEX_LEN + 1]);
int	 manifest_check(const json_t *, char *, size_t);
json_t	*manifest_parse(const char *, size_t, char *, size_t);

/*
 * The run directory: a fresh 0700 directory of the reviewer per approval.
 * `answer` writes the run manifest; the runner (root) writes its records,
 * root-owned, which readers believe only when they are owned by root.
 */
#define RUN_MANIFEST	"manifest.json"
#define RUN_LOCK	"runner.lock"	/* flock held while the runner lives */
#define RUN_STARTED	"started.json"	/* the runner passed its checks */
#define RUN_PROGRESS	"progress.json"	/* durable before each command starts */
#define RUN_LEDGER	"ledger.json"	/* the batch is over */
#define RUN_STOP	"stop"		/* the reviewer's: stop the batch (stopfile.c) */
#define RUN_LIVE	"live.json"	/* the running command's output tail (stopfile.c) */
#define RUN_OUTPUT	"output-%zu.log"
#define RUN_BLOB	"blob-%s"		/* a file's sealed content, by its SHA-256 */
#define RUN_FILES	"files"		/* YOU commands' staged files */
#define RUNNER_REFUSED	3	/* exit status: refused before anything ran */
#define RUNNER_BROKEN	4	/* exit status: stopped after starting; may have run */

#define RUNNER_REVIEWS	5	/* exit status: the two-person rule's reviews are missing */

/*
 * twoperson.c: the two-person rule for ROOT (docs/two-person.md). The
 * policy says how many approvals a run with ROOT commands needs (the
 * reviewer who runs it is one) and whose; reviews are files in the spool
 * owned by their reviewers, bound to a run by tp_binding.
 */
/*
 * logship.c: ROOT commands' I/O log sessions noted for the fleet's
 * sudo_logsrvd (docs/audit.md), the policy's "log_server" (an empty host:
 * none); src/logship/ sends them with sudo_sendlog.
 */
#define LOGSHIP_SENDLOG		"/usr/sbin/sudo_sendlog"
#define LOGSHIP_OPENSSL		"/usr/bin/openssl"	/* checks the server first (TLS) */
#define LOGSHIP_SEND_TIMEOUT	20	/* seconds one session may take */
#define LOGSHIP_NAME		6	/* a note's name: "000001", the id without slashes */
struct exec_result;
struct log_server {
	char		 host[256];
	char		 port[8];
	char		 ca[PATH_MAX];	/* "": plain TCP, to a loopback address only */
	char		 cert[PATH_MAX];	/* this host's certificate (with ca) */
	char		 key[PATH_MAX];	/* its key, or "": in cert's file */
};
int	 logship_config(const json_t *, struct log_server *, char *, size_t);
int	 logship_ready(const struct log_server *, char *, size_t);
void	 logship_session(const struct log_server *, const char *, const struct exec_result *);
void	 logship_start(const struct log_server *);
int	 logship_unsent(const char *);
int	 logship_spool_open(int, char *, size_t);
int	 logship_name_ok(const char *);
int	 logship_tool_run(const char *, const char *, const char *const *, long, char *, size_t);

#define TP_APPROVALS_MAX	16
#define TP_SPOOL_DAYS		7	/* reviews older than this are swept */
struct tp_policy {
	int		 approvals;	/* 1: no rule */
	char		 group[64];
	gid_t		 gid;
	int		 unconfined;	/* "unconfined": "allow": ROOT runs without the supervisor */
	unsigned long	 iolog_sessions;	/* "iolog_max_sessions": the I/O log's ring */
	struct log_server log_server;	/* "log_server": where ROOT sessions are shipped */
};
/* The I/O log keeps this many sessions unless the policy says otherwise
 * (sudo's maxseq, smaller): the next after the last is the oldest again. */
#define IOLOG_SESSIONS_DEFAULT	10000UL
#define IOLOG_SESSIONS_MAX	2176782335UL	/* 36^6 - 1: six base-36 digits */
struct tp_binding {
	const char	*request_id;
	const char	*sha;		/* the seal of the subset that runs */
	const json_t	*ids;		/* its command ids, in order */
	uid_t		 requester;	/* 0: root, or unknown */
	uid_t		 reviewer;	/* who runs it (SUDO_UID) */
};
struct tp_tally {
	int		 approvals;	/* by other members, distinct */
	uid_t		 by[TP_APPROVALS_MAX];
	int		 denied;
	uid_t		 denied_by;
	int		 ignored;	/* files of this request that do not count */
};
int	 group_has_member(const char *, const char *, gid_t, gid_t *);
int	 tp_policy_load(struct tp_policy *, char *, size_t);
int	 tp_is_member(const struct tp_policy *, uid_t);
json_t	*tp_review_json(const struct tp_binding *, const char *);
int	 tp_count(const struct tp_policy *, const struct tp_binding *, struct tp_tally *,
	    char *, size_t);
int	 tp_write(const struct tp_policy *, const struct tp_binding *, const char *, char *,
	    size_t);
void	 tp_sweep(const struct tp_policy *, const char *);

/*
 * stage.c: reviewed files (docs/design.md §3 files). A file has a name
 * (the command id pattern), a mode (four octal digits, no setuid, setgid
 * or sticky bit) and sealed content, copied for a batch into a fresh
 * directory and re-hashed as it is copied; an argv element {"file": NAME}
 * becomes that directory's NAME.
 */
#define FILES_MAX		64
#define FILE_INLINE_MAX		(64 * 1024)		/* decoded bytes, each */
#define FILES_INLINE_TOTAL	(1024 * 1024)		/* decoded bytes, in all */
#define FILE_SNAPSHOT_MAX	(64LL * 1024 * 1024)	/* each */
#define FILES_TOTAL_MAX		(256LL * 1024 * 1024)	/* everything, in all */
#define STAGE_ROOT		"/run/warrant-stage"	/* ROOT commands' files */
int	 id_name_ok(const char *);
int	 file_mode_parse(const char *, mode_t *);
const char *file_ref(const json_t *);
int	 argv_has_files(const json_t *);
char	**argv_strings(const json_t *, const char *);
void	 argv_strings_free(char **);
int	 stage_copy(int, const char *, int, const char *, const char *, uint64_t, mode_t,
	    uid_t, gid_t);
int	 stage_remove(int, const char *);

/* Who could replace a file (path_writable: resolved paths), or change
 * what a path names as root would resolve it (path_changeable: symlinks,
 * "..", missing entries): confine/judge.c's walk through descriptors,
 * asking path.c who may write each inode met. uid 0 asks "anyone but
 * root"; ACLs are read from the file (acl_may_write) whoever asks; self
 * is set when this process is the requester. */
struct writer {
	uid_t		 uid;
	const gid_t	*groups;
	int		 ngroups;
	int		 self;
};
int	 path_writable(const struct writer *, const char *, char *, size_t);
int	 path_changeable(const struct writer *, const char *, char *, size_t);
void	 manifest_requester(const json_t *, struct writer *, gid_t **);
int	 inode_writable(const struct writer *, int, const struct stat *);
int	 inode_owned(const struct writer *, const struct stat *);
int	 acts_on_entry(const char *, const char *const *, size_t);
int	 entry_way_changeable(const struct writer *, const char *, char *, size_t);

int	 open_regular(const char *, struct stat *);
int	 exe_lookup(const char *, char *, size_t);
/* TRUSTED_PATH's directories, each real directory once (path.c) */
#define TRUSTED_DIRS	6
struct trusted_path {
	const char	*dir[TRUSTED_DIRS];
	size_t		 n;
};
void	 trusted_path_load(struct trusted_path *);
int	 exe_lookup_in(const struct trusted_path *, const char *, char *, size_t);

/* denylist.c: nested privilege tools and interactive programs (by name,
 * by path in /etc/shells, by identity), loaded for one judgement and
 * freed after it; indirect runners and the dynamic loader. */
enum deny_kind { DENY_NONE = 0, DENY_NESTED, DENY_INTERACTIVE };
struct denylist;
struct denylist *denylist_load(void);
void	 denylist_free(struct denylist *);
enum deny_kind deny_by_name(const struct denylist *, const char *);
enum deny_kind deny_file(struct denylist *, const char *, const char *, const struct stat *,
	    const char *);
int	 deny_loader_file(struct denylist *, const char *, const char *, const struct stat *,
	    const char *);
enum deny_kind deny_word(struct denylist *, const char *);
enum deny_kind deny_content(struct denylist *, off_t, const char *);
const char *deny_code(enum deny_kind);
int	 is_indirect_runner(const char *);

/* atrun.c: an executable sealed at run time, judged and hashed now. */
int	 exe_open_sealed(const char *, const char *);
int	 exe_at_run(const char *, const struct writer *, int, char [PATH_MAX],
	    char [SHA256_HEX_LEN + 1], char *, size_t);

/* env.c: environment names that steer loading. */
int	 env_forbidden(const char *);
int	 user_env_forbidden(const char *);

/*
 * spawn.c: fork and exec with nothing of the caller's but what is named.
 * Where the child runs: its own session with no terminal, its own process
 * group, or the caller's (foreground) group, to prompt there.
 */
#define EXEC_SESSION	1
#define EXEC_GROUP	0
#define EXEC_FOREGROUND	(-1)
struct spawn_cred {		/* computed before fork: the child only sets it */
	uid_t		 uid;
	gid_t		 gid;
	gid_t		*groups;	/* supplementary, from getgrouplist */
	int		 ngroups;
};
struct supervisor;
struct spawn {
	const char	*path;		/* execve this; NULL: fexecve exefd */
	int		 exefd;		/* becomes descriptor 3 in the child */
	char *const	*argv;
	char *const	*envp;
	int		 fd[3];		/* stdin, stdout, stderr; -1: /dev/null */
	int		 group;		/* EXEC_SESSION, EXEC_GROUP or EXEC_FOREGROUND */
	const sigset_t	*ignore;	/* kept ignored (survives exec); others default */
	const char	*cwd;		/* NULL: stay */
	const struct spawn_cred *cred;	/* NULL: stay */
	mode_t		 umask;		/* 0: keep the caller's */
	struct supervisor *sv;		/* non-NULL: exec under it (supervise.c) */
};
int	 spawn_cred_init(struct spawn_cred *, const char *, uid_t, gid_t);
void	 spawn_cred_free(struct spawn_cred *);
pid_t	 spawn(const struct spawn *);
int	 close_fds(unsigned, unsigned);

/* capture.c: run a prepared command, capture a bounded tail (raw: the
 * finisher redacts it). */
#define CAPTURE_TAIL	(64 * 1024)
struct capture {
	char		ring[CAPTURE_TAIL];
	size_t		head, len;
	uint64_t	total;		/* bytes the command printed */
	int		logfd;
	uint64_t	logged, logmax;
	char		logbuf[64 * 1024];
	size_t		logbuflen;
	/* optional, set after capture_init: gets every chunk read (stdout
	 * and stderr together, in the order written) */
	void		(*sink)(void *, const char *, size_t);
	void		*sink_arg;
};
struct exec_spec {
	int		 exefd;		/* the hashed descriptor */
	char *const	*argv;
	char *const	*envp;
	const char	*cwd;
	const struct spawn_cred *cred;	/* NULL: stay */
	int		 group;		/* EXEC_SESSION, EXEC_GROUP or EXEC_FOREGROUND */
	const sigset_t	*ignore;	/* signals it starts with ignored */
	long		 timeout;	/* seconds */
	int64_t		 deadline_ms;	/* monotonic_ms() of a hard stop, or 0 */
	struct supervisor *sv;		/* non-NULL: run under it (supervise.c) */
	/* between reads while it runs: 1 stops it (its whole tree) */
	int		(*tick)(void *, struct capture *);
	void		*tick_arg;
};
struct exec_result {
	int		exit_code;	/* -1 when killed by a signal */
	int		signal;
	int		timed_out;
	int		deadline;	/* killed at deadline_ms */
	int		stopped;	/* killed because tick said stop */
	int		exec_errno;	/* nonzero: it never started */
	int64_t		duration_ms;
};
void	 capture_init(struct capture *, int, uint64_t);
void	 capture_feed(struct capture *, const char *, size_t);
void	 capture_finish(struct capture *);
char	*capture_tail(struct capture *, size_t);
int	 exec_capture(const struct exec_spec *, struct capture *, struct exec_result *);

/* ledger.c */
#define DEFAULT_TIMEOUT		300	/* a command's, in seconds, where none is set */
#if WARRANT_TEST_HOOKS
#define BATCH_GRACE_SECONDS	3	/* the e2e tests reach it in seconds */
#else
#define BATCH_GRACE_SECONDS	30
#endif
long	 batch_bound(const json_t *);
#define LEDGER_TAIL_BYTES	(8 * 1024)
#define LEDGER_FULL_BYTES	(64 * 1024)
size_t	 ledger_tail_bytes(const char *);
json_t	*ledger_entry_ran(const char *, const char *, const struct exec_result *,
	    struct capture *, const char *);
json_t	*ledger_entry_not_run(const char *, const char *, const char *, const char *);
json_t	*ledger_new(const char *, const char *, const char *, json_t *, const char *);
int	 json_write_atomic(int, const char *, const json_t *, uid_t, gid_t, mode_t, int);

/* execute.c: the one batch loop of the runner and the local executor */
struct batch_exec {
	const json_t	*cmds;		/* the commands, in request order */
	int		 stop_on_failure;
	int64_t		 deadline_ms;	/* monotonic_ms() after which none starts; 0: none */
	volatile sig_atomic_t *stop;	/* set by a signal: start no other */
	const char	*who;		/* "the runner", "warrant answer" */
	/* just before command i starts: NULL, or its entry (refused) */
	json_t		*(*judge)(void *, const json_t *, size_t);
	/* the entries so far, the last "interrupted", made durable: 0 or -1 */
	int		 (*record)(void *, json_t *);
	json_t		*(*run)(void *, const json_t *, size_t);	/* its entry */
	void		*arg;
	/* the reviewer said stop (stopfile.c): none starts, each skipped with
	 * halted_why; NULL: no such channel */
	int		 (*halted)(void *);
	const char	*halted_why;
};
json_t	*batch_execute(const struct batch_exec *, int *, int *);

/*
 * stopfile.c: the reviewer's stop, heard through RUN_STOP in the run
 * directory, and the running command's live output in RUN_LIVE.
 */
#define LIVE_TAIL	4096	/* bytes of output kept in RUN_LIVE */
struct run_watch {
	int		 dfd;		/* the run directory */
	uid_t		 reviewer;
	char		 by[64];	/* the reviewer's name */
	char		 why[96];	/* "stopped by REVIEWER" */
	int64_t		 heard_at;	/* seconds; 0: no stop heard */
	const char	*id;		/* the command in hand */
	int64_t		 written_ms;
	uint64_t	 written_total;
};
int	 stop_heard(int, uid_t);
void	 run_watch_init(struct run_watch *, int, uid_t, const char *);
int	 run_watch_halted(struct run_watch *);
json_t	*run_watch_record(const struct run_watch *);
void	 run_watch_command(struct run_watch *, const char *);
int	 run_watch_tick(void *, struct capture *);
void	 descendants_adopt(void);
void	 descendants_note(void);
size_t	 descendants_signal(int);
size_t	 descendants_alive(pid_t *, size_t);
void	 descendants_reap(void);

/* path.c: does the file's POSIX access ACL (read through getxattr, which
 * follows a final symlink: "/proc/self/fd/N" works) let the writer write
 * it? 1, 0 (no ACL, or none that does), -1 when it cannot be read. */
int	 acl_may_write(const struct writer *, const char *, const struct stat *);

/* proc.c: could the writer reach into process pid (ptrace, setns, its
 * memory): one of its uids is the writer's, or a user namespace it is in
 * (or an ancestor of it) is owned by the writer. 1 with a reason, 0, or
 * -1 when it cannot be judged (callers treat -1 as 1). */
int	 process_touchable(const struct writer *, pid_t, char *, size_t);
gid_t	*requester_groups_live(uid_t, const gid_t *, int *);
int	 uid_map_identity(int);

/*
 * passkey.c: a reviewer's WebAuthn assertion over one approval, checked by
 * root: the challenge, the enrolled credential's record and the nonces
 * already used. In order: passkey_verify, then passkey_nonce_use (the
 * nonce of the challenge), then passkey_cred_save with the new
 * passkey_sign_count, then the run; "now" is always now_seconds().
 */
#define PASSKEY_TTL_MAX		120	/* seconds an approval's expiry may lie ahead */
#define PASSKEY_NONCE_MAX	128	/* bytes of a nonce */
#define PASSKEY_ID_MAX		1023	/* bytes of a credential id (WebAuthn's bound) */
#define PASSKEY_SPKI_MAX	1024	/* bytes of a public key's SPKI DER */
struct passkey_cred {
	char		 reviewer[65];	/* the user name (id_name_ok), its record's file name */
	char		 rp_id[254];
	char		 origin[512];
	unsigned char	 id[PASSKEY_ID_MAX];
	size_t		 id_len;
	unsigned char	 spki[PASSKEY_SPKI_MAX];
	size_t		 spki_len;
	uint32_t	 sign_count;
	int64_t		 created;
};
struct passkey_assertion {	/* as the authenticator gave them */
	const unsigned char *auth_data;
	size_t		 auth_data_len;
	const char	*client_data;	/* clientDataJSON */
	size_t		 client_data_len;
	const unsigned char *sig;	/* DER ECDSA */
	size_t		 sig_len;
};
int	 passkey_challenge(const char *, const char *, const char *const *, size_t,
	    const char *, int64_t, unsigned char [32]);
struct evp_pkey_st *passkey_key(const struct passkey_cred *);	/* P-256 SPKI, or NULL */
int	 passkey_verify(const struct passkey_cred *, const struct passkey_assertion *,
	    const unsigned char [32], int64_t, int64_t, char *, size_t);
uint32_t passkey_sign_count(const struct passkey_assertion *);
int	 passkey_dir_open(const char *, char *, size_t);
int	 passkey_cred_parse(const char *, size_t, struct passkey_cred *, char *, size_t);
int	 passkey_cred_load(int, const char *, struct passkey_cred *, char *, size_t);
int	 passkey_cred_save(int, const struct passkey_cred *, char *, size_t);
int	 passkey_nonce_use(int, const char *, int64_t, char *, size_t);
/* RUN_PASSKEY: the assertion `answer --passkey` got, beside the manifest */
#define RUN_PASSKEY		"passkey.json"
#define PASSKEY_FILE_MAX	16384	/* bytes of RUN_PASSKEY */
#define PASSKEY_AD_MAX		1024	/* bytes of authenticator data */
#define PASSKEY_CD_MAX		4096	/* bytes of clientDataJSON */
#define PASSKEY_SIG_MAX		80	/* bytes of a DER ECDSA P-256 signature (72) */
struct passkey_file {
	char		 nonce[PASSKEY_NONCE_MAX + 1];	/* base64url, as hashed */
	int64_t		 expires;
	unsigned char	 auth_data[PASSKEY_AD_MAX];
	size_t		 auth_data_len;
	char		 client_data[PASSKEY_CD_MAX];
	size_t		 client_data_len;
	unsigned char	 sig[PASSKEY_SIG_MAX];
	size_t		 sig_len;
};
int	 passkey_file_parse(const char *, size_t, struct passkey_file *, char *, size_t);
void	 passkey_file_assertion(const struct passkey_file *, struct passkey_assertion *);

/* the run-time supervisor's record of a ROOT command, in the ledger */
#define CONFINE_LIST_MAX	64	/* items of each list; the rest counted */
#define CONFINE_PATH_MAX	4096	/* bytes of a path */
#define CONFINE_REASON_MAX	4352	/* bytes of a reason */
int	 is_hex64(const char *);	/* manifest.c */

#endif
