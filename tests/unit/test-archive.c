/* SPDX-License-Identifier: ISC */
/* Reviewed files that are archives (src/intake/archive.c): real archives
 * made with tar, gzip, bzip2, xz, zstd, zip and dpkg-deb, judged as a
 * request's snapshot or inline file; their member summary, each member's
 * flags and the facts the badges read; damaged and truncated archives;
 * the bounds (a decompression bomb, more members than are listed or
 * read); the summary stored beside the blob and said as text. */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
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

static char dir[] = "/tmp/wt-archive.XXXXXX";

/* argv run in cwd, its output into out (or /dev/null); its exit status. */
static int
run(const char *cwd, const char *out, const char *const argv[])
{
	pid_t pid;
	int status, fd;

	if ((pid = fork()) == 0) {
		fd = open(out != NULL ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || chdir(cwd) != 0)
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

#define RUN(cwd, out, ...) do { \
	const char *const av_[] = { __VA_ARGS__, NULL }; \
	if (run(cwd, out, av_) != 0) \
		fail_msg("%s failed", av_[0]); \
} while (0)

static void
put_file(const char *path, const void *data, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, data, n), 0);
	assert_int_equal(fchmod(fd, mode), 0);	/* past the umask: set-id bits too */
	close(fd);
}

static char * __attribute__((format(printf, 1, 2)))
path_of(const char *fmt, ...)
{
	va_list ap;
	char *p, *rel;

	va_start(ap, fmt);
	if (vasprintf(&rel, fmt, ap) < 0)
		abort();
	va_end(ap);
	if (asprintf(&p, "%s/%s", dir, rel) < 0)
		abort();
	free(rel);
	return p;
}

/* The file f of a request whose file x is the snapshot path (or, inline,
 * its bytes): validated; the caller frees the request. */
static struct wfile *
judged(struct wrequest *q, const char *path, int inline_)
{
	char *files, *json, *b64 = NULL;
	struct requester me;
	struct refusal r;
	unsigned char *buf;
	struct stat st;
	int fd;

	assert_int_equal(requester_self(&me, &r), EXIT_OK);
	if (inline_) {
		assert_int_equal(stat(path, &st), 0);
		buf = xmalloc((size_t)st.st_size + 1);
		assert_true((fd = open(path, O_RDONLY)) >= 0);
		assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
		close(fd);
		b64 = xmalloc(4 * (((size_t)st.st_size + 2) / 3) + 1);
		EVP_EncodeBlock((unsigned char *)b64, buf, (int)st.st_size);
		free(buf);
	}
	if (asprintf(&files, inline_ ? "{\"x\":{\"content\":\"%s\",\"encoding\":\"base64\"}}" :
	    "{\"x\":{\"snapshot\":\"%s\"}}", inline_ ? b64 : path) < 0 ||
	    asprintf(&json, "{\"reason\":\"r\",\"files\":%s,\"commands\":[{\"id\":\"a\","
	    "\"why\":\"w\",\"argv\":[\"tar\",\"-xf\",{\"file\":\"x\"},\"-C\",\"/srv\"]}]}",
	    files) < 0)
		abort();
	assert_int_equal(request_parse(json, strlen(json), q, &r), 0);
	if (validate_request(q, &me, &r) != 0)
		fail_msg("%s refused: %s %s %s", path, r.code, r.path, r.message);
	requester_free(&me);
	free(json);
	free(files);
	free(b64);
	return &q->files[0];
}

/* The member of summary a whose path ends with suffix, or NULL. */
static const json_t *
member(const json_t *a, const char *suffix)
{
	static const char *const lists[] = { "flagged", "others" };
	const json_t *m;
	size_t i, k, n = strlen(suffix);

	for (k = 0; k < 2; k++)
		json_array_foreach(json_object_get(a, lists[k]), i, m) {
			const char *p = json_str(m, "path");

			if (strlen(p) >= n && strcmp(p + strlen(p) - n, suffix) == 0)
				return m;
		}
	return NULL;
}

static int
has_flag(const json_t *m, const char *flag)
{
	const json_t *v;
	size_t i;

	json_array_foreach(json_object_get(m, "flags"), i, v)
		if (strcmp(json_string_value(v), flag) == 0)
			return 1;
	return 0;
}

static long long
count(const json_t *a, const char *flag)
{
	return (long long)json_integer_value(json_object_get(json_object_get(a, "counts"), flag));
}

/*
 * tree/: a setuid and a setgid program, a world-writable file, an open
 * directory, a FIFO (and a character device when root), a link that
 * leads out and one that stays in, plain files.
 */
static void
make_tree(void)
{
	char *t = path_of("tree"), *p;

	assert_int_equal(mkdir(t, 0755), 0);
	p = path_of("tree/bin");
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = path_of("tree/bin/su-x");
	put_file(p, "#!/bin/sh\n", 10, 04755);
	free(p);
	p = path_of("tree/bin/sg-x");
	put_file(p, "#!/bin/sh\n", 10, 02755);
	free(p);
	p = path_of("tree/plain");
	put_file(p, "hello\n", 6, 0644);
	free(p);
	p = path_of("tree/open-file");
	put_file(p, "x", 1, 0666);
	free(p);
	p = path_of("tree/open-dir");
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chmod(p, 0777), 0);
	free(p);
	p = path_of("tree/fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	free(p);
	if (getuid() == 0) {
		p = path_of("tree/null");
		assert_int_equal(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
		assert_int_equal(chmod(p, 0666), 0);
		free(p);
	}
	p = path_of("tree/out");
	assert_int_equal(symlink("/etc/shadow", p), 0);
	free(p);
	p = path_of("tree/bin/up");
	assert_int_equal(symlink("../../x", p), 0);
	free(p);
	p = path_of("tree/bin/in");
	assert_int_equal(symlink("../plain", p), 0);
	free(p);
	free(t);
}

/* The tree as tar, compressed every way tar knows: the same members and
 * flags each time, snapshot and inline. */
static void
test_tar_compressed(void **state)
{
	static const struct { const char *opt, *name, *format; } kinds[] = {
		{ "--no-auto-compress", "t.tar", "tar" }, { "-z", "t.tar.gz", "tar.gz" },
		{ "-j", "t.tar.bz2", "tar.bz2" }, { "-J", "t.tar.xz", "tar.xz" },
		{ "--zstd", "t.tar.zst", "tar.zst" },
	};
	struct wrequest q;
	struct wfile *f;
	const json_t *a, *m;
	char *t = path_of("tree"), *out;
	size_t i;
	int inl;

	(void)state;
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		out = path_of("%s", kinds[i].name);
		RUN(t, NULL, "tar", kinds[i].opt, "-cf", out, ".");
		for (inl = 0; inl <= 1; inl++) {
			f = judged(&q, out, inl);
			a = f->archive;
			assert_non_null(a);
			assert_string_equal(json_str(a, "format"), kinds[i].format);
			assert_true(json_is_true(json_object_get(a, "complete")));
			assert_int_equal(json_integer_value(json_object_get(a, "members")),
			    getuid() == 0 ? 12 : 11);
			assert_int_equal(count(a, "setuid"), 1);
			assert_int_equal(count(a, "setgid"), 1);
			assert_int_equal(count(a, "device"), getuid() == 0 ? 2 : 1);
			assert_int_equal(count(a, "link-out"), 2);
			assert_int_equal(count(a, "world-writable"), getuid() == 0 ? 3 : 2);
			assert_int_equal(count(a, "absolute"), 0);
			assert_non_null(m = member(a, "bin/su-x"));
			assert_true(has_flag(m, "setuid"));
			assert_string_equal(json_str(m, "mode"), "4755");
			assert_string_equal(json_str(m, "type"), "file");
			assert_non_null(m = member(a, "bin/sg-x"));
			assert_true(has_flag(m, "setgid") && !has_flag(m, "setuid"));
			assert_non_null(m = member(a, "/fifo"));
			assert_true(has_flag(m, "device"));
			assert_string_equal(json_str(m, "type"), "fifo");
			assert_non_null(m = member(a, "/out"));
			assert_true(has_flag(m, "link-out"));
			assert_string_equal(json_str(m, "target"), "/etc/shadow");
			assert_true(has_flag(member(a, "bin/up"), "link-out"));
			assert_non_null(m = member(a, "bin/in"));
			assert_int_equal(json_array_size(json_object_get(m, "flags")), 0);
			assert_true(has_flag(member(a, "/open-dir/"), "world-writable"));
			assert_true(has_flag(member(a, "/open-file"), "world-writable"));
			assert_int_equal(json_array_size(json_object_get(member(a, "/plain"),
			    "flags")), 0);
			assert_int_equal(json_integer_value(json_object_get(a, "bytes")), 27);
			/* the facts the badges read */
			assert_true(f->archive_setid && f->archive_device && f->archive_escape &&
			    f->archive_writable_dir && !f->archive_unscanned);
			/* the members are read as they are sealed */
			assert_int_equal(f->text, 0);
			request_free(&q);
		}
		free(out);
	}
	free(t);
}

/* Absolute and ".." members (tar -P keeps them), and hard links that
 * lead out: flagged, and an archive without any flag has no facts. */
static void
test_paths(void **state)
{
	struct wrequest q;
	struct wfile *f;
	const json_t *a, *m;
	char *t = path_of("tree"), *abs = path_of("tree/plain"), *out = path_of("p.tar");

	(void)state;
	RUN(t, NULL, "tar", "-P", "-cf", out, abs, "../tree/bin/su-x", "bin/in");
	f = judged(&q, out, 1);
	a = f->archive;
	assert_int_equal(json_integer_value(json_object_get(a, "members")), 3);
	assert_int_equal(count(a, "absolute"), 1);
	assert_int_equal(count(a, "dotdot"), 1);
	assert_non_null(m = member(a, "tree/plain"));
	assert_true(json_str(m, "path")[0] == '/' && has_flag(m, "absolute"));
	assert_true(has_flag(member(a, "../tree/bin/su-x"), "dotdot"));
	assert_int_equal(json_array_size(json_object_get(member(a, "bin/in"), "flags")), 0);
	assert_true(f->archive_escape && f->archive_setid);
	request_free(&q);
	free(out);
	/* hard links: one in the archive, one whose target climbs out */
	out = path_of("h.tar");
	{
		const char *const ln[] = { "sh", "-c", "ln plain hl && tar -cf \"$1\" plain hl; "
		    "rc=$?; rm hl; exit $rc", "sh", out, NULL };
		assert_int_equal(run(t, NULL, ln), 0);
	}
	f = judged(&q, out, 1);
	a = f->archive;
	assert_non_null(m = member(a, "hl"));
	assert_string_equal(json_str(m, "type"), "hardlink");
	assert_false(has_flag(m, "link-out"));
	assert_false(f->archive_escape || f->archive_setid || f->archive_device ||
	    f->archive_writable_dir);
	request_free(&q);
	free(out);
	out = path_of("ho.tar");
	{
		const char *const ln[] = { "sh", "-c", "ln plain hl && tar -P -cf \"$1\" "
		    "--transform='s,^plain$,../../etc/plain,RSh' plain hl; rc=$?; rm hl; exit $rc",
		    "sh", out, NULL };
		assert_int_equal(run(t, NULL, ln), 0);
	}
	f = judged(&q, out, 1);
	a = f->archive;
	assert_non_null(m = member(a, "hl"));
	assert_string_equal(json_str(m, "target"), "../../etc/plain");
	assert_true(has_flag(m, "link-out"));
	assert_true(f->archive_escape);
	request_free(&q);
	free(out);
	free(abs);
	free(t);
}

/* zip (its central directory, where the modes are) and a Debian package
 * (its data.tar, as dpkg unpacks it). */
static void
test_zip_deb(void **state)
{
	static const char *const comp[][2] = { { "-Zxz", "deb (data.tar.xz)" },
		{ "-Zgzip", "deb (data.tar.gz)" }, { "-Zzstd", "deb (data.tar.zst)" },
		{ "-Znone", "deb (data.tar)" } };
	static const char control[] = "Package: wt\nVersion: 1\nArchitecture: all\n"
	    "Maintainer: t <t@t>\nDescription: t\n";
	struct wrequest q;
	struct wfile *f;
	const json_t *a, *m;
	char *z = path_of("zt"), *p, *out = path_of("z.zip"), *deb;
	size_t i;

	(void)state;
	assert_int_equal(mkdir(z, 0755), 0);
	p = path_of("zt/su-x");
	put_file(p, "#!/bin/sh\n", 10, 04755);
	free(p);
	p = path_of("zt/out");
	assert_int_equal(symlink("/etc", p), 0);
	free(p);
	RUN(z, NULL, "zip", "-q", "-y", "-r", out, ".");
	f = judged(&q, out, 1);
	a = f->archive;
	assert_non_null(a);
	assert_string_equal(json_str(a, "format"), "zip");
	assert_non_null(m = member(a, "su-x"));
	assert_true(has_flag(m, "setuid"));
	assert_true(has_flag(member(a, "out"), "link-out"));
	assert_true(f->archive_setid && f->archive_escape);
	request_free(&q);
	free(out);
	/* a package: DEBIAN/control and a setuid program, owned by root */
	p = path_of("pkg/DEBIAN");
	RUN(dir, NULL, "mkdir", "-p", p, "pkg/usr/bin");
	free(p);
	p = path_of("pkg/DEBIAN/control");
	put_file(p, control, strlen(control), 0644);
	free(p);
	p = path_of("pkg/usr/bin/wt");
	put_file(p, "#!/bin/sh\n", 10, 04755);
	free(p);
	for (i = 0; i < sizeof comp / sizeof comp[0]; i++) {
		deb = path_of("wt%zu.deb", i);
		RUN(dir, NULL, "dpkg-deb", "--root-owner-group", comp[i][0], "--build", "pkg", deb);
		f = judged(&q, deb, 0);
		a = f->archive;
		assert_non_null(a);
		assert_string_equal(json_str(a, "format"), comp[i][1]);
		assert_true(json_is_true(json_object_get(a, "complete")));
		assert_int_equal(count(a, "setuid"), 1);
		assert_non_null(m = member(a, "usr/bin/wt"));
		assert_true(has_flag(m, "setuid"));
		assert_int_equal(json_integer_value(json_object_get(m, "uid")), 0);
		assert_string_equal(json_str(m, "user"), "root");
		/* the control member is not what dpkg unpacks */
		assert_null(member(a, "control"));
		assert_true(f->archive_setid);
		request_free(&q);
		free(deb);
	}
	free(z);
}

/* Damage: corrupt and truncated archives are marked, never taken for
 * complete; what is not an archive has no summary. */
static void
test_damaged(void **state)
{
	struct wrequest q;
	struct wfile *f;
	const json_t *a;
	char *t = path_of("tree"), *gz = path_of("t.tar.gz"), *bad = path_of("bad"), *buf;
	struct stat st;
	int fd;

	(void)state;
	/* t.tar.gz and t.tar from test_tar_compressed */
	assert_int_equal(stat(gz, &st), 0);
	buf = xmalloc((size_t)st.st_size);
	assert_true((fd = open(gz, O_RDONLY)) >= 0);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	/* a gzip header, then garbage */
	memset(buf + 10, 0xa5, (size_t)st.st_size - 10);
	put_file(bad, buf, (size_t)st.st_size, 0644);
	f = judged(&q, bad, 0);
	assert_non_null(a = f->archive);
	assert_false(json_is_true(json_object_get(a, "complete")));
	assert_non_null(strstr(json_str(a, "note"), "unscannable"));
	assert_true(f->archive_unscanned);
	request_free(&q);
	/* truncated: half of the compressed stream */
	assert_true((fd = open(gz, O_RDONLY)) >= 0);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	put_file(bad, buf, (size_t)st.st_size / 2, 0644);
	f = judged(&q, bad, 0);
	assert_non_null(a = f->archive);
	assert_false(json_is_true(json_object_get(a, "complete")));
	assert_true(f->archive_unscanned);
	request_free(&q);
	free(buf);
	/* a plain tar cut inside a member's content: its first members stand */
	{
		char *tar = path_of("t.tar");

		assert_int_equal(stat(tar, &st), 0);
		assert_true((fd = open(tar, O_RDONLY)) >= 0);
		buf = xmalloc((size_t)st.st_size);
		assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
		close(fd);
		put_file(bad, buf, 512 * 3 + 100, 0644);
		f = judged(&q, bad, 0);
		assert_non_null(a = f->archive);
		assert_false(json_is_true(json_object_get(a, "complete")));
		assert_true(json_integer_value(json_object_get(a, "members")) >= 1);
		assert_non_null(strstr(json_str(a, "note"), "unreadable after"));
		request_free(&q);
		free(buf);
		free(tar);
	}
	/* not archives: a program, gzip'd text */
	f = judged(&q, "/usr/bin/true", 0);
	assert_null(f->archive);
	assert_false(f->archive_unscanned);
	request_free(&q);
	{
		char *txt = path_of("t.txt"), *txtgz = path_of("t.txt.gz");

		put_file(txt, "hello\n", 6, 0644);
		RUN(dir, NULL, "gzip", "-k", txt);
		f = judged(&q, txtgz, 1);
		assert_null(f->archive);
		request_free(&q);
		free(txt);
		free(txtgz);
	}
	free(bad);
	free(gz);
	free(t);
}

/* A ustar header: name, type, mode, size. */
static void
tar_header(unsigned char *h, const char *name, char type, unsigned mode, unsigned long long size)
{
	unsigned sum = 0;
	size_t i;

	memset(h, 0, 512);
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", mode);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011llo", size);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

/* path: prefix then 2 GiB of zeros, gzip'd (prefix as one gzip member,
 * then one of 64 MiB of zeros, 32 times over). */
static void
make_bomb(const char *path, const void *prefix, size_t len)
{
	char *zeros = path_of("zeros"), *zgz = path_of("zeros.gz"), *pre = path_of("pre");
	char *pgz = path_of("pre.gz"), *part;
	struct stat st;
	size_t i, n;
	int fd, out;

	put_file(pre, prefix, len, 0644);
	RUN(dir, pgz, "gzip", "-c", pre);
	assert_true((fd = open(zeros, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0);
	assert_int_equal(ftruncate(fd, 64LL * 1024 * 1024), 0);
	close(fd);
	RUN(dir, zgz, "gzip", "-1", "-c", zeros);
	assert_true((out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0);
	for (i = 0; i <= 32; i++) {
		assert_int_equal(stat(i == 0 ? pgz : zgz, &st), 0);
		n = (size_t)st.st_size;
		part = xmalloc(n);
		assert_true((fd = open(i == 0 ? pgz : zgz, O_RDONLY)) >= 0);
		assert_int_equal(read(fd, part, n), (ssize_t)n);
		close(fd);
		assert_int_equal(write_all(out, part, n), 0);
		free(part);
	}
	close(out);
	unlink(zeros);
	free(zeros);
	free(zgz);
	free(pre);
	free(pgz);
}

/* A decompression bomb, read up to the bound, then cut and said so: a
 * tar member of 2 GiB of zeros, and a compressed package whose control
 * member is as big. */
static void
test_bomb(void **state)
{
	unsigned char h[512], ar[8 + 60 + 4 + 60 + 1];	/* and snprintf's NUL */
	char *bomb = path_of("bomb.tar.gz");
	struct wrequest q;
	struct wfile *f;
	const json_t *a;

	(void)state;
	tar_header(h, "zeros", '0', 0644, 2048ULL * 1024 * 1024);
	make_bomb(bomb, h, sizeof h);
	f = judged(&q, bomb, 0);
	assert_non_null(a = f->archive);
	assert_string_equal(json_str(a, "format"), "tar.gz");
	assert_int_equal(json_integer_value(json_object_get(a, "members")), 1);
	assert_false(json_is_true(json_object_get(a, "complete")));
	assert_non_null(strstr(json_str(a, "note"), "MiB decompressed"));
	assert_true(f->archive_unscanned);
	request_free(&q);
	free(bomb);
	/* ar: debian-binary, then control.tar.gz of 2 GiB */
	memcpy(ar, "!<arch>\n", 8);
	snprintf((char *)ar + 8, 61, "%-16s%-12s%-6s%-6s%-8s%-10s`\n", "debian-binary", "0", "0",
	    "0", "100644", "4");
	memcpy(ar + 68, "2.0\n", 4);
	snprintf((char *)ar + 72, 61, "%-16s%-12s%-6s%-6s%-8s%-10llu`\n", "control.tar.gz", "0",
	    "0", "0", "100644", 2048ULL * 1024 * 1024);
	bomb = path_of("bomb.deb.gz");
	make_bomb(bomb, ar, sizeof ar - 1);
	f = judged(&q, bomb, 0);
	assert_non_null(a = f->archive);
	assert_string_equal(json_str(a, "format"), "deb");
	assert_false(json_is_true(json_object_get(a, "complete")));
	assert_non_null(strstr(json_str(a, "note"), "MiB decompressed"));
	request_free(&q);
	free(bomb);
}

/* More members than are listed (a flagged one last still is), and more
 * than are read. */
static void
test_bounds(void **state)
{
	size_t n = ARCHIVE_LIST_MAX + 200, i, len;
	unsigned char *tar;
	struct wfile f;
	const json_t *a;
	char name[32];
	int64_t budget = ARCHIVE_BYTES_MAX;

	(void)state;
	len = (n + 2) * 512;
	tar = xcalloc(1, len);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "f%zu", i);
		tar_header(tar + i * 512, name, '0', i == n - 1 ? 04755 : 0644, 0);
	}
	memset(&f, 0, sizeof f);
	archive_scan(&f, tar, len, &budget);
	assert_non_null(a = f.archive);
	assert_int_equal(json_integer_value(json_object_get(a, "members")), n);
	assert_int_equal(json_array_size(json_object_get(a, "flagged")) +
	    json_array_size(json_object_get(a, "others")), ARCHIVE_LIST_MAX);
	assert_int_equal(json_integer_value(json_object_get(a, "unlisted")), n - ARCHIVE_LIST_MAX);
	assert_string_equal(json_str(json_array_get(json_object_get(a, "flagged"), 0), "path"),
	    "f1199");
	assert_true(json_is_true(json_object_get(a, "complete")));
	assert_true(budget < ARCHIVE_BYTES_MAX && budget > 0);
	json_decref(f.archive);
	free(tar);
	/* more members than are read */
	n = ARCHIVE_ENTRIES_MAX + 10;
	len = (n + 2) * 512;
	tar = xcalloc(1, len);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "f%zu", i);
		tar_header(tar + i * 512, name, '0', 0644, 0);
	}
	memset(&f, 0, sizeof f);
	budget = ARCHIVE_BYTES_MAX;
	archive_scan(&f, tar, len, &budget);
	assert_non_null(a = f.archive);
	assert_int_equal(json_integer_value(json_object_get(a, "members")), ARCHIVE_ENTRIES_MAX);
	assert_false(json_is_true(json_object_get(a, "complete")));
	assert_true(f.archive_unscanned);
	json_decref(f.archive);
	free(tar);
}

static void
collect(void *arg, int alert, const char *line)
{
	char *s;

	if (asprintf(&s, "%c%s\n", alert ? '!' : ' ', line) < 0)
		abort();
	json_array_append_new(arg, json_string(s));
	free(s);
}

/* The summary stored beside the blob, read back for the gate's files,
 * and said in words. */
static void
test_stored_and_said(void **state)
{
	struct wrequest q;
	struct wfile *f;
	json_t *files, *lines, *a;
	char *gz = path_of("p.tar"), *state_dir = path_of("state");
	struct refusal r;

	(void)state;
	assert_int_equal(mkdir(state_dir, 0700), 0);
	/* p.tar from test_paths: an absolute member, a ".." one (setuid) */
	f = judged(&q, gz, 0);
	assert_int_equal(blobs_store(&q, state_dir, &r), 0);
	files = json_pack("{s:{s:s,s:I}}", "x", "sha256", f->sha256, "size",
	    (json_int_t)f->size);
	blob_archives(state_dir, files);
	a = json_object_get(json_object_get(files, "x"), "archive");
	assert_non_null(a);
	assert_true(json_equal(json_object_get(a, "flagged"), json_object_get(f->archive,
	    "flagged")));
	lines = json_array();
	archive_lines(a, 0, collect, lines);
	assert_string_equal(json_string_value(json_array_get(lines, 0)),
	    "!archive (tar): 3 members, 16 bytes; 1 setuid, 1 absolute path, 1 path with ..\n");
	assert_int_equal(json_array_size(lines), 3);	/* the two flagged, not the other */
	assert_non_null(strstr(json_string_value(json_array_get(lines, 2)),
	    "[setuid dotdot] -rwsr-xr-x "));
	json_array_clear(lines);
	archive_lines(a, 1, collect, lines);
	assert_int_equal(json_array_size(lines), 4);
	assert_non_null(strstr(json_string_value(json_array_get(lines, 3)), " lrwxrwxrwx "));
	assert_non_null(strstr(json_string_value(json_array_get(lines, 3)), " bin/in -> ../plain"));
	json_decref(lines);
	/* a summary for other content is not taken */
	json_object_set_new(json_object_get(files, "x"), "sha256", json_string(
	    "0000000000000000000000000000000000000000000000000000000000000000"));
	json_object_del(json_object_get(files, "x"), "archive");
	blob_archives(state_dir, files);
	assert_null(json_object_get(json_object_get(files, "x"), "archive"));
	json_decref(files);
	/* gc: the summary stays while its blob does, and goes with it */
	{
		struct timespec old[2] = { { .tv_sec = 1000 }, { .tv_sec = 1000 } };
		char *blob = path_of("state/blobs/sha256/%s", f->sha256);
		char *sum = path_of("state/blobs/sha256/%s.archive", f->sha256);
		struct store st;
		json_t *rep;

		assert_int_equal(access(sum, F_OK), 0);
		assert_int_equal(utimensat(AT_FDCWD, sum, old, 0), 0);
		assert_int_equal(store_open_at(&st, state_dir), 0);
		assert_non_null(rep = blobs_collect(&st, 0, 0, 0));
		json_decref(rep);
		assert_int_equal(access(sum, F_OK), 0);		/* its blob is young */
		assert_int_equal(utimensat(AT_FDCWD, blob, old, 0), 0);
		assert_non_null(rep = blobs_collect(&st, 0, 0, 0));
		assert_int_equal(json_integer_value(json_object_get(rep, "removed")), 1);
		json_decref(rep);
		assert_int_equal(access(blob, F_OK), -1);
		assert_int_equal(access(sum, F_OK), -1);
		store_close(&st);
		free(blob);
		free(sum);
	}
	request_free(&q);
	free(gz);
	free(state_dir);
}

static int
rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(dir) == NULL)
		return -1;
	umask(022);
	make_tree();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tar_compressed),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_zip_deb),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_bomb),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_stored_and_said),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
