/* SPDX-License-Identifier: ISC */
/*
 * Approving a gate (`warrant answer --run`, the console's Enter) and
 * finishing approvals whose process is gone. What the rest of warrant
 * calls; the parts live in batch.h.
 */
#ifndef APPROVE_H
#define APPROVE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

struct store;

struct approve_opts {
	int		 detach;	/* 1 detach, 0 stay, -1 the default rule */
	int		 via_sudo;	/* ROOT commands through sudo, not the runner */
	const char	*expect;	/* the manifest hash the reviewer saw, or NULL */
	int		 you_only;	/* refuse when any selected command is ROOT */
	long long	 grant_seconds;	/* > 0: grant the approved commands this long */
	int		 granted;	/* run only by live grants (no review) */
	int		 passkey;	/* the reviewer's passkey signs the run (authenticator.c) */
	int		 passkey_relay;	/* asked through standard input (the daemon's page) */
};
json_t	*approve_run(struct store *, const char *, const char *const *, size_t,
	    const struct approve_opts *, int *);
int	 approve_guard(void);

/* cosign-check.c: the two-person rule, seen from a gate */
#include <sys/types.h>
struct tp_binding;
json_t	*review_binding(const json_t *, const char *const *, size_t, uid_t, char *, size_t);
void	 binding_tp(const json_t *, struct tp_binding *);

/* grant.c: a gate just stored that grants cover is run by them */
void	 grants_offer(struct store *, const char *);
long long grant_duration_parse(const char *);
/* grantable.c: may command idx of a gate (store_gate's) be granted
 * (docs/grants.md)? */
struct refusal;
int	 grant_judge(const json_t *, size_t, struct refusal *);

/* finish.c */
int	 approve_recover(struct store *);
int	 refresh_store(struct store *);
int	 open_store_current(struct store *);
int	 finalize_main(const char *, long long);

/* askstop.c: the reviewer stops a running batch, and sees its live output */
struct refusal;
int	 approve_stop(struct store *, const char *, struct refusal *);
int	 approve_stop_wait(struct store *, const char *, int64_t);
json_t	*approve_live(struct store *, const char *);
const char *live_last_lines(const char *, int);
void	 live_print(FILE *, const json_t *, int);

/* ledgercheck.c: the runner's ledger as the unprivileged side reads it */
struct ledger_status {
	const char	*name;
	const char	*meaning;
};
extern const struct ledger_status ledger_statuses[];	/* ends with a NULL name */
int	 ledger_check(const json_t *, const char *, const char *, const char *const *,
	    size_t, char *, size_t);
int	 ledger_all_ran(const json_t *);
void	 ledger_filter(json_t *, const char *);
int	 confinement_check(const json_t *, char *, size_t);

/* enrol.c: a reviewer's passkey, staged by the page, adopted by root */
#define PASSKEY_STAGED		"passkey-new.json"	/* in the reviewer's state */
#define PASSKEY_STAGED_MAX	16384
#define PASSKEY_CODE_LEN	8	/* the code root prints: Crockford base32 */
struct passkey_cred;
int	 passkey_code_new(char [PASSKEY_CODE_LEN + 1]);
int	 passkey_code_canon(const char *, char [PASSKEY_CODE_LEN + 1]);
int	 passkey_enrol_challenge(const char *, const char *, unsigned char [32]);
int	 passkey_rp_id_ok(const char *);
int	 passkey_enrol_check(const char *, size_t, const char *, const char *,
	    struct passkey_cred *, int *, char *, size_t);

#endif
