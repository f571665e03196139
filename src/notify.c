/* SPDX-License-Identifier: ISC */
/*
 * Telling the reviewer that a gate waits: a desktop notification through
 * /usr/bin/notify-send when a desktop session is reachable (from `warrant
 * mcp` on the reviewer's own uid, or from the reviewer's daemon for its
 * requesters). It never blocks the server: notify-send runs as a detached grandchild with no
 * descriptor of ours, and failing to notify changes nothing (the review
 * console rings its own bell when a new gate appears).
 */
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "warrant.h"

#define NOTIFY_SEND	"/usr/bin/notify-send"
#define NOTIFY_REASON	200	/* bytes of the reason shown */

extern char **environ;

static int
desktop_session(void)
{
	const char *vars[] = { "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", NULL };
	const char *v;
	int i;

	for (i = 0; vars[i] != NULL; i++)
		if ((v = getenv(vars[i])) != NULL && *v != '\0')
			return 1;
	return 0;
}

/*
 * The reason as a notification body: neutralised, cut at a character
 * boundary, and without the characters notification servers read as
 * markup.
 */
static char *
body_text(const char *reason, const char *id)
{
	char *v = text_visible(reason), *body, *p;
	size_t n = strlen(v);
	int cut = n > NOTIFY_REASON;

	if (cut) {
		n = NOTIFY_REASON;
		while (n > 0 && ((unsigned char)v[n] & 0xc0) == 0x80)
			n--;
		v[n] = '\0';
	}
	for (p = v; *p != '\0'; p++)
		if (*p == '<' || *p == '>' || *p == '&')
			*p = ' ';
	if (asprintf(&body, "%s%s\nReview: warrant answer %s (or warrant review)", v,
	    cut ? "..." : "", id) < 0)
		body = NULL;
	free(v);
	return body;
}

static void __attribute__((noreturn))
run_notify(char *const argv[])
{
	const struct spawn s = { .path = NOTIFY_SEND, .argv = argv, .envp = environ,
	    .fd = { -1, -1, -1 }, .group = EXEC_SESSION };

	/* the grandchild: its own session, nothing of ours but /dev/null */
	_exit(spawn(&s) < 0 ? 127 : 0);
}

/* Say that gate id (nroot ROOT and nuser YOU commands, for reason) waits
 * for review. */
void
notify_reviewer(const char *id, const char *reason, int nroot, int nuser)
{
	char summary[128], *body;
	char *argv[8];
	pid_t pid;
	int n = 0;

	if (!desktop_session() || access(NOTIFY_SEND, X_OK) != 0)
		return;
	if (nroot > 0 && nuser > 0)
		snprintf(summary, sizeof summary, "warrant: %d command%s as root and %d as you",
		    nroot, nroot == 1 ? "" : "s", nuser);
	else if (nroot > 0)
		snprintf(summary, sizeof summary, "warrant: %d command%s as root",
		    nroot, nroot == 1 ? "" : "s");
	else
		snprintf(summary, sizeof summary, "warrant: %d command%s as you",
		    nuser, nuser == 1 ? "" : "s");
	if ((body = body_text(reason, id)) == NULL)
		return;
	argv[n++] = "notify-send";
	argv[n++] = "--app-name=warrant";
	argv[n++] = nroot > 0 ? "--urgency=critical" : "--urgency=normal";
	argv[n++] = nroot > 0 ? "--icon=dialog-password" : "--icon=dialog-question";
	argv[n++] = "--";
	argv[n++] = summary;
	argv[n++] = body;
	argv[n] = NULL;
	if ((pid = fork()) < 0)
		warnx("mcp: cannot notify the reviewer: %m");
	else if (pid == 0)
		run_notify(argv);
	else
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	free(body);
}
