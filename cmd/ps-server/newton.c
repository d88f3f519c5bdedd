/*
 * newton.c: the server's side of a newton job (ps-worker -A newton,
 * lib/algo/newton.h).  Its rounds go in threes, numbered as a dbpg job's
 * and held in the same list (round.c); t % 3 says which:
 *  0  gradient: each worker pushes g_j and h_j of its rows for each of its
 *     keys; every reply carries, for the keys of the puller's push, the
 *     sums G_j and H_j over every worker that pushed the key (width 2),
 *     and the result the summed loss and the server's l1 and nnz;
 *  1  direction: each worker pushes (d_j, 1), its direction; the reply
 *     carries (sum of d_j, holders of j), whose ratio is dbar_j;
 *  2  step: each worker pushes (d_j, 1) again and the parts of F at
 *     w + 4 2^-k dbar (msg_round.h); the server adds the parts up in worker
 *     order, takes the step ps_newton_step() picks (every server adds the
 *     same parts in the same order, so all take the same one) and sets
 *     w_j <- w_j + step dbar_j, as a dbpg round applies its proximal step:
 *     marks, replicas, failover, checkpoints and all (round.c).
 * The first two change nothing here: they are not marked, copied to the
 * replicas or kept, and after a ring change every worker pushes them
 * again.  Sums go in worker-id order, so a job is repeatable.
 *
 * Rejoin (failover/rejoin.c): when workers may come back, an iteration's
 * sums rounds are held, answered, until the next iteration's gradient
 * round is gathered, which needs every worker's push.  A worker that
 * died in iteration i comes back at i (its last push here was at most
 * its step round, 3i + 2): it takes the weights from before that step
 * round (the store keeps them) and pushes 3i, 3i + 1 and 3i + 2 again,
 * the same pushes as before, since the servers' answers are the same
 * and its trust radius is in the gradient round's result.  A push of a
 * sums round it made before is dropped (the first one is in the sums);
 * one of a step round is taken as round.c's invariant 9 says.  A ring
 * change drops the rounds held with the others (round.c, invariant 7):
 * the other workers send that iteration's rounds again, which they keep
 * (cmd/ps-worker/newton.c), and the sums are made anew under the new ring.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/newton.h"
#include "server.h"
#include "util/kmerge.h"
#include "util/xmalloc.h"

int
newton_sums_round(const struct channel *ch, uint64_t t)
{
	return ch->job.algorithm == PS_ALG_NEWTON && t % 3 != 2;
}

/*
 * r->pos[i][k]: the place of the k-th key of worker i's push among the
 * distinct keys of round r's pushes, in key order (a merge of their
 * ascending key lists); return how many there are.
 */
static size_t
newton_places(struct round *r, uint32_t nw)
{
	struct ps_kmerge merge;
	size_t n = 0, nwhich, j;
	uint32_t i;

	r->pos = xcalloc(nw, sizeof *r->pos);
	ps_kmerge_init(&merge, nw);
	for (i = 0; i < nw; i++) {
		r->pos[i] = xcalloc(r->pushes[i].nkeys + 1, sizeof *r->pos[i]);
		ps_kmerge_list(&merge, i, r->pushes[i].keys,
		    r->pushes[i].nkeys);
	}
	for (; (nwhich = ps_kmerge_next(&merge)) > 0; n++)
		for (j = 0; j < nwhich; j++)
			r->pos[merge.which[j]][merge.at[merge.which[j]]] =
			    (uint32_t)n;
	ps_kmerge_release(&merge);
	return n;
}

/*
 * Every worker pushed sums round r: add their values up, key by key, in
 * worker order, into r->sums (2 per key), r->pos[i][k] saying where the
 * k-th key of worker i's push went.
 */
void
newton_gather(struct channel *ch, struct round *r)
{
	uint32_t i, nw = ch->job.nworkers;
	size_t n, k;
	struct ps_newton_grad_push push;

	r->result.loss = 0;
	r->result.vote = INFINITY;
	r->result.radius = NAN;
	for (i = 0; i < nw; i++) {
		ps_newton_grad_push_decode(&r->pushes[i], &push);
		r->result.loss += push.base.loss;
		r->result.vote = fmin(r->result.vote, push.base.vote);
		if (isnan(r->result.radius))	/* the first known */
			r->result.radius = push.radius;
	}
	n = newton_places(r, nw);
	r->sums = xcalloc(2 * n + 1, sizeof *r->sums);
	for (i = 0; i < nw; i++) {
		const struct ps_msg *m = &r->pushes[i];

		for (k = 0; k < m->nkeys; k++) {
			r->sums[2 * r->pos[i][k]] += m->vals[2 * k];
			r->sums[2 * r->pos[i][k] + 1] += m->vals[2 * k + 1];
		}
	}
	r->result.l1_before = r->result.l1_after = ch->store.l1;
	r->result.nnz_before = r->result.nnz_after = (double)ch->store.nnz;
	r->result.kkt = NAN;
	r->result.step = NAN;
	r->has_result = 1;
	if (r->t % 3 == 0 && r->t / 3 + 1 > ch->job.grads_gathered)
		ch->job.grads_gathered = r->t / 3 + 1;
	r->done = 1;
	if (r->t + 1 > ch->job.rounds_done)
		ch->job.rounds_done = r->t + 1;
	ch->job.last_round = r->t;
}

/* Is sums round r held for a worker that may come back (above)? */
int
newton_keeps(const struct channel *ch, const struct round *r)
{
	return ch->job.rejoin_wait > 0 && newton_sums_round(ch, r->t) &&
	    r->t / 3 + 1 >= ch->job.grads_gathered;
}

/*
 * Is sums round r, not gathered, past gathering?  After a ring change
 * each worker sends again the rounds of the iteration it finished a round
 * in last (cmd/ps-worker/newton.c); one whose gradient round was answered
 * first is an iteration ahead of the others and sends none of the one
 * before.  Once a gradient round is gathered every worker pushed it, so
 * none goes again from an iteration before it.
 */
int
newton_stale(const struct channel *ch, const struct round *r)
{
	return !r->done && r->t / 3 + 1 < ch->job.grads_gathered;
}

/* The reply to worker id's pull of sums round r: its keys' sums. */
void
newton_sums_reply(const struct channel *ch, const struct round *r,
    uint32_t id, struct ps_msg *reply)
{
	const struct ps_msg *push = &r->pushes[id];
	size_t k;

	reply->width = 2;
	reply->nkeys = push->nkeys;
	reply->vals = xcalloc(2 * (size_t)push->nkeys + 1,
	    sizeof *reply->vals);
	for (k = 0; k < push->nkeys; k++) {
		reply->vals[2 * k] = (float)r->sums[2 * r->pos[id][k]];
		reply->vals[2 * k + 1] = (float)r->sums[2 * r->pos[id][k] + 1];
	}
}

/*
 * Step round r: the step the workers' parts choose, their summed KKT
 * violation at w in *kkt and F at the step, as their trials sum it, in
 * *fstep (F at w when the step is 0).
 */
double
newton_step(const struct channel *ch, const struct round *r, double *kkt,
    double *fstep)
{
	double f0 = 0, pred = 0, trial[PS_NEWTON_TRIALS] = { 0 }, step;
	struct ps_newton_push push;
	uint32_t i;
	size_t k;

	*kkt = 0;
	for (i = 0; i < ch->job.nworkers; i++) {
		ps_newton_push_decode(&r->pushes[i], &push);
		*kkt += push.kkt;
		pred += push.pred;
		f0 += push.f0;
		for (k = 0; k < PS_NEWTON_TRIALS; k++)
			trial[k] += push.trial[k];
	}
	step = ps_newton_step(f0, pred, trial, PS_NEWTON_TRIALS);
	*fstep = f0;
	for (k = 0; k < PS_NEWTON_TRIALS; k++)
		if (ps_newton_trial_step(k) == step)
			*fstep = trial[k];
	return step;
}

/* A key's weight after the step: dbar is its summed d over its holders. */
float
newton_weight(float w, double step, double dsum, double holders)
{
	if (step == 0 || !(holders > 0))
		return w;
	return (float)(w + step * (dsum / holders));
}
