/*
 * radix.h: sorting 64-bit keys, least significant byte first, for the
 * large arrays of feature ids (a shard's, a model part's) where it beats
 * qsort several times over.
 */
#ifndef PS_RADIX_H
#define PS_RADIX_H

#include <stddef.h>
#include <stdint.h>

/*
 * Sort keys[0, n) ascending, stably; vals, when not NULL, holds n values
 * that move with their keys.  Bytes that are the same in every key are
 * skipped.
 */
void	ps_radix_sort(uint64_t *keys, uint32_t *vals, size_t n);

#endif
