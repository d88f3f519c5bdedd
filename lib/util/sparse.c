/*
 * sparse.c: the sparse float column of sparse.h.  Linear probing in a
 * power of two of buckets at most half full, and deletion by shifting the
 * entries after a freed bucket back, so that no tombstones pile up as
 * values come and go (a weight leaves 0 and returns to it many times in a
 * run).  When the table is about to double, and its new buckets would
 * cost more than 4 bytes for every slot from the array's end up to the
 * highest slot set, the array grows to that slot instead and takes every
 * entry of the table (sparse_dense_pays()).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/bigarray.h"
#include "util/sparse.h"
#include "util/xmalloc.h"

#define SPARSE_DENSE_ROUND	1024	/* array entries: a 4 KiB page */

void
ps_sparse_init(struct ps_sparse *m)
{
	memset(m, 0, sizeof *m);
}

void
ps_sparse_release(struct ps_sparse *m)
{
	free(m->slots);
	free(m->vals);
	ps_bigarray_free(m->dense, m->ndense, sizeof *m->dense);
	ps_sparse_init(m);
}

void
ps_sparse_clear(struct ps_sparse *m)
{
	if (m->slots != NULL)
		memset(m->slots, 0, (m->mask + 1) * sizeof *m->slots);
	ps_bigarray_free(m->dense, m->ndense, sizeof *m->dense);
	m->dense = NULL;
	m->ndense = m->top = m->tabcount = m->count = 0;
}

/* The bucket slot's probe starts at. */
static inline size_t
sparse_home(const struct ps_sparse *m, uint32_t slot)
{
	return (size_t)(((uint64_t)slot * 0x9e3779b97f4a7c15ULL) >> 32) &
	    m->mask;
}

/* The bucket that holds slot, or the empty one where it would go. */
static size_t
sparse_find(const struct ps_sparse *m, uint32_t slot)
{
	size_t b = sparse_home(m, slot);

	while (m->slots[b] != 0 && m->slots[b] != slot + 1)
		b = (b + 1) & m->mask;
	return b;
}

float
ps_sparse_get(const struct ps_sparse *m, uint32_t slot)
{
	size_t b;

	if (slot < m->ndense)
		return m->dense[slot];
	if (m->tabcount == 0)
		return 0.0f;
	b = sparse_find(m, slot);
	return m->slots[b] != 0 ? m->vals[b] : 0.0f;
}

/* Twice the buckets (16 the first time), every entry placed again. */
static void
sparse_grow(struct ps_sparse *m)
{
	uint32_t *slots = m->slots;
	float *vals = m->vals;
	size_t n = m->slots != NULL ? m->mask + 1 : 0, b, to;

	m->mask = n ? 2 * n - 1 : 15;
	m->slots = xcalloc(m->mask + 1, sizeof *m->slots);
	m->vals = xcalloc(m->mask + 1, sizeof *m->vals);
	for (b = 0; b < n; b++) {
		if (slots[b] == 0)
			continue;
		to = sparse_find(m, slots[b] - 1);
		m->slots[to] = slots[b];
		m->vals[to] = vals[b];
	}
	free(slots);
	free(vals);
}

/*
 * Empty bucket b, moving back each entry after it whose probe started at
 * or before b (cyclically), so that every probe still finds its entry.
 */
static void
sparse_remove(struct ps_sparse *m, size_t b)
{
	size_t next = b, home;

	for (;;) {
		next = (next + 1) & m->mask;
		if (m->slots[next] == 0)
			break;
		home = sparse_home(m, m->slots[next] - 1);
		/* Does home lie cyclically in (b, next]?  Then it stays. */
		if (((next - home) & m->mask) < ((next - b) & m->mask))
			continue;
		m->slots[b] = m->slots[next];
		m->vals[b] = m->vals[next];
		b = next;
	}
	m->slots[b] = 0;
	m->tabcount--;
	m->count--;
}

/*
 * Would the table, doubled (16 buckets the first time), cost more than
 * an array for the slots from the array's end to the highest one set?
 */
static int
sparse_dense_pays(const struct ps_sparse *m)
{
	size_t buckets = m->slots != NULL ? 2 * (m->mask + 1) : 16;

	return buckets * (sizeof *m->slots + sizeof *m->vals) >=
	    (m->top - m->ndense) * sizeof *m->dense;
}

/*
 * Grow the array past the highest slot set, by half at least (the pages
 * never written never become resident), and move the table's entries.
 */
static void
sparse_densify(struct ps_sparse *m)
{
	size_t b, n = m->ndense + m->ndense / 2;

	n = (n > m->top ? n : m->top) + SPARSE_DENSE_ROUND - 1;
	n -= n % SPARSE_DENSE_ROUND;
	m->dense = ps_bigarray_resize(m->dense, m->ndense, n,
	    sizeof *m->dense);
	m->ndense = n;
	for (b = 0; m->slots != NULL && b <= m->mask; b++)
		if (m->slots[b] != 0)
			m->dense[m->slots[b] - 1] = m->vals[b];
	free(m->slots);
	free(m->vals);
	m->slots = NULL;
	m->vals = NULL;
	m->mask = 0;
	m->tabcount = 0;
}

/* Set slot (< ndense) in the array, v's bits being bits. */
static void
sparse_set_dense(struct ps_sparse *m, uint32_t slot, float v, uint32_t bits)
{
	uint32_t old;

	memcpy(&old, &m->dense[slot], sizeof old);
	m->count -= old != 0;
	m->count += bits != 0;
	m->dense[slot] = v;
}

void
ps_sparse_set(struct ps_sparse *m, uint32_t slot, float v)
{
	uint32_t bits;
	size_t b;
	int zero;

	memcpy(&bits, &v, sizeof bits);
	zero = bits == 0;	/* +0 only: -0 is held */
	if (!zero && slot >= m->top)
		m->top = (size_t)slot + 1;
	if (slot < m->ndense) {
		sparse_set_dense(m, slot, v, bits);
		return;
	}
	if (m->tabcount == 0 && zero)
		return;
	if (!zero &&
	    (m->slots == NULL || 2 * (m->tabcount + 1) > m->mask + 1)) {
		if (sparse_dense_pays(m)) {
			sparse_densify(m);
			sparse_set_dense(m, slot, v, bits);
			return;
		}
		sparse_grow(m);
	}
	b = sparse_find(m, slot);
	if (m->slots[b] == 0) {
		if (zero)
			return;
		m->slots[b] = slot + 1;
		m->tabcount++;
		m->count++;
	} else if (zero) {
		sparse_remove(m, b);
		return;
	}
	m->vals[b] = v;
}
