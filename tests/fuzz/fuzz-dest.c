/* SPDX-License-Identifier: ISC */
/* libFuzzer target: remote destinations and shell quoting. Checks the
 * promises: an accepted destination has no character ssh or a shell could
 * read (nothing starts with '-', only the parser's alphabet) and formats
 * back to something that parses to the same parts; a quoted word is one
 * single-quoted sh word with every quote closed. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "warrant.h"
#include "remote/remote.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
allowed(const char *s, const char *extra)
{
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr(extra, *s) != NULL))
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *q, canon[320];
	struct refusal r;
	struct dest d, e;
	size_t i, open = 0;

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (dest_parse(s, &d, &r) == 0) {
		if (d.user[0] == '-' || d.host[0] == '-' || !allowed(d.user, "_.-") ||
		    !allowed(d.host, ".-:") || d.port > 65535)
			__builtin_trap();
		dest_format(&d, canon, sizeof canon);
		if (dest_parse(canon, &e, &r) != 0 || strcmp(d.user, e.user) != 0 ||
		    strcmp(d.host, e.host) != 0 || d.port != e.port)
			__builtin_trap();
	}
	q = sh_quote(s);
	/* outside quotes only the '\'' escapes: \' between two quoted runs */
	for (i = 0; q[i] != '\0'; i++) {
		if (q[i] == '\'')
			open = !open;
		else if (!open && !(q[i] == '\\' && q[i + 1] == '\''))
			__builtin_trap();
		else if (!open)
			i++;
	}
	if (open)
		__builtin_trap();
	free(q);
	free(s);
	return 0;
}
