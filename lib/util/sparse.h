/*
 * sparse.h: a float for each slot 0, 1, 2, ... that is held only where it
 * is not +0: an open-addressing table of (slot, value) pairs.
 *
 * For per-key state that is 0 on almost every key of a sparse model (the
 * server's momentum and the weights before a round: a few percent of the
 * keys have a non-zero weight), where a dense array would cost 4 bytes on
 * every key.  -0 is held as a value of its own, so a read gives back
 * exactly the bits set.
 */
#ifndef PS_SPARSE_H
#define PS_SPARSE_H

#include <stddef.h>
#include <stdint.h>

struct ps_sparse {
	uint32_t	*slots;		/* bucket -> slot + 1, 0 = empty */
	float		*vals;		/* bucket -> value */
	size_t		 mask;		/* buckets - 1; 0 before the first */
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
