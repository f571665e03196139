/* SPDX-License-Identifier: ISC */
/*
 * What only the unprivileged side does with agent text and with the
 * runner's raw records (libwarrantdisplay): never in warrant-runner.
 */
#ifndef WARRANT_DISPLAY_H
#define WARRANT_DISPLAY_H

#include "../root/root.h"

/* A runner source that used one of these would not link. */
/* text.c: agent text made safe for a terminal (libunistring). */
char	*text_visible(const char *);
char	*text_output(const char *);
void	 text_print_output(FILE *, const char *, const char *, const char *);
void	 text_print(FILE *, const char *);
void	 text_print_lines(FILE *, const char *, const char *);
/* an argv word: look-alikes escaped, right-to-left text isolated */
#define TEXT_LOOKALIKE		0x1	/* a look-alike of option or path punctuation */
#define TEXT_LOOKALIKE_FIRST	0x2	/* one is the word's first character */
#define TEXT_RTL		0x4	/* strong right-to-left letters */
int	 text_lookalike(unsigned);
unsigned text_word_marks(const char *);
char	*text_word(const char *, int);
void	 text_print_word(FILE *, const char *);
/* text.c: words for a POSIX shell (ssh joins argv into one string) */
char	*sh_quote(const char *);
char	*sh_join(const char *const *);

/* policy.c: credential shapes, refused in requests and redacted from
 * what the runner recorded. */
const char *credential_shape(const char *);
int	 contains_credential(const char *);
int	 credential_flag(const char *);
const char *credential_word(const char *);
size_t	 redact_credentials(const char *, size_t, char *, size_t, int *);
char	*redact_text(const char *);
void	 redact_json(json_t *);

#endif
