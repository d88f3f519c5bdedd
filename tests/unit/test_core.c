/*
 * test_core.c: unit tests of the algorithm core: soft thresholding and the
 * trust-region proximal step, the key hash and key table, AUC and log
 * loss, the radix sort of feature ids and the arrays that grow by
 * remapping.
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "algo/logistic.h"
#include "algo/metrics.h"
#include "algo/prox.h"
#include "util/bigarray.h"
#include "util/keyhash.h"
#include "util/keytab.h"
#include "util/kmerge.h"
#include "util/stamp16.h"
#include "util/sparse.h"
#include "util/radix.h"
#include "util/xmalloc.h"

/* The KKT violation: the smallest subgradient's size, 0 at an optimum. */
static void
test_kkt_violation(void **state)
{
	(void)state;
	assert_true(ps_kkt_violation(0, 0.5, 1) == 0);	/* 0 is optimal */
	assert_true(ps_kkt_violation(0, -3, 1) == 2);
	assert_true(ps_kkt_violation(2, -1, 1) == 0);	/* g = -lambda */
	assert_true(ps_kkt_violation(2, 0.5, 1) == 1.5);
	assert_true(ps_kkt_violation(-2, 1.25, 1) == 0.25);
}

static void
test_soft_threshold(void **state)
{
	assert_true(ps_soft_threshold(3, 1) == 2);
	assert_true(ps_soft_threshold(-3, 1) == -2);
	assert_true(ps_soft_threshold(0.5, 1) == 0);
	assert_true(ps_soft_threshold(-1, 1) == 0);
}

/* The model the step minimises: g d + u/2 d^2 + lambda |w + d|. */
static double
prox_model(double w, double g, double u, double lambda, double d)
{
	return g * d + u / 2 * d * d + lambda * fabs(w + d);
}

/* Brute-force minimum of the model over |d| <= delta. */
static double
prox_brute_min(double w, double g, double u, double lambda, double delta)
{
	double best = INFINITY;
	int i;

	for (i = -200000; i <= 200000; i++) {
		double f = prox_model(w, g, u, lambda, delta * i / 200000.0);

		if (f < best)
			best = f;
	}
	return best;
}

/*
 * The step stays in the trust region, never raises the model, and keeps at
 * least 3/4 of the best decrease (the over-relaxation bound of prox.h).
 */
static void
test_prox_decreases_model(void **state)
{
	static const double cases[][5] = {	/* w, g, u, lambda, delta */
		{ 0, -3, 2, 1, 10 }, { 0, 0.5, 2, 1, 10 }, { 1, 4, 1, 1, 10 },
		{ -2, -1, 3, 0.5, 10 }, { 0.5, -10, 1, 1, 0.25 },
		{ 0, 5, 0.1, 1, 1 }, { 2, 0, 1, 3, 10 }, { 0.3, 0.1, 1, 0, 10 },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double w = cases[i][0], g = cases[i][1], u = cases[i][2];
		double lambda = cases[i][3], d0 = cases[i][4];
		float delta = (float)d0;
		float got = ps_prox_step((float)w, g, u, lambda, &delta);
		double d = (double)got - w;
		double f0 = prox_model(w, g, u, lambda, 0);
		double f = prox_model(w, g, u, lambda, d);
		double fmin = prox_brute_min(w, g, u, lambda, d0);

		assert_true(fabs(d) <= d0 + 1e-6);
		assert_true(f <= f0 + 1e-9);
		assert_true(f - fmin <= 0.25 * (f0 - fmin) + 1e-5);
		assert_true(delta >= d0 / 2);
	}
}

static void
test_prox_trust_rule(void **state)
{
	float delta = 1;
	float w = ps_prox_step(0, -100, 1, 1, &delta);

	assert_true(w == 1.0f);		/* clipped to the radius */
	assert_true(delta == 2);	/* max(2 |d|, delta / 2) */
	w = ps_prox_step(w, 0, 1, 0, &delta);
	assert_true(w == 1.0f);		/* no gradient, no penalty: stays */
	assert_true(delta == 1);	/* halves */
	assert_true(ps_prox_step(0.0f, 0, 0, 1, &delta) == 0.0f);
}

/*
 * A radius is held in 16 bits (prox.h, invariant 3): the rule's radii pack
 * and unpack to themselves, and another radius packs to one at most it and
 * within 2^-8 of it.
 */
static void
test_prox_trust_pack(void **state)
{
	double step;

	(void)state;
	assert_true(ps_trust_unpack(ps_trust_pack(1.0f)) == 1.0f);
	for (step = 1e-7; step < 1e4; step *= 1.37) {
		float t = ps_trust_after(step, 0), x = (float)(step * 3.1);
		float r = ps_trust_unpack(ps_trust_pack(x));

		assert_true(ps_trust_unpack(ps_trust_pack(t)) == t);
		assert_true(t <= (float)fmax(2 * step, 1e-4));
		assert_true(t >= (float)fmax(2 * step, 1e-4) * (1 - 1.0 / 256));
		assert_true(r <= x && r >= x * (1 - 1.0 / 256));
	}
}

/*
 * Momentum (prox.h, invariant 4): no extrapolation for the first two steps
 * or after a restart; b = (n - 1)/(n + 2) up to the cap; a restart when the
 * gradient and the move agree in sign or x is 0; never across 0.
 */
static void
test_prox_momentum(void **state)
{
	uint8_t n = 0;
	float y;

	(void)state;
	/* Moving up (x from 1 to 2) with a negative gradient: no restart. */
	assert_true(ps_prox_momentum(2, 1, -1, &n, 0.8) == 2.0f && n == 1);
	y = ps_prox_momentum(2, 1, -1, &n, 0.8);	/* n = 2: b = 1/4 */
	assert_int_equal(n, 2);
	assert_true(fabsf(y - 2.25f) < 1e-6f);
	n = 20;						/* b capped at 0.5 */
	y = ps_prox_momentum(2, 1, -1, &n, 0.5);
	assert_true(fabsf(y - 2.5f) < 1e-6f);
	/* The streak stops at PS_STREAK_MAX (a server keeps it in 5 bits),
	 * where b is 30/33. */
	n = PS_STREAK_MAX;
	y = ps_prox_momentum(2, 1, -1, &n, 0.99);
	assert_int_equal(n, PS_STREAK_MAX);
	assert_true(fabsf(y - (2 + 30.0f / 33)) < 1e-6f);
	/* The gradient turned (it pushes the same way x moved): restart. */
	assert_true(ps_prox_momentum(2, 1, 1, &n, 0.8) == 2.0f && n == 0);
	/* x at 0 stays there and restarts. */
	n = 9;
	assert_true(ps_prox_momentum(0, 1, 1e-3, &n, 0.8) == 0.0f && n == 0);
	/* x falls from 1 to 0.1: 0.1 - 0.8 * 0.9 would cross 0, so 0. */
	n = 50;
	assert_true(ps_prox_momentum(0.1f, 1, 1, &n, 0.8) == 0.0f);
	/* The same fall with the gradient now calling for a rise: restart. */
	n = 50;
	assert_true(ps_prox_momentum(0.1f, 1, -1, &n, 0.8) == 0.1f && n == 0);
}

static void
test_keyhash_bijection(void **state)
{
	uint64_t x = 1;
	int i;

	for (i = 0; i < 100000; i++) {
		assert_true(ps_key_unmix(ps_key_mix(x)) == x);
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	}
	assert_true(ps_key_mix(1) != ps_key_mix(2));
}

/* kmerge walks the union of ascending lists once, lowest key first. */
static void
test_kmerge(void **state)
{
	static const uint64_t a[] = { 1, 4, 9, 10 }, c[] = { 0, 4, 10, 12 };
	static const uint64_t want[] = { 0, 1, 4, 9, 10, 12 };
	static const size_t holders[] = { 1, 1, 2, 1, 2, 1 };
	struct ps_kmerge m;
	size_t n, i = 0, j;

	(void)state;
	ps_kmerge_init(&m, 3);
	ps_kmerge_list(&m, 0, a, 4);
	ps_kmerge_list(&m, 1, NULL, 0);	/* an empty list */
	ps_kmerge_list(&m, 2, c, 4);
	while ((n = ps_kmerge_next(&m)) > 0) {
		assert_true(i < 6);
		assert_int_equal(n, holders[i]);
		for (j = 0; j < n; j++) {
			const uint64_t *l = m.which[j] == 0 ? a : c;

			assert_true(j == 0 || m.which[j] > m.which[j - 1]);
			assert_true(l[m.at[m.which[j]]] == want[i]);
		}
		i++;
	}
	assert_int_equal(i, 6);
	assert_int_equal(ps_kmerge_next(&m), 0);	/* stays at the end */
	ps_kmerge_release(&m);
}

/*
 * A list given as slots of a key table merges by the slots' keys, whatever
 * order the slots were made in, beside a list given as keys.
 */
static void
test_kmerge_slots(void **state)
{
	static const uint64_t ins[] = { 10, 4, 12, 1 }, a[] = { 4, 9, 10 };
	static const uint64_t want[] = { 1, 4, 9, 10, 12 };
	static const size_t holders[] = { 1, 2, 1, 2, 1 };
	struct ps_keytab kt;
	struct ps_kmerge m;
	uint32_t slots[4];
	size_t n, i = 0, k;
	int created;

	(void)state;
	ps_keytab_init(&kt);
	for (k = 0; k < 4; k++)		/* slots 0..3 hold 10, 4, 12, 1 */
		(void)ps_keytab_insert(&kt, ins[k], &created);
	slots[0] = 3, slots[1] = 1, slots[2] = 0, slots[3] = 2;
	ps_kmerge_init(&m, 2);
	ps_kmerge_slots(&m, 0, slots, 4, &kt);
	ps_kmerge_list(&m, 1, a, 3);
	while ((n = ps_kmerge_next(&m)) > 0) {
		uint32_t w = m.which[0];
		uint64_t key = w == 0 ? ps_keytab_key(&kt, slots[m.at[0]]) :
		    a[m.at[1]];

		assert_true(i < 5);
		assert_int_equal(n, holders[i]);
		assert_true(key == want[i]);
		if (n == 2)
			assert_true(a[m.at[1]] == want[i]);
		i++;
	}
	assert_int_equal(i, 5);
	ps_kmerge_release(&m);
	ps_keytab_release(&kt);
}

/* stamp16 reads back every stamp within PS_STAMP16_KEEP of the newest. */
static void
test_stamp16(void **state)
{
	uint16_t v[4] = { 0 };
	struct ps_stamp16 s;

	(void)state;
	ps_stamp16_init(&s, v);
	ps_stamp16_set(&s, 0, 1, 4);
	ps_stamp16_set(&s, 1, 40000, 4);
	ps_stamp16_set(&s, 2, 65535, 4);	/* the last to fit the base */
	assert_true(ps_stamp16_get(&s, 0) == 1 && s.base == 1);
	assert_true(ps_stamp16_get(&s, 2) == 65535);
	assert_true(ps_stamp16_get(&s, 3) == 0);	/* none */
	ps_stamp16_set(&s, 2, 70000, 4);	/* moves the base */
	assert_true(ps_stamp16_get(&s, 0) == 0);	/* too old: none */
	assert_true(ps_stamp16_get(&s, 1) == 40000);
	assert_true(ps_stamp16_get(&s, 2) == 70000);
	ps_stamp16_set(&s, 3, 5, 4);		/* too old to hold */
	assert_true(ps_stamp16_get(&s, 3) == 0);
	ps_stamp16_set(&s, 0, 70000 - PS_STAMP16_KEEP, 4);
	assert_true(ps_stamp16_get(&s, 0) == 70000 - PS_STAMP16_KEEP);
	ps_stamp16_set(&s, 3, 200000, 4);
	assert_true(ps_stamp16_get(&s, 0) == 0 && ps_stamp16_get(&s, 1) == 0);
	assert_true(ps_stamp16_get(&s, 2) == 0);
	assert_true(ps_stamp16_get(&s, 3) == 200000);
	ps_stamp16_set(&s, 1, 200000 - PS_STAMP16_KEEP, 4);
	assert_true(ps_stamp16_get(&s, 1) == 200000 - PS_STAMP16_KEEP);
	ps_stamp16_set(&s, 1, 0, 4);
	assert_true(ps_stamp16_get(&s, 1) == 0);
}

static void
test_keytab(void **state)
{
	struct ps_keytab t;
	uint64_t k;
	int created;

	ps_keytab_init(&t);
	for (k = 1; k <= 100000; k++) {
		assert_int_equal(ps_keytab_insert(&t, k * 7919, &created), k - 1);
		assert_true(created);
		/* At most 15/16 full, and from the first growth at least 3/4
		 * (grown by a quarter). */
		assert_true(16 * ps_keytab_count(&t) <= 15 * t.nbuckets);
		if (k >= 1000)
			assert_true(3 * t.nbuckets <= 4 * ps_keytab_count(&t) + 4);
	}
	assert_int_equal(ps_keytab_count(&t), 100000);
	for (k = 1; k <= 100000; k++) {
		assert_int_equal(ps_keytab_find(&t, k * 7919), (long)(k - 1));
		assert_int_equal(ps_keytab_insert(&t, k * 7919, &created), k - 1);
		assert_false(created);
		assert_true(ps_keytab_key(&t, k - 1) == k * 7919);
	}
	assert_int_equal(ps_keytab_find(&t, 3), -1);
	ps_keytab_release(&t);
}

/*
 * Keys stay 4 bytes until one does not fit: then every key is kept in 8,
 * and the table finds old and new ones alike.
 */
static void
test_keytab_widen(void **state)
{
	struct ps_keytab t;
	uint64_t k, big = UINT64_C(1) << 40;
	int created;

	ps_keytab_init(&t);
	for (k = 1; k <= 3000; k++)
		ps_keytab_insert(&t, k * 3, &created);
	assert_non_null(t.bykey32);
	assert_null(t.bykey);
	assert_int_equal(ps_keytab_find(&t, big + 3), -1);
	assert_int_equal(ps_keytab_insert(&t, big + 3, &created), 3000);
	assert_true(created);
	assert_null(t.bykey32);
	assert_non_null(t.bykey);
	for (k = 3001; k <= 6000; k++)
		ps_keytab_insert(&t, k % 2 ? big + k : k * 3, &created);
	assert_int_equal(ps_keytab_count(&t), 6001);
	for (k = 1; k <= 3000; k++)
		assert_int_equal(ps_keytab_find(&t, k * 3), (long)(k - 1));
	assert_true(ps_keytab_key(&t, 3000) == big + 3);
	for (k = 3001; k <= 6000; k++)
		assert_true(ps_keytab_key(&t, k) == (k % 2 ? big + k : k * 3));
	assert_int_equal(ps_keytab_find(&t, 3), 0);
	ps_keytab_release(&t);
}

/*
 * insert_many gives the slots a loop of inserts would: old keys, new ones
 * (the table grows during the call), and a key twice in one list.
 */
static void
test_keytab_insert_many(void **state)
{
	struct ps_keytab t, u;
	uint64_t keys[5000];
	uint32_t slots[5000];
	size_t k;
	int created;

	ps_keytab_init(&t);
	ps_keytab_init(&u);
	for (k = 0; k < 300; k++) {
		ps_keytab_insert(&t, k * 31 + 5, &created);
		ps_keytab_insert(&u, k * 31 + 5, &created);
	}
	for (k = 0; k < 5000; k++)
		keys[k] = (k % 7 == 0 ? k / 7 : k * 104729) * 31 + 5;
	keys[4999] = keys[10];
	ps_keytab_insert_many(&t, keys, 5000, slots);
	for (k = 0; k < 5000; k++)
		assert_int_equal(slots[k], ps_keytab_insert(&u, keys[k],
		    &created));
	assert_int_equal(ps_keytab_count(&t), ps_keytab_count(&u));
	for (k = 0; k < ps_keytab_count(&t); k++)
		assert_true(ps_keytab_key(&t, k) == ps_keytab_key(&u, k));
	ps_keytab_insert_many(&t, keys, 0, slots);
	assert_int_equal(ps_keytab_count(&t), ps_keytab_count(&u));
	ps_keytab_release(&t);
	ps_keytab_release(&u);
}

/*
 * A list of new keys into an empty table rebuilds it once, to a load of
 * 3/4 (what growth a quarter at a time reaches after a rebuild), not
 * more: the buckets a key costs stay as keytab.h says.
 */
static void
test_keytab_insert_many_reserves(void **state)
{
	enum { N = 100000 };
	struct ps_keytab t;
	uint64_t *keys = xcalloc(N, sizeof *keys);
	uint32_t *slots = xcalloc(N, sizeof *slots);
	size_t k;

	(void)state;
	for (k = 0; k < N; k++)
		keys[k] = k * 2654435761u;
	ps_keytab_init(&t);
	ps_keytab_insert_many(&t, keys, N, slots);
	assert_int_equal(ps_keytab_count(&t), N);
	assert_int_equal(t.nbuckets, N + N / 3);
	for (k = 0; k < N; k++) {
		assert_int_equal(slots[k], k);
		assert_int_equal(ps_keytab_find(&t, keys[k]), (long)k);
	}
	ps_keytab_insert_many(&t, keys, N, slots);	/* all there: no growth */
	assert_int_equal(t.nbuckets, N + N / 3);
	ps_keytab_release(&t);
	free(keys);
	free(slots);
}

static void
test_auc(void **state)
{
	const double m[] = { 0.1, 0.4, 0.35, 0.8 };
	const int8_t y[] = { -1, -1, 1, 1 };
	const double tie[] = { 1, 1, 1, 1 };
	const int8_t one[] = { 1, 1, 1, 1 };

	assert_true(fabs(ps_auc(m, y, 4) - 0.75) < 1e-12);
	assert_true(fabs(ps_auc(tie, y, 4) - 0.5) < 1e-12);
	assert_true(isnan(ps_auc(m, one, 4)));
}

static void
test_logistic(void **state)
{
	const double z[] = { -800, -3, 0, 2.5, 800 };
	size_t i;

	for (i = 0; i < 5; i++) {
		double l = ps_logistic_loss(z[i]);

		assert_true(isfinite(l) && l >= 0);
		if (fabs(z[i]) < 30)
			assert_true(fabs(l - log(1 + exp(-z[i]))) < 1e-12);
	}
	assert_true(fabs(ps_logistic_loss(0) - log(2)) < 1e-15);
	/* The cheap curvature bound is above the exact one, and 1/4 at most. */
	{
		double m, r;

		for (m = 0; m < 20; m += 0.37)
			for (r = 0; r < 3; r += 0.11) {
				double a = m - r, ex = exp(-a), exact;
				double got = ps_logistic_curv_bound_e(exp(-m), r);

				exact = a <= 0 ? 0.25 : ex / ((1 + ex) * (1 + ex));
				assert_true(got >= exact * (1 - 1e-12));
				assert_true(got <= 0.25);
			}
	}
	{
		const double m[] = { 0 };
		const int8_t y[] = { 1 };

		assert_true(fabs(ps_logloss(m, y, 1) - log(2)) < 1e-15);
	}
}

/* The radix sort agrees with a simple check: ascending, values carried. */
static void
radix_check(uint64_t *keys, size_t n)
{
	uint64_t *orig = malloc((n + 1) * sizeof *orig);
	uint32_t *vals = malloc((n + 1) * sizeof *vals);
	size_t i;

	for (i = 0; i < n; i++) {
		orig[i] = keys[i];
		vals[i] = (uint32_t)i;
	}
	ps_radix_sort(keys, vals, n);
	for (i = 0; i < n; i++) {
		assert_true(keys[i] == orig[vals[i]]);
		if (i > 0) {
			assert_true(keys[i - 1] <= keys[i]);
			/* Stable: equal keys keep their order. */
			if (keys[i - 1] == keys[i])
				assert_true(vals[i - 1] < vals[i]);
		}
	}
	free(orig);
	free(vals);
}

static void
test_radix_sort(void **state)
{
	uint64_t one[1] = { 7 }, same[4] = { 5, 5, 5, 5 };
	uint64_t high[4] = { 3ULL << 56, 1ULL << 56, 2ULL << 56, 1 };
	uint64_t *many = malloc(100000 * sizeof *many), x = 88172645463325252ULL;
	size_t i;

	radix_check(one, 0);
	radix_check(one, 1);
	radix_check(same, 4);
	radix_check(high, 4);
	assert_true(high[0] == 1 && high[3] == 3ULL << 56);
	for (i = 0; i < 100000; i++) {		/* xorshift64 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		many[i] = i % 3 == 0 ? x % 1000 : x;	/* with repeats */
	}
	radix_check(many, 100000);
	ps_radix_sort(many, NULL, 100000);
	for (i = 1; i < 100000; i++)
		assert_true(many[i - 1] <= many[i]);
	free(many);
}

/*
 * bigarray: growing keeps the entries, new ones are zero, shrinking to
 * the same pages keeps the array where it is.
 */
static void
test_bigarray(void **state)
{
	uint32_t *a = ps_bigarray_resize(NULL, 0, 10, sizeof *a), *b;
	size_t k, n = 300000;

	(void)state;
	for (k = 0; k < 10; k++)
		assert_int_equal(a[k], 0);
	for (k = 0; k < 10; k++)
		a[k] = (uint32_t)k + 1;
	b = ps_bigarray_resize(a, 10, 11, sizeof *a);
	assert_ptr_equal(a, b);		/* the same page */
	a = ps_bigarray_resize(b, 11, n, sizeof *a);
	for (k = 0; k < 10; k++)
		assert_int_equal(a[k], k + 1);
	for (k = 10; k < n; k++)
		assert_int_equal(a[k], 0);
	a[n - 1] = 7;
	a = ps_bigarray_resize(a, n, 2 * n, sizeof *a);
	assert_int_equal(a[n - 1], 7);
	assert_int_equal(a[2 * n - 1], 0);
	ps_bigarray_free(a, 2 * n, sizeof *a);
	ps_bigarray_free(NULL, 0, sizeof *a);
}

/*
 * sparse: a random mix of sets, zeros among them, against a dense copy
 * (a third of the slots held: they move to the array); -0 is held apart
 * from +0, a slot far past the array goes to the table, and clearing
 * drops every value.
 */
static void
test_sparse(void **state)
{
	enum { N = 5000 };
	static float dense[N];
	struct ps_sparse m;
	uint64_t x = 88172645463325252ULL;
	size_t k, held;
	float v;

	(void)state;
	ps_sparse_init(&m);
	assert_true(ps_sparse_get(&m, 3) == 0);
	ps_sparse_set(&m, 3, 0.0f);
	assert_int_equal(ps_sparse_count(&m), 0);
	for (k = 0; k < 200000; k++) {
		uint32_t s;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		s = (uint32_t)(x % (k < 100000 ? N : N / 10));
		v = (x >> 40) % 3 == 0 ? (float)((x >> 20) % 1000) - 500 : 0;
		ps_sparse_set(&m, s, v);
		dense[s] = v;
		if (k % 1000 == 0) {
			for (s = 0, held = 0; s < N; s++) {
				assert_true(ps_sparse_get(&m, s) == dense[s]);
				held += dense[s] != 0;
			}
			assert_int_equal(ps_sparse_count(&m), held);
		}
	}
	assert_non_null(m.dense);
	assert_true(m.ndense >= N / 10);
	ps_sparse_set(&m, 7, -0.0f);
	v = ps_sparse_get(&m, 7);
	assert_true(v == 0 && signbit(v));
	ps_sparse_set(&m, 7, 0.0f);
	v = ps_sparse_get(&m, 7);
	assert_true(v == 0 && !signbit(v));
	ps_sparse_set(&m, UINT32_MAX - 1, 2.5f);
	assert_true(ps_sparse_get(&m, UINT32_MAX - 1) == 2.5f);
	assert_true(m.ndense < N * 2);
	held = ps_sparse_count(&m);
	ps_sparse_set(&m, UINT32_MAX - 1, -1.5f);
	assert_int_equal(ps_sparse_count(&m), held);
	ps_sparse_clear(&m);
	assert_int_equal(ps_sparse_count(&m), 0);
	assert_true(ps_sparse_get(&m, UINT32_MAX - 1) == 0);
	ps_sparse_release(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_threshold),
		cmocka_unit_test(test_kkt_violation),
		cmocka_unit_test(test_prox_decreases_model),
		cmocka_unit_test(test_prox_trust_rule),
		cmocka_unit_test(test_prox_trust_pack),
		cmocka_unit_test(test_prox_momentum),
		cmocka_unit_test(test_keyhash_bijection),
		cmocka_unit_test(test_kmerge),
		cmocka_unit_test(test_kmerge_slots),
		cmocka_unit_test(test_stamp16),
		cmocka_unit_test(test_keytab),
		cmocka_unit_test(test_keytab_widen),
		cmocka_unit_test(test_keytab_insert_many),
		cmocka_unit_test(test_keytab_insert_many_reserves),
		cmocka_unit_test(test_auc),
		cmocka_unit_test(test_logistic),
		cmocka_unit_test(test_radix_sort),
		cmocka_unit_test(test_bigarray),
		cmocka_unit_test(test_sparse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
