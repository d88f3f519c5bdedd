/*
 * ringchange.c: what a server does with its own two stores when its ring
 * changes (a server failed, joined or left): keys the new ring gives it
 * come out of its replica store into the keys it serves (it followed
 * them, so it holds every result their old primary acknowledged), keys it
 * no longer serves go to its replica store, copies of segments it no
 * longer follows are dropped, and every key it serves is sent again to
 * its replicas under the new ring, which restores k copies of each
 * segment.  Keys whose new primary is another live server are also sent
 * to it (handoff.c).
 *
 * When a key is in both stores, the copy whose round mark is later wins
 * (two marks too old to keep, store_mark(), tie, and the serving copy
 * stays: a copy followed every round since, so both hold the same).
 * An sgd job's keys keep their optimiser state (z, n), and its servers
 * first tell each other how far each worker's pushes they applied
 * (replica.c, invariant 7).
 * Rounds in progress are dropped (round.c, invariant 7): the workers send
 * them again under the new ring.  Nothing waits for the resync's answers,
 * so until they arrive the last rounds' results may be on fewer than
 * k + 1 servers.
 */
#include "config.h"

#include <stdlib.h>

#include "failover.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* Where key goes under the server's ring: 1 serve, 0 follow, -1 drop. */
static int
ringchange_place(const struct server *srv, uint64_t key, size_t *idx)
{
	size_t n = ps_ring_replicas(&srv->ring, key, idx,
	    (size_t)srv->ring.replicas + 1), j;

	if (n > 0 && idx[0] == srv->ring_index)
		return 1;
	for (j = 1; j < n; j++)
		if (idx[j] == srv->ring_index)
			return 0;
	return -1;
}

/* Sort one store's keys into the new serving and replica stores. */
static void
ringchange_sort(const struct server *srv, const struct store *from,
    struct store *serve, struct store *follow, size_t *idx, size_t *moved)
{
	size_t i, count = ps_keytab_count(&from->keys);

	for (i = 0; i < count; i++) {
		uint64_t key = ps_keytab_key(&from->keys, i);
		struct store *to;
		long have;

		switch (ringchange_place(srv, key, idx)) {
		case 1: to = serve; break;
		case 0: to = follow; break;
		default: continue;
		}
		have = ps_keytab_find(&to->keys, key);
		if (have >= 0 &&
		    store_mark(to, (size_t)have) >= store_mark(from, i))
			continue;
		store_copy_key(to, from, (uint32_t)i);
		moved[to == serve]++;
	}
}

/* Rebuild one channel's two stores under the new ring. */
static void
ringchange_channel(struct server *srv, struct channel *ch, size_t *idx)
{
	struct store serve, follow;
	size_t kept = ps_keytab_count(&ch->store.keys);
	size_t moved[2] = { 0, 0 }, before[2];

	store_init(&serve);
	store_init(&follow);
	if (ch->store.z != NULL)	/* an sgd job's: (z, n) go on */
		store_online_state(&serve, ch->store.optimizer,
		    ch->store.epochs);
	ringchange_sort(srv, &ch->store, &serve, &follow, idx, moved);
	before[0] = moved[0];
	before[1] = moved[1];
	ringchange_sort(srv, &ch->replica, &serve, &follow, idx, moved);
	log_info("ring version %u, channel %u: serving %zu keys (%zu taken "
	    "over from replicas, %zu of %zu kept), following %zu",
	    srv->ring.version, ch->id, ps_keytab_count(&serve.keys),
	    moved[1] - before[1], before[1], kept,
	    ps_keytab_count(&follow.keys));
	replica_floors(ch);	/* before any handoff */
	handoff_send(ch, &ch->store);
	store_release(&ch->store);
	store_release(&ch->replica);
	ch->store = serve;
	ch->replica = follow;
	replica_resync(ch);
	rounds_ring_changed(ch);
	online_ring_changed(ch);
}

/* The ring just changed: hand keys over in every channel. */
void
ringchange_apply(struct server *srv)
{
	size_t *idx = xcalloc((size_t)srv->ring.replicas + 1, sizeof *idx);
	uint32_t i;

	for (i = 0; i < SERVER_CHANNELS_MAX; i++)
		if (srv->channels[i] != NULL)
			ringchange_channel(srv, srv->channels[i], idx);
	free(idx);
	replica_apply_early(srv);
	handoff_hold(srv);
}

/* This server left the ring alive: hand every key it served over. */
void
ringchange_leave(struct server *srv)
{
	uint32_t i;

	for (i = 0; i < SERVER_CHANNELS_MAX; i++)
		if (srv->channels[i] != NULL)
			handoff_send(srv->channels[i], &srv->channels[i]->store);
	handoff_hold(srv);
}
