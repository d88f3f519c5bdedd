/*
 * l1lr.c: worker-side computations of l1-LR (see l1lr.h for the formulas).
 * Everything here is single-threaded and touches only the rows a block
 * reaches, so a pass over B blocks costs about two passes over the shard.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "l1lr.h"
#include "logistic.h"
#include "prox.h"
#include "xmalloc.h"

/* Transpose the shard's CSR rows into columns. */
static void
l1lr_columns(struct ps_l1lr *lr)
{
	const struct ps_dataset *ds = lr->ds;
	uint64_t *fill, k;
	size_t i, j;

	lr->colptr = xcalloc(ds->nfeat + 1, sizeof *lr->colptr);
	lr->colrow = xcalloc(ds->nnz, sizeof *lr->colrow);
	lr->colval = xcalloc(ds->nnz, sizeof *lr->colval);
	for (k = 0; k < ds->nnz; k++)
		lr->colptr[ds->col[k] + 1]++;
	for (j = 0; j < ds->nfeat; j++)
		lr->colptr[j + 1] += lr->colptr[j];
	fill = xcalloc(ds->nfeat, sizeof *fill);
	memcpy(fill, lr->colptr, ds->nfeat * sizeof *fill);
	for (i = 0; i < ds->nrows; i++) {
		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++) {
			uint64_t at = fill[ds->col[k]]++;

			lr->colrow[at] = (uint32_t)i;
			lr->colval[at] = ds->val[k];
		}
	}
	free(fill);
}

void
ps_l1lr_init(struct ps_l1lr *lr, const struct ps_dataset *ds, double beta)
{
	size_t i;

	memset(lr, 0, sizeof *lr);
	lr->ds = ds;
	lr->beta = beta;
	l1lr_columns(lr);
	lr->margin = xcalloc(ds->nrows, sizeof *lr->margin);
	lr->rowloss = xcalloc(ds->nrows, sizeof *lr->rowloss);
	lr->rowexp = xcalloc(ds->nrows, sizeof *lr->rowexp);
	lr->w = xcalloc(ds->nfeat, sizeof *lr->w);
	lr->trust = xcalloc(ds->nfeat, sizeof *lr->trust);
	for (i = 0; i < ds->nfeat; i++)
		lr->trust[i] = PS_TRUST_INIT;
	lr->rowa = xcalloc(ds->nrows, sizeof *lr->rowa);
	lr->rowb = xcalloc(ds->nrows, sizeof *lr->rowb);
	lr->pendk = xcalloc(ds->nrows, sizeof *lr->pendk);
	lr->pendr = xcalloc(ds->nrows, sizeof *lr->pendr);
	lr->stamp = xcalloc(ds->nrows, sizeof *lr->stamp);
	lr->touched = xcalloc(ds->nrows, sizeof *lr->touched);
	ps_l1lr_loss(lr);
}

void
ps_l1lr_release(struct ps_l1lr *lr)
{
	free(lr->colptr);
	free(lr->colrow);
	free(lr->colval);
	free(lr->margin);
	free(lr->rowloss);
	free(lr->rowexp);
	free(lr->w);
	free(lr->trust);
	free(lr->rowa);
	free(lr->rowb);
	free(lr->pendk);
	free(lr->pendr);
	free(lr->stamp);
	free(lr->touched);
	memset(lr, 0, sizeof *lr);
}

/* Refresh row i's cached exp(-|m_i|) and loss; return the new loss. */
static inline double
l1lr_row_update(struct ps_l1lr *lr, size_t i)
{
	double m = lr->margin[i], e = exp(-fabs(m)), z = lr->ds->y[i] * m;

	lr->rowexp[i] = e;
	lr->rowloss[i] = log1p(e) + (z < 0 ? -z : 0);
	return lr->rowloss[i];
}

double
ps_l1lr_loss(struct ps_l1lr *lr)
{
	size_t i;

	for (i = 0; i < lr->ds->nrows; i++)
		l1lr_row_update(lr, i);
	/* Every row loss is positive, so their sum is their absolute sum. */
	lr->loss = lr->ds->nrows == 0 ? 0 :
	    cblas_dasum((int)lr->ds->nrows, lr->rowloss, 1);
	return lr->loss;
}

/* Start a new set of touched rows (stamps wrap after 2^32 blocks). */
static void
l1lr_touch_reset(struct ps_l1lr *lr)
{
	lr->ntouched = 0;
	if (++lr->curstamp == 0) {
		memset(lr->stamp, 0, lr->ds->nrows * sizeof *lr->stamp);
		lr->curstamp = 1;
	}
}

/* Mark row i touched (once per block). */
static inline void
l1lr_touch(struct ps_l1lr *lr, uint32_t i)
{
	if (lr->stamp[i] != lr->curstamp) {
		lr->stamp[i] = lr->curstamp;
		lr->touched[lr->ntouched++] = i;
	}
}

/* Pass 1: the block's features become pending in r_i and k_i. */
static void
l1lr_block_pending(struct ps_l1lr *lr, const uint32_t *feats, size_t n)
{
	size_t f;
	uint64_t k;

	l1lr_touch_reset(lr);
	for (f = 0; f < n; f++) {
		uint32_t j = feats[f];
		double dj = lr->trust[j];

		for (k = lr->colptr[j]; k < lr->colptr[j + 1]; k++) {
			uint32_t i = lr->colrow[k];

			l1lr_touch(lr, i);
			lr->pendr[i] += fabs(lr->colval[k]) * dj;
			lr->pendk[i]++;
		}
	}
}

/* Per touched row: loss slope into rowb, curvature bound * k_i into rowa. */
static void
l1lr_block_rowcoef(struct ps_l1lr *lr)
{
	const int8_t *y = lr->ds->y;
	size_t t;

	for (t = 0; t < lr->ntouched; t++) {
		uint32_t i = lr->touched[t];
		double e = lr->rowexp[i];
		double kfac = 1 + lr->beta * ((double)lr->pendk[i] - 1);
		double r = lr->pendr[i] > 0 ? lr->pendr[i] : 0;
		/* sigma(-y m) from e = exp(-|m|): e/(1+e) if y m > 0, else 1/(1+e) */
		double s = (y[i] * lr->margin[i] > 0 ? e : 1) / (1 + e);

		lr->rowb[i] = -y[i] * s;
		lr->rowa[i] = ps_logistic_curv_bound_e(e, r) * kfac;
	}
}

void
ps_l1lr_block_grad(struct ps_l1lr *lr, const uint32_t *feats, size_t n,
    float *gu)
{
	size_t f;
	uint64_t k;

	l1lr_block_pending(lr, feats, n);
	l1lr_block_rowcoef(lr);
	for (f = 0; f < n; f++) {
		uint32_t j = feats[f];
		double g = 0, u = 0;

		for (k = lr->colptr[j]; k < lr->colptr[j + 1]; k++) {
			uint32_t i = lr->colrow[k];
			double x = lr->colval[k];

			g += x * lr->rowb[i];
			u += x * x * lr->rowa[i];
		}
		gu[2 * f] = (float)g;
		gu[2 * f + 1] = (float)u;
	}
}

size_t
ps_l1lr_apply(struct ps_l1lr *lr, const uint32_t *feats, size_t n,
    const float *wnew)
{
	size_t f, t, changed = 0;
	uint64_t k;

	l1lr_touch_reset(lr);
	for (f = 0; f < n; f++) {
		uint32_t j = feats[f];
		double d = (double)wnew[f] - (double)lr->w[j], dj = lr->trust[j];

		for (k = lr->colptr[j]; k < lr->colptr[j + 1]; k++) {
			uint32_t i = lr->colrow[k];

			lr->pendr[i] -= fabs(lr->colval[k]) * dj;
			lr->pendk[i]--;
			if (d != 0) {
				l1lr_touch(lr, i);
				lr->margin[i] += lr->colval[k] * d;
			}
		}
		lr->trust[j] = ps_trust_next(lr->w[j], wnew[f], dj);
		if (d != 0) {
			changed++;
			lr->w[j] = wnew[f];
		}
	}
	for (t = 0; t < lr->ntouched; t++) {
		uint32_t i = lr->touched[t];
		double old = lr->rowloss[i];

		lr->loss += l1lr_row_update(lr, i) - old;
	}
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
