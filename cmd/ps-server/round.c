/*
 * round.c: aggregation of one timestamp's pushes and the proximal step.
 *
 * Invariants:
 *  1. A round t completes only when every worker of the job pushed for t.
 *     The gradients and curvatures are then summed in worker-id order, so
 *     the result does not depend on arrival order and a run at tau = 0 is
 *     bit-for-bit repeatable.
 *  2. Each key's update w <- prox(w, G, U) (prox.h) is applied once, when
 *     the round completes; the loss the workers reported is summed the same
 *     way, and the l1 norm and nnz before and after are kept as the round's
 *     result, sent with every pull reply.
 *  3. A worker's PULL for t names no keys: it asks for the keys of its own
 *     PUSH for t.  The reply holds each key's new weight, -0 for a key the
 *     KKT filter drops from the active set (w = 0 and |G| <= the job's kkt
 *     threshold), so every worker keeps the same set.  A pull that comes
 *     before the round completes waits; the round is freed once every
 *     worker pulled, before any later round can touch the same keys
 *     (blocks differ within a pass, and passes are separated by the
 *     workers' barrier).
 *  4. A pull with a threshold theta (its aux[0]) asks for the
 *     significantly-modified filter: the reply names its keys and holds
 *     only those whose weight moved more than theta from the value last
 *     sent to that worker, or that the KKT filter drops; theta 0 sends
 *     every weight that changed.
 *  5. A push whose key list the connection could not resolve (key cache
 *     miss) is dropped and its resend awaited; the worker's pull for that
 *     round waits for it like any pull.
 *  6. With replicas, a completed round's pulls wait until every replica
 *     server holds the round's result (replica.c).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "prox.h"
#include "server.h"
#include "xmalloc.h"

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
	r->resend = xcalloc(job->nworkers, sizeof *r->resend);
	r->theta = xcalloc(job->nworkers, sizeof *r->theta);
	r->waiting = xcalloc(job->nworkers, sizeof *r->waiting);
	TAILQ_INSERT_TAIL(&job->rounds, r, entry);
	return r;
}

static void
round_free(struct channel *ch, struct round *r)
{
	uint32_t i;

	TAILQ_REMOVE(&ch->job.rounds, r, entry);
	for (i = 0; i < ch->job.nworkers; i++)
		ps_msg_release(&r->pushes[i]);
	free(r->pushes);
	free(r->resend);
	free(r->theta);
	free(r->waiting);
	free(r);
}

void
rounds_clear(struct channel *ch)
{
	struct round *r;

	while ((r = TAILQ_FIRST(&ch->job.rounds)) != NULL)
		round_free(ch, r);
}

/* Sum every worker's push into the store's g/u scratch, in worker order. */
static uint32_t *
round_sum(struct channel *ch, struct round *r, size_t *nslots, double *loss)
{
	struct store *st = &ch->store;
	size_t total = 0, n = 0, k;
	uint32_t i, *slots;

	for (i = 0; i < ch->job.nworkers; i++)
		total += r->pushes[i].nkeys;
	slots = xcalloc(total, sizeof *slots);
	*loss = 0;
	for (i = 0; i < ch->job.nworkers; i++) {
		const struct ps_msg *m = &r->pushes[i];

		*loss += m->aux[0];
		for (k = 0; k < m->nkeys; k++) {
			uint32_t s = store_slot(st, m->keys[k]);

			if (st->mark[s] != r->t + 1) {
				st->mark[s] = r->t + 1;
				slots[n++] = s;
			}
			st->g[s] += m->vals[2 * k];
			st->u[s] += m->vals[2 * k + 1];
		}
	}
	*nslots = n;
	return slots;
}

/*
 * Apply the proximal step to every key the round touched (invariant 2) and
 * send the result to the replicas (6); -1 if one cannot be reached.
 */
static int
round_apply(struct channel *ch, struct round *r)
{
	struct store *st = &ch->store;
	double loss;
	size_t n, k;
	uint32_t *slots = round_sum(ch, r, &n, &loss);
	int acks;

	r->result[0] = loss;
	r->result[1] = st->l1;
	r->result[2] = (double)st->nnz;
	for (k = 0; k < n; k++) {
		uint32_t s = slots[k];
		float w = ps_prox_step(st->w[s], st->g[s], st->u[s],
		    ch->job.lambda, &st->trust[s]);

		store_set(st, s, w);
		st->glast[s] = (float)st->g[s];
		st->g[s] = 0;
		st->u[s] = 0;
	}
	acks = replica_round(ch, r->t, slots, n);
	free(slots);
	r->result[3] = st->l1;
	r->result[4] = (double)st->nnz;
	r->done = 1;
	r->acks = acks > 0 ? (uint32_t)acks : 0;
	ch->job.rounds_done++;
	ch->job.last_round = r->t;
	return acks < 0 ? -1 : 0;
}

/* The weight a pull reply carries for slot: -0 when KKT drops it (3). */
static float
round_reply_weight(struct channel *ch, uint32_t slot)
{
	const struct store *st = &ch->store;

	if (ch->job.kkt > 0 && st->w[slot] == 0 &&
	    fabsf(st->glast[slot]) <= ch->job.kkt) {
		ch->srv->stats.kkt_marked++;
		return -0.0f;
	}
	return st->w[slot];
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

/* Answer worker w's pull for a completed round; free the round when all did. */
static void
round_answer(struct channel *ch, struct round *r, struct peer *p)
{
	struct server *srv = ch->srv;
	struct store *st = &ch->store;
	const struct ps_msg *push = &r->pushes[p->worker_id];
	double theta = r->theta[p->worker_id];
	int filter = !isnan(theta);
	struct ps_msg reply;
	size_t k, n = 0;

	if (filter && st->nsent != ch->job.nworkers)
		store_sent_reset(st, ch->job.nworkers);
	memset(&reply, 0, sizeof reply);
	reply.type = PS_MSG_PULL_REPLY;
	reply.flags = filter ? 0 : PS_MSG_F_NOKEYS;
	reply.width = 1;
	reply.timestamp = r->t;
	reply.ring_version = ch->job.ring_version;
	reply.naux = 5;
	memcpy(reply.aux, r->result, sizeof r->result);
	reply.vals = xcalloc(push->nkeys + 1, sizeof *reply.vals);
	if (filter)
		reply.keys = xcalloc(push->nkeys + 1, sizeof *reply.keys);
	for (k = 0; k < push->nkeys; k++) {
		uint32_t slot = (uint32_t)ps_keytab_find(&st->keys,
		    push->keys[k]);
		float w = round_reply_weight(ch, slot);

		if (filter && !round_sigmod(st, slot, p->worker_id, w, theta))
			continue;
		if (filter)
			reply.keys[n] = push->keys[k];
		reply.vals[n++] = w;
	}
	reply.nkeys = (uint32_t)n;
	if (filter) {
		srv->stats.sigmod_in += push->nkeys;
		srv->stats.sigmod_out += n;
	}
	srv->stats.keys_pulled += n;
	peer_send(p, &reply);
	free(reply.vals);
	free(reply.keys);
	if (++r->npulls == ch->job.nworkers)
		round_free(ch, r);
}

/* Answer the pulls that waited for round r; the last may free r. */
static void
round_answer_waiting(struct channel *ch, struct round *r)
{
	size_t i, n;

	for (i = 0, n = r->nwaiting; i < n; i++)
		round_answer(ch, r, r->waiting[i]);
}

/* A replica holds round t's result: answer its pulls once all do (6). */
int
round_replicated(struct channel *ch, uint64_t t)
{
	struct round *r = round_get(ch, t, 0);

	if (r == NULL || !r->done || r->acks == 0)
		return -1;
	if (--r->acks == 0)
		round_answer_waiting(ch, r);
	return 0;
}

/* The ring changed and every key was resent: stop waiting for replicas. */
void
rounds_replicas_resent(struct channel *ch)
{
	struct round *r, *next;

	for (r = TAILQ_FIRST(&ch->job.rounds); r != NULL; r = next) {
		next = TAILQ_NEXT(r, entry);
		if (r->acks == 0)
			continue;
		r->acks = 0;
		round_answer_waiting(ch, r);
	}
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
round_push_unresolved(struct channel *ch, struct peer *p, struct ps_msg *m)
{
	struct round *r;

	ch->srv->stats.push_resends++;
	log_info("%s: push for round %llu named an unknown key list; "
	    "asked for its keys", ps_conn_peer(p->conn),
	    (unsigned long long)m->timestamp);
	if ((r = round_get(ch, m->timestamp, 1)) != NULL)
		r->resend[p->worker_id] = 1;
	ps_msg_release(m);
}

void
round_push(struct channel *ch, struct peer *p, struct ps_msg *m)
{
	struct server *srv = ch->srv;
	struct round *r;

	if (m->width != 2 || m->naux < 1 || (m->flags & PS_MSG_F_NOKEYS)) {
		peer_fail(p, "malformed push: width %u, %u scalars", m->width,
		    m->naux);
		ps_msg_release(m);
		return;
	}
	if (ch->job.rounds_done > 0 && m->timestamp <= ch->job.last_round &&
	    round_get(ch, m->timestamp, 0) == NULL) {
		peer_fail(p, "push for finished round %llu",
		    (unsigned long long)m->timestamp);
		ps_msg_release(m);
		return;
	}
	r = round_get(ch, m->timestamp, 1);
	r->resend[p->worker_id] = 0;
	if (r->pushes[p->worker_id].type != 0) {
		peer_fail(p, "second push for round %llu",
		    (unsigned long long)m->timestamp);
		ps_msg_release(m);
		return;
	}
	srv->stats.pushes++;
	srv->stats.keys_pushed += m->nkeys;
	r->pushes[p->worker_id] = *m;	/* the round now owns the arrays */
	memset(m, 0, sizeof *m);
	if (++r->npushes < ch->job.nworkers)
		return;
	if (round_apply(ch, r) != 0) {
		job_abort(ch, "a replica cannot be reached (see the log)");
		return;
	}
	/* The last answer may free r when every worker was waiting. */
	if (r->acks == 0)
		round_answer_waiting(ch, r);
}

void
round_pull(struct channel *ch, struct peer *p, struct ps_msg *m)
{
	struct round *r = round_get(ch, m->timestamp, 0);
	struct server *srv = ch->srv;
	uint32_t id = p->worker_id;

	srv->stats.pulls++;
	if (m->naux >= 1 && !(m->aux[0] >= 0)) {
		peer_fail(p, "pull with a bad filter threshold %g", m->aux[0]);
	} else if (r == NULL || (r->pushes[id].type == 0 && !r->resend[id])) {
		peer_fail(p, "pull for round %llu without a push",
		    (unsigned long long)m->timestamp);
	} else {
		r->theta[id] = m->naux >= 1 ? m->aux[0] : NAN;
		if (r->done && r->acks == 0)
			round_answer(ch, r, p);
		else
			r->waiting[r->nwaiting++] = p;
	}
	ps_msg_release(m);
}

/* A pull of current weights for the keys it names, answered at once. */
void
round_pull_current(struct channel *ch, struct peer *p, struct ps_msg *m)
{
	struct server *srv = ch->srv;
	struct ps_msg reply;
	size_t k;

	memset(&reply, 0, sizeof reply);
	reply.type = PS_MSG_PULL_REPLY;
	reply.flags = PS_MSG_F_NOKEYS | PS_MSG_F_CURRENT;
	reply.width = 1;
	reply.timestamp = m->timestamp;
	reply.ring_version = ch->job.ring_version;
	reply.nkeys = m->nkeys;
	reply.naux = 2;
	reply.aux[0] = ch->store.l1;
	reply.aux[1] = (double)ch->store.nnz;
	reply.vals = xcalloc(m->nkeys, sizeof *reply.vals);
	for (k = 0; k < m->nkeys; k++)
		reply.vals[k] = store_get(&ch->store, m->keys[k]);
	srv->stats.pulls++;
	srv->stats.keys_pulled += m->nkeys;
	peer_send(p, &reply);
	free(reply.vals);
	ps_msg_release(m);
}
