/* SPDX-License-Identifier: ISC */
/* The root runner's parts outside runner.c. */
#ifndef RUNNER_H
#define RUNNER_H

/* approvals.c: the two-person rule, before anything runs */
void	 reviews_verify(const json_t *, const char *, uid_t, uid_t, struct tp_policy *);
void	 passkey_approval(const json_t *, const char *, int, uid_t, const char *);

/* journal.c: a ROOT command's structured entry in the systemd journal */
int	 journal_send(const char *const *);

#endif
