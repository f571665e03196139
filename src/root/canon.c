/* SPDX-License-Identifier: ISC */
/*
 * Canonical JSON (docs/design.md §4): object keys sorted by byte value, arrays in
 * order, compact separators, UTF-8 unescaped, integers only. jansson's
 * sorted compact dump is exactly that once reals are ruled out, so this
 * refuses any tree that holds one.
 */
#include <string.h>

#include "root.h"

static int
has_real(const json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;

	switch (json_typeof(j)) {
	case JSON_REAL:
		return 1;
	case JSON_OBJECT:
		json_object_foreach((json_t *)j, key, v)
			if (has_real(v))
				return 1;
		return 0;
	case JSON_ARRAY:
		json_array_foreach(j, i, v)
			if (has_real(v))
				return 1;
		return 0;
	default:
		return 0;
	}
}

/* The canonical bytes of j (NUL-terminated), or NULL. */
char *
canon_dump(const json_t *j, size_t *len)
{
	char *s;

	if (j == NULL || has_real(j))
		return NULL;
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	if (s != NULL && len != NULL)
		*len = strlen(s);
	return s;
}
