/*
 * warrant request: read one schema v1 request on stdin, validate it whole,
 * seal its manifest and store it as a pending gate; print the gate
 * descriptor. A refusal stores nothing and exits 2.
 */
#include <getopt.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "warrant.h"

static int cmd_request_exec(int, char **);

const struct cmd_entry cmd_request_entry = {
	.name = "request",
	.usage = "[-j] [-o AGENT] [-p PROJECT] [-w] < request.json",
	.help =
	"Create a gate from one JSON request on standard input (warrant-request(5)).\n"
	"Prints the gate descriptor as JSON. A refused request stores nothing and\n"
	"exits 2.\n\n"
	"  -j, --json            print a refusal as {\"error\":{code,message,path}}\n"
	"  -o, --origin-agent A  the agent making the request\n"
	"  -p, --project P       the project the request belongs to\n"
	"  -w, --wait            wait for the outcome and print it as warrant wait\n"
	"                        does (the descriptor goes to standard error)\n",
	.exec = cmd_request_exec,
};

static int
refused(const struct refusal *r, int json)
{
	json_t *j;

	if (json) {
		j = refusal_json(r);
		print_json(j);
		json_decref(j);
	} else {
		fprintf(stderr, "warrant: request refused (%s) at ", r->code);
		text_print(stderr, r->path);
		fputs(": ", stderr);
		text_print(stderr, r->message);
		fputc('\n', stderr);
	}
	return EXIT_REFUSED;
}

/* A label given on the command line: short, printable, one line. */
static int
valid_label(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 128)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

static json_t *
descriptor(const char *id, const struct wrequest *q, const char *sha, int64_t expires)
{
	json_t *cmds = json_array();
	char when[32], answer[64];
	size_t i;

	for (i = 0; i < q->ncmds; i++)
		json_array_append_new(cmds, json_pack("{s:s,s:s,s:o}",
		    "id", q->cmds[i].id, "as", q->cmds[i].as_user ? "user" : "root",
		    "badges", badges_json(q->cmds[i].badges)));
	format_time(expires, when, sizeof when);
	snprintf(answer, sizeof answer, "warrant answer %s", id);
	return json_pack("{s:s,s:s,s:s,s:s,s:I,s:o,s:o,s:i,s:i,s:s}",
	    "request_id", id, "state", "pending", "manifest_sha256", sha,
	    "expires_at", when, "expires_at_epoch", (json_int_t)expires,
	    "commands", cmds, "risk_badges", badges_json(q->badges),
	    "root_count", q->nroot, "user_count", q->nuser,
	    "reviewer_command", answer);
}

/* requests.jsonl: the user's own record of every request and decision. */
static void
log_request(const char *dir, const char *id, const struct gate_meta *m,
    json_t *manifest, const char *sha, int64_t now)
{
	json_t *line = json_pack("{s:s,s:I,s:s,s:s,s:s?,s:s?,s:O}", "event", "request",
	    "at", (json_int_t)now, "request_id", id, "manifest_sha256", sha,
	    "agent", m->agent, "project", m->project, "manifest", manifest);

	state_append_jsonl(dir, line);
	json_decref(line);
}

static int
cmd_request_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "origin-agent", required_argument, NULL, 'o' },
		{ "project", required_argument, NULL, 'p' },
		{ "wait", no_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 }
	};
	const char *agent = NULL, *project = NULL;
	char id[GATE_ID_LEN + 1], host[256], sha[SHA256_HEX_LEN + 1];
	char *buf = NULL, *bytes = NULL;
	json_t *manifest = NULL, *desc = NULL;
	struct principal me;
	struct refusal r;
	struct wrequest q;
	struct gate_meta meta;
	struct passwd *pw;
	struct store st;
	int64_t now;
	size_t len;
	int ch, json = 0, wait = 0, rc;

	while ((ch = getopt_long(argc, argv, "jo:p:w", longopts, NULL)) != -1) {
		switch (ch) {
		case 'w':
			wait = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'o':
			agent = optarg;
			break;
		case 'p':
			project = optarg;
			break;
		default:
			return usage_error(&cmd_request_entry, NULL);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_request_entry, "unexpected argument '%s'", argv[optind]);
	if ((agent != NULL && !valid_label(agent)) || (project != NULL && !valid_label(project)))
		return usage_error(&cmd_request_entry,
		    "agent and project must be 1-128 printable characters");

	rc = read_bounded(STDIN_FILENO, &buf, &len, REQUEST_MAX);
	if (rc < 0) {
		warnx_("reading the request: %m");
		return EXIT_INTERNAL;
	}
	if (rc > 0) {
		refuse(&r, "invalid_field", "$", "the request is larger than %d bytes "
		    "(reading stopped there)", REQUEST_MAX);
		return refused(&r, json);
	}
	if (principal_self(&me) != 0) {
		warnx_("cannot read your groups: %m");
		free(buf);
		return EXIT_INTERNAL;
	}
	rc = request_parse(buf, len, &q, &r);
	free(buf);
	if (rc != 0)
		return refused(&r, json);
	if (validate_request(&q, &me, &r) != 0) {
		request_free(&q);
		return refused(&r, json);
	}

	rc = EXIT_INTERNAL;
	if (gate_id_new(id) != 0) {
		warnx_("cannot read the system's random source: %m");
		goto out;
	}
	if (gethostname(host, sizeof host) != 0)
		strcpy(host, "localhost");
	host[sizeof host - 1] = '\0';
	manifest = manifest_build(&q, id, host);
	if (manifest == NULL || (bytes = manifest_seal(manifest, sha)) == NULL) {
		warnx_("cannot encode the manifest");
		goto out;
	}
	pw = getpwuid(getuid());
	meta.agent = agent;
	meta.project = project;
	meta.requester = pw != NULL ? pw->pw_name : "unknown";
	meta.requester_uid = getuid();
	meta.host = host;
	now = now_seconds();
	if (store_open(&st) != 0)
		goto out;
	if (store_insert_request(&st, id, &q, &meta, manifest, bytes, sha, now,
	    now + q.gate_timeout) != 0) {
		store_close(&st);
		goto out;
	}
	desc = descriptor(id, &q, sha, now + q.gate_timeout);
	log_request(st.dir, id, &meta, manifest, sha, now);
	if (wait) {
		char *line = json_dumps(desc, JSON_COMPACT);

		fprintf(stderr, "%s\n", line != NULL ? line : id);
		free(line);
		rc = wait_gate(&st, id, -1, json);
	} else
		rc = print_json(desc) == 0 ? EXIT_OK : EXIT_INTERNAL;
	store_close(&st);
out:
	json_decref(desc);
	json_decref(manifest);
	free(bytes);
	request_free(&q);
	return rc;
}
