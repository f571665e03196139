/* SPDX-License-Identifier: ISC */
/* libFuzzer target: a ledger as a runner (or anyone writing the run
 * directory) could leave it, checked as warrant answer checks it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "warrant.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

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
	ledger_filter(l, "tail");
	json_decref(l);
	return 0;
}
