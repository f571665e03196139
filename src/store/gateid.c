/* SPDX-License-Identifier: ISC */
/* Request ids: "w-" and 10 lowercase base32 characters (50 bits) from the
 * OS CSPRNG; any unique prefix of 4 or more characters names a gate.
 * Grant ids are made the same way, with "g-". */
#include <string.h>

#include "root/root.h"
#include "store.h"

static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";

static int
id_new(char kind, char id[GATE_ID_LEN + 1])
{
	unsigned char r[10];
	int i;

	if (random_bytes(r, sizeof r) != 0)
		return -1;
	id[0] = kind;
	id[1] = '-';
	for (i = 0; i < 10; i++)
		id[2 + i] = b32[r[i] & 31];
	id[GATE_ID_LEN] = '\0';
	return 0;
}

int
gate_id_new(char id[GATE_ID_LEN + 1])
{
	return id_new('w', id);
}

int
grant_id_new(char id[GRANT_ID_LEN + 1])
{
	return id_new('g', id);
}

/* A whole grant id as given: "g-" and 10 base32 characters. */
int
grant_id_valid(const char *arg)
{
	size_t i;

	if (strlen(arg) != GRANT_ID_LEN || strncmp(arg, "g-", 2) != 0)
		return 0;
	for (i = 2; i < GRANT_ID_LEN; i++)
		if (strchr(b32, arg[i]) == NULL)
			return 0;
	return 1;
}

/*
 * Normalise a user-given id or prefix into "w-..." form: 4 or more
 * characters of base32 after the "w-" (which may be left off), in any
 * case. Returns 0; 1 when it is well formed but longer than any id (it
 * names no gate); -1 when it cannot name a gate.
 */
int
gate_id_prefix(const char *arg, char *out, size_t size)
{
	char body[GATE_ID_LEN + 1];
	size_t n, i;

	if (strlen(arg) < 4)
		return -1;
	if (ascii_ncasecmp(arg, "w-", 2) == 0)
		arg += 2;
	n = strlen(arg);
	for (i = 0; i < n; i++)
		if (strchr(b32, ascii_lower((unsigned char)arg[i])) == NULL)
			return -1;
	if (n > GATE_ID_LEN - 2)
		return 1;
	for (i = 0; i < n; i++)
		body[i] = (char)ascii_lower((unsigned char)arg[i]);
	body[n] = '\0';
	if ((size_t)snprintf(out, size, "w-%s", body) >= size)
		return -1;
	return 0;
}
