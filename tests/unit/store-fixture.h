/* SPDX-License-Identifier: ISC */
/* A fresh state directory per test, gates stored from plain records, and
 * requests.jsonl read back: shared by test-store.c and test-attempts.c. */
#ifndef STORE_FIXTURE_H
#define STORE_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "warrant.h"

#define TRUE_SHA "0000000000000000000000000000000000000000000000000000000000000001"

static char dir[PATH_MAX];

static int
fixture_setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/warrant-unit.XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
fixture_teardown(void **state)
{
	static const char *const files[] = {
		"warrant.db", "warrant.db-wal", "warrant.db-shm", "requests.jsonl",
	};
	char path[PATH_MAX + 32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		unlink(path);
	}
	return rmdir(dir);
}

/* The manifest of a one-command request as the intake would seal it. */
static json_t *
fixture_manifest(const char *id)
{
	return json_pack("{s:i,s:s,s:s,s:s,s:s,s:{s:s},s:b,s:s,"
	    "s:[{s:s,s:s,s:[s],s:s,s:s,s:s,s:s,s:n}]}",
	    "schema_version", 1, "request_id", id, "host", "host", "run_as", "root",
	    "cwd", "/", "env", "LANG", "C", "stop_on_failure", 1, "output_to_agent", "tail",
	    "commands", "id", "a", "as", "root", "argv", "/usr/bin/true",
	    "path", "/usr/bin/true", "executable_sha256", TRUE_SHA, "why", "w",
	    "cwd", "/", "timeout_seconds");
}

/* Fill g and c for gate id, with manifest m sealed as bytes and sha. */
#define FIXTURE_UID	1000
#define FIXTURE_PID	4242

static void
fixture_record(struct gate_record *g, struct command_record *c, const char *id,
    json_t *m, const char *bytes, const char *sha, int64_t created, int64_t window)
{
	memset(c, 0, sizeof *c);
	c->id = "a";
	c->argv = json_pack("[s]", "/usr/bin/true");
	c->given_path = "true";
	c->path = "/usr/bin/true";
	c->executable_sha256 = TRUE_SHA;
	c->why = "w";
	c->cwd = "/";
	c->badges = json_pack("[s]", "network");
	memset(g, 0, sizeof *g);
	g->id = id;
	g->host = "host";
	g->requester = "tester";
	g->requester_uid = FIXTURE_UID;
	g->requester_pid = FIXTURE_PID;
	g->requester_start = 12345;
	g->agent = "agent";
	g->project = "proj";
	g->reason = "r";
	g->run_as = "root";
	g->cwd = "/";
	g->env = json_object_get(m, "env");
	g->stop_on_failure = 1;
	g->output_to_agent = "tail";
	g->risk_badges = json_pack("[s]", "network");
	g->root_count = 1;
	g->manifest = m;
	g->manifest_bytes = bytes;
	g->manifest_sha256 = sha;
	g->created = created;
	g->expires = created + window;
	g->commands = c;
	g->ncommands = 1;
}

static void
fixture_record_free(struct gate_record *g)
{
	json_decref(g->commands[0].argv);
	json_decref(g->commands[0].badges);
	json_decref(g->risk_badges);
}

/* Store one gate created at created with a review window; its id in id. */
static void
gate_add(struct store *st, int64_t created, int64_t window, char id[GATE_ID_LEN + 1])
{
	char sha[SHA256_HEX_LEN + 1], *bytes;
	struct command_record c;
	struct gate_record g;
	json_t *m;

	assert_int_equal(gate_id_new(id), 0);
	m = fixture_manifest(id);
	assert_non_null(m);
	bytes = manifest_seal(m, sha);
	assert_non_null(bytes);
	fixture_record(&g, &c, id, m, bytes, sha, created, window);
	assert_int_equal(gate_insert(st, &g), 0);
	fixture_record_free(&g);
	free(bytes);
	json_decref(m);
}

/* requests.jsonl as an array of its lines, each parsed; every line must
 * be one JSON object. */
static json_t *
jsonl_read(void)
{
	char path[PATH_MAX + 32], line[64 * 1024];
	json_t *lines = json_array(), *j;
	FILE *fp;

	snprintf(path, sizeof path, "%s/requests.jsonl", dir);
	if ((fp = fopen(path, "r")) == NULL)
		return lines;
	while (fgets(line, sizeof line, fp) != NULL) {
		assert_non_null(strchr(line, '\n'));
		j = json_loads(line, 0, NULL);
		assert_true(json_is_object(j));
		json_array_append_new(lines, j);
	}
	fclose(fp);
	return lines;
}

/* The event of line i of requests.jsonl, and that it is about gate id. */
static void
assert_jsonl(size_t n, size_t i, const char *event, const char *id)
{
	json_t *lines = jsonl_read(), *l;

	assert_int_equal(json_array_size(lines), n);
	l = json_array_get(lines, i);
	assert_string_equal(json_string_value(json_object_get(l, "event")), event);
	assert_string_equal(json_string_value(json_object_get(l, "request_id")), id);
	json_decref(lines);
}

#endif
