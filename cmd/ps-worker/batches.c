/*
 * batches.c: the mini-batches of asynchronous SGD.  The shard's rows are
 * shuffled once by the seed and cut into mini-batches of `batch` rows (the
 * last one may be short), so a mini-batch is a random sample even when the
 * file is sorted by label; within one, rows stay in ascending order for
 * locality.  For each mini-batch the features its rows touch are listed
 * once, grouped by the server the ring gives them and ascending within a
 * server, which is what a pull's sorted key list needs.  Built once in
 * O(nnz + features); the order of the mini-batches changes every epoch
 * (plan_shuffle).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/xmalloc.h"
#include "worker.h"

/* qsort order of uint32 values. */
static int
u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Cut the shuffled rows into mini-batches, each sorted; bat[i] = i's. */
static void
batches_rows(struct batches *bt, const struct ps_dataset *ds, uint32_t batch,
    uint64_t seed, uint32_t *bat)
{
	uint32_t n = (uint32_t)ds->nrows, b;
	size_t r;

	bt->nbatches = n == 0 ? 0 : (n - 1) / batch + 1;
	bt->rows = xcalloc(n, sizeof *bt->rows);
	bt->roff = xcalloc((size_t)bt->nbatches + 1, sizeof *bt->roff);
	plan_shuffle(bt->rows, n, seed, UINT64_MAX);
	for (b = 0; b < bt->nbatches; b++) {
		size_t lo = (size_t)b * batch;
		size_t hi = lo + batch < n ? lo + batch : n;

		bt->roff[b + 1] = hi;
		qsort(bt->rows + lo, hi - lo, sizeof *bt->rows, u32_cmp);
		for (r = lo; r < hi; r++)
			bat[bt->rows[r]] = b;
	}
}

/*
 * Each mini-batch's distinct features in ascending order, without sorting:
 * walk the features in order, each through the rows that hold it (a column
 * view), and append it to each of those rows' mini-batches once.  The lists
 * go to bt->feats; off[b * nservers] is where mini-batch b's starts.
 */
static void
batches_collect(struct batches *bt, const struct ps_dataset *ds,
    const uint32_t *bat)
{
	size_t *colptr = xcalloc(ds->nfeat + 1, sizeof *colptr);
	uint32_t *colrow = xcalloc(ds->nnz + 1, sizeof *colrow);
	uint32_t *mark = xcalloc((size_t)bt->nbatches + 1, sizeof *mark);
	size_t *fill = xcalloc((size_t)bt->nbatches + 1, sizeof *fill);
	size_t i, j, k, b, total = 0;
	int pass;

	for (k = 0; k < ds->nnz; k++)
		colptr[ds->col[k] + 1]++;
	for (j = 0; j < ds->nfeat; j++)
		colptr[j + 1] += colptr[j];
	for (i = 0; i < ds->nrows; i++)
		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++)
			colrow[colptr[ds->col[k]]++] = (uint32_t)i;
	for (j = ds->nfeat; j > 0; j--)		/* back to the starts */
		colptr[j] = colptr[j - 1];
	colptr[0] = 0;
	for (pass = 0; pass < 2; pass++) {	/* count, then fill */
		memset(mark, 0, ((size_t)bt->nbatches + 1) * sizeof *mark);
		for (j = 0; j < ds->nfeat; j++) {
			for (k = colptr[j]; k < colptr[j + 1]; k++) {
				b = bat[colrow[k]];
				if (mark[b] == j + 1)
					continue;
				mark[b] = (uint32_t)(j + 1);
				if (pass == 1)
					bt->feats[fill[b]++] = (uint32_t)j;
				else
					fill[b + 1]++;
			}
		}
		if (pass == 1)
			break;
		for (b = 0; b < bt->nbatches; b++) {
			fill[b + 1] += fill[b];
			bt->off[b * bt->nservers] = fill[b];
		}
		total = fill[bt->nbatches];
		bt->off[(size_t)bt->nbatches * bt->nservers] = total;
		bt->feats = xcalloc(total + 1, sizeof *bt->feats);
	}
	free(colptr);
	free(colrow);
	free(mark);
	free(fill);
}

/*
 * Regroup mini-batch b's ascending features by server (stable: ascending
 * within a server) and set its per-server offsets; tmp holds maxfeats.
 */
static void
batches_group(struct batches *bt, uint32_t b, const uint32_t *srv,
    uint32_t *tmp)
{
	size_t *at = bt->off + (size_t)b * bt->nservers;
	size_t base = at[0], n = at[bt->nservers] - base, k, s;

	memcpy(tmp, bt->feats + base, n * sizeof *tmp);
	/* Counts, then starts, from 0; then back to absolute offsets. */
	for (s = 0; s <= bt->nservers; s++)
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
}

void
batches_build(struct batches *bt, const struct ps_dataset *ds,
    const struct ps_ring *ring, uint32_t batch, uint64_t seed)
{
	uint32_t *srv = xcalloc(ds->nfeat + 1, sizeof *srv);
	uint32_t *bat = xcalloc(ds->nrows + 1, sizeof *bat), *tmp;
	size_t j;
	uint32_t b;

	memset(bt, 0, sizeof *bt);
	bt->nservers = (uint32_t)ring->nservers;
	for (j = 0; j < ds->nfeat; j++)
		srv[j] = (uint32_t)ps_ring_lookup(ring, ds->fids[j]);
	batches_rows(bt, ds, batch, seed, bat);
	bt->off = xcalloc((size_t)bt->nbatches * bt->nservers + 1,
	    sizeof *bt->off);
	batches_collect(bt, ds, bat);
	for (b = 0; b < bt->nbatches; b++) {
		size_t n = bt->off[(size_t)(b + 1) * bt->nservers] -
		    bt->off[(size_t)b * bt->nservers];

		if (n > bt->maxfeats)
			bt->maxfeats = n;
	}
	tmp = xcalloc(bt->maxfeats + 1, sizeof *tmp);
	for (b = 0; b < bt->nbatches; b++)
		batches_group(bt, b, srv, tmp);
	free(tmp);
	free(srv);
	free(bat);
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
