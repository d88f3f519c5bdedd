/*
 * test_filters.c: unit tests of the filter building blocks: binary16
 * conversion (every half value, rounding ties to even, overflow,
 * subnormals) and the key-list cache (signatures, budget, eviction,
 * forgetting).
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/half.h"
#include "wire/keycache.h"

/* Every non-NaN half converts to a float and back to itself. */
static void
test_half_round_trip(void **state)
{
	uint32_t h;

	(void)state;
	for (h = 0; h < 65536; h++) {
		float f = ps_half_to_float((uint16_t)h);

		if (isnan(f))
			continue;
		assert_int_equal(ps_half_from_float(f), h);
	}
}

static void
test_half_rounding(void **state)
{
	(void)state;
	assert_true(ps_half_to_float(0x3c00) == 1.0f);
	assert_true(ps_half_to_float(0x7bff) == 65504.0f);
	assert_true(ps_half_to_float(0x0001) == 0x1p-24f);
	/* 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties to even. */
	assert_int_equal(ps_half_from_float(1.0f + 0x1p-11f), 0x3c00);
	assert_int_equal(ps_half_from_float(1.0f + 3 * 0x1p-11f), 0x3c02);
	assert_int_equal(ps_half_from_float(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
	/* Overflow, infinities, NaN, signed zero, subnormal ties. */
	assert_int_equal(ps_half_from_float(65519.0f), 0x7bff);
	assert_int_equal(ps_half_from_float(65520.0f), 0x7c00);
	assert_int_equal(ps_half_from_float(-INFINITY), 0xfc00);
	assert_true(isnan(ps_half_to_float(ps_half_from_float(NAN))));
	assert_int_equal(ps_half_from_float(-0.0f), 0x8000);
	assert_int_equal(ps_half_from_float(0x1p-25f), 0x0000);
	assert_int_equal(ps_half_from_float(3 * 0x1p-25f), 0x0002);
	assert_int_equal(ps_half_from_float(0x1p-30f), 0x0000);
}

/* The relative error of a normal half is at most 2^-11. */
static void
test_half_error(void **state)
{
	float f;

	(void)state;
	for (f = 0x1p-14f; f < 60000; f *= 1.0009765f) {
		float g = ps_half_to_float(ps_half_from_float(f));

		assert_true(fabsf(g - f) <= f * 0x1p-11f);
	}
}

static void
test_keysig(void **state)
{
	uint64_t a[40], b[40];
	int i;

	(void)state;
	for (i = 0; i < 40; i++)
		a[i] = b[i] = 1000 + 7 * (uint64_t)i;
	assert_true(ps_keysig(a, 40) == ps_keysig(b, 40));
	b[39]++;		/* the last key counts */
	assert_true(ps_keysig(a, 40) != ps_keysig(b, 40));
	b[39]--;
	b[0]--;			/* so does the first */
	assert_true(ps_keysig(a, 40) != ps_keysig(b, 40));
	assert_true(ps_keysig(a, 40) != ps_keysig(a, 39));
}

/* Lists come back exactly, in any order and with keys of any size. */
static void
test_keycache_pack(void **state)
{
	struct ps_keycache kc;
	uint64_t keys[24], got[24];
	int i;

	(void)state;
	for (i = 0; i < 24; i++)
		keys[i] = (uint64_t)i * 0x0123456789abcdefULL;	/* wraps */
	keys[0] = UINT64_MAX;
	keys[1] = 0;
	keys[2] = 1;
	ps_keycache_init(&kc, 100, 1);
	ps_keycache_put(&kc, ps_keysig(keys, 24), keys, 24);
	assert_int_equal(ps_keycache_keys(ps_keycache_find(&kc,
	    ps_keysig(keys, 24), 24), got), 0);
	assert_memory_equal(got, keys, sizeof keys);
	ps_keycache_release(&kc);
}

static void
test_keycache_budget(void **state)
{
	struct ps_keycache kc;
	const struct ps_keycache_entry *e;
	uint64_t keys[3][20], got[20];
	int i, j;

	(void)state;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 20; j++)
			keys[i][j] = (uint64_t)(100 * i + j);
	ps_keycache_init(&kc, 45, 1);
	for (i = 0; i < 3; i++)
		ps_keycache_put(&kc, ps_keysig(keys[i], 20), keys[i], 20);
	/* 60 keys do not fit in 45: the oldest list went. */
	assert_null(ps_keycache_find(&kc, ps_keysig(keys[0], 20), 20));
	e = ps_keycache_find(&kc, ps_keysig(keys[2], 20), 20);
	assert_non_null(e);
	assert_int_equal(ps_keycache_keys(e, got), 0);
	assert_memory_equal(got, keys[2], sizeof keys[2]);
	/* The count is part of the lookup. */
	assert_null(ps_keycache_find(&kc, ps_keysig(keys[2], 20), 19));
	ps_keycache_forget(&kc, ps_keysig(keys[1], 20));
	assert_null(ps_keycache_find(&kc, ps_keysig(keys[1], 20), 20));
	assert_non_null(ps_keycache_find(&kc, ps_keysig(keys[2], 20), 20));
	assert_int_equal(kc.nkeys, 20);
	ps_keycache_release(&kc);

	ps_keycache_init(&kc, 0, 1);	/* keeps nothing */
	ps_keycache_put(&kc, ps_keysig(keys[0], 20), keys[0], 20);
	assert_null(ps_keycache_find(&kc, ps_keysig(keys[0], 20), 20));
	ps_keycache_release(&kc);
}

/* Many puts past the budget keep the ring buffer consistent. */
static void
test_keycache_churn(void **state)
{
	struct ps_keycache kc;
	uint64_t keys[16];
	uint64_t i, j;

	(void)state;
	ps_keycache_init(&kc, 16 * 100, 0);
	for (i = 0; i < 5000; i++) {
		for (j = 0; j < 16; j++)
			keys[j] = i * 16 + j;
		ps_keycache_put(&kc, ps_keysig(keys, 16), keys, 16);
		if (i % 7 == 0)
			ps_keycache_forget(&kc, ps_keysig(keys, 16));
	}
	assert_true(kc.nkeys <= 16 * 100);
	assert_int_equal(kc.nkeys, 16 * kc.count);
	for (j = 0; j < 16; j++)
		keys[j] = 4999 * 16 + j;
	assert_non_null(ps_keycache_find(&kc, ps_keysig(keys, 16), 16));
	ps_keycache_release(&kc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_half_round_trip),
		cmocka_unit_test(test_half_rounding),
		cmocka_unit_test(test_half_error),
		cmocka_unit_test(test_keysig),
		cmocka_unit_test(test_keycache_pack),
		cmocka_unit_test(test_keycache_budget),
		cmocka_unit_test(test_keycache_churn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
