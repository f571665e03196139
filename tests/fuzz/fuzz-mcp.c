/* SPDX-License-Identifier: ISC */
/* libFuzzer target: what an agent writes to `warrant mcp`, one JSON-RPC
 * message a line, dispatched in-process as the server loop does. Every
 * line is answered or ignored; never a crash or a leak. A tools/call that
 * passes validation stores a gate in a temporary WARRANT_HOME, and the
 * session's end withdraws it, as at end of input. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/mcp.h"

int LLVMFuzzerInitialize(int *, char ***);
int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int out = -1;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char home[] = "/tmp/warrant-fuzz-mcp.XXXXXX";

	(void)argc;
	(void)argv;
	if (getenv("WARRANT_HOME") == NULL &&
	    (mkdtemp(home) == NULL || setenv("WARRANT_HOME", home, 1) != 0))
		abort();
	/* no desktop notification per call */
	unsetenv("DISPLAY");
	unsetenv("WAYLAND_DISPLAY");
	unsetenv("DBUS_SESSION_BUS_ADDRESS");
	/* the protocol stream: answers are encoded and written, then dropped */
	if ((out = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *nl;
	struct mcp_session s;
	size_t n;

	/* as mcp_serve starts a session */
	memset(&s, 0, sizeof s);
	s.out = out;
	snprintf(s.agent, sizeof s.agent, "mcp");
	snprintf(s.version, sizeof s.version, "%s", MCP_LATEST_VERSION);
	s.structured = 1;
	while (size > 0) {
		nl = memchr(p, '\n', size);
		n = nl != NULL ? (size_t)(nl - p) : size;
		mcp_handle_line(&s, p, n);
		if (nl == NULL)
			break;
		p = nl + 1;
		size -= n + 1;
	}
	calls_withdraw_all(&s, "the agent's MCP session ended");
	if (s.linked)
		link_close(&s.link);
	return 0;
}
