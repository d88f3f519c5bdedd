/*
 * ringstore.h: where the coordinator keeps its authoritative ring.
 *
 * The coordinator only loads the ring once at start and saves each new
 * version before anyone sees it; everything else it keeps in memory.  A
 * backend is a table of three operations:
 *
 *   load   the stored ring: 0 and *r (the caller releases it), 1 when
 *          nothing is stored yet, PS_RING_EDATA or PS_RING_ESYS with the
 *          reason in err
 *   save   store r as the next version, atomically: readers see the old
 *          version or the new one.  It must refuse (-1, reason in err)
 *          unless the stored ring is the one r was made from, version
 *          r->version - 1 (or nothing, for the first save), so that two
 *          coordinators can never both publish a version.
 *   close  free the store
 *
 * The file backend (ringstore_file.c) is the embedded default, enough for
 * one machine: pskit-ring(5) text written through lib/atomicfile, the
 * compare-and-set checked against the version it last loaded or saved (it
 * is the only writer).  A ZooKeeper backend would keep the text in one
 * znode, map the compare-and-set to setData() with the znode version, and
 * later hold the servers as ephemeral znodes and replace polling by
 * watches; it would be opened from a "zk://" argument beside
 * ringstore_file_open().
 */
#ifndef PS_RINGSTORE_H
#define PS_RINGSTORE_H

#include <stddef.h>

#include "cluster/ring.h"

struct ring_store;

struct ring_store_ops {
	const char	*name;
	int		(*load)(struct ring_store *st, struct ps_ring *r,
			    char *err, size_t errlen);
	int		(*save)(struct ring_store *st, const struct ps_ring *r,
			    char *err, size_t errlen);
	void		(*close)(struct ring_store *st);
};

struct ring_store {
	const struct ring_store_ops	*ops;
	char				*where;	/* for messages: path, URL */
	void				*state;	/* the backend's */
};

/* ringstore_file.c: a store in the ring file at path (copied). */
struct ring_store *ringstore_file_open(const char *path);

#endif
