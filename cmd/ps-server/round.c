/*
 * round.c: aggregation of one timestamp's pushes and the proximal step.
 * A newton job's rounds go through here too; newton.c says how they
 * differ (its sums rounds change nothing, its step rounds take a step
 * along the workers' averaged direction in place of the proximal step).
 *
 * Invariants:
 *  1. A round t completes only when every worker of the job pushed for t.
 *     The gradients and curvatures are then summed in worker-id order, so
 *     the result does not depend on arrival order and a run at tau = 0 is
 *     bit-for-bit repeatable.
 *  2. Each key's update w <- prox(w, G, U) (prox.h) is applied once, when
 *     the round completes; the loss the workers reported is summed the same
 *     way, and the l1 norm and nnz before and after and the keys' summed
 *     KKT violation before the step are kept as the round's result, sent
 *     with every pull reply.
 *  3. A worker's PULL for t names no keys: it asks for the keys of its own
 *     PUSH for t.  The reply holds each key's new weight, -0 for a key the
 *     KKT filter drops from the active set (w = 0 and |G| <= the job's kkt
 *     threshold), so every worker keeps the same set.  A pull that comes
 *     before the round completes waits; the round is freed once every
 *     worker pulled, before any later round can touch the same keys
 *     (blocks differ within a pass, and passes are separated by the
 *     workers' barrier).
 *  4. A pull with a threshold theta (msg_round.h) asks for the
 *     significantly-modified filter: the reply names its keys and holds
 *     only those whose weight moved more than theta from the value last
 *     sent to that worker, or that the KKT filter drops; theta 0 sends
 *     every weight that changed.
 *  5. A push whose key list the connection could not resolve (key cache
 *     miss) is dropped and its resend awaited; the worker's pull for that
 *     round waits for it like any pull.
 *  6. With replicas, a completed round's pulls wait until every replica
 *     server holds the result of every earlier round (failover/replica.c):
 *     the replicas may lag by the one round last answered, whose result
 *     goes to them while the workers compute the next.  A round is kept
 *     until its replicas hold it and every worker pulled.
 *  7. Ring changes (failover): when the server takes a new ring over, it
 *     drops every round in progress or waiting for replicas; the workers
 *     send every push not fully answered again, under the new ring, and
 *     the one they finished last (6).  Each key's update is applied once:
 *     a key whose mark is already t + 1 or more (this server, or the
 *     primary it took the key over from, applied round t to it, and
 *     perhaps the next pass's first round after it, which may be the same
 *     block) is left out of round t's sums.  A push for a round
 *     some worker may have finished before the change (below the first
 *     iteration a worker had not started, which its HELLO under the new
 *     ring says) whose keys are all marked so is settled: its
 *     pull is answered at once from the current weights and the round's
 *     kept result (the last ROUND_HISTORY rounds are kept), or, when the
 *     keys were applied by their old primary (handed over, or taken over
 *     from a replica), with no loss and no vote: the worker takes those
 *     from the other servers, which all answer the round.
 *  8. Each push carries the worker's stopping vote (msg_round.h); the result
 *     holds the lowest, so every worker takes the same decision.
 *  9. A worker that went away and came back (failover/rejoin.c) pushes
 *     again the rounds below the one after its last push here.  Such a
 *     push for a round not applied yet is dropped when it names the
 *     same keys as the one sent before, whose gradient came from the
 *     state the round started from (the new one may see other servers'
 *     part of the round applied); otherwise, and for a round applied,
 *     it takes the old one's place (its key list is the reply's).  A
 *     round already freed is answered at once from the current weights
 *     and the kept result.  A reply to a round below the one the worker
 *     resumes at, whose weights it took when it came back, says so (its
 *     again) and carries those weights and KKT verdicts: for a key whose
 *     last round is the resume round or later, its state before that
 *     round, which the store keeps (the same block may come twice among
 *     the rounds the worker pushes again, the later one applied here
 *     already).  The worker leaves their trust radii alone.  From the
 *     rounds from there on it took the state before them
 *     (failover/rejoin.c), and it takes their replies as usual.  A
 *     newton job's sums rounds are held for such a worker instead, and
 *     its pushes of them again dropped (newton.c, rejoin).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/prox.h"
#include "server.h"
#include "util/kmerge.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* The round for t, created if absent; NULL if t is already past. */
static struct round *
round_get(struct channel *ch, uint64_t t, int create)
{
	struct job *job = &ch->job;
	struct round *r;

	TAILQ_FOREACH(r, &job->rounds, entry)
		if (r->t == t)
			return r;
	if (!create)
		return NULL;
	r = xcalloc(1, sizeof *r);
	r->t = t;
	r->pushes = xcalloc(job->nworkers, sizeof *r->pushes);
	r->slots = xcalloc(job->nworkers, sizeof *r->slots);
	r->nslots = xcalloc(job->nworkers, sizeof *r->nslots);
	r->resend = xcalloc(job->nworkers, sizeof *r->resend);
	r->theta = xcalloc(job->nworkers, sizeof *r->theta);
	r->waiting = xcalloc(job->nworkers, sizeof *r->waiting);
	r->settled = xcalloc(job->nworkers, sizeof *r->settled);
	r->answered = xcalloc(job->nworkers, sizeof *r->answered);
	r->again = xcalloc(job->nworkers, sizeof *r->again);
	TAILQ_INSERT_TAIL(&job->rounds, r, entry);
	return r;
}

/* The kept result of completed round t, or NULL (invariant 7). */
static const struct round_done *
round_history(const struct channel *ch, uint64_t t)
{
	const struct round_done *d;

	if (ch->job.history == NULL)
		return NULL;
	d = &ch->job.history[t % ROUND_HISTORY];
	return d->t == t + 1 ? d : NULL;
}

static void
round_keep(struct channel *ch, const struct round *r)
{
	struct round_done *d;

	if (ch->job.history == NULL)
		ch->job.history = xcalloc(ROUND_HISTORY,
		    sizeof *ch->job.history);
	d = &ch->job.history[r->t % ROUND_HISTORY];
	d->t = r->t + 1;
	d->result = r->result;
}

static void
round_free(struct channel *ch, struct round *r)
{
	uint32_t i;

	TAILQ_REMOVE(&ch->job.rounds, r, entry);
	for (i = 0; i < ch->job.nworkers; i++) {
		ps_msg_release(&r->pushes[i]);
		free(r->slots[i]);
		if (r->pos != NULL)
			free(r->pos[i]);
	}
	free(r->pos);
	free(r->sums);
	free(r->pushes);
	free(r->slots);
	free(r->nslots);
	free(r->resend);
	free(r->theta);
	free(r->waiting);
	free(r->settled);
	free(r->answered);
	free(r->again);
	free(r);
}

/* The job ended: drop its rounds and what was kept of them. */
void
rounds_clear(struct channel *ch)
{
	struct round *r;

	while ((r = TAILQ_FIRST(&ch->job.rounds)) != NULL)
		round_free(ch, r);
	free(ch->job.history);
	ch->job.history = NULL;
	ch->job.ring_changes = 0;
	ch->job.replay_below = 0;
}

/*
 * The server took a new ring over during the job (invariant 7): drop the
 * rounds in progress (their pushes come again), answer nothing more under
 * the old ring, and stamp replies with the new version.
 */
void
rounds_ring_changed(struct channel *ch)
{
	struct server *srv = ch->srv;
	struct job *job = &ch->job;
	struct round *r;
	size_t dropped = 0;

	if (!job->active || job->algorithm == PS_ALG_SGD)
		return;
	while ((r = TAILQ_FIRST(&job->rounds)) != NULL) {
		dropped++;
		round_free(ch, r);
	}
	job->ring_changes++;
	job->replay_below = 0;	/* until the workers' HELLOs say */
	job->ring_version = srv->ring.version;
	job->server_index = (uint32_t)srv->ring_index;
	job->nservers = (uint32_t)srv->ring.nservers;
	log_info("channel %u: ring version %u: %zu rounds in progress "
	    "dropped, awaiting the workers' pushes again", ch->id,
	    srv->ring.version, dropped);
}

/*
 * --trace: the keys round r applied here, and (once every replica holds
 * them, at once without replicas) that the next round may be answered.
 */
static void
round_trace_apply(struct channel *ch, const struct round *r,
    const uint32_t *slots, size_t n)
{
	const struct store *st = &ch->store;
	uint64_t *keys;
	size_t k;

	if (ch->srv->trace == NULL)
		return;
	keys = xcalloc(n + 1, sizeof *keys);
	for (k = 0; k < n; k++)
		keys[k] = ps_keytab_key(&st->keys, slots[k]);
	ps_trace_event(ch->srv->trace, keys, n, "apply\t%u\t%llu\t%u",
	    ch->id, (unsigned long long)r->t, ch->job.ring_version);
	free(keys);
}

static void
round_trace_answerable(struct channel *ch, const struct round *r)
{
	ps_trace_event(ch->srv->trace, NULL, 0, "replicated\t%u\t%llu",
	    ch->id, (unsigned long long)r->t);
}

/*
 * Slot s's new weight from its weight w: the proximal step from its
 * aggregated gradient g and curvature u, extrapolated by momentum, and the
 * trust radius of the step the workers will take (prox.h, invariants 1-4).
 */
static float
round_step(struct channel *ch, uint32_t s, float w, double g, double u)
{
	struct store *st = &ch->store;
	float trust = ps_trust_unpack(st->trust[s]), next = trust, x, m;

	x = ps_prox_step(w, g, u, ch->job.lambda, &next);
	if (ch->srv->momentum != 0) {
		uint8_t streak = store_streak(st, s);

		m = ps_prox_momentum(x, ps_sparse_get(&st->xprox, s), g,
		    &streak, ch->srv->momentum);
		store_set_streak(st, s, streak);
		ps_sparse_set(&st->xprox, s, x);
		if (m != x)
			next = ps_trust_next(w, m, trust);
		x = m;
	}
	st->trust[s] = ps_trust_pack(next);
	return x;
}

/*
 * Apply slot s's sums g and u in round r (invariant 2): a newton step
 * round's step (newton.c), else the proximal step and its KKT verdict.
 */
static void
round_apply_key(struct channel *ch, struct round *r, uint32_t s, double g,
    double u)
{
	struct store *st = &ch->store;
	float w = store_w(st, s);
	uint16_t before = 0;

	if (st->keep_prev)	/* failover/rejoin.c */
		before = store_keep_prev_slot(st, s);
	if (ch->job.algorithm == PS_ALG_NEWTON) {
		store_set(st, s, newton_weight(w, r->result.step, g, u));
	} else {
		r->result.kkt += ps_kkt_violation(w, g, ch->job.lambda);
		store_set(st, s, round_step(ch, s, w, g, u));
		st->flags[s] = (st->flags[s] & (uint8_t)~STORE_GSMALL) |
		    (fabsf((float)g) <= ch->job.kkt ? STORE_GSMALL : 0);
	}
	if (st->keep_prev)
		store_set_trust_before(st, s, before);
}

/*
 * Hold worker i's push in r by its keys' slots (r->slots[i], which then
 * stand for its keys), inserting the absent keys, and free its keys: 4
 * bytes a key in place of 8 while the round waits for the other pushes.
 */
static void
round_push_hold(struct channel *ch, struct round *r, uint32_t i)
{
	struct ps_msg *m = &r->pushes[i];

	free(r->slots[i]);
	r->slots[i] = xcalloc(m->nkeys + 1, sizeof *r->slots[i]);
	r->nslots[i] = m->nkeys;
	store_slots(&ch->store, m->keys, m->nkeys, r->slots[i]);
	free(m->keys);
	m->keys = NULL;
}

/*
 * Worker i's push in r, into the merge of the round's pushes (list i),
 * held by its slots if it was not yet; its loss and vote into *loss and
 * *vote.
 */
static void
round_push_merge(struct channel *ch, struct round *r, uint32_t i,
    struct ps_kmerge *merge, double *loss, double *vote)
{
	struct ps_dbpg_push push;

	ps_dbpg_push_decode(&r->pushes[i], &push);
	*loss += push.loss;
	*vote = fmin(*vote, push.vote);
	if (r->pushes[i].keys != NULL)
		round_push_hold(ch, r, i);
	ps_kmerge_slots(merge, i, r->slots[i], r->nslots[i],
	    &ch->store.keys);
}

/*
 * Sum the workers' pushes key by key, merging their ascending key lists,
 * each key's in worker order, and apply each sum as it is made
 * (round_apply_key()), leaving out keys already marked t + 1 or more
 * (invariant 7); return the slots applied, in key order, and the summed
 * loss and lowest vote.  No sum outlives its key.  The pushes' values
 * are freed once walked (a round's pushes are held until every worker
 * pulled it), their keys when they were held (round_push_hold()): their
 * slots stand for them.
 */
static uint32_t *
round_sum_apply(struct channel *ch, struct round *r, size_t *nslots,
    double *loss, double *vote)
{
	struct store *st = &ch->store;
	uint32_t i, nw = ch->job.nworkers, *slots;
	size_t total = 0, n = 0, nwhich, j;
	struct ps_kmerge merge;

	*loss = 0;
	*vote = INFINITY;
	ps_kmerge_init(&merge, nw);
	for (i = 0; i < nw; i++) {
		round_push_merge(ch, r, i, &merge, loss, vote);
		total += r->pushes[i].nkeys;
	}
	slots = xcalloc(total + 1, sizeof *slots);
	while ((nwhich = ps_kmerge_next(&merge)) > 0) {
		uint32_t s = r->slots[merge.which[0]][merge.at[merge.which[0]]];
		double g = 0, u = 0;

		if (store_mark(st, s) >= r->t + 1)
			continue;	/* applied before */
		for (j = 0; j < nwhich; j++) {
			const float *v = r->pushes[merge.which[j]].vals +
			    2 * merge.at[merge.which[j]];

			g += v[0];
			u += v[1];
		}
		store_set_mark(st, s, store_round_mark(r->t));
		slots[n++] = s;
		round_apply_key(ch, r, s, g, u);
	}
	ps_kmerge_release(&merge);
	for (i = 0; i < nw; i++) {	/* applied: the round keeps their */
		free(r->pushes[i].vals);	/* slots alone */
		r->pushes[i].vals = NULL;
	}
	*nslots = n;
	return xreallocarray(slots, n + 1, sizeof *slots);
}

/*
 * Apply every key the round touched (invariant 2) and send the result to
 * the replicas (6); -1 if one cannot be reached.
 */
static int
round_apply(struct channel *ch, struct round *r)
{
	struct store *st = &ch->store;
	double fstep = NAN;
	size_t n;
	uint32_t *slots;
	int acks;

	r->result.l1_before = st->l1;
	r->result.nnz_before = (double)st->nnz;
	r->result.kkt = 0;
	r->result.radius = NAN;
	r->result.step = NAN;
	if (ch->job.algorithm == PS_ALG_NEWTON)	/* its step round */
		r->result.step = newton_step(ch, r, &r->result.kkt, &fstep);
	slots = round_sum_apply(ch, r, &n, &r->result.loss, &r->result.vote);
	if (ch->job.algorithm == PS_ALG_NEWTON)	/* (msg_round.h) */
		r->result.loss = fstep;
	round_trace_apply(ch, r, slots, n);
	acks = ch->srv->failover->round_done(ch, r->t, slots, n);
	if (acks == 0)
		round_trace_answerable(ch, r);
	free(slots);
	r->result.l1_after = st->l1;
	r->result.nnz_after = (double)st->nnz;
	r->has_result = 1;
	round_keep(ch, r);
	r->done = 1;
	r->acks = acks > 0 ? (uint32_t)acks : 0;
	/* Rounds 0..t are done; one applied again after a ring change (7)
	 * for the keys it had not reached is not counted twice. */
	if (r->t + 1 > ch->job.rounds_done)
		ch->job.rounds_done = r->t + 1;
	ch->job.last_round = r->t;
	return acks < 0 ? -1 : 0;
}

/*
 * KKT drops a weight w whose last gradient sum was within the threshold
 * (gsmall): -0 then (3), else w.
 */
static float
round_kkt_weight(const struct channel *ch, float w, uint8_t gsmall)
{
	return ch->job.kkt > 0 && w == 0 && gsmall ? -0.0f : w;
}

/*
 * The weight a pull reply carries for slot: -0 when KKT drops it (3),
 * counted in the stats when count is set.
 */
float
round_reply_weight(struct channel *ch, uint32_t slot, int count)
{
	const struct store *st = &ch->store;
	float w = round_kkt_weight(ch, store_w(st, slot),
	    st->flags[slot] & STORE_GSMALL);

	if (w == 0 && signbit(w))
		ch->srv->stats.kkt_marked += count != 0;
	return w;
}

/*
 * The weight a reply carries for slot as it was before round r, and its
 * trust radius: the state before the slot's last round when that round
 * is r or later (the store keeps it for workers that come back,
 * invariant 9), else the current one.
 */
float
round_reply_weight_before(struct channel *ch, uint32_t slot, uint64_t r,
    float *trust)
{
	const struct store *st = &ch->store;

	if (!st->keep_prev || store_mark(st, slot) <= r) {
		*trust = ps_trust_unpack(st->trust[slot]);
		return round_reply_weight(ch, slot, 0);
	}
	*trust = store_trust_before(st, slot);
	return round_kkt_weight(ch, ps_sparse_get(&st->wprev, slot),
	    st->flags[slot] & STORE_GSMALL_PREV);
}

/* Significantly-modified filter (4): send w to worker id? Remember it if so. */
static int
round_sigmod(struct store *st, uint32_t slot, uint32_t id, float w,
    double theta)
{
	float *last = &st->sent[(size_t)slot * st->nsent + id];

	if (!(w == 0 && signbit(w)) && fabs((double)w - *last) <= theta)
		return 0;
	*last = w;
	return 1;
}

/*
 * Invariant 6: may round r's pulls be answered?  It is applied here, and
 * every replica holds every earlier round still kept.
 */
static int
round_answerable(const struct channel *ch, const struct round *r)
{
	const struct round *o;

	if (!r->done)
		return 0;
	TAILQ_FOREACH(o, &ch->job.rounds, entry)
		if (o->t < r->t && o->acks > 0)
			return 0;
	return 1;
}

/*
 * Free r once every worker pulled it and its replicas hold it (6), unless
 * a worker that may come back needs it (newton.c, rejoin).
 */
static void
round_release(struct channel *ch, struct round *r)
{
	if (r->acks == 0 && !newton_keeps(ch, r) &&
	    (r->npulls == ch->job.nworkers ||
	    (r->replay && r->npulls == r->npushes)))
		round_free(ch, r);
}

/*
 * A newton sums round was gathered: free the sums rounds held, and those
 * some workers sent again after a ring change that can no longer gather
 * (newton_stale).
 */
static void
rounds_release_held(struct channel *ch)
{
	struct round *r, *next;

	for (r = TAILQ_FIRST(&ch->job.rounds); r != NULL; r = next) {
		next = TAILQ_NEXT(r, entry);
		if (!newton_sums_round(ch, r->t))
			continue;
		if (r->done)
			round_release(ch, r);
		else if (newton_stale(ch, r))
			round_free(ch, r);
	}
}

/*
 * Push key k of worker id's push in round r: its slot here, or -1.  A
 * push round_sum_apply() summed has its slots alone (no ring change,
 * which rebuilds the store, drops rounds); one that came again after it
 * (invariant 9) has its keys, and takes the slot round_sum_apply() found
 * when that still holds its key, saving the hash lookup.
 */
static long
round_key_slot(const struct channel *ch, const struct round *r, uint32_t id,
    size_t k)
{
	const struct ps_keytab *kt = &ch->store.keys;
	const struct ps_msg *push = &r->pushes[id];

	if (push->keys == NULL)
		return (long)r->slots[id][k];
	if (r->slots[id] != NULL && r->nslots[id] == push->nkeys &&
	    r->slots[id][k] < ps_keytab_count(kt) &&
	    ps_keytab_key(kt, r->slots[id][k]) == push->keys[k])
		return (long)r->slots[id][k];
	return ps_keytab_find(kt, push->keys[k]);
}

/*
 * The reply's weights for the keys of worker p's push in round r: every
 * one, or with the filter's threshold theta (not NAN) those it lets
 * through, named (invariants 3, 4, 9).
 */
static void
round_reply_weights(struct channel *ch, const struct round *r,
    const struct peer *p, double theta, struct ps_msg *reply)
{
	struct store *st = &ch->store;
	const struct ps_msg *push = &r->pushes[p->worker_id];
	int filter = !isnan(theta), again = r->again[p->worker_id];
	size_t k, n = 0;

	reply->vals = xcalloc(push->nkeys + 1, sizeof *reply->vals);
	if (filter)
		reply->keys = xcalloc(push->nkeys + 1, sizeof *reply->keys);
	for (k = 0; k < push->nkeys; k++) {
		long slot = round_key_slot(ch, r, p->worker_id, k);
		float w = 0, trust;

		if (slot >= 0 && again)
			w = round_reply_weight_before(ch, (uint32_t)slot,
			    ch->job.resumed_at[p->worker_id], &trust);
		else if (slot >= 0)
			w = round_reply_weight(ch, (uint32_t)slot, 1);

		/* A key never summed here (invariant 9) has weight 0. */
		if (filter && slot >= 0 &&
		    !round_sigmod(st, (uint32_t)slot, p->worker_id, w, theta))
			continue;
		if (filter)
			reply->keys[n] = push->keys != NULL ? push->keys[k] :
			    ps_keytab_key(&st->keys, (size_t)slot);
		reply->vals[n++] = w;
	}
	reply->nkeys = (uint32_t)n;
	if (filter) {
		ch->srv->stats.sigmod_in += push->nkeys;
		ch->srv->stats.sigmod_out += n;
	}
}

/* Answer worker w's pull for a completed round; free the round when all did. */
static void
round_answer(struct channel *ch, struct round *r, struct peer *p)
{
	struct server *srv = ch->srv;
	struct store *st = &ch->store;
	double theta = r->theta[p->worker_id];
	int filter = !isnan(theta);
	struct ps_round_reply said;
	struct ps_msg reply;

	if (filter && st->nsent != ch->job.nworkers)
		store_sent_reset(st, ch->job.nworkers);
	memset(&reply, 0, sizeof reply);
	reply.type = PS_MSG_PULL_REPLY;
	reply.flags = filter ? 0 : PS_MSG_F_NOKEYS;
	reply.width = 1;
	reply.timestamp = r->t;
	reply.ring_version = ch->job.ring_version;
	said.result = r->result;
	said.again = r->again[p->worker_id];	/* invariant 9 */
	said.ckpt = ckpt_tell(ch, p);	/* checkpoint.c, invariant 4 */
	ps_round_reply_encode(&said, &reply);
	if (newton_sums_round(ch, r->t))
		newton_sums_reply(ch, r, p->worker_id, &reply);
	else
		round_reply_weights(ch, r, p, theta, &reply);
	srv->stats.keys_pulled += reply.nkeys;
	peer_send(p, &reply);
	free(reply.vals);
	free(reply.keys);
	if (r->answered[p->worker_id])
		return;		/* again, to a worker that came back */
	r->answered[p->worker_id] = 1;
	r->npulls++;
	round_release(ch, r);
}

/* Answer the pulls that waited for round r; the last may free r. */
static void
round_answer_waiting(struct channel *ch, struct round *r)
{
	size_t i, n = r->nwaiting;

	r->nwaiting = 0;
	for (i = 0; i < n; i++)
		round_answer(ch, r, r->waiting[i]);
}

/*
 * A replica holds round t's result: once all do, the round may go, and
 * the later rounds that waited for it are answered (6).
 */
int
round_replicated(struct channel *ch, uint64_t t)
{
	struct round *r = round_get(ch, t, 0), *o;

	if (r == NULL || !r->done || r->acks == 0)
		return -1;
	if (--r->acks > 0)
		return 0;
	round_trace_answerable(ch, r);
	round_release(ch, r);
	do {
		TAILQ_FOREACH(o, &ch->job.rounds, entry)
			if (o->nwaiting > 0 && round_answerable(ch, o))
				break;
		if (o != NULL)
			round_answer_waiting(ch, o);
	} while (o != NULL);
	return 0;
}

/* Rounds that wait for a replica's REPLICATE_OK (the replica lag). */
size_t
rounds_awaiting_replicas(const struct channel *ch)
{
	const struct round *r;
	size_t n = 0;

	TAILQ_FOREACH(r, &ch->job.rounds, entry)
		n += r->acks > 0;
	return n;
}

/* A push the connection could not resolve: await its resend (5). */
void
round_push_unresolved(struct channel *ch, struct peer *p,
    const struct ps_msg *m)
{
	struct round *r;

	ch->srv->stats.push_resends++;
	log_info("%s: push for round %llu named an unknown key list; "
	    "asked for its keys", ps_conn_peer(p->conn),
	    (unsigned long long)m->timestamp);
	if ((r = round_get(ch, m->timestamp, 1)) != NULL)
		r->resend[p->worker_id] = 1;
}

/*
 * A worker's HELLO after a ring change (hello.h, resumed): rounds below
 * the first iteration it had not started may be replays; no worker
 * finished a later one, whichever worker says it.  The job is that far
 * on: a server that joined it late, and took its keys with those rounds
 * applied, saves that iteration with them even if the job ends before
 * it completes a round of its own.
 */
void
rounds_resumed(struct channel *ch, const struct ps_hello *hello)
{
	struct job *job = &ch->job;
	uint64_t below;

	if (hello->resumed == 0)
		return;
	below = hello->resumed - 1;
	if (job->replay_below == 0 || below < job->replay_below)
		job->replay_below = below;
	if (below > job->rounds_done)
		job->rounds_done = below;
	job->ring_changes += job->ring_changes == 0;
}

/* A round answered without a result of this server's (invariant 7). */
static void
round_no_result(struct round *r)
{
	memset(&r->result, 0, sizeof r->result);
	r->result.loss = NAN;		/* the worker takes another's */
	r->result.vote = INFINITY;	/* no vote */
	r->result.step = NAN;
	r->result.radius = NAN;
}

/*
 * Invariant 7: after a ring change, is worker id's push for r one this
 * server already applied, key by key?  Then r answers it from the kept
 * result.
 */
static int
round_settled(struct channel *ch, struct round *r, uint32_t id)
{
	const struct store *st = &ch->store;
	const struct ps_msg *m = &r->pushes[id];
	const struct round_done *d;
	size_t k;
	long s;

	if (r->t >= ch->job.replay_below || newton_sums_round(ch, r->t))
		return 0;	/* a sums round always sums again (newton.c) */
	for (k = 0; k < m->nkeys; k++)
		if ((s = ps_keytab_find(&st->keys, m->keys[k])) < 0 ||
		    store_mark(st, (size_t)s) < r->t + 1)
			return 0;
	if (r->has_result)
		return 1;
	if ((d = round_history(ch, r->t)) != NULL)
		r->result = d->result;
	else	/* applied by the keys' old primary: no result here */
		round_no_result(r);
	r->has_result = 1;
	return 1;
}

/* Every worker pushed for r: apply it, or only answer if all were settled. */
static void
round_complete(struct channel *ch, struct round *r)
{
	uint32_t i, settled = 0;

	for (i = 0; i < ch->job.nworkers; i++)
		settled += r->settled[i];
	if (newton_sums_round(ch, r->t)) {
		newton_gather(ch, r);
		rounds_release_held(ch);
	} else if (settled == ch->job.nworkers) {
		r->done = 1;
		r->ckpt = 0;	/* written when it was applied, if asked */
	} else if (round_apply(ch, r) != 0) {
		job_abort(ch, "a replica cannot be reached (see the log)");
		return;
	}
	if (r->ckpt)
		ckpt_round(ch, r->t);
	/* The last answer may free r when every worker was waiting. */
	if (round_answerable(ch, r))
		round_answer_waiting(ch, r);
}

/* Does m name the keys of worker id's push held in r (by keys or slots)? */
static int
round_same_keys(const struct channel *ch, const struct round *r,
    uint32_t id, const struct ps_msg *m)
{
	const struct ps_msg *a = &r->pushes[id];
	size_t k;

	if (a->nkeys != m->nkeys)
		return 0;
	if (a->keys != NULL)
		return a->nkeys == 0 ||
		    memcmp(a->keys, m->keys, a->nkeys * sizeof *a->keys) == 0;
	for (k = 0; k < m->nkeys; k++)
		if (ps_keytab_key(&ch->store.keys, r->slots[id][k]) !=
		    m->keys[k])
			return 0;
	return 1;
}

/*
 * Invariant 9: worker id's push for round t, done here before (or freed),
 * is answered without being applied (its keys may differ from the
 * first's): say so in the trace, for tests/chaos/check-trace.
 */
static void
round_trace_again(struct channel *ch, uint32_t id, uint64_t t)
{
	ps_trace_event(ch->srv->trace, NULL, 0, "again\t%u\t%u\t%llu",
	    ch->id, id, (unsigned long long)t);
}

/*
 * Invariant 9 for a newton sums round (newton.c, rejoin): the round is
 * held, and the push the same as the one in its sums, which stays; 1
 * when dropped, 0 for the usual way (the first push did not come here,
 * or a ring change dropped the round: the workers push it again, 7).
 */
static int
round_push_sums_again(struct channel *ch, struct peer *p,
    const struct ps_msg *m)
{
	struct round *r = round_get(ch, m->timestamp, 0);
	unsigned long long t = m->timestamp;

	if (r == NULL && ch->job.ring_changes > 0)
		return 0;	/* dropped at the change: pushed again (7) */
	if (r == NULL)
		peer_fail(p, "pushed newton round %llu again after it was "
		    "dropped", t);
	else if (r->pushes[p->worker_id].type == 0)
		return 0;	/* the first push did not come here */
	else if (!round_same_keys(ch, r, p->worker_id, m))
		peer_fail(p, "pushed newton round %llu again with other keys",
		    t);
	return 1;
}

/*
 * Invariant 9: a push of a worker that came back, for a round it pushed
 * before; 1 when handled here (dropped, or taken: m is then empty), 0
 * for the usual way.
 */
static int
round_push_again(struct channel *ch, struct peer *p, struct ps_msg *m)
{
	struct job *job = &ch->job;
	uint32_t id = p->worker_id;
	const struct round_done *d;
	struct round *r;

	if (job->again_below == NULL || m->timestamp >= job->again_below[id])
		return 0;
	if (newton_sums_round(ch, m->timestamp))
		return round_push_sums_again(ch, p, m);
	if ((r = round_get(ch, m->timestamp, 0)) != NULL) {
		if (r->pushes[id].type == 0)
			return 0;	/* its resend was due: as usual */
		if (!r->done && round_same_keys(ch, r, id, m))
			return 1;
		log_info("worker %u pushed round %llu again with %u keys, "
		    "%u before; %s", id, (unsigned long long)r->t, m->nkeys,
		    r->pushes[id].nkeys, r->done ? "applied" : "not applied");
		if (r->done)
			round_trace_again(ch, id, r->t);
		ps_msg_release(&r->pushes[id]);
	} else {
		round_trace_again(ch, id, m->timestamp);
		r = round_get(ch, m->timestamp, 1);
		r->replay = 1;
		r->settled[id] = 1;
		r->again[id] = r->t < job->resumed_at[id];
		r->npushes++;
		if ((d = round_history(ch, r->t)) != NULL)
			r->result = d->result;
		else	/* older than kept */
			round_no_result(r);
		r->has_result = 1;
		ch->srv->stats.replays_settled++;
	}
	ps_msg_take(&r->pushes[id], m);
	return 1;
}

void
round_push(struct channel *ch, struct peer *p, struct ps_msg *m)
{
	struct server *srv = ch->srv;
	uint64_t *below = ch->job.pushed_below;
	struct ps_dbpg_push push;
	struct round *r;
	char err[256];

	if (m->timestamp > PS_ROUND_MAX) {
		peer_fail(p, "push for round %llu, past the last a job may "
		    "have (%llu)", (unsigned long long)m->timestamp,
		    (unsigned long long)PS_ROUND_MAX);
		return;
	}
	if (store_room(&ch->store, m->keys, m->nkeys, srv->max_keys, err,
	    sizeof err) != 0) {
		job_abort(ch, err);
		return;
	}
	if (below != NULL && m->timestamp >= below[p->worker_id])
		below[p->worker_id] = m->timestamp + 1;
	if (round_push_again(ch, p, m))
		return;
	if (ch->job.ring_changes == 0 && ch->job.rounds_done > 0 &&
	    m->timestamp <= ch->job.last_round &&
	    round_get(ch, m->timestamp, 0) == NULL) {
		peer_fail(p, "push for finished round %llu",
		    (unsigned long long)m->timestamp);
		return;
	}
	r = round_get(ch, m->timestamp, 1);
	r->resend[p->worker_id] = 0;
	if (r->pushes[p->worker_id].type != 0) {
		peer_fail(p, "second push for round %llu",
		    (unsigned long long)m->timestamp);
		return;
	}
	srv->stats.pushes++;
	srv->stats.keys_pushed += m->nkeys;
	ps_dbpg_push_decode(m, &push);
	if (push.ckpt)
		r->ckpt = 1;	/* checkpoint.c */
	ps_msg_take(&r->pushes[p->worker_id], m);
	if (round_settled(ch, r, p->worker_id)) {
		r->settled[p->worker_id] = 1;
		srv->stats.replays_settled++;
	}
	if (ch->job.algorithm != PS_ALG_NEWTON)	/* newton.c reads keys */
		round_push_hold(ch, r, p->worker_id);
	if (++r->npushes == ch->job.nworkers)
		round_complete(ch, r);
}

void
round_pull(struct channel *ch, struct peer *p, const struct ps_msg *m)
{
	struct round *r = round_get(ch, m->timestamp, 0);
	struct server *srv = ch->srv;
	uint32_t id = p->worker_id;
	char err[128];
	double theta;

	srv->stats.pulls++;
	if (ps_round_pull_decode(m, &theta, err, sizeof err) != 0) {
		peer_fail(p, "%s", err);
	} else if (r == NULL || (r->pushes[id].type == 0 && !r->resend[id])) {
		peer_fail(p, "pull for round %llu without a push",
		    (unsigned long long)m->timestamp);
	} else {
		r->theta[id] = theta;
		if (round_answerable(ch, r) || r->settled[id])
			round_answer(ch, r, p);
		else
			r->waiting[r->nwaiting++] = p;
	}
}

/* A worker left (failover/rejoin.c): no reply of any round may go to it. */
void
rounds_forget_peer(struct channel *ch, const struct peer *p)
{
	struct round *r;
	size_t i, n;

	TAILQ_FOREACH(r, &ch->job.rounds, entry) {
		for (i = n = 0; i < r->nwaiting; i++)
			if (r->waiting[i] != p)
				r->waiting[n++] = r->waiting[i];
		r->nwaiting = n;
	}
}

/*
 * Where worker id, coming back, resumes (hello.h): the lowest round it
 * pushed that is still held, else the one after its last push; newton:
 * the one after its last push (newton.c, rejoin).
 */
uint64_t
rounds_resume_point(struct channel *ch, uint32_t id)
{
	const struct round *r;
	uint64_t t = ch->job.pushed_below[id];

	if (ch->job.algorithm == PS_ALG_NEWTON)
		return t;
	TAILQ_FOREACH(r, &ch->job.rounds, entry)
		if (r->pushes[id].type != 0 && r->t < t)
			t = r->t;
	return t;
}

/*
 * Worker id, coming back, took the current weights of rounds below
 * below: those already applied answer its pulls with the same weights,
 * which it must not take as a step (invariant 9).
 */
void
rounds_mark_again(struct channel *ch, uint32_t id, uint64_t below)
{
	struct round *r;

	TAILQ_FOREACH(r, &ch->job.rounds, entry)
		if (r->done && r->pushes[id].type != 0 && r->t < below)
			r->again[id] = 1;
}

/*
 * Start the reply to CURRENT pull m: width values for each key it names,
 * in reply->vals (allocated, zeroed; the caller frees it).
 */
void
round_current_reply(const struct channel *ch, const struct ps_msg *m,
    uint8_t width, struct ps_msg *reply)
{
	memset(reply, 0, sizeof *reply);
	reply->type = PS_MSG_PULL_REPLY;
	reply->flags = PS_MSG_F_NOKEYS | PS_MSG_F_CURRENT;
	reply->width = width;
	reply->timestamp = m->timestamp;
	reply->ring_version = ch->job.ring_version;
	reply->nkeys = m->nkeys;
	reply->vals = xcalloc((size_t)m->nkeys * width + 1,
	    sizeof *reply->vals);
}

/* A pull of current weights for the keys it names, answered at once. */
void
round_pull_current(struct channel *ch, struct peer *p,
    const struct ps_msg *m)
{
	struct server *srv = ch->srv;
	struct ps_current_reply said;
	struct ps_msg reply;
	size_t k;

	round_current_reply(ch, m, 1, &reply);
	said.l1 = ch->store.l1;
	said.nnz = (double)ch->store.nnz;
	said.ckpt = ch->job.algorithm == PS_ALG_SGD && ckpt_tell(ch, p);
	said.held = ch->job.algorithm == PS_ALG_SGD && p->is_worker &&
	    p->ch == ch ? online_held(ch, p->worker_id) : UINT64_MAX;
	ps_current_reply_encode(&said, &reply);
	for (k = 0; k < m->nkeys; k++)
		reply.vals[k] = store_get(&ch->store, m->keys[k]);
	srv->stats.pulls++;
	srv->stats.keys_pulled += m->nkeys;
	peer_send(p, &reply);
	free(reply.vals);
}
