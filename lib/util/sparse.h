/*
 * sparse.h: a float for each slot 0, 1, 2, ... that is held only where it
 * is not +0: an open-addressing table of (slot, value) pairs, and below
 * a slot count a plain array once that costs less.
 *
 * For per-key state that is 0 on almost every key of a sparse model (the
 * server's momentum and the weights before a round: a few percent of the
 * keys have a non-zero weight), where a dense array would cost 4 bytes on
 * every key.  A pair costs 16 to 32 bytes in the table, so where more
 * than one slot in 16 holds a value (a model of small lambda) the slots
 * below the highest one move to an array of 4 bytes each (sparse.c).
 * -0 is held as a value of its own, so a read gives back exactly the
 * bits set.
 */
#ifndef PS_SPARSE_H
#define PS_SPARSE_H

#include <stddef.h>
#include <stdint.h>

struct ps_sparse {
	uint32_t	*slots;		/* bucket -> slot + 1, 0 = empty */
	float		*vals;		/* bucket -> value */
	size_t		 mask;		/* buckets - 1; 0 before the first */
	size_t		 tabcount;	/* slots held in the table */
	float		*dense;		/* slot -> value below ndense, or
					   NULL (util/bigarray.h) */
	size_t		 ndense;
	size_t		 top;		/* the highest slot set, plus one */
	size_t		 count;		/* slots held */
};

void	ps_sparse_init(struct ps_sparse *m);
void	ps_sparse_release(struct ps_sparse *m);
/* The value of slot (< UINT32_MAX); +0 when none is held. */
float	ps_sparse_get(const struct ps_sparse *m, uint32_t slot);
/* Set the value of slot (< UINT32_MAX); +0 drops what is held. */
void	ps_sparse_set(struct ps_sparse *m, uint32_t slot, float v);
/* Drop every value. */
void	ps_sparse_clear(struct ps_sparse *m);
static inline size_t
ps_sparse_count(const struct ps_sparse *m)
{
	return m->count;
}

#endif
