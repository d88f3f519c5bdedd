/*
 * logistic.h: the logistic loss and its derivatives, written to be
 * numerically stable for margins of any size.
 *
 * For a row with label y in {-1,+1} and margin m = w.x, the loss is
 * log(1 + exp(-y m)); its derivative in m is -y * sigma(-y m) and its second
 * derivative sigma(m) * (1 - sigma(m)), at most 1/4.
 */
#ifndef PS_LOGISTIC_H
#define PS_LOGISTIC_H

#include <math.h>

#include "algo/fastexp.h"

/* log(1 + exp(-z)) without overflow. */
static inline double
ps_logistic_loss(double z)
{
	if (z > 0)
		return log1p(exp(-z));
	return -z + log1p(exp(z));
}

/* sigma(-z) = 1 / (1 + exp(z)), from e = exp(-|z|). */
static inline double
ps_logistic_sigma_e(double z, double e)
{
	return (z > 0 ? e : 1) / (1 + e);
}

/*
 * The loss log(1 + exp(-z)) of a row with z = y m, and in *s the sigmoid
 * sigma(-z) = 1 / (1 + exp(z)), so that the loss's derivative in m is
 * -y *s; one exp() for both.
 */
static inline double
ps_logistic_loss_slope(double z, double *s)
{
	double e = exp(-fabs(z));

	*s = ps_logistic_sigma_e(z, e);
	return log1p(e) + (z < 0 ? -z : 0);
}

/*
 * The largest second derivative of the logistic loss over margins in
 * [m - r, m + r] is 1/4 if the interval holds 0, else sigma'(|m| - r) =
 * x / (1 + x)^2 with x = exp(-|m|) exp(r): a step inside a trust region of
 * radius r is then bounded by a true majoriser.  This computes it from
 * e = exp(-|m|) without calling exp() when r <= 1: there exp(r) <= 1 + r +
 * r^2, and x / (1 + x)^2 grows on [0, 1], so the larger x still bounds the
 * curvature from above; beyond, the sweeps' inline exp (fastexp.h).
 */
static inline double
ps_logistic_curv_bound_e(double e, double r)
{
	double x = e * (r <= 1 ? 1 + r + r * r : ps_fastexp(r));

	if (x >= 1)
		return 0.25;
	return x / ((1 + x) * (1 + x));
}

#endif
