/* SPDX-License-Identifier: ISC */
/* Canonical JSON vectors: each tests/vectors/NAME.json must dump to the
 * hand-written NAME.canon byte for byte, and hash to NAME.sha256, which
 * was computed with sha256sum(1), not with this code. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "warrant.h"

static char *
slurp(const char *name, const char *ext, size_t *len)
{
	char path[PATH_MAX];
	char *buf = NULL;
	FILE *fp;
	long n;

	snprintf(path, sizeof path, "%s/%s.%s", VECTORS_DIR, name, ext);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	rewind(fp);
	buf = xmalloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

static void
vector(const char *name)
{
	size_t inlen, canonlen, shalen, outlen;
	char *in = slurp(name, "json", &inlen);
	char *canon = slurp(name, "canon", &canonlen);
	char *sha = slurp(name, "sha256", &shalen);
	char hex[SHA256_HEX_LEN + 1], *out;
	json_t *j;

	j = json_loadb(in, inlen, JSON_REJECT_DUPLICATES, NULL);
	assert_non_null(j);
	out = canon_dump(j, &outlen);
	assert_non_null(out);
	assert_int_equal(outlen, canonlen);
	assert_memory_equal(out, canon, canonlen);
	sha256_bytes(out, outlen, hex);
	assert_true(shalen >= SHA256_HEX_LEN);
	assert_memory_equal(hex, sha, SHA256_HEX_LEN);
	free(out);
	json_decref(j);
	free(in);
	free(canon);
	free(sha);
}

static void test_key_order(void **s) { (void)s; vector("key-order"); }
static void test_unicode(void **s) { (void)s; vector("unicode"); }
static void test_escapes(void **s) { (void)s; vector("escapes"); }
static void test_nulls(void **s) { (void)s; vector("nulls"); }
static void test_manifest(void **s) { (void)s; vector("manifest"); }

static void
test_real_refused(void **state)
{
	json_t *j = json_loads("{\"a\":[1,{\"b\":1.5}]}", 0, NULL);

	(void)state;
	assert_non_null(j);
	assert_null(canon_dump(j, NULL));
	json_decref(j);
}

/* The runner's reading of a manifest: canonical bytes of a good shape. */
static void
test_manifest_parse(void **state)
{
	size_t len, jlen;
	char *canon = slurp("manifest", "canon", &len), *pretty = slurp("manifest", "json", &jlen);
	char why[256], *bytes;
	json_t *m;

	(void)state;
	m = manifest_parse(canon, len, why, sizeof why);
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "request_id")), "w-abcdefghij");
	json_decref(m);
	/* the same manifest, not byte for byte canonical */
	assert_null(manifest_parse(pretty, jlen, why, sizeof why));
	assert_string_equal(why, "the manifest is not canonical JSON");
	assert_null(manifest_parse(canon, len - 1, why, sizeof why));
	bytes = xmalloc(len + 2);
	memcpy(bytes, canon, len);
	memcpy(bytes + len, "\n", 2);
	assert_null(manifest_parse(bytes, len + 1, why, sizeof why));
	assert_string_equal(why, "the manifest is not canonical JSON");
	/* bytes after a NUL are bytes of the file all the same */
	bytes[len] = '\0';
	assert_null(manifest_parse(bytes, len + 2, why, sizeof why));
	assert_string_equal(why, "the manifest is not canonical JSON");
	free(bytes);
	assert_null(manifest_parse("{\"a\":1,\"a\":1}", 13, why, sizeof why));
	assert_string_equal(why, "the manifest is not canonical JSON");
	/* canonical, but no manifest */
	assert_null(manifest_parse("{\"a\":1}", 7, why, sizeof why));
	assert_string_equal(why, "the manifest has an unknown member");
	free(canon);
	free(pretty);
}

static void
test_digest_equal(void **state)
{
	const char *a = "e7294c9f102991f7bd26f0986f89d97e5a567849ab01d097b6d1192b2d8082bf";
	const char *b = "e7294c9f102991f7bd26f0986f89d97e5a567849ab01d097b6d1192b2d8082be";

	(void)state;
	assert_true(digest_equal(a, a));
	assert_false(digest_equal(a, b));
	assert_false(digest_equal(a, "e7294c9f"));
	assert_false(digest_equal("", ""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_order),
		cmocka_unit_test(test_unicode),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_nulls),
		cmocka_unit_test(test_manifest),
		cmocka_unit_test(test_real_refused),
		cmocka_unit_test(test_manifest_parse),
		cmocka_unit_test(test_digest_equal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
