/* SPDX-License-Identifier: ISC */
/*
 * The runner's I/O log: each ROOT command's output recorded in sudo's I/O
 * log format (replayable with sudoreplay) under a root-only directory
 * fixed at build time (WARRANT_IOLOG_DIR).
 */
#ifndef WARRANT_IOLOG_H
#define WARRANT_IOLOG_H

#include <sys/types.h>
#include <limits.h>
#include <stdint.h>
#include <time.h>

/* How much of one command's output (stdout and stderr together) is kept. */
#define IOLOG_MAX	(1024ULL * 1024 * 1024)
#define IOLOG_ID_LEN	8	/* "00/00/01" */

/* What stays the same for every session of a batch, learned before the
 * runner lets go of the terminal. */
struct iolog_host {
	char	 dir[PATH_MAX];
	char	 tty[PATH_MAX];		/* the terminal sudo ran the runner on, or "unknown" */
	int	 lines, cols;		/* its size (24x80 when unknown) */
	unsigned long sessions;		/* ids 1..sessions, then 1 again (the oldest) */
};

/* One command's session. */
struct iolog_info {
	const char	 *command;	/* the executable's path, as it ran */
	char *const	 *argv;
	const char	 *cwd;
	const char	 *submituser;	/* the reviewer (SUDO_USER) */
	const char	 *runuser;
	uid_t		  runuid;
	gid_t		  rungid;
	const char	 *request_id, *command_id;
};

struct iolog {
	int		 dfd;		/* the session directory */
	int		 fd[2];		/* timing, stdout */
	char		 id[IOLOG_ID_LEN + 1];
	struct timespec	 last;		/* of the previous event */
	uint64_t	 bytes, max;
	char		 error[160];	/* what was not recorded, or "" */
};

int	 iolog_prepare(struct iolog_host *, const char *, unsigned long, char *, size_t);
int	 iolog_open(struct iolog *, const struct iolog_host *, const struct iolog_info *,
	    char *, size_t);
void	 iolog_write(void *, const char *, size_t);
void	 iolog_close(struct iolog *);
int	 iolog_seq_format(unsigned long, char [IOLOG_ID_LEN + 1]);
int	 iolog_seq_parse(const char *, size_t, unsigned long *);

#endif
