/*
 * onlineack.c: when an sgd push counts as acknowledged (online.c,
 * invariant 8): with replicas, once every replica of its keys said it
 * holds their new state.  Each reply to a worker's pull says below which
 * timestamp its pushes applied here are so held; the end barrier passes
 * only once every push is.
 *
 * Invariants:
 *  1. waits lists, in the order they were applied, the pushes whose
 *     REPLICATE frames are not all answered; each answer (a REPLICATE_OK
 *     of kind PUSH naming the worker and timestamp) takes one off its
 *     count, and at 0 the push leaves the list.
 *  2. A CURRENT pull's reply to a worker of the job carries its held
 *     timestamp: the lowest of its pushes in waits, or none when waits
 *     holds none of its (msg_online.h).  The worker keeps every push not
 *     yet held (cmd/ps-worker/sgdresend.c).
 *  3. The end barrier passes only once waits is empty.
 *  4. A ring change drops every wait (online.c, online_ring_changed): the
 *     workers send every push not acknowledged again, and the resync sends
 *     the copies again (failover/ringchange.c).
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

/* Invariant 2: worker's pushes below this are held; UINT64_MAX: all. */
uint64_t
online_held(const struct channel *ch, uint32_t worker)
{
	const struct online *on = &ch->job.online;
	uint64_t held = UINT64_MAX;
	size_t i;

	for (i = 0; i < on->nwaits; i++)
		if (on->waits[i].worker == worker && on->waits[i].t < held)
			held = on->waits[i].t;
	return held;
}

/* Invariant 3: 1 if the end barrier must wait for the replicas. */
int
online_hold_barrier(struct channel *ch)
{
	struct online *on = &ch->job.online;

	on->barrier_held = on->nwaits > 0;
	return on->barrier_held;
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
	if (on->barrier_held && on->nwaits == 0) {	/* invariant 3 */
		on->barrier_held = 0;
		online_barrier_pass(ch);
	}
}

/* Every wait goes. */
void
online_waits_clear(struct channel *ch)
{
	struct online *on = &ch->job.online;

	free(on->waits);
	on->waits = NULL;
	on->nwaits = 0;
	on->barrier_held = 0;
}
