/*
 * batches.c: the mini-batches of asynchronous SGD.  The shard's rows are
 * shuffled once by the seed and cut into mini-batches of `batch` rows (the
 * last one may be short), so a mini-batch is a random sample even when the
 * file is sorted by label; within one, rows stay in ascending order for
 * locality.  For each mini-batch the features its rows touch are listed
 * once, grouped by the server the ring gives them and ascending within a
 * server, which is what a pull's sorted key list needs.  Built once; the
 * order of the mini-batches changes every epoch (plan_shuffle).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "worker.h"
#include "xmalloc.h"

/* qsort order of uint32 values. */
static int
u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Cut the shuffled rows into mini-batches, each sorted. */
static void
batches_rows(struct batches *bt, const struct ps_dataset *ds, uint32_t batch,
    uint64_t seed)
{
	uint32_t n = (uint32_t)ds->nrows, b;

	bt->nbatches = n == 0 ? 0 : (n - 1) / batch + 1;
	bt->rows = xcalloc(n, sizeof *bt->rows);
	bt->roff = xcalloc((size_t)bt->nbatches + 1, sizeof *bt->roff);
	plan_shuffle(bt->rows, n, seed, UINT64_MAX);
	for (b = 0; b < bt->nbatches; b++) {
		size_t lo = (size_t)b * batch, hi = lo + batch < n ? lo + batch : n;

		bt->roff[b + 1] = hi;
		qsort(bt->rows + lo, hi - lo, sizeof *bt->rows, u32_cmp);
	}
}

/*
 * Append mini-batch b's distinct features to bt->feats (grown as needed),
 * grouped by server via srv[] and ascending within, and set its offsets.
 * mark[j] == b + 1 says feature j is already listed; tmp holds nfeat.
 */
static void
batches_feats(struct batches *bt, const struct ps_dataset *ds, uint32_t b,
    const uint32_t *srv, uint32_t *mark, uint32_t *tmp, size_t *cap)
{
	size_t n = 0, base = bt->off[(size_t)b * bt->nservers], r, k, s;
	size_t *at = bt->off + (size_t)b * bt->nservers;

	for (r = bt->roff[b]; r < bt->roff[b + 1]; r++) {
		uint32_t i = bt->rows[r];

		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++) {
			if (mark[ds->col[k]] == b + 1)
				continue;
			mark[ds->col[k]] = b + 1;
			tmp[n++] = ds->col[k];
		}
	}
	qsort(tmp, n, sizeof *tmp, u32_cmp);
	while (base + n > *cap) {
		*cap = *cap ? 2 * *cap : 4096;
		bt->feats = xreallocarray(bt->feats, *cap, sizeof *bt->feats);
	}
	for (s = 0; s <= bt->nservers; s++)	/* counts, then starts, from 0 */
		at[s] = 0;
	for (k = 0; k < n; k++)
		at[srv[tmp[k]] + 1]++;
	for (s = 0; s < bt->nservers; s++)
		at[s + 1] += at[s];
	for (k = 0; k < n; k++)		/* at[s] is now s's fill point */
		bt->feats[base + at[srv[tmp[k]]]++] = tmp[k];
	for (s = bt->nservers; s > 0; s--)	/* back to the starts */
		at[s] = at[s - 1] + base;
	at[0] = base;
	if (n > bt->maxfeats)
		bt->maxfeats = n;
}

void
batches_build(struct batches *bt, const struct ps_dataset *ds,
    const struct ps_ring *ring, uint32_t batch, uint64_t seed)
{
	uint32_t *srv = xcalloc(ds->nfeat, sizeof *srv);
	uint32_t *mark = xcalloc(ds->nfeat, sizeof *mark);
	uint32_t *tmp = xcalloc(ds->nfeat, sizeof *tmp);
	size_t j, cap = 0;
	uint32_t b;

	memset(bt, 0, sizeof *bt);
	bt->nservers = (uint32_t)ring->nservers;
	for (j = 0; j < ds->nfeat; j++)
		srv[j] = (uint32_t)ps_ring_lookup(ring, ds->fids[j]);
	batches_rows(bt, ds, batch, seed);
	bt->off = xcalloc((size_t)bt->nbatches * bt->nservers + 1,
	    sizeof *bt->off);
	for (b = 0; b < bt->nbatches; b++)
		batches_feats(bt, ds, b, srv, mark, tmp, &cap);
	free(srv);
	free(mark);
	free(tmp);
}

void
batches_release(struct batches *bt)
{
	free(bt->roff);
	free(bt->rows);
	free(bt->off);
	free(bt->feats);
	memset(bt, 0, sizeof *bt);
}
