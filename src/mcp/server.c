/* SPDX-License-Identifier: ISC */
/*
 * The MCP server loop: JSON-RPC 2.0 messages, one per line, on standard
 * input; responses and notifications on the original standard output,
 * which is kept private (descriptor 1 is pointed at standard error, so
 * nothing but protocol can ever reach the client's stream). One poll loop
 * serves messages while calls wait; a timer follows their gates. The
 * session ends at end of input or on SIGTERM, SIGINT or SIGHUP, and
 * withdraws the gates of the calls still waiting.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "mcp.h"

static const char *const versions[] = {
	MCP_LATEST_VERSION, "2025-06-18", "2025-03-26", "2024-11-05", NULL
};

static volatile sig_atomic_t quit;

struct linebuf {
	char	*buf;		/* MCP_LINE_MAX bytes */
	size_t	 len;
	int	 skipping;	/* discarding the rest of an over-long line */
};

static void
on_signal(int sig)
{
	quit = sig;
}

/* A label for the gates: the client's name when it is a sane one. */
static void
set_agent(struct mcp_session *s, const json_t *info)
{
	const char *name = json_string_value(json_object_get(info, "name"));
	size_t i, n;

	if (name == NULL || (n = strlen(name)) == 0 || n >= sizeof s->agent)
		return;
	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || (unsigned char)name[i] > 0x7e)
			return;
	snprintf(s->agent, sizeof s->agent, "%s", name);
}

static int
do_initialize(struct mcp_session *s, json_t *id, json_t *params)
{
	const char *want = json_string_value(json_object_get(params, "protocolVersion"));
	const char *const *v;

	if (want == NULL)
		return rpc_error(s, id, RPC_INVALID_PARAMS,
		    "initialize needs params.protocolVersion (a string)");
	/* the client's revision when we speak it, else our latest */
	for (v = versions; *v != NULL; v++)
		if (strcmp(*v, want) == 0)
			break;
	snprintf(s->version, sizeof s->version, "%s", *v != NULL ? *v : MCP_LATEST_VERSION);
	s->structured = strcmp(s->version, "2025-06-18") >= 0;
	set_agent(s, json_object_get(params, "clientInfo"));
	warnx("mcp: session with %s, protocol %s", s->agent, s->version);
	return rpc_result(s, id, json_pack("{s:s,s:{s:{s:b}},s:{s:s,s:s,s:s},s:s}",
	    "protocolVersion", s->version,
	    "capabilities", "tools", "listChanged", 0,
	    "serverInfo", "name", "warrant", "title", "warrant", "version", WARRANT_VERSION,
	    "instructions", tool_instructions()));
}

static int
do_call(struct mcp_session *s, json_t *id, json_t *params)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	json_t *args = json_object_get(params, "arguments"), *meta, *token, *empty;
	int rc;

	if (name == NULL)
		return rpc_error(s, id, RPC_INVALID_PARAMS, "tools/call needs params.name");
	if (!tool_known(name) && strcmp(name, MCP_WAIT_TOOL) != 0)
		return rpc_error(s, id, RPC_INVALID_PARAMS, "Unknown tool: %s",
		    strlen(name) <= 64 ? name : "(name too long)");
	if (args != NULL && !json_is_object(args))
		return rpc_error(s, id, RPC_INVALID_PARAMS, "params.arguments must be an object");
	if (calls_find(s, id) >= 0)
		return rpc_error(s, id, RPC_INVALID_REQUEST,
		    "a call with this id is still pending");
	meta = json_object_get(params, "_meta");
	token = json_object_get(meta, "progressToken");
	if (token != NULL && !rpc_valid_id(token))
		token = NULL;
	empty = args == NULL ? json_object() : NULL;
	if (strcmp(name, MCP_WAIT_TOOL) == 0)
		rc = calls_wait(s, id, token, args != NULL ? args : empty);
	else
		rc = calls_start(s, id, token, args != NULL ? args : empty);
	json_decref(empty);
	return rc;
}

static int
do_request(struct mcp_session *s, const char *method, json_t *id, json_t *params)
{
	if (strcmp(method, "initialize") == 0)
		return do_initialize(s, id, params);
	if (strcmp(method, "ping") == 0)
		return rpc_result(s, id, json_object());
	if (strcmp(method, "tools/list") == 0)
		return rpc_result(s, id, tool_list(s->answer_s));
	if (strcmp(method, "tools/call") == 0)
		return do_call(s, id, params);
	return rpc_error(s, id, RPC_METHOD_NOT_FOUND, "Method not found: %s",
	    strlen(method) <= 64 ? method : "(name too long)");
}

static void
do_notification(struct mcp_session *s, const char *method, json_t *params)
{
	if (strcmp(method, "notifications/cancelled") == 0)
		calls_cancel(s, json_object_get(params, "requestId"));
	/* notifications/initialized and anything else: nothing to do */
}

/* One message. dupkey is jansson's complaint when the line repeats a key. */
static void
dispatch(struct mcp_session *s, json_t *msg, const char *dupkey)
{
	json_t *id = json_object_get(msg, "id"), *params = json_object_get(msg, "params");
	const char *method = json_string_value(json_object_get(msg, "method"));
	const char *version = json_string_value(json_object_get(msg, "jsonrpc"));
	struct refusal r;

	if (json_object_get(msg, "method") == NULL && id != NULL &&
	    (json_object_get(msg, "result") != NULL || json_object_get(msg, "error") != NULL))
		return;		/* a response: this server sends no requests */
	if (id != NULL && !rpc_valid_id(id)) {
		rpc_error(s, NULL, RPC_INVALID_REQUEST,
		    "Invalid Request: an id must be a string or an integer");
		return;
	}
	if (version == NULL || strcmp(version, "2.0") != 0 || method == NULL) {
		rpc_error(s, id, RPC_INVALID_REQUEST,
		    "Invalid Request: needs \"jsonrpc\": \"2.0\" and a method name");
		return;
	}
	if (id == NULL) {
		if (dupkey == NULL && (params == NULL || json_is_object(params)))
			do_notification(s, method, params);
		return;
	}
	if (params != NULL && !json_is_object(params)) {
		rpc_error(s, id, RPC_INVALID_PARAMS, "Invalid params: params must be an object");
		return;
	}
	if (dupkey != NULL) {
		if (strcmp(method, "tools/call") != 0) {
			rpc_error(s, id, RPC_INVALID_REQUEST, "Invalid Request: %s", dupkey);
			return;
		}
		/* as `warrant request` refuses a request with a repeated key */
		refuse(&r, "invalid_json", "$", "%s", dupkey);
		rpc_result(s, id, result_refusal(&r, s->structured));
		return;
	}
	do_request(s, method, id, params);
}

/* One line of input (without its newline): parsed, then dispatched. */
void
mcp_handle_line(struct mcp_session *s, const char *line, size_t len)
{
	json_error_t err;
	json_t *msg;
	char dupkey[160];

	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
	    line[len - 1] == '\t'))
		len--;
	if (len == 0)
		return;
	/* NUL in a string reaches request_parse, which refuses it */
	msg = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL |
	    JSON_DECODE_ANY, &err);
	if (msg == NULL) {
		snprintf(dupkey, sizeof dupkey, "%s", err.text);
		msg = json_loadb(line, len, JSON_ALLOW_NUL | JSON_DECODE_ANY, &err);
		if (msg == NULL) {
			rpc_error(s, NULL, RPC_PARSE_ERROR, "Parse error: %s (line %d, column %d)",
			    err.text, err.line, err.column);
			return;
		}
	} else
		dupkey[0] = '\0';
	if (!json_is_object(msg))
		rpc_error(s, NULL, RPC_INVALID_REQUEST, json_is_array(msg) ?
		    "Invalid Request: batches are not supported" :
		    "Invalid Request: a message must be a JSON object");
	else
		dispatch(s, msg, dupkey[0] != '\0' ? dupkey : NULL);
	json_decref(msg);
}

/* Split input into lines, each at most MCP_LINE_MAX bytes. */
static void
feed(struct mcp_session *s, struct linebuf *lb, const char *p, size_t n)
{
	const char *nl;
	size_t k;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		k = nl != NULL ? (size_t)(nl - p) : n;
		if (!lb->skipping && lb->len + k > MCP_LINE_MAX) {
			rpc_error(s, NULL, RPC_INVALID_REQUEST,
			    "Invalid Request: a message is longer than %d bytes; it was skipped",
			    MCP_LINE_MAX);
			lb->skipping = 1;
			lb->len = 0;
		}
		if (!lb->skipping) {
			memcpy(lb->buf + lb->len, p, k);
			lb->len += k;
		}
		if (nl == NULL)
			return;
		if (!lb->skipping)
			mcp_handle_line(s, lb->buf, lb->len);
		lb->skipping = 0;
		lb->len = 0;
		p = nl + 1;
		n -= k + 1;
	}
}

/* Keep the protocol stream to ourselves; fd 1 becomes standard error. */
static int
private_output(struct mcp_session *s)
{
	if ((s->out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) < 0) {
		warnx("mcp: standard output: %m");
		return -1;
	}
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		warnx("mcp: standard error: %m");
		return -1;
	}
	return 0;
}

static int
setup_signals(sigset_t *waitmask)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) != 0)
		return -1;
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0 ||
	    sigaction(SIGHUP, &sa, NULL) != 0)
		return -1;
	/* delivered only inside ppoll, so no signal is missed between checks */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &block, waitmask) != 0)
		return -1;
	sigdelset(waitmask, SIGTERM);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGHUP);
	return 0;
}

/* Wait for input, a change of the local store (when calls are pending)
 * or the next tick; returns what ppoll returns, and sets *changed when
 * the store changed. */
static int
wait_input(struct mcp_session *s, int64_t next_tick, const sigset_t *mask, int *changed)
{
	struct pollfd pfd[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
	    { .fd = -1, .events = POLLIN } };
	struct timespec ts, *tp = NULL;
	int64_t ms;
	int rc;

	*changed = 0;
	if (s->ncalls > 0) {
		ms = next_tick - monotonic_ms();
		if (ms < 0)
			ms = 0;
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000;
		tp = &ts;
		pfd[1].fd = s->linked ? link_watch(&s->link) : -1;
	}
	rc = ppoll(pfd, 2, tp, mask);
	if (rc > 0 && pfd[1].fd >= 0 && (pfd[1].revents & POLLIN)) {
		*changed = store_watch_drain(pfd[1].fd);
		if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			rc = 0;	/* nothing to read on stdin */
	}
	return rc;
}

/* Serve one session; gates go to reviewer to's daemon (or NULL: link_open);
 * a call answers "pending" after answer_s. */
int
mcp_serve(const char *to, long long answer_s)
{
	static char chunk[64 * 1024];
	struct mcp_session s;
	struct linebuf lb;
	sigset_t mask;
	int64_t next_tick = 0;
	ssize_t n;
	int rc, eof = 0, changed;

	memset(&s, 0, sizeof s);
	s.to = to;
	s.answer_s = answer_s;
	snprintf(s.agent, sizeof s.agent, "mcp");
	snprintf(s.version, sizeof s.version, "%s", MCP_LATEST_VERSION);
	s.structured = 1;
	if (private_output(&s) != 0 || setup_signals(&mask) != 0)
		return EXIT_INTERNAL;
	memset(&lb, 0, sizeof lb);
	lb.buf = xmalloc(MCP_LINE_MAX);

	while (!eof && !quit) {
		rc = wait_input(&s, next_tick, &mask, &changed);
		if (rc < 0 && errno != EINTR) {
			warnx("mcp: poll: %m");
			break;
		}
		if (quit)
			break;
		if (rc > 0) {
			n = read(STDIN_FILENO, chunk, sizeof chunk);
			if (n > 0)
				feed(&s, &lb, chunk, (size_t)n);
			else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
				/* a last line without its newline still counts */
				if (lb.len > 0 && !lb.skipping)
					mcp_handle_line(&s, lb.buf, lb.len);
				eof = 1;
			}
		}
		if (s.ncalls > 0 && (changed || monotonic_ms() >= next_tick)) {
			calls_tick(&s);
			next_tick = monotonic_ms() + MCP_TICK_MS;
		}
	}
	calls_withdraw_all(&s, quit ? "the agent's MCP server was stopped" :
	    "the agent's MCP session ended");
	if (s.linked)
		link_close(&s.link);
	free(lb.buf);
	close(s.out);
	return EXIT_OK;
}
