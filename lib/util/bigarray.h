/*
 * bigarray.h: arrays that grow by moving their pages (mremap) rather than
 * by copying them, for the per-key state of a server's store, which grows
 * with the keys it holds.  A grown array leaves no freed copy behind in
 * the heap for other blocks to keep resident, growing copies nothing, the
 * entries past those written never become resident, and new entries are
 * zero.  The caller keeps the entry count, which resizing and freeing take
 * back.
 */
#ifndef PS_BIGARRAY_H
#define PS_BIGARRAY_H

#include <stddef.h>

/*
 * p (of oldn entries of size bytes; NULL when oldn is 0) resized to newn
 * entries, the first min(oldn, newn) kept, the others zero.  Exhaustion
 * is fatal, as in xmalloc.h.
 */
void	*ps_bigarray_resize(void *p, size_t oldn, size_t newn, size_t size);
/* Free p, of n entries of size bytes (NULL: nothing). */
void	 ps_bigarray_free(void *p, size_t n, size_t size);

#endif
