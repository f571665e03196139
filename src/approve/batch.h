/* SPDX-License-Identifier: ISC */
/*
 * Inside an approval: the batch (the state of one approval and its run
 * directory), the executors that run it, and the sudo handoff. Only
 * src/approve/ includes this.
 */
#ifndef BATCH_H
#define BATCH_H

#include <signal.h>
#include <sys/types.h>

#include "warrant.h"

#define RECORD_MAX	(8 * 1024 * 1024)
#define SUDO_ENV_MAX	8

/* The state of one approval. */
struct batch {
	struct store	*st;
	const char	*gate_id;
	json_t		*gate;		/* from the store; owns manifest */
	json_t		*manifest;	/* the sealed manifest of the whole request */
	json_t		*run;		/* the run manifest: the approved subset + user_env */
	json_t		*selected;	/* run's commands */
	char		 sha[SHA256_HEX_LEN + 1];	/* seal of the approved subset */
	char		 run_sha[SHA256_HEX_LEN + 1];	/* of the run manifest's bytes */
	int64_t		 attempt;
	char		 run_dir[PATH_MAX];
	int		 run_fd;
	int		 tty;
	json_t		*entries;	/* one per selected command, in order */
	json_t		*granted;	/* run by grants: command id -> grant id */
	json_t		*stopped;	/* {by, at}: the reviewer stopped it, or NULL */
	int		 passkey;	/* the runner checked the reviewer's passkey */
	char		 outcome[32];	/* why it failed, for the answer's JSON */
	char		 message[512];
};

/* How an executor left the batch. */
enum exec_end {
	EXEC_DONE,		/* entries complete: settle */
	EXEC_STARTED,		/* detached: the runner goes on, a finalizer settles */
	EXEC_NOTHING_RAN,	/* refused or not authenticated: the gate stays pending */
	EXEC_BROKEN,		/* stopped part way: what is not known is "may have run" */
};

/* An executor runs the selected commands of a prepared batch. */
typedef enum exec_end executor(struct batch *, const struct approve_opts *);
executor exec_local;		/* exec-local.c: YOU commands (and --via sudo) from answer */
executor exec_runner;		/* exec-runner.c: the whole batch in warrant-runner */
executor exec_remote;		/* exec-remote.c: the batch in an enrolled machine's runner */

/* batch.c */
void	 tell(struct batch *, const char *, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
void	 tell_unwritable(struct batch *, const char *, int);
int	 is_root(const json_t *);
int	 batch_load(struct batch *, struct store *, const char *);
void	 batch_free(struct batch *);
int	 batch_seal_run(struct batch *, json_t *);
json_t	*run_subset(const json_t *, json_t *);
json_t	*commands_select(const json_t *, const char *const *, size_t, const char **);
json_t	*requester_json(const json_t *);
int	 batch_link_files(struct batch *);
void	 batch_mark_rest(struct batch *, const char *, const char *);
int	 batch_record(struct batch *);
json_t	*read_record(int, const char *);
int	 runner_live(int);
int	 runner_await(int, int64_t);
/* cosign-check.c: the two-person rule's front end */
json_t	*batch_binding(const struct batch *, struct tp_binding *);
int	 approve_reviews(struct batch *, int, int);
int	 batch_from_disk(struct batch *);
int	 batch_settle(struct batch *, const char *, const char *, json_t **);
json_t	*user_env_json(void);

/* grant.c */
int	 grants_may_make(struct batch *, const json_t *);
json_t	*grants_make(struct batch *, long long);
int	 grants_find(struct batch *, const json_t *);

/* sudo.c: sudo on the reviewer's terminal, and the stop signals */
extern volatile sig_atomic_t stop_requested;
#define RUNNER_ARGV_MAX	12
void	 runner_argv(const char *[RUNNER_ARGV_MAX], const char *, const char *, int, int);
int	 run_sudo(int, const char *const *, char *, size_t);
int	 sudo_ok(int);
void	 sudo_forget(void);
void	 sudo_env(char *[SUDO_ENV_MAX]);
void	 sudo_env_free(char *[SUDO_ENV_MAX]);
void	 stop_signals_catch(struct sigaction *);
void	 stop_signals_restore(const struct sigaction *);
#define STOP_SIGNALS	7

/* authenticator.c: `answer --passkey` */
int	 passkey_ready(struct batch *, int, int);
int	 passkey_assert(struct batch *, int);
/* fidokey.c: a security key on this computer, through libfido2 */
int	 fido_key_present(void);
int	 fido_key_assert(const struct passkey_cred *, const char *, char *, size_t, char *,
	    size_t);

/* userenv.c */
struct passwd;
char	**userenv_build(const struct passwd *);
void	 userenv_free(char **);

/* lease.c */
#define LEASE_HELD	(-1)	/* lease_take: another approval holds it */
#define LEASE_FAILED	(-2)	/* lease_take: the lease file cannot be used */
int	 lease_take(const char *, const char *, time_t, char *, size_t, char [PATH_MAX]);
void	 lease_release(int);

#endif
