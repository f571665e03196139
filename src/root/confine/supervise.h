/* SPDX-License-Identifier: ISC */
/*
 * The run-time supervisor of ROOT commands (promise 8): judge.c resolves
 * a path as root would, from descriptors, judging every entry met for the
 * requester; supervise.c installs the seccomp filter in a command and
 * answers the calls it reports.
 */
#ifndef WARRANT_SUPERVISE_H
#define WARRANT_SUPERVISE_H

#include "../root.h"

/* judge.c */
#define JUDGE_FOLLOW	0x01	/* follow a final symlink */
#define JUDGE_WRITE	0x02	/* the call creates, writes or moves the final entry */
#define JUDGE_DIR_OK	0x04	/* a final directory may be the requester's (listing, rm -r) */
#define JUDGE_MISSING	0x08	/* a missing final entry (or one below it) is an answer */
#define JUDGE_EXCL	0x20	/* the call creates the final entry exclusively (O_EXCL):
				 * a new name in a sticky directory stays root's, and
				 * an existing one fails EEXIST before any judgement */
#define JUDGE_ENTRY	0x10	/* the call acts on the final entry itself (chown, unlink,
				 * mkdir): it may be one the requester can replace (then
				 * judged.replaceable) or create; its object is not judged */

struct judged {
	int		 dirfd;		/* O_PATH: the directory that holds the final entry */
	int		 objfd;		/* O_PATH: the final entry judged; -1: not opened */
	char		 name[NAME_MAX + 1];	/* the final entry in it ("." for a directory) */
	int		 exists;
	int		 magic;		/* a procfs link to a process's file: open it to follow */
	int		 replaceable;	/* JUDGE_ENTRY: the requester can replace the final entry */
	struct stat	 st;		/* of the final entry, when it exists and is not magic */
	char		 shown[PATH_MAX];	/* the path as resolved, for the ledger */
	char		 why[PATH_MAX + 256];	/* why it was refused */
};

struct judge_ctx {
	const struct writer *w;	/* the requester */
	int		 rootfd;	/* the caller's root (O_PATH); -1: /proc/TID/root when needed */
	int		 own_root;	/* rootfd was opened here: the caller closes it */
	pid_t		 tgid, tid;	/* the caller: /proc/self and /proc/thread-self */
};

int	 judge_path(struct judge_ctx *, int, const char *, const char *, int,
	    struct judged *);
void	 judged_close(struct judged *);
int	 judge_object(const struct writer *, int, const struct stat *, int, const char *,
	    char *, size_t);

/* intercept.c */
int	 touches_uid(const struct writer *, uid_t);

/* ports.c */
struct sockaddr_storage;
int	 address_local(const struct sockaddr_storage *);
unsigned unprivileged_port_start(void);
int	 port_holder(pid_t, const struct sockaddr_storage *, int, uid_t *, unsigned long *);
int	 tcp_peer_owner(pid_t, const struct sockaddr_storage *, const struct sockaddr_storage *,
	    uid_t *, unsigned long *);
int	 unix_listener(const struct stat *, const char *, size_t, unsigned long *);

/* held.c */
int	 held_for_write(int);
int	 requester_holds(const struct writer *, const struct stat *, char *, size_t);
int	 requester_serves(const struct writer *, unsigned long, const char *, char *, size_t);

/* interp.c */
int	 elf_interp(int, char *, size_t);
int	 binfmt_handlers(const unsigned char *, size_t, const char *, char (*)[PATH_MAX], int);

/* acts.c: what a command's argv shows it does (the supervisor allows it) */
#define ACT_SETID	0x01	/* set-id bits, file capabilities */
#define ACT_DEVICE	0x02	/* device nodes */
#define ACT_GIVE	0x04	/* the requester's files to another owner */
int	 mode_sets_id(const char *);
unsigned argv_acts(const char *, char *const []);

/* syscalls.c: every system call, and what the supervisor does with it */
enum syscall_kind { SC_ALLOWED, SC_DONE, SC_CONTINUED, SC_WHEN, SC_ENOSYS };
struct syscall_rule {
	int		 nr;
	const char	*name;
	enum syscall_kind kind;
	const char	*why;		/* NULL: SC_ALLOWED, reaching nothing by name */
	unsigned	 when_arg;	/* SC_WHEN: notified when args[when_arg] ... */
	uint32_t	 when_bits;	/* ... & when_bits, or != 0 when this is 0 */
};
extern const struct syscall_rule syscall_rules[];
extern const size_t syscall_nrules;

/* supervise.c */
struct supervisor {
	const struct writer *requester;
	unsigned	 acts;		/* ACT_*: what the command's argv shows */
	int		 listener;	/* -1: none */
	json_t		*executed, *written, *refused;
	size_t		 omitted[3];
	unsigned long	 calls;		/* notifications received (the benchmark's count) */
	char		 probe_why[256];
};

int	 supervise_probe(char *, size_t);
int	 supervise_unconfined(void);
void	 supervise_init(struct supervisor *, const struct writer *);
int	 supervise_child(int);
int	 supervise_receive(struct supervisor *, int, pid_t);
void	 supervise_burst(struct supervisor *);
json_t	*supervise_record(struct supervisor *);
void	 supervise_end(struct supervisor *);

#endif
