/* SPDX-License-Identifier: ISC */
/*
 * The console's stop: `s` on a gate whose batch runs asks "stop it?",
 * and `y` stops it as `warrant stop` does (src/approve/askstop.c): the
 * command running and every process it started are killed, the rest are
 * skipped "stopped by REVIEWER". Any other key keeps it running. The
 * gate view shows the command running and its latest output meanwhile
 * (review.c), read again at every poll of the store.
 */
#include <string.h>

#include "tui/tui.h"

void
stop_begin(struct tui *t)
{
	if (t->live == NULL) {
		tui_status(t, ST_BAD, "%s is not running: nothing to stop", t->gate_id);
		return;
	}
	t->mode = MODE_STOP;
	tui_status(t, ST_BAD, "Stop %s? y kills its command and skips the rest; any other "
	    "key keeps it running", t->gate_id);
}

void
stop_key(struct tui *t, int type, wint_t k)
{
	struct refusal r;

	t->mode = MODE_NORMAL;
	if (type != OK || (k != L'y' && k != L'Y')) {
		tui_status(t, ST_NORMAL, "%s keeps running", t->gate_id);
		return;
	}
	memset(&r, 0, sizeof r);
	switch (approve_stop(t->st, t->gate_id, &r)) {
	case EXIT_OK:
		tui_status(t, ST_BAD, "%s: asked to stop; its command is being killed",
		    t->gate_id);
		break;
	case EXIT_REFUSED:
		tui_status(t, ST_BAD, "%s: %s", r.code, r.message);
		break;
	default:
		tui_status(t, ST_BAD, "%s: the stop could not be asked for", t->gate_id);
	}
	t->last_poll = 0;	/* read before the next draw (the loop's tui_poll) */
}
