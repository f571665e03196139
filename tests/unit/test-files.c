/* SPDX-License-Identifier: ISC */
/* Reviewed files (docs/design.md §3 files): the request's "files" and
 * {"file": NAME} argv entries parsed and refused with their codes and
 * paths; snapshots judged for the requester given (unreadable, not a
 * regular file, too big); content scanned for credentials and judged by
 * identity; the manifest's seal of them; the blob store; staging. */
#include <sys/stat.h>
#include <openssl/evp.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "warrant.h"

static char dir[] = "/tmp/wt-files.XXXXXX";

/* A request with one ROOT command `true A B` whose argv[1] names file x
 * (unless argv is given) and files as given. */
static char *
req(const char *files, const char *argv)
{
	char *s;

	if (asprintf(&s, "{\"reason\":\"r\",\"files\":%s,\"commands\":[{\"id\":\"a\",\"why\":\"w\","
	    "\"argv\":%s}]}", files, argv ? argv : "[\"/usr/bin/true\",{\"file\":\"x\"}]") < 0)
		abort();
	return s;
}

struct rcase {
	const char	*files;
	const char	*argv;		/* NULL: true {file:x} */
	const char	*code;
	const char	*path;
};

static const struct rcase parse_cases[] = {
	{ "[]", NULL, "invalid_field", "$.files" },
	{ "{\"x\":\"hello\"}", NULL, "invalid_field", "$.files.x" },
	{ "{\"a/b\":{\"content\":\"x\"}}", "[\"/usr/bin/true\",{\"file\":\"a/b\"}]",
	  "invalid_field", "$.files.a/b" },
	{ "{\"..\":{\"content\":\"x\"}}", "[\"/usr/bin/true\"]", "invalid_field", "$.files..." },
	{ "{\"x\":{\"content\":\"x\",\"snapshot\":\"/etc/hostname\"}}", NULL, "invalid_field", "$.files.x" },
	{ "{\"x\":{\"mode\":\"0644\"}}", NULL, "invalid_field", "$.files.x" },
	{ "{\"x\":{\"content\":\"x\",\"owner\":\"root\"}}", NULL, "invalid_field", "$.files.x.owner" },
	{ "{\"x\":{\"content\":5}}", NULL, "invalid_field", "$.files.x.content" },
	{ "{\"x\":{\"content\":\"x\",\"encoding\":\"hex\"}}", NULL, "invalid_field", "$.files.x.encoding" },
	{ "{\"x\":{\"snapshot\":\"/etc/hostname\",\"encoding\":\"utf-8\"}}", NULL,
	  "invalid_field", "$.files.x.encoding" },
	/* strict base64 */
	{ "{\"x\":{\"content\":\"aGVsbG8\",\"encoding\":\"base64\"}}", NULL, "invalid_field", "$.files.x.content" },
	{ "{\"x\":{\"content\":\"aGVs bG8=\",\"encoding\":\"base64\"}}", NULL, "invalid_field", "$.files.x.content" },
	{ "{\"x\":{\"content\":\"aGVsbG8=\\n\",\"encoding\":\"base64\"}}", NULL, "invalid_field", "$.files.x.content" },
	{ "{\"x\":{\"content\":\"aGVsbG9=\",\"encoding\":\"base64\"}}", NULL, "invalid_field", "$.files.x.content" },
	{ "{\"x\":{\"content\":\"aGVsbA==\",\"encoding\":\"base64\"}}", NULL, "", "" },
	{ "{\"x\":{\"content\":\"aGVsbB==\",\"encoding\":\"base64\"}}", NULL, "invalid_field", "$.files.x.content" },
	{ "{\"x\":{\"content\":\"a===\",\"encoding\":\"base64\"}}", NULL, "invalid_field", "$.files.x.content" },
	{ "{\"x\":{\"content\":\"aG=s\",\"encoding\":\"base64\"}}", NULL, "invalid_field", "$.files.x.content" },
	{ "{\"x\":{\"content\":\"aGVs-G8_\",\"encoding\":\"base64\"}}", NULL, "invalid_field", "$.files.x.content" },
	/* modes: octal, no setuid, setgid or sticky bit */
	{ "{\"x\":{\"content\":\"x\",\"mode\":\"4755\"}}", NULL, "invalid_field", "$.files.x.mode" },
	{ "{\"x\":{\"content\":\"x\",\"mode\":\"2755\"}}", NULL, "invalid_field", "$.files.x.mode" },
	{ "{\"x\":{\"content\":\"x\",\"mode\":\"1777\"}}", NULL, "invalid_field", "$.files.x.mode" },
	{ "{\"x\":{\"content\":\"x\",\"mode\":\"0888\"}}", NULL, "invalid_field", "$.files.x.mode" },
	{ "{\"x\":{\"content\":\"x\",\"mode\":\"75\"}}", NULL, "invalid_field", "$.files.x.mode" },
	{ "{\"x\":{\"content\":\"x\",\"mode\":\"00755\"}}", NULL, "invalid_field", "$.files.x.mode" },
	{ "{\"x\":{\"content\":\"x\",\"mode\":\"0755 \"}}", NULL, "invalid_field", "$.files.x.mode" },
	{ "{\"x\":{\"content\":\"x\",\"mode\":\"u+x\"}}", NULL, "invalid_field", "$.files.x.mode" },
	{ "{\"x\":{\"content\":\"x\",\"mode\":755}}", NULL, "invalid_field", "$.files.x.mode" },
	{ "{\"x\":{\"content\":\"x\",\"mode\":\"755\"}}", NULL, "", "" },
	{ "{\"x\":{\"snapshot\":\"etc/hostname\"}}", NULL, "invalid_field", "$.files.x.snapshot" },
	/* argv entries naming files */
	{ "{\"x\":{\"content\":\"x\"}}", "[\"/usr/bin/true\",{\"file\":\"y\"}]",
	  "invalid_field", "$.commands[0].argv[1].file" },
	{ "{\"x\":{\"content\":\"x\"}}", "[\"/usr/bin/true\",{\"file\":\"x\",\"mode\":\"0644\"}]",
	  "invalid_field", "$.commands[0].argv[1]" },
	{ "{\"x\":{\"content\":\"x\"}}", "[\"/usr/bin/true\",{\"file\":1}]",
	  "invalid_field", "$.commands[0].argv[1]" },
	{ "{\"x\":{\"content\":\"x\"}}", "[{\"file\":\"x\"}]", "invalid_field", "$.commands[0].argv[0]" },
	{ "{\"x\":{\"content\":\"x\"},\"y\":{\"content\":\"y\"}}", NULL, "invalid_field", "$.files.y" },
	{ "{\"x\":{\"content\":\"x\"}}", "[\"/usr/bin/true\"]", "invalid_field", "$.files.x" },
	/* content */
	{ "{\"x\":{\"content\":\"db_password=hunter2\\n\"}}", NULL, "credential_field_rejected",
	  "$.files.x.content" },
	{ "{\"x\":{\"content\":\"line\\nexport TOKEN=abc\\n\"}}", NULL, "credential_field_rejected",
	  "$.files.x.content" },
	/* binary content is not scanned (a NUL makes it binary) */
	{ "{\"x\":{\"content\":\"cGFzc3dvcmQ9eAA=\",\"encoding\":\"base64\"}}", NULL, "", "" },
	{ "{\"x\":{\"content\":\"\"}}", NULL, "", "" },
	/* a file used twice, and by a YOU command */
	{ "{\"x\":{\"content\":\"x\"}}", "[\"/usr/bin/true\",{\"file\":\"x\"},{\"file\":\"x\"}]", "", "" },
};

static void
check_case(const struct requester *rq, const char *json, const char *code, const char *path,
    const char *what)
{
	struct wrequest q;
	struct refusal r;
	int rc;

	memset(&r, 0, sizeof r);
	rc = request_parse(json, strlen(json), &q, &r);
	if (rc == 0) {
		rc = validate_request(&q, rq, &r);
		request_free(&q);
	}
	if (*code == '\0') {
		if (rc != 0)
			fail_msg("%s (%s): refused %s at %s (%s), want accepted", what, json,
			    r.code, r.path, r.message);
		return;
	}
	if (rc == 0 || strcmp(r.code, code) != 0 || strcmp(r.path, path) != 0)
		fail_msg("%s (%s): got %s at %s (%s), want %s at %s", what, json,
		    rc == 0 ? "accepted" : r.code, r.path, rc == 0 ? "" : r.message, code, path);
}

static void
test_parse_refusals(void **state)
{
	struct requester me;
	struct refusal r;
	char what[32], *json;
	size_t i;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	for (i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
		json = req(parse_cases[i].files, parse_cases[i].argv);
		snprintf(what, sizeof what, "case %zu", i);
		check_case(&me, json, parse_cases[i].code, parse_cases[i].path, what);
		free(json);
	}
	requester_free(&me);
}

/* Inline content over 64 KiB decoded, in either encoding. */
static void
test_inline_limits(void **state)
{
	size_t n = FILE_INLINE_MAX + 1;
	char *content = xmalloc(n + 1), *files, *json;
	struct requester me;
	struct refusal r;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	memset(content, 'a', n);
	content[n] = '\0';
	assert_true(asprintf(&files, "{\"x\":{\"content\":\"%s\"}}", content) > 0);
	json = req(files, NULL);
	check_case(&me, json, "invalid_field", "$.files.x.content", "65537 bytes");
	free(json);
	free(files);
	content[n - 1] = '\0';
	assert_true(asprintf(&files, "{\"x\":{\"content\":\"%s\"}}", content) > 0);
	json = req(files, NULL);
	check_case(&me, json, "", "", "65536 bytes");
	free(json);
	free(files);
	/* base64 of 65537 bytes: 87384 characters */
	free(content);
	content = xmalloc(87384 + 1);
	memset(content, 'Q', 87384);
	content[87384] = '\0';
	assert_true(asprintf(&files, "{\"x\":{\"content\":\"%s\",\"encoding\":\"base64\"}}",
	    content) > 0);
	json = req(files, NULL);
	check_case(&me, json, "invalid_field", "$.files.x.content", "base64 of 65538 bytes");
	free(json);
	free(files);
	free(content);
	requester_free(&me);
}

static void
make_file(const char *path, const void *data, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	assert_int_equal(close(fd), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* A requester that is not this process (as a daemon validates for). */
static void
other(struct requester *rq)
{
	static gid_t groups[1];

	memset(rq, 0, sizeof *rq);
	rq->uid = getuid() + 1000;
	rq->gid = getgid() + 1000;
	groups[0] = rq->gid;
	rq->groups = groups;
	rq->ngroups = 1;
	rq->name = "someone-else";
}

static char *
snap_req(const char *path)
{
	char files[PATH_MAX + 64];

	snprintf(files, sizeof files, "{\"x\":{\"snapshot\":\"%s\",\"mode\":\"0755\"}}", path);
	return req(files, NULL);
}

static void
snap_case(const struct requester *rq, const char *path, const char *code, const char *where,
    const char *what)
{
	char *json = snap_req(path);

	check_case(rq, json, code, where, what);
	free(json);
}

static void
test_snapshots(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];
	struct requester me, rq;
	struct refusal r;
	const char *snap = "$.files.x.snapshot";

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	other(&rq);

	snprintf(p, sizeof p, "%s/tool", dir);
	make_file(p, "\x7f" "ELF\0binary", 11, 0644);
	snap_case(&me, p, "", "", "a regular file");
	snap_case(&rq, p, "", "", "a 0644 file, for another requester");
	assert_int_equal(chmod(p, 0600), 0);
	snap_case(&me, p, "", "", "a 0600 file of this process's");
	snap_case(&rq, p, "invalid_field", snap, "a 0600 file another requester cannot read");
	assert_int_equal(chmod(p, 0604), 0);
	snap_case(&rq, p, "", "", "a 0604 file, readable by others");

	/* a directory on the way the requester cannot search */
	snprintf(q, sizeof q, "%s/private", dir);
	assert_int_equal(mkdir(q, 0700), 0);
	snprintf(q, sizeof q, "%s/private/f", dir);
	make_file(q, "x", 1, 0644);
	snap_case(&rq, q, "invalid_field", snap, "a 0644 file in a 0700 directory");
	snprintf(q, sizeof q, "%s/private", dir);
	assert_int_equal(chmod(q, 0711), 0);
	snprintf(q, sizeof q, "%s/private/f", dir);
	snap_case(&rq, q, "", "", "a 0644 file in a 0711 directory");

	/* not a regular file */
	snprintf(q, sizeof q, "%s/link", dir);
	assert_int_equal(symlink(p, q), 0);
	snap_case(&me, q, "invalid_field", snap, "a symbolic link");
	snprintf(q, sizeof q, "%s/sub", dir);
	assert_int_equal(mkdir(q, 0755), 0);
	snap_case(&me, q, "invalid_field", snap, "a directory");
	snprintf(q, sizeof q, "%s/fifo", dir);
	assert_int_equal(mkfifo(q, 0644), 0);
	snap_case(&me, q, "invalid_field", snap, "a FIFO");
	snap_case(&me, "/dev/null", "invalid_field", snap, "a device");
	snprintf(q, sizeof q, "%s/missing", dir);
	snap_case(&me, q, "invalid_field", snap, "a missing file");
	snprintf(q, sizeof q, "%s/", dir);
	snap_case(&me, q, "invalid_field", snap, "a path ending in /");
	/* a symlink on the way is followed (the path's directory is resolved) */
	snprintf(q, sizeof q, "%s/dirlink", dir);
	assert_int_equal(symlink(dir, q), 0);
	snprintf(q, sizeof q, "%s/dirlink/tool", dir);
	snap_case(&me, q, "", "", "a file through a symlinked directory");

	/* too big: 64 MiB and one byte (sparse) */
	snprintf(q, sizeof q, "%s/big", dir);
	make_file(q, "", 0, 0644);
	assert_int_equal(truncate(q, FILE_SNAPSHOT_MAX + 1), 0);
	snap_case(&me, q, "invalid_field", snap, "64 MiB + 1");
	requester_free(&me);
}

/* reach_path's answer for rq: the errno, or 0 with the real path in real. */
static int
reach_errno(const struct requester *rq, const char *path, char real[PATH_MAX])
{
	int fd = reach_path(rq, path, 1, real);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * Paths are looked up as the requester could: behind a directory closed
 * to it, what is there and what is not fail alike (ENOENT), through a
 * symbolic link too; an executable over EXE_SIZE_MAX is refused unread.
 */
static void
test_reach(void **state)
{
	char d[] = "/tmp/wt-reach.XXXXXX", p[PATH_MAX], q[PATH_MAX], real[PATH_MAX];
	struct requester me, rq;
	struct refusal r;
	struct exe e;

	(void)state;
	assert_non_null(mkdtemp(d));
	assert_int_equal(chmod(d, 0755), 0);
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	other(&rq);
	snprintf(p, sizeof p, "%s/closed", d);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/closed/there", d);
	make_file(p, "#!/bin/sh\n", 10, 0755);
	snprintf(q, sizeof q, "%s/closed/absent", d);
	assert_int_equal(reach_errno(&rq, p, real), ENOENT);
	assert_string_equal(real, "");
	assert_int_equal(reach_errno(&rq, q, real), ENOENT);
	assert_int_equal(reach_errno(&me, p, real), 0);
	assert_int_equal(reach_errno(&me, q, real), ENOENT);
	/* the same refusal for both, as executables */
	assert_int_equal(exe_resolve(&rq, p, &e, &r, "$.x"), -1);
	assert_string_equal(r.code, "bad_executable");
	assert_non_null(strstr(r.message, "No such file or directory"));
	assert_int_equal(exe_resolve(&rq, q, &e, &r, "$.x"), -1);
	assert_string_equal(r.code, "bad_executable");
	assert_int_equal(exe_resolve(&me, p, &e, &r, "$.x"), 0);

	/* a link of the requester's into the closed directory, and .. out of it */
	snprintf(q, sizeof q, "%s/link", d);
	snprintf(p, sizeof p, "%s/closed", d);
	assert_int_equal(symlink(p, q), 0);
	snprintf(q, sizeof q, "%s/link/there", d);
	assert_int_equal(reach_errno(&rq, q, real), ENOENT);
	snprintf(q, sizeof q, "%s/link/../closed/../link", d);
	assert_int_equal(reach_errno(&rq, q, real), ENOENT);
	snprintf(q, sizeof q, "%s/link/..", d);
	assert_int_equal(reach_errno(&rq, q, real), ENOENT);
	/* searchable, not readable: the lookup goes through; .. is physical */
	assert_int_equal(chmod(p, 0711), 0);
	assert_int_equal(reach_errno(&rq, q, real), 0);
	assert_string_equal(real, d);
	snprintf(q, sizeof q, "%s/link/there", d);
	assert_int_equal(reach_errno(&rq, q, real), 0);
	snprintf(p, sizeof p, "%s/closed/there", d);
	assert_string_equal(real, p);
	/* ... but a file it cannot read is not hashed for it */
	assert_int_equal(chmod(p, 0711), 0);
	assert_int_equal(exe_resolve(&rq, p, &e, &r, "$.x"), -1);
	assert_string_equal(r.code, "bad_executable");
	assert_string_equal(e.sha256, "");

	/* over the bound: refused before it is read (sparse) */
	snprintf(p, sizeof p, "%s/huge", d);
	make_file(p, "", 0, 0755);
	assert_int_equal(truncate(p, EXE_SIZE_MAX + 1), 0);
	assert_int_equal(exe_resolve(&me, p, &e, &r, "$.x"), -1);
	assert_string_equal(r.code, "executable_too_large");
	assert_string_equal(e.sha256, "");
	requester_free(&me);
}

/* Five snapshots of 60 MiB add up to more than 256 MiB. */
static void
test_total(void **state)
{
	char q[PATH_MAX], *files, *json;
	struct requester me;
	struct refusal r;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	snprintf(q, sizeof q, "%s/sixty", dir);
	make_file(q, "", 0, 0644);
	assert_int_equal(truncate(q, 60LL * 1024 * 1024), 0);
	assert_true(asprintf(&files, "{\"a\":{\"snapshot\":\"%s\"},\"b\":{\"snapshot\":\"%s\"},"
	    "\"c\":{\"snapshot\":\"%s\"},\"d\":{\"snapshot\":\"%s\"},\"e\":{\"snapshot\":\"%s\"}}",
	    q, q, q, q, q) > 0);
	assert_true(asprintf(&json, "{\"reason\":\"r\",\"files\":%s,\"commands\":[{\"id\":\"a\","
	    "\"why\":\"w\",\"argv\":[\"/usr/bin/true\",{\"file\":\"a\"},{\"file\":\"b\"},"
	    "{\"file\":\"c\"},{\"file\":\"d\"},{\"file\":\"e\"}]}]}", files) > 0);
	check_case(&me, json, "invalid_field", "$.files", "300 MiB in all");
	free(json);
	free(files);
	unlink(q);
	requester_free(&me);
}

/* A copy of a shell handed to a ROOT command is a shell, whatever its
 * name; a YOU command may have it. */
static void
test_identity(void **state)
{
	char q[PATH_MAX], *json, files[PATH_MAX + 64];
	struct requester me;
	struct refusal r;
	char *buf;
	size_t len;
	int fd;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	fd = open("/bin/bash", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		skip();
	assert_int_equal(read_bounded(fd, &buf, &len, 64 * 1024 * 1024), 0);
	close(fd);
	snprintf(q, sizeof q, "%s/notashell", dir);
	make_file(q, buf, len, 0755);
	free(buf);
	snprintf(files, sizeof files, "{\"x\":{\"snapshot\":\"%s\",\"mode\":\"0755\"}}", q);
	json = req(files, "[\"/usr/bin/env\",{\"file\":\"x\"}]");
	check_case(&me, json, "interactive_program", "$.commands[0].argv[1]", "a copy of bash");
	free(json);
	assert_true(asprintf(&json, "{\"reason\":\"r\",\"files\":%s,\"commands\":[{\"id\":\"a\","
	    "\"as\":\"user\",\"why\":\"w\",\"argv\":[\"/usr/bin/cat\",{\"file\":\"x\"}]}]}",
	    files) > 0);
	check_case(&me, json, "", "", "a copy of bash for a YOU command");
	free(json);
	unlink(q);
	requester_free(&me);
}

/* The manifest seals each file by name, SHA-256, size, mode and source;
 * argv keeps {"file": NAME}; the rules read a placeholder, never a path. */
static void
test_manifest(void **state)
{
	const char *json = "{\"reason\":\"r\",\"files\":{\"conf\":{\"content\":\"hello\\n\"},"
	    "\"bin\":{\"content\":\"AAEC\",\"encoding\":\"base64\",\"mode\":\"700\"}},"
	    "\"commands\":[{\"id\":\"a\",\"why\":\"w\",\"argv\":[\"install\",\"-m\",\"0644\","
	    "{\"file\":\"conf\"},{\"file\":\"bin\"},\"/etc/x\"]}]}";
	char hex[SHA256_HEX_LEN + 1], why[256];
	struct requester me;
	struct wrequest q;
	struct refusal r;
	json_t *m, *f;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
	if (validate_request(&q, &me, &r) != 0)
		fail_msg("refused: %s %s %s", r.code, r.path, r.message);
	assert_string_equal(q.cmds[0].argv[3], "{file:conf}");
	assert_true(q.cmds[0].file[3] == &q.files[0] || q.cmds[0].file[3] == &q.files[1]);
	m = manifest_build(&q, "w-aaaaaaaaaa", "host");
	f = json_object_get(json_object_get(m, "files"), "conf");
	sha256_bytes("hello\n", 6, hex);
	assert_string_equal(json_string_value(json_object_get(f, "sha256")), hex);
	assert_int_equal(json_integer_value(json_object_get(f, "size")), 6);
	assert_string_equal(json_string_value(json_object_get(f, "mode")), "0644");
	assert_true(json_is_null(json_object_get(f, "source")));
	f = json_object_get(json_object_get(m, "files"), "bin");
	sha256_bytes("\0\1\2", 3, hex);
	assert_string_equal(json_string_value(json_object_get(f, "sha256")), hex);
	assert_string_equal(json_string_value(json_object_get(f, "mode")), "0700");
	f = json_array_get(json_object_get(json_array_get(json_object_get(m, "commands"), 0),
	    "argv"), 3);
	assert_string_equal(file_ref(f), "conf");
	assert_int_equal(manifest_check(m, why, sizeof why), 0);
	/* the shape the runner relies on */
	json_object_set_new(json_array_get(json_object_get(json_array_get(json_object_get(m,
	    "commands"), 0), "argv"), 3), "file", json_string("nope"));
	assert_int_equal(manifest_check(m, why, sizeof why), -1);
	json_object_set_new(json_array_get(json_object_get(json_array_get(json_object_get(m,
	    "commands"), 0), "argv"), 3), "file", json_string("conf"));
	json_object_set_new(json_object_get(json_object_get(m, "files"), "conf"), "mode",
	    json_string("4755"));
	assert_int_equal(manifest_check(m, why, sizeof why), -1);
	json_object_set_new(json_object_get(json_object_get(m, "files"), "conf"), "mode",
	    json_string("0644"));
	json_object_set_new(json_object_get(m, "files"), "../x", json_object());
	assert_int_equal(manifest_check(m, why, sizeof why), -1);
	json_object_del(json_object_get(m, "files"), "../x");
	json_array_set_new(json_object_get(json_array_get(json_object_get(m, "commands"), 0),
	    "argv"), 0, json_pack("{s:s}", "file", "conf"));
	assert_int_equal(manifest_check(m, why, sizeof why), -1);
	json_decref(m);
	request_free(&q);
	requester_free(&me);
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* gate_submit stores each file's content once, as blobs/sha256/HEX
 * (0600), before the gate; the stored gate shows the files as sealed. */
static void
test_blobs(void **state)
{
	char home[PATH_MAX], p[PATH_MAX], buf[PATH_MAX + 512], hex[SHA256_HEX_LEN + 1],
	    blob[PATH_MAX + 128], *text;
	const char *what;
	struct requester me;
	struct refusal r;
	struct store st;
	json_t *desc, *g;
	struct stat sb;
	int fd;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	snprintf(home, sizeof home, "%s/state", dir);
	assert_int_equal(setenv("WARRANT_HOME", home, 1), 0);
	snprintf(p, sizeof p, "%s/snap", dir);
	make_file(p, "snapshot text\n", 14, 0644);
	snprintf(buf, sizeof buf, "{\"reason\":\"r\",\"files\":{\"a\":{\"content\":\"snapshot text\\n\"},"
	    "\"b\":{\"snapshot\":\"%s\"}},\"commands\":[{\"id\":\"a\",\"why\":\"w\",\"argv\":"
	    "[\"/usr/bin/true\",{\"file\":\"a\"},{\"file\":\"b\"}]}]}", p);
	if (gate_submit(NULL, buf, strlen(buf), &me, NULL, NULL, &desc, &r) != EXIT_OK)
		fail_msg("refused: %s %s %s", r.code, r.path, r.message);
	/* the source changes after the request: the blob does not */
	make_file(p, "changed\n", 8, 0644);
	sha256_bytes("snapshot text\n", 14, hex);
	snprintf(blob, sizeof blob, "%s/blobs/sha256/%s", home, hex);
	assert_int_equal(stat(blob, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(sb.st_size, 14);
	assert_int_equal(sb.st_nlink, 1);	/* one copy for two files */
	assert_int_equal(store_open(&st), 0);
	g = store_gate(&st, json_str(desc, "request_id"), 0);
	assert_non_null(g);
	assert_string_equal(json_str(json_object_get(json_object_get(g, "files"), "b"), "sha256"), hex);
	text = blob_text(st.dir, json_object_get(json_object_get(g, "files"), "b"), 100, &what);
	assert_non_null(text);
	assert_string_equal(text, "snapshot text\n");
	free(text);
	/* a changed blob is not shown as if it were the sealed one */
	fd = open(blob, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "S", 1), 1);
	close(fd);
	assert_null(blob_text(st.dir, json_object_get(json_object_get(g, "files"), "b"), 100, &what));
	assert_string_equal(what, "changed");
	json_decref(g);
	store_close(&st);
	json_decref(desc);
	unsetenv("WARRANT_HOME");
	requester_free(&me);
}

/* Staging: the sealed content copied with its mode; anything else, a
 * growth, a symlink, is refused and leaves nothing. */
static void
test_stage(void **state)
{
	char src[PATH_MAX], dst[PATH_MAX], hex[SHA256_HEX_LEN + 1], p[PATH_MAX + 16];
	int sfd, dfd;
	struct stat sb;
	mode_t mode;

	(void)state;
	assert_int_equal(file_mode_parse("0644", &mode), 0);
	assert_int_equal(mode, 0644);
	assert_int_equal(file_mode_parse("750", &mode), 0);
	assert_int_equal(mode, 0750);
	assert_int_equal(file_mode_parse("4755", &mode), -1);
	assert_int_equal(file_mode_parse("", &mode), -1);
	snprintf(src, sizeof src, "%s/src", dir);
	snprintf(dst, sizeof dst, "%s/dst", dir);
	assert_int_equal(mkdir(src, 0700), 0);
	assert_int_equal(mkdir(dst, 0700), 0);
	sfd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dfd = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(p, sizeof p, "%s/blob", src);
	make_file(p, "content", 7, 0600);
	sha256_bytes("content", 7, hex);
	assert_int_equal(stage_copy(sfd, "blob", dfd, "f", hex, 7, 0751, (uid_t)-1, (gid_t)-1), 0);
	snprintf(p, sizeof p, "%s/f", dst);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0751);
	/* wrong size, wrong content, a symlink: 1, nothing left */
	assert_int_equal(stage_copy(sfd, "blob", dfd, "g", hex, 6, 0644, (uid_t)-1, (gid_t)-1), 1);
	sha256_bytes("contenT", 7, hex);
	assert_int_equal(stage_copy(sfd, "blob", dfd, "g", hex, 7, 0644, (uid_t)-1, (gid_t)-1), 1);
	snprintf(p, sizeof p, "%s/g", dst);
	assert_int_equal(lstat(p, &sb), -1);
	snprintf(p, sizeof p, "%s/link", src);
	assert_int_equal(symlink("blob", p), 0);
	sha256_bytes("content", 7, hex);
	assert_int_equal(stage_copy(sfd, "link", dfd, "g", hex, 7, 0644, (uid_t)-1, (gid_t)-1), -1);
	assert_int_equal(stage_copy(sfd, "blob", dfd, "f", hex, 7, 0644, (uid_t)-1, (gid_t)-1), -1);
	assert_int_equal(errno, EEXIST);
	/* removal takes what a command left too */
	snprintf(p, sizeof p, "%s/sub", dst);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/sub/x", dst);
	make_file(p, "x", 1, 0600);
	close(dfd);
	assert_int_equal(stage_remove(AT_FDCWD, dst), 0);
	assert_int_equal(lstat(dst, &sb), -1);
	close(sfd);
	assert_int_equal(nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
}

/*
 * Install, then use (docs/design.md §3): an absolute executable that does
 * not exist is accepted after an earlier ROOT command, sealed at run
 * time, unless the requester could create it, its path is not plain, or
 * its name is denied; without an earlier ROOT command it is refused.
 */
static void
test_sealed_at_run_request(void **state)
{
	const char *tool = "/usr/local/sbin/wt-unit-sealed-at-run";
	char json[1024], why[256];
	struct requester me;
	struct wrequest q;
	struct refusal r;
	json_t *m, *c;

	(void)state;
	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	assert_int_equal(access(tool, F_OK), -1);
#define TWO(first, second) "{\"reason\":\"r\",\"commands\":[" first "," second "]}"
#define INSTALL "{\"id\":\"i\",\"why\":\"w\",\"argv\":[\"/usr/bin/true\"]}"
	snprintf(json, sizeof json, TWO(INSTALL, "{\"id\":\"u\",\"why\":\"w\",\"argv\":[\"%s\",\"x\"]}"),
	    tool);
	assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
	if (validate_request(&q, &me, &r) != 0)
		fail_msg("refused: %s %s %s", r.code, r.path, r.message);
	assert_true(q.cmds[1].sealed_at_run);
	assert_true(q.cmds[1].badges & BADGE_SEALED_AT_RUN);
	assert_false(q.cmds[0].sealed_at_run);
	m = manifest_build(&q, "w-aaaaaaaaaa", "host");
	c = json_array_get(json_object_get(m, "commands"), 1);
	assert_string_equal(json_string_value(json_object_get(c, "path")), tool);
	assert_true(json_is_null(json_object_get(c, "executable_sha256")));
	assert_true(json_is_true(json_object_get(c, "sealed_at_run")));
	assert_true(json_is_false(json_object_get(json_array_get(json_object_get(m, "commands"), 0),
	    "sealed_at_run")));
	assert_int_equal(manifest_check(m, why, sizeof why), 0);
	/* the shape the runner relies on: no hash with the flag, one without */
	json_object_set_new(c, "executable_sha256", json_string(q.cmds[0].exe.sha256));
	assert_int_equal(manifest_check(m, why, sizeof why), -1);
	json_object_set_new(c, "executable_sha256", json_null());
	json_object_set_new(c, "sealed_at_run", json_false());
	assert_int_equal(manifest_check(m, why, sizeof why), -1);
	json_object_set_new(c, "sealed_at_run", json_string("yes"));
	assert_int_equal(manifest_check(m, why, sizeof why), -1);
	json_decref(m);
	request_free(&q);

	/* a YOU command after a ROOT one may use it too */
	snprintf(json, sizeof json, TWO(INSTALL, "{\"id\":\"u\",\"as\":\"user\",\"why\":\"w\","
	    "\"argv\":[\"%s\"]}"), tool);
	check_case(&me, json, "", "", "YOU after ROOT");
	/* no earlier ROOT command: missing */
	snprintf(json, sizeof json, "{\"reason\":\"r\",\"commands\":[{\"id\":\"u\",\"why\":\"w\","
	    "\"argv\":[\"%s\"]}," INSTALL "]}", tool);
	check_case(&me, json, "bad_executable", "$.commands[0].argv[0]", "first");
	snprintf(json, sizeof json, TWO("{\"id\":\"i\",\"as\":\"user\",\"why\":\"w\",\"argv\":"
	    "[\"/usr/bin/true\"]}", "{\"id\":\"u\",\"why\":\"w\",\"argv\":[\"%s\"]}"), tool);
	check_case(&me, json, "bad_executable", "$.commands[1].argv[0]", "after a YOU command");
	/* not a plain path */
	check_case(&me, TWO(INSTALL, "{\"id\":\"u\",\"why\":\"w\",\"argv\":[\"/usr/local/sbin/../sbin/wt-x\"]}"),
	    "bad_executable", "$.commands[1].argv[0]", "..");
	check_case(&me, TWO(INSTALL, "{\"id\":\"u\",\"why\":\"w\",\"argv\":[\"/usr/local/sbin//wt-x\"]}"),
	    "bad_executable", "$.commands[1].argv[0]", "//");
	/* a path the requester (root: anyone but root) could create itself */
	check_case(&me, TWO(INSTALL, "{\"id\":\"u\",\"why\":\"w\",\"argv\":[\"/tmp/wt-unit-none/x\"]}"),
	    "writable_executable", "$.commands[1].argv[0]", "under /tmp");
	/* denied by name before it exists */
	check_case(&me, TWO(INSTALL, "{\"id\":\"u\",\"why\":\"w\",\"argv\":[\"/usr/local/sbin/bash\"]}"),
	    "interactive_program", "$.commands[1].argv[0]", "bash");
	check_case(&me, TWO(INSTALL, "{\"id\":\"u\",\"as\":\"user\",\"why\":\"w\","
	    "\"argv\":[\"/usr/local/sbin/sudo\"]}"),
	    "nested_privilege_tool", "$.commands[1].argv[0]", "sudo as YOU");
	requester_free(&me);
#undef TWO
#undef INSTALL
}

/* copy src (absolute) to dst with mode */
static void
copy_file(const char *src, const char *dst, mode_t mode)
{
	char *buf;
	size_t len;
	int fd = open(src, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(read_bounded(fd, &buf, &len, 64 * 1024 * 1024), 0);
	close(fd);
	make_file(dst, buf, len, mode);
	free(buf);
}

/* A ustar header for name (a directory when isdir) with mode and size. */
static void
tar_entry(unsigned char *h, const char *name, int isdir, unsigned mode, size_t size)
{
	unsigned sum = 0;
	size_t i;

	memset(h, 0, 512);
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", mode);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011zo", size);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = isdir ? '5' : '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

/* The badges of a request naming one file, as inline base64 or a
 * snapshot of the same bytes. */
static unsigned
archive_badges(const unsigned char *tar, size_t n, int snapshot)
{
	char *files, *json, *b64 = xmalloc(4 * ((n + 2) / 3) + 1), path[PATH_MAX];
	struct requester me;
	struct refusal r;
	struct wrequest q;
	unsigned b;

	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	EVP_EncodeBlock((unsigned char *)b64, tar, (int)n);
	snprintf(path, sizeof path, "/tmp/wt-archive-%ld.tar", (long)getpid());
	make_file(path, tar, n, 0644);
	if (asprintf(&files, snapshot ? "{\"x\":{\"snapshot\":\"%s\"}}" :
	    "{\"x\":{\"content\":\"%s\",\"encoding\":\"base64\"}}", snapshot ? path : b64) < 0)
		abort();
	json = req(files, "[\"tar\",\"-xf\",{\"file\":\"x\"},\"-C\",\"/srv\"]");
	assert_int_equal(request_parse(json, strlen(json), &q, &r), 0);
	if (validate_request(&q, &me, &r) != 0)
		fail_msg("refused: %s %s %s", r.code, r.path, r.message);
	b = q.cmds[0].badges;
	assert_int_equal(q.badges, b);
	request_free(&q);
	requester_free(&me);
	unlink(path);
	free(json);
	free(files);
	free(b64);
	return b;
}

/* archive-writable-dir: a tar among the files with a directory entry
 * that its group or everyone may write; never a refusal. */
static void
test_archive_badge(void **state)
{
	unsigned char tar[512 * 8];
	int snap;

	(void)state;
	for (snap = 0; snap <= 1; snap++) {
		memset(tar, 0, sizeof tar);
		tar_entry(tar, "etc/", 1, 0755, 0);
		tar_entry(tar + 512, "etc/f", 0, 0644, 600);	/* two blocks of content */
		memset(tar + 1024, 'x', 600);
		tar_entry(tar + 2048, "etc/open/", 1, 0777, 0);
		assert_true(archive_badges(tar, sizeof tar, snap) & BADGE_ARCHIVE_WRITABLE_DIR);
		/* group-writable is enough */
		tar_entry(tar + 2048, "etc/g/", 1, 0775, 0);
		assert_true(archive_badges(tar, sizeof tar, snap) & BADGE_ARCHIVE_WRITABLE_DIR);
		/* the same header as a file's content is not read as one */
		memset(tar + 2048, 0, 512);
		tar_entry(tar + 1024, "etc/hidden/", 1, 0777, 0);
		assert_false(archive_badges(tar, sizeof tar, snap) & BADGE_ARCHIVE_WRITABLE_DIR);
		/* directories of 0755 only, and a header whose checksum is wrong */
		memset(tar, 0, sizeof tar);
		tar_entry(tar, "etc/", 1, 0755, 0);
		assert_false(archive_badges(tar, sizeof tar, snap) & BADGE_ARCHIVE_WRITABLE_DIR);
		tar_entry(tar, "etc/", 1, 0777, 0);
		tar[0] = 'f';
		assert_false(archive_badges(tar, sizeof tar, snap) & BADGE_ARCHIVE_WRITABLE_DIR);
		/* an old-style directory: a file entry whose name ends in '/' */
		tar_entry(tar, "etc/", 0, 0777, 0);
		assert_true(archive_badges(tar, sizeof tar, snap) & BADGE_ARCHIVE_WRITABLE_DIR);
	}
}

/* exe_at_run: what the runner (and answer) judge when the command starts. */
static void
test_exe_at_run(void **state)
{
	char d[] = "/tmp/wt-atrun.XXXXXX", p[PATH_MAX], real[PATH_MAX],
	    sha[SHA256_HEX_LEN + 1], hex[SHA256_HEX_LEN + 1], why[PATH_MAX + 256];
	struct writer w = { 0 }, anyone = { 0 };
	gid_t groups[1] = { 4242 };
	int fd;

	(void)state;
	w.uid = 4242;
	w.groups = groups;
	w.ngroups = 1;
	assert_non_null(mkdtemp(d));
	assert_int_equal(chmod(d, 0755), 0);
	snprintf(p, sizeof p, "%s/tool", d);
	/* missing */
	assert_int_equal(exe_at_run(p, &w, 1, real, sha, why, sizeof why), -1);
	assert_non_null(strstr(why, "does not exist"));
	copy_file("/usr/bin/true", p, 0755);
	fd = exe_at_run(p, &w, 1, real, sha, why, sizeof why);
	if (fd < 0)
		fail_msg("refused: %s", why);
	close(fd);
	assert_string_equal(real, p);
	fd = open("/usr/bin/true", O_RDONLY | O_CLOEXEC);
	assert_int_equal(sha256_fd(fd, hex), 0);
	close(fd);
	assert_string_equal(sha, hex);
	/* writable by the requester, or by anyone but root */
	assert_int_equal(chmod(p, 0757), 0);
	assert_int_equal(exe_at_run(p, &w, 0, real, sha, why, sizeof why), -1);
	assert_non_null(strstr(why, "could change"));
	assert_string_equal(sha, hex);	/* what was found, for the ledger */
	assert_int_equal(chmod(p, 0755), 0);
	assert_int_equal(chown(p, 4242, 0), 0);
	assert_int_equal(exe_at_run(p, &w, 1, real, sha, why, sizeof why), -1);
	assert_int_equal(exe_at_run(p, &anyone, 1, real, sha, why, sizeof why), -1);
	assert_int_equal(chown(p, 0, 0), 0);
	/* not executable */
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(exe_at_run(p, &w, 1, real, sha, why, sizeof why), -1);
	assert_non_null(strstr(why, "not executable"));
	/* a renamed shell: refused as root, fine as you */
	if (access("/bin/bash", R_OK) == 0) {
		copy_file("/bin/bash", p, 0755);
		assert_int_equal(exe_at_run(p, &w, 1, real, sha, why, sizeof why), -1);
		assert_non_null(strstr(why, "shell"));
		fd = exe_at_run(p, &w, 0, real, sha, why, sizeof why);
		assert_true(fd >= 0);
		close(fd);
	}
	/* a copy of a privilege tool: refused either way */
	if (access("/usr/bin/sudo", R_OK) == 0) {
		copy_file("/usr/bin/sudo", p, 0755);
		assert_int_equal(exe_at_run(p, &w, 0, real, sha, why, sizeof why), -1);
		assert_non_null(strstr(why, "privilege tool"));
	}
	/* through a symlink the requester could swap: the path counts */
	unlink(p);
	copy_file("/usr/bin/true", p, 0755);
	snprintf(real, sizeof real, "%s/sub", d);
	assert_int_equal(mkdir(real, 0777), 0);
	assert_int_equal(chmod(real, 0777), 0);
	snprintf(why, sizeof why, "%s/sub/link", d);
	assert_int_equal(symlink(p, why), 0);
	strcpy(real, why);
	{
		char link[PATH_MAX];

		strcpy(link, real);
		assert_int_equal(exe_at_run(link, &w, 1, real, sha, why, sizeof why), -1);
		assert_non_null(strstr(why, "could change"));
	}
	assert_int_equal(nftw(d, rm_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_refusals),
		cmocka_unit_test(test_inline_limits),
		cmocka_unit_test(test_snapshots),
		cmocka_unit_test(test_reach),
		cmocka_unit_test(test_total),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_manifest),
		cmocka_unit_test(test_blobs),
		cmocka_unit_test(test_stage),
		cmocka_unit_test(test_sealed_at_run_request),
		cmocka_unit_test(test_exe_at_run),
		cmocka_unit_test(test_archive_badge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
