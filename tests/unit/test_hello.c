/*
 * test_hello.c: unit tests of the HELLO codec (hello.h): what ps-worker
 * encodes decodes the same, an old worker's six scalars mean dbpg, and
 * malformed counts, algorithms, optimisers and silence limits are refused
 * with the reason; a HELLO_OK's scalars come back as sent, and an old
 * server's two say a worker new to the job.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/hello.h"

/* Scalar positions the tests break on purpose (hello.h). */
#define AUX_NWORKERS	1
#define AUX_ALGORITHM	7
#define AUX_OPTIMIZER	8
#define AUX_BETA	10
#define AUX_SILENCE	15

/* A HELLO as links.c writes it, for a job of alg with opt. */
static void
make_hello(struct ps_msg *m, int alg, const struct ps_ftrl *opt)
{
	struct ps_hello h;

	memset(&h, 0, sizeof h);
	h.nworkers = 1;
	h.nservers = 1;
	h.lambda = 1;
	h.algorithm = alg;
	h.opt = *opt;
	memset(m, 0, sizeof *m);
	m->type = PS_MSG_HELLO;
	ps_hello_encode(&h, m);
}

static void
test_round_trip(void **state)
{
	struct ps_ftrl opt = { PS_OPT_ADAGRAD, 0.5, 2, 3, 0.25 };
	struct ps_hello got;
	struct ps_msg m;
	char err[200];

	make_hello(&m, PS_ALG_SGD, &opt);
	assert_int_equal(m.naux, PS_HELLO_NAUX_MAX);
	assert_int_equal(ps_hello_decode(&m, &got, err, sizeof err), 0);
	assert_int_equal(got.algorithm, PS_ALG_SGD);
	assert_int_equal(got.opt.opt, opt.opt);
	assert_true(got.opt.alpha == opt.alpha && got.opt.beta == opt.beta &&
	    got.opt.l1 == opt.l1 && got.opt.l2 == opt.l2);
	assert_true(got.nworkers == 1 && got.nservers == 1 &&
	    got.lambda == 1 && got.resumed == 0 && got.rejoin == 0);
	make_hello(&m, PS_ALG_DBPG, &opt);
	assert_int_equal(ps_hello_decode(&m, &got, err, sizeof err), 0);
	assert_int_equal(got.algorithm, PS_ALG_DBPG);
	assert_true(m.aux[AUX_OPTIMIZER] == 0 && got.opt.opt == 0);
	m.naux = PS_HELLO_NAUX_MIN;	/* a worker before the online path */
	assert_int_equal(ps_hello_decode(&m, &got, err, sizeof err), 0);
	assert_int_equal(got.algorithm, PS_ALG_DBPG);
}

static void
test_refused(void **state)
{
	struct ps_ftrl opt = { PS_OPT_FTRL, 0.1, 1, 1, 0 };
	struct ps_hello got;
	struct ps_msg m;
	char err[200];

	make_hello(&m, PS_ALG_SGD, &opt);
	m.aux[AUX_ALGORITHM] = 3;
	assert_int_equal(ps_hello_decode(&m, &got, err, sizeof err), -1);
	assert_string_equal(err, "unknown algorithm 3");
	m.aux[AUX_ALGORITHM] = PS_ALG_NEWTON;	/* its optimiser is not read */
	m.aux[AUX_OPTIMIZER] = 0;
	assert_int_equal(ps_hello_decode(&m, &got, err, sizeof err), 0);
	assert_true(got.algorithm == PS_ALG_NEWTON && got.opt.opt == 0);
	assert_string_equal(ps_algorithm_name(PS_ALG_NEWTON), "newton");
	assert_int_equal(ps_algorithm_parse("newton"), PS_ALG_NEWTON);
	make_hello(&m, PS_ALG_SGD, &opt);
	m.aux[AUX_OPTIMIZER] = 1.5;
	assert_int_equal(ps_hello_decode(&m, &got, err, sizeof err), -1);
	assert_string_equal(err, "unknown optimizer 1.5");
	make_hello(&m, PS_ALG_SGD, &opt);
	m.aux[AUX_BETA] = 0;
	assert_int_equal(ps_hello_decode(&m, &got, err, sizeof err), -1);
	assert_string_equal(err, "beta 0 is not a positive number");
	make_hello(&m, PS_ALG_DBPG, &opt);
	m.aux[AUX_NWORKERS] = 0.5;
	assert_int_equal(ps_hello_decode(&m, &got, err, sizeof err), -1);
	assert_string_equal(err, "worker 0 of 0.5");
	make_hello(&m, PS_ALG_DBPG, &opt);
	m.aux[AUX_SILENCE] = -1;
	assert_int_equal(ps_hello_decode(&m, &got, err, sizeof err), -1);
	assert_string_equal(err, "silence limit -1");
	m.aux[AUX_SILENCE] = 2.5;
	assert_int_equal(ps_hello_decode(&m, &got, err, sizeof err), 0);
	assert_true(got.silence == 2.5);
	assert_int_equal(ps_algorithm_parse("sgd"), PS_ALG_SGD);
	assert_int_equal(ps_algorithm_parse("SGD"), -1);
	assert_string_equal(ps_algorithm_name(PS_ALG_DBPG), "dbpg");
}

static void
test_hello_ok(void **state)
{
	struct ps_hello_ok ok = { 1234, 56, 7.5, 0.25 }, got;
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	ps_hello_ok_encode(&ok, &m);
	ps_hello_ok_decode(&m, &got);
	assert_true(got.resume == 1234 && got.nnz == 56 && got.age == 7.5 &&
	    got.away == 0.25);
	m.naux = 2;		/* a server before the age and absence */
	ps_hello_ok_decode(&m, &got);
	assert_true(got.resume == 1234 && got.age == 0 && got.away == -1);
	ok.away = -1;		/* a worker new to the job */
	ps_hello_ok_encode(&ok, &m);
	ps_hello_ok_decode(&m, &got);
	assert_true(got.away == -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_hello_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
