/*
 * stats.c: the counts ps-shard-data --stats prints, as TSV.
 *
 * Distinct feature ids below 2^24 are bits of a plain bitmap, grown (by
 * doubling, up to 2 MiB) to cover the largest seen: the ids of a libsvm
 * file fill a range, so it stays small and in cache (1M ids: 128 KiB),
 * and a non-zero costs a shift, a load and a store.  Larger ids go to the
 * words of a sparse bitmap kept in an open-addressing hash table of
 * (id / 64 + 1, bit mask) pairs: slot[2 i] is pair i's key (0 = free) and
 * slot[2 i + 1] its mask, for i < cap, and slot[2 cap] counts the pairs in
 * use.  The table doubles at half load; scattered ids cost a pair each.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "shard-data.h"
#include "util/xmalloc.h"

#define INIT_CAP	256		/* pairs, a power of two */
#define DENSE_WORDS	(1u << 18)	/* the plain bitmap's most words */

void
sd_stats_init(struct sd_stats *st)
{
	memset(st, 0, sizeof *st);
	st->cap = INIT_CAP;
	st->slot = xcalloc(2 * st->cap + 1, sizeof *st->slot);
}

/*
 * The pair with key w in a table of cap pairs, or the free pair for it.
 * Fibonacci hashing (the top bits of w times 2^64 / phi) spreads the
 * consecutive keys of a range of ids evenly and costs one multiply.
 */
static uint64_t *
set_find(uint64_t *t, size_t cap, uint64_t w)
{
	size_t i = (size_t)((w * UINT64_C(0x9e3779b97f4a7c15)) >>
	    (64 - __builtin_ctzll(cap)));

	while (t[2 * i] != 0 && t[2 * i] != w)
		i = (i + 1) & (cap - 1);
	return &t[2 * i];
}

/* Double the table's capacity. */
static void
set_grow(struct sd_stats *st)
{
	uint64_t *old = st->slot, *p;
	size_t i, cap = st->cap;

	st->cap *= 2;
	st->slot = xcalloc(2 * st->cap + 1, sizeof *st->slot);
	for (i = 0; i < cap; i++)
		if (old[2 * i] != 0) {
			p = set_find(st->slot, st->cap, old[2 * i]);
			p[0] = old[2 * i];
			p[1] = old[2 * i + 1];
		}
	st->slot[2 * st->cap] = old[2 * cap];
	free(old);
}

/* Add the ids of mask in word key w to the set, counting the new ones. */
static void
set_or(struct sd_stats *st, uint64_t w, uint64_t m)
{
	uint64_t *p = set_find(st->slot, st->cap, w);

	if (p[0] == 0) {
		if (2 * (st->slot[2 * st->cap] + 1) > st->cap) {
			set_grow(st);
			p = set_find(st->slot, st->cap, w);
		}
		p[0] = w;
		st->slot[2 * st->cap]++;
	}
	st->nfeat += (size_t)__builtin_popcountll(m & ~p[1]);
	p[1] |= m;
}

/* Add id to the set, counting it in nfeat if it is new. */
static void
set_add(struct sd_stats *st, uint64_t id)
{
	set_or(st, (id >> 6) + 1, UINT64_C(1) << (id & 63));
}

/* Grow the plain bitmap to hold word w (< DENSE_WORDS), zeroed. */
static void
dense_grow(struct sd_stats *st, size_t w)
{
	size_t n = st->ndense ? st->ndense : 1024;

	while (n <= w)
		n *= 2;
	if (n > DENSE_WORDS)
		n = DENSE_WORDS;
	st->dense = xreallocarray(st->dense, n, sizeof *st->dense);
	memset(st->dense + st->ndense, 0,
	    (n - st->ndense) * sizeof *st->dense);
	st->ndense = n;
}

void
sd_stats_add(struct sd_stats *st, const struct ps_libsvm_row *row)
{
	size_t k;

	st->rows++;
	st->nnz += row->nnz;
	st->positives += row->y > 0;
	if (row->nnz > 0 && row->fid[row->nnz - 1] > st->max_fid)
		st->max_fid = row->fid[row->nnz - 1];
	for (k = 0; k < row->nnz; k++) {
		uint64_t id = row->fid[k], w = id >> 6, m;

		if (w >= DENSE_WORDS) {
			set_add(st, id);
			continue;
		}
		if (w >= st->ndense)
			dense_grow(st, (size_t)w);
		m = UINT64_C(1) << (id & 63);
		st->nfeat += (st->dense[w] & m) == 0;
		st->dense[w] |= m;
	}
}

/*
 * Add the counts of src, a disjoint set of rows, to dst: a feature of both
 * counts once.  Costs the bitmaps' words, not the rows' non-zeros.
 */
void
sd_stats_merge(struct sd_stats *dst, const struct sd_stats *src)
{
	size_t w;

	dst->rows += src->rows;
	dst->nnz += src->nnz;
	dst->positives += src->positives;
	if (src->max_fid > dst->max_fid)
		dst->max_fid = src->max_fid;
	if (src->ndense > dst->ndense)
		dense_grow(dst, src->ndense - 1);
	for (w = 0; w < src->ndense; w++) {
		dst->nfeat += (size_t)__builtin_popcountll(src->dense[w] &
		    ~dst->dense[w]);
		dst->dense[w] |= src->dense[w];
	}
	for (w = 0; w < src->cap; w++)
		if (src->slot[2 * w] != 0)
			set_or(dst, src->slot[2 * w], src->slot[2 * w + 1]);
}

void
sd_stats_print_header(FILE *fp)
{
	fputs("set\trows\tfeatures\tmax_feature_id\tnnz\tpositives\t"
	    "negatives\n", fp);
}

void
sd_stats_print(FILE *fp, const char *name, const struct sd_stats *st)
{
	fprintf(fp, "%s\t%" PRIu64 "\t%zu\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
	    "\t%" PRIu64 "\n", name, st->rows, st->nfeat, st->max_fid,
	    st->nnz, st->positives, st->rows - st->positives);
}

void
sd_stats_release(struct sd_stats *st)
{
	free(st->slot);
	free(st->dense);
	memset(st, 0, sizeof *st);
}
