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
 *     sequential, larger tau lets computation overlap the network, and
 *     tau = inf (eventual consistency) waits for nothing within a pass.
 *     The first iteration of each pass over the blocks waits for every
 *     earlier one (a barrier once per pass).
 *  2. The objective of iteration t is the servers' sum of the workers' loss
 *     at push time plus lambda times the l1 norm before the step; every
 *     worker sees the same sequence.  At a pass start, thanks to the
 *     barrier, it is exactly F(w); within a pass, under delay, the losses
 *     lag the norm and it is an estimate.
 *  3. One iteration of each pass carries the worker's vote on stopping
 *     (stop.c): s + tau + 1 for the pass that starts at s, the first
 *     whose start sees s finished under rule 1 (or the pass's last
 *     iteration, if that comes sooner).  It looks at the latest pass
 *     that has finished, from s - B to s: the exact objectives at the
 *     pass starts up to its end, and its summed KKT violation.
 *     If it converged it votes 1, or 2 if that pass also began with
 *     every feature in the KKT active set; else 0, or 1 when it is near
 *     (stop.c).  The servers send back the lowest vote of all workers,
 *     which every worker holds at the start of the voting iteration's
 *     t + tau + 1, so every worker decides alike, even if a ring change
 *     gave the workers slightly different objectives: 2 stops there,
 *     within the pass, or at the next pass start if that comes first; 1
 *     resets the active set at the next pass start, so that the answer
 *     is checked against every feature.  (With the vote on the last
 *     iteration, a verdict of 2 ran the rest of its pass: 6 of the 8
 *     iterations of a pass of the generated 4M set.)
 *     After the last iteration has finished, a final round with no keys
 *     reports the exact objective of the final weights.
 *  4. KKT active set (l1lr.h): a feature whose weight stayed 0 with a global
 *     gradient sum |G| <= kkt * lambda is no longer pushed; the set is reset
 *     every PASSES_PER_RESET passes, unless the pass before began with
 *     every feature active already (an early check pass, rule 3: on
 *     gen-10m that saved two of the check's full-width iterations,
 *     tests/bench/README), and before stopping.  The servers
 *     decide (they send such a weight as -0), so every worker keeps the
 *     same set.
 *  5. Filters (filters.c) act on what iteration t pushes and pulls; a push
 *     the server could not resolve (key cache miss) is sent again from the
 *     iteration's state, which stays put until its pull is answered.
 *  6. A worker restarted during the job (resume.c) resumes at the round r
 *     the servers name, with their current weights, trust radii and KKT
 *     verdicts.  Its first run may not have reported the rounds from
 *     q = r - 1 - tau on (at most tau + 1 were in flight), so it runs the
 *     iterations again from the voting one of the pass before q's (from 0
 *     in the first pass), or of the pass two before when q's pass is a
 *     periodic reset's (rule 4 looks at whether the pass before began
 *     full, which the vote of the one before that decided): it learns
 *     the agreed votes that decide the pass starts since, and stops
 *     within the passes (rule 3), and the
 *     verdicts of the blocks those passes did, and reports those
 *     iterations again (the lines its first run printed come again, the
 *     same).  The servers answer those pushes without applying them
 *     twice; a reply to a round whose weights it already took says so,
 *     and leaves the trust radii alone.  It abstains from votes until it
 *     saw both pass starts one looks at, so the other workers decide.
 *  7. Checkpoints (cmd/ps-server/checkpoint.c): worker 0 flags the push of
 *     iteration t when t + 1 is a multiple of --checkpoint-every, when
 *     --checkpoint-secs passed since the last flag, or when a server's
 *     reply said one was requested; each server then writes its part
 *     once it applied round t.  With either option, the final round is
 *     flagged too, so the checkpoint directory ends with the final model.
 *  8. A job whose servers started from a model (ps-server -i; HELLO_OK
 *     says how many non-zero weights a server holds) takes their weights
 *     before its first iteration (resume.c) and builds its margins from
 *     them.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cluster/hello.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "wire/msg_round.h"
#include "worker.h"

/* Passes between two resets of the KKT active set. */
#define PASSES_PER_RESET	10
/*
 * Passes between two sums of the loss from the margins, which bound the
 * incremental sum's rounding (l1lr.c): each takes a pass's exp per row,
 * 4% of a worker's pass on gen-10m, against a drift of about 1e-15 of F
 * a pass.
 */
#define PASSES_PER_LOSS		8

static struct iter *
dbpg_slot(struct worker *w, uint64_t t)
{
	return &w->dbpg.inflight[t % w->dbpg.nslots];
}

/*
 * The iteration finished last, sent again after the last ring change
 * (dbpg_ring_changed), in the spare slot after the ring of slots; NULL if
 * none.
 */
static struct iter *
dbpg_echo(struct worker *w)
{
	struct dbpg *db = &w->dbpg;

	return db->echoes > 0 ? &db->inflight[db->nslots] : NULL;
}

/* Iteration t's state while it may be sent: in flight, or the echo. */
static struct iter *
dbpg_sendable(struct worker *w, uint64_t t)
{
	struct dbpg *db = &w->dbpg;
	struct iter *it = dbpg_echo(w);

	if (it != NULL && it->t == t)
		return it;
	it = dbpg_slot(w, t);
	if (t < db->t_done || t >= db->t_next || it->t != t)
		return NULL;
	return it;
}

/* Keep the objective of iteration t (rule 2). */
static void
dbpg_record(struct worker *w, uint64_t t, double obj)
{
	struct dbpg *db = &w->dbpg;
	size_t k;

	if (t >= db->objcap) {
		k = db->objcap;
		while (t >= db->objcap)
			db->objcap = db->objcap ? db->objcap * 2 : 1024;
		db->objective = xreallocarray(db->objective, db->objcap,
		    sizeof *db->objective);
		for (; k < db->objcap; k++)
			db->objective[k] = NAN;	/* not seen (rule 6) */
	}
	db->objective[t] = obj;
}

/* Relative decrease of the objective over the pass that ended with s. */
static double
dbpg_rel_change(const struct worker *w, uint64_t s)
{
	const struct dbpg *db = &w->dbpg;
	uint64_t b = w->dbpg.plan.nblocks;

	if (s < b)
		return NAN;
	return (db->objective[s - b] - db->objective[s]) /
	    fabs(db->objective[s]);
}

/* Remember whether pass p began with every feature active. */
static void
dbpg_mark_pass(struct worker *w, uint64_t p, int full)
{
	stop_pass_grow(&w->dbpg, p);
	w->dbpg.fullpass[p] = (uint8_t)full;
}

/*
 * Rule 3: the iteration of each pass that carries the votes, by its place
 * in the pass: the first whose start sees the pass start finished.
 */
static uint64_t
dbpg_vote_place(const struct worker *w)
{
	uint64_t b = w->dbpg.plan.nblocks, tau = w->conf.tau;

	return tau + 1 < b ? tau + 1 : b - 1;
}

/* Rule 3: the agreed vote of pass p's voting iteration, 0 if unseen. */
static uint32_t
dbpg_agreed(const struct worker *w, uint64_t p)
{
	const struct dbpg *db = &w->dbpg;

	return db->vote_t == p * db->plan.nblocks + dbpg_vote_place(w) + 1 ?
	    db->vote_agreed : 0;
}

/*
 * Rule 3 within a pass: at the first iteration t whose start sees the
 * pass's voting iteration finished, 1 to stop.
 */
static int
dbpg_mid_pass(const struct worker *w, uint64_t t)
{
	uint64_t b = w->dbpg.plan.nblocks;

	return t % b == dbpg_vote_place(w) + w->conf.tau + 1 &&
	    dbpg_agreed(w, t / b) == 2;
}

/* Rules 3 and 4 at the start t of a pass: 1 to stop. */
static int
dbpg_pass_start(struct worker *w, uint64_t t)
{
	uint64_t p = t / w->dbpg.plan.nblocks;
	uint32_t agreed = p > 0 ? dbpg_agreed(w, p - 1) : 0;
	int after_full = p > 0 && p - 1 < w->dbpg.passcap &&
	    w->dbpg.fullpass[p - 1];

	if (agreed == 2)
		return 1;
	if (p == 0 || agreed == 1 ||
	    (p % PASSES_PER_RESET == 0 && !after_full)) {
		size_t back = ps_l1lr_activate_all(&w->dbpg.lr);

		if (back > 0)
			log_debug("pass %llu: %zu features back in the active "
			    "set", (unsigned long long)p, back);
		dbpg_mark_pass(w, p, 1);
	} else {
		dbpg_mark_pass(w, p, 0);
	}
	return 0;
}

/* Rule 1: may iteration t start now? */
static int
dbpg_may_start(const struct worker *w, uint64_t t)
{
	if (t % w->dbpg.plan.nblocks == 0)
		return w->dbpg.t_done == t;
	return t - w->dbpg.t_done <= w->conf.tau;
}

/* Send server s iteration t's push (again, after a key cache miss). */
void
dbpg_push(struct worker *w, uint64_t t, size_t s)
{
	struct dbpg *db = &w->dbpg;
	struct plan *pl = &db->plan;
	struct iter *it = dbpg_sendable(w, t);
	float ufactor = w->conf.filters & FILTER_FP16 ? 1 + 0x1p-10f : 1;
	size_t lo, k, n = 0;
	struct ps_dbpg_push push;
	struct ps_msg m;

	if (it == NULL || it->block == UINT32_MAX)
		fatalx(EX_PROTOCOL, "server %zu (%s) asked again for the push "
		    "of iteration %llu, which is not in flight", s,
		    w->links[s]->addr, (unsigned long long)t);
	lo = pl->boff[it->block];
	for (k = it->actoff[s]; k < it->actoff[s + 1]; k++, n++) {
		size_t pos = lo + it->actpos[k];

		db->keybuf[n] = pl->keys[pos];
		db->gubuf[2 * n] = it->gu[2 * it->actpos[k]];
		/* fp16 rounds to 2^-11 relative: keep the bound an upper one. */
		db->gubuf[2 * n + 1] = it->gu[2 * it->actpos[k] + 1] * ufactor;
	}
	links_msg(w, &m, PS_MSG_PUSH,
	    w->conf.filters & FILTER_FP16 ? PS_MSG_F_FP16 : 0, t);
	m.nkeys = (uint32_t)n;
	m.keys = db->keybuf;
	m.width = 2;
	m.vals = db->gubuf;
	push.loss = it->push_loss;
	push.vote = it->vote == VOTE_ABSTAIN ? INFINITY : it->vote;
	push.ckpt = it->ckpt;
	ps_dbpg_push_encode(&push, &m);
	links_send(w, s, &m);
}

/*
 * Group block b's features that iteration t pushes by server, ascending
 * within (actpos, actoff).  At the iteration's start (first set) they are
 * picked and counted; when a ring change sends it again, the same ones go
 * to their new servers.
 */
static void
dbpg_select(struct worker *w, uint64_t t, struct iter *it, int first)
{
	struct plan *pl = &w->dbpg.plan;
	const struct ps_l1lr_block *bl = &w->dbpg.lr.blocks[it->block];
	size_t lo = pl->boff[it->block], s, i;
	float omitted = it->theta > 0 ? (float)it->theta : 0;

	/* Only the active features' entries are read (ps_l1lr_apply()). */
	memset(it->actoff, 0, (pl->nservers + 1) * sizeof *it->actoff);
	for (i = 0; i < bl->nact; i++) {
		uint32_t p = bl->act[i];

		it->wnew[p] = w->dbpg.lr.w[pl->feats[lo + p]];
		it->slack[p] = -1;	/* not pushed: left alone */
		it->drop[p] = 0;
		if (first)
			it->sel[p] = (uint8_t)!filters_skip(w, t,
			    pl->keys[lo + p]);
		if (it->sel[p])
			it->actoff[pl->srv[lo + p] + 1]++;
	}
	for (s = 0; s < pl->nservers; s++)
		it->actoff[s + 1] += it->actoff[s];
	/* Fill each server's part, moving its start up; then shift back. */
	for (i = 0; i < bl->nact; i++) {
		uint32_t p = bl->act[i];

		if (!it->sel[p])
			continue;
		it->actpos[it->actoff[pl->srv[lo + p]]++] = p;
		/* Until a reply names it, the weight was filtered out. */
		it->slack[p] = omitted;
	}
	for (s = pl->nservers; s > 0; s--)
		it->actoff[s] = it->actoff[s - 1];
	it->actoff[0] = 0;
	if (first) {
		w->counts.active += bl->nact;
		w->counts.block += bl->nfeat;
		w->counts.pushed += it->actoff[pl->nservers];
	}
}

static void dbpg_send(struct worker *w, uint64_t t);
static void dbpg_final_send(struct worker *w, uint64_t t);

/* Push one block's selected features to every server; ask for new weights. */
static void
dbpg_start(struct worker *w, uint64_t t)
{
	struct dbpg *db = &w->dbpg;
	struct plan *pl = &db->plan;
	struct iter *it = dbpg_slot(w, t);
	uint64_t ahead;
	uint32_t b;

	if (t % pl->nblocks == 0) {
		plan_pass_order(pl, t / pl->nblocks, w->conf.seed, db->order);
		if (t / pl->nblocks % PASSES_PER_LOSS == 0)
			ps_l1lr_loss(&db->lr);	/* bound rounding drift */
	}
	b = db->order[t % pl->nblocks];
	/*
	 * Blocks of this pass that may start before this one's weights come
	 * back move together with it: count them as pending now (l1lr.h).
	 */
	for (ahead = 1; ahead <= w->conf.tau &&
	    (t % pl->nblocks) + ahead < pl->nblocks; ahead++)
		ps_l1lr_reserve(&db->lr, db->order[t % pl->nblocks + ahead]);
	log_debug("iteration %llu starts, block %u: iterations below %llu "
	    "have finished", (unsigned long long)t, b,
	    (unsigned long long)db->t_done);
	ps_l1lr_block_grad(&w->dbpg.lr, b, it->gu);
	it->t = t;
	it->block = b;
	it->push_loss = w->dbpg.lr.loss;
	it->theta = filters_theta(w, t / pl->nblocks);
	it->vote = t % pl->nblocks == dbpg_vote_place(w) ? stop_vote(w) : 0;
	it->ckpt = ckpt_due(w, t);	/* rule 7 */
	dbpg_select(w, t, it, 1);
	dbpg_send(w, t);
}

/* The pull of iteration t for server s. */
static void
dbpg_pull(struct worker *w, uint64_t t, size_t s)
{
	struct iter *it = dbpg_sendable(w, t);
	struct ps_msg m;

	links_msg(w, &m, PS_MSG_PULL, PS_MSG_F_NOKEYS, t);
	m.nkeys = (uint32_t)(it->actoff[s + 1] - it->actoff[s]);
	ps_round_pull_encode(it->theta, &m);
	links_send(w, s, &m);
}

/* Push iteration t to every server and ask for its new weights. */
static void
dbpg_send(struct worker *w, uint64_t t)
{
	struct iter *it = dbpg_sendable(w, t);
	size_t s;

	it->pending = w->dbpg.plan.nservers;
	it->loss = NAN;
	it->l1 = it->nnz = it->kkt = 0;
	it->vmin = UINT32_MAX;
	for (s = 0; s < w->dbpg.plan.nservers; s++) {
		dbpg_push(w, t, s);
		dbpg_pull(w, t, s);
	}
}

/*
 * Take one reply value for block position p (rule 4: -0 drops it); taken
 * before (rule 6), it leaves the trust radius alone.
 */
static void
dbpg_take(struct iter *it, uint32_t p, float v, int again)
{
	if (v == 0 && signbit(v))
		it->drop[p] = 1;
	it->wnew[p] = v == 0 ? 0.0f : v;
	it->slack[p] = again ? -1 : 0;	/* named: exact */
}

/* Store a server's reply values: for every key pushed, or the keys named. */
static void
dbpg_take_reply(struct worker *w, struct link *l, struct iter *it,
    const struct ps_msg *m, int again, size_t a, size_t z)
{
	const uint64_t *keys = w->dbpg.plan.keys + w->dbpg.plan.boff[it->block];
	size_t k, i;

	if (m->flags & PS_MSG_F_NOKEYS) {
		for (k = a; k < z; k++)
			dbpg_take(it, it->actpos[k], m->vals[k - a], again);
		return;
	}
	for (i = 0, k = a; i < m->nkeys; i++, k++) {
		while (k < z && keys[it->actpos[k]] < m->keys[i])
			k++;
		if (k == z || keys[it->actpos[k]] != m->keys[i])
			fatalx(EX_PROTOCOL, "server %u (%s) answered iteration "
			    "%llu with key %llu, which it was not asked for",
			    l->index, l->addr, (unsigned long long)it->t,
			    (unsigned long long)m->keys[i]);
		dbpg_take(it, it->actpos[k], m->vals[i], again);
	}
}

/*
 * All replies are in: turn what each pushed weight's slack was this time
 * (0 named, theta filtered out) into the bound on the servers' step (the
 * drift left by the last omission adds to it), and remember the new drift.
 */
static void
dbpg_settle_slack(struct worker *w, struct iter *it)
{
	struct dbpg *db = &w->dbpg;
	const uint32_t *feats = db->plan.feats + db->plan.boff[it->block];
	size_t k;

	if (db->drift == NULL)
		return;
	for (k = 0; k < it->actoff[w->dbpg.plan.nservers]; k++) {
		uint32_t p = it->actpos[k];
		float now = it->slack[p];

		if (now < 0)
			continue;	/* taken before (rule 6) */
		it->slack[p] = now + db->drift[feats[p]];
		db->drift[feats[p]] = now;
	}
}

/* A server's answer to the pull of iteration t: apply the new weights. */
void
dbpg_reply(struct worker *w, struct link *l, struct ps_msg *m)
{
	struct dbpg *db = &w->dbpg;
	struct iter *it = NULL;
	struct ps_round_reply rep;
	const struct ps_round_result *res = &rep.result;
	size_t a, z;

	/* An iteration finished here and sent again after a ring change:
	 * its answer is already applied, this one is the same or settled. */
	if (m->timestamp < db->t_done && db->echoes > 0) {
		log_debug("server %u (%s) answered iteration %llu again",
		    l->index, l->addr, (unsigned long long)m->timestamp);
		return;
	}
	/* No slot before the run began: inflight is NULL, t_next 0. */
	if (m->timestamp >= db->t_done && m->timestamp < db->t_next)
		it = dbpg_slot(w, m->timestamp);
	if (it == NULL || it->t != m->timestamp || it->pending == 0)
		fatalx(EX_PROTOCOL, "server %u (%s) answered iteration %llu, "
		    "which is not in flight", l->index, l->addr,
		    (unsigned long long)m->timestamp);
	a = z = 0;
	if (it->block != UINT32_MAX) {	/* not the final, empty round */
		a = it->actoff[l->index];
		z = it->actoff[l->index + 1];
	}
	if (m->width != 1 || ps_round_reply_decode(m, &rep) != 0 ||
	    m->nkeys > z - a ||
	    ((m->flags & PS_MSG_F_NOKEYS) && m->nkeys != z - a))
		fatalx(EX_PROTOCOL, "server %u (%s) answered iteration %llu "
		    "with %u values of width %u, expected %zu", l->index,
		    l->addr, (unsigned long long)m->timestamp, m->nkeys,
		    m->width, z - a);
	if (it->block != UINT32_MAX)
		dbpg_take_reply(w, l, it, m, rep.again, a, z);
	ps_trace_event(w->trace, NULL, 0, "ack\t%s\t%u\t%llu", l->addr,
	    w->conf.channel, (unsigned long long)m->timestamp);
	w->counts.received += m->nkeys;
	if (isnan(it->loss) && isfinite(res->loss))
		it->loss = res->loss;	/* every server sums the same losses */
	if (!(res->vote >= 0))
		it->vmin = 0;
	else if (res->vote < it->vmin)
		it->vmin = (uint32_t)res->vote;
	it->l1 += res->l1_before;
	it->nnz += res->nnz_before;
	if (isfinite(res->kkt))
		it->kkt += res->kkt;
	if (rep.ckpt)
		ckpt_requested(w, m->timestamp);	/* rule 7 */
	if (--it->pending > 0)
		return;
	if (it->block != UINT32_MAX) {
		dbpg_settle_slack(w, it);
		ps_l1lr_apply(&w->dbpg.lr, it->block, it->wnew, it->slack,
		    it->drop);
		stop_add_kkt(w, it->t, it->kkt);
	}
	dbpg_record(w, it->t, it->loss + w->conf.lambda * it->l1);
	while (db->t_done < db->t_next &&
	    dbpg_slot(w, db->t_done)->pending == 0 &&
	    dbpg_slot(w, db->t_done)->t == db->t_done) {
		if (db->t_done % db->plan.nblocks == dbpg_vote_place(w)) {
			db->vote_t = db->t_done + 1;
			db->vote_agreed = dbpg_slot(w, db->t_done)->vmin;
		}
		db->t_done++;
	}
}

/* The relative KKT violation of the latest pass finished at t (stop.c). */
static double
dbpg_kkt_shown(const struct worker *w, uint64_t t)
{
	uint64_t b = w->dbpg.plan.nblocks;

	if ((t + 1) % b == 0)
		return stop_kkt_rel(w, t / b);
	return t >= b ? stop_kkt_rel(w, t / b - 1) : NAN;
}

/* The stopping estimate of the latest pass that ended before t (stop.c). */
static double
dbpg_gap_shown(const struct worker *w, uint64_t t)
{
	uint64_t b = w->dbpg.plan.nblocks;

	return t >= b ? stop_gap_estimate(w, t / b - 1) : NAN;
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
	printf("%llu\t%.3f\t%.17g\t%.6g\t%.0f\t%llu\t%llu\t%.6g\t%.6g\t%.6g"
	    "\t%.6g", (unsigned long long)t, ps_clock_now() - w->started, obj,
	    t < w->dbpg.objcap ? dbpg_rel_change(w, t) : NAN, nnz,
	    (unsigned long long)sent, (unsigned long long)recv, logloss, auc,
	    dbpg_kkt_shown(w, t), dbpg_gap_shown(w, t));
	filters_print(w);
	putchar('\n');
}

/* Report finished iterations in order. */
static void
dbpg_report(struct worker *w)
{
	struct dbpg *db = &w->dbpg;
	while (db->t_printed < db->t_done) {
		uint64_t t = db->t_printed++;
		int pass_end = (t + 1) % w->dbpg.plan.nblocks == 0;

		dbpg_print(w, t, db->objective[t], dbpg_slot(w, t)->nnz,
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
	struct dbpg *db = &w->dbpg;
	uint64_t t = db->t_next;
	struct iter *it;

	w->dbpg.lr.loss = ps_l1lr_loss(&w->dbpg.lr);
	it = dbpg_slot(w, t);
	db->t_next++;
	it->t = t;
	it->block = UINT32_MAX;
	it->push_loss = w->dbpg.lr.loss;
	dbpg_final_send(w, t);
	while (db->t_done < db->t_next)
		links_step(w, "the final round");
}

/* Send the final round t (again, after a ring change). */
static void
dbpg_final_send(struct worker *w, uint64_t t)
{
	struct iter *it = dbpg_slot(w, t);

	it->loss = NAN;
	it->l1 = it->nnz = 0;
	it->vmin = UINT32_MAX;
	it->pending = w->dbpg.plan.nservers;
	memset(it->actoff, 0, (w->dbpg.plan.nservers + 1) * sizeof *it->actoff);
	for (size_t s = 0; s < w->dbpg.plan.nservers; s++) {
		/* Vote 0: as when it was not sent. */
		struct ps_dbpg_push push = { it->push_loss, 0,
		    ckpt_periodic(w) };
		struct ps_msg m;

		links_msg(w, &m, PS_MSG_PUSH, 0, t);
		m.width = 2;
		ps_dbpg_push_encode(&push, &m);
		links_send(w, s, &m);
		m.type = PS_MSG_PULL;
		m.flags = PS_MSG_F_NOKEYS;
		m.width = 0;
		ps_round_pull_encode(NAN, &m);
		links_send(w, s, &m);
	}
}

/*
 * The iteration finished last, if this process ran it: a server may have
 * answered it before its replicas held it (cmd/ps-server/round.c,
 * invariant 6), so a ring change sends it again too.  It moves to the
 * spare slot (its buffers swapped with the spare's), where it stays
 * sendable (a key cache miss asks for it again) while later iterations
 * take the ring's slots; NULL if there is none.
 */
static struct iter *
dbpg_keep_last(struct worker *w)
{
	struct dbpg *db = &w->dbpg;
	struct iter *it, *echo = &db->inflight[db->nslots], tmp;

	if (db->t_done == 0 || db->t_done <= db->t_resumed)
		return NULL;
	if (db->echoes > 0 && echo->t == db->t_done - 1)
		return echo;	/* kept at an earlier ring change */
	it = dbpg_slot(w, db->t_done - 1);
	if (it->t != db->t_done - 1 || it->block == UINT32_MAX)
		return NULL;
	tmp = *echo;
	*echo = *it;
	*it = tmp;
	it->t = UINT64_MAX;
	return echo;
}

/*
 * The ring changed (failover.c): send every iteration in flight that is not
 * fully answered again, whole, to every server of the new ring; what some
 * servers answered under the old ring is dropped (the new ring's answers
 * are the same or newer, and say which server holds each key now).  The
 * iteration finished last goes again as well, with the same keys and
 * values: a server that lost it with its primary applies it, the others
 * answer it from what they hold, and this takes none of those answers.
 */
void
dbpg_ring_changed(struct worker *w)
{
	struct dbpg *db = &w->dbpg;
	struct iter *kept;
	uint64_t t;
	uint32_t k;

	if (db->inflight == NULL)
		return;		/* still connecting: nothing sent yet */
	for (k = 0; k <= db->nslots; k++)
		db->inflight[k].actoff = xreallocarray(db->inflight[k].actoff,
		    w->dbpg.plan.nservers + 1, sizeof *db->inflight[k].actoff);
	if ((kept = dbpg_keep_last(w)) != NULL) {
		db->echoes++;
		dbpg_select(w, kept->t, kept, 0);
		dbpg_send(w, kept->t);
	}
	for (t = db->t_done; t < db->t_next; t++) {
		struct iter *it = dbpg_slot(w, t);

		if (it->t != t || it->pending == 0)
			continue;
		if (it->block == UINT32_MAX) {
			dbpg_final_send(w, t);
			continue;
		}
		dbpg_select(w, t, it, 0);
		dbpg_send(w, t);
	}
}

/* Rule 6: a restarted worker resumes at iteration r > 0 (resume.c). */
static void
dbpg_resume(struct worker *w, uint64_t r)
{
	struct dbpg *db = &w->dbpg;
	uint64_t b = w->dbpg.plan.nblocks, tau = w->conf.tau;
	uint64_t q = r > tau + 1 ? r - 1 - tau : 0;
	uint64_t back = q / b % PASSES_PER_RESET == 0 ? 2 : 1;
	uint64_t t0 = q / b >= back ?
	    (q / b - back) * b + dbpg_vote_place(w) : 0;

	resume_weights(w, r);
	db->t_next = db->t_done = db->t_printed = db->t_resumed = t0;
	if (t0 % b != 0) {
		plan_pass_order(&w->dbpg.plan, t0 / b, w->conf.seed, db->order);
		dbpg_mark_pass(w, t0 / b, 0);
	}
	log_info("restarted: the servers resume this worker at iteration "
	    "%llu; running iterations from %llu again",
	    (unsigned long long)r, (unsigned long long)t0);
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

/*
 * Once the shard and the ring are in: its features in blocks, and the
 * loss over them; the shard's entries, which the blocks hold again, then
 * lend their memory to the blocks' live copies.  The pass barrier bounds
 * any delay by the blocks of a pass, so tau is at most that.  newton
 * takes the plan (its keys and their owners) and keeps its own view of
 * the rows (newton.c).
 */
void
dbpg_prepare(struct worker *w)
{
	struct dbpg *db = &w->dbpg;

	plan_build(&db->plan, &w->ds, &w->ring, w->conf.nblocks,
	    w->conf.seed);
	if (w->conf.tau > db->plan.nblocks)
		w->conf.tau = db->plan.nblocks;
	if (w->conf.algorithm == PS_ALG_NEWTON)
		return;
	ps_l1lr_init(&db->lr, &w->ds, w->conf.beta, db->plan.nblocks,
	    db->plan.boff, db->plan.feats);
	ps_l1lr_take_room(&db->lr, &w->ds);
}

/*
 * The run's state; then it starts from the resume point, or from the
 * servers' model (rule 8) with the progress header.
 */
void
dbpg_begin(struct worker *w)
{
	struct dbpg *db = &w->dbpg;
	uint64_t resume;
	size_t maxb;
	uint32_t b;

	if (w->conf.filters & FILTER_SIGMOD)
		db->drift = xcalloc(w->ds.nfeat + 1, sizeof *db->drift);
	db->nslots = (uint32_t)w->conf.tau + 2;
	db->inflight = xcalloc(db->nslots + 1, sizeof *db->inflight);
	maxb = dbpg_max_block(&w->dbpg.plan) + 1;
	db->order = xcalloc(w->dbpg.plan.nblocks, sizeof *db->order);
	db->keybuf = xcalloc(maxb, sizeof *db->keybuf);
	db->gubuf = xcalloc(2 * maxb, sizeof *db->gubuf);
	for (b = 0; b <= db->nslots; b++) {
		struct iter *it = &db->inflight[b];

		it->gu = xcalloc(2 * maxb, sizeof *it->gu);
		it->sel = xcalloc(maxb, sizeof *it->sel);
		it->wnew = xcalloc(maxb, sizeof *it->wnew);
		it->slack = xcalloc(maxb, sizeof *it->slack);
		it->drop = xcalloc(maxb, sizeof *it->drop);
		it->actpos = xcalloc(maxb, sizeof *it->actpos);
		it->actoff = xcalloc(db->plan.nservers + 1,
		    sizeof *it->actoff);
	}
	w->ckpt_last = ps_clock_now();
	if ((resume = resume_point(w)) > 0) {
		dbpg_resume(w, resume);
	} else {
		resume_start_model(w);	/* rule 8 */
		fputs(PROGRESS_COLUMNS, stdout);
		filters_print_header();
		putchar('\n');
	}
}

/*
 * Report what finished and start every iteration that may start now;
 * 1 once the last one finished, 0 while replies are awaited.
 */
int
dbpg_advance(struct worker *w)
{
	struct dbpg *db = &w->dbpg;
	dbpg_report(w);
	while (!db->stopping && dbpg_may_start(w, db->t_next)) {
		if (db->t_next >= w->conf.max_iter ||
		    (db->t_next % w->dbpg.plan.nblocks == 0 ?
		    dbpg_pass_start(w, db->t_next) :
		    dbpg_mid_pass(w, db->t_next))) {
			db->stopping = 1;
			break;
		}
		dbpg_start(w, db->t_next++);
	}
	return db->stopping && db->t_done == db->t_next;
}

int
dbpg_run(struct worker *w)
{
	struct dbpg *db = &w->dbpg;
	uint64_t t_final;
	struct iter *last;

	dbpg_begin(w);
	links_run(w, dbpg_advance, "iteration", &db->t_done);
	dbpg_report(w);
	t_final = db->t_next;
	dbpg_final(w);
	last = dbpg_slot(w, t_final);
	dbpg_record(w, t_final, last->loss + w->conf.lambda * last->l1);
	db->t_printed = t_final + 1;
	dbpg_print(w, t_final, db->objective[t_final], last->nnz, 1);
	fflush(stdout);
	log_info("finished after %llu iterations: objective %.9g, %.0f non-zero "
	    "weights", (unsigned long long)t_final, db->objective[t_final],
	    last->nnz);
	links_bye(w);
	return 0;
}

/* What the DBPG run allocated (nothing for sgd). */
void
dbpg_release(struct worker *w)
{
	struct dbpg *db = &w->dbpg;
	plan_release(&w->dbpg.plan);
	ps_l1lr_release(&w->dbpg.lr);
	free(db->drift);
	free(db->keybuf);
	free(db->gubuf);
	free(db->fullpass);
	free(db->kktpass);
	free(db->order);
	for (uint32_t k = 0; db->inflight != NULL && k <= db->nslots; k++) {
		free(db->inflight[k].gu);
		free(db->inflight[k].sel);
		free(db->inflight[k].wnew);
		free(db->inflight[k].slack);
		free(db->inflight[k].drop);
		free(db->inflight[k].actpos);
		free(db->inflight[k].actoff);
	}
	free(db->inflight);
	free(db->objective);
}
