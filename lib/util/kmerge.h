/*
 * kmerge.h: a walk over the union of a few strictly ascending key lists,
 * one distinct key at a time, telling which lists hold it and where: how
 * a server sums the pushes of a round (every push's keys ascend, wire.h)
 * without a map from key to place.  A list may also be given as slots of
 * a key table (keytab.h), each standing for its key: how a server holds
 * a push until its round is summed (cmd/ps-server/round.c).
 */
#ifndef PS_KMERGE_H
#define PS_KMERGE_H

#include <stddef.h>
#include <stdint.h>

#include "util/keytab.h"

struct ps_kmerge {
	const uint64_t	**keys;		/* [nlists]: ascending; NULL: empty
					   or given by slots */
	const uint32_t	**slots;	/* [nlists]: slots of kt whose keys
					   ascend, where keys[i] is NULL */
	const struct ps_keytab *kt;	/* the table of the slot lists */
	size_t		 *len;		/* [nlists] */
	size_t		 *at;		/* [nlists]: the current key's index in
					   each list that holds it, else the
					   next key's */
	uint32_t	 *which;	/* [nwhich]: the lists that hold the
					   current key, in ascending order */
	size_t		  nwhich;
	size_t		  nlists;
};

/* Set m up for nlists lists, each empty until ps_kmerge_list(). */
void	ps_kmerge_init(struct ps_kmerge *m, size_t nlists);
void	ps_kmerge_release(struct ps_kmerge *m);
/* List i is keys[0..len), strictly ascending. */
void	ps_kmerge_list(struct ps_kmerge *m, size_t i, const uint64_t *keys,
	    size_t len);
/* List i is the keys of slots[0..len) in kt, strictly ascending. */
void	ps_kmerge_slots(struct ps_kmerge *m, size_t i, const uint32_t *slots,
	    size_t len, const struct ps_keytab *kt);
/*
 * Step to the next distinct key, the lowest not yet walked: the number of
 * lists that hold it (m->which, m->at), 0 at the end.
 */
size_t	ps_kmerge_next(struct ps_kmerge *m);

#endif
