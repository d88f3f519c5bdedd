/*
 * stop.c: when a dbpg job has converged (dbpg.c rule 3).
 *
 * The measure is the KKT violation, as LIBLINEAR's -e: each server sums,
 * over the keys a round touches, the size of the smallest subgradient of
 * F in that coordinate before the round's step (ps_kkt_violation(),
 * prox.h), and every reply carries the sum; a worker adds up the servers'
 * sums of every round of a pass.  That sum, relative to the largest one
 * of a pass this worker saw (normally the first pass, from w = 0), says
 * how far the pass was from optimal in a way that depends little on the
 * data's size or scale.  A pass converged when that is at most epsilon
 * and the objective changed over it by at most epsilon / 100,
 * relatively: the violation alone stops some sets too early (mushrooms,
 * whose data are nearly separable), the change alone stops sets with a
 * slow tail (a9a) far too late.  Measured on the shared data
 * sets, epsilon 1e-3 ends each within 1e-3 relative of the optimum
 * (tests/bench/README).  Keys
 * the KKT filter left out of a pass count 0: their gradient was below
 * the threshold, so their weight 0 was optimal; the vote checks a pass
 * that began with every feature active before stopping.
 *
 * A worker restarted during the job (dbpg.c rule 6) did not see the first
 * pass: it abstains unless the change alone says stop, so the others
 * decide as they would have without the fault.  A pass that a ring change
 * cut through does not count (stop_ring_changed).
 *
 * A job that starts near the optimum (a warm start, -I) may never shrink
 * the violation that much below its first pass: it stops as well when a
 * pass changes the objective by at most epsilon / 1000, relatively.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "util/xmalloc.h"
#include "worker.h"

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
 * to do not count (NAN: the vote goes on, unless the change alone says
 * stop).
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

/*
 * This worker's vote, as the last iteration of a pass starts: 0 go on,
 * 1 converged but reset the active set first, 2 stop; VOTE_ABSTAIN
 * until it saw a whole pass (rule 6).
 */
uint32_t
stop_vote(const struct worker *w)
{
	const struct dbpg *db = &w->dbpg;
	uint64_t b = db->plan.nblocks, s;
	double f0, f1, change;

	if (db->t_done < b + 1 || w->conf.eps == 0)
		return 0;	/* -e 0: only -m ends the job */
	s = (db->t_done - 1) / b * b;	/* the latest pass start finished */
	if (s < b + db->t_resumed)
		return VOTE_ABSTAIN;
	f0 = db->objective[s - b];
	f1 = db->objective[s];
	change = fabs(f0 - f1) / fabs(f1);
	if (!(change <= w->conf.eps / 1000)) {
		if (db->t_resumed > 0)
			return VOTE_ABSTAIN;	/* no first pass: the others */
		if (!(stop_kkt_rel(w, s / b - 1) <= w->conf.eps &&
		    change <= w->conf.eps / 100))
			return 0;
	}
	return db->fullpass[s / b - 1] ? 2 : 1;
}
