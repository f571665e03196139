/* SPDX-License-Identifier: ISC */
#ifndef WARRANT_LOGSHIP_SHIP_H
#define WARRANT_LOGSHIP_SHIP_H

#include <jansson.h>
#include <stddef.h>

struct log_server;
int	 logship_flush(const struct log_server *, size_t *, size_t *, char *, size_t);
json_t	*logship_waiting(void);

#endif
