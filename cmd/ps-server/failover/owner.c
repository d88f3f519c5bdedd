/*
 * owner.c: which keys this server holds, and which requests it takes.
 *
 * The ring comes from a file (-r), loaded when the first worker says HELLO
 * (the file may be written after the server started, once every server's
 * port is known), or from the coordinator (-C, coordlink.c), which sends
 * each new version.  Either way the server finds itself by its bound
 * address and refuses keys the ring gives to another server, so a
 * misrouted push cannot split a weight in two.  With a coordinator it also
 * fences: requests stamped with another ring version than the one it
 * holds are refused, and all key traffic while it is cut off from the
 * coordinator (not while the coordinator is gone: pskit(7)) or is not in
 * the ring.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "failover.h"

/*
 * Hold ring (taken over) from now on; 1 if this server is in it.  A
 * server that held another ring and is in the new one hands its keys over
 * (ringchange.c).  A server's first ring may come after the keys handed
 * over and resent to it under that ring (a server that joins a job in
 * progress): it takes them now, before any request of that ring.
 */
int
owner_adopt(struct server *srv, struct ps_ring *ring)
{
	long i = ps_ring_find(ring, srv->bound);
	int changed = srv->have_ring, was_in = srv->have_ring && srv->in_ring;

	if (srv->have_ring) {
		replica_links_free(srv);
		/*
		 * Handoff frames still unanswered went on those links: no
		 * answer will come, and waiting for one would hold every
		 * later version (handoff.c, invariant 2).
		 */
		srv->handoff_acks = 0;
		/* Who served a key before: sgd pushes sent again (online.c). */
		if (srv->have_prev_ring)
			ps_ring_release(&srv->prev_ring);
		srv->prev_ring = srv->ring;
		srv->have_prev_ring = 1;
	}
	srv->ring = *ring;
	srv->have_ring = 1;
	srv->in_ring = i >= 0;
	srv->ring_index = i >= 0 ? (size_t)i : 0;
	if (changed && srv->in_ring)
		ringchange_apply(srv);
	else if (was_in && srv->coord_addr != NULL && !srv->coord_lost)
		ringchange_leave(srv);
	else if (!changed && srv->in_ring)
		replica_apply_early(srv);
	return srv->in_ring;
}

/* Load the file ring if needed; it must have the version the worker holds. */
int
owner_load(struct server *srv, uint32_t version, char *err, size_t errlen)
{
	struct ps_ring ring;

	if (srv->ring_path == NULL)
		return 0;
	if (srv->have_ring && srv->ring.version == version)
		return 0;
	if (ps_ring_load(srv->ring_path, &ring, err, errlen) != 0)
		return -1;
	if (ring.version != version) {
		snprintf(err, errlen, "the worker holds ring version %u, '%s' "
		    "has version %u", version, srv->ring_path, ring.version);
		ps_ring_release(&ring);
		return -1;
	}
	if (!owner_adopt(srv, &ring)) {
		snprintf(err, errlen, "this server (%s) is not in ring '%s'",
		    srv->bound, srv->ring_path);
		return -1;
	}
	return 0;
}

/* With a coordinator: is m stamped with a ring older than the server's? */
int
owner_stale(const struct server *srv, const struct ps_msg *m)
{
	return srv->coord_addr != NULL && srv->have_ring && !srv->coord_cut &&
	    m->ring_version < srv->ring.version;
}

/* With a coordinator: 0 if a request stamped with m's version may pass. */
int
owner_fence(const struct server *srv, const struct ps_msg *m, char *err,
    size_t errlen)
{
	if (srv->coord_addr == NULL)
		return 0;
	if (srv->coord_cut)
		snprintf(err, errlen, "this server lost the coordinator");
	else if (!srv->have_ring)
		snprintf(err, errlen, "no ring from the coordinator yet");
	else if (m->ring_version < srv->ring.version)
		snprintf(err, errlen, "stale ring version %u, this server "
		    "holds %u", m->ring_version, srv->ring.version);
	else if (m->ring_version > srv->ring.version)
		snprintf(err, errlen, "ring version %u is newer than this "
		    "server's %u", m->ring_version, srv->ring.version);
	else if (!srv->in_ring)
		snprintf(err, errlen, "this server (%s) is not in ring "
		    "version %u", srv->bound, srv->ring.version);
	else
		return 0;
	return -1;
}

/* 0 when every key is this server's, else -1 naming the first stray one. */
int
owner_check(const struct server *srv, const uint64_t *keys, size_t n,
    char *err, size_t errlen)
{
	size_t k, owner;

	if (!srv->have_ring || keys == NULL)
		return 0;
	for (k = 0; k < n; k++) {
		owner = ps_ring_lookup(&srv->ring, keys[k]);
		if (owner != srv->ring_index) {
			snprintf(err, errlen, "key %llu belongs to server %u "
			    "(%s), not to this one",
			    (unsigned long long)keys[k],
			    srv->ring.servers[owner].id,
			    srv->ring.servers[owner].addr);
			return -1;
		}
	}
	return 0;
}
