/* SPDX-License-Identifier: ISC */
/*
 * The box password route's pure parts (src/web/boxsig.c): the signed
 * text against an HMAC-SHA256 computed here with OpenSSL's one-shot HMAC
 * over the text written out by hand, the window, every refusal code, the
 * path (which box user) and the body.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include "box/rules.c"
#include "web/boxsig.c"

static unsigned char key[BOXSIG_KEY_LEN];

static void
hexsig(const char *text, size_t len, char out[3 + 2 * BOXSIG_MAC_LEN + 1])
{
	unsigned char mac[BOXSIG_MAC_LEN];
	unsigned int n = 0;
	size_t i;

	assert_non_null(HMAC(EVP_sha256(), key, sizeof key, (const unsigned char *)text, len,
	    mac, &n));
	assert_int_equal(n, BOXSIG_MAC_LEN);
	memcpy(out, "v1=", 3);
	for (i = 0; i < BOXSIG_MAC_LEN; i++)
		snprintf(out + 3 + 2 * i, 3, "%02x", mac[i]);
}

static int
setup(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof key; i++)
		key[i] = (unsigned char)(i * 7 + 1);
	return 0;
}

#define BODY	"{\"password\":\"correct horse\"}"
#define PATH	"/box/wtbox1/set-password"

static void
test_canonical_text(void **state)
{
	const char text[] = "v1\n1700000000\nPOST\n" PATH "\n" BODY;
	unsigned char mac[BOXSIG_MAC_LEN], mine[BOXSIG_MAC_LEN];
	char sig[3 + 2 * BOXSIG_MAC_LEN + 1];
	unsigned int n;

	(void)state;
	hexsig(text, sizeof text - 1, sig);
	assert_null(boxsig_verify(key, "1700000000", sig, "POST", PATH, BODY, strlen(BODY),
	    1700000000, mac));
	/* the MAC handed back is the one of the text */
	HMAC(EVP_sha256(), key, sizeof key, (const unsigned char *)text, sizeof text - 1,
	    mine, &n);
	assert_memory_equal(mac, mine, BOXSIG_MAC_LEN);
	assert_int_equal(boxsig_mac(key, "1700000000", "POST", PATH, BODY, strlen(BODY),
	    mac), 0);
	assert_memory_equal(mac, mine, BOXSIG_MAC_LEN);
	/* upper-case hex is the same signature */
	for (n = 3; sig[n] != '\0'; n++)
		if (sig[n] >= 'a' && sig[n] <= 'f')
			sig[n] = (char)(sig[n] - 'a' + 'A');
	assert_null(boxsig_verify(key, "1700000000", sig, "POST", PATH, BODY, strlen(BODY),
	    1700000000, mac));
}

/* The signed text holds the request target exactly as sent: its
 * percent-escapes and its query, never a decoded or cut form of it. */
static void
test_target_as_sent(void **state)
{
	static const char raw[] = "/box/%77tbox1/set-password?via=platform";
	const char text[] = "v1\n1700000000\nPOST\n/box/%77tbox1/set-password?via=platform\n" BODY;
	unsigned char mac[BOXSIG_MAC_LEN];
	char sig[3 + 2 * BOXSIG_MAC_LEN + 1], longer[BOXAPI_TARGET_MAX + 2];

	(void)state;
	hexsig(text, sizeof text - 1, sig);
	assert_null(boxsig_verify(key, "1700000000", sig, "POST", raw, BODY, strlen(BODY),
	    1700000000, mac));
	assert_string_equal(boxsig_verify(key, "1700000000", sig, "POST", PATH, BODY,
	    strlen(BODY), 1700000000, mac), "bad_signature");
	assert_string_equal(boxsig_verify(key, "1700000000", sig, "POST",
	    "/box/%77tbox1/set-password", BODY, strlen(BODY), 1700000000, mac), "bad_signature");
	assert_string_equal(boxsig_verify(key, "1700000000", sig, "POST",
	    "/box/%77tbox1/set-password?via=platforM", BODY, strlen(BODY), 1700000000, mac),
	    "bad_signature");
	/* the longest target the route takes can be signed */
	memset(longer, 'a', sizeof longer);
	longer[0] = '/';
	longer[BOXAPI_TARGET_MAX] = '\0';
	assert_int_equal(boxsig_mac(key, "1700000000", "POST", longer, BODY, strlen(BODY),
	    mac), 0);
	/* the route's one answer to any unauthenticated request names no reason */
	assert_null(strstr(BOXAPI_UNAUTH_MSG, "unknown"));
	assert_non_null(strstr(BOXAPI_UNAUTH_MSG, "TARGET the request target exactly as sent"));
}

static void
test_window(void **state)
{
	const char text[] = "v1\n1700000000\nPOST\n" PATH "\n" BODY;
	unsigned char mac[BOXSIG_MAC_LEN];
	char sig[3 + 2 * BOXSIG_MAC_LEN + 1];

	(void)state;
	hexsig(text, sizeof text - 1, sig);
	assert_null(boxsig_verify(key, "1700000000", sig, "POST", PATH, BODY, strlen(BODY),
	    1700000000 + 300, mac));
	assert_null(boxsig_verify(key, "1700000000", sig, "POST", PATH, BODY, strlen(BODY),
	    1700000000 - 300, mac));
	assert_string_equal(boxsig_verify(key, "1700000000", sig, "POST", PATH, BODY,
	    strlen(BODY), 1700000000 + 301, mac), "stale_timestamp");
	assert_string_equal(boxsig_verify(key, "1700000000", sig, "POST", PATH, BODY,
	    strlen(BODY), 1700000000 - 301, mac), "stale_timestamp");
}

static void
test_refusals(void **state)
{
	const char text[] = "v1\n1700000000\nPOST\n" PATH "\n" BODY;
	unsigned char mac[BOXSIG_MAC_LEN], other[BOXSIG_KEY_LEN];
	char sig[3 + 2 * BOXSIG_MAC_LEN + 1], bad[sizeof sig];
	const time_t now = 1700000000;

	(void)state;
	hexsig(text, sizeof text - 1, sig);
	assert_string_equal(boxsig_verify(key, NULL, sig, "POST", PATH, BODY, strlen(BODY),
	    now, mac), "missing_signature");
	assert_string_equal(boxsig_verify(key, "1700000000", NULL, "POST", PATH, BODY,
	    strlen(BODY), now, mac), "missing_signature");
	assert_string_equal(boxsig_verify(key, "", sig, "POST", PATH, BODY, strlen(BODY),
	    now, mac), "bad_timestamp");
	assert_string_equal(boxsig_verify(key, "+1700000000", sig, "POST", PATH, BODY,
	    strlen(BODY), now, mac), "bad_timestamp");
	assert_string_equal(boxsig_verify(key, "1700000000 ", sig, "POST", PATH, BODY,
	    strlen(BODY), now, mac), "bad_timestamp");
	assert_string_equal(boxsig_verify(key, "1234567890123", sig, "POST", PATH, BODY,
	    strlen(BODY), now, mac), "bad_timestamp");
	/* another path, method, body, timestamp or key: the same signature fails */
	assert_string_equal(boxsig_verify(key, "1700000000", sig, "POST",
	    "/box/wtbox2/set-password", BODY, strlen(BODY), now, mac), "bad_signature");
	assert_string_equal(boxsig_verify(key, "1700000000", sig, "POST", "/box/set-password",
	    BODY, strlen(BODY), now, mac), "bad_signature");
	assert_string_equal(boxsig_verify(key, "1700000000", sig, "PUT", PATH, BODY,
	    strlen(BODY), now, mac), "bad_signature");
	assert_string_equal(boxsig_verify(key, "1700000000", sig, "POST", PATH,
	    "{\"password\":null}", 17, now, mac), "bad_signature");
	assert_string_equal(boxsig_verify(key, "1700000001", sig, "POST", PATH, BODY,
	    strlen(BODY), now, mac), "bad_signature");
	memcpy(other, key, sizeof other);
	other[0] ^= 1;
	assert_string_equal(boxsig_verify(other, "1700000000", sig, "POST", PATH, BODY,
	    strlen(BODY), now, mac), "bad_signature");
	/* the form: v1= and 64 hex digits, nothing else */
	memcpy(bad, sig, sizeof bad);
	bad[1] = '0';
	assert_string_equal(boxsig_verify(key, "1700000000", bad, "POST", PATH, BODY,
	    strlen(BODY), now, mac), "bad_signature");
	memcpy(bad, sig, sizeof bad);
	bad[10] = 'g';
	assert_string_equal(boxsig_verify(key, "1700000000", bad, "POST", PATH, BODY,
	    strlen(BODY), now, mac), "bad_signature");
	memcpy(bad, sig, sizeof bad);
	bad[sizeof bad - 2] = '\0';
	assert_string_equal(boxsig_verify(key, "1700000000", bad, "POST", PATH, BODY,
	    strlen(BODY), now, mac), "bad_signature");
	/* one bit off in the MAC */
	memcpy(bad, sig, sizeof bad);
	bad[3] = bad[3] == '0' ? '1' : '0';
	assert_string_equal(boxsig_verify(key, "1700000000", bad, "POST", PATH, BODY,
	    strlen(BODY), now, mac), "bad_signature");
	/* a body over the cap is never signed */
	{
		char *big = calloc(1, BOXAPI_BODY_MAX + 2);

		assert_non_null(big);
		memset(big, 'x', BOXAPI_BODY_MAX + 1);
		assert_int_equal(boxsig_mac(key, "1", "POST", PATH, big, BOXAPI_BODY_MAX + 1,
		    mac), -1);
		free(big);
	}
}

static void
test_path(void **state)
{
	char name[BOX_NAME_MAX + 1];

	(void)state;
	assert_int_equal(boxapi_parse_path("/box/set-password", name), 0);
	assert_string_equal(name, "");
	assert_int_equal(boxapi_parse_path("/box/wtbox1/set-password", name), 0);
	assert_string_equal(name, "wtbox1");
	assert_int_equal(boxapi_parse_path("/box/wtbox1/set-password/", name), -1);
	assert_int_equal(boxapi_parse_path("/box//set-password", name), -1);
	assert_int_equal(boxapi_parse_path("/box/../set-password", name), -1);
	assert_int_equal(boxapi_parse_path("/box/Root/set-password", name), -1);
	assert_int_equal(boxapi_parse_path("/box/a/b/set-password", name), -1);
	assert_int_equal(boxapi_parse_path("/box/wtbox1/passwd", name), -1);
	assert_int_equal(boxapi_parse_path("/api/gates", name), -1);
	assert_int_equal(boxapi_parse_path(
	    "/box/abcdefghijabcdefghijabcdefghijabc/set-password", name), -1);
}

static void
test_body(void **state)
{
	char pw[BOX_PW_BYTES + 2];
	size_t len;
	int clear;

	(void)state;
	assert_null(boxapi_parse_body(BODY, strlen(BODY), pw, sizeof pw, &len, &clear));
	assert_int_equal(clear, 0);
	assert_int_equal(len, 13);
	assert_string_equal(pw, "correct horse");
	assert_null(boxapi_parse_body("{\"password\":null}", 17, pw, sizeof pw, &len, &clear));
	assert_int_equal(clear, 1);
	assert_int_equal(len, 0);
#define REFUSED(b, code) assert_string_equal(boxapi_parse_body(b, strlen(b), pw, sizeof pw, \
	    &len, &clear), code)
	REFUSED("", "invalid_body");
	REFUSED("[]", "invalid_body");
	REFUSED("{}", "invalid_body");
	REFUSED("{\"password\":1}", "invalid_body");
	REFUSED("{\"password\":\"abcdefgh\",\"user\":\"x\"}", "invalid_body");
	REFUSED("{\"password\":\"abcdefgh\",\"password\":\"ijklmnop\"}", "invalid_body");
	REFUSED("{\"password\":\"short\"}", "bad_password");
	REFUSED("{\"password\":\"abcd\\nefgh\"}", "bad_password");
	/* jansson refuses a NUL in a string outright */
	REFUSED("{\"password\":\"abcd\\u0000efgh\"}", "invalid_body");
	REFUSED("{\"password\":\"abcdefghabcdefghabcdefghabcdefghabcdefghabcdefghabcdefghabcdefgh"
	    "abcdefghabcdefghabcdefghabcdefghabcdefghabcdefghabcdefghabcdefghX\"}", "bad_password");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical_text),
		cmocka_unit_test(test_target_as_sent),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_body),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
