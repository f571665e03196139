/* SPDX-License-Identifier: ISC */
/* The web page's devices in the store (src/store/devices.c): a pairing
 * token works once and only before its expiry; a revoked device's
 * session is no longer found. */
#include "store-fixture.h"

/* the fixture's gate helpers are not needed here */
static void __attribute__((unused))
fixture_unused(void)
{
	(void)gate_add;
	(void)assert_jsonl;
}

#define TOK1 "1111111111111111111111111111111111111111111111111111111111111111"
#define TOK2 "2222222222222222222222222222222222222222222222222222222222222222"
#define SES1 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SES2 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static void
test_single_use(void **state)
{
	struct store st;
	char id[32];

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	assert_int_equal(pair_token_add(&st, TOK1, now_seconds() + 60), 0);
	assert_int_equal(device_lookup(&st, SES1, id, sizeof id), 1);
	assert_int_equal(pair_redeem(&st, TOK1, "d-aaaaaaaaaa", "phone", SES1), 0);
	assert_int_equal(device_lookup(&st, SES1, id, sizeof id), 0);
	assert_string_equal(id, "d-aaaaaaaaaa");
	/* the same token again: refused, and no second device */
	assert_int_equal(pair_redeem(&st, TOK1, "d-bbbbbbbbbb", "phone", SES2), 1);
	assert_int_equal(device_lookup(&st, SES2, id, sizeof id), 1);
	/* a token never minted */
	assert_int_equal(pair_redeem(&st, TOK2, "d-cccccccccc", "phone", SES2), 1);
	store_close(&st);
}

static void
test_expired(void **state)
{
	struct store st;
	char id[32];

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	assert_int_equal(pair_token_add(&st, TOK1, now_seconds() - 1), 0);
	assert_int_equal(pair_redeem(&st, TOK1, "d-aaaaaaaaaa", "phone", SES1), 1);
	assert_int_equal(device_lookup(&st, SES1, id, sizeof id), 1);
	store_close(&st);
}

static void
test_revoke(void **state)
{
	struct store st;
	json_t *list;
	char id[32];

	(void)state;
	assert_int_equal(store_open_at(&st, dir), 0);
	assert_int_equal(pair_token_add(&st, TOK1, now_seconds() + 60), 0);
	assert_int_equal(pair_redeem(&st, TOK1, "d-aaaaaaaaaa", "phone", SES1), 0);
	assert_int_equal(device_revoke(&st, "d-aaaaaaaaaa"), 0);
	assert_int_equal(device_lookup(&st, SES1, id, sizeof id), 1);
	assert_int_equal(device_revoke(&st, "d-aaaaaaaaaa"), 1);
	assert_int_equal(device_revoke(&st, "d-zzzzzzzzzz"), 1);
	list = device_list(&st);
	assert_non_null(list);
	assert_int_equal(json_array_size(list), 1);
	assert_true(json_is_integer(json_object_get(json_array_get(list, 0), "revoked_at")));
	json_decref(list);
	store_close(&st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_single_use, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_expired, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_revoke, fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
