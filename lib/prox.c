/*
 * prox.c: soft thresholding and the trust-region proximal step (see prox.h
 * for the invariants).
 */
#include "config.h"

#include <math.h>

#include "prox.h"

double
ps_soft_threshold(double z, double t)
{
	if (z > t)
		return z - t;
	if (z < -t)
		return z + t;
	return 0;
}

double
ps_trust_next(float w_old, float w_new, double delta)
{
	double d = fabs((double)w_new - (double)w_old);

	return 2 * d > delta / 2 ? 2 * d : delta / 2;
}

float
ps_prox_step(float w, double g, double u, double lambda, double *delta)
{
	double z, d;
	float wn;

	if (!(u > 0)) {
		/* No curvature: only a zero gradient leaves nothing to do. */
		if (g == 0)
			return w;
		u = 1e-12;
	}
	z = ps_soft_threshold((double)w - g / u, lambda / u);
	d = z - (double)w;
	if (d > *delta)
		d = *delta;
	else if (d < -*delta)
		d = -*delta;
	wn = (float)((double)w + d);
	*delta = ps_trust_next(w, wn, *delta);
	return wn;
}
