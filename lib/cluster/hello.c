/*
 * hello.c: the codec of the HELLO and HELLO_OK scalars (layout in
 * hello.h): the only place that knows their positions; decoding a HELLO
 * checks every scalar.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cluster/hello.h"
#include "util/errbuf.h"
#include "wire/admit.h"

const char *
ps_algorithm_name(int alg)
{
	switch (alg) {
	case PS_ALG_DBPG:
		return "dbpg";
	case PS_ALG_SGD:
		return "sgd";
	case PS_ALG_NEWTON:
		return "newton";
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
	if (strcmp(name, "newton") == 0)
		return PS_ALG_NEWTON;
	return -1;
}

/* Scalar positions (hello.h). */
enum {
	AUX_WORKER, AUX_NWORKERS, AUX_SERVER, AUX_NSERVERS, AUX_RING,
	AUX_LAMBDA, AUX_KKT, AUX_ALGORITHM, AUX_OPTIMIZER, AUX_ALPHA,
	AUX_BETA, AUX_L1, AUX_L2, AUX_RESUMED, AUX_REJOIN, AUX_SILENCE
};
/* Scalars before the optional ones, as the online path sends them. */
#define HELLO_JOB_NAUX	AUX_RESUMED

void
ps_hello_encode(const struct ps_hello *h, struct ps_msg *m)
{
	double *a = m->aux;

	a[AUX_WORKER] = h->worker_id;
	a[AUX_NWORKERS] = h->nworkers;
	a[AUX_SERVER] = h->server_index;
	a[AUX_NSERVERS] = h->nservers;
	a[AUX_RING] = h->ring_version;
	a[AUX_LAMBDA] = h->lambda;
	a[AUX_KKT] = h->kkt;
	a[AUX_ALGORITHM] = h->algorithm;
	a[AUX_OPTIMIZER] = 0;
	a[AUX_ALPHA] = a[AUX_BETA] = a[AUX_L1] = a[AUX_L2] = 0;
	if (h->algorithm == PS_ALG_SGD) {
		a[AUX_OPTIMIZER] = h->opt.opt;
		a[AUX_ALPHA] = h->opt.alpha;
		a[AUX_BETA] = h->opt.beta;
		a[AUX_L1] = h->opt.l1;
		a[AUX_L2] = h->opt.l2;
	}
	a[AUX_RESUMED] = (double)h->resumed;
	a[AUX_REJOIN] = h->rejoin;
	a[AUX_SILENCE] = h->silence;
	m->naux = PS_HELLO_NAUX_MAX;
}

/* The counts, indices, lambda and KKT factor of a HELLO; 0 or -1. */
static int
hello_decode_job(const struct ps_msg *m, struct ps_hello *h, char *err,
    size_t errlen)
{
	const double *a = m->aux;

	if (m->naux < PS_HELLO_NAUX_MIN)
		return ps_errbuf(err, errlen, -1, "%u scalars, expected at "
		    "least %d", (unsigned)m->naux, PS_HELLO_NAUX_MIN);
	if (!ps_aux_whole(a[AUX_NWORKERS], 1, 65536) ||
	    !ps_aux_whole(a[AUX_WORKER], 0, a[AUX_NWORKERS] - 1))
		return ps_errbuf(err, errlen, -1, "worker %g of %g",
		    a[AUX_WORKER], a[AUX_NWORKERS]);
	if (!ps_aux_whole(a[AUX_SERVER], 0, UINT32_MAX) ||
	    !ps_aux_whole(a[AUX_NSERVERS], 0, UINT32_MAX) ||
	    !ps_aux_whole(a[AUX_RING], 0, UINT32_MAX))
		return ps_errbuf(err, errlen, -1, "server %g of %g, ring "
		    "version %g", a[AUX_SERVER], a[AUX_NSERVERS], a[AUX_RING]);
	if (!(a[AUX_LAMBDA] >= 0 && isfinite(a[AUX_LAMBDA])))
		return ps_errbuf(err, errlen, -1, "lambda %g", a[AUX_LAMBDA]);
	h->worker_id = (uint32_t)a[AUX_WORKER];
	h->nworkers = (uint32_t)a[AUX_NWORKERS];
	h->server_index = (uint32_t)a[AUX_SERVER];
	h->nservers = (uint32_t)a[AUX_NSERVERS];
	h->ring_version = (uint32_t)a[AUX_RING];
	h->lambda = a[AUX_LAMBDA];
	h->kkt = m->naux > AUX_KKT ? a[AUX_KKT] : 0;
	if (!(h->kkt >= 0 && h->kkt <= 1))
		return ps_errbuf(err, errlen, -1, "KKT factor %g", h->kkt);
	return 0;
}

/* The algorithm and optimiser of a HELLO (dbpg before them); 0 or -1. */
static int
hello_decode_algorithm(const struct ps_msg *m, struct ps_hello *h,
    char *err, size_t errlen)
{
	const double *a = m->aux;
	struct ps_ftrl *opt = &h->opt;
	char why[200];
	double v;

	memset(opt, 0, sizeof *opt);
	h->algorithm = PS_ALG_DBPG;
	if (m->naux < HELLO_JOB_NAUX)
		return 0;
	v = a[AUX_ALGORITHM];
	if (v != PS_ALG_DBPG && v != PS_ALG_SGD && v != PS_ALG_NEWTON)
		return ps_errbuf(err, errlen, -1, "unknown algorithm %g", v);
	h->algorithm = (int)v;
	if (h->algorithm != PS_ALG_SGD)
		return 0;
	v = a[AUX_OPTIMIZER];
	opt->opt = v == PS_OPT_ADAGRAD || v == PS_OPT_FTRL ? (int)v : 0;
	opt->alpha = a[AUX_ALPHA];
	opt->beta = a[AUX_BETA];
	opt->l1 = a[AUX_L1];
	opt->l2 = a[AUX_L2];
	if (opt->opt == 0)
		return ps_errbuf(err, errlen, -1, "unknown optimizer %g", v);
	if (ps_ftrl_check(opt, why, sizeof why) != 0)
		return ps_errbuf(err, errlen, -1, "%s", why);
	return 0;
}

int
ps_hello_decode(const struct ps_msg *m, struct ps_hello *h, char *err,
    size_t errlen)
{
	const double *a = m->aux;
	double v;

	memset(h, 0, sizeof *h);
	if (hello_decode_job(m, h, err, errlen) != 0)
		return -1;
	h->rejoin = m->naux > AUX_REJOIN ? a[AUX_REJOIN] : 0;
	if (!(h->rejoin >= 0 && h->rejoin <= PS_HELLO_REJOIN_MAX))
		return ps_errbuf(err, errlen, -1, "rejoin wait %g", h->rejoin);
	h->silence = m->naux > AUX_SILENCE ? a[AUX_SILENCE] : 0;
	if (!(h->silence >= 0 && h->silence <= PS_HELLO_REJOIN_MAX))
		return ps_errbuf(err, errlen, -1, "silence limit %g",
		    h->silence);
	if (hello_decode_algorithm(m, h, err, errlen) != 0)
		return -1;
	/* Not checked, as before: a value out of range says nothing. */
	v = m->naux > AUX_RESUMED ? a[AUX_RESUMED] : 0;
	h->resumed = v >= 1 && v < 0x1p63 ? (uint64_t)v : 0;
	return 0;
}

void
ps_hello_ok_encode(const struct ps_hello_ok *ok, struct ps_msg *m)
{
	m->naux = 4;
	m->aux[0] = (double)ok->resume;
	m->aux[1] = ok->nnz;
	m->aux[2] = ok->age;
	m->aux[3] = ok->away;
}

void
ps_hello_ok_decode(const struct ps_msg *m, struct ps_hello_ok *ok)
{
	ok->resume = m->naux >= 1 && m->aux[0] >= 0 && m->aux[0] < 0x1p63 ?
	    (uint64_t)m->aux[0] : 0;
	ok->nnz = m->naux >= 2 && m->aux[1] > 0 ? m->aux[1] : 0;
	ok->age = m->naux >= 3 && m->aux[2] > 0 && m->aux[2] < 1e12 ?
	    m->aux[2] : 0;
	ok->away = m->naux >= 4 && m->aux[3] >= 0 && m->aux[3] < 1e12 ?
	    m->aux[3] : -1;
}
