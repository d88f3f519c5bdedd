/*
 * newton_direct.c: the direction of the distributed proximal Newton method
 * (newton.h) solved directly on the active set instead of by sweeps.
 *
 * The active set is the features with w_j != 0, or w_j = 0 and |G_j| >
 * lambda; each gets the sign it has, or the one its gradient asks for.
 * On that orthant the l1 term is linear, so the model q is a quadratic
 * whose minimiser solves A_AA d = -(G_A + lambda sign_A), a dense system
 * of the active features alone: A as the sweeps see it (K times the rows'
 * coupling, the diagonal raised to the summed H_j), plus a ridge of
 * NEWTON_RIDGE times its mean diagonal.  The solution is projected back
 * on the orthant (a weight that would change sign stops at 0) and held in
 * the trust radius.
 *
 * Coordinate descent crosses a valley of collinear features (a9a's one-hot
 * groups, which each sum to 1) a little each sweep; the solve crosses it
 * in one step, and costs one pass over the active entries of each row,
 * squared, and a Cholesky factorisation.  It is the cheaper of the two
 * when rows have few active entries and the set is small (newton.h).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/newton.h"
#include "util/xmalloc.h"

/* The ridge, as a part of the active diagonal's mean. */
#define NEWTON_RIDGE	1e-2

/* The orthant's sign of feature j, active (newton.h). */
static double
direct_sign(float w, double g)
{
	if (w != 0)
		return w > 0 ? 1 : -1;
	return g > 0 ? -1 : 1;
}

/*
 * The active set: place[j] is j's index in it or -1; returns its size,
 * or SIZE_MAX past max.
 */
static size_t
direct_active(const struct ps_newton *nt, const float *w, const double *GH,
    double lambda, size_t max, int32_t *place)
{
	size_t j, na = 0;

	for (j = 0; j < nt->ds->nfeat; j++) {
		place[j] = -1;
		if (w[j] == 0 && !(fabs(GH[2 * j]) > lambda))
			continue;
		if (na == max)
			return SIZE_MAX;
		place[j] = (int32_t)na++;
	}
	return na;
}

/*
 * Forming the matrix costs a multiply-add for each pair of a row's active
 * entries.  Where that is more than DIRECT_SAMPLE_COST passes over the
 * active entries (dense200, 200 a row: 100 passes, 85% of a worker's
 * time), the matrix is formed from every s-th row alone, times s: a
 * sub-sampled Hessian (Byrd, Chin, Neveitt and Nocedal, 2011), the
 * gradient and the polish sweeps still exact.  s is the largest that
 * brings the cost down to that, keeping at least DIRECT_SAMPLE_ROWS rows
 * per active feature.  bench-newton, dense200 (2 shards): 1e-3 of F* in
 * 7 iterations instead of 6, each 0.13 s instead of 0.39.  a9a, whose
 * rows have 14 entries, is formed whole: sampled, its one-hot groups'
 * coupling blurred and the last iterations crept.
 */
#define DIRECT_SAMPLE_COST	4
#define DIRECT_SAMPLE_ROWS	8

/*
 * The cost is estimated from every this-th row: a whole pass for it took
 * a sixth of the direction's time on w8a, whose matrix is formed whole.
 */
#define DIRECT_COST_STRIDE	8

/* The row stride s (1: every row). */
static size_t
direct_stride(const struct ps_newton *nt, const int32_t *place, size_t na)
{
	const struct ps_dataset *ds = nt->ds;
	double pairs = 0, entries = 0;
	size_t i, n, s, most;
	uint64_t k;

	for (i = 0; i < ds->nrows; i += DIRECT_COST_STRIDE) {
		for (n = 0, k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++)
			n += place[ds->col[k]] >= 0;
		pairs += (double)n * (double)(n + 1) / 2;
		entries += (double)n;
	}
	if (!(pairs > DIRECT_SAMPLE_COST * entries) || na == 0)
		return 1;
	s = (size_t)(pairs / (DIRECT_SAMPLE_COST * entries));
	most = ds->nrows / (DIRECT_SAMPLE_ROWS * na);
	s = s < most ? s : most;
	return s > 1 ? s : 1;
}

/*
 * Rows whose curvature D_i is below this (margins past 13.8 in size) are
 * left out of the matrix: what they add is a millionth of a row's at
 * most, and the ridge below is far larger.  w8a, whose rows end mostly
 * well classified: bench-newton 5% sooner to 1e-3, the same iterations
 * (at 1e-4, mushrooms took one more).
 */
#define DIRECT_CURV_MIN	1e-6

/*
 * The lower triangle of K X_A' D X_A into a (na x na, row-major), from
 * every stride-th row times stride (but those of D_i below
 * DIRECT_CURV_MIN), then its diagonal raised to the summed H_j and the
 * ridge added.
 */
static void
direct_matrix(const struct ps_newton *nt, const double *GH, double K,
    size_t stride, const int32_t *place, size_t na, double *a, int32_t *idx,
    double *val)
{
	const struct ps_dataset *ds = nt->ds;
	double mean = 0;
	size_t i, n, p, q;
	uint64_t k;

	K *= (double)stride;
	memset(a, 0, na * na * sizeof *a);
	for (i = 0; i < ds->nrows; i += stride) {
		if (nt->curv[i] < DIRECT_CURV_MIN)
			continue;
		for (n = 0, k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++)
			if (place[ds->col[k]] >= 0) {
				idx[n] = place[ds->col[k]];
				val[n++] = ds->val[k];
			}
		for (p = 0; p < n; p++) {	/* idx ascends with the columns */
			double dx = K * nt->curv[i] * val[p];
			double *row = a + (size_t)idx[p] * na;

			for (q = 0; q <= p; q++)
				row[idx[q]] += dx * val[q];
		}
	}
	for (p = 0; p < na; p++)
		mean += a[p * na + p];
	mean /= (double)(na ? na : 1);
	for (k = 0; k < ds->nfeat; k++)
		if (place[k] >= 0) {
			double *diag = a + (size_t)place[k] * (na + 1);

			if (GH[2 * k + 1] > *diag)
				*diag = GH[2 * k + 1];
			*diag += NEWTON_RIDGE * mean + 1e-12;
		}
}

/* a . b over n entries, in four independent sums (the factorisation's
   inner loop: one chain of additions would wait on each). */
static double
direct_dot(const double *a, const double *b, size_t n)
{
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t k;

	for (k = 0; k + 4 <= n; k += 4) {
		s0 += a[k] * b[k];
		s1 += a[k + 1] * b[k + 1];
		s2 += a[k + 2] * b[k + 2];
		s3 += a[k + 3] * b[k + 3];
	}
	for (; k < n; k++)
		s0 += a[k] * b[k];
	return (s0 + s1) + (s2 + s3);
}

/* Cholesky in place (lower triangle): 0, or -1 if a is not definite. */
static int
direct_cholesky(double *a, size_t n)
{
	size_t i, j;

	for (j = 0; j < n; j++) {
		double *rj = a + j * n, s = rj[j] - direct_dot(rj, rj, j);

		if (!(s > 0))
			return -1;
		rj[j] = sqrt(s);
		for (i = j + 1; i < n; i++) {
			double *ri = a + i * n;

			ri[j] = (ri[j] - direct_dot(ri, rj, j)) / rj[j];
		}
	}
	return 0;
}

/* Solve L L' x = b in place, L the factor in a. */
static void
direct_solve(const double *a, size_t n, double *b)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < i; k++)
			b[i] -= a[i * n + k] * b[k];
		b[i] /= a[i * n + i];
	}
	for (i = n; i-- > 0;) {
		for (k = i + 1; k < n; k++)
			b[i] -= a[k * n + i] * b[k];
		b[i] /= a[i * n + i];
	}
}

int
ps_newton_direct(struct ps_newton *nt, const float *w, const double *GH,
    double K, double lambda, double radius, size_t max_active, int sweeps)
{
	const struct ps_dataset *ds = nt->ds;
	int32_t *place = nt->place;
	size_t na, j, stride;
	double *a, *b = NULL, *val = NULL;
	int32_t *idx = NULL;
	int rc = -1;

	na = direct_active(nt, w, GH, lambda, max_active, place);
	if (na == SIZE_MAX)
		goto out;
	stride = direct_stride(nt, place, na);
	if (nt->matcap < na * na + 1) {
		free(nt->mat);
		nt->matcap = na * na + 1;
		nt->mat = xmalloc(nt->matcap * sizeof *nt->mat);
	}
	a = nt->mat;
	b = xcalloc(na + 1, sizeof *b);
	idx = xcalloc(nt->rowmax, sizeof *idx);
	val = xcalloc(nt->rowmax, sizeof *val);
	direct_matrix(nt, GH, K, stride, place, na, a, idx, val);
	if (direct_cholesky(a, na) < 0)
		goto out;
	for (j = 0; j < ds->nfeat; j++)
		if (place[j] >= 0)
			b[place[j]] = -(GH[2 * j] + lambda *
			    direct_sign(w[j], GH[2 * j]));
	direct_solve(a, na, b);
	for (j = 0; j < ds->nfeat; j++) {
		double d = place[j] >= 0 ? b[place[j]] : 0;

		if (place[j] >= 0 && direct_sign(w[j], GH[2 * j]) *
		    ((double)w[j] + d) < 0)
			d = -(double)w[j];	/* the orthant's edge */
		nt->d[j] = d > radius ? radius : d < -radius ? -radius : d;
	}
	ps_newton_xd(nt);
	ps_newton_sweeps_from(nt, w, GH, K, lambda, radius, sweeps);
	rc = ps_newton_model(nt, w, GH, K, lambda) < 0 ? 0 : -1;
out:
	free(b);
	free(idx);
	free(val);
	return rc;
}
