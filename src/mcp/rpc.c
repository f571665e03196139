/* SPDX-License-Identifier: ISC */
/*
 * JSON-RPC 2.0 framing for the MCP stdio transport: every message is one
 * line of compact JSON written whole to the protocol stream. Nothing else
 * is ever written there; diagnostics go to standard error.
 */
#include <err.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp.h"

/* MCP ids are strings or integers (never null, never fractional). */
int
rpc_valid_id(const json_t *id)
{
	return json_is_string(id) || json_is_integer(id);
}

/* Write msg as one line and release it; -1 when the client is gone. */
int
rpc_send(struct mcp_session *s, json_t *msg)
{
	char *line;
	size_t len;
	int rc;

	if (msg == NULL) {
		warnx("mcp: cannot encode a message");
		return -1;
	}
	line = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (line == NULL) {
		warnx("mcp: cannot encode a message");
		return -1;
	}
	len = strlen(line);
	line[len] = '\n';	/* json_dumps leaves room: its NUL */
	rc = write_all(s->out, line, len + 1);
	free(line);
	if (rc != 0)
		warnx("mcp: writing to the client: %m");
	return rc;
}

/* A response carrying result (stolen) for the request id. */
int
rpc_result(struct mcp_session *s, json_t *id, json_t *result)
{
	if (result == NULL)
		return rpc_error(s, id, RPC_INTERNAL_ERROR, "internal error");
	return rpc_send(s, json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0",
	    "id", id != NULL ? id : json_null(), "result", result));
}

/* An error response; id NULL when the request's id is unknown. */
int
rpc_error(struct mcp_session *s, json_t *id, int code, const char *fmt, ...)
{
	char msg[512];
	json_t *text;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* a message cut inside a UTF-8 sequence is no JSON string */
	if ((text = json_string(msg)) == NULL)
		text = json_string("error");
	return rpc_send(s, json_pack("{s:s,s:O,s:{s:i,s:o}}", "jsonrpc", "2.0",
	    "id", id != NULL && rpc_valid_id(id) ? id : json_null(),
	    "error", "code", code, "message", text));
}

/* A notification with params (stolen). */
int
rpc_notify(struct mcp_session *s, const char *method, json_t *params)
{
	return rpc_send(s, json_pack("{s:s,s:s,s:o}", "jsonrpc", "2.0",
	    "method", method, "params", params));
}
