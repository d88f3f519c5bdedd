/*
 * test_hello.c: unit tests of the HELLO scalars (hello.h): what ps-worker
 * writes reads back the same, an old worker's six scalars mean dbpg, and
 * malformed algorithms and optimisers are refused with the reason.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/hello.h"

/* A HELLO as links.c writes it, for a job of alg with opt. */
static void
make_hello(struct ps_msg *m, int alg, const struct ps_ftrl *opt)
{
	memset(m, 0, sizeof *m);
	m->type = PS_MSG_HELLO;
	m->naux = 6;
	m->aux[1] = 1;
	m->aux[3] = 1;
	m->aux[5] = 1;
	ps_hello_set_job(m, alg, opt);
}

static void
test_round_trip(void **state)
{
	struct ps_ftrl opt = { PS_OPT_ADAGRAD, 0.5, 2, 3, 0.25 }, got;
	struct ps_msg m;
	char err[200];
	int alg;

	make_hello(&m, PS_ALG_SGD, &opt);
	assert_int_equal(m.naux, PS_HELLO_NAUX);
	assert_int_equal(ps_hello_job(&m, &alg, &got, err, sizeof err), 0);
	assert_int_equal(alg, PS_ALG_SGD);
	assert_int_equal(got.opt, opt.opt);
	assert_true(got.alpha == opt.alpha && got.beta == opt.beta &&
	    got.l1 == opt.l1 && got.l2 == opt.l2);
	make_hello(&m, PS_ALG_DBPG, &opt);
	assert_int_equal(ps_hello_job(&m, &alg, &got, err, sizeof err), 0);
	assert_int_equal(alg, PS_ALG_DBPG);
	assert_true(m.aux[PS_HELLO_OPTIMIZER] == 0 && got.opt == 0);
	m.naux = 6;		/* a worker from before the online path */
	assert_int_equal(ps_hello_job(&m, &alg, &got, err, sizeof err), 0);
	assert_int_equal(alg, PS_ALG_DBPG);
}

static void
test_refused(void **state)
{
	struct ps_ftrl opt = { PS_OPT_FTRL, 0.1, 1, 1, 0 }, got;
	struct ps_msg m;
	char err[200];
	int alg;

	make_hello(&m, PS_ALG_SGD, &opt);
	m.aux[PS_HELLO_ALGORITHM] = 2;
	assert_int_equal(ps_hello_job(&m, &alg, &got, err, sizeof err), -1);
	assert_string_equal(err, "unknown algorithm 2");
	make_hello(&m, PS_ALG_SGD, &opt);
	m.aux[PS_HELLO_OPTIMIZER] = 1.5;
	assert_int_equal(ps_hello_job(&m, &alg, &got, err, sizeof err), -1);
	assert_string_equal(err, "unknown optimizer 1.5");
	make_hello(&m, PS_ALG_SGD, &opt);
	m.aux[PS_HELLO_BETA] = 0;
	assert_int_equal(ps_hello_job(&m, &alg, &got, err, sizeof err), -1);
	assert_string_equal(err, "beta 0 is not a positive number");
	assert_int_equal(ps_algorithm_parse("sgd"), PS_ALG_SGD);
	assert_int_equal(ps_algorithm_parse("SGD"), -1);
	assert_string_equal(ps_algorithm_name(PS_ALG_DBPG), "dbpg");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
