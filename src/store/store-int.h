/* Internals of the store: only files under src/store/ include this (and
 * with it <sqlite3.h>). */
#ifndef STORE_INT_H
#define STORE_INT_H

#include <sqlite3.h>

#include "warrant.h"

int	 step_done(struct store *, sqlite3_stmt *, const char *);
int	 gate_state(struct store *, const char *, char *, size_t);
int	 attempt_close(struct store *, int64_t, const char *);

#endif
