/*
 * newton.c: the worker's gradient, Hessian diagonal and coordinate-descent
 * sweeps of the distributed proximal Newton method (newton.h).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/logistic.h"
#include "algo/newton.h"
#include "util/xmalloc.h"

/* The column view: column j's rows, ascending, and values. */
static void
newton_columns(struct ps_newton *nt)
{
	const struct ps_dataset *ds = nt->ds;
	uint64_t *at, k;
	size_t i, j;

	nt->colptr = xcalloc(ds->nfeat + 1, sizeof *nt->colptr);
	nt->rowidx = xmalloc((ds->nnz + 1) * sizeof *nt->rowidx);
	nt->colval = xmalloc((ds->nnz + 1) * sizeof *nt->colval);
	for (k = 0; k < ds->nnz; k++)
		nt->colptr[ds->col[k] + 1]++;
	for (j = 0; j < ds->nfeat; j++)
		nt->colptr[j + 1] += nt->colptr[j];
	at = xcalloc(ds->nfeat + 1, sizeof *at);
	memcpy(at, nt->colptr, ds->nfeat * sizeof *at);
	for (i = 0; i < ds->nrows; i++)
		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++) {
			uint64_t p = at[ds->col[k]]++;

			nt->rowidx[p] = (uint32_t)i;
			nt->colval[p] = ds->val[k];
		}
	free(at);
}

void
ps_newton_init(struct ps_newton *nt, const struct ps_dataset *ds)
{
	size_t i;

	memset(nt, 0, sizeof *nt);
	nt->ds = ds;
	newton_columns(nt);
	nt->curv = xcalloc(ds->nrows + 1, sizeof *nt->curv);
	nt->xd = xcalloc(ds->nrows + 1, sizeof *nt->xd);
	nt->d = xcalloc(ds->nfeat + 1, sizeof *nt->d);
	nt->own = xcalloc(ds->nfeat + 1, sizeof *nt->own);
	nt->place = xcalloc(ds->nfeat + 1, sizeof *nt->place);
	nt->rowmax = 1;
	for (i = 0; i < ds->nrows; i++)
		if (ds->rowptr[i + 1] - ds->rowptr[i] > nt->rowmax)
			nt->rowmax = ds->rowptr[i + 1] - ds->rowptr[i];
}

void
ps_newton_release(struct ps_newton *nt)
{
	free(nt->colptr);
	free(nt->rowidx);
	free(nt->colval);
	free(nt->curv);
	free(nt->xd);
	free(nt->d);
	free(nt->own);
	free(nt->place);
	free(nt->mat);
	memset(nt, 0, sizeof *nt);
}

/*
 * The loss's log parts log(1 + exp(-z)) are multiplied over rows (in the
 * gradient round and the trials), and a log of the product taken once it
 * passes this (each factor is at most 1 + e^TRIAL_Z): a multiplication
 * a row instead of a log1p.
 */
#define NEWTON_FLUSH	1e150
/* Rows this far out (|z| + PS_NEWTON_STEP_MAX |dz|) have their trials'
   losses taken exactly. */
#define TRIAL_Z		300

/* *prod times factor, moved into *loss as a log once past NEWTON_FLUSH. */
static void
newton_logmul(double *prod, double *loss, double factor)
{
	if ((*prod *= factor) > NEWTON_FLUSH) {
		*loss += log(*prod);
		*prod = 1;
	}
}

double
ps_newton_grad(struct ps_newton *nt, const double *margin, double *gh)
{
	const struct ps_dataset *ds = nt->ds;
	double loss = 0, prod = 1;
	size_t i, j;
	uint64_t k;

	for (j = 0; j < 2 * ds->nfeat; j++)
		gh[j] = 0;
	for (i = 0; i < ds->nrows; i++) {
		double y = ds->y[i], z = y * margin[i], e, s, c;

		/* The loss and s = sigma(-z), from one inline exp. */
		e = ps_fastexp(-fabs(z));
		s = ps_logistic_sigma_e(z, e);
		loss += z < 0 ? -z : 0;
		newton_logmul(&prod, &loss, 1 + e);
		nt->curv[i] = s * (1 - s);	/* sigma(z)(1 - sigma(z)) */
		c = -y * s;
		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++) {
			double x = ds->val[k];

			gh[2 * ds->col[k]] += c * x;
			gh[2 * ds->col[k] + 1] += nt->curv[i] * x * x;
		}
	}
	for (j = 0; j < ds->nfeat; j++)
		nt->own[j] = gh[2 * j + 1];
	return loss + log(prod);
}

/*
 * One coordinate's step: minimise q along feature j, whose weight with
 * the direction so far is wd, given q's slope b and curvature a there
 * without the l1 term.
 */
static double
newton_coord(double wd, double a, double b, double lambda)
{
	double z = wd - b / a, t = lambda / a;

	z = z > t ? z - t : z < -t ? z + t : 0;
	return z - wd;
}

/*
 * A feature at 0 whose summed gradient is at most this part of lambda is
 * left at 0 by the sweeps: its coordinate would most likely not move, and
 * on sets with many features (news20) most are such.
 */
#define NEWTON_SHRINK	0.9

/* Keeps a feature that no row moves from a zero curvature. */
#define NEWTON_FLOOR	1e-12

/*
 * q's curvature along feature j: the larger of the summed diagonal and K
 * times the rows' own (the smaller could leave q without a minimum).
 */
static double
newton_diag(const struct ps_newton *nt, size_t j, const double *GH, double K)
{
	double own = K * nt->own[j];

	return (GH[2 * j + 1] > own ? GH[2 * j + 1] : own) + NEWTON_FLOOR;
}

/*
 * The slope of q along feature j at the direction so far, and its
 * curvature in *a: K times the rows' coupling of j with the others (the
 * rows' own diagonal taken out), and newton_diag().
 */
static double
newton_slope(const struct ps_newton *nt, size_t j, const double *GH,
    double K, double *a)
{
	double own = nt->own[j], cross = 0;
	uint64_t p;

	for (p = nt->colptr[j]; p < nt->colptr[j + 1]; p++) {
		uint32_t i = nt->rowidx[p];

		cross += nt->curv[i] * nt->colval[p] * nt->xd[i];
	}
	*a = newton_diag(nt, j, GH, K);
	return GH[2 * j] + K * (cross - own * nt->d[j]) + *a * nt->d[j];
}

void
ps_newton_sweeps(struct ps_newton *nt, const float *w, const double *GH,
    double K, double lambda, double radius, int sweeps)
{
	memset(nt->d, 0, nt->ds->nfeat * sizeof *nt->d);
	memset(nt->xd, 0, nt->ds->nrows * sizeof *nt->xd);
	ps_newton_sweeps_from(nt, w, GH, K, lambda, radius, sweeps);
}

void
ps_newton_sweeps_from(struct ps_newton *nt, const float *w, const double *GH,
    double K, double lambda, double radius, int sweeps)
{
	const struct ps_dataset *ds = nt->ds;
	size_t j;
	uint64_t p;
	int s;

	for (s = 0; s < sweeps; s++)
		for (j = 0; j < ds->nfeat; j++) {
			double a, b, step;

			if (w[j] == 0 && nt->d[j] == 0 && fabs(GH[2 * j]) <=
			    NEWTON_SHRINK * lambda)
				continue;	/* stays 0 (newGLMNET's shrinking) */
			b = newton_slope(nt, j, GH, K, &a);

			step = newton_coord((double)w[j] + nt->d[j], a, b,
			    lambda);
			if (nt->d[j] + step > radius)
				step = radius - nt->d[j];
			else if (nt->d[j] + step < -radius)
				step = -radius - nt->d[j];
			if (step == 0)
				continue;
			nt->d[j] += step;
			for (p = nt->colptr[j]; p < nt->colptr[j + 1]; p++)
				nt->xd[nt->rowidx[p]] += step * nt->colval[p];
		}
}

/* X_k d from d, for sweeps that start where a solve left d. */
void
ps_newton_xd(struct ps_newton *nt)
{
	const struct ps_dataset *ds = nt->ds;
	size_t i;
	uint64_t k;

	for (i = 0; i < ds->nrows; i++) {
		double xd = 0;

		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++)
			xd += ds->val[k] * nt->d[ds->col[k]];
		nt->xd[i] = xd;
	}
}

double
ps_newton_model(const struct ps_newton *nt, const float *w, const double *GH,
    double K, double lambda)
{
	const struct ps_dataset *ds = nt->ds;
	double q = 0, quad = 0;
	size_t i, j;

	for (i = 0; i < ds->nrows; i++)
		quad += K * nt->curv[i] * nt->xd[i] * nt->xd[i];
	for (j = 0; j < ds->nfeat; j++) {
		double d = nt->d[j];

		if (d == 0)
			continue;
		quad += (newton_diag(nt, j, GH, K) - K * nt->own[j]) * d * d;
		q += GH[2 * j] * d + lambda * (fabs((double)w[j] + d) -
		    fabs((double)w[j]));
	}
	return q + quad / 2;
}

/*
 * A row's factors exp(-s_m dz) come from the smallest step's by squaring
 * (a multiplication, where a square root from the largest step's waited
 * on the one before, 20 cycles each), and an exp again every this many
 * steps: each squaring doubles the relative error, 2^9 ulps at most.
 * (Two chains of 4 squarings, from exps at m = 9 and 4, were no faster
 * on w8a: the rows' chains overlap already.)
 */
#define TRIAL_SQUARINGS	9

/* The trial whose step is 1. */
#define TRIAL_ONE	2
_Static_assert((int)PS_NEWTON_STEP_MAX == 1 << TRIAL_ONE,
    "trial TRIAL_ONE's step is 1");

/* PS_NEWTON_STEP_MAX 2^-m, exactly, for m < PS_NEWTON_TRIALS_MAX (ldexp
   is a libm call). */
double
ps_newton_trial_step(size_t m)
{
	uint64_t bits = (uint64_t)(1023 + TRIAL_ONE - m) << 52;
	double p;

	memcpy(&p, &bits, sizeof p);
	return p;
}

/* One row's factors 1 + e exp(-s_m dz) into prod[m], m < n. */
static void
trial_row(double e, double dz, size_t n, double *prod, double *loss)
{
	double u = 0;
	size_t m, left = 0;

	for (m = n; m-- > 0; left--) {
		if (left == 0) {
			u = ps_fastexp(-dz * ps_newton_trial_step(m));
			left = TRIAL_SQUARINGS + 1;
		} else {
			u *= u;
		}
		newton_logmul(&prod[m], &loss[m], 1 + e * u);
	}
}

double
ps_newton_trials(struct ps_newton *nt, const double *margin,
    const double *dbar, size_t n, double *loss)
{
	const struct ps_dataset *ds = nt->ds;
	double prod[PS_NEWTON_TRIALS_MAX + 1], loss0 = 0, prod0 = 1;
	size_t i, m;
	uint64_t k;

	for (m = 0; m < n; m++) {
		loss[m] = 0;
		prod[m] = 1;
	}
	for (i = 0; i < ds->nrows; i++) {
		double y = ds->y[i], xd = 0, z = y * margin[i], dz, e;

		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++)
			xd += ds->val[k] * dbar[ds->col[k]];
		dz = y * xd;
		if (!(fabs(z) + PS_NEWTON_STEP_MAX * fabs(dz) <= TRIAL_Z)) {
			loss0 += ps_logistic_loss(z);	/* exactly */
			for (m = 0; m < n; m++)
				loss[m] += ps_logistic_loss(z +
				    ps_newton_trial_step(m) * dz);
			continue;
		}
		e = ps_fastexp(-z);
		newton_logmul(&prod0, &loss0, 1 + e);
		trial_row(e, dz, n, prod, loss);
	}
	for (m = 0; m < n; m++)
		loss[m] += log(prod[m]);
	return loss0 + log(prod0);
}

/* Armijo: the decrease a step must give, as a part of the predicted. */
#define NEWTON_ARMIJO	0.01

/*
 * A step past 1 is taken only when it decreases F by this much more than
 * step 1 does.  Taking the lowest passing F among 4, 2 and 1 each time,
 * bench-newton (2 shards) needed 14 iterations instead of 10 to 1e-4 of
 * F* on a9a: steps of 2 that gained a little in the tail zig-zagged
 * across its one-hot groups' valleys.  With this, as many or fewer on
 * every set (tests/bench/README, forty-fourth session).
 */
#define NEWTON_LONG_GAIN	1.25

/* Armijo: trial m decreases F from f0 by 1% of its step times -pred. */
static int
step_passes(double f0, double pred, const double *trial, size_t m)
{
	return trial[m] - f0 <= NEWTON_ARMIJO * ps_newton_trial_step(m) * pred;
}

double
ps_newton_step(double f0, double pred, const double *trial, size_t n)
{
	size_t m, best = TRIAL_ONE;

	if (!(pred < 0) || n <= TRIAL_ONE)
		return 0;	/* no descent predicted (or a part missing) */
	for (m = TRIAL_ONE; m < n && !step_passes(f0, pred, trial, m); m++)
		;
	if (m != TRIAL_ONE)
		return m < n ? ps_newton_trial_step(m) : 0;
	for (m = 0; m < TRIAL_ONE; m++)
		if (step_passes(f0, pred, trial, m) && trial[m] < trial[best] &&
		    f0 - trial[m] >= NEWTON_LONG_GAIN * (f0 - trial[TRIAL_ONE]))
			best = m;
	return ps_newton_trial_step(best);
}

double
ps_newton_radius(double radius, double step)
{
	if (step < 0.25)
		return radius / 4;
	if (step >= 1)
		return radius * 4;
	return radius;
}
