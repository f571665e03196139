/* SPDX-License-Identifier: ISC */
/*
 * Between supervise.c (the listener; who made a call) and intercept.c
 * (what each call may do): one notification being answered, and the
 * answers. Only those two include this.
 */
#ifndef WARRANT_INTERCEPT_H
#define WARRANT_INTERCEPT_H

#include "supervise.h"

/* calls newer than the C library's headers: the same number on every
 * architecture (the kernel's common table, from 424 on) */
#define SC_NR_CACHESTAT		451
#define SC_NR_FCHMODAT2		452
#define SC_NR_MAP_SHADOW_STACK	453
#define SC_NR_FUTEX_WAKE	454
#define SC_NR_FUTEX_WAIT	455
#define SC_NR_FUTEX_REQUEUE	456
#define SC_NR_STATMOUNT		457
#define SC_NR_LISTMOUNT		458
#define SC_NR_LSM_GET_SELF_ATTR	459
#define SC_NR_LSM_SET_SELF_ATTR	460
#define SC_NR_LSM_LIST_MODULES	461
#define SC_NR_MSEAL		462
#define SC_NR_SETXATTRAT	463
#define SC_NR_GETXATTRAT	464
#define SC_NR_LISTXATTRAT	465
#define SC_NR_REMOVEXATTRAT	466
#define SC_NR_OPEN_TREE_ATTR	467
#define SC_NR_FILE_GETATTR	468
#define SC_NR_FILE_SETATTR	469
#define SC_NR_KNOWN_LAST	469	/* calls above it fail with ENOSYS */

/* newer than Debian 12's headers (linux/seccomp.h, Linux 6.6) */
#define SUPERVISE_NOTIF_SET_FLAGS	_IOW('!', 4, __u64)	/* SECCOMP_IOCTL_ */
#define SUPERVISE_FD_SYNC_WAKE_UP	(1UL << 0)	/* SECCOMP_USER_NOTIF_ */

struct seccomp_notif;
enum { REC_EXECUTED, REC_WRITTEN, REC_REFUSED };
struct call {
	struct supervisor *sv;
	const struct seccomp_notif *req;
	pid_t		 tid;
	int		 cwdfd;		/* its cwd, once opened; -1 */
	struct judge_ctx jc;
	uid_t		 fsuid;
	gid_t		 fsgid;
	int		 ngroups;
	mode_t		 umask;
	char		 base[PATH_MAX];	/* the start directory, as shown */
};
void	 intercept(struct call *);
json_t	*sv_record_string(const char *, size_t);
void	 sv_note(struct supervisor *, int, json_t *);
void	 sv_respond(const struct call *, int, int64_t, uint32_t);
void	 sv_refuse(const struct call *, const char *, const char *, const char *);
void	 sv_respond_fd(const struct call *, int, int);
int	 sv_still_valid(const struct call *);
int	 sv_proc_open(pid_t, const char *, int);
void	 sv_proc_readlink(pid_t, const char *, char *, size_t);
void	 sv_as_caller(const struct call *, int);
void	 sv_as_self(const struct call *);

#endif
