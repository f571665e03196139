/* SPDX-License-Identifier: ISC */
/* libFuzzer target: a reviewed file's bytes through the archive reader
 * (src/intake/archive.c) and its summary said as lines. Checks the
 * promises: the bounds hold (never more members listed than
 * ARCHIVE_LIST_MAX, never a budget overdrawn), the counts add up, and
 * every line is a valid JSON string (member names escaped). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "warrant.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
line(void *arg, int alert, const char *s)
{
	(void)arg;
	(void)alert;
	json_decref(json_string(s) ?: (__builtin_trap(), NULL));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t budget = ARCHIVE_BYTES_MAX;
	struct wfile f;
	json_t *a;
	long long members, listed;

	memset(&f, 0, sizeof f);
	archive_scan(&f, data, size, &budget);
	if ((a = f.archive) == NULL)
		return 0;
	members = (long long)json_integer_value(json_object_get(a, "members"));
	listed = (long long)(json_array_size(json_object_get(a, "flagged")) +
	    json_array_size(json_object_get(a, "others")));
	if (budget < 0 || budget > ARCHIVE_BYTES_MAX || listed > ARCHIVE_LIST_MAX ||
	    members > ARCHIVE_ENTRIES_MAX || listed + json_integer_value(json_object_get(a,
	    "unlisted")) != members || (f.archive_unscanned != !json_is_true(json_object_get(a,
	    "complete"))))
		__builtin_trap();
	archive_lines(a, 1, line, NULL);
	json_decref(a);
	return 0;
}
