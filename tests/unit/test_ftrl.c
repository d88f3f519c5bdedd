/*
 * test_ftrl.c: unit tests of the online optimisers (ftrl.h): the closed-form
 * weight against a numerical minimiser of each method's objective after a
 * random sequence of gradients, one FTRL step worked by hand, sparsity
 * under l1, the warm start and the parameter checks.
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "algo/ftrl.h"

#define NSTEPS	40

/* A coordinate's history: the gradients and the weights before each step. */
struct history {
	double	g[NSTEPS], w[NSTEPS], sigma[NSTEPS];
	int	t;
};

/*
 * The objective the method minimises after the history (ftrl.h, invariants
 * 2 and 3), written out term by term rather than through z.
 */
static double
objective(const struct ps_ftrl *c, const struct history *h, double w)
{
	double v = 0, n = 0;
	int s;

	for (s = 0; s < h->t; s++) {
		v += h->g[s] * w;
		n += h->g[s] * h->g[s];
		if (c->opt == PS_OPT_FTRL)
			v += h->sigma[s] / 2 * (w - h->w[s]) * (w - h->w[s]);
	}
	if (c->opt == PS_OPT_FTRL)
		v += c->beta / (2 * c->alpha) * w * w;
	else
		v += (c->beta + sqrt(n)) / (2 * c->alpha) * w * w;
	return v + c->l1 * fabs(w) + c->l2 / 2 * w * w;
}

/* Minimise the convex objective by golden-section search on [-50, 50]. */
static double
argmin(const struct ps_ftrl *c, const struct history *h)
{
	const double r = (sqrt(5) - 1) / 2;
	double a = -50, b = 50, x1, x2;
	int i;

	for (i = 0; i < 200; i++) {
		x1 = b - r * (b - a);
		x2 = a + r * (b - a);
		if (objective(c, h, x1) < objective(c, h, x2))
			b = x2;
		else
			a = x1;
	}
	return (a + b) / 2;
}

/* Run NSTEPS random gradients through c, checking w after each. */
static void
check_sequence(struct ps_ftrl *c, unsigned seed)
{
	struct history h = { .t = 0 };
	double z = 0, n = 0, w = 0;
	int s;

	srand(seed);
	for (s = 0; s < NSTEPS; s++) {
		double g = (double)(rand() % 2001 - 1000) / 100.0;

		h.g[s] = g;
		h.w[s] = w;
		h.sigma[s] = (sqrt(n + g * g) - sqrt(n)) / c->alpha;
		h.t = s + 1;
		w = ps_ftrl_update(c, &z, &n, w, g);
		assert_true(fabs(w - argmin(c, &h)) < 1e-6 * (1 + fabs(w)));
		assert_true(w == ps_ftrl_weight(c, z, n));
	}
}

static void
test_ftrl_minimises(void **state)
{
	struct ps_ftrl c = { PS_OPT_FTRL, 0.5, 1, 0, 0 };

	check_sequence(&c, 1);
	c.l1 = 3;
	check_sequence(&c, 2);
	c.l2 = 0.7;
	check_sequence(&c, 3);
}

static void
test_adagrad_minimises(void **state)
{
	struct ps_ftrl c = { PS_OPT_ADAGRAD, 0.2, 1, 0, 0 };

	check_sequence(&c, 4);
	c.l1 = 5;
	c.l2 = 0.3;
	check_sequence(&c, 5);
}

/* alpha 0.5, beta 1, g = 2 from zero: n = 4, z = 2, w = -2 / 6. */
static void
test_ftrl_by_hand(void **state)
{
	struct ps_ftrl c = { PS_OPT_FTRL, 0.5, 1, 0, 0 };
	double z = 0, n = 0, w;

	w = ps_ftrl_update(&c, &z, &n, 0, 2);
	assert_true(n == 4 && z == 2);
	assert_true(fabs(w + 1.0 / 3) < 1e-15);
	/* Then g = 0: sigma = 0, nothing moves. */
	w = ps_ftrl_update(&c, &z, &n, w, 0);
	assert_true(fabs(w + 1.0 / 3) < 1e-15);
	/* With l1 = 2 the first step leaves the weight at exactly 0. */
	c.l1 = 2;
	z = n = 0;
	assert_true(ps_ftrl_update(&c, &z, &n, 0, 2) == 0);
	assert_true(ps_ftrl_weight(&c, 0, 0) == 0);
}

static void
test_warm_start(void **state)
{
	struct ps_ftrl c = { PS_OPT_FTRL, 0.1, 1, 2, 0.5 };
	const double ws[] = { 0, 1e-6, -3.25, 17 };
	size_t i;

	for (i = 0; i < sizeof ws / sizeof ws[0]; i++) {
		double w = ps_ftrl_weight(&c, ps_ftrl_warm_z(&c, ws[i]), 0);

		assert_true(fabs(w - ws[i]) < 1e-12 * (1 + fabs(ws[i])));
	}
}

static void
test_check(void **state)
{
	struct ps_ftrl good = { PS_OPT_FTRL, 0.1, 1, 1, 0 }, c;
	char err[128];

	assert_int_equal(ps_ftrl_check(&good, err, sizeof err), 0);
	c = good;
	c.alpha = 0;
	assert_int_equal(ps_ftrl_check(&c, err, sizeof err), -1);
	c = good;
	c.beta = 0;
	assert_int_equal(ps_ftrl_check(&c, err, sizeof err), -1);
	c = good;
	c.l1 = NAN;
	assert_int_equal(ps_ftrl_check(&c, err, sizeof err), -1);
	c = good;
	c.l2 = -1;
	assert_int_equal(ps_ftrl_check(&c, err, sizeof err), -1);
	c = good;
	c.opt = 7;
	assert_int_equal(ps_ftrl_check(&c, err, sizeof err), -1);
	assert_int_equal(ps_ftrl_parse("ftrl"), PS_OPT_FTRL);
	assert_int_equal(ps_ftrl_parse("adagrad"), PS_OPT_ADAGRAD);
	assert_int_equal(ps_ftrl_parse("sgd"), 0);
	assert_string_equal(ps_ftrl_name(PS_OPT_ADAGRAD), "adagrad");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ftrl_minimises),
		cmocka_unit_test(test_adagrad_minimises),
		cmocka_unit_test(test_ftrl_by_hand),
		cmocka_unit_test(test_warm_start),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
