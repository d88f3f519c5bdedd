/*
 * ringstore.h: where the coordinator keeps its authoritative ring.
 *
 * The coordinator loads the ring once at start and saves each new version
 * before anyone sees it; everything else it keeps in memory.  A backend is
 * a table of three operations:
 *
 *   load   when the coordinator starts to lead: the stored ring into *r
 *          (the caller releases it) and 0, or, when nothing is stored
 *          yet, store *empty as the first version, copy it to *r and
 *          return 1; PS_RING_EDATA, PS_RING_ESYS or (the first version
 *          could not be stored) RING_STORE_ECREATE with the reason in
 *          err.  Or RING_STORE_LATER: sent, and the store calls loaded()
 *          from the event loop with one of those results, *r filled in
 *          (r must stay valid until then; *empty is copied at once)
 *   save   store r as the next version, atomically: readers see the old
 *          version or the new one.  It must refuse unless the stored ring
 *          is the one r was made from, version r->version - 1, so that two
 *          coordinators can never both publish a version.  0: stored;
 *          1: sent, and the store calls saved() from the event loop when
 *          it knows (the loop must not wait for it); -1: refused or
 *          failed at once, the reason in err.  One save at a time.
 *   close  free the store
 *
 * The file backend (ringstore_file.c) is the embedded default, enough for
 * one machine: pskit-ring(5) text written through lib/atomicfile, the
 * compare-and-set checked against the version it last loaded or saved (it
 * is the only writer); its saves end at once.  The ZooKeeper backend
 * (ringstore_zk.c) keeps the text in one znode and maps the
 * compare-and-set to a setData() on the znode's version; its loads and
 * saves end later.
 */
#ifndef PS_RINGSTORE_H
#define PS_RINGSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "cluster/ring.h"

struct ring_store;

#define RING_STORE_ECREATE	(-3)	/* load: cannot store the first */
#define RING_STORE_LATER	2	/* load: loaded() will say */

struct ring_store_ops {
	const char	*name;
	int		(*load)(struct ring_store *st, struct ps_ring *r,
			    const struct ps_ring *empty, char *err,
			    size_t errlen);
	int		(*save)(struct ring_store *st, const struct ps_ring *r,
			    char *err, size_t errlen);
	void		(*close)(struct ring_store *st);
};

struct ring_store {
	const struct ring_store_ops	*ops;
	char				*where;	/* for messages: path, URL */
	void				*state;	/* the backend's */
	/*
	 * Set by the coordinator: a save that returned 1 ended, stored
	 * (ok 1) or not (ok 0, why in err).
	 */
	void				(*saved)(void *arg, uint32_t version,
					    int ok, const char *err);
	void				*saved_arg;
	/* Set by the coordinator: a load that returned RING_STORE_LATER
	   ended, rc what load would have returned. */
	void				(*loaded)(void *arg, int rc,
					    const char *err);
	void				*loaded_arg;
};

/* ringstore_file.c: a store in the ring file at path (copied). */
struct ring_store *ringstore_file_open(const char *path);
/* ringstore_zk.c: a store in the znode "ring" of zk's path (zk.h). */
struct zk;
struct ring_store *ringstore_zk_open(struct zk *zk);

#endif
