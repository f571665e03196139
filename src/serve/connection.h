/* SPDX-License-Identifier: ISC */
/*
 * A requester connection's fields: connection.c (what an operation does with
 * it) and listen.c (the loop) only; everyone else has serve.h's calls.
 */
#ifndef WARRANT_SERVE_CONNECTION_H
#define WARRANT_SERVE_CONNECTION_H

struct conn {
	int		 fd;
	struct peer	 peer;
	char		*in;		/* SERVE_LINE_MAX bytes */
	size_t		 inlen;
	char		*out;
	size_t		 outlen, outoff;
	int64_t		 deadline;	/* ms: the next message is due; 0 while busy */
	int		 busy;		/* an operation has not sent its final reply */
	int		 eof;		/* the peer sends nothing more */
	int		 dead;		/* close now */
	char		 wait_id[GATE_ID_LEN + 1];
	int64_t		 wait_until;	/* epoch seconds */
	int64_t		 next_beat;	/* ms */
	pid_t		 child;		/* conn_fork's, or 0 */
	int		 child_fd;	/* its result, as it comes */
	char		*child_out;
	size_t		 child_len;
	int64_t		 child_deadline;	/* ms */
	json_t		*child_msg;	/* the message it works on */
};

void	 conn_track(struct conn **, size_t *);
void	 conn_flush(struct conn *);
int	 conn_child_reap(struct conn *, int);
void	 conn_child_forget(struct conn *);

#endif
