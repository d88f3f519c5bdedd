/*
 * job.c: the job a channel's workers run: set up by its first HELLO (and
 * each later HELLO checked against it), ended when every worker said BYE
 * or aborted when one breaks it.  The weights outlive the job.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "server.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* End the job: every worker is told why and disconnected; weights stay. */
void
job_abort(struct channel *ch, const char *why)
{
	struct job *job = &ch->job;
	uint32_t i;

	log_warnx("aborting the job on channel %u: %s", ch->id, why);
	for (i = 0; i < job->nworkers; i++) {
		struct peer *w = job->workers[i];

		if (w == NULL)
			continue;
		w->is_worker = 0;
		peer_send_error(w, why);
	}
	job_end(ch);
}

/* The job is over: forget its workers and rounds; weights stay. */
void
job_end(struct channel *ch)
{
	struct job *job = &ch->job;
	uint32_t i;

	for (i = 0; job->workers != NULL && i < job->nworkers; i++)
		if (job->workers[i] != NULL)
			job->workers[i]->is_worker = 0;
	rounds_clear(ch);
	online_clear(ch);
	ch->srv->failover->job_end(ch);
	free(job->workers);
	job->workers = NULL;
	job->active = 0;
	job->nhello = job->nbye = 0;
}

/* The KKT threshold a HELLO asks for: its factor times lambda, 0 if off. */
static double
job_hello_kkt(const struct ps_hello *h)
{
	return h->kkt * h->lambda;
}

/* The first HELLO of a channel's job sets it up. */
void
job_start(struct channel *ch, const struct ps_hello *h)
{
	struct job *job = &ch->job;
	const struct ps_ftrl *opt = &h->opt;
	uint32_t n = h->nworkers;

	job->active = 1;
	job->algorithm = h->algorithm;
	job->nworkers = n;
	job->server_index = h->server_index;
	job->nservers = h->nservers;
	job->ring_version = h->ring_version;
	job->lambda = h->lambda;
	job->kkt = job_hello_kkt(h);
	store_gsmall_reset(&ch->store, job->kkt);
	job->workers = xcalloc(n, sizeof *job->workers);
	job->iter_base = 0;
	startmodel_apply(ch, h->algorithm == PS_ALG_SGD ? opt : NULL);
	ch->srv->failover->job_start(ch, h);
	store_sent_reset(&ch->store, 0);
	job->rounds_done = 0;
	job->grads_gathered = 0;
	if (h->algorithm == PS_ALG_SGD) {
		job->online.opt = *opt;
		online_start(ch);
		log_info("job started on channel %u: %u workers, sgd with %s, "
		    "alpha %g, beta %g, l1 %g, l2 %g", ch->id, n,
		    ps_ftrl_name(opt->opt), opt->alpha, opt->beta, opt->l1,
		    opt->l2);
	} else {
		store_online_end(&ch->store);
		ch->handed = 0;	/* an sgd job's handoff says nothing of it */
		log_info("job started on channel %u: %u workers, lambda %g",
		    ch->id, n, job->lambda);
	}
}

/* 0 when a later HELLO agrees with the running job, else -1 and why. */
int
job_match(const struct job *job, const struct ps_hello *h, char *err,
    size_t errlen)
{
	const struct ps_ftrl *jo = &job->online.opt, *opt = &h->opt;
	int alg = h->algorithm;

	if (h->nworkers != job->nworkers || h->lambda != job->lambda ||
	    job_hello_kkt(h) != job->kkt) {
		snprintf(err, errlen, "%u workers, lambda %g, KKT threshold "
		    "%g; the job has %u, %g and %g", h->nworkers, h->lambda,
		    job_hello_kkt(h), job->nworkers, job->lambda, job->kkt);
		return -1;
	}
	if (alg != job->algorithm) {
		snprintf(err, errlen, "algorithm %s, the job runs %s",
		    ps_algorithm_name(alg), ps_algorithm_name(job->algorithm));
		return -1;
	}
	if (alg == PS_ALG_SGD && (opt->opt != jo->opt ||
	    opt->alpha != jo->alpha || opt->beta != jo->beta ||
	    opt->l1 != jo->l1 || opt->l2 != jo->l2)) {
		snprintf(err, errlen, "%s alpha %g beta %g l1 %g l2 %g, the "
		    "job has %s %g %g %g %g", ps_ftrl_name(opt->opt),
		    opt->alpha, opt->beta, opt->l1, opt->l2,
		    ps_ftrl_name(jo->opt), jo->alpha, jo->beta, jo->l1, jo->l2);
		return -1;
	}
	return 0;
}
