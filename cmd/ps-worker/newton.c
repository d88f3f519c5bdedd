/*
 * newton.c: a distributed proximal Newton method for l1-LR as seen by one
 * worker (-A newton; the method is lib/algo/newton.h's, the servers' side
 * cmd/ps-server/newton.c).
 *
 * Iteration i is three rounds, t = 3i, 3i + 1, 3i + 2, each pushing every
 * feature of the shard to its server and pulling the answer:
 *  0  gradient: the rows' g_j and Hessian diagonal h_j at w; the answer is
 *     the sums G_j, H_j over the workers, and F(w) (the loss summed, plus
 *     lambda times the servers' l1 norms);
 *  1  direction: S sweeps of coordinate descent on this worker's model
 *     give d; the push is (d_j, 1), the answer (sum of d_j, holders of j),
 *     whose ratio is the averaged direction dbar_j;
 *  2  step: the push is (d_j, 1) again, with this worker's parts of F at w
 *     and at w + 4 2^-k dbar, k = 0 .. 11 (ps_newton_trial_step), of the
 *     model's predicted decrease and of the KKT violation; each part of
 *     a feature's l1 term is divided by its holders, so that the servers'
 *     sums over the workers are F's.  The servers take the step
 *     ps_newton_step picks and answer the new weights and the step; the
 *     trust radius follows it (ps_newton_radius), the same on every
 *     worker.
 * The step round prints the iteration's line, and its answer carries F at
 * the step taken (the servers' sum of the trials).  A worker votes to
 * stop in the next gradient round (the servers answer the lowest vote)
 * when the KKT violation at w, relative to the largest one seen, is at
 * most epsilon and the changes of F still contract, the step's relative
 * change at most half the iteration's before, by so much that twice the
 * changes to come, extrapolated at that rate (change r / (1 - r)), sum to
 * at most epsilon: F at the step is then within about epsilon of the
 * optimum; or when the step changed F by at most epsilon / 1000.  When
 * every worker voted so, that gradient round's F, of the final weights
 * (the step's), is the last line.
 *
 * Rounds run one at a time.  After a ring change the round in flight goes
 * again to the new ring, and so do those of the iteration of the one
 * finished last (their answers are not taken): as dbpg.c does, so that a
 * server that lost a round with its primary can complete it, and so that
 * a worker that came back in that iteration finds its sums again.  A
 * worker started again during the job (--rejoin) goes again from the
 * start of the iteration it died in (newton_comeback): it makes the same
 * pushes as its first run, and the job the same steps.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "algo/prox.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "wire/msg_round.h"
#include "worker.h"

enum { NEWTON_GRADIENT, NEWTON_DIRECTION, NEWTON_STEP };

static struct nround *
newton_slot(struct worker *w, uint64_t t)
{
	return &w->newton.slot[t % NEWTON_SLOTS];
}

/* The plan's positions grouped by server under the current ring. */
static void
newton_group(struct worker *w)
{
	struct newton *nw = &w->newton;
	const struct plan *pl = &w->dbpg.plan;
	size_t npos = pl->boff[pl->nblocks], pos, s;

	nw->off = xreallocarray(nw->off, pl->nservers + 2, sizeof *nw->off);
	memset(nw->off, 0, (pl->nservers + 2) * sizeof *nw->off);
	for (pos = 0; pos < npos; pos++)
		nw->off[pl->srv[pos] + 2]++;
	for (s = 0; s < pl->nservers; s++)
		nw->off[s + 2] += nw->off[s + 1];
	for (pos = 0; pos < npos; pos++)
		nw->bysrv[nw->off[pl->srv[pos] + 1]++] = (uint32_t)pos;
}

/* Send server s round t's push (again, after a key cache miss). */
void
newton_push(struct worker *w, uint64_t t, size_t s)
{
	struct newton *nw = &w->newton;
	const struct plan *pl = &w->dbpg.plan;
	struct nround *r = newton_slot(w, t);
	size_t k, n = 0;
	struct ps_msg m;

	if (r->t != t || t >= nw->t_next)
		fatalx(EX_PROTOCOL, "server %zu (%s) asked again for the push "
		    "of round %llu, which is not in flight", s,
		    w->links[s]->addr, (unsigned long long)t);
	for (k = nw->off[s]; k < nw->off[s + 1]; k++, n++) {
		uint32_t pos = nw->bysrv[k];

		nw->keybuf[n] = pl->keys[pos];
		nw->valbuf[2 * n] = r->vals[2 * pos];
		nw->valbuf[2 * n + 1] = r->vals[2 * pos + 1];
	}
	links_msg(w, &m, PS_MSG_PUSH, 0, t);
	m.nkeys = (uint32_t)n;
	m.keys = nw->keybuf;
	m.width = 2;
	m.vals = nw->valbuf;
	if (t % 3 == NEWTON_STEP) {
		ps_newton_push_encode(&r->aux, &m);
	} else if (t % 3 == NEWTON_GRADIENT) {
		struct ps_newton_grad_push gp = { r->aux.base, nw->radius };

		ps_newton_grad_push_encode(&gp, &m);
	} else {
		ps_dbpg_push_encode(&r->aux.base, &m);
	}
	links_send(w, s, &m);
}

/* Round t awaits every server's answer, none taken yet. */
static void
newton_expect(struct worker *w, struct nround *r)
{
	r->pending = w->dbpg.plan.nservers;
	r->loss = r->kkt = r->step = r->radius = NAN;
	r->l1 = r->nnz = 0;
	r->vmin = UINT32_MAX;
}

/* Push round t to every server and ask for the answer. */
static void
newton_send(struct worker *w, uint64_t t)
{
	struct newton *nw = &w->newton;
	struct ps_msg m;
	size_t s;

	for (s = 0; s < w->dbpg.plan.nservers; s++) {
		newton_push(w, t, s);
		links_msg(w, &m, PS_MSG_PULL, PS_MSG_F_NOKEYS, t);
		m.nkeys = (uint32_t)(nw->off[s + 1] - nw->off[s]);
		ps_round_pull_encode(NAN, &m);
		links_send(w, s, &m);
	}
}

/* Take server l's values for round t's features (the header checked). */
static void
newton_take(struct worker *w, const struct link *l, uint64_t t,
    const struct ps_msg *m)
{
	struct newton *nw = &w->newton;
	const uint32_t *feats = w->dbpg.plan.feats;
	size_t k, a = nw->off[l->index];

	for (k = 0; k < m->nkeys; k++) {
		uint32_t f = feats[nw->bysrv[a + k]];
		const float *v = m->vals + (size_t)m->width * k;

		switch (t % 3) {
		case NEWTON_GRADIENT:
			nw->gh[2 * f] = v[0];
			nw->gh[2 * f + 1] = v[1];
			break;
		case NEWTON_DIRECTION:
			nw->holders[f] = v[1];
			nw->dbar[f] = v[1] > 0 ? v[0] / v[1] : 0;
			break;
		default:
			nw->w[f] = v[0] == 0 ? 0.0f : v[0];
			break;
		}
	}
}

/* A server's answer to the pull of round t. */
void
newton_reply(struct worker *w, struct link *l, struct ps_msg *m)
{
	struct newton *nw = &w->newton;
	uint64_t t = m->timestamp;
	struct nround *r = newton_slot(w, t);
	const struct ps_round_result *res;
	struct ps_round_reply rep;
	size_t want = nw->off[l->index + 1] - nw->off[l->index];

	if (t < nw->t_done && nw->echoes > 0) {
		log_debug("server %u (%s) answered round %llu again",
		    l->index, l->addr, (unsigned long long)t);
		return;
	}
	if (t < nw->t_done || t >= nw->t_next || r->t != t || r->pending == 0)
		fatalx(EX_PROTOCOL, "server %u (%s) answered round %llu, "
		    "which is not in flight", l->index, l->addr,
		    (unsigned long long)t);
	if (m->width != (t % 3 == NEWTON_STEP ? 1 : 2) ||
	    !(m->flags & PS_MSG_F_NOKEYS) || m->nkeys != want ||
	    ps_round_reply_decode(m, &rep) != 0)
		fatalx(EX_PROTOCOL, "server %u (%s) answered round %llu with "
		    "%u values of width %u, expected %zu", l->index, l->addr,
		    (unsigned long long)t, m->nkeys, m->width, want);
	newton_take(w, l, t, m);
	ps_trace_event(w->trace, NULL, 0, "ack\t%s\t%u\t%llu", l->addr,
	    w->conf.channel, (unsigned long long)t);
	w->counts.received += m->nkeys;
	res = &rep.result;
	if (isnan(r->loss) && isfinite(res->loss))
		r->loss = res->loss;	/* every server sums the same */
	if (isnan(r->kkt) && isfinite(res->kkt))
		r->kkt = res->kkt;
	if (isnan(r->step) && !isnan(res->step))
		r->step = res->step;
	if (isnan(r->radius) && !isnan(res->radius))
		r->radius = res->radius;
	if (res->vote >= 0 && res->vote < r->vmin)
		r->vmin = res->vote >= 1 ? 1 : 0;
	r->l1 += res->l1_before;
	r->nnz += res->nnz_before;
	if (rep.ckpt)
		ckpt_requested(w, t / 3);
	if (--r->pending == 0)
		nw->t_done = t + 1;
}

/*
 * The gradient round at w: margins, the rows' loss, g and h (pushed as
 * they are), and this worker's vote.
 */
static void
newton_gradient(struct worker *w, struct nround *r)
{
	struct newton *nw = &w->newton;
	const struct plan *pl = &w->dbpg.plan;
	size_t pos, npos = pl->boff[pl->nblocks];

	ps_l1lr_margins(&w->ds, nw->w, nw->margin);
	nw->loss = ps_newton_grad(&nw->nt, nw->margin, nw->gh);
	for (pos = 0; pos < npos; pos++) {
		uint32_t f = pl->feats[pos];

		r->vals[2 * pos] = (float)nw->gh[2 * f];
		r->vals[2 * pos + 1] = (float)nw->gh[2 * f + 1];
	}
	r->aux.base.loss = nw->loss;
	r->aux.base.vote = nw->vote;
	r->aux.base.ckpt = nw->vote && ckpt_periodic(w);	/* the end */
}

/* The direction and step rounds push the direction as (d_j, 1). */
static void
newton_direction(struct worker *w, struct nround *r)
{
	struct newton *nw = &w->newton;
	const struct plan *pl = &w->dbpg.plan;
	size_t pos, npos = pl->boff[pl->nblocks];

	for (pos = 0; pos < npos; pos++) {
		r->vals[2 * pos] = (float)nw->nt.d[pl->feats[pos]];
		r->vals[2 * pos + 1] = 1;
	}
	memset(&r->aux, 0, sizeof r->aux);
}

/*
 * The step round's parts: F at w and at each trial step, the predicted
 * decrease G.dbar + lambda (|w + dbar|_1 - |w|_1) and the KKT violation,
 * each feature's terms divided by its holders.
 */
static void
newton_parts(struct worker *w, struct ps_newton_push *p)
{
	struct newton *nw = &w->newton;
	double loss[PS_NEWTON_TRIALS], lambda = w->conf.lambda, l1 = 0;
	double loss0;
	size_t j, k;

	loss0 = ps_newton_trials(&nw->nt, nw->margin, nw->dbar,
	    PS_NEWTON_TRIALS, loss);
	p->pred = p->kkt = 0;
	for (k = 0; k < PS_NEWTON_TRIALS; k++)
		p->trial[k] = loss[k];
	for (j = 0; j < w->ds.nfeat; j++) {
		double c = nw->holders[j], wj = nw->w[j], d = nw->dbar[j];

		if (!(c > 0))
			continue;
		l1 += fabs(wj) / c;
		p->pred += (nw->gh[2 * j] * d +
		    lambda * (fabs(wj + d) - fabs(wj))) / c;
		p->kkt += ps_kkt_violation(nw->w[j], nw->gh[2 * j], lambda) / c;
		for (k = 0; k < PS_NEWTON_TRIALS; k++)
			p->trial[k] += lambda *
			    fabs(wj + ps_newton_trial_step(k) * d) / c;
	}
	p->f0 = loss0 + lambda * l1;	/* summed as the trials are */
}

/*
 * Minimise this worker's model of F: solved directly on a small active
 * set (and polished), else by sweeps of coordinate descent.
 */
static void
newton_model(struct worker *w)
{
	struct newton *nw = &w->newton;
	double K = (double)w->conf.nworkers, lambda = w->conf.lambda;

	if (ps_newton_direct(&nw->nt, nw->w, nw->gh, K, lambda, nw->radius,
	    w->conf.solve_max, PS_NEWTON_POLISH) < 0)
		ps_newton_sweeps(&nw->nt, nw->w, nw->gh, K, lambda,
		    nw->radius, (int)w->conf.sweeps);
}

/* Compute round t's push and send it. */
static void
newton_start(struct worker *w, uint64_t t)
{
	struct newton *nw = &w->newton;
	struct nround *r = newton_slot(w, t);

	r->t = t;
	switch (t % 3) {
	case NEWTON_GRADIENT:
		newton_gradient(w, r);
		break;
	case NEWTON_DIRECTION:	/* newton.h step 2 */
		newton_model(w);
		newton_direction(w, r);
		break;
	default:
		newton_direction(w, r);
		newton_parts(w, &r->aux);
		r->aux.base.loss = nw->loss;
		r->aux.base.ckpt = ckpt_due(w, t / 3);
		break;
	}
	nw->t_next = t + 1;
	newton_expect(w, r);
	newton_send(w, t);
}

/*
 * One TSV progress line, in dbpg's columns; test metrics with it.  Its
 * gap_est is the stopping estimate: twice the changes to come after the
 * iteration's step, at the rate of the step's change and the one before.
 */
static void
newton_print(struct worker *w, uint64_t iter, double obj, double change,
    double nnz, double kkt_rel, double gap)
{
	double logloss = NAN, auc = NAN;
	uint64_t sent, recv;

	if (w->have_test)
		evaltest_run(w, &logloss, &auc);
	links_bytes(w, &sent, &recv);
	printf("%llu\t%.3f\t%.17g\t%.6g\t%.0f\t%llu\t%llu\t%.6g\t%.6g\t%.6g"
	    "\t%.6g", (unsigned long long)iter, ps_clock_now() - w->started,
	    obj, change, nnz, (unsigned long long)sent,
	    (unsigned long long)recv, logloss, auc, kkt_rel, gap);
	filters_print(w);
	putchar('\n');
}

/*
 * The stopping estimate is this many times the changes of F to come,
 * extrapolated: once, it ended mushrooms 8.6e-4 from the optimum, where
 * it said 5.5e-4 (the steps' contraction slowed at the end); twice, at
 * 4.1e-5 an iteration later, as the rule on the next gradient round's F
 * did (tests/bench/README, thirty-ninth session).
 */
#define NEWTON_TAIL	2

/*
 * Iteration i's step round finished: the new weights are in; print its
 * line (F at the weights it started from), follow the step with the
 * trust radius and make up this worker's vote, on the step's change of F
 * (F at the step from the servers' sum of the trials: r->loss).
 */
static void
newton_stepped(struct worker *w, uint64_t i, const struct nround *r)
{
	struct newton *nw = &w->newton;
	double change = i > 0 ? (nw->fprev - nw->f) / fabs(nw->f) : NAN;
	double stepped = (nw->f - r->loss) / fabs(r->loss);
	double eps = w->conf.eps, rel, rate, tail;

	if (r->kkt > nw->kktref)
		nw->kktref = r->kkt;
	rel = nw->kktref > 0 ? r->kkt / nw->kktref : NAN;
	rate = fabs(stepped) / fabs(change);
	tail = rate < 1 ? NEWTON_TAIL * fabs(stepped) * rate / (1 - rate) : NAN;
	newton_print(w, i, nw->f, change, nw->nnz, rel, tail);
	if (!isnan(r->step))	/* NAN: settled everywhere (round.c, 7) */
		nw->radius = ps_newton_radius(nw->radius, r->step);
	nw->vote = i + 1 >= w->conf.max_iter || (eps > 0 &&
	    ((rel <= eps && rate <= 0.5 && tail <= eps) ||
	    fabs(stepped) <= eps / 1000));
	nw->fprev = nw->f;
}

/* Round t finished: take what it says; 1 when the run is over. */
static int
newton_finish(struct worker *w, uint64_t t)
{
	struct newton *nw = &w->newton;
	const struct nround *r = newton_slot(w, t);

	switch (t % 3) {
	case NEWTON_GRADIENT:
		nw->f = r->loss + w->conf.lambda * r->l1;
		nw->nnz = r->nnz;
		if (!isnan(r->radius))	/* the job's, for one that came back */
			nw->radius = r->radius;
		else if (isnan(nw->radius))	/* no worker knew it */
			nw->radius = 1;
		return r->vmin >= 1;
	case NEWTON_STEP:
		newton_stepped(w, t / 3, r);
		return 0;
	default:
		return 0;
	}
}

/*
 * Start the next round once the last finished; 1 once a gradient round
 * with every worker's vote to stop finished.
 */
int
newton_advance(struct worker *w)
{
	struct newton *nw = &w->newton;

	if (nw->t_done < nw->t_next)
		return 0;
	if (nw->t_next > 0 && nw->t_taken < nw->t_next) {
		nw->t_taken = nw->t_next;
		if (newton_finish(w, nw->t_next - 1))
			return 1;
	}
	if (nw->t_next / 3 >= PS_ROUND_MAX / 3)
		fatalx(EX_SOFTWARE, "newton: out of rounds");
	newton_start(w, nw->t_next);
	return 0;
}

/*
 * The ring changed (failover.c): group the features by their new servers;
 * send again the rounds of the iteration of the round finished last, up
 * to it (their answers are not taken), those this process pushed, and
 * the one in flight.  The servers dropped the sums rounds they held for a
 * worker that comes back (cmd/ps-server/newton.c, rejoin), which goes
 * again from the start of the iteration it died in: with this worker's
 * gradient round in flight, the one before, whose step round it pushed.
 */
void
newton_ring_changed(struct worker *w)
{
	struct newton *nw = &w->newton;
	uint64_t t, from;

	if (nw->bysrv == NULL)
		return;		/* still connecting: nothing sent yet */
	newton_group(w);
	if (nw->t_done > 0) {
		nw->echoes++;
		from = nw->t_done - 1 - (nw->t_done - 1) % 3;
		for (t = from; t < nw->t_done; t++)
			if (newton_slot(w, t)->t == t)	/* pushed here */
				newton_send(w, t);
	}
	if (nw->t_done < nw->t_next) {
		newton_expect(w, newton_slot(w, nw->t_done));
		newton_send(w, nw->t_done);
	}
}

/*
 * Started again during the job, whose servers last had a push of ours in
 * iteration i: take the weights from before its step round and go again
 * from its gradient round (cmd/ps-server/newton.c, rejoin); the trust
 * radius comes with that round's answer.
 */
static void
newton_comeback(struct worker *w, uint64_t i)
{
	struct newton *nw = &w->newton;

	resume_weights(w, 3 * i + 2);
	nw->t_next = nw->t_done = nw->t_taken = 3 * i;
	nw->radius = nw->fprev = NAN;
	log_info("came back in iteration %llu: going again from its start",
	    (unsigned long long)i);
}

/* The run's state, once the shard, the ring and the links are up. */
static void
newton_begin(struct worker *w)
{
	struct newton *nw = &w->newton;
	size_t nfeat = w->ds.nfeat, npos = w->dbpg.plan.boff[1], k;
	uint64_t last;

	ps_newton_init(&nw->nt, &w->ds);
	nw->w = xcalloc(nfeat + 1, sizeof *nw->w);
	nw->margin = xcalloc(w->ds.nrows + 1, sizeof *nw->margin);
	nw->gh = xcalloc(2 * nfeat + 1, sizeof *nw->gh);
	nw->dbar = xcalloc(nfeat + 1, sizeof *nw->dbar);
	nw->holders = xcalloc(nfeat + 1, sizeof *nw->holders);
	nw->bysrv = xcalloc(npos + 1, sizeof *nw->bysrv);
	nw->keybuf = xcalloc(npos + 1, sizeof *nw->keybuf);
	nw->valbuf = xcalloc(2 * npos + 1, sizeof *nw->valbuf);
	for (k = 0; k < NEWTON_SLOTS; k++) {
		nw->slot[k].vals = xcalloc(2 * npos + 1,
		    sizeof *nw->slot[k].vals);
		nw->slot[k].t = UINT64_MAX;
	}
	nw->radius = 1;
	newton_group(w);
	if (w->comeback.back && (last = resume_last_push(w)) > 0)
		newton_comeback(w, (last - 1) / 3);
	else
		resume_start_model(w);	/* the servers' model, if any */
	w->ckpt_last = ps_clock_now();
	fputs(PROGRESS_COLUMNS, stdout);
	filters_print_header();
	putchar('\n');
}

int
newton_run(struct worker *w)
{
	struct newton *nw = &w->newton;
	uint64_t iters;

	newton_begin(w);
	links_run(w, newton_advance, "round", &nw->t_done);
	iters = nw->t_next / 3;
	newton_print(w, iters, nw->f, (nw->fprev - nw->f) / fabs(nw->f),
	    nw->nnz, NAN, NAN);
	fflush(stdout);
	log_info("finished after %llu iterations: objective %.9g, %.0f non-zero "
	    "weights", (unsigned long long)iters, nw->f, nw->nnz);
	links_bye(w);
	return 0;
}

/* What the newton run allocated (nothing for the other algorithms). */
void
newton_release(struct worker *w)
{
	struct newton *nw = &w->newton;
	size_t k;

	ps_newton_release(&nw->nt);
	free(nw->w);
	free(nw->margin);
	free(nw->gh);
	free(nw->dbar);
	free(nw->holders);
	free(nw->off);
	free(nw->bysrv);
	free(nw->keybuf);
	free(nw->valbuf);
	for (k = 0; k < NEWTON_SLOTS; k++)
		free(nw->slot[k].vals);
}
