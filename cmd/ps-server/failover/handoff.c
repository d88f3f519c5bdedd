/*
 * handoff.c: moving segments to a new primary when the ring changes while
 * their old primary lives (a server joined, or one was removed with
 * `ps-ring remove`): the old primary sends every key whose primary is now
 * another server to that server before it acknowledges the new ring, so
 * the workers, who get a ring only once every server acknowledged it,
 * find each key whole on its new primary.  A server that died hands
 * nothing over: its replicas take its keys over (ringchange.c).
 *
 * Invariants:
 *  1. Keys go as REPLICATE frames of kind PS_REPLICATE_HANDOFF, stamped with
 *     the new ring version, one mark per frame (the frame's timestamp is
 *     the round the keys last saw, as in a resync, replica.c), at most
 *     HANDOFF_CHUNK keys a frame.
 *  2. The sender holds its acknowledgement of the ring (coord.h) until
 *     every frame was answered, or the server it went to is gone.
 *  3. The new primary keeps the copy whose mark is later, like a
 *     handover, and sends what it took to its own replicas.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "failover.h"
#include "util/log.h"
#include "util/trace.h"
#include "util/xmalloc.h"

#define HANDOFF_CHUNK	65536

/* Send q these slots of st, a frame per mark and chunk. */
static void
handoff_to(struct channel *ch, const struct store *st, size_t q,
    uint32_t *slots, size_t n)
{
	struct server *srv = ch->srv;
	size_t i, j;
	int frames;

	store_sort_by_mark(st, slots, n);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && j - i < HANDOFF_CHUNK &&
		    store_mark(st, slots[j]) == store_mark(st, slots[i]); j++)
			continue;
		frames = replica_send_store(ch, st, q,
		    store_mark_round(store_mark(st, slots[i])),
		    PS_REPLICATE_HANDOFF, slots + i, j - i);
		if (frames < 0) {
			log_warnx("channel %u: cannot hand %zu keys over to %s",
			    ch->id, n - i, srv->ring.servers[q].addr);
			return;
		}
		srv->handoff_acks += (size_t)frames;
	}
}

/*
 * The ring changed: send each key of old (the channel's serving store
 * under the previous ring) whose primary is now another server to it;
 * every key when this server left the ring.
 */
void
handoff_send(struct channel *ch, const struct store *old)
{
	struct server *srv = ch->srv;
	size_t ns = srv->ring.nservers, count = ps_keytab_count(&old->keys);
	size_t i, q, *n = xcalloc(ns + 1, sizeof *n), total = 0;
	uint32_t **slots = xcalloc(ns + 1, sizeof *slots);

	/* A server cut off from the coordinator holds nothing to give. */
	for (i = 0; i < count && ns > 0 && !srv->coord_lost; i++) {
		q = ps_ring_lookup(&srv->ring, ps_keytab_key(&old->keys, i));
		if (srv->in_ring && q == srv->ring_index)
			continue;
		if (slots[q] == NULL)
			slots[q] = xcalloc(count, sizeof *slots[q]);
		slots[q][n[q]++] = (uint32_t)i;
	}
	for (q = 0; q < ns; q++) {
		if (n[q] > 0)
			handoff_to(ch, old, q, slots[q], n[q]);
		total += n[q];
		free(slots[q]);
	}
	free(slots);
	free(n);
	if (total > 0)
		log_info("ring version %u, channel %u: handing %zu keys over "
		    "to their new primaries", srv->ring.version, ch->id, total);
}

/* Invariant 2: after handoff_send, hold the ring's acknowledgement. */
void
handoff_hold(struct server *srv)
{
	if (srv->handoff_acks > 0 && srv->coord != NULL) {
		srv->handoff_started = ps_clock_now();
		ps_coord_node_hold(srv->coord);
	}
}

/* One frame answered (or lost, with its server): ack the ring after all. */
void
handoff_answered(struct server *srv, int lost)
{
	if (srv->handoff_acks == 0)
		return;
	srv->handoff_acks = lost ? 0 : srv->handoff_acks - 1;
	if (srv->handoff_acks > 0)
		return;
	log_info("ring version %u: segments handed over in %.0f ms%s",
	    srv->ring.version, (ps_clock_now() - srv->handoff_started) * 1e3,
	    lost ? " (a new primary went away)" : "");
	if (srv->coord != NULL)
		ps_coord_node_ack(srv->coord);
}

/*
 * Invariant 3: a HANDOFF frame m for this server's ring, checked; an sgd
 * channel's keys (w, z, n) are taken whole (their floors came before,
 * replica.c, invariant 7).
 */
void
handoff_apply(struct channel *ch, const struct ps_msg *m,
    const struct ps_replicate *rep)
{
	struct server *srv = ch->srv;
	struct store *st = &ch->store;
	uint32_t *slots = xcalloc(m->nkeys + 1, sizeof *slots);
	uint64_t *took = xcalloc(m->nkeys + 1, sizeof *took);
	size_t k, n = 0, stray = 0;

	for (k = 0; k < m->nkeys; k++) {
		long have;
		uint32_t s;

		if (!srv->in_ring ||
		    ps_ring_lookup(&srv->ring, m->keys[k]) != srv->ring_index) {
			stray++;
			continue;
		}
		have = ps_keytab_find(&st->keys, m->keys[k]);
		if (!rep->online && have >= 0 &&
		    store_mark(st, (size_t)have) >=
		    store_round_mark(m->timestamp))
			continue;
		s = store_slot(st, m->keys[k]);
		replica_set_key(st, s, m, k, rep->online);
		if (!rep->online)
			store_set_mark(st, s, store_round_mark(m->timestamp));
		took[n] = m->keys[k];
		slots[n++] = s;
	}
	if (rep->online) {	/* what a part saved here says */
		ch->handed = 1;
		ch->handed_epochs = rep->epochs;
		ch->handed_lambda = rep->lambda;
		if (rep->iteration > ch->handed_iteration)
			ch->handed_iteration = rep->iteration;
	}
	if (n > 0 && !rep->online)
		ps_trace_event(srv->trace, took, n, "took\t%u\t%llu\t%s",
		    ch->id, (unsigned long long)m->timestamp,
		    replica_sender(srv, m));
	srv->stats.handoff_keys_in += n;
	if (stray > 0)
		log_warnx("channel %u: %zu handed-over keys are not this "
		    "server's in ring version %u; dropped", ch->id, stray,
		    srv->ring.version);
	if (n > 0)
		replica_copy(ch, m->timestamp, slots, n);
	free(took);
	free(slots);
}
