/* SPDX-License-Identifier: ISC */
/*
 * warrant mcp: the Model Context Protocol server an agent starts on its
 * stdio. One process per session, single-threaded: a poll loop reads
 * JSON-RPC lines, and a timer watches the gates of the pending calls.
 */
#ifndef MCP_H
#define MCP_H

#include "warrant.h"

#define MCP_LINE_MAX		(1024 * 1024)	/* one message, bytes */
#define MCP_MAX_CALLS		32		/* pending tools/call per session */
#define MCP_TICK_MS		250		/* how often pending gates are read */
#define MCP_PROGRESS_MS		5000		/* progress notifications while pending */
#define MCP_READ_FAILURES	40		/* consecutive failed reads before giving up */
/* how long a call waits before it answers "pending": under the 60 s after
 * which common clients give up on a call (WARRANT_MCP_WAIT sets another) */
#define MCP_ANSWER_SECONDS	45
#define MCP_ANSWER_MAX		86400

#define MCP_LATEST_VERSION	"2025-11-25"
#define MCP_TOOL_NAME		"request_commands"
#define MCP_TOOL_OLD_NAME	"request_root_commands"
#define MCP_WAIT_TOOL		"wait_for_review"
/* a pending call's progress message (gate, gate, seconds left); `warrant
 * skill` shows one */
#define MCP_PROGRESS_TEXT	"%s waits for the reviewer (warrant answer %s); %lld s left to answer"

/* JSON-RPC 2.0 error codes. */
#define RPC_PARSE_ERROR		(-32700)
#define RPC_INVALID_REQUEST	(-32600)
#define RPC_METHOD_NOT_FOUND	(-32601)
#define RPC_INVALID_PARAMS	(-32602)
#define RPC_INTERNAL_ERROR	(-32603)

/* A tools/call waiting for its gate to settle. */
struct mcp_call {
	json_t		*id;		/* the request id, as the client sent it */
	json_t		*token;		/* its progressToken, or NULL */
	char		 gate[GATE_ID_LEN + 1];
	int64_t		 expires;	/* end of the review window, epoch seconds, or 0 */
	long long	 window;	/* its length, seconds */
	int64_t		 started_ms;	/* monotonic */
	int64_t		 answer_ms;	/* answer "pending" then, monotonic */
	int64_t		 next_progress_ms;
	int64_t		 last_progress;
	int		 failures;	/* consecutive failed reads of the gate */
};

struct mcp_session {
	int		 out;		/* the protocol stream (the original stdout) */
	int		 structured;	/* the revision has structuredContent */
	char		 version[16];	/* negotiated protocol revision */
	char		 agent[65];	/* who the gates say asked */
	const char	*to;		/* the reviewer's daemon, or NULL (link_open) */
	long long	 answer_s;	/* a call answers "pending" after this long */
	struct link	 link;		/* where the gates are */
	int		 linked;
	struct mcp_call	 calls[MCP_MAX_CALLS];
	size_t		 ncalls;
};

/* rpc.c: writing messages; nothing else ever reaches the protocol stream. */
int	 rpc_send(struct mcp_session *, json_t *);
int	 rpc_result(struct mcp_session *, json_t *, json_t *);
int	 rpc_error(struct mcp_session *, json_t *, int, const char *, ...)
	    __attribute__((format(printf, 4, 5)));
int	 rpc_notify(struct mcp_session *, const char *, json_t *);
int	 rpc_valid_id(const json_t *);

/* tool.c: the tools as tools/list shows them. */
json_t	*tool_list(long long);
int	 tool_known(const char *);
const char *tool_instructions(void);
/* the parts of the tool's description, which `warrant skill` prints too */
extern const char tool_about[], tool_outcomes[], tool_waiting[];
extern const char *const tool_rules[];

/* calls.c: starting, watching, cancelling and withdrawing calls. */
int	 calls_start(struct mcp_session *, json_t *, json_t *, json_t *);
int	 calls_wait(struct mcp_session *, json_t *, json_t *, json_t *);
void	 calls_tick(struct mcp_session *);
int	 calls_find(struct mcp_session *, const json_t *);
void	 calls_cancel(struct mcp_session *, const json_t *);
void	 calls_withdraw_all(struct mcp_session *, const char *);

/* result.c: CallToolResult objects. */
json_t	*result_text(const char *, int, json_t *, int);
json_t	*result_refusal(const struct refusal *, int);
json_t	*result_settled(json_t *, int);
json_t	*result_pending(json_t *, int64_t, long long, int);


/* server.c */
int	 mcp_serve(const char *, long long);
void	 mcp_handle_line(struct mcp_session *, const char *, size_t);

#endif
