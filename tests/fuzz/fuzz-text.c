/* SPDX-License-Identifier: ISC */
/* libFuzzer target: untrusted output and text through neutralisation,
 * JSON-safe encoding, capture (raw, as the runner keeps it) and the
 * finisher's redaction. Checks the promises: no control byte reaches a
 * terminal, the tail is a valid JSON string, no credential shape survives
 * redaction. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "warrant.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct capture cap;
	char *s = malloc(size + 1), *v, *tail, *kept;
	size_t i;

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	v = text_visible(s);
	for (i = 0; v[i] != '\0'; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			__builtin_trap();
	free(v);
	/* output: only newline and tab of the controls, and no CR */
	v = text_output(s);
	for (i = 0; v[i] != '\0'; i++)
		if (((unsigned char)v[i] < 0x20 && v[i] != '\n' && v[i] != '\t') || v[i] == 0x7f)
			__builtin_trap();
	free(v);
	v = text_json_safe((const char *)data, size);
	json_decref(json_string(v) ?: (__builtin_trap(), NULL));
	free(v);
	capture_init(&cap, -1, 0);
	capture_feed(&cap, (const char *)data, size);
	tail = capture_tail(&cap, LEDGER_FULL_BYTES);
	json_decref(json_string(tail) ?: (__builtin_trap(), NULL));
	kept = redact_text(tail);
	if (contains_credential(kept))
		__builtin_trap();
	free(kept);
	free(tail);
	free(s);
	return 0;
}
