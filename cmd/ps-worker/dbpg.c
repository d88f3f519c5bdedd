/*
 * dbpg.c: the Delayed Block Proximal Gradient method (Li et al., NIPS 2014,
 * Algorithm 2) as seen by one worker.
 *
 * Iteration t works on block b(t) (plan.c): the worker computes the block's
 * gradient and curvature bound on its rows (l1lr.c), PUSHes them to each
 * server with its current loss, and PULLs the block's new weights, which the
 * servers send once every worker pushed (the servers apply the proximal
 * step).  Rules, with tau the allowed delay:
 *  1. Iteration t starts only when every iteration up to t - tau - 1 has
 *     finished (all its replies arrived and were applied): tau = 0 is
 *     sequential, larger tau lets computation overlap the network.  The
 *     first iteration of each pass over the blocks also waits for every
 *     earlier one (a barrier once per pass).
 *  2. The objective of iteration t is the servers' sum of the workers' loss
 *     at push time plus lambda times the l1 norm before the step; every
 *     worker sees the same sequence.  At a pass start, thanks to the
 *     barrier, it is exactly F(w); within a pass, under delay, the losses
 *     lag the norm and it is an estimate.
 *  3. Before the first iteration t of a pass, the worker stops if the exact
 *     objectives of the two previous pass starts, t - B and t - 2B, differ
 *     by less than epsilon (relative).  Those iterations have finished, so
 *     every worker decides alike.  After the last iteration has finished, a
 *     final round with no keys reports the exact objective of the final
 *     weights.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "log.h"
#include "worker.h"
#include "xmalloc.h"

static struct iter *
dbpg_slot(struct worker *w, uint64_t t)
{
	return &w->inflight[t % (w->conf.tau + 1)];
}

/* Keep the objective of iteration t (rule 2). */
static void
dbpg_record(struct worker *w, uint64_t t, double obj)
{
	if (t >= w->objcap) {
		w->objcap = w->objcap ? w->objcap * 2 : 1024;
		w->objective = xreallocarray(w->objective, w->objcap,
		    sizeof *w->objective);
	}
	w->objective[t] = obj;
}

/* Relative decrease of the objective over the pass that ended with s. */
static double
dbpg_rel_change(const struct worker *w, uint64_t s)
{
	uint64_t b = w->plan.nblocks;

	if (s < b)
		return NAN;
	return (w->objective[s - b] - w->objective[s]) / fabs(w->objective[s]);
}

/* Rule 3: stop before iteration t? */
static int
dbpg_should_stop(const struct worker *w, uint64_t t)
{
	uint64_t b = w->plan.nblocks;
	double rel;

	if (t >= w->conf.max_iter)
		return 1;
	if (t % b != 0 || t < 2 * b)
		return 0;
	rel = (w->objective[t - 2 * b] - w->objective[t - b]) /
	    fabs(w->objective[t - b]);
	return fabs(rel) < w->conf.eps;
}

/* Rule 1: may iteration t start now? */
static int
dbpg_may_start(const struct worker *w, uint64_t t)
{
	if (t % w->plan.nblocks == 0)
		return w->t_done == t;
	return t - w->t_done <= w->conf.tau;
}

/* Push one block's gradient to every server and ask for its new weights. */
static void
dbpg_start(struct worker *w, uint64_t t)
{
	struct plan *pl = &w->plan;
	struct iter *it = dbpg_slot(w, t);
	uint32_t b = plan_block_of(pl, t, w->conf.seed);
	size_t lo = pl->off[(size_t)b * pl->nservers];
	size_t s;
	struct ps_msg m;

	if (t % pl->nblocks == 0)
		ps_l1lr_loss(&w->lr);	/* bound incremental rounding drift */
	ps_l1lr_block_grad(&w->lr, b, w->gu + 2 * lo);
	it->t = t;
	it->block = b;
	it->pending = pl->nservers;
	it->loss = it->l1 = it->nnz = 0;
	for (s = 0; s < pl->nservers; s++) {
		size_t a = pl->off[(size_t)b * pl->nservers + s];
		size_t z = pl->off[(size_t)b * pl->nservers + s + 1];

		memset(&m, 0, sizeof m);
		m.type = PS_MSG_PUSH;
		m.sender = w->conf.id;
		m.timestamp = t;
		m.ring_version = w->ring.version;
		m.nkeys = (uint32_t)(z - a);
		m.keys = pl->keys + a;
		m.width = 2;
		m.vals = w->gu + 2 * a;
		m.naux = 1;
		m.aux[0] = w->lr.loss;
		links_send(w, s, &m);
		memset(&m, 0, sizeof m);
		m.type = PS_MSG_PULL;
		m.flags = PS_MSG_F_NOKEYS;
		m.sender = w->conf.id;
		m.timestamp = t;
		m.ring_version = w->ring.version;
		m.nkeys = (uint32_t)(z - a);
		links_send(w, s, &m);
	}
}

/* A server's answer to the pull of iteration t: apply the new weights. */
void
dbpg_reply(struct worker *w, struct link *l, struct ps_msg *m)
{
	struct plan *pl = &w->plan;
	struct iter *it = dbpg_slot(w, m->timestamp);
	size_t a, z;

	if (m->timestamp < w->t_done || m->timestamp >= w->t_next ||
	    it->t != m->timestamp || it->pending == 0)
		fatalx(EX_PROTOCOL, "server %u (%s) answered iteration %llu, "
		    "which is not in flight", l->index, l->addr,
		    (unsigned long long)m->timestamp);
	a = z = 0;
	if (it->block != UINT32_MAX) {	/* not the final, empty round */
		a = pl->off[(size_t)it->block * pl->nservers + l->index];
		z = pl->off[(size_t)it->block * pl->nservers + l->index + 1];
	}
	if (m->width != 1 || m->nkeys != z - a || m->naux < 5)
		fatalx(EX_PROTOCOL, "server %u (%s) answered iteration %llu "
		    "with %u values of width %u, expected %zu", l->index,
		    l->addr, (unsigned long long)m->timestamp, m->nkeys,
		    m->width, z - a);
	if (z > a)
		memcpy(it->wnew + (a - pl->boff[it->block]), m->vals,
		    (z - a) * sizeof *m->vals);
	if (l->index == 0)
		it->loss = m->aux[0];
	it->l1 += m->aux[1];
	it->nnz += m->aux[2];
	if (--it->pending > 0)
		return;
	if (it->block != UINT32_MAX)
		ps_l1lr_apply(&w->lr, it->block, it->wnew);
	dbpg_record(w, it->t, it->loss + w->conf.lambda * it->l1);
	while (w->t_done < w->t_next && dbpg_slot(w, w->t_done)->pending == 0 &&
	    dbpg_slot(w, w->t_done)->t == w->t_done)
		w->t_done++;
}

/* One TSV progress line; test metrics at the end of a pass. */
static void
dbpg_print(struct worker *w, uint64_t t, double obj, double nnz, int eval)
{
	double logloss = NAN, auc = NAN;
	uint64_t sent, recv;

	if (eval && w->have_test)
		evaltest_run(w, &logloss, &auc);
	links_bytes(w, &sent, &recv);
	printf("%llu\t%.3f\t%.17g\t%.6g\t%.0f\t%llu\t%llu\t%.6g\t%.6g\n",
	    (unsigned long long)t, worker_now() - w->started, obj,
	    t < w->objcap ? dbpg_rel_change(w, t) : NAN, nnz,
	    (unsigned long long)sent, (unsigned long long)recv, logloss, auc);
}

/* Report finished iterations in order. */
static void
dbpg_report(struct worker *w)
{
	while (w->t_printed < w->t_done) {
		uint64_t t = w->t_printed++;
		int pass_end = (t + 1) % w->plan.nblocks == 0;

		dbpg_print(w, t, w->objective[t], dbpg_slot(w, t)->nnz,
		    pass_end);
	}
}

/*
 * The final round (rule 3): an empty push carrying the exact loss of the
 * final weights; its pull reply holds the global objective.
 */
static void
dbpg_final(struct worker *w)
{
	uint64_t t = w->t_next;
	struct iter *it;

	w->lr.loss = ps_l1lr_loss(&w->lr);
	it = dbpg_slot(w, t);
	w->t_next++;
	it->t = t;
	it->loss = it->l1 = it->nnz = 0;
	it->block = UINT32_MAX;
	it->pending = w->plan.nservers;
	for (size_t s = 0; s < w->plan.nservers; s++) {
		struct ps_msg m;

		memset(&m, 0, sizeof m);
		m.type = PS_MSG_PUSH;
		m.sender = w->conf.id;
		m.timestamp = t;
		m.ring_version = w->ring.version;
		m.width = 2;
		m.naux = 1;
		m.aux[0] = w->lr.loss;
		links_send(w, s, &m);
		m.type = PS_MSG_PULL;
		m.flags = PS_MSG_F_NOKEYS;
		m.naux = 0;
		m.width = 0;
		links_send(w, s, &m);
	}
	while (w->t_done < w->t_next)
		links_step(w, "the final round");
}

/* Tell every server this worker is done. */
static void
dbpg_bye(struct worker *w)
{
	struct ps_msg m;
	size_t s;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_BYE;
	m.flags = PS_MSG_F_NOKEYS;
	m.sender = w->conf.id;
	for (s = 0; s < w->nlinks; s++)
		links_send(w, s, &m);
}

/* Features in the largest block. */
static size_t
dbpg_max_block(const struct plan *pl)
{
	size_t b, max = 0;

	for (b = 0; b < pl->nblocks; b++)
		if (pl->boff[b + 1] - pl->boff[b] > max)
			max = pl->boff[b + 1] - pl->boff[b];
	return max;
}

int
dbpg_run(struct worker *w)
{
	uint64_t t_final;
	uint32_t b;
	struct iter *last;
	char what[64];

	w->gu = xcalloc(2 * (w->ds.nfeat + 1), sizeof *w->gu);
	w->inflight = xcalloc(w->conf.tau + 1, sizeof *w->inflight);
	for (b = 0; b <= w->conf.tau; b++)
		w->inflight[b].wnew = xcalloc(dbpg_max_block(&w->plan) + 1,
		    sizeof *w->inflight[b].wnew);
	printf("iter\tsecs\tobjective\trel_change\tnnz\tbytes_sent\t"
	    "bytes_recv\ttest_logloss\ttest_auc\n");
	for (;;) {
		dbpg_report(w);
		while (dbpg_may_start(w, w->t_next) &&
		    !dbpg_should_stop(w, w->t_next))
			dbpg_start(w, w->t_next++);
		if (w->t_done == w->t_next && dbpg_should_stop(w, w->t_next))
			break;
		snprintf(what, sizeof what, "iteration %llu",
		    (unsigned long long)w->t_done);
		links_step(w, what);
	}
	dbpg_report(w);
	t_final = w->t_next;
	dbpg_final(w);
	last = dbpg_slot(w, t_final);
	dbpg_record(w, t_final, last->loss + w->conf.lambda * last->l1);
	w->t_printed = t_final + 1;
	dbpg_print(w, t_final, w->objective[t_final], last->nnz, 1);
	fflush(stdout);
	log_info("finished after %llu iterations: objective %.9g, %.0f non-zero "
	    "weights", (unsigned long long)t_final, w->objective[t_final],
	    last->nnz);
	dbpg_bye(w);
	return 0;
}
