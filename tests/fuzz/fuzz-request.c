/* SPDX-License-Identifier: ISC */
/* libFuzzer target: a request from the agent, parsed and validated. It
 * must be refused with a code or accepted, never crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "warrant.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* A refusal has a code and a message, and can be told to the agent. */
static void
refused(const struct refusal *r)
{
	json_t *j;

	if (r->code == NULL || strlen(r->message) == 0 || (j = refusal_json(r)) == NULL)
		__builtin_trap();
	json_decref(j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct requester me;
	static int init;
	struct refusal r;
	struct wrequest q;
	json_t *m;
	char sha[SHA256_HEX_LEN + 1], *bytes;

	if (!init) {
		if (requester_self(&me, &r) != EXIT_OK)
			__builtin_trap();
		init = 1;
	}
	if (request_parse((const char *)data, size, &q, &r) != 0) {
		refused(&r);
		return 0;
	}
	if (validate_request(&q, &me, &r) == 0) {
		m = manifest_build(&q, "w-aaaaaaaaaa", "host");
		bytes = manifest_seal(m, sha);
		if (bytes == NULL)
			__builtin_trap();
		free(bytes);
		json_decref(m);
	} else
		refused(&r);
	request_free(&q);
	return 0;
}
