/* SPDX-License-Identifier: ISC */
/*
 * Remote machines (docs/remote.md): enrolled ssh targets, their pinned
 * host keys and runner hashes, the one way warrant starts ssh, and the
 * calls of `warrant exec` on a target. Every word that reaches a remote
 * shell is quoted by sh_quote (shared/text.c).
 */
#ifndef REMOTE_H
#define REMOTE_H

#include <stddef.h>
#include <jansson.h>

#include "warrant.h"

#define SSH_PATH		"/usr/bin/ssh"
#define ENV_PATH		"/usr/bin/env"	/* on the target: the resolve step's clean environment */
#define MACHINES_FILE		"machines.json"
#define KNOWN_HOSTS_FILE	"known_hosts"
#define REMOTE_SCHEMA		1	/* the `warrant exec` contract's schema */
#define PROBE_TIMEOUT		15	/* seconds for a batch call (connect: 5) */
#define REMOTE_OUT_MAX		(8 * 1024 * 1024)

/* exit statuses of `warrant exec` on a target that the caller reads */
#define EXEC_CHANGED		5	/* the target's runner is not the enrolled one */
#define EXEC_STAGE_FAILED	6	/* staging or the run's set-up failed: nothing ran */

/* dest.c: ssh://USER@HOST[:PORT], checked. */
struct dest {
	char		user[33];
	char		host[256];
	unsigned	port;		/* 0: ssh's default */
};
int	 dest_parse(const char *, struct dest *, struct refusal *);
int	 dest_user_ok(const char *, size_t);
void	 dest_format(const struct dest *, char *, size_t);
int	 machine_name_ok(const char *);

/* machines.c: STATE/machines.json (0600) and STATE/known_hosts, made from it. */
json_t	*machines_load(const char *);
int	 machines_save(const char *, const json_t *);
json_t	*machine_get(const char *, const char *, struct refusal *);
const char *machine_sudo_user(const json_t *);
const char *machine_sudo_warrant(const json_t *);

/* ssh.c */
struct ssh_call {
	const char		*state;		/* the state directory */
	const json_t		*machine;	/* its record: name, user, host, port */
	const char		*user;		/* NULL: the record's user */
	int			 login;		/* through a login shell (enrollment only) */
	const char		*known_hosts;	/* NULL: STATE/known_hosts, strict */
	int			 tty;		/* -1: batch, no tty; else run on it (ssh -t) */
	const char *const	*words;		/* the remote command's argv */
	const char		*in;		/* stdin bytes (batch only) */
	size_t			 inlen;
	int			 timeout;	/* seconds (batch only) */
};
struct ssh_result {
	int		 status;	/* wait status, -1: not started */
	int		 timed_out;
	int		 overflow;	/* stdout was longer than REMOTE_OUT_MAX: cut */
	char		*out;		/* stdout (batch only), NUL-terminated */
	size_t		 outlen;
	char		 err[2048];	/* the start of stderr (batch only) */
};
int	 ssh_run(const struct ssh_call *, struct ssh_result *);
void	 ssh_result_free(struct ssh_result *);
int	 ssh_answered(const struct ssh_result *);
const char *ssh_failure(const struct ssh_result *, char *, size_t);

/* contract.c: the target's `warrant exec --contract`, compared with the
 * enrolled record. */
json_t	*contract_local(void);
json_t	*remote_answer(const char *);
int	 contract_probe(const char *, const json_t *, const char *, const char *,
	    const char *, json_t **, struct refusal *);
int	 contract_matches(const json_t *, const json_t *, struct refusal *);

/* resolve.c: a request's executables, resolved and hashed on its target;
 * its answer read as untrusted input. */
int	 resolve_answer_read(struct wrequest *, const json_t *, const char *, struct refusal *);
json_t	*remote_ask(const char *, struct wrequest *, struct refusal *);
int	 remote_apply(const char *, struct wrequest *, const json_t *, struct refusal *);
int	 remote_resolve(const char *, struct wrequest *, struct refusal *);

#endif
