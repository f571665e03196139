/* SPDX-License-Identifier: ISC */
/* libFuzzer target: a ledger as a runner (or anyone writing the run
 * directory) could leave it, checked as warrant answer checks it, then
 * redacted as the finisher redacts it: no credential shape is left in
 * any string or member name. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "warrant.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
credential_free(const json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(j))
		return !contains_credential(json_string_value(j));
	json_object_foreach((json_t *)j, key, v)
		if (credential_word(key) != NULL || !credential_free(v))
			return 0;
	json_array_foreach(j, i, v)
		if (!credential_free(v))
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ids[] = { "a", "b", "c" };
	char why[256];
	json_t *l = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);

	if (l == NULL)
		return 0;
	if (ledger_check(l, "w-aaaaaaaaaa",
	    "0000000000000000000000000000000000000000000000000000000000000000",
	    ids, 3, why, sizeof why) == 0)
		(void)ledger_all_ran(l);
	redact_json(l);
	if (!credential_free(l))
		__builtin_trap();
	ledger_filter(l, "tail");
	json_decref(l);
	return 0;
}
