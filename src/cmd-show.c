/* SPDX-License-Identifier: ISC */
/* warrant show: one gate in full; with -j the sealed manifest too. */
#include <getopt.h>
#include <stdlib.h>

#include "warrant.h"

static int cmd_show_exec(int, char **);

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.usage = "ID [-j]",
	.help =
	"Show one gate: context, risk badges and every command. ID is the request\n"
	"id or any unique prefix of 4 or more characters (the \"w-\" may be left off).\n"
	"Agent text is shown with control characters and escapes made visible.\n\n"
	"  -j, --json   the gate as JSON, with the sealed manifest and its SHA-256\n",
	.exec = cmd_show_exec,
};

static int
cmd_show_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	char id[GATE_ID_LEN + 1];
	struct store st;
	json_t *g;
	int ch, json = 0, rc;

	while ((ch = getopt_long(argc, argv, "j", longopts, NULL)) != -1) {
		if (ch != 'j')
			return usage_error(&cmd_show_entry, NULL);
		json = 1;
	}
	if (optind != argc - 1)
		return usage_error(&cmd_show_entry, "give exactly one ID");
	if (open_store_current(&st) != 0)
		return EXIT_INTERNAL;
	if ((rc = gate_arg(&st, argv[optind], id)) != EXIT_OK) {
		store_close(&st);
		return rc;
	}
	g = store_gate(&st, id, json);
	/* a remote gate's view names its sealed destination */
	if (!json && g != NULL && *json_str(g, "machine") != '\0') {
		json_decref(g);
		g = store_gate(&st, id, 1);
	}
	store_close(&st);
	if (g == NULL)
		return EXIT_INTERNAL;
	if (json)
		rc = print_json(g);
	else {
		gate_print_full(stdout, g, st.dir);
		rc = fflush(stdout);
	}
	json_decref(g);
	return rc == 0 ? EXIT_OK : EXIT_INTERNAL;
}
