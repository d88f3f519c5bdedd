/*
 * l1lr.c: worker-side computations of l1-LR (see l1lr.h for the formulas).
 *
 * Each block is kept row by row (rows ascending, then the row's entries in
 * the block), so computing a block's gradient and applying its new weights
 * are each one sequential sweep over the rows the block touches; the
 * per-feature sums go to small block-sized arrays.  Everything is
 * single-threaded.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "algo/fastexp.h"
#include "algo/l1lr.h"
#include "algo/l1lr_live.h"
#include "algo/logistic.h"
#include "algo/prox.h"
#include "util/log.h"
#include "util/radix.h"
#include "util/xmalloc.h"

/* Where a local feature sits: its block and its position in the block. */
struct l1lr_where {
	uint32_t	 blk, pos;
};

/*
 * Each block's scratch slots, by descending count of the feature's
 * entries (where[].pos becomes the slot): the sweeps add into the slots
 * of a row's features in no order, and with the frequent ones packed
 * together most of those adds hit the cache (tests/bench/README).
 */
static void
l1lr_slots(struct ps_l1lr *lr, const uint32_t *count,
    struct l1lr_where *where)
{
	uint64_t *keys = xcalloc(lr->ds->nfeat + 1, sizeof *keys);
	size_t b, p;

	for (b = 0; b < lr->nblocks; b++) {
		struct ps_l1lr_block *bl = &lr->blocks[b];

		for (p = 0; p < bl->nfeat; p++)
			keys[p] = (uint64_t)(UINT32_MAX - count[bl->feats[p]])
			    << 32 | p;
		ps_radix_sort(keys, NULL, bl->nfeat);
		bl->slot = xcalloc(bl->nfeat + 1, sizeof *bl->slot);
		for (p = 0; p < bl->nfeat; p++)
			bl->slot[keys[p] & UINT32_MAX] = (uint32_t)p;
		for (p = 0; p < bl->nfeat; p++)
			where[bl->feats[p]].pos = bl->slot[p];
	}
	free(keys);
}

/*
 * How many non-zeros ahead the passes below ask for a feature's where[]
 * (and count[]): a shard's features are spread over megabytes of them, so
 * each lookup would otherwise wait for its miss alone.  16 was too near:
 * on a gen-10m shard (500k rows, 5M non-zeros, 4 blocks) building the
 * blocks took 0.089 s at 16 and 0.078-0.080 at 48, 96 or 192
 * (tests/bench/README, thirtieth session).
 */
#define WHERE_AHEAD	96

/*
 * Count, then fill, every block's entries from the shard's rows.  The
 * fill keeps its cursors in locals (at, nrows), not in the arrays it
 * fills, so those need no zeros first (xmalloc, not xcalloc); one lookup
 * of (block, position) a non-zero.
 */
static void
l1lr_blocks(struct ps_l1lr *lr, const size_t *boff, const uint32_t *feats)
{
	const struct ps_dataset *ds = lr->ds;
	size_t nb = lr->nblocks, b, i, p;
	struct l1lr_where *where = xcalloc(ds->nfeat + 1, sizeof *where);
	uint32_t *last = xcalloc(nb, sizeof *last), **rows, **pos;
	uint32_t *count = xcalloc(ds->nfeat + 1, sizeof *count);	/* lr's */
	uint64_t *nent = xcalloc(nb, sizeof *nent), *at, k;
	uint32_t **rowptr;
	size_t *nrows = xcalloc(nb, sizeof *nrows);
	float **val;

	for (b = 0; b < nb; b++) {
		struct ps_l1lr_block *bl = &lr->blocks[b];

		bl->nfeat = boff[b + 1] - boff[b];
		bl->feats = feats + boff[b];
		for (p = 0; p < bl->nfeat; p++) {
			where[bl->feats[p]].blk = (uint32_t)b;
			where[bl->feats[p]].pos = (uint32_t)p;
		}
	}
	/* Pass 1: rows and entries per block (last[] holds row + 1). */
	for (i = 0; i < ds->nrows; i++)
		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++) {
			if (k + WHERE_AHEAD < ds->nnz) {
				__builtin_prefetch(&where[ds->col[k +
				    WHERE_AHEAD]]);
				__builtin_prefetch(&count[ds->col[k +
				    WHERE_AHEAD]], 1);
			}
			b = where[ds->col[k]].blk;
			nent[b]++;
			count[ds->col[k]]++;
			if (last[b] != i + 1) {
				last[b] = (uint32_t)(i + 1);
				nrows[b]++;
			}
		}
	l1lr_slots(lr, count, where);
	lr->nent = count;
	rows = xcalloc(nb, sizeof *rows);
	pos = xcalloc(nb, sizeof *pos);
	rowptr = xcalloc(nb, sizeof *rowptr);
	val = xcalloc(nb, sizeof *val);
	at = xcalloc(nb, sizeof *at);
	for (b = 0; b < nb; b++) {
		struct ps_l1lr_block *bl = &lr->blocks[b];

		if (nent[b] > UINT32_MAX)	/* rowptr's 32 bits */
			fatalx(EX_DATAERR, "block %zu of the shard holds %llu "
			    "non-zeros, more than 2^32 - 1: use more blocks "
			    "(-b)", b, (unsigned long long)nent[b]);
		/* Filled whole below (xmalloc: no zeros to write first). */
		rows[b] = xmalloc((nrows[b] + 1) * sizeof **rows);
		rowptr[b] = xmalloc((nrows[b] + 1) * sizeof **rowptr);
		pos[b] = xmalloc((nent[b] + 1) * sizeof **pos);
		val[b] = xmalloc((nent[b] + 1) * sizeof **val);
		rows[b][nrows[b]] = pos[b][nent[b]] = 0;
		val[b][nent[b]] = 0;
		bl->all = (struct ps_l1lr_rows){ nrows[b], rows[b], rowptr[b],
		    pos[b], val[b] };
		nrows[b] = 0;
		last[b] = 0;
	}
	/* Pass 2: fill; a block's rows come in ascending order. */
	for (i = 0; i < ds->nrows; i++)
		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++) {
			struct l1lr_where w;

			if (k + WHERE_AHEAD < ds->nnz)
				__builtin_prefetch(&where[ds->col[k +
				    WHERE_AHEAD]]);
			w = where[ds->col[k]];

			b = w.blk;
			if (last[b] != i + 1) {
				last[b] = (uint32_t)(i + 1);
				rows[b][nrows[b]] = (uint32_t)i;
				rowptr[b][nrows[b]++] = (uint32_t)at[b];
			}
			pos[b][at[b]] = w.pos;
			val[b][at[b]++] = ds->val[k];
		}
	for (b = 0; b < nb; b++)
		rowptr[b][nrows[b]] = (uint32_t)at[b];
	free(where);
	free(last);
	free(nent);
	free(nrows);
	free(rows);
	free(pos);
	free(rowptr);
	free(val);
	free(at);
}

void
ps_l1lr_init(struct ps_l1lr *lr, const struct ps_dataset *ds, double beta,
    uint32_t nblocks, const size_t *boff, const uint32_t *feats)
{
	size_t i, maxb = 1;

	memset(lr, 0, sizeof *lr);
	lr->ds = ds;
	lr->beta = beta;
	lr->nblocks = nblocks;
	lr->blocks = xcalloc(nblocks, sizeof *lr->blocks);
	l1lr_blocks(lr, boff, feats);
	for (i = 0; i < nblocks; i++)
		if (lr->blocks[i].nfeat > maxb)
			maxb = lr->blocks[i].nfeat;
	lr->bg = xcalloc(maxb, sizeof *lr->bg);
	lr->bu = xcalloc(maxb, sizeof *lr->bu);
	lr->bd = xcalloc(maxb, sizeof *lr->bd);
	lr->margin = xcalloc(ds->nrows, sizeof *lr->margin);
	lr->rowexp = xcalloc(ds->nrows, sizeof *lr->rowexp);
	lr->w = xcalloc(ds->nfeat, sizeof *lr->w);
	lr->trust = xcalloc(ds->nfeat, sizeof *lr->trust);
	lr->active = xcalloc(ds->nfeat, sizeof *lr->active);
	for (i = 0; i < ds->nfeat; i++) {
		lr->trust[i] = ps_trust_pack(PS_TRUST_INIT);
		lr->active[i] = 1;
	}
	for (i = 0; i < nblocks; i++) {
		lr->blocks[i].act = xcalloc(lr->blocks[i].nfeat + 1,
		    sizeof *lr->blocks[i].act);
		lr->blocks[i].swept = xcalloc(lr->blocks[i].nfeat + 1,
		    sizeof *lr->blocks[i].swept);
	}
	ps_l1lr_live_reset(lr);
	lr->pendk = xcalloc(ds->nrows, sizeof *lr->pendk);
	lr->pendr = xcalloc(ds->nrows, sizeof *lr->pendr);
	ps_l1lr_loss(lr);
}

static void
l1lr_rows_release(struct ps_l1lr_rows *v)
{
	free(v->rows);
	free(v->rowptr);
	free(v->pos);
	free(v->val);
}

void
ps_l1lr_release(struct ps_l1lr *lr)
{
	uint32_t b;

	for (b = 0; b < lr->nblocks; b++) {
		struct ps_l1lr_block *bl = &lr->blocks[b];

		free(bl->slot);
		free(bl->act);
		free(bl->swept);
		l1lr_rows_release(&bl->all);
		if (lr->room_pos != NULL) {	/* the room's, freed below */
			bl->live.pos = NULL;
			bl->live.val = NULL;
		}
		l1lr_rows_release(&bl->live);
	}
	free(lr->room_pos);
	free(lr->room_val);
	free(lr->blocks);
	free(lr->bg);
	free(lr->bu);
	free(lr->bd);
	free(lr->active);
	free(lr->nent);
	free(lr->margin);
	free(lr->rowexp);
	free(lr->w);
	free(lr->trust);
	free(lr->pendk);
	free(lr->pendr);
	memset(lr, 0, sizeof *lr);
}

/*
 * The change of the total loss as rows' margins move, without a log per
 * row: each row's loss is log(1 + e) plus a linear part, so the change of
 * the log parts over up to PS_L1LR_CHUNK rows is the log of a ratio of two
 * products of factors in (1, 2], which cannot overflow.  Rounding costs
 * about 1e-14 per chunk (a gen-10m shard's pass closes about 30,000: 3e-10
 * on a loss of 3e5), and ps_l1lr_loss() recomputes the sum from the
 * margins every few passes (dbpg.c), the log parts the same way (a log
 * per chunk, not a log1p per row: a row's share is then exact to 1e-16
 * absolute, not relative, far below what a pass changes).
 */
#define PS_L1LR_CHUNK	64
struct l1lr_delta {
	double	 lin;		/* change of the linear parts */
	double	 logs;		/* change of the log parts, chunks closed */
	double	 pnew, pold;	/* products of the open chunk */
	unsigned n;		/* rows in the open chunk */
};

/*
 * Row i's margin moves by dm: refresh its e and count its loss's change.
 * Inlined into both apply sweeps, the hot one's call costs 15% otherwise.
 */
static inline __attribute__((always_inline)) void
l1lr_row_move(struct ps_l1lr *lr, size_t i, double dm, struct l1lr_delta *dl)
{
	double y = lr->ds->y[i], zo = y * lr->margin[i], zn, e;

	lr->margin[i] += dm;
	zn = y * lr->margin[i];
	e = ps_fastexp(-fabs(zn));
	dl->lin += (zn < 0 ? -zn : 0) - (zo < 0 ? -zo : 0);
	dl->pnew *= 1 + e;
	dl->pold *= 1 + lr->rowexp[i];
	lr->rowexp[i] = e;
	if (++dl->n == PS_L1LR_CHUNK) {
		dl->logs += log(dl->pnew / dl->pold);
		dl->pnew = dl->pold = 1;
		dl->n = 0;
	}
}

double
ps_l1lr_loss(struct ps_l1lr *lr)
{
	double lin = 0, logs = 0, prod = 1;
	unsigned n = 0;
	size_t i;

	for (i = 0; i < lr->ds->nrows; i++) {
		double z = lr->ds->y[i] * lr->margin[i];

		lr->rowexp[i] = ps_fastexp(-fabs(z));
		lin += z < 0 ? -z : 0;
		prod *= 1 + lr->rowexp[i];
		if (++n == PS_L1LR_CHUNK) {
			logs += log(prod);
			prod = 1;
			n = 0;
		}
	}
	lr->loss = lin + logs + log(prod);
	return lr->loss;
}

/*
 * Every row's margin under w, block by block over the blocks' entries
 * (the shard's may be gone: l1lr.h), each block's weights put in the
 * scratch by slot first.
 */
static void
l1lr_block_margins(struct ps_l1lr *lr)
{
	double *wslot = lr->bg;
	uint32_t b;
	size_t p, r;
	uint64_t k;

	memset(lr->margin, 0, lr->ds->nrows * sizeof *lr->margin);
	for (b = 0; b < lr->nblocks; b++) {
		const struct ps_l1lr_block *bl = &lr->blocks[b];
		const struct ps_l1lr_rows *v = &bl->all;

		for (p = 0; p < bl->nfeat; p++)
			wslot[bl->slot[p]] = lr->w[bl->feats[p]];
		for (r = 0; r < v->nrows; r++) {
			double m = 0;

			for (k = v->rowptr[r]; k < v->rowptr[r + 1]; k++)
				m += v->val[k] * wslot[v->pos[k]];
			lr->margin[v->rows[r]] += m;
		}
	}
}

void
ps_l1lr_restart(struct ps_l1lr *lr)
{
	uint32_t b;

	for (b = 0; b < lr->nblocks; b++)
		lr->blocks[b].reserved = PS_L1LR_RESERVED_NOT;
	lr->nreserved = 0;
	ps_l1lr_live_reset(lr);
	memset(lr->pendk, 0, lr->ds->nrows * sizeof *lr->pendk);
	memset(lr->pendr, 0, lr->ds->nrows * sizeof *lr->pendr);
	l1lr_block_margins(lr);
	ps_l1lr_loss(lr);
}

/*
 * Gather block bl's active flags and (active) trust radii into scratch,
 * for the features with entries in its sweeps (l1lr_live.c).
 */
static void
l1lr_gather(struct ps_l1lr *lr, const struct ps_l1lr_block *bl)
{

	size_t i;

	for (i = 0; i < bl->nswept; i++) {
		uint32_t p = bl->swept[i];

		lr->bd[bl->slot[p]] = lr->active[bl->feats[p]] ?
		    ps_trust_unpack(lr->trust[bl->feats[p]]) : 0;
	}
}

/* The entries a block's sweeps go over (l1lr_live.c). */
static inline const struct ps_l1lr_rows *
l1lr_sweep(const struct ps_l1lr_block *bl)
{
	return bl->shrunk ? &bl->live : &bl->all;
}

/*
 * Row r of v (l1lr_gather() filled the scratch): its entries' radius sum
 * into *rsum, and how many are active.
 */
static inline uint32_t
l1lr_row_radius(const struct ps_l1lr *lr, const struct ps_l1lr_rows *v,
    size_t r, double *rsum)
{
	uint32_t cnt = 0;
	double sum = 0;
	uint64_t k;

	for (k = v->rowptr[r]; k < v->rowptr[r + 1]; k++) {
		float dl = lr->bd[v->pos[k]];

		sum += fabs(v->val[k]) * dl;
		cnt += dl > 0;
	}
	*rsum = sum;
	return cnt;
}

/* Row r of v counts as pending: its radius sum and count join. */
static inline void
l1lr_reserve_row(struct ps_l1lr *lr, const struct ps_l1lr_rows *v, size_t r)
{
	uint32_t i = v->rows[r];
	double rsum;

	lr->pendk[i] += l1lr_row_radius(lr, v, r, &rsum);
	lr->pendr[i] += rsum;
}

/* Block bl's rows' radius sums and counts join pendr and pendk. */
static void
l1lr_reserve_rows(struct ps_l1lr *lr, const struct ps_l1lr_block *bl)
{
	const struct ps_l1lr_rows *v = l1lr_sweep(bl);
	size_t r;

	for (r = 0; r < v->nrows; r++)
		l1lr_reserve_row(lr, v, r);
}

/* A block is to be reserved beside a SOLO one: that one becomes SHARED. */
static void
l1lr_unsolo(struct ps_l1lr *lr)
{
	struct ps_l1lr_block *bl;
	uint32_t b;

	for (b = 0; b < lr->nblocks; b++) {
		bl = &lr->blocks[b];
		if (bl->reserved == PS_L1LR_RESERVED_SOLO) {
			bl->reserved = PS_L1LR_RESERVED_SHARED;
			l1lr_gather(lr, bl);
			l1lr_reserve_rows(lr, bl);
		}
	}
}

/*
 * Block bl becomes reserved, SOLO when no other block is, and the scratch
 * holds its radii and active flags (a SHARED one's rows are the caller's
 * to add).
 */
static void
l1lr_reserve_begin(struct ps_l1lr *lr, struct ps_l1lr_block *bl)
{
	if (lr->nreserved == 1)
		l1lr_unsolo(lr);
	bl->reserved = lr->nreserved == 0 ? PS_L1LR_RESERVED_SOLO :
	    PS_L1LR_RESERVED_SHARED;
	lr->nreserved++;
	l1lr_gather(lr, bl);
}

void
ps_l1lr_reserve(struct ps_l1lr *lr, uint32_t b)
{
	struct ps_l1lr_block *bl = &lr->blocks[b];

	if (bl->reserved != PS_L1LR_RESERVED_NOT)
		return;
	l1lr_reserve_begin(lr, bl);
	if (bl->reserved == PS_L1LR_RESERVED_SHARED)
		l1lr_reserve_rows(lr, bl);
}

/*
 * Row r of v's share of its block's gradient and curvature bound, with
 * cnt pending features (beta weighs them in k_i) of radius sum rsum (r_i).
 */
static inline void
l1lr_grad_row(const struct ps_l1lr *lr, const struct ps_l1lr_rows *v,
    size_t r, uint32_t cnt, double rsum, double *g, double *u)
{
	uint32_t i = v->rows[r];
	double y = lr->ds->y[i], e = lr->rowexp[i], c, h, kfac;
	uint64_t k;

	/* Curvature bound over the moves of every pending feature. */
	kfac = 1 + lr->beta * ((double)cnt - 1);
	h = ps_logistic_curv_bound_e(e, rsum > 0 ? rsum : 0) * kfac;
	/* Loss slope: -y sigma(-y m), from e = exp(-|m|). */
	c = -y * ps_logistic_sigma_e(y * lr->margin[i], e);
	for (k = v->rowptr[r]; k < v->rowptr[r + 1]; k++) {
		double x = v->val[k];

		g[v->pos[k]] += x * c;
		u[v->pos[k]] += x * x * h;
	}
}

/*
 * The gradient sweep reserves the block itself when it is not yet (tau 0:
 * always, SOLO), row by row, so that the block's entries are read once
 * for both.
 */
void
ps_l1lr_block_grad(struct ps_l1lr *lr, uint32_t b, float *gu)
{
	struct ps_l1lr_block *bl = &lr->blocks[b];
	const struct ps_l1lr_rows *v = l1lr_sweep(bl);
	double *g = lr->bg, *u = lr->bu;
	int fresh = bl->reserved == PS_L1LR_RESERVED_NOT, solo;
	size_t p, r, a;

	if (fresh)
		l1lr_reserve_begin(lr, bl);
	else if (bl->reserved == PS_L1LR_RESERVED_SOLO)
		l1lr_gather(lr, bl);
	solo = bl->reserved == PS_L1LR_RESERVED_SOLO;
	for (a = 0; a < bl->nswept; a++)
		g[bl->slot[bl->swept[a]]] = u[bl->slot[bl->swept[a]]] = 0;
	for (r = 0; r < v->nrows; r++) {
		uint32_t i = v->rows[r], cnt;
		double rsum;

		if (solo) {
			cnt = l1lr_row_radius(lr, v, r, &rsum);
		} else {
			if (fresh)
				l1lr_reserve_row(lr, v, r);
			cnt = lr->pendk[i];
			rsum = lr->pendr[i];
		}
		if (cnt != 0)	/* else no active feature of the block here */
			l1lr_grad_row(lr, v, r, cnt, rsum, g, u);
	}
	for (a = 0; a < bl->nact; a++) {
		p = bl->act[a];
		gu[2 * p] = (float)g[bl->slot[p]];
		gu[2 * p + 1] = (float)u[bl->slot[p]];
	}
}

/*
 * Apply's sweep over the rows of v: each moves by its entries' weight
 * changes d; a SHARED block's radius sums (radii dl) and active counts
 * (act) leave pendr and pendk.
 */
static void
l1lr_apply_rows(struct ps_l1lr *lr, const struct ps_l1lr_rows *v,
    int solo, struct l1lr_delta *delta)
{
	const double *d = lr->bg;
	const float *dl = lr->bd;
	size_t r;
	uint64_t k;

	for (r = 0; r < v->nrows; r++) {
		uint32_t i = v->rows[r], cnt = 0;
		uint64_t lo = v->rowptr[r], hi = v->rowptr[r + 1];
		double rsum = 0, dm = 0;

		if (solo) {	/* pendr, pendk untouched; cnt 0: dm 0 */
			for (k = lo; k < hi; k++)
				dm += v->val[k] * d[v->pos[k]];
		} else {
			for (k = lo; k < hi; k++) {
				float radius = dl[v->pos[k]];

				rsum += fabs(v->val[k]) * radius;
				dm += v->val[k] * d[v->pos[k]];
				cnt += radius > 0;
			}
			if (cnt == 0)
				continue;
			lr->pendr[i] -= rsum;
			lr->pendk[i] -= cnt;
		}
		if (dm != 0)
			l1lr_row_move(lr, i, dm, delta);
	}
}

/*
 * l1lr_apply_rows(), copying as it goes the entries of the features kept
 * (keep, by slot: l1lr_live_drop()) into dst's rows: in place when dst is
 * src (nothing is written past what was read).
 */
static void
l1lr_apply_rows_copy(struct ps_l1lr *lr, const struct ps_l1lr_rows *src,
    struct ps_l1lr_rows *dst, int solo, struct l1lr_delta *delta)
{
	const double *d = lr->bg;
	const uint8_t *keep = (const uint8_t *)lr->bu;
	const float *dl = lr->bd;
	size_t r, n = src->nrows, nr = 0;
	uint64_t k, lo, hi, at = 0;

	for (r = 0, lo = src->rowptr[0]; r < n; r++, lo = hi) {
		uint32_t i = src->rows[r], cnt = 0;
		uint64_t start = at;
		double rsum = 0, dm = 0;

		hi = src->rowptr[r + 1];
		for (k = lo; k < hi; k++) {
			uint32_t pos = src->pos[k];
			float val = src->val[k];

			dm += val * d[pos];
			if (!solo) {
				rsum += fabs(val) * dl[pos];
				cnt += dl[pos] > 0;
			}
			if (keep[pos]) {
				dst->pos[at] = pos;
				dst->val[at++] = val;
			}
		}
		if (at > start) {
			dst->rows[nr] = i;
			dst->rowptr[nr++] = (uint32_t)start;
		}
		if (!solo && cnt != 0) {
			lr->pendr[i] -= rsum;
			lr->pendk[i] -= cnt;
		}
		if (dm != 0 && (solo || cnt != 0))
			l1lr_row_move(lr, i, dm, delta);
	}
	dst->rowptr[nr] = (uint32_t)at;
	dst->nrows = nr;
}

size_t
ps_l1lr_apply(struct ps_l1lr *lr, uint32_t b, const float *wnew,
    const float *slack, const uint8_t *drop)
{
	struct ps_l1lr_block *bl = &lr->blocks[b];
	double *d = lr->bg;
	float *dl = lr->bd;
	struct l1lr_delta delta = { 0, 0, 1, 1, 0 };
	int solo = bl->reserved == PS_L1LR_RESERVED_SOLO;
	size_t p, i, changed = 0;

	if (bl->reserved != PS_L1LR_RESERVED_NOT)
		lr->nreserved--;
	bl->reserved = PS_L1LR_RESERVED_NOT;
	for (i = 0; i < bl->nswept; i++)	/* inactive ones move by 0 */
		d[bl->slot[bl->swept[i]]] = dl[bl->slot[bl->swept[i]]] = 0;
	for (i = 0; i < bl->nact; i++) {
		uint32_t j = bl->feats[bl->act[i]], q = bl->slot[bl->act[i]];

		p = bl->act[i];
		dl[q] = ps_trust_unpack(lr->trust[j]);
		d[q] = (double)wnew[p] - (double)lr->w[j];
		if (slack == NULL || slack[p] >= 0)
			lr->trust[j] = ps_trust_pack(ps_trust_after(fabs(d[q])
			    + (slack != NULL ? slack[p] : 0), dl[q]));
		lr->w[j] = wnew[p];
		changed += d[q] != 0;
	}
	if (drop != NULL && l1lr_live_drop(lr, bl, drop)) {
		l1lr_apply_rows_copy(lr, l1lr_sweep(bl), &bl->live, solo,
		    &delta);
		l1lr_live_copied(bl);
	} else {
		l1lr_apply_rows(lr, l1lr_sweep(bl), solo, &delta);
	}
	lr->loss += delta.lin + delta.logs + log(delta.pnew / delta.pold);
	return changed;
}

void
ps_l1lr_margins(const struct ps_dataset *ds, const float *wlocal,
    double *margin)
{
	size_t i;
	uint64_t k;

	for (i = 0; i < ds->nrows; i++) {
		double m = 0;

		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++)
			m += (double)ds->val[k] * wlocal[ds->col[k]];
		margin[i] = m;
	}
}
