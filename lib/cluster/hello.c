/*
 * hello.c: writing and checking the algorithm and optimiser scalars of a
 * HELLO (layout in hello.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cluster/hello.h"

const char *
ps_algorithm_name(int alg)
{
	switch (alg) {
	case PS_ALG_DBPG:
		return "dbpg";
	case PS_ALG_SGD:
		return "sgd";
	default:
		return NULL;
	}
}

int
ps_algorithm_parse(const char *name)
{
	if (strcmp(name, "dbpg") == 0)
		return PS_ALG_DBPG;
	if (strcmp(name, "sgd") == 0)
		return PS_ALG_SGD;
	return -1;
}

void
ps_hello_set_job(struct ps_msg *m, int alg, const struct ps_ftrl *opt)
{
	m->aux[PS_HELLO_ALGORITHM] = alg;
	m->aux[PS_HELLO_OPTIMIZER] = 0;
	m->aux[PS_HELLO_ALPHA] = m->aux[PS_HELLO_BETA] = 0;
	m->aux[PS_HELLO_L1] = m->aux[PS_HELLO_L2] = 0;
	if (alg == PS_ALG_SGD) {
		m->aux[PS_HELLO_OPTIMIZER] = opt->opt;
		m->aux[PS_HELLO_ALPHA] = opt->alpha;
		m->aux[PS_HELLO_BETA] = opt->beta;
		m->aux[PS_HELLO_L1] = opt->l1;
		m->aux[PS_HELLO_L2] = opt->l2;
	}
	m->naux = PS_HELLO_NAUX;
}

int
ps_hello_job(const struct ps_msg *m, int *alg, struct ps_ftrl *opt,
    char *err, size_t errlen)
{
	double a;
	char why[200];

	memset(opt, 0, sizeof *opt);
	*alg = PS_ALG_DBPG;
	if (m->naux < PS_HELLO_NAUX)
		return 0;
	a = m->aux[PS_HELLO_ALGORITHM];
	if (a != PS_ALG_DBPG && a != PS_ALG_SGD) {
		snprintf(err, errlen, "unknown algorithm %g", a);
		return -1;
	}
	*alg = (int)a;
	if (*alg == PS_ALG_DBPG)
		return 0;
	a = m->aux[PS_HELLO_OPTIMIZER];
	opt->opt = a == PS_OPT_ADAGRAD || a == PS_OPT_FTRL ? (int)a : 0;
	opt->alpha = m->aux[PS_HELLO_ALPHA];
	opt->beta = m->aux[PS_HELLO_BETA];
	opt->l1 = m->aux[PS_HELLO_L1];
	opt->l2 = m->aux[PS_HELLO_L2];
	if (opt->opt == 0) {
		snprintf(err, errlen, "unknown optimizer %g", a);
		return -1;
	}
	if (ps_ftrl_check(opt, why, sizeof why) != 0) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	return 0;
}
