/* Small helpers of the CLI that the root runner does not need. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "warrant.h"

/* RFC 3339 in UTC, e.g. 2026-11-30T03:04:05Z. */
void
format_time(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "%lld", (long long)t);
}

/* A decimal count in [lo, hi]; 0 on success. */
int
parse_count(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A string member of a JSON object, or "" when it is missing or not one. */
const char *
json_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}
