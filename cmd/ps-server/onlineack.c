/*
 * onlineack.c: when an sgd push counts as acknowledged (online.c,
 * invariant 8): with replicas, once every replica of its keys said it
 * holds their new state.  Until then the worker's later pulls wait here,
 * so that a pull's reply acknowledges every push the worker sent before
 * it; so does the end barrier's.
 *
 * Invariants:
 *  1. waits lists, in the order they were applied, the pushes whose
 *     REPLICATE frames are not all answered; each answer (a REPLICATE_OK
 *     of kind PUSH naming the worker and timestamp) takes one off its
 *     count, and at 0 the push leaves the list.
 *  2. A worker's CURRENT pull that comes while a push of its own waits is
 *     held, taken whole, with below = that worker's latest waiting push
 *     + 1; it is answered (round_pull_current) once no push of that
 *     worker below that waits.  A worker's pulls are answered in the
 *     order they came, since below never falls.
 *  3. The end barrier passes only once nothing waits.
 *  4. A ring change drops every wait and held pull: the pulls come again
 *     under the new ring, and the resync sends the copies again
 *     (failover/ringchange.c).  A peer that goes away drops its held
 *     pulls.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* Invariant 1: push t of worker was sent to replicas in acks frames. */
void
online_wait_add(struct channel *ch, uint32_t worker, uint64_t t,
    uint32_t acks)
{
	struct online *on = &ch->job.online;

	on->waits = xreallocarray(on->waits, on->nwaits + 1,
	    sizeof *on->waits);
	on->waits[on->nwaits].worker = worker;
	on->waits[on->nwaits].t = t;
	on->waits[on->nwaits].acks = acks;
	on->nwaits++;
}

/* Does a push of worker below below still wait for its replicas? */
static int
online_waiting(const struct online *on, uint32_t worker, uint64_t below)
{
	size_t i;

	for (i = 0; i < on->nwaits; i++)
		if (on->waits[i].worker == worker && on->waits[i].t < below)
			return 1;
	return 0;
}

/* Invariant 2: 1 if p's pull m is held (taken), 0 to answer it now. */
int
online_hold_pull(struct channel *ch, struct peer *p, struct ps_msg *m)
{
	struct online *on = &ch->job.online;
	struct online_held *h;
	uint64_t below = 0;
	size_t i;

	for (i = 0; i < on->nwaits; i++)
		if (on->waits[i].worker == p->worker_id &&
		    on->waits[i].t + 1 > below)
			below = on->waits[i].t + 1;
	if (below == 0)
		return 0;
	on->held = xreallocarray(on->held, on->nheld + 1, sizeof *on->held);
	h = &on->held[on->nheld++];
	h->p = p;
	h->below = below;
	ps_msg_take(&h->m, m);
	return 1;
}

/* Invariant 3: 1 if the end barrier must wait for the replicas. */
int
online_hold_barrier(struct channel *ch)
{
	struct online *on = &ch->job.online;

	on->barrier_held = on->nwaits > 0;
	return on->barrier_held;
}

/* Drop held pull i (answered, or its peer gone). */
static void
online_held_drop(struct online *on, size_t i)
{
	ps_msg_release(&on->held[i].m);
	memmove(on->held + i, on->held + i + 1,
	    (on->nheld - i - 1) * sizeof *on->held);
	on->nheld--;
}

/* Invariants 2 and 3: answer what no longer waits. */
static void
online_release(struct channel *ch)
{
	struct online *on = &ch->job.online;
	size_t i = 0;

	while (i < on->nheld) {
		struct online_held *h = &on->held[i];

		if (online_waiting(on, h->p->worker_id, h->below)) {
			i++;
			continue;
		}
		round_pull_current(ch, h->p, &h->m);
		online_held_drop(on, i);
	}
	if (on->barrier_held && on->nwaits == 0) {
		on->barrier_held = 0;
		online_barrier_pass(ch);
	}
}

/* Invariant 1: a replica holds push t of worker (one of its frames). */
void
online_replicated(struct channel *ch, uint32_t worker, uint64_t t)
{
	struct online *on = &ch->job.online;
	size_t i;

	for (i = 0; i < on->nwaits; i++)
		if (on->waits[i].worker == worker && on->waits[i].t == t)
			break;
	if (i == on->nwaits) {
		log_debug("channel %u: a replica held push %llu of worker %u, "
		    "which no longer waits", ch->id, (unsigned long long)t,
		    worker);
		return;
	}
	if (--on->waits[i].acks > 0)
		return;
	memmove(on->waits + i, on->waits + i + 1,
	    (on->nwaits - i - 1) * sizeof *on->waits);
	on->nwaits--;
	online_release(ch);
}

/* Invariant 4: p went away; its held pulls go with it. */
void
online_forget_peer(struct channel *ch, const struct peer *p)
{
	struct online *on = &ch->job.online;
	size_t i = 0;

	while (i < on->nheld)
		if (on->held[i].p == p)
			online_held_drop(on, i);
		else
			i++;
}

/* Every wait and held pull goes. */
void
online_waits_clear(struct channel *ch)
{
	struct online *on = &ch->job.online;

	while (on->nheld > 0)
		online_held_drop(on, on->nheld - 1);
	free(on->held);
	free(on->waits);
	on->held = NULL;
	on->waits = NULL;
	on->nheld = on->nwaits = 0;
	on->barrier_held = 0;
}

/*
 * Invariant 4: the server took a new ring over during an sgd job: the
 * waits and held pulls go, and so do the workers at the end barrier
 * unless it passed (they come there again under the new ring).
 */
void
online_ring_changed(struct channel *ch)
{
	struct server *srv = ch->srv;
	struct job *job = &ch->job;
	struct online *on = &job->online;
	uint32_t i;

	if (!job->active || job->algorithm != PS_ALG_SGD)
		return;
	online_waits_clear(ch);
	for (i = 0; i < job->nworkers; i++)
		on->done[i] = NULL;
	on->ndone = 0;
	job->ring_changes++;
	job->ring_version = srv->ring.version;
	job->server_index = (uint32_t)srv->ring_index;
	job->nservers = (uint32_t)srv->ring.nservers;
	log_info("channel %u: ring version %u: the workers send their "
	    "unacknowledged pushes and their pulls again", ch->id,
	    srv->ring.version);
}
