/*
 * l1lr_live.c: the KKT active set of the worker's l1-LR (l1lr.h): the
 * list of each block's active positions, and the copy of its entries
 * that leaves the inactive features out.
 *
 * A feature that left the active set is not pushed and its weight stays
 * 0, so its entries add 0 to the margins' moves, 0 to the rows' radius
 * sums and counts, and only to its own gradient, which nobody reads: the
 * sweeps may skip them, and a row with none of the block's active
 * features, whole.  Late in a run most features are out, and on most sets
 * most entries with them (spamassassin keeps about 4% of its entries,
 * news20 a quarter; the generated sets 60-90%, their frequent features
 * staying in).  So once the active features' entries are at most half of
 * those the sweeps go over, they are copied, in order, into the block's
 * live rows, and the sweeps go over those; the copy is made again, in
 * place, at each further halving, and the sweeps go back to every entry
 * when the set is reset.  What the sweeps compute for active features is
 * bit for bit the same.  The copy is made only here, right after the
 * block's apply (or with no block reserved), so a block reserved beside
 * others takes its pending sums out over the very entries it put them in
 * with.  The per-feature work of an iteration (the worker's choice of
 * what to push, the weights it takes) goes over the active list alone.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "algo/l1lr.h"
#include "util/xmalloc.h"

/* Room for rows rows and ent entries in bl's live copy, kept if there. */
static void
live_reserve(struct ps_l1lr_block *bl, size_t rows, uint64_t ent)
{
	struct ps_l1lr_rows *v = &bl->live;

	if (rows + 1 > bl->live_rowcap) {
		free(v->rows);
		free(v->rowptr);
		v->rows = xreallocarray(NULL, rows + 1, sizeof *v->rows);
		v->rowptr = xreallocarray(NULL, rows + 1, sizeof *v->rowptr);
		bl->live_rowcap = rows + 1;
	}
	if (ent + 1 > bl->live_entcap) {
		free(v->pos);
		free(v->val);
		v->pos = xreallocarray(NULL, ent + 1, sizeof *v->pos);
		v->val = xreallocarray(NULL, ent + 1, sizeof *v->val);
		bl->live_entcap = ent + 1;
	}
}

/*
 * Copy the entries of bl's active features from what the sweeps go over
 * into live: in place when that is live already (nothing is written
 * past what was read), else into room for exactly those.
 */
static void
live_copy(struct ps_l1lr *lr, struct ps_l1lr_block *bl)
{
	const struct ps_l1lr_rows *src = bl->shrunk ? &bl->live : &bl->all;
	struct ps_l1lr_rows *dst = &bl->live;
	float *keep = lr->bd;		/* scratch: by slot, 1 if active */
	size_t p, r, nr = 0, n = src->nrows;
	uint64_t k, lo, hi, at = 0, need = 0;

	for (p = 0; p < bl->nfeat; p++) {
		uint32_t j = bl->feats[p];

		keep[bl->slot[p]] = lr->active[j];
		need += lr->active[j] ? lr->nent[j] : 0;
	}
	bl->nactive_ent = need;
	if (!bl->shrunk)
		live_reserve(bl, need < n ? need : n, need);
	for (r = 0, lo = src->rowptr[0]; r < n; r++, lo = hi) {
		uint64_t start = at;
		uint32_t row = src->rows[r];

		hi = src->rowptr[r + 1];
		for (k = lo; k < hi; k++)
			if (keep[src->pos[k]] != 0) {
				dst->pos[at] = src->pos[k];
				dst->val[at++] = src->val[k];
			}
		if (at > start) {
			dst->rows[nr] = row;
			dst->rowptr[nr++] = start;
		}
	}
	dst->rowptr[nr] = at;
	dst->nrows = nr;
	memcpy(bl->swept, bl->act, bl->nact * sizeof *bl->act);
	bl->nswept = bl->nact;
	bl->shrunk = 1;
}

size_t
ps_l1lr_kkt(struct ps_l1lr *lr, uint32_t b, const uint8_t *drop)
{
	struct ps_l1lr_block *bl = &lr->blocks[b];
	const struct ps_l1lr_rows *v = bl->shrunk ? &bl->live : &bl->all;
	size_t i, n = 0, dropped;

	for (i = 0; i < bl->nact; i++) {
		uint32_t p = bl->act[i], j = bl->feats[p];

		if (drop[p]) {
			lr->active[j] = 0;
			bl->nactive_ent -= lr->nent[j];
		} else {
			bl->act[n++] = p;
		}
	}
	dropped = bl->nact - n;
	bl->nact = n;
	if (dropped > 0 && bl->reserved == PS_L1LR_RESERVED_NOT &&
	    bl->nactive_ent <= v->rowptr[v->nrows] / 2)
		live_copy(lr, bl);
	return dropped;
}

void
ps_l1lr_live_reset(struct ps_l1lr *lr)
{
	uint32_t b;
	size_t p;

	for (b = 0; b < lr->nblocks; b++) {
		struct ps_l1lr_block *bl = &lr->blocks[b];

		bl->shrunk = 0;
		bl->nactive_ent = 0;
		bl->nact = 0;
		bl->nswept = bl->nfeat;
		for (p = 0; p < bl->nfeat; p++) {
			bl->swept[p] = (uint32_t)p;
			if (lr->active[bl->feats[p]]) {
				bl->nactive_ent += lr->nent[bl->feats[p]];
				bl->act[bl->nact++] = (uint32_t)p;
			}
		}
	}
}

size_t
ps_l1lr_activate_all(struct ps_l1lr *lr)
{
	size_t j, back = 0;

	for (j = 0; j < lr->ds->nfeat; j++) {
		back += !lr->active[j];
		lr->active[j] = 1;
	}
	ps_l1lr_live_reset(lr);
	return back;
}
