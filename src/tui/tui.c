/* SPDX-License-Identifier: ISC */
/*
 * The review console's loop: curses set up for wide characters, the store
 * read (recover, expire, list) as soon as it changes (an inotify watch on
 * its directory) and every POLL_MS all the same, so a new request shows
 * up without a key press and rings the bell, keys
 * dispatched to the list or the gate under review, and the screen redrawn
 * from scratch on every turn (curses sends only what changed).
 */
#include <err.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tui/tui.h"

#define MIN_LINES	10
#define MIN_COLS	40

/* Ring the bell once for pending gates not seen before (not on the first
 * look: those were there when the console started). */
static void
announce(struct tui *t)
{
	size_t i;
	int fresh = 0;

	for (i = 0; i < t->nrows; i++) {
		if (!t->rows[i].pending || json_object_get(t->seen, t->rows[i].id) != NULL)
			continue;
		json_object_set_new(t->seen, t->rows[i].id, json_true());
		fresh++;
	}
	if (fresh > 0 && t->polled) {
		beep();
		tui_status(t, ST_GOOD, "%d new request%s", fresh, fresh == 1 ? "" : "s");
	}
}

/* Look at the store: recover dead attempts, expire, list, reload the gate
 * under review. Errors leave the last view and say so. */
void
tui_poll(struct tui *t)
{
	int status;

	/* a detached approval's finalizer is our child: reap it when done */
	while (waitpid(-1, &status, WNOHANG) > 0)
		;
	t->last_poll = tui_now_ms();
	if (refresh_store(t->st) != 0 || list_load(t) != 0) {
		tui_status(t, ST_BAD, "cannot read the store in %s", t->st->dir);
		return;
	}
	announce(t);
	t->polled = 1;
	if (t->view == VIEW_GATE)
		gate_reload(t);
}

static void
tui_draw(struct tui *t)
{
	erase();
	curs_set(0);
	if (LINES < MIN_LINES || COLS < MIN_COLS) {
		tui_cut(0, 0, COLS, ST_BOLD, "terminal too small");
		tui_cut(1, 0, COLS, ST_NORMAL, "warrant review needs 40x10");
		refresh();
		return;
	}
	if (t->view == VIEW_GATE)
		gate_draw(t);
	else
		list_draw(t);
	if (t->mode == MODE_DENY || t->mode == MODE_GRANT)
		deny_draw(t);
	else
		tui_cut(LINES - 1, 0, COLS - 1, t->status_style, t->status);
	refresh();
}

static void
resized(struct tui *t)
{
	if (t->view == VIEW_GATE) {
		gate_layout(t);
		if (t->top >= t->doc.n)
			t->top = 0;
	}
	clearok(curscr, TRUE);
}

static void
key(struct tui *t, int type, wint_t k)
{
	if (type == KEY_CODE_YES && k == KEY_RESIZE) {
		resized(t);
		return;
	}
	if (LINES < MIN_LINES || COLS < MIN_COLS) {
		if (type == OK && (k == L'q' || k == 27))
			t->quit = 1;
		return;
	}
	if (t->mode == MODE_DENY || t->mode == MODE_GRANT)
		deny_key(t, type, k);
	else if (t->mode == MODE_STOP)
		stop_key(t, type, k);
	else if (t->view == VIEW_GATE)
		gate_key(t, type, k);
	else
		list_key(t, type, k);
}

static int
screen_start(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tui_on_signal;
	sigaction(SIGINT, &sa, NULL);	/* installed first: curses keeps it */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	set_escdelay(25);
	if (newterm(NULL, stdout, stdin) == NULL) {
		warnx("review: cannot drive this terminal (TERM=%s)",
		    getenv("TERM") ? getenv("TERM") : "unset");
		return -1;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	timeout(0);	/* loop() waits in poll() */
	tui_styles();
	return 0;
}

/* The terminal hung up or went away (its emulator closed, its tmux
 * session killed): poll says so on stdin at once, every time. */
static int
hung_up(short revents)
{
	return (revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* Until a key, a change of the store or the next fallback read is due. */
static void
idle(struct tui *t)
{
	struct pollfd p[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
	    { .fd = t->watch, .events = POLLIN } };
	int64_t ms = t->last_poll + POLL_MS - tui_now_ms();

	if (ms <= 0 || poll(p, 2, (int)ms) <= 0)
		return;
	if (hung_up(p[0].revents))
		t->gone = 1;
	else if ((p[1].revents & POLLIN) && store_watch_drain(t->watch))
		t->last_poll = 0;	/* read it now */
}

static void
loop(struct tui *t)
{
	wint_t k;
	int type;

	while (!t->quit && !t->gone && !tui_signalled()) {
		tui_draw(t);
		idle(t);
		/* every key curses has (it may hold some already read) */
		while (!t->quit && !t->gone && (type = get_wch(&k)) != ERR)
			key(t, type, k);
		if (!t->quit && !t->gone && tui_now_ms() - t->last_poll >= POLL_MS)
			tui_poll(t);
	}
}

/* Is the terminal still there to be restored? (A hangup signal may come
 * before poll has seen it.) */
static int
terminal_here(const struct tui *t)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

	return !t->gone && !(poll(&p, 1, 0) > 0 && hung_up(p.revents));
}

/*
 * Run the console on st; all shows settled gates too, project filters,
 * open_id (or NULL) is opened for review at once. Returns an exit code.
 */
int
tui_run(struct store *st, int all, const char *project, const char *open_id)
{
	struct passwd *pw = getpwuid(getuid());
	struct tui t;

	setlocale(LC_ALL, "");
	wtext_init();
	memset(&t, 0, sizeof t);
	t.version[0] = -1;	/* no list read yet */
	t.st = st;
	t.all = all;
	t.project = project;
	t.user = pw != NULL ? xstrdup(pw->pw_name) : xstrdup("you");
	t.seen = json_object();
	t.redraw = tui_draw;
	if (screen_start() != 0) {
		json_decref(t.seen);
		free((char *)t.user);
		return EXIT_INTERNAL;
	}
	t.watch = store_watch(st);	/* before the first read: no change missed */
	tui_poll(&t);
	if (open_id != NULL)
		gate_open(&t, open_id);
	loop(&t);
	/* a terminal that is gone has nothing to restore: writing to it
	 * would only fail */
	if (terminal_here(&t))
		endwin();
	if (t.watch >= 0)
		close(t.watch);
	gate_close(&t);
	list_free(&t);
	json_decref(t.seen);
	free((char *)t.user);
	return EXIT_OK;
}
