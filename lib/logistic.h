/*
 * logistic.h: the logistic loss and its derivatives, written to be
 * numerically stable for margins of any size.
 *
 * For a row with label y in {-1,+1} and margin m = w.x, the loss is
 * log(1 + exp(-y m)); its derivative in m is -y * sigma(-y m) and its second
 * derivative sigma(m) * (1 - sigma(m)).
 */
#ifndef PS_LOGISTIC_H
#define PS_LOGISTIC_H

#include <math.h>

/* log(1 + exp(-z)) without overflow. */
static inline double
ps_logistic_loss(double z)
{
	if (z > 0)
		return log1p(exp(-z));
	return -z + log1p(exp(z));
}

/* sigma(-z) = 1 / (1 + exp(z)). */
static inline double
ps_sigmoid_neg(double z)
{
	if (z > 0) {
		double e = exp(-z);
		return e / (1 + e);
	}
	return 1 / (1 + exp(z));
}

/*
 * The largest second derivative of the logistic loss over margins in
 * [m - r, m + r]: 1/4 if the interval holds 0, else sigma'(|m| - r).  This
 * is what makes a step inside a trust region of radius r a true majoriser.
 */
static inline double
ps_logistic_curv_bound(double m, double r)
{
	double a = fabs(m) - r, e;

	if (a <= 0)
		return 0.25;
	e = exp(-a);
	return e / ((1 + e) * (1 + e));
}

#endif
