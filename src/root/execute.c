/* SPDX-License-Identifier: ISC */
/*
 * The one batch loop. The runner (a whole approved batch, as root) and
 * `warrant answer` (YOU-only batches, --via sudo) run their commands
 * through it, in request order and under the same rules
 * (docs/execution.md, "Running the batch"):
 *
 *  - after the overall deadline (the runner's) no command starts;
 *  - with stop_on_failure, none after an entry that is not "ran";
 *  - once told to stop, none; once the reviewer said stop (stopfile.c),
 *    none, each "skipped" with who stopped it;
 *  - each is judged just before it starts (the caller's judge: an
 *    executable sealed at run time, paths an earlier command opened up);
 *  - none starts before the record that it starts is durable: an
 *    "interrupted" entry, which stays the truth if this process dies
 *    while it runs; a record that cannot be made stops the batch there.
 *
 * How a command runs (and under which supervisor), how records are made
 * and what is judged are the caller's; this decides only what runs.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "root.h"

json_t *
batch_execute(const struct batch_exec *x, int *broken, int *stopped)
{
	json_t *entries = json_array(), *c, *e;
	char told[96], started[96];
	const char *halt = NULL, *id, *as;
	int failed = 0, rc;
	size_t i;

	*broken = *stopped = 0;
	descendants_note();	/* what this process had before is not the batch's */
	snprintf(told, sizeof told, "not run: %s was told to stop", x->who);
	snprintf(started, sizeof started, "started; %s stopped before it finished", x->who);
	json_array_foreach(x->cmds, i, c) {
		id = json_string_value(json_object_get(c, "id"));
		as = json_string_value(json_object_get(c, "as"));
		if (halt != NULL)
			e = ledger_entry_not_run(id, as, "skipped", halt);
		else if (x->halted != NULL && x->halted(x->arg))
			e = ledger_entry_not_run(id, as, "skipped", halt = x->halted_why);
		else if (x->deadline_ms != 0 && monotonic_ms() >= x->deadline_ms)
			e = ledger_entry_not_run(id, as, "skipped", halt = "not run: the runner's "
			    "overall deadline (the sum of the timeouts plus the grace) passed");
		else if (failed && x->stop_on_failure)
			e = ledger_entry_not_run(id, as, "skipped",
			    "not run: an earlier command failed (stop_on_failure)");
		else if (*x->stop) {
			e = ledger_entry_not_run(id, as, "skipped", halt = told);
			*stopped = 1;
		} else if (x->judge != NULL && (e = x->judge(x->arg, c, i)) != NULL)
			failed = 1;
		else {
			json_array_append_new(entries, ledger_entry_not_run(id, as, "interrupted",
			    started));
			rc = x->record(x->arg, entries);
			json_array_remove(entries, json_array_size(entries) - 1);
			if (rc != 0) {
				e = ledger_entry_not_run(id, as, "skipped",
				    halt = "not run: its start could not be recorded");
				*broken = 1;
			} else {
				e = x->run(x->arg, c, i);
				failed = strcmp(json_string_value(json_object_get(e, "status")),
				    "ran") != 0;
			}
		}
		json_array_append_new(entries, e);
	}
	return entries;
}
