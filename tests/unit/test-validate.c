/* SPDX-License-Identifier: ISC */
/* Request parsing and the policy rules that do not depend on who asks;
 * then the requester: built for this process (and refused inside a user
 * namespace of its own), or given, as a daemon will, in which case
 * writability is judged and the gate recorded for it, not for this
 * process. The end-to-end tests cover the rest as a non-root requester. */
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <openssl/evp.h>

#include "warrant.h"

struct refusal_vector {
	const char	*json;
	const char	*code;
	const char	*path;
};

#define CMD(x)	"{\"reason\":\"r\",\"commands\":[" x "]}"
#define TRUE_CMD "{\"id\":\"a\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\"}"

static const struct refusal_vector cases[] = {
	{ "", "invalid_json", "$" },
	{ "{", "invalid_json", "$" },
	{ "{\"reason\":\"r\",\"reason\":\"s\",\"commands\":[" TRUE_CMD "]}", "invalid_json", "$" },
	{ "{\"reason\":\"\xff\",\"commands\":[" TRUE_CMD "]}", "invalid_json", "$" },
	{ "[]", "invalid_field", "$" },
	{ "{\"reason\":\"r\",\"commands\":[" TRUE_CMD "],\"extra\":1}", "invalid_field", "$.extra" },
	{ "{\"reason\":\"r\"}", "invalid_field", "$.commands" },
	{ "{\"reason\":\"r\",\"commands\":[]}", "invalid_field", "$.commands" },
	{ "{\"commands\":[" TRUE_CMD "]}", "invalid_field", "$.reason" },
	{ "{\"reason\":\"\",\"commands\":[" TRUE_CMD "]}", "invalid_field", "$.reason" },
	{ "{\"reason\":\"r\",\"why\":\"w\",\"commands\":[" TRUE_CMD "]}", "invalid_field", "$.why" },
	{ "{\"schema_version\":2,\"reason\":\"r\",\"commands\":[" TRUE_CMD "]}",
	  "unsupported_schema", "$.schema_version" },
	{ "{\"schema_version\":\"1\",\"reason\":\"r\",\"commands\":[" TRUE_CMD "]}",
	  "unsupported_schema", "$.schema_version" },
	{ "{\"reason\":\"r\",\"gate_timeout_seconds\":1.0,\"commands\":[" TRUE_CMD "]}",
	  "invalid_field", "$.gate_timeout_seconds" },
	{ "{\"reason\":\"r\",\"gate_timeout_seconds\":86401,\"commands\":[" TRUE_CMD "]}",
	  "invalid_field", "$.gate_timeout_seconds" },
	{ "{\"reason\":\"r\",\"timeout_seconds\":0,\"commands\":[" TRUE_CMD "]}",
	  "invalid_field", "$.timeout_seconds" },
	{ "{\"reason\":\"r\",\"stop_on_failure\":1,\"commands\":[" TRUE_CMD "]}",
	  "invalid_field", "$.stop_on_failure" },
	{ "{\"reason\":\"r\",\"output_to_agent\":\"all\",\"commands\":[" TRUE_CMD "]}",
	  "invalid_field", "$.output_to_agent" },
	{ "{\"reason\":\"r\",\"run_as\":\"root:root\",\"commands\":[" TRUE_CMD "]}",
	  "invalid_field", "$.run_as" },
	{ "{\"reason\":\"r\",\"machine\":\"a b\",\"commands\":[" TRUE_CMD "]}",
	  "invalid_field", "$.machine" },
	{ "{\"reason\":\"r\",\"machine\":\"a\\u001bb\",\"commands\":[" TRUE_CMD "]}",
	  "invalid_field", "$.machine" },
	{ "{\"reason\":\"r\",\"cwd\":\"tmp\",\"commands\":[" TRUE_CMD "]}", "invalid_field", "$.cwd" },
	{ "{\"reason\":\"r\",\"cwd\":\"/nonexistent/x\",\"commands\":[" TRUE_CMD "]}",
	  "invalid_field", "$.cwd" },
	{ "{\"reason\":\"r\",\"cwd\":\"/etc/passwd\",\"commands\":[" TRUE_CMD "]}",
	  "invalid_field", "$.cwd" },
	{ "{\"reason\":\"r\",\"env\":[],\"commands\":[" TRUE_CMD "]}", "invalid_field", "$.env" },
	{ "{\"reason\":\"r\",\"env\":{\"A\":1},\"commands\":[" TRUE_CMD "]}", "invalid_field", "$.env.A" },
	{ "{\"reason\":\"r\",\"env\":{\"1A\":\"x\"},\"commands\":[" TRUE_CMD "]}", "invalid_field", "$.env.1A" },
	{ "{\"reason\":\"r\",\"next\":{\"prompt\":\"p\",\"x\":1},\"commands\":[" TRUE_CMD "]}",
	  "invalid_field", "$.next.x" },
	{ CMD("{\"id\":\"-a\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\"}"), "invalid_field", "$.commands[0].id" },
	{ CMD("{\"id\":\"a b\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\"}"), "invalid_field", "$.commands[0].id" },
	{ CMD(TRUE_CMD "," TRUE_CMD), "invalid_field", "$.commands[1].id" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\"]}"), "invalid_field", "$.commands[0].why" },
	{ CMD("{\"id\":\"a\",\"argv\":[],\"why\":\"w\"}"), "invalid_field", "$.commands[0].argv" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\",\"\"],\"why\":\"w\"}"),
	  "invalid_field", "$.commands[0].argv[1]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\",5],\"why\":\"w\"}"),
	  "invalid_field", "$.commands[0].argv[1]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\",\"as\":\"admin\"}"),
	  "invalid_field", "$.commands[0].as" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\",\"timeout_seconds\":2.5}"),
	  "invalid_field", "$.commands[0].timeout_seconds" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\",\"cwd\":\"/\"}"),
	  "cwd_on_root_command", "$.commands[0].cwd" },
	{ CMD("{\"id\":\"a\",\"command\":\"true\",\"why\":\"w\"}"), "invalid_field", "$.commands[0].command" },
	{ CMD("{\"id\":\"a\",\"as\":\"user\",\"command\":\"true\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\"}"),
	  "invalid_field", "$.commands[0].command" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\",\"bogus\":1}"),
	  "invalid_field", "$.commands[0].bogus" },
	/* policy */
	{ CMD("{\"id\":\"a\",\"argv\":[\"sudo\",\"id\"],\"why\":\"w\"}"), "nested_privilege_tool", "$.commands[0].argv[0]" },
	{ CMD("{\"id\":\"a\",\"as\":\"user\",\"argv\":[\"su\"],\"why\":\"w\"}"), "nested_privilege_tool", "$.commands[0].argv[0]" },
	{ CMD("{\"id\":\"a\",\"as\":\"user\",\"command\":\"id; sudo -n true\",\"why\":\"w\"}"),
	  "nested_privilege_tool", "$.commands[0].command" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"bash\",\"x\"],\"why\":\"w\"}"), "interactive_program", "$.commands[0].argv[0]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/env\",\"sh\"],\"why\":\"w\"}"), "interactive_program", "$.commands[0]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/env\",\"-S\",\"dash -x\"],\"why\":\"w\"}"), "interactive_program", "$.commands[0]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/env\",\"sudo\"],\"why\":\"w\"}"), "nested_privilege_tool", "$.commands[0]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/python3\",\"-c\",\"print(1)\"],\"why\":\"w\"}"),
	  "shell_request", "$.commands[0].argv[1]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/flock\",\"-w\",\"5\",\"/tmp/l\",\"--command\",\"id\"],\"why\":\"w\"}"),
	  "shell_request", "$.commands[0].argv[0]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"./true\"],\"why\":\"w\"}"), "bad_executable", "$.commands[0].argv[0]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin\"],\"why\":\"w\"}"), "bad_executable", "$.commands[0].argv[0]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/no/such/tool\"],\"why\":\"w\"}"), "bad_executable", "$.commands[0].argv[0]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"no-such-tool-xyz\"],\"why\":\"w\"}"), "bad_executable", "$.commands[0].argv[0]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\",\"--DB_PassWord=x\"],\"why\":\"w\"}"),
	  "credential_field_rejected", "$.commands[0].argv[1]" },
	{ CMD("{\"id\":\"a\",\"as\":\"user\",\"command\":\"curl -H token=abc\",\"why\":\"w\"}"),
	  "credential_field_rejected", "$.commands[0].command" },
	{ "{\"reason\":\"r\",\"env\":{\"X\":\"Secret=1\"},\"commands\":[" TRUE_CMD "]}",
	  "credential_field_rejected", "$.env.X" },
	{ "{\"reason\":\"r\",\"env\":{\"MY_TOKEN\":\"1\"},\"commands\":[" TRUE_CMD "]}",
	  "credential_field_rejected", "$.env.MY_TOKEN" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\",\"--password\",\"hunter2\"],\"why\":\"w\"}"),
	  "credential_field_rejected", "$.commands[0].argv[2]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\",\"--pass\u00adword\",\"x\"],\"why\":\"w\"}"),
	  "credential_field_rejected", "$.commands[0].argv[2]" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\",\"https://u:p@h/\"],\"why\":\"w\"}"),
	  "credential_field_rejected", "$.commands[0].argv[1]" },
	{ "{\"reason\":\"password: hunter2\",\"commands\":[" TRUE_CMD "]}",
	  "credential_field_rejected", "$.reason" },
	{ "{\"why\":\"use ghp_16C7e42F292c6912E7710c838347Ae178B4a\",\"commands\":[" TRUE_CMD "]}",
	  "credential_field_rejected", "$.reason" },
	{ CMD("{\"id\":\"a\",\"argv\":[\"/usr/bin/true\"],\"why\":\"with pa\u200bssword=x\"}"),
	  "credential_field_rejected", "$.commands[0].why" },
	{ CMD("{\"id\":\"sk-Ab3dEf6hIj9kLm2nOp5qRs8t\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\"}"),
	  "credential_field_rejected", "$.commands[0].id" },
	{ "{\"reason\":\"r\",\"next\":{\"prompt\":\"then use AKIAIOSFODNN7EXAMPLE\"},\"commands\":[" TRUE_CMD "]}",
	  "credential_field_rejected", "$.next.prompt" },
	{ "{\"reason\":\"r\",\"env\":{\"MYSQL_PWD\":\"1\"},\"commands\":[" TRUE_CMD "]}",
	  "credential_field_rejected", "$.env.MYSQL_PWD" },
	{ "{\"reason\":\"r\",\"env\":{\"X\":\"Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9\"},\"commands\":[" TRUE_CMD "]}",
	  "credential_field_rejected", "$.env.X" },
	{ "{\"reason\":\"r\",\"env\":{\"LD_PRELOAD\":\"/x.so\"},\"commands\":[" TRUE_CMD "]}",
	  "forbidden_env", "$.env.LD_PRELOAD" },
	{ "{\"reason\":\"r\",\"env\":{\"ld_library_path\":\"/x\"},\"commands\":[" TRUE_CMD "]}",
	  "forbidden_env", "$.env.ld_library_path" },
	{ "{\"reason\":\"r\",\"env\":{\"BASH_FUNC_ls%%\":\"() { id; }\"},\"commands\":[" TRUE_CMD "]}",
	  "forbidden_env", "$.env.BASH_FUNC_ls%%" },
	{ "{\"reason\":\"r\",\"env\":{\"BASH_FUNC_ls\":\"x\"},\"commands\":[" TRUE_CMD "]}",
	  "forbidden_env", "$.env.BASH_FUNC_ls" },
	{ "{\"reason\":\"r\",\"env\":{\"PATH\":\"/tmp\"},\"commands\":[" TRUE_CMD "]}", "forbidden_env", "$.env.PATH" },
	{ "{\"reason\":\"r\",\"env\":{\"IFS\":\" \"},\"commands\":[" TRUE_CMD "]}", "forbidden_env", "$.env.IFS" },
	{ "{\"reason\":\"r\",\"machine\":\"elsewhere\",\"commands\":[" TRUE_CMD "]}",
	  "unknown_machine", "$.machine" },
};

static void
test_refusals(void **state)
{
	struct requester me;
	struct refusal r;
	struct wrequest q;
	size_t i;
	int rc;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(&r, 0, sizeof r);
		rc = request_parse(cases[i].json, strlen(cases[i].json), &q, &r);
		if (rc == 0) {
			rc = validate_request(&q, &me, &r);
			request_free(&q);
		}
		if (rc == 0 || strcmp(r.code, cases[i].code) != 0 ||
		    strcmp(r.path, cases[i].path) != 0)
			fail_msg("case %zu (%s): got %s at %s (%s), want %s at %s", i,
			    cases[i].json, rc == 0 ? "accepted" : r.code, r.path, r.message,
			    cases[i].code, cases[i].path);
	}
	requester_free(&me);
}

static void
test_limits(void **state)
{
	size_t cap = 300 * 1024, i;
	char *buf = xmalloc(cap);
	struct refusal r;
	struct wrequest q;
	int n;

	(void)state;
	/* 129 commands */
	n = snprintf(buf, cap, "{\"reason\":\"r\",\"commands\":[");
	for (i = 0; i < 129; i++)
		n += snprintf(buf + n, cap - (size_t)n, "%s{\"id\":\"c%zu\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\"}",
		    i ? "," : "", i);
	snprintf(buf + n, cap - (size_t)n, "]}");
	assert_int_equal(request_parse(buf, strlen(buf), &q, &r), -1);
	assert_string_equal(r.code, "invalid_field");
	assert_string_equal(r.path, "$.commands");
	/* 65 argv entries; 64 are fine */
	for (int argc = 64; argc <= 65; argc++) {
		n = snprintf(buf, cap, "{\"reason\":\"r\",\"commands\":[{\"id\":\"a\",\"why\":\"w\",\"argv\":[\"/usr/bin/true\"");
		for (i = 1; i < (size_t)argc; i++)
			n += snprintf(buf + n, cap - (size_t)n, ",\"x\"");
		snprintf(buf + n, cap - (size_t)n, "]}]}");
		if (argc == 64) {
			assert_int_equal(request_parse(buf, strlen(buf), &q, &r), 0);
			request_free(&q);
		} else {
			assert_int_equal(request_parse(buf, strlen(buf), &q, &r), -1);
			assert_string_equal(r.path, "$.commands[0].argv");
		}
	}
	/* an argv element of 4097 bytes; a why of 2049 */
	n = snprintf(buf, cap, "{\"reason\":\"r\",\"commands\":[{\"id\":\"a\",\"why\":\"w\",\"argv\":[\"/usr/bin/true\",\"");
	memset(buf + n, 'x', 4097);
	snprintf(buf + n + 4097, cap - (size_t)n - 4097, "\"]}]}");
	assert_int_equal(request_parse(buf, strlen(buf), &q, &r), -1);
	assert_string_equal(r.path, "$.commands[0].argv[1]");
	n = snprintf(buf, cap, "{\"reason\":\"r\",\"commands\":[{\"id\":\"a\",\"argv\":[\"/usr/bin/true\"],\"why\":\"");
	memset(buf + n, 'y', 2049);
	snprintf(buf + n + 2049, cap - (size_t)n - 2049, "\"}]}");
	assert_int_equal(request_parse(buf, strlen(buf), &q, &r), -1);
	assert_string_equal(r.path, "$.commands[0].why");
	/* deep nesting */
	memset(buf, '[', 100000);
	assert_int_equal(request_parse(buf, 100000, &q, &r), -1);
	assert_string_equal(r.code, "invalid_json");
	/* over the whole-request limit */
	memset(buf, ' ', REQUEST_MAX + 1);
	assert_int_equal(request_parse(buf, REQUEST_MAX + 1, &q, &r), -1);
	assert_string_equal(r.code, "invalid_field");
	free(buf);
}

/* A refusal whose path is cut inside a character still reaches the agent
 * (found when fuzz-request began to check refusal_json: it gave NULL, and
 * `warrant request -j` printed nothing). */
static void
test_refusal_cut_character(void **state)
{
	char buf[1024], *key = buf + 200;
	const char *path;
	struct refusal r;
	struct wrequest q;
	json_t *j;
	int i;

	(void)state;
	for (i = 0; i < 300; i++)
		memcpy(key + 2 * i, "\xc3\xa9", 2);	/* é */
	key[600] = '\0';
	snprintf(buf, 200, "{\"reason\":\"r\",\"commands\":[{\"id\":\"a\",\"why\":\"w\",\"");
	memmove(buf + strlen(buf), key, 601);
	strcat(buf, "\":1}]}");
	assert_int_equal(request_parse(buf, strlen(buf), &q, &r), -1);
	assert_string_equal(r.code, "invalid_field");
	assert_int_equal(strlen(r.path), sizeof r.path - 1);
	j = refusal_json(&r);
	assert_non_null(j);
	path = json_string_value(json_object_get(json_object_get(j, "error"), "path"));
	assert_non_null(path);
	assert_int_equal(strncmp(path, "$.commands[0].\xc3\xa9", 16), 0);
	assert_string_equal(path + strlen(path) - 4, "\\xc3");
	json_decref(j);
}

static void
test_accepts_and_normalises(void **state)
{
	const char *json = "{\"reason\":\"r\",\"timeout_seconds\":60,\"commands\":["
	    "{\"id\":\"a\",\"argv\":[\"true\"],\"why\":\"w\"},"
	    "{\"id\":\"b\",\"as\":\"user\",\"command\":\"echo hi | wc -c\",\"why\":\"w\",\"cwd\":\"/tmp\"},"
	    "{\"id\":\"c\",\"as\":\"user\",\"argv\":[\"bash\",\"-c\",\"echo ok\"],\"why\":\"shells are fine as you\"}]}";
	char home[PATH_MAX];
	struct requester me;
	struct refusal r;
	struct wrequest q;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
	if (validate_request(&q, &me, &r) != 0)
		fail_msg("refused: %s %s %s", r.code, r.path, r.message);
	assert_int_equal(q.nroot, 1);
	assert_int_equal(q.nuser, 2);
	assert_int_equal(q.gate_timeout, 60);
	assert_int_equal(q.cmds[0].timeout, 60);
	assert_string_equal(q.cmds[0].cwd, "/");
	assert_string_equal(q.cmds[0].exe.given, "true");
	assert_string_equal(q.cmds[0].exe.path, "/usr/bin/true");
	assert_int_equal(strlen(q.cmds[0].exe.sha256), SHA256_HEX_LEN);
	assert_string_equal(q.cmds[1].argv[0], "bash");
	assert_string_equal(q.cmds[1].argv[3], "-c");
	assert_string_equal(q.cmds[1].argv[4], "echo hi | wc -c");
	assert_string_equal(q.cmds[1].cwd, "/tmp");
	/* no cwd on a YOU command: the requester's home */
	if (me.home != NULL && realpath(me.home, home) != NULL)
		assert_string_equal(q.cmds[2].cwd, home);
	else
		assert_string_equal(q.cmds[2].cwd, "/");
	assert_true(q.cmds[1].badges & BADGE_SHELL);
	request_free(&q);
	requester_free(&me);
}

static void
test_credential_shapes(void **state)
{
	(void)state;
	assert_true(contains_credential("PASSWORD=x"));
	assert_true(contains_credential("--Passphrase=x"));
	assert_true(contains_credential("aws_secret=1"));
	assert_true(contains_credential("Token="));
	assert_true(contains_credential("x passwd=y"));
	assert_false(contains_credential("password"));
	assert_false(contains_credential("--token-file /x"));
}

/*
 * What a ROOT argv would make root run (argscan.c): each argv (a JSON
 * array) is refused with its code at its path, or accepted ("").
 */
static const struct {
	const char	*argv;
	const char	*code;
	const char	*path;
} argv_cases[] = {
	/* the dynamic loader is a runner, found by name and by identity */
	{ "[\"/lib64/ld-linux-x86-64.so.2\",\"/usr/bin/dash\",\"-ec\",\"id\"]",
	  "interactive_program", "$.commands[0]" },
	{ "[\"/lib64/ld-linux-x86-64.so.2\",\"/usr/bin/sudo\",\"id\"]",
	  "nested_privilege_tool", "$.commands[0]" },
	{ "[\"/lib64/ld-linux-x86-64.so.2\",\"{}\"]", "bad_executable", "$.commands[0].argv[1]" },
	{ "[\"/lib64/ld-linux-x86-64.so.2\",\"--list\",\"/usr/bin/true\"]", "", "" },
	/* runners the runner list does not know, at any depth */
	{ "[\"logsave\",\"/dev/null\",\"dash\"]", "interactive_program", "$.commands[0]" },
	{ "[\"setarch\",\"x86_64\",\"bash\"]", "interactive_program", "$.commands[0]" },
	{ "[\"ip\",\"netns\",\"exec\",\"x\",\"/bin/sh\"]", "interactive_program", "$.commands[0]" },
	{ "[\"env\",\"timeout\",\"5\",\"nice\",\"env\",\"sudo\"]", "nested_privilege_tool", "$.commands[0]" },
	{ "[\"systemd-run\",\"-p\",\"ExecStartPre=/bin/sh -x\",\"true\"]",
	  "interactive_program", "$.commands[0]" },
	/* computed targets */
	{ "[\"find\",\"/bin\",\"-name\",\"das?\",\"-exec\",\"{}\",\";\"]",
	  "bad_executable", "$.commands[0].argv[5]" },
	{ "[\"timeout\",\"5\",\"find\",\"/\",\"-okdir\",\"./x\",\";\"]",
	  "bad_executable", "$.commands[0].argv[5]" },
	{ "[\"xargs\",\"-a\",\"/etc/hosts\",\"echo\"]", "bad_executable", "$.commands[0].argv[1]" },
	{ "[\"xargs\",\"--arg=/etc/hosts\"]", "bad_executable", "$.commands[0].argv[1]" },
	{ "[\"xargs\",\"-0I\",\"X\",\"X\"]", "bad_executable", "$.commands[0].argv[3]" },
	{ "[\"run-parts\",\"--regex\",\"^dash$\",\"/usr/bin\"]", "bad_executable", "$.commands[0].argv[1]" },
	/* inline code */
	{ "[\"python3\",\"-Ic\",\"print(1)\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"python3\",\"-cprint(1)\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"python3\",\"-W\",\"c\",\"/usr/lib/x.py\"]", "", "" },
	{ "[\"perl\",\"-lne\",\"print\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"perl\",\"-MPOSIX;system(1)\",\"/usr/share/x.pl\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"perl\",\"-I\",\"/usr/share/e\",\"/usr/share/x.pl\"]", "", "" },
	{ "[\"node\",\"--ev=1\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"mawk\",\"BEGIN{system(1)}\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"awk\",\"-f\",\"/usr/share/x.awk\",\"/etc/passwd\"]", "", "" },
	{ "[\"sed\",\"-n\",\"1e id\",\"/etc/hosts\"]", "shell_request", "$.commands[0].argv[2]" },
	{ "[\"sed\",\"--expr=s/a/b/e\",\"/etc/hosts\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"sed\",\"-i\",\"s/hello/there/g\",\"/etc/motd\"]", "", "" },
	{ "[\"sed\",\"--sandbox\",\"1e id\"]", "", "" },
	{ "[\"flock\",\"--time\",\"5\",\"/tmp/l\",\"--comm\",\"id\"]", "shell_request", "$.commands[0].argv[0]" },
	{ "[\"tar\",\"-xf\",\"/x.tar\",\"--checkpoint-a=exec=id\"]", "shell_request", "$.commands[0].argv[3]" },
	{ "[\"tar\",\"--checkpoint=10\",\"-xf\",\"/x.tar\"]", "", "" },
	{ "[\"tar\",\"xIf\",\"id\",\"/x.tar\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"tar\",\"-xf\",\"/x.tar\",\"--to-com=id\"]", "shell_request", "$.commands[0].argv[3]" },
	{ "[\"tar\",\"-I\",\"dash -ec id\",\"-xf\",\"/x.tar\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"nice\",\"sort\",\"--compress=id\",\"/etc/hosts\"]", "shell_request", "$.commands[0].argv[2]" },
	{ "[\"scp\",\"-oProxyCommand=id\",\"a\",\"b\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"timeout\",\"9\",\"rsync\",\"-avze\",\"id\",\"a\",\"b\"]", "shell_request", "$.commands[0].argv[3]" },
	{ "[\"git\",\"--config-env=core.pager=X\",\"log\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"git\",\"clone\",\"--upload=id\",\"x\"]", "shell_request", "$.commands[0].argv[2]" },
	{ "[\"git\",\"config\",\"core.sshCommand\",\"id\"]", "shell_request", "$.commands[0].argv[2]" },
	{ "[\"gdb\",\"-batch\",\"-ex\",\"shell id\"]", "shell_request", "$.commands[0].argv[2]" },
	{ "[\"gdb\",\"--eval=shell id\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"dpkg\",\"--pre-invoke=id\",\"-i\",\"/x.deb\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"apt-get\",\"-o\",\"APT::Update::Pre-Invoke::=id\",\"update\"]",
	  "shell_request", "$.commands[0].argv[2]" },
	{ "[\"apt-get\",\"-o\",\"Dpkg::Options::=--post-invoke=id\",\"update\"]",
	  "shell_request", "$.commands[0].argv[2]" },
	{ "[\"zip\",\"-T\",\"-TT\",\"id\",\"/x.zip\",\"/etc/hosts\"]", "shell_request", "$.commands[0].argv[2]" },
	{ "[\"env\",\"-iS\",\"true x\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"env\",\"--split=true x\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"make\",\"-C\",\"/srv\",\"--eval=x:=$(shell id)\"]", "shell_request", "$.commands[0].argv[3]" },
	{ "[\"true\",\"--rsh=python3\"]", "shell_request", "$.commands[0].argv[1]" },
	/* the words a package manager reads as package names */
	{ "[\"apt-get\",\"install\",\"-y\",\"bash\",\"sudo\",\"python3\",\"gawk\"]", "", "" },
	{ "[\"apt-get\",\"install\",\"-y\",\"/bin/bash\"]", "interactive_program", "$.commands[0]" },
	{ "[\"apt-get\",\"download\",\"sudo\"]", "", "" },
	{ "[\"dpkg\",\"-L\",\"bash\"]", "", "" },
	{ "[\"timeout\",\"5m\",\"env\",\"DEBIAN_FRONTEND=noninteractive\",\"nice\",\"-n\",\"5\","
	  "\"apt-get\",\"install\",\"-y\",\"bash\"]", "", "" },
	/* package names only where the package manager is what runs */
	{ "[\"find\",\"/\",\"-name\",\"apt-get\",\"-o\",\"-name\",\"install\",\"-exec\",\"sh\",\"{}\",\";\"]",
	  "interactive_program", "$.commands[0]" },
	{ "[\"timeout\",\"5\",\"find\",\"/\",\"-exec\",\"apt-get\",\"install\",\";\",\"-exec\",\"bash\",\";\"]",
	  "interactive_program", "$.commands[0]" },
	{ "[\"find\",\"/\",\"-exec\",\"systemctl\",\"start\",\"x\",\";\",\"-exec\",\"bash\",\";\"]",
	  "interactive_program", "$.commands[0]" },
	{ "[\"true\",\"apt-get\",\"install\",\"bash\"]", "interactive_program", "$.commands[0]" },
	{ "[\"apt-get\",\"install\",\"x\",\";\",\"bash\"]", "interactive_program", "$.commands[0]" },
	{ "[\"strace\",\"-o\",\"|dash\",\"true\"]", "interactive_program", "$.commands[0]" },
	/* a program by a relative path, from the cwd (/ here) */
	{ "[\"env\",\"usr/bin/id\"]", "bad_executable", "$.commands[0].argv[1]" },
	{ "[\"nice\",\"./usr/bin/id\"]", "bad_executable", "$.commands[0].argv[1]" },
	{ "[\"true\",\"no/such.tar\"]", "", "" },
	{ "[\"python3\",\"-m\",\"timeit\",\"1\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"python3\",\"-Im\",\"http.server\"]", "", "" },
	{ "[\"man\",\"-P\",\"id\",\"ls\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"man\",\"--pager=id\",\"ls\"]", "shell_request", "$.commands[0].argv[1]" },
	{ "[\"dpkg\",\"-i\",\"bash\"]", "interactive_program", "$.commands[0]" },
	{ "[\"systemctl\",\"restart\",\"ssh\"]", "", "" },
	{ "[\"journalctl\",\"-u\",\"ssh\",\"--since\",\"today\"]", "", "" },
	{ "[\"nice\",\"ufw\",\"allow\",\"ssh\"]", "", "" },
	{ "[\"timeout\",\"9\",\"firewall-cmd\",\"--add-service=ssh\"]", "", "" },
	{ "[\"systemctl\",\"start\",\"/bin/sh\"]", "interactive_program", "$.commands[0]" },
	{ "[\"usermod\",\"-s\",\"/bin/bash\",\"alice\"]", "", "" },
	/* account and group names are not programs (sudo is a group too) */
	{ "[\"usermod\",\"-aG\",\"sudo\",\"alice\"]", "", "" },
	{ "[\"adduser\",\"alice\",\"sudo\"]", "", "" },
	{ "[\"gpasswd\",\"-d\",\"alice\",\"sudo\"]", "", "" },
	{ "[\"usermod\",\"-aG\",\"sudo\",\"/usr/bin/sudo\"]", "nested_privilege_tool", "$.commands[0]" },
	{ "[\"chmod\",\"755\",\"/bin/bash\"]", "interactive_program", "$.commands[0]" },
	{ "[\"true\",\"/usr/bin/sudo\"]", "nested_privilege_tool", "$.commands[0]" },
	{ "[\"find\",\"/var/log\",\"-name\",\"*.gz\",\"-delete\"]", "", "" },
	{ "[\"find\",\"/var/log\",\"-name\",\"*.gz\",\"-exec\",\"gzip\",\"-t\",\"{}\",\";\"]", "", "" },
	{ "[\"git\",\"-C\",\"/srv/repo\",\"status\"]", "", "" },
	{ "[\"tar\",\"-xzf\",\"/x.tgz\",\"-C\",\"/opt\"]", "", "" },
	{ "[\"ssh-keygen\",\"-A\"]", "", "" },
	/* a path operand by a relative path: root runs in / (operands.c) */
	{ "[\"install\",\"-m\",\"0755\",\"nc2hello\",\"/usr/local/bin/nc2hello\"]",
	  "relative_path", "$.commands[0].argv[3]" },
	{ "[\"cp\",\"x\",\"/etc/y\"]", "relative_path", "$.commands[0].argv[1]" },
	{ "[\"cp\",\"-t\",\"build\",\"/etc/hosts\"]", "relative_path", "$.commands[0].argv[2]" },
	{ "[\"cp\",\"--target-dir=build\",\"/etc/hosts\"]", "relative_path", "$.commands[0].argv[1]" },
	{ "[\"chmod\",\"-R\",\"0755\",\".\"]", "relative_path", "$.commands[0].argv[3]" },
	{ "[\"chown\",\"root\",\"--\",\"-x\"]", "relative_path", "$.commands[0].argv[3]" },
	{ "[\"dd\",\"if=/dev/zero\",\"of=disk.img\",\"bs=1M\"]", "relative_path", "$.commands[0].argv[2]" },
	{ "[\"dpkg\",\"--dry-run\",\"-i\",\"x.deb\"]", "relative_path", "$.commands[0].argv[3]" },
	{ "[\"touch\",\"-r\",\"ref\",\"/etc/motd\"]", "relative_path", "$.commands[0].argv[2]" },
	{ "[\"sed\",\"-f\",\"s.sed\",\"/etc/motd\"]", "relative_path", "$.commands[0].argv[2]" },
	{ "[\"sed\",\"-n\",\"1p\",\"motd\"]", "relative_path", "$.commands[0].argv[3]" },
	{ "[\"tar\",\"-xf\",\"no/such.tar\"]", "relative_path", "$.commands[0].argv[2]" },
	{ "[\"rm\",\"-rf\",\"tmp/x\"]", "relative_path", "$.commands[0].argv[2]" },
	/* words that are not paths: modes, owners, scripts, sizes, values,
	 * members, link targets, package names, unknown tools */
	{ "[\"chown\",\"root:root\",\"/etc/motd\"]", "", "" },
	{ "[\"chmod\",\"-w\",\"/etc/motd\"]", "", "" },
	{ "[\"chmod\",\"u+x,go-w\",\"/etc/motd\"]", "", "" },
	{ "[\"install\",\"-m0644\",\"-o\",\"root\",\"--group=root\",\"/etc/hosts\","
	  "\"/etc/hosts.wt\"]", "", "" },
	{ "[\"mkdir\",\"-p\",\"-m\",\"0755\",\"/opt/wt-x\"]", "", "" },
	{ "[\"sed\",\"-i\",\"s/a/b/\",\"/etc/motd\"]", "", "" },
	{ "[\"sed\",\"-e\",\"1p\",\"/etc/motd\"]", "", "" },
	{ "[\"ln\",\"-sf\",\"../lib/x\",\"/usr/local/bin/x\"]", "", "" },
	{ "[\"dd\",\"if=/dev/zero\",\"of=/etc/wt-x\",\"bs=1M\",\"count=1\"]", "", "" },
	{ "[\"head\",\"-n\",\"5\",\"/etc/hosts\"]", "", "" },
	{ "[\"ls\",\"--sort\",\"time\",\"/etc\"]", "", "" },
	{ "[\"tar\",\"-xzf\",\"/x.tgz\",\"-C\",\"/opt\",\"site/index.html\"]", "", "" },
	{ "[\"tar\",\"xf\",\"x.tar\"]", "", "" },
	{ "[\"cat\",\"-\"]", "", "" },
	{ "[\"truncate\",\"-s\",\"0\",\"/var/log/wt-x\"]", "", "" },
	{ "[\"dpkg\",\"-r\",\"jq\"]", "", "" },
	{ "[\"apt-get\",\"install\",\"-y\",\"jq\"]", "", "" },
	{ "[\"systemctl\",\"restart\",\"nginx\"]", "", "" },
	/* update-alternatives: names are not programs, links and paths are
	 * recorded (judged as paths, not run); --config and --all would read
	 * their choice from /dev/null */
	{ "[\"update-alternatives\",\"--set\",\"editor\",\"/usr/bin/vim.basic\"]", "", "" },
	{ "[\"update-alternatives\",\"--set\",\"awk\",\"/usr/bin/mawk\"]", "", "" },
	{ "[\"timeout\",\"60\",\"update-alternatives\",\"--set\",\"vi\",\"/usr/bin/vim.basic\"]",
	  "", "" },
	{ "[\"update-alternatives\",\"--install\",\"/usr/bin/editor\",\"editor\","
	  "\"/usr/bin/vim.basic\",\"50\",\"--slave\",\"/usr/bin/ex\",\"ex\",\"/usr/bin/vim.basic\"]",
	  "", "" },
	{ "[\"update-alternatives\",\"--quiet\",\"--install\",\"/usr/bin/awk\",\"awk\","
	  "\"/usr/bin/mawk\",\"5\",\"--follower\",\"/usr/bin/nawk\",\"nawk\",\"/usr/bin/mawk\"]",
	  "", "" },
	{ "[\"update-alternatives\",\"--auto\",\"editor\"]", "", "" },
	{ "[\"update-alternatives\",\"--display\",\"vi\"]", "", "" },
	{ "[\"update-alternatives\",\"--query\",\"awk\"]", "", "" },
	{ "[\"update-alternatives\",\"--list\",\"editor\"]", "", "" },
	{ "[\"update-alternatives\",\"--remove\",\"editor\",\"/usr/bin/vim.basic\"]", "", "" },
	{ "[\"update-alternatives\",\"--remove-all\",\"vi\"]", "", "" },
	{ "[\"update-alternatives\",\"--config\",\"editor\"]",
	  "interactive_program", "$.commands[0].argv[1]" },
	{ "[\"update-alternatives\",\"--skip-auto\",\"--all\"]",
	  "interactive_program", "$.commands[0].argv[2]" },
	{ "[\"update-alternatives\",\"--set\",\"editor\",\"/tmp/wt-alt-x\"]",
	  "writable_argument", "$.commands[0].argv[3]" },
	{ "[\"update-alternatives\",\"--install\",\"/tmp/wt-alt-x\",\"wt\",\"/usr/bin/true\",\"1\"]",
	  "writable_argument", "$.commands[0].argv[2]" },
	{ "[\"update-alternatives\",\"--set\",\"editor\",\"/usr/bin/vim.basic\",\"bash\"]",
	  "interactive_program", "$.commands[0]" },
	{ "[\"update-alternatives\",\"--set\",\"editor\",\"/usr/bin/vim.basic\",\"/bin/sudo\"]",
	  "nested_privilege_tool", "$.commands[0]" },
	/* a word that starts with a look-alike of '-' or '/' */
	{ "[\"cp\",\"\u2010n\",\"/etc/skel/.bashrc\",\"/etc/\"]",
	  "lookalike_word", "$.commands[0].argv[1]" },
	{ "[\"dpkg\",\"\u2010\u2010dry-run\",\"-i\",\"/x.deb\"]",
	  "lookalike_word", "$.commands[0].argv[1]" },
	{ "[\"cat\",\"\uff0fetc\uff0fshadow\"]", "lookalike_word", "$.commands[0].argv[1]" },
	{ "[\"find\",\"/etc\",\"\u2212print\"]", "lookalike_word", "$.commands[0].argv[2]" },
	{ "[\"true\",\"\u00adx\"]", "lookalike_word", "$.commands[0].argv[1]" },
	{ "[\"true\",\"a\u2010b\"]", "", "" },
	{ "[\"true\",\"\u05d0\u05d1\"]", "", "" },
};

static void
test_argv_scan(void **state)
{
	char json[1024];
	struct requester me;
	struct refusal r;
	struct wrequest q;
	size_t i;
	int rc;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	for (i = 0; i < sizeof argv_cases / sizeof argv_cases[0]; i++) {
		snprintf(json, sizeof json, CMD("{\"id\":\"a\",\"argv\":%s,\"why\":\"w\"}"),
		    argv_cases[i].argv);
		memset(&r, 0, sizeof r);
		assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
		rc = validate_request(&q, &me, &r);
		request_free(&q);
		if (argv_cases[i].code[0] == '\0' ? rc != 0 : rc == 0 ||
		    strcmp(r.code, argv_cases[i].code) != 0 || strcmp(r.path, argv_cases[i].path) != 0)
			fail_msg("%s: got %s at %s (%s), want %s at %s", argv_cases[i].argv,
			    rc == 0 ? "accepted" : r.code, rc == 0 ? "" : r.path,
			    rc == 0 ? "" : r.message,
			    argv_cases[i].code[0] ? argv_cases[i].code : "accepted",
			    argv_cases[i].path);
	}
	requester_free(&me);
}

/* update-alternatives --config is refused with a hint that says what to
 * ask instead. */
static void
test_alternatives_menu_hint(void **state)
{
	static const char json[] = CMD("{\"id\":\"a\",\"argv\":[\"update-alternatives\","
	    "\"--config\",\"editor\"],\"why\":\"w\"}");
	struct requester me;
	struct refusal r;
	struct wrequest q;
	const char *hint;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
	assert_int_not_equal(validate_request(&q, &me, &r), 0);
	assert_string_equal(r.code, "interactive_program");
	assert_non_null(hint = refusal_hint(&r));
	assert_non_null(strstr(hint, "\"--set\""));
	request_free(&q);
	requester_free(&me);
}

/* getopt_long abbreviations, and the sed commands that run a shell. */
static void
test_opt_abbrev_and_sed(void **state)
{
	(void)state;
	assert_true(opt_abbrev("--command", "command"));
	assert_true(opt_abbrev("--comm", "command"));
	assert_true(opt_abbrev("--comm=id", "command"));
	assert_true(opt_abbrev("-ex", "ex"));		/* getopt_long_only */
	assert_false(opt_abbrev("--", "command"));
	assert_false(opt_abbrev("--=x", "command"));
	assert_false(opt_abbrev("--commandx", "command"));
	assert_false(opt_abbrev("--cx", "command"));
	assert_false(opt_abbrev("command", "command"));
	assert_true(sed_script_runs("1e id"));
	assert_true(sed_script_runs("e"));
	assert_true(sed_script_runs("s/x/id/e"));
	assert_true(sed_script_runs("/re/!s|a|b|ge"));
	assert_true(sed_script_runs("p;$ e id"));
	assert_true(sed_script_runs("1,/x/{s/a/b/;e id\n}"));
	assert_true(sed_script_runs("s/a"));		/* unparseable */
	assert_true(sed_script_runs("K"));
	assert_false(sed_script_runs("s/hello/there/g"));
	assert_false(sed_script_runs("s/e/e/g;/e/d"));
	assert_false(sed_script_runs("\\%e%d"));
	assert_false(sed_script_runs("1i\\\ne"));
	assert_false(sed_script_runs("$a the end"));
	assert_false(sed_script_runs("s/x/y/w /tmp/e"));
	assert_false(sed_script_runs("y/abc/efe/"));
	assert_false(sed_script_runs(":e;N;be"));
}

/* One argument mixing Latin with Cyrillic or Greek letters is badged;
 * each script alone, or in separate arguments, is not. */
static void
test_mixed_script_badge(void **state)
{
	static const struct {
		const char	*argv;
		int		 mixed;
	} args[] = {
		{ "[\"true\",\"/etc/p\u0430sswd\"]", 1 },		/* Cyrillic a */
		{ "[\"true\",\"\u03bfpenssl\"]", 1 },			/* Greek omicron */
		{ "[\"true\",\"/etc/passwd\"]", 0 },
		{ "[\"true\",\"\u043f\u0440\u0438\u0432\u0435\u0442\"]", 0 },	/* all Cyrillic */
		{ "[\"true\",\"abc\",\"\u0430\u0431\"]", 0 },	/* apart */
		{ "[\"true\",\"caf\u00e9 \u65e5\u672c\"]", 0 },	/* Latin and Han */
	};
	char json[256];
	struct requester me;
	struct refusal r;
	struct wrequest q;
	size_t i;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	for (i = 0; i < sizeof args / sizeof args[0]; i++) {
		snprintf(json, sizeof json, "{\"reason\":\"r\",\"commands\":[{\"id\":\"a\","
		    "\"argv\":%s,\"why\":\"w\"}]}", args[i].argv);
		assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
		if (validate_request(&q, &me, &r) != 0)
			fail_msg("refused: %s %s %s", r.code, r.path, r.message);
		if (!(q.badges & BADGE_MIXED_SCRIPT) != !args[i].mixed)
			fail_msg("case %zu (%s): mixed-script %s", i, args[i].argv,
			    args[i].mixed ? "missing" : "given");
		request_free(&q);
	}
	requester_free(&me);
}

/*
 * The badges of what a reviewer must notice: modes that open files to
 * others (octal and symbolic, chmod, install -m, mkdir -m), recursion
 * over a home or /, chown of system paths, look-alike punctuation and
 * right-to-left text; and the near misses that get none.
 */
static void
test_notice_badges(void **state)
{
	static const struct {
		const char	*argv;
		unsigned	 badge;
		int		 want;
	} c[] = {
		{ "[\"chmod\",\"-R\",\"0777\",\"/home/rev\"]", BADGE_WORLD_WRITABLE, 1 },
		{ "[\"chmod\",\"-R\",\"0777\",\"/home/rev\"]", BADGE_RECURSIVE_HOME, 1 },
		{ "[\"chmod\",\"0757\",\"/etc/motd\"]", BADGE_WORLD_WRITABLE, 1 },
		{ "[\"chmod\",\"0775\",\"/etc/motd\"]", BADGE_WORLD_WRITABLE, 0 },
		{ "[\"chmod\",\"o+w\",\"/etc/motd\"]", BADGE_WORLD_WRITABLE, 1 },
		{ "[\"chmod\",\"a+rwx\",\"/etc/motd\"]", BADGE_WORLD_WRITABLE, 1 },
		{ "[\"chmod\",\"+w\",\"/etc/motd\"]", BADGE_WORLD_WRITABLE, 1 },
		{ "[\"chmod\",\"u+w,g=rx\",\"/etc/motd\"]", BADGE_WORLD_WRITABLE, 0 },
		{ "[\"chmod\",\"o-w\",\"/etc/motd\"]", BADGE_WORLD_WRITABLE, 0 },
		{ "[\"chmod\",\"-w\",\"/etc/motd\"]", BADGE_WORLD_WRITABLE, 0 },
		{ "[\"chmod\",\"o=u\",\"/etc/motd\"]", BADGE_WORLD_WRITABLE, 1 },
		{ "[\"chmod\",\"u+s\",\"/etc/motd\"]", BADGE_SETUID, 1 },
		{ "[\"chmod\",\"g+s\",\"/srv\"]", BADGE_SETUID, 1 },
		{ "[\"chmod\",\"4755\",\"/etc/motd\"]", BADGE_SETUID, 1 },
		{ "[\"chmod\",\"2755\",\"/etc/motd\"]", BADGE_SETUID, 1 },
		{ "[\"chmod\",\"1777\",\"/etc/motd\"]", BADGE_SETUID, 0 },
		{ "[\"chmod\",\"o+s\",\"/etc/motd\"]", BADGE_SETUID, 0 },
		{ "[\"chmod\",\"--reference=/etc/motd\",\"/etc/hosts\"]", BADGE_WORLD_WRITABLE, 0 },
		{ "[\"install\",\"-m\",\"4755\",\"/usr/bin/true\",\"/usr/local/bin/wt-x\"]",
		  BADGE_SETUID, 1 },
		{ "[\"install\",\"-d\",\"-m\",\"0777\",\"/srv/wt-x\"]", BADGE_WORLD_WRITABLE, 1 },
		{ "[\"install\",\"--mode=a+w\",\"/etc/hosts\",\"/srv/wt-x\"]", BADGE_WORLD_WRITABLE, 1 },
		{ "[\"install\",\"-m\",\"0755\",\"/etc/hosts\",\"/srv/wt-x\"]", BADGE_WORLD_WRITABLE, 0 },
		{ "[\"mkdir\",\"-m777\",\"/srv/wt-x\"]", BADGE_WORLD_WRITABLE, 1 },
		{ "[\"mkdir\",\"/srv/wt-0777\"]", BADGE_WORLD_WRITABLE, 0 },
		/* recursion over a home directory or / */
		{ "[\"chown\",\"-R\",\"rev\",\"/home/rev/\"]", BADGE_RECURSIVE_HOME, 1 },
		{ "[\"chmod\",\"--recursive\",\"g-w\",\"/\"]", BADGE_RECURSIVE_HOME, 1 },
		{ "[\"rm\",\"-rf\",\"/root\"]", BADGE_RECURSIVE_HOME, 1 },
		{ "[\"chmod\",\"-R\",\"0755\",\"/home/rev/../..\"]", BADGE_RECURSIVE_HOME, 1 },
		{ "[\"chmod\",\"-R\",\"0755\",\"/home/rev/proj\"]", BADGE_RECURSIVE_HOME, 0 },
		{ "[\"chmod\",\"0755\",\"/home/rev\"]", BADGE_RECURSIVE_HOME, 0 },
		/* ownership of system paths */
		{ "[\"chown\",\"rev\",\"/etc/motd\"]", BADGE_SYSTEM_CHOWN, 1 },
		{ "[\"chgrp\",\"-R\",\"rev\",\"/usr/local\"]", BADGE_SYSTEM_CHOWN, 1 },
		{ "[\"chown\",\"rev\",\"/var/lib/wt-x\"]", BADGE_SYSTEM_CHOWN, 1 },
		{ "[\"chown\",\"rev:rev\",\"/home/rev/x\"]", BADGE_SYSTEM_CHOWN, 0 },
		{ "[\"chown\",\"--reference=/etc/motd\",\"/srv/../home/x\"]", BADGE_SYSTEM_CHOWN, 0 },
		/* file capabilities */
		{ "[\"setcap\",\"cap_setuid+ep\",\"/usr/local/bin/wt-x\"]", BADGE_FILE_CAPABILITY, 1 },
		{ "[\"setcap\",\"cap_net_bind_service=ep\",\"/usr/local/bin/wt-x\"]",
		  BADGE_FILE_CAPABILITY, 1 },
		{ "[\"setcap\",\"-r\",\"/usr/local/bin/wt-x\"]", BADGE_FILE_CAPABILITY, 0 },
		{ "[\"setcap\",\"-v\",\"-r\",\"/usr/local/bin/wt-x\"]", BADGE_FILE_CAPABILITY, 0 },
		/* mounts and swap; alone they only list */
		{ "[\"mount\",\"-t\",\"tmpfs\",\"tmpfs\",\"/mnt\"]", BADGE_MOUNT, 1 },
		{ "[\"mount\",\"-a\"]", BADGE_MOUNT, 1 },
		{ "[\"umount\",\"/mnt\"]", BADGE_MOUNT, 1 },
		{ "[\"mount\"]", BADGE_MOUNT, 0 },
		{ "[\"swapon\",\"/swapfile\"]", BADGE_SWAP, 1 },
		{ "[\"swapon\",\"--all\"]", BADGE_SWAP, 1 },
		{ "[\"swapon\",\"--show\"]", BADGE_SWAP, 0 },
		{ "[\"swapon\",\"/swapfile\"]", BADGE_MOUNT, 0 },
		/* group membership; privileged groups, and groups by number */
		{ "[\"usermod\",\"-aG\",\"audio\",\"alice\"]", BADGE_GROUP_CHANGE, 1 },
		{ "[\"usermod\",\"-aG\",\"audio\",\"alice\"]", BADGE_PRIVILEGED_GROUP, 0 },
		{ "[\"usermod\",\"-a\",\"-G\",\"audio,docker\",\"alice\"]", BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"usermod\",\"-aGsudo\",\"alice\"]", BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"usermod\",\"--append\",\"--groups=wheel\",\"alice\"]",
		  BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"usermod\",\"--gr\",\"27\",\"alice\"]", BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"usermod\",\"-g\",\"root\",\"alice\"]", BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"usermod\",\"--comment\",\"-G sudo\",\"alice\"]", BADGE_GROUP_CHANGE, 0 },
		{ "[\"usermod\",\"-s\",\"/bin/bash\",\"alice\"]", BADGE_GROUP_CHANGE, 0 },
		{ "[\"useradd\",\"-m\",\"-G\",\"adm\",\"bob\"]", BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"gpasswd\",\"-a\",\"alice\",\"audio\"]", BADGE_GROUP_CHANGE, 1 },
		{ "[\"gpasswd\",\"-a\",\"alice\",\"audio\"]", BADGE_PRIVILEGED_GROUP, 0 },
		{ "[\"gpasswd\",\"-M\",\"alice,bob\",\"disk\"]", BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"gpasswd\",\"--add\",\"alice\",\"lxd\"]", BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"gpasswd\",\"-d\",\"alice\",\"sudo\"]", BADGE_GROUP_CHANGE, 0 },
		{ "[\"groupmod\",\"-a\",\"-U\",\"alice\",\"shadow\"]", BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"adduser\",\"alice\",\"sudo\"]", BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"adduser\",\"--quiet\",\"alice\",\"audio\"]", BADGE_GROUP_CHANGE, 1 },
		{ "[\"adduser\",\"--quiet\",\"alice\",\"audio\"]", BADGE_PRIVILEGED_GROUP, 0 },
		{ "[\"adduser\",\"--ingroup\",\"docker\",\"bob\"]", BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"adduser\",\"--home\",\"/srv/bob\",\"bob\"]", BADGE_GROUP_CHANGE, 0 },
		{ "[\"adduser\",\"--system\",\"--group\",\"svc\"]", BADGE_GROUP_CHANGE, 0 },
		{ "[\"addgroup\",\"alice\",\"kvm\"]", BADGE_PRIVILEGED_GROUP, 1 },
		{ "[\"addgroup\",\"--gid\",\"0\",\"wt-x\"]", BADGE_GROUP_CHANGE, 0 },
		/* services started, now or at boot */
		{ "[\"systemctl\",\"enable\",\"--now\",\"nginx\"]", BADGE_STARTS_SERVICE, 1 },
		{ "[\"systemctl\",\"enable\",\"--now\",\"nginx\"]", BADGE_SERVICE_RESTART, 0 },
		{ "[\"systemctl\",\"start\",\"nginx\"]", BADGE_STARTS_SERVICE, 1 },
		{ "[\"systemctl\",\"restart\",\"nginx\"]", BADGE_STARTS_SERVICE, 1 },
		{ "[\"systemctl\",\"stop\",\"nginx\"]", BADGE_STARTS_SERVICE, 0 },
		{ "[\"systemctl\",\"reload\",\"nginx\"]", BADGE_STARTS_SERVICE, 0 },
		{ "[\"service\",\"nginx\",\"start\"]", BADGE_STARTS_SERVICE, 1 },
		{ "[\"service\",\"nginx\",\"status\"]", BADGE_STARTS_SERVICE, 0 },
		{ "[\"invoke-rc.d\",\"ssh\",\"restart\"]", BADGE_STARTS_SERVICE, 1 },
		{ "[\"/etc/init.d/procps\",\"start\"]", BADGE_STARTS_SERVICE, 1 },
		{ "[\"start-stop-daemon\",\"--start\",\"--background\",\"--exec\","
		  "\"/usr/bin/sleep\",\"--\",\"60\"]", BADGE_STARTS_SERVICE, 1 },
		{ "[\"start-stop-daemon\",\"-Sbx\",\"/usr/bin/sleep\",\"--\",\"60\"]",
		  BADGE_STARTS_SERVICE, 1 },
		{ "[\"start-stop-daemon\",\"--stop\",\"--exec\",\"/usr/bin/sleep\"]",
		  BADGE_STARTS_SERVICE, 0 },
		{ "[\"setsid\",\"-f\",\"/usr/bin/sleep\",\"60\"]", BADGE_STARTS_SERVICE, 1 },
		{ "[\"setsid\",\"/usr/bin/sleep\",\"-f\"]", BADGE_STARTS_SERVICE, 0 },
		/* look-alikes and right-to-left text, anywhere in a word */
		{ "[\"true\",\"a\\u2010b\"]", BADGE_LOOKALIKE, 1 },
		{ "[\"true\",\"/etc\\u2215x\"]", BADGE_LOOKALIKE, 1 },
		{ "[\"true\",\"a-b/c.d~e=f\"]", BADGE_LOOKALIKE, 0 },
		{ "[\"true\",\"\\u043f\\u0440\\u0438\"]", BADGE_LOOKALIKE, 0 },
		{ "[\"true\",\"x\\u05d0\"]", BADGE_RTL_TEXT, 1 },
		{ "[\"true\",\"\\u0627\"]", BADGE_RTL_TEXT, 1 },
		{ "[\"true\",\"\\u043f\\u0440\\u0438\"]", BADGE_RTL_TEXT, 0 },
	};
	char json[512];
	struct requester me;
	struct refusal r;
	struct wrequest q;
	size_t i;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		snprintf(json, sizeof json, CMD("{\"id\":\"a\",\"argv\":%s,\"why\":\"w\"}"),
		    c[i].argv);
		assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
		if (validate_request(&q, &me, &r) != 0)
			fail_msg("%s: refused: %s %s %s", c[i].argv, r.code, r.path, r.message);
		if (!(q.cmds[0].badges & c[i].badge) != !c[i].want)
			fail_msg("%s: badge 0x%x %s", c[i].argv, c[i].badge,
			    c[i].want ? "missing" : "given");
		request_free(&q);
	}
	/* an env value reads as a path as much as an argv word does */
	snprintf(json, sizeof json, "{\"reason\":\"r\",\"env\":{\"CONF\":\"/etc\\u2215x\","
	    "\"RTL\":\"x\\u05d0\"},\"commands\":[" TRUE_CMD "]}");
	assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
	assert_int_equal(validate_request(&q, &me, &r), 0);
	assert_true(q.cmds[0].badges & BADGE_LOOKALIKE);
	assert_true(q.cmds[0].badges & BADGE_RTL_TEXT);
	request_free(&q);
	requester_free(&me);
}

/* A ustar header: name, type ('0' file, '3' character device, '2'
 * symbolic link to link), mode; no content. */
static void
ustar(unsigned char *h, const char *name, char type, unsigned mode, const char *link)
{
	unsigned sum = 0;
	size_t i;

	memset(h, 0, 512);
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", mode);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011o", 0);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = (unsigned char)type;
	snprintf((char *)h + 157, 100, "%s", link);
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

/* The archive badges: a reviewed tar with a set-id member, a device node,
 * a member that escapes the directory it is extracted in; and an
 * ordinary one with none. */
static void
test_archive_badges(void **state)
{
	static const struct {
		const char	*name;
		char		 type;
		unsigned	 mode;
		const char	*link;
		unsigned	 want;
	} c[] = {
		{ "usr/bin/tool", '0', 04755, "", BADGE_ARCHIVE_SETID },
		{ "usr/bin/tool", '0', 02755, "", BADGE_ARCHIVE_SETID },
		{ "dev/mem", '3', 0666, "", BADGE_ARCHIVE_DEVICE },
		{ "../etc/cron.d/x", '0', 0644, "", BADGE_ARCHIVE_ESCAPE },
		{ "/etc/cron.d/x", '0', 0644, "", BADGE_ARCHIVE_ESCAPE },
		{ "site/etc", '2', 0777, "../../etc", BADGE_ARCHIVE_ESCAPE },
		{ "site/index.html", '0', 0644, "", 0 },
	};
	const unsigned all = BADGE_ARCHIVE_SETID | BADGE_ARCHIVE_DEVICE | BADGE_ARCHIVE_ESCAPE;
	unsigned char tar[512 * 3];
	char b64[4 * sizeof tar / 3 + 4], json[4096];
	struct requester me;
	struct refusal r;
	struct wrequest q;
	size_t i;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		memset(tar, 0, sizeof tar);
		ustar(tar, c[i].name, c[i].type, c[i].mode, c[i].link);
		EVP_EncodeBlock((unsigned char *)b64, tar, (int)sizeof tar);
		snprintf(json, sizeof json, "{\"reason\":\"r\",\"files\":{\"t\":{\"content\":"
		    "\"%s\",\"encoding\":\"base64\"}},\"commands\":[{\"id\":\"a\",\"why\":"
		    "\"w\",\"argv\":[\"tar\",\"-xf\",{\"file\":\"t\"},\"-C\",\"/srv\"]}]}", b64);
		assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
		if (validate_request(&q, &me, &r) != 0)
			fail_msg("%s: refused: %s %s %s", c[i].name, r.code, r.path, r.message);
		if ((q.cmds[0].badges & all) != c[i].want)
			fail_msg("%s (%c, %04o): archive badges 0x%x, want 0x%x", c[i].name,
			    c[i].type, c[i].mode, q.cmds[0].badges & all, c[i].want);
		request_free(&q);
	}
	requester_free(&me);
}

/* This process as the requester: its ids, its groups, its passwd entry. */
static void
test_requester_self(void **state)
{
	struct requester me;
	struct refusal r;
	int i, found = 0;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	assert_int_equal(me.uid, getuid());
	assert_int_equal(me.gid, getgid());
	assert_true(me.self);
	assert_non_null(me.name);
	assert_true(me.ngroups >= 1);
	for (i = 0; i < me.ngroups; i++)
		found |= me.groups[i] == getgid();
	assert_true(found);
	requester_free(&me);
	assert_null(me.groups);
}

/* A requester for a uid the kernel vouched for (a socket peer's): its
 * passwd entry when there is one, its given groups and its database's. */
static void
test_requester_lookup(void **state)
{
	struct requester rq;
	gid_t extra[2] = { 4242, 0 };
	int i, has4242 = 0, has0 = 0;

	(void)state;
	assert_int_equal(requester_lookup(&rq, 0, 0, NULL, 0), 0);
	assert_string_equal(rq.name, "root");
	assert_non_null(rq.home);
	assert_false(rq.self);
	assert_true(rq.ngroups >= 1);
	assert_int_equal(rq.groups[0], 0);
	requester_free(&rq);
	/* no passwd entry: "unknown", no home, the groups given, once each */
	assert_int_equal(requester_lookup(&rq, 3999999999u, 4242, extra, 2), 0);
	assert_string_equal(rq.name, "unknown");
	assert_null(rq.home);
	assert_int_equal(rq.ngroups, 2);
	for (i = 0; i < rq.ngroups; i++) {
		has4242 |= rq.groups[i] == 4242;
		has0 |= rq.groups[i] == 0;
	}
	assert_true(has4242 && has0);
	requester_free(&rq);
}

/* requester_self in a child moved into a new user namespace, with map
 * (or none) as its uid_map: 0 when refused as user_namespace, 77 when
 * this machine cannot make one. */
static int
in_new_userns(const char *map)
{
	struct requester rq;
	struct refusal r;
	pid_t pid;
	int fd, status;

	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER) != 0)
			_exit(77);
		if (map != NULL) {
			if ((fd = open("/proc/self/uid_map", O_WRONLY | O_CLOEXEC)) < 0 ||
			    write(fd, map, strlen(map)) != (ssize_t)strlen(map))
				_exit(78);
			close(fd);
		}
		if (requester_self(&rq, &r) != EXIT_REFUSED)
			_exit(1);
		_exit(strcmp(r.code, "user_namespace") == 0 && strcmp(r.path, "$") == 0 &&
		    r.message[0] != '\0' ? 0 : 2);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void
test_requester_user_namespace(void **state)
{
	char map[64];
	int rc;

	(void)state;
	rc = in_new_userns(NULL);
	if (rc == 77)
		skip();		/* unprivileged user namespaces are disabled */
	assert_int_equal(rc, 0);
	/* the caller's own uid mapped, as unshare -U --map-current-user does */
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
	assert_int_equal(in_new_userns(map), 0);
	/* and onto 0, as unshare -Ur does */
	snprintf(map, sizeof map, "0 %u 1\n", (unsigned)getuid());
	assert_int_equal(in_new_userns(map), 0);
}

/* A requester for uid, gid and groups that are not this process's. */
static void
other(struct requester *rq, gid_t group)
{
	static gid_t groups[1];

	memset(rq, 0, sizeof *rq);
	rq->uid = getuid() + 1000;
	rq->gid = getgid() + 1000;
	groups[0] = group;
	rq->groups = groups;
	rq->ngroups = 1;
	rq->name = "someone-else";
}

static char tmpdir[] = "/tmp/wt-validate.XXXXXX";

static void
write_exe(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/true\n", 12), 12);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

/* Writability is judged for the requester given, whoever runs this. */
static void
test_path_replaceable_for(void **state)
{
	struct requester rq;
	char path[PATH_MAX], why[PATH_MAX + 128];

	(void)state;
	assert_non_null(mkdtemp(tmpdir));
	snprintf(path, sizeof path, "%s/tool", tmpdir);
	write_exe(path, 0755);
	other(&rq, getgid() + 1007);
	assert_int_equal(path_replaceable(&rq, path, why, sizeof why), 0);
	assert_int_equal(chmod(path, 0757), 0);
	assert_int_equal(path_replaceable(&rq, path, why, sizeof why), 1);
	assert_non_null(strstr(why, "the requester"));
	assert_int_equal(chmod(path, 0775), 0);
	assert_int_equal(path_replaceable(&rq, path, why, sizeof why), 0);
	other(&rq, getegid());		/* in the file's group */
	assert_int_equal(path_replaceable(&rq, path, why, sizeof why), 1);
	/* anyone but root: a file owned by this process's user when that
	 * is not root, or writable by its group when that is not root's */
	if (getuid() != 0 || getegid() != 0)
		assert_int_equal(path_replaceable(&requester_anyone, path, why, sizeof why), 1);
	assert_int_equal(path_replaceable(&requester_anyone, "/usr/bin/true", why, sizeof why), 0);
	assert_int_equal(path_replaceable(&rq, "/nonexistent/wt-x", why, sizeof why), -1);
	unlink(path);
	rmdir(tmpdir);
}

/* An access ACL as the kernel stores it: a header, then {tag, perm, id}
 * entries, little-endian. */
static int
set_acl(const char *path, const unsigned (*e)[3], size_t n)
{
	unsigned char buf[4 + 8 * 16];
	size_t i, k;

	memset(buf, 0, sizeof buf);
	buf[0] = 2;		/* version */
	for (i = 0; i < n; i++) {
		k = 4 + 8 * i;
		buf[k] = (unsigned char)e[i][0];
		buf[k + 2] = (unsigned char)e[i][1];
		buf[k + 4] = (unsigned char)e[i][2];
		buf[k + 5] = (unsigned char)(e[i][2] >> 8);
		buf[k + 6] = (unsigned char)(e[i][2] >> 16);
		buf[k + 7] = (unsigned char)(e[i][2] >> 24);
	}
	return setxattr(path, "system.posix_acl_access", buf, 4 + 8 * n, 0);
}

/*
 * ACLs are read from the file for a requester of another uid (as the
 * reviewer's daemon judges), not only through access(2) for this
 * process: a named user's entry decides alone, a group's counts for
 * members, the mask limits both.
 */
static void
test_acl_for_another_uid(void **state)
{
	char dir[] = "/tmp/wt-acl.XXXXXX", f[PATH_MAX], why[PATH_MAX + 128];
	struct requester rq;
	struct writer w;
	struct stat st;
	unsigned u, g;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(f, sizeof f, "%s/conf", dir);
	write_exe(f, 0644);
	other(&rq, getgid() + 1007);
	u = (unsigned)rq.uid;
	g = (unsigned)rq.groups[0];
	w = (struct writer){ rq.uid, rq.groups, rq.ngroups, 0 };
	assert_int_equal(lstat(f, &st), 0);
	assert_int_equal(acl_may_write(&w, f, &st), 0);	/* no ACL */
	{
		const unsigned user_rw[][3] = {
			{ 0x01, 6, 0 }, { 0x02, 6, u }, { 0x04, 4, 0 }, { 0x10, 6, 0 },
			{ 0x20, 4, 0 },
		};
		if (set_acl(f, user_rw, 5) != 0) {
			unlink(f);
			rmdir(dir);
			skip();
		}
	}
	assert_int_equal(acl_may_write(&w, f, &st), 1);
	assert_int_equal(path_changeable_by(&rq, f, why, sizeof why), 1);
	assert_int_equal(path_replaceable(&rq, f, why, sizeof why), 1);
	/* through /proc/self/fd/N, as the run-time supervisor asks */
	{
		char proc[64];
		int fd = open(f, O_RDONLY | O_CLOEXEC);

		assert_true(fd >= 0);
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		assert_int_equal(acl_may_write(&w, proc, &st), 1);
		close(fd);
	}
	/* anyone but root: a named non-root user may write */
	w.uid = 0;
	assert_int_equal(acl_may_write(&w, f, &st), 1);
	w.uid = rq.uid;
	{
		const unsigned masked[][3] = {
			{ 0x01, 6, 0 }, { 0x02, 6, u }, { 0x04, 4, 0 }, { 0x10, 4, 0 },
			{ 0x20, 4, 0 },
		};
		assert_int_equal(set_acl(f, masked, 5), 0);
	}
	assert_int_equal(acl_may_write(&w, f, &st), 0);
	assert_int_equal(path_changeable_by(&rq, f, why, sizeof why), 0);
	{
		const unsigned group_rw[][3] = {
			{ 0x01, 6, 0 }, { 0x04, 4, 0 }, { 0x08, 6, g }, { 0x10, 6, 0 },
			{ 0x20, 4, 0 },
		};
		assert_int_equal(set_acl(f, group_rw, 5), 0);
	}
	assert_int_equal(acl_may_write(&w, f, &st), 1);
	assert_int_equal(path_changeable_by(&rq, f, why, sizeof why), 1);
	w.ngroups = 0;			/* not a member */
	assert_int_equal(acl_may_write(&w, f, &st), 0);
	w.ngroups = rq.ngroups;
	{
		/* the named user's entry decides before any group's */
		const unsigned user_ro[][3] = {
			{ 0x01, 6, 0 }, { 0x02, 4, u }, { 0x04, 4, 0 }, { 0x08, 6, g },
			{ 0x10, 6, 0 }, { 0x20, 4, 0 },
		};
		assert_int_equal(set_acl(f, user_ro, 6), 0);
	}
	assert_int_equal(acl_may_write(&w, f, &st), 0);
	/* a directory whose ACL lets the requester replace the entry */
	assert_int_equal(removexattr(f, "system.posix_acl_access"), 0);
	assert_int_equal(path_changeable_by(&rq, f, why, sizeof why), 0);
	{
		const unsigned dir_rwx[][3] = {
			{ 0x01, 7, 0 }, { 0x02, 7, u }, { 0x04, 5, 0 }, { 0x10, 7, 0 },
			{ 0x20, 5, 0 },
		};
		assert_int_equal(set_acl(dir, dir_rwx, 5), 0);
	}
	assert_int_equal(path_changeable_by(&rq, f, why, sizeof why), 1);
	assert_non_null(strstr(why, "may replace entries of"));
	assert_int_equal(unlink(f), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* process_touchable: a process of the writer's uid, or in a user
 * namespace the writer owns, is; a process that is not there cannot be
 * judged. */
static void
test_process_touchable(void **state)
{
	struct writer w = { getuid(), NULL, 0, 1 };
	char why[256], c;
	int ready[2], go[2], status;
	pid_t a, b;
	FILE *f;
	long max = 0;

	(void)state;
	/* this process: the writer's when the writer is its uid (or, for
	 * uid 0, when it is not root), not another uid's */
	assert_int_equal(process_touchable(&w, getpid(), why, sizeof why), getuid() != 0);
	if (getuid() != 0)
		assert_non_null(strstr(why, "belongs to"));
	w.uid = getuid() + 1000;
	assert_int_equal(process_touchable(&w, getpid(), why, sizeof why), 0);
	w.uid = 0;		/* anyone but root */
	assert_int_equal(process_touchable(&w, getpid(), why, sizeof why), getuid() != 0);
	assert_non_null(f = fopen("/proc/sys/kernel/pid_max", "r"));
	assert_int_equal(fscanf(f, "%ld", &max), 1);
	fclose(f);
	assert_int_equal(process_touchable(&w, (pid_t)max, why, sizeof why), -1);
	assert_int_equal(process_touchable(&w, 0, why, sizeof why), -1);
	if (getuid() != 0)
		return;
	/* root: a child of uid 4242 makes a user namespace; a root child
	 * joins it (setns), keeping uid 0 */
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	if ((a = fork()) == 0) {
		if (setresgid(4242, 4242, 4242) != 0 || setresuid(4242, 4242, 4242) != 0 ||
		    unshare(CLONE_NEWUSER) != 0)
			_exit(1);
		(void)!write(ready[1], "a", 1);
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	assert_true(a > 0);
	if (read(ready[0], &c, 1) != 1) {
		waitpid(a, &status, 0);
		skip();		/* no user namespaces here */
	}
	if ((b = fork()) == 0) {
		char path[64];
		int fd;

		snprintf(path, sizeof path, "/proc/%ld/ns/user", (long)a);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || setns(fd, CLONE_NEWUSER) != 0)
			_exit(1);
		(void)!write(ready[1], "b", 1);
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	assert_true(b > 0);
	if (read(ready[0], &c, 1) != 1)
		fail_msg("setns into the child's user namespace failed");
	w.uid = 4242;
	assert_int_equal(process_touchable(&w, a, why, sizeof why), 1);
	assert_non_null(strstr(why, "belongs to"));
	assert_int_equal(process_touchable(&w, b, why, sizeof why), 1);
	assert_non_null(strstr(why, "user namespace owned by"));
	w.uid = 4243;
	assert_int_equal(process_touchable(&w, b, why, sizeof why), 0);
	assert_int_equal(write(go[1], "xx", 2), 2);
	waitpid(a, &status, 0);
	waitpid(b, &status, 0);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

/* path_changeable_by walks the path as given, for the requester given. */
static void
test_path_changeable_for(void **state)
{
	struct requester rq;
	char dir[] = "/tmp/wt-changeable.XXXXXX", f[PATH_MAX], g[PATH_MAX],
	    why[PATH_MAX + 128];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	other(&rq, getgid() + 1007);
	snprintf(f, sizeof f, "%s/conf", dir);
	write_exe(f, 0644);
	assert_int_equal(path_changeable_by(&rq, f, why, sizeof why), 0);
	assert_int_equal(chown(f, rq.uid, (gid_t)-1), 0);	/* the requester's */
	assert_int_equal(path_changeable_by(&rq, f, why, sizeof why), 1);
	assert_non_null(strstr(why, f));
	assert_int_equal(chown(f, 0, (gid_t)-1), 0);
	/* by another spelling: "..", ".", "//" */
	snprintf(g, sizeof g, "%s/./../%s//conf", dir, strrchr(dir, '/') + 1);
	assert_int_equal(path_changeable_by(&rq, g, why, sizeof why), 0);
	/* a missing entry: creatable only where the requester may write */
	snprintf(g, sizeof g, "%s/missing/deeper", dir);
	assert_int_equal(path_changeable_by(&rq, g, why, sizeof why), 0);
	assert_int_equal(chmod(dir, 01777), 0);	/* sticky, like /tmp */
	assert_int_equal(path_changeable_by(&rq, g, why, sizeof why), 1);
	assert_non_null(strstr(why, "may create it in"));
	assert_int_equal(path_changeable_by(&rq, f, why, sizeof why), 0);	/* root's, sticky */
	assert_int_equal(path_changeable_by(&rq, dir, why, sizeof why), 1);	/* the dir itself */
	assert_int_equal(chmod(dir, 0777), 0);	/* not sticky: replaceable */
	assert_int_equal(path_changeable_by(&rq, f, why, sizeof why), 1);
	assert_non_null(strstr(why, "replace"));
	assert_int_equal(chmod(dir, 0755), 0);
	/* a root-owned symlink is followed: to the requester's file, or not */
	snprintf(g, sizeof g, "%s/link", dir);
	assert_int_equal(symlink("conf", g), 0);
	assert_int_equal(path_changeable_by(&rq, g, why, sizeof why), 0);
	assert_int_equal(chown(f, rq.uid, (gid_t)-1), 0);
	assert_int_equal(path_changeable_by(&rq, g, why, sizeof why), 1);
	/* a symlink the requester owns in a sticky dir: it may swap it */
	assert_int_equal(chown(f, 0, (gid_t)-1), 0);
	assert_int_equal(lchown(g, rq.uid, (gid_t)-1), 0);
	assert_int_equal(path_changeable_by(&rq, g, why, sizeof why), 0);
	assert_int_equal(chmod(dir, 01777), 0);
	assert_int_equal(path_changeable_by(&rq, g, why, sizeof why), 1);
	assert_int_equal(chmod(dir, 0755), 0);
	/* group write counts for the requester's groups only */
	assert_int_equal(chmod(f, 0664), 0);
	assert_int_equal(path_changeable_by(&rq, f, why, sizeof why), 0);
	other(&rq, getegid());
	assert_int_equal(path_changeable_by(&rq, f, why, sizeof why), 1);
	/* devices and root's own process */
	assert_int_equal(path_changeable_by(&rq, "/dev/null", why, sizeof why), 0);
	assert_int_equal(path_changeable_by(&rq, "/proc/self/status", why, sizeof why), 0);
	assert_int_equal(path_changeable_by(&rq, "/dev/stdin", why, sizeof why), 0);
	assert_int_equal(path_changeable_by(&rq, "/etc/hosts", why, sizeof why), 0);
	assert_int_equal(path_changeable_by(&rq, "/", why, sizeof why), 0);
	assert_int_equal(path_changeable_by(&rq, "relative", why, sizeof why), -1);
	unlink(g);
	unlink(f);
	rmdir(dir);
}

/* validate_request for rq; NULL code: accepted; NULL path: anywhere. */
static void
verdict(const char *json, const struct requester *rq, const char *code, const char *path)
{
	struct refusal r;
	struct wrequest q;
	int rc;

	memset(&r, 0, sizeof r);
	if ((rc = request_parse(json, strlen(json), &q, &r)) == 0) {
		rc = validate_request(&q, rq, &r);
		request_free(&q);
	}
	if (code == NULL && rc != 0)
		fail_msg("%s: refused %s at %s (%s)", json, r.code, r.path, r.message);
	if (code != NULL && (rc == 0 || strcmp(r.code, code) != 0 ||
	    (path != NULL && strcmp(r.path, path) != 0)))
		fail_msg("%s: got %s at %s (%s), want %s at %s", json,
		    rc == 0 ? "accepted" : r.code, r.path, r.message, code, path);
}

/*
 * A request for an enrolled machine: every command is remote, and
 * restarting ssh there may lock the reviewer out (its executables are
 * resolved on the target, here set by hand as the target's answer would).
 */
static void
test_remote_badges(void **state)
{
	static const char json[] = "{\"reason\":\"r\",\"machine\":\"web1\",\"commands\":["
	    "{\"id\":\"a\",\"argv\":[\"systemctl\",\"restart\",\"ssh\"],\"why\":\"w\"},"
	    "{\"id\":\"b\",\"argv\":[\"systemctl\",\"restart\",\"nginx\"],\"why\":\"w\"}]}";
	struct refusal r;
	struct wrequest q;
	size_t i;

	(void)state;
	assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
	assert_int_equal(validate_remote_text(&q, &r), 0);
	for (i = 0; i < q.ncmds; i++)
		strcpy(q.cmds[i].exe.path, "/usr/bin/systemctl");
	risk_all(&q);
	assert_true(q.cmds[0].badges & BADGE_REMOTE);
	assert_true(q.cmds[0].badges & BADGE_LOCKOUT_PRONE);
	assert_true(q.cmds[0].badges & BADGE_SERVICE_RESTART);
	assert_true(q.cmds[1].badges & BADGE_REMOTE);
	assert_false(q.cmds[1].badges & BADGE_LOCKOUT_PRONE);
	request_free(&q);
}

/*
 * relative_path holds only where the request names no cwd: with one, a
 * relative path is found from there (and judged there as every path
 * is); YOU commands run in their own cwd and may name relative paths.
 */
static void
test_relative_paths_and_cwd(void **state)
{
	struct requester me;
	struct refusal r;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	verdict("{\"reason\":\"r\",\"commands\":[{\"id\":\"a\",\"argv\":[\"cat\",\"hostname\"],"
	    "\"why\":\"w\"}]}", &me, "relative_path", "$.commands[0].argv[1]");
	verdict("{\"reason\":\"r\",\"cwd\":\"/etc\",\"commands\":[{\"id\":\"a\",\"argv\":[\"cat\","
	    "\"hostname\"],\"why\":\"w\"}]}", &me, NULL, NULL);
	verdict("{\"reason\":\"r\",\"cwd\":\"/\",\"commands\":[{\"id\":\"a\",\"argv\":[\"cp\","
	    "\"etc/os-release\",\"/etc/hosts.wt\"],\"why\":\"w\"}]}", &me, NULL, NULL);
	verdict("{\"reason\":\"r\",\"commands\":[{\"id\":\"a\",\"as\":\"user\",\"argv\":[\"cp\","
	    "\"x\",\"y\"],\"why\":\"w\"}]}", &me, NULL, NULL);
	/* a look-alike word is refused whatever the cwd; a YOU one is not */
	verdict("{\"reason\":\"r\",\"cwd\":\"/etc\",\"commands\":[{\"id\":\"a\",\"argv\":[\"cat\","
	    "\"\\u2010n\"],\"why\":\"w\"}]}", &me, "lookalike_word", "$.commands[0].argv[1]");
	verdict("{\"reason\":\"r\",\"commands\":[{\"id\":\"a\",\"as\":\"user\",\"argv\":[\"cat\","
	    "\"\\u2010n\"],\"why\":\"w\"}]}", &me, NULL, NULL);
	requester_free(&me);
}

/*
 * ROOT argv words and env values that name a path the requester can
 * change, env words inside argv (env at any depth), and the controls
 * that stay accepted.
 */
static void
test_argument_scanning(void **state)
{
	struct requester rq;
	char dir[] = "/tmp/wt-args.XXXXXX", mine[PATH_MAX], own[PATH_MAX],
	    buf[4 * PATH_MAX];
	static const struct {
		const char	*argv;		/* @: the requester's file */
		const char	*code;
		const char	*path;
	} c[] = {
		{ "[\"true\",\"@\"]", "writable_argument", "$.commands[0].argv[1]" },
		{ "[\"true\",\"-v\",\"--config=@\"]", "writable_argument", "$.commands[0].argv[2]" },
		{ "[\"true\",\"-f@\"]", "writable_argument", "$.commands[0].argv[1]" },
		{ "[\"true\",\"-o\",\"lowerdir=/usr:@,upperdir=/x\"]", "writable_argument",
		  "$.commands[0].argv[2]" },
		{ "[\"true\",\"@/../mine\"]", "writable_argument", "$.commands[0].argv[1]" },
		{ "[\"env\",\"LD_PRELOAD=/usr/lib/x.so\",\"id\"]", "forbidden_env",
		  "$.commands[0].argv[1]" },
		{ "[\"/usr/bin/env\",\"-i\",\"HOME=/root\",\"id\"]", "forbidden_env",
		  "$.commands[0].argv[2]" },
		{ "[\"timeout\",\"5\",\"env\",\"GIT_EXTERNAL_DIFF=x\",\"git\",\"diff\"]",
		  "forbidden_env", "$.commands[0].argv[3]" },
		{ "[\"nice\",\"timeout\",\"5\",\"env\",\"-u\",\"X\",\"MAKEFLAGS=x\",\"make\"]",
		  "forbidden_env", "$.commands[0].argv[6]" },
		{ "[\"env\",\"MY_SECRET=1\",\"id\"]", "credential_field_rejected",
		  "$.commands[0].argv[1]" },
		{ "[\"true\",\"/etc/hosts\",\"--config=/etc/hosts\",\"/dev/null\",\"-f/etc/hosts\","
		  "\"/proc/self/status\",\"/usr/bin/x\",\"install\",\"a=b\"]", NULL, NULL },
		{ "[\"env\",\"FOO=bar\",\"A=/etc/hosts\",\"true\"]", NULL, NULL },
		{ "[\"make\",\"LD_PRELOAD=x\"]", NULL, NULL },	/* no env: make's own */
	};
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(mine, sizeof mine, "%s/mine", dir);
	write_exe(mine, 0644);
	other(&rq, getgid() + 1007);
	assert_int_equal(chown(mine, rq.uid, (gid_t)-1), 0);
	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		char argv[PATH_MAX * 2];
		const char *at = strchr(c[i].argv, '@');

		if (at != NULL)
			snprintf(argv, sizeof argv, "%.*s%s%s", (int)(at - c[i].argv),
			    c[i].argv, mine, at + 1);
		else
			snprintf(argv, sizeof argv, "%s", c[i].argv);
		snprintf(buf, sizeof buf, CMD("{\"id\":\"a\",\"argv\":%s,\"why\":\"w\"}"), argv);
		verdict(buf, &rq, c[i].code, c[i].path);
	}
	/* a missing path where the requester may create it (as a symlink) */
	snprintf(own, sizeof own, "%s/own", dir);
	assert_int_equal(mkdir(own, 0755), 0);
	assert_int_equal(chown(own, rq.uid, (gid_t)-1), 0);
	snprintf(buf, sizeof buf, CMD("{\"id\":\"a\",\"argv\":[\"true\",\"x\","
	    "\"--out=%s/new.conf\"],\"why\":\"w\"}"), own);
	verdict(buf, &rq, "writable_argument", "$.commands[0].argv[2]");
	rmdir(own);
	/* a relative word is a path under the cwd */
	snprintf(buf, sizeof buf, CMD("{\"id\":\"a\",\"argv\":[\"true\",\"%s\"],\"why\":\"w\"}"),
	    mine + 1);
	verdict(buf, &rq, "writable_argument", "$.commands[0].argv[1]");
	/* the same as a YOU command: it runs as the requester anyway */
	snprintf(buf, sizeof buf, CMD("{\"id\":\"a\",\"as\":\"user\",\"argv\":[\"env\","
	    "\"-S\",\"cat %s\"],\"why\":\"w\"}"), mine);
	verdict(buf, &rq, NULL, NULL);
	/* env values and the cwd of ROOT commands */
	snprintf(buf, sizeof buf, "{\"reason\":\"r\",\"env\":{\"CONF\":\"%s\"},\"commands\":["
	    TRUE_CMD "]}", mine);
	verdict(buf, &rq, "writable_argument", "$.env.CONF");
	snprintf(buf, sizeof buf, "{\"reason\":\"r\",\"env\":{\"L\":\"/usr/share:%s\"},"
	    "\"commands\":[" TRUE_CMD "]}", mine);
	verdict(buf, &rq, "writable_argument", "$.env.L");
	verdict("{\"reason\":\"r\",\"env\":{\"HOME\":\"/root\"},\"commands\":[" TRUE_CMD "]}",
	    &rq, "forbidden_env", "$.env.HOME");
	snprintf(buf, sizeof buf, "{\"reason\":\"r\",\"cwd\":\"%s\",\"commands\":[" TRUE_CMD "]}",
	    dir);
	verdict(buf, &rq, NULL, NULL);
	assert_int_equal(chown(dir, rq.uid, (gid_t)-1), 0);
	verdict(buf, &rq, "writable_argument", "$.cwd");
	/* only YOU commands: the cwd and env are not root's */
	snprintf(buf, sizeof buf, "{\"reason\":\"r\",\"cwd\":\"%s\",\"env\":{\"C\":\"%s\"},"
	    "\"commands\":[{\"id\":\"a\",\"as\":\"user\",\"argv\":[\"true\"],\"why\":\"w\"}]}",
	    dir, mine);
	verdict(buf, &rq, NULL, NULL);
	unlink(mine);
	rmdir(dir);
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/*
 * gate_submit for a requester that is not this process: refusals store
 * nothing (not even the state directory); an accepted request becomes a
 * gate recorded with that requester's uid and name.
 */
/*
 * A relative symbolic link's target is judged from the link's directory
 * (where the kernel resolves it), in every spelling of ln -s and cp -s;
 * a process the requester owns, or one that is not there, may not be
 * entered or attached to.
 */
static void
test_link_and_process_targets(void **state)
{
	struct requester rq;
	char dir[] = "/tmp/wt-links.XXXXXX", path[PATH_MAX], buf[4 * PATH_MAX];
	static const struct {
		const char	*argv;		/* @: the root-owned directory */
		const char	*code;
		int		 at;
	} c[] = {
		{ "[\"ln\",\"-s\",\"../own/x\",\"@/etc/l\"]", "writable_argument", 2 },
		{ "[\"ln\",\"-sf\",\"../own/x\",\"@/etc/l\"]", "writable_argument", 2 },
		{ "[\"ln\",\"--sym\",\"../own/x\",\"@/etc/l\"]", "writable_argument", 2 },
		{ "[\"ln\",\"../own/x\",\"@/etc/l\",\"-s\"]", "writable_argument", 1 },
		{ "[\"ln\",\"-s\",\"../own/x\",\"@/etc\"]", "writable_argument", 2 },
		{ "[\"ln\",\"-s\",\"../etc\",\"../own/x\",\"@/etc\"]", "writable_argument", 3 },
		{ "[\"ln\",\"-s\",\"-t\",\"@/etc\",\"../own/x\"]", "writable_argument", 4 },
		{ "[\"ln\",\"-st@/etc\",\"../own/x\"]", "writable_argument", 2 },
		{ "[\"ln\",\"--symbolic\",\"--target-directory=@/etc\",\"../own/x\"]",
		  "writable_argument", 3 },
		{ "[\"ln\",\"-sT\",\"../../own/x\",\"@/etc/sub\"]", "writable_argument", 2 },
		{ "[\"cp\",\"-s\",\"../own/x\",\"@/etc/l\"]", "writable_argument", 2 },
		{ "[\"cp\",\"--symbolic-link\",\"../own/x\",\"@/etc/l\"]", "writable_argument", 2 },
		{ "[\"timeout\",\"5\",\"ln\",\"-s\",\"../own/x\",\"@/etc/l\"]", "writable_argument", 4 },
		{ "[\"ln\",\"-s\",\"@/own/x\",\"@/etc/l\"]", "writable_argument", 2 },
		/* root's: accepted; a hard link's and ln -r's target is found from
		 * the cwd, which no cwd named leaves at / (relative_path) */
		{ "[\"ln\",\"-s\",\"../etc\",\"@/etc/l\"]", NULL, 0 },
		{ "[\"ln\",\"../own/x\",\"@/etc/l\"]", "relative_path", 1 },
		{ "[\"ln\",\"-sr\",\"../own/x\",\"@/etc/l\"]", "relative_path", 2 },
		{ "[\"ln\",\"--rel\",\"-s\",\"../own/x\",\"@/etc/l\"]", "relative_path", 3 },
		{ "[\"ln\",\"-s\",\"-t\",\"@/etc\",\"../etc\"]", NULL, 0 },
	};
	char want[64], at[sizeof dir + 8];
	int go[2], status;
	size_t i, k;
	pid_t child;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	other(&rq, getgid() + 1007);
	snprintf(path, sizeof path, "%s/etc", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/etc/sub", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/own", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chown(path, rq.uid, (gid_t)-1), 0);
	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		char argv[PATH_MAX * 2];
		const char *p;

		for (p = c[i].argv, k = 0; *p != '\0' && k + sizeof dir < sizeof argv; p++)
			if (*p == '@')
				k += (size_t)snprintf(argv + k, sizeof argv - k, "%s", dir);
			else
				argv[k++] = *p;
		argv[k] = '\0';
		snprintf(buf, sizeof buf, CMD("{\"id\":\"a\",\"argv\":%s,\"why\":\"w\"}"), argv);
		snprintf(want, sizeof want, "$.commands[0].argv[%d]", c[i].at);
		verdict(buf, &rq, c[i].code, c[i].code != NULL ? want : NULL);
	}
	/* processes: one that is not there cannot be judged */
	verdict(CMD("{\"id\":\"a\",\"argv\":[\"nsenter\",\"-t\",\"0x1\",\"-m\",\"true\"],"
	    "\"why\":\"w\"}"), &rq, "requester_process", "$.commands[0].argv[2]");
	verdict(CMD("{\"id\":\"a\",\"argv\":[\"nsenter\",\"-a\",\"true\"],\"why\":\"w\"}"),
	    &rq, "requester_process", "$.commands[0].argv[1]");
	snprintf(buf, sizeof buf, CMD("{\"id\":\"a\",\"argv\":[\"nsenter\",\"--target=%ld\","
	    "\"-m\",\"true\"],\"why\":\"w\"}"), (long)getpid());
	verdict(buf, &rq, getuid() == rq.uid ? "requester_process" : NULL,
	    getuid() == rq.uid ? "$.commands[0].argv[1]" : NULL);
	if (getuid() != 0)
		goto out;
	/* root: a process of the requester's uid, in every spelling */
	assert_int_equal(pipe(go), 0);
	if ((child = fork()) == 0) {
		char ch;

		if (setresuid(rq.uid, rq.uid, rq.uid) != 0)
			_exit(1);
		(void)!read(go[0], &ch, 1);
		_exit(0);
	}
	assert_true(child > 0);
	{
		static const char *const forms[] = {
			"\"nsenter\",\"-t\",\"#\",\"-m\",\"true\"",
			"\"nsenter\",\"-t#\",\"-a\",\"true\"",
			"\"nsenter\",\"--target\",\"#\",\"true\"",
			"\"nsenter\",\"--tar=#\",\"true\"",
			"\"nsenter\",\"-mt\",\"#\",\"true\"",
			"\"nsenter\",\"--wd\",\"-t\",\"#\",\"true\"",
			"\"strace\",\"-fp\",\"#\"",
			"\"strace\",\"--attach=#\"",
			"\"strace\",\"-p\",\"1,#\"",
			"\"timeout\",\"5\",\"strace\",\"-p#\"",
			"\"cat\",\"/proc/#/environ\"",
		};
		for (i = 0; i < sizeof forms / sizeof forms[0]; i++) {
			const char *h = strchr(forms[i], '#');

			snprintf(at, sizeof at, "%ld", (long)child);
			snprintf(buf, sizeof buf, CMD("{\"id\":\"a\",\"argv\":[%.*s%s%s],"
			    "\"why\":\"w\"}"), (int)(h - forms[i]), forms[i], at, h + 1);
			verdict(buf, &rq, "requester_process", NULL);
		}
	}
	assert_int_equal(write(go[1], "x", 1), 1);
	waitpid(child, &status, 0);
	close(go[0]);
	close(go[1]);
out:
	snprintf(path, sizeof path, "%s/etc/sub", dir);
	rmdir(path);
	snprintf(path, sizeof path, "%s/etc", dir);
	rmdir(path);
	snprintf(path, sizeof path, "%s/own", dir);
	rmdir(path);
	rmdir(dir);
}

static void
test_gate_submit(void **state)
{
	char dir[] = "/tmp/wt-submit.XXXXXX", home[PATH_MAX], exe[PATH_MAX],
	    buf[PATH_MAX + 256];
	struct requester rq;
	struct refusal r;
	struct store st;
	json_t *desc, *g;
	struct stat sb;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* the other requester looks its executable up: it must reach it */
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(home, sizeof home, "%s/state", dir);
	assert_int_equal(setenv("WARRANT_HOME", home, 1), 0);
	snprintf(exe, sizeof exe, "%s/tool", dir);
	write_exe(exe, 0775);
	snprintf(buf, sizeof buf, CMD("{\"id\":\"a\",\"argv\":[\"%s\"],\"why\":\"w\"}"), exe);

	other(&rq, getegid());
	desc = (json_t *)1;
	assert_int_equal(gate_submit(NULL, buf, strlen(buf), &rq, "agent", NULL, &desc, &r),
	    EXIT_REFUSED);
	assert_null(desc);
	assert_string_equal(r.code, "writable_executable");
	assert_string_equal(r.path, "$.commands[0].argv[0]");
	assert_int_equal(gate_submit(NULL, "{", 1, &rq, NULL, NULL, &desc, &r), EXIT_REFUSED);
	assert_string_equal(r.code, "invalid_json");
	assert_int_equal(gate_submit(NULL, buf, REQUEST_MAX + 1, &rq, NULL, NULL, &desc, &r),
	    EXIT_REFUSED);
	assert_string_equal(r.code, "invalid_field");
	assert_int_equal(stat(home, &sb), -1);
	assert_int_equal(errno, ENOENT);

	other(&rq, getegid() + 1007);		/* not in the file's group */
	if (gate_submit(NULL, buf, strlen(buf), &rq, "agent", "proj", &desc, &r) != EXIT_OK)
		fail_msg("refused: %s %s %s", r.code, r.path, r.message);
	assert_non_null(desc);
	assert_int_equal(json_integer_value(json_object_get(desc, "gate_timeout_seconds")), 300);
	assert_int_equal(store_open(&st), 0);
	g = store_gate(&st, json_str(desc, "request_id"), 0);
	assert_non_null(g);
	assert_string_equal(json_str(g, "requester"), "someone-else");
	assert_int_equal(json_integer_value(json_object_get(g, "requester_uid")), rq.uid);
	assert_string_equal(json_str(g, "agent"), "agent");
	assert_string_equal(json_str(g, "manifest_sha256"), json_str(desc, "manifest_sha256"));
	json_decref(g);
	store_close(&st);
	json_decref(desc);
	unsetenv("WARRANT_HOME");
	assert_int_equal(nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_refusal_cut_character),
		cmocka_unit_test(test_accepts_and_normalises),
		cmocka_unit_test(test_credential_shapes),
		cmocka_unit_test(test_argv_scan),
		cmocka_unit_test(test_alternatives_menu_hint),
		cmocka_unit_test(test_opt_abbrev_and_sed),
		cmocka_unit_test(test_mixed_script_badge),
		cmocka_unit_test(test_notice_badges),
		cmocka_unit_test(test_archive_badges),
		cmocka_unit_test(test_relative_paths_and_cwd),
		cmocka_unit_test(test_remote_badges),
		cmocka_unit_test(test_requester_self),
		cmocka_unit_test(test_requester_lookup),
		cmocka_unit_test(test_requester_user_namespace),
		cmocka_unit_test(test_path_replaceable_for),
		cmocka_unit_test(test_path_changeable_for),
		cmocka_unit_test(test_acl_for_another_uid),
		cmocka_unit_test(test_process_touchable),
		cmocka_unit_test(test_argument_scanning),
		cmocka_unit_test(test_link_and_process_targets),
		cmocka_unit_test(test_gate_submit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
