/*
 * owner.c: which keys this server holds.  With -r, the server loads the
 * ring file when the first worker says HELLO (the file may be written after
 * the server started, once every server's port is known), finds itself by
 * its bound address, and from then on refuses keys the ring gives to
 * another server, so a misrouted push cannot split a weight in two.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "server.h"

/* Load the ring if needed; it must have the version the worker holds. */
int
owner_load(struct server *srv, uint32_t version, char *err, size_t errlen)
{
	struct ps_ring ring;
	size_t i;

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
	for (i = 0; i < ring.nservers; i++)
		if (strcmp(ring.servers[i].addr, srv->bound) == 0)
			break;
	if (i == ring.nservers) {
		snprintf(err, errlen, "this server (%s) is not in ring '%s'",
		    srv->bound, srv->ring_path);
		ps_ring_release(&ring);
		return -1;
	}
	if (srv->have_ring) {
		replica_links_free(srv);
		ps_ring_release(&srv->ring);
	}
	srv->ring = ring;
	srv->ring_index = i;
	if (srv->have_ring)
		handover_ring(srv);
	srv->have_ring = 1;
	return 0;
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
