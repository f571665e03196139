/*
 * Internals shared by the approval flow (approve.c), the sudo handoff
 * (sudo.c) and the completion of batches whose executor is gone
 * (recover.c). Not for the rest of warrant: it goes through warrant.h.
 */
#ifndef APPROVE_H
#define APPROVE_H

#include <signal.h>

#include "warrant.h"

#define SUDO		"/usr/bin/sudo"
#define FILE_MAX	(8 * 1024 * 1024)
#define DEFAULT_TIMEOUT	300
#define SUDO_ENV_MAX	8
#define STOP_SIGNALS	4
#define RUNNER_ALIVE	2	/* finish_from_disk: the runner still runs */

struct approval {
	struct store	*st;
	const char	*gate_id;
	json_t		*gate;
	json_t		*manifest;	/* the sealed one, from the store */
	json_t		*selected;	/* its commands that were approved */
	char		 sha[SHA256_HEX_LEN + 1];	/* of the selected subset */
	int64_t		 attempt;
	char		 run_dir[PATH_MAX];
	int		 run_fd;
	int		 tty;
	int		 authenticated;
	int		 ran_any;	/* something may have run: never pending again */
	int		 broken;	/* a runner failed part way */
	int		 group_started;	/* the last runner got past its checks */
	int		 via_sudo;	/* ROOT commands through sudo, not the runner */
	int		 sudo_caches;	/* the policy keeps a ticket: sudo -n works */
	int		 sudo_used;	/* a ROOT command ran through --via sudo */
	int		 lease;
	json_t		*entries;
	char		 message[512];
};

/* approve.c */
void	 say(struct approval *, const char *, ...) __attribute__((format(printf, 2, 3)));
int	 is_root(const json_t *);
json_t	*read_json_at(int, const char *);
int	 stop_now(const struct approval *);

/* sudo.c: sudo on the reviewer's terminal, and the stop signals */
extern volatile sig_atomic_t stop_interrupted, stop_requested;
void	 sudo_env(char *[SUDO_ENV_MAX]);
void	 sudo_env_free(char *[SUDO_ENV_MAX]);
int	 run_sudo(int, const char *const *);
int	 sudo_ok(int);
void	 sudo_forget(struct approval *);
void	 on_hangup(int);
void	 set_stop_handlers(void (*)(int), struct sigaction [STOP_SIGNALS]);
void	 restore_stop_handlers(const struct sigaction [STOP_SIGNALS]);

/* recover.c */
void	 mark_interrupted(struct approval *, size_t, const char *);
int	 settle(struct approval *, const char *, const char *, json_t **);
int	 finish_from_disk(struct approval *, json_t **);
void	 finalize_detached(struct approval *, int) __attribute__((noreturn));

#endif
