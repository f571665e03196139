/* SPDX-License-Identifier: ISC */
/*
 * What every screen of the console uses and nothing of them: the status
 * line, the body's height, the clock, durations, state words and the
 * signal that ends the console. (The loop, tui.c, calls the screens; the
 * screens call this, and redraw through t->redraw.)
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tui/tui.h"

static volatile sig_atomic_t stop_signal;

/* SIGINT, SIGTERM, SIGHUP: the loop ends (tui.c installs it). */
void
tui_on_signal(int sig)
{
	stop_signal = sig;
}

int
tui_signalled(void)
{
	return stop_signal != 0;
}

/* An interrupt while the terminal was handed over answered that, not us. */
void
tui_forget_interrupt(void)
{
	if (stop_signal == SIGINT)
		stop_signal = 0;
}

int64_t
tui_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The gate's state as the reviewer reads it: a gate its requester
 * withdrew (a denial in the store) reads "withdrawn". */
const char *
tui_state_word(const json_t *g)
{
	const char *st = json_str(g, "state");

	if (strcmp(st, "denied") == 0 && strncmp(json_str(g, "feedback"),
	    "withdrawn by the requester", 26) == 0)
		return "withdrawn";
	return st;
}

/* A duration for humans: 42s, 4m08s, 3h05m, 2d04h; "0s" when past. */
void
tui_duration(int64_t s, char *buf, size_t size)
{
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(buf, size, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(buf, size, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
	else if (s < 86400)
		snprintf(buf, size, "%lldh%02lldm", (long long)(s / 3600),
		    (long long)(s % 3600 / 60));
	else
		snprintf(buf, size, "%lldd%02lldh", (long long)(s / 86400),
		    (long long)(s % 86400 / 3600));
}

void
tui_status(struct tui *t, enum style s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->status, sizeof t->status, fmt, ap);
	va_end(ap);
	t->status_style = s;
}

/* Rows between the top bar and the two bottom lines. */
int
tui_body_height(void)
{
	return LINES - 3 > 1 ? LINES - 3 : 1;
}
