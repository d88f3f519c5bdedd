/*
 * stop.c: when a dbpg job has converged (dbpg.c rule 3).
 *
 * Two measures, and a pass converged when either says so:
 *  1. An estimate of F - F*, relative to F, from the exact objectives at
 *     the pass starts (F_i at the start of pass i, dbpg.c rule 2),
 *     extrapolated as a geometric tail: over the last two windows of
 *     W = max(2, i / 4) passes each, F went down by r = F_{i-W} - F_i and
 *     before that by r0 = F_{i-2W} - F_{i-W}; at the rate rho = r / r0
 *     the windows to come take off r rho / (1 - rho), and the estimate is
 *     STOP_SAFETY times that, over F_i (infinite while the decrease does
 *     not shrink: rho >= 1).  Windows a quarter of the run long
 *     smooth the ups and downs of single passes (the momentum's restarts,
 *     the KKT filter's resets) and keep the fast start out of the rate
 *     once the run is long; the factor covers tails that slow down as
 *     they go (a9a's under dbpg is nearer a power of the pass count than
 *     geometric).  Converged when it is at most epsilon.
 *  2. The KKT violation: each server sums, over the keys a round touches,
 *     the size of the smallest subgradient of F in that coordinate before
 *     the round's step (ps_kkt_violation(), prox.h), every reply carries
 *     the sum, and a worker adds up those of a pass.  Converged when that
 *     sum, relative to the largest of a pass this worker saw (from w = 0),
 *     is at most epsilon and the pass changed the objective by at most
 *     epsilon / 100, relatively.
 * Or when the pass changed the objective by at most epsilon / 1000 (a
 * warm start near the optimum, -I, whose F hardly moves).  A job that
 * began from the servers' model (dbpg.c rule 8) has no measure 1: its
 * windows would see a tail without its start, and it would end where
 * the cold job's rule had not.  At epsilon
 * 1e-3 each of 1 and 2 ends every shared data set and the generated ones
 * within 1e-3 of the optimum, and either may come first: 1 ends the
 * well-conditioned ones (news20 scaled, the generated sets) in half to
 * three quarters of 2's passes, 2 the raw-count news20 and spamassassin
 * sooner (tests/bench/README, seventeenth session).  Neither is a bound.
 * Keys the KKT filter left out of a pass count 0 in its violation and
 * did not move: their gradient was below the threshold, so their weight
 * 0 was optimal; the vote checks a pass that began with every feature
 * active before stopping.  Such a check pass, just after measure 1 said
 * the pass before converged, passes when that estimate and its own
 * relative decrease add up to at most epsilon: the features it brought
 * back make its decrease jump, which keeps measure 1 itself up for
 * passes (gen-10m: 12 passes, one of them full after the verdict, where
 * it took 13 with two, 4e-5 from F*).  Not so after measure 2: on a slow
 * tail (a9a under dbpg, from a checkpoint) a full pass may take 5e-4
 * off and still be 1.5e-4 short.  The check comes early when measure 1
 * is near (stop_near): then the pass after the one where the estimate
 * first reaches epsilon may already be the check, where it would be the
 * next but one (gen-10m: stopped at 43 iterations, not 47; with -S 4 at
 * 43, not 71, where a check pass after a momentum restart failed).
 *
 * A worker restarted during the job (dbpg.c rule 6) did not see the first
 * pass, so it has no measure 2, and measure 1 only once its windows lie
 * in the passes it ran: until then it abstains, and the others decide as
 * they would have without the fault.  A pass that a ring change cut
 * through has no violation (stop_ring_changed).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "util/xmalloc.h"
#include "worker.h"

/* The estimate's margin over the geometric tail. */
#define STOP_SAFETY	8.0
/* Measure 1 within this many epsilons: check the features left out now. */
#define STOP_NEAR	4.0

/* Room for pass p in the per-pass arrays. */
void
stop_pass_grow(struct dbpg *db, uint64_t p)
{
	size_t cap = db->passcap ? db->passcap : 64, k;

	if (p < db->passcap)
		return;
	while (cap <= p)	/* a restarted worker starts late */
		cap *= 2;
	db->fullpass = xreallocarray(db->fullpass, cap, 1);
	memset(db->fullpass + db->passcap, 0, cap - db->passcap);
	db->kktpass = xreallocarray(db->kktpass, cap, sizeof *db->kktpass);
	for (k = db->passcap; k < cap; k++)
		db->kktpass[k] = 0;
	db->passcap = cap;
}

/* Iteration t finished with the servers' summed violation kkt. */
void
stop_add_kkt(struct worker *w, uint64_t t, double kkt)
{
	struct dbpg *db = &w->dbpg;
	uint64_t b = db->plan.nblocks, p = t / b;

	stop_pass_grow(db, p);
	if (isfinite(kkt))
		db->kktpass[p] += kkt;
	if ((t + 1) % b == 0 && db->kktpass[p] > db->kktref)
		db->kktref = db->kktpass[p];
}

/*
 * The ring changed with iterations t_done to t_next in flight: their
 * replies may come from servers that took keys over and settled a round
 * already applied there, without its violation, so the passes they belong
 * to show none (NAN).
 */
void
stop_ring_changed(struct worker *w)
{
	struct dbpg *db = &w->dbpg;
	uint64_t b = db->plan.nblocks, p;

	if (b == 0)
		return;
	stop_pass_grow(db, db->t_next / b);
	for (p = db->t_done / b; p <= db->t_next / b; p++)
		db->kktpass[p] = NAN;
}

/* The violation of pass p relative to the reference, or NAN. */
double
stop_kkt_rel(const struct worker *w, uint64_t p)
{
	const struct dbpg *db = &w->dbpg;

	if (p >= db->passcap || !(db->kktref > 0))
		return NAN;
	return db->kktpass[p] / db->kktref;
}

/* F at the start of pass i, if this worker saw it; else NAN. */
static double
stop_objective(const struct worker *w, uint64_t i)
{
	const struct dbpg *db = &w->dbpg;
	uint64_t t = i * db->plan.nblocks;

	return t < db->t_done && t < db->objcap ? db->objective[t] : NAN;
}

/*
 * Measure 1 for the pass start after pass p (the header); NAN before
 * there are two windows, and in a job from the servers' model.
 */
double
stop_gap_estimate(const struct worker *w, uint64_t p)
{
	uint64_t i = p + 1, span = i / 4 > 2 ? i / 4 : 2;
	double f, r, r0, rho;

	if (i < 2 * span || w->dbpg.warm)
		return NAN;
	f = stop_objective(w, i);
	r = stop_objective(w, i - span) - f;
	r0 = stop_objective(w, i - 2 * span) - stop_objective(w, i - span);
	if (isnan(r) || isnan(r0) || !(f > 0))
		return NAN;
	rho = r / r0;
	if (!(r > 0 && r0 > 0 && rho < 1))
		return INFINITY;
	return STOP_SAFETY * r * rho / (1 - rho) / f;
}

/* How much pass p changed the objective, relatively (NAN if unseen). */
static double
stop_pass_change(const struct worker *w, uint64_t p)
{
	const struct dbpg *db = &w->dbpg;
	uint64_t b = db->plan.nblocks;
	double f0 = db->objective[p * b], f1 = db->objective[(p + 1) * b];

	return fabs(f0 - f1) / fabs(f1);
}

/*
 * Whether pass p converged (the measures above, or the change under
 * epsilon / 1000): 1 yes, 0 no, -1 unknown to a restarted worker (rule 6).
 */
static int
stop_converged(const struct worker *w, uint64_t p)
{
	const struct dbpg *db = &w->dbpg;
	double eps = w->conf.eps, change, gap;

	change = stop_pass_change(w, p);
	gap = stop_gap_estimate(w, p);
	if (change <= eps / 1000 || gap <= eps ||
	    (db->t_resumed == 0 && stop_kkt_rel(w, p) <= eps &&
	    change <= eps / 100))
		return 1;
	return isnan(gap) && db->t_resumed > 0 ? -1 : 0;
}

/*
 * Pass p began with every feature active just after measure 1 said pass
 * p - 1 converged: it checks the features the KKT filter had left out,
 * and passes when that estimate and what pass p took off the objective,
 * relatively, add up to at most epsilon.
 */
static int
stop_check_passed(const struct worker *w, uint64_t p)
{
	if (p == 0 || !w->dbpg.fullpass[p])
		return 0;
	return stop_gap_estimate(w, p - 1) + stop_pass_change(w, p) <=
	    w->conf.eps;
}

/*
 * Whether pass p, not converged, is near enough (measure 1 at most
 * STOP_NEAR epsilons) to check the features now, none of passes p - 2 to
 * p + 1 having begun with every one active.
 */
static int
stop_near(const struct worker *w, uint64_t p)
{
	const struct dbpg *db = &w->dbpg;
	uint64_t q;

	if (!(stop_gap_estimate(w, p) <= STOP_NEAR * w->conf.eps))
		return 0;
	for (q = p > 2 ? p - 2 : 0; q <= p + 1 && q < db->passcap; q++)
		if (db->fullpass[q])
			return 0;
	return 1;
}

/*
 * This worker's vote, as the voting iteration of a pass starts (dbpg.c
 * rule 3): 0 go on, 1 reset the active set first (converged, or near:
 * stop_near), 2 stop; VOTE_ABSTAIN until it saw a whole pass (rule 6).
 * It looks at pass p, the latest finished; when p converged but did not
 * begin with every feature active and pass p + 1 did (a reset already
 * under way), it waits for p + 1's verdict rather than resetting again.
 */
uint32_t
stop_vote(const struct worker *w)
{
	const struct dbpg *db = &w->dbpg;
	uint64_t b = db->plan.nblocks, s, p;
	int converged;

	if (db->t_done < b + 1 || w->conf.eps == 0)
		return 0;	/* -e 0: only -m ends the job */
	s = (db->t_done - 1) / b * b;	/* the latest pass start finished */
	if (s < b + db->t_resumed)
		return VOTE_ABSTAIN;
	p = s / b - 1;
	converged = stop_converged(w, p);
	if (converged < 0)
		return VOTE_ABSTAIN;
	if ((converged && db->fullpass[p]) || stop_check_passed(w, p))
		return 2;
	if (converged)
		return p + 1 < db->passcap && db->fullpass[p + 1] ? 0 : 1;
	return stop_near(w, p);
}
