/* SPDX-License-Identifier: ISC */
/*
 * The policy's "log_server" (logship_config, src/root/logship.c): the
 * address forms it takes (HOST:PORT, [IPV6]:PORT), plain TCP only to a
 * loopback address (log_server_needs_tls), TLS files (ca, cert, key) that
 * must be root's and unchangeable by anyone else, a key nobody else can
 * read, a CA only with this host's certificate (log_server_needs_cert),
 * and whatever else refused with ls cleared.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "warrant.h"

/* logship_config of the JSON text; the why in why. */
static int
config(const char *text, struct log_server *ls, char *why, size_t size)
{
	json_t *v = json_loads(text, 0, NULL);
	int rc;

	assert_non_null(v);
	why[0] = '\0';
	rc = logship_config(v, ls, why, size);
	json_decref(v);
	return rc;
}

static void
test_none(void **state)
{
	struct log_server ls;
	char why[256];

	(void)state;
	memset(&ls, 'x', sizeof ls);
	assert_int_equal(logship_config(NULL, &ls, why, sizeof why), 0);
	assert_string_equal(ls.host, "");
}

static void
test_loopback_plain(void **state)
{
	static const struct { const char *json, *host, *port; } good[] = {
		{ "{\"address\": \"127.0.0.1:30344\"}", "127.0.0.1", "30344" },
		{ "{\"address\": \"127.8.9.10:1\"}", "127.8.9.10", "1" },
		{ "{\"address\": \"[::1]:65535\"}", "::1", "65535" },
		{ "{\"address\": \"[::ffff:127.0.0.1]:30344\"}", "::ffff:127.0.0.1", "30344" },
	};
	struct log_server ls;
	char why[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		assert_int_equal(config(good[i].json, &ls, why, sizeof why), 0);
		assert_string_equal(ls.host, good[i].host);
		assert_string_equal(ls.port, good[i].port);
		assert_string_equal(ls.ca, "");
	}
}

/* Without a CA, no address off this host: a name included (what it
 * resolves to is not known here). */
static void
test_needs_tls(void **state)
{
	static const char *const bad[] = {
		"{\"address\": \"192.0.2.1:30344\"}",
		"{\"address\": \"logs.example.org:30344\"}",
		"{\"address\": \"localhost:30344\"}",
		"{\"address\": \"[2001:db8::1]:30344\"}",
		"{\"address\": \"0.0.0.0:30344\"}",
	};
	struct log_server ls;
	char why[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(config(bad[i], &ls, why, sizeof why), -1);
		assert_non_null(strstr(why, "log_server_needs_tls"));
		assert_string_equal(ls.host, "");
	}
}

static void
test_malformed(void **state)
{
	static const char *const bad[] = {
		"[]", "{}", "{\"address\": 1}", "{\"address\": \"127.0.0.1\"}",
		"{\"address\": \"127.0.0.1:\"}", "{\"address\": \"127.0.0.1:0\"}",
		"{\"address\": \"127.0.0.1:65536\"}", "{\"address\": \"127.0.0.1:030344\"}",
		"{\"address\": \"127.0.0.1:80x\"}", "{\"address\": \":80\"}",
		"{\"address\": \"-h:80\"}", "{\"address\": \"a b:80\"}",
		"{\"address\": \"[::1:80\"}", "{\"address\": \"[nothost]:80\"}",
		"{\"address\": \"::1:80\"}",
		"{\"address\": \"127.0.0.1:80\", \"port\": 80}",
		"{\"address\": \"127.0.0.1:80\", \"ca\": 1}",
		"{\"address\": \"127.0.0.1:80\", \"ca\": \"relative.pem\"}",
	};
	struct log_server ls;
	char why[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(config(bad[i], &ls, why, sizeof why), -1);
		assert_true(why[0] != '\0');
		assert_string_equal(ls.host, "");
	}
}

/* mkfile dir/name with mode, root's. */
static void
mkfile(const char *dir, const char *name, mode_t mode, char *path, size_t size)
{
	FILE *fp;

	snprintf(path, size, "%s/%s", dir, name);
	assert_non_null(fp = fopen(path, "w"));
	fclose(fp);
	assert_int_equal(chmod(path, mode), 0);
}

/* TLS: a CA and this host's certificate (its key in it, or apart), root's
 * files nobody else can change, a key nobody else can read; then any
 * address is fine. */
static void
test_tls(void **state)
{
	char dir[] = "/tmp/test-logship.XXXXXX", ca[64], cert[64], key[64], json[512], why[512];
	struct log_server ls;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	mkfile(dir, "ca.pem", 0644, ca, sizeof ca);
	mkfile(dir, "cert.pem", 0600, cert, sizeof cert);
	mkfile(dir, "key.pem", 0600, key, sizeof key);
	snprintf(json, sizeof json, "{\"address\": \"logs.example.org:30344\", \"ca\": \"%s\", "
	    "\"cert\": \"%s\"}", ca, cert);
	assert_int_equal(config(json, &ls, why, sizeof why), 0);
	assert_string_equal(ls.host, "logs.example.org");
	assert_string_equal(ls.ca, ca);
	assert_string_equal(ls.cert, cert);
	assert_string_equal(ls.key, "");
	/* the certificate's file holds the key: others may not read it */
	assert_int_equal(chmod(cert, 0644), 0);
	assert_int_equal(config(json, &ls, why, sizeof why), -1);
	assert_non_null(strstr(why, "private key"));
	/* ... unless the key is apart */
	snprintf(json, sizeof json, "{\"address\": \"[2001:db8::1]:30344\", \"ca\": \"%s\", "
	    "\"cert\": \"%s\", \"key\": \"%s\"}", ca, cert, key);
	assert_int_equal(config(json, &ls, why, sizeof why), 0);
	assert_string_equal(ls.key, key);
	assert_int_equal(chmod(key, 0640), 0);
	assert_int_equal(config(json, &ls, why, sizeof why), -1);
	assert_non_null(strstr(why, "private key"));
	assert_int_equal(chmod(key, 0600), 0);
	/* a CA others can write, or of another owner, or missing */
	assert_int_equal(chmod(ca, 0666), 0);
	assert_int_equal(config(json, &ls, why, sizeof why), -1);
	assert_non_null(strstr(why, "changed by others"));
	assert_string_equal(ls.host, "");
	assert_int_equal(chmod(ca, 0644), 0);
	assert_int_equal(chown(ca, 65534, 65534), 0);
	assert_int_equal(config(json, &ls, why, sizeof why), -1);
	assert_non_null(strstr(why, "root's"));
	unlink(ca);
	assert_int_equal(config(json, &ls, why, sizeof why), -1);
	/* a CA without a certificate of this host: sudo_sendlog would not use TLS */
	mkfile(dir, "ca.pem", 0644, ca, sizeof ca);
	snprintf(json, sizeof json, "{\"address\": \"127.0.0.1:30344\", \"ca\": \"%s\"}", ca);
	assert_int_equal(config(json, &ls, why, sizeof why), -1);
	assert_non_null(strstr(why, "log_server_needs_cert"));
	/* a certificate without a CA: refused, not quietly plain */
	snprintf(json, sizeof json, "{\"address\": \"127.0.0.1:30344\", \"cert\": \"%s\"}",
	    cert);
	assert_int_equal(config(json, &ls, why, sizeof why), -1);
	unlink(ca);
	unlink(cert);
	unlink(key);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_loopback_plain),
		cmocka_unit_test(test_needs_tls),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_tls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
