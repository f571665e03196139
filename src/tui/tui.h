/* SPDX-License-Identifier: ISC */
/*
 * The review console (warrant review): state shared by its parts. wtext.c
 * turns agent text into safe wide characters and owns the styles; doc.c
 * lays text out in wrapped lines; list.c is the gate list, review.c the
 * review of one gate, handoff.c approval and denial, stopkey.c the stop
 * key, screen.c what they all use, tui.c the loop (which calls them; they
 * never call it).
 */
#ifndef TUI_H
#define TUI_H

#include <wchar.h>
#include <curses.h>

#include "warrant.h"

/* Styles; each degrades to bold/reverse without colour. */
enum style {
	ST_NORMAL, ST_BOLD, ST_DIM, ST_BAR, ST_ROOT_BADGE, ST_ROOT_BORDER,
	ST_YOU_BADGE, ST_YOU_BORDER, ST_PILL, ST_RISK, ST_GOOD, ST_BAD,
	ST_FOCUS, ST_SELECT, ST_LABEL, ST_COUNT
};

/* wtext.c */
extern int tui_utf8;		/* the locale is UTF-8: show non-ASCII */
extern int tui_color;		/* colours in use (terminal has them, no NO_COLOR) */
void	 wtext_init(void);
void	 tui_styles(void);
void	 tui_style(enum style);
wchar_t	*tui_wide(const char *);
wchar_t	*tui_word(const char *);
int	 tui_wwidth(const wchar_t *);
int	 tui_putw(int, int, int, enum style, const wchar_t *, int);
int	 tui_puts(int, int, int, enum style, const char *);
int	 tui_cut(int, int, int, enum style, const char *);
void	 tui_fill(int, int, int, enum style);
chtype	 tui_chattr(enum style);

/* doc.c: text wrapped into lines, each maybe inside a command's card;
 * prose wraps at spaces, a word (doc_word) only before it. */
enum line_kind { LINE_PLAIN, LINE_TOP, LINE_MID, LINE_BOTTOM };
struct tseg {
	wchar_t		*w;
	int		 col;		/* where it starts, in the content area */
	enum style	 style;
};
struct tline {
	enum line_kind	 kind;
	int		 card;		/* command index, or -1 */
	struct tseg	*segs;
	size_t		 nsegs;
};
struct tcell {				/* one character of a paragraph */
	wchar_t		 c;		/* L'\0': move to column tab */
	int		 x;		/* its column, once laid out */
	short		 tab;
	unsigned char	 style;
	unsigned char	 nobreak;	/* inside a word: no break before it */
};
struct tdoc {
	struct tline	*l;
	size_t		 n, cap;
	int		 plain_width, card_width;
	int		 indent;	/* of the paragraph being built */
	struct tcell	*p;		/* the paragraph, from the last line on */
	size_t		 pn, pcap;
};
void	 doc_reset(struct tdoc *, int, int);
void	 doc_free(struct tdoc *);
void	 doc_line(struct tdoc *, int, enum line_kind, int);
void	 doc_add(struct tdoc *, enum style, const char *);
void	 doc_addw(struct tdoc *, enum style, const wchar_t *);
void	 doc_word(struct tdoc *, enum style, const char *);
void	 doc_wordw(struct tdoc *, enum style, const wchar_t *);
void	 doc_end(struct tdoc *);
void	 doc_addf(struct tdoc *, enum style, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
void	 doc_tab(struct tdoc *, int);
void	 doc_blank(struct tdoc *, int);

/* The console. */
struct list_row {
	char		 id[GATE_ID_LEN + 1];
	int		 pending;
};
enum view { VIEW_LIST, VIEW_GATE };
/* DENY and GRANT type a line; STOP waits for y to confirm */
enum mode { MODE_NORMAL, MODE_DENY, MODE_GRANT, MODE_STOP };

#define POLL_MS		500	/* the store is read at least this often */

struct tui {
	struct store	*st;
	int		 all;		/* settled gates shown too */
	const char	*project;
	const char	*user;		/* who YOU commands run as */
	int		 quit;
	int		 gone;		/* the terminal hung up: end, restore nothing */
	enum view	 view;
	enum mode	 mode;
	int64_t		 last_poll;	/* ms, monotonic */
	int		 watch;		/* store_watch(), or -1: poll only */
	int		 polled;	/* at least once: new gates ring the bell */

	/* the list: every gate in the console's order (store_review_ids), no
	 * cap; only the rows on screen are read whole (page) */
	struct list_row	*rows;
	size_t		 nrows, rows_cap, npending;
	int64_t		 version[2];	/* store_version of the list; -1: read it again */
	json_t		*page;		/* the gates from page_top on, or NULL: read again */
	size_t		 page_top;
	json_t		*seen;		/* ids of pending gates already announced */
	size_t		 sel;
	size_t		 list_top;
	char		 sel_id[GATE_ID_LEN + 1];

	/* the gate under review */
	char		 gate_id[GATE_ID_LEN + 1];
	json_t		*gate;		/* store_gate with the manifest */
	json_t		*ledger;	/* once approved */
	json_t		*live;		/* its batch runs: the command and its output */
	json_t		*file_text;	/* NAME -> its content as text, or why not */
	int		*ticked;
	size_t		 ncmds;
	size_t		 focus;
	int		 details;
	struct tdoc	 doc;
	size_t		 top;		/* first body line shown */
	size_t		*card_first, *card_last;

	/* messages */
	char		 status[512];
	enum style	 status_style;
	char		 outcome[1024];
	enum style	 outcome_style;

	/* the loop's draw (tui.c): a screen about to block draws the whole
	 * screen first (the screens do not call the loop) */
	void		(*redraw)(struct tui *);
	/* denial feedback being typed (FEEDBACK_MAX bytes as UTF-8) */
	wchar_t		 fb[FEEDBACK_MAX + 1];
	size_t		 fblen;
};

/* tui.c */
void	 tui_poll(struct tui *);
int	 tui_run(struct store *, int, const char *, const char *);

/* screen.c */
void	 tui_on_signal(int);
int	 tui_signalled(void);
void	 tui_forget_interrupt(void);
int64_t	 tui_now_ms(void);
void	 tui_status(struct tui *, enum style, const char *, ...)
	    __attribute__((format(printf, 3, 4)));
int	 tui_body_height(void);
void	 tui_duration(int64_t, char *, size_t);
const char *tui_state_word(const json_t *);

/* list.c */
void	 list_draw(struct tui *);
void	 list_key(struct tui *, int, wint_t);
int	 list_load(struct tui *);
void	 list_free(struct tui *);

/* review.c */
int	 gate_open(struct tui *, const char *);
void	 gate_close(struct tui *);
void	 gate_reload(struct tui *);
void	 gate_layout(struct tui *);
void	 gate_draw(struct tui *);
void	 gate_key(struct tui *, int, wint_t);
int	 gate_cmd_root(const json_t *);

/* handoff.c */
void	 handoff_approve(struct tui *);
void	 deny_begin(struct tui *);
void	 grant_begin(struct tui *);
void	 deny_key(struct tui *, int, wint_t);
void	 deny_draw(struct tui *);

/* stopkey.c */
void	 stop_begin(struct tui *);
void	 stop_key(struct tui *, int, wint_t);

#endif
