/*
 * prox.c: soft thresholding and the trust-region proximal step (see prox.h
 * for the invariants).
 */
#include "config.h"

#include <math.h>

#include "algo/prox.h"

/*
 * Floor of the trust radius: BBR's delta / 2 otherwise halves the radius of
 * a coordinate that stays at 0 every pass, so when it must enter the support
 * it regrows only by doubling (plateaus of ~20 passes) and, after ~1075
 * passes, underflows to 0 and freezes the coordinate for good.  A larger
 * radius only loosens the curvature bound, so descent stays safe.
 */
#define PS_TRUST_MIN	1e-4
/*
 * Over-relaxation of the proximal step.  When w, the prox point z and
 * w + omega (z - w) lie on one side of 0 the model G d + U/2 d^2 +
 * lambda |w + d| is a plain quadratic there, and for 0 < omega < 2 its value
 * at omega (z - w) is 1 - (1 - omega)^2 times the decrease at z - w: still a
 * decrease of the majoriser, so the step stays a descent step.
 */
#define PS_PROX_OMEGA	1.5

double
ps_soft_threshold(double z, double t)
{
	if (z > t)
		return z - t;
	if (z < -t)
		return z + t;
	return 0;
}

float
ps_trust_after(double step, double delta)
{
	double nd = 2 * step > delta / 2 ? 2 * step : delta / 2;

	return ps_trust_unpack(ps_trust_pack(
	    (float)(nd > PS_TRUST_MIN ? nd : PS_TRUST_MIN)));
}

float
ps_trust_next(float w_old, float w_new, double delta)
{
	return ps_trust_after(fabs((double)w_new - (double)w_old), delta);
}

double
ps_kkt_violation(float w, double g, double lambda)
{
	if (w > 0)
		return fabs(g + lambda);
	if (w < 0)
		return fabs(g - lambda);
	return fabs(g) > lambda ? fabs(g) - lambda : 0;
}

float
ps_prox_step(float w, double g, double u, double lambda, float *delta)
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
	if (z != 0 && (double)w * z >= 0 &&
	    ((double)w + PS_PROX_OMEGA * d) * z > 0)
		d *= PS_PROX_OMEGA;
	if (d > *delta)
		d = *delta;
	else if (d < -*delta)
		d = -*delta;
	wn = (float)((double)w + d);
	*delta = ps_trust_next(w, wn, *delta);
	return wn;
}

float
ps_prox_momentum(float x, float x_prev, double g, uint8_t *streak,
    double momentum)
{
	double b, y;

	if (x == 0 || g * ((double)x - (double)x_prev) > 0)
		*streak = 0;
	else if (*streak < PS_STREAK_MAX)
		(*streak)++;
	if (*streak < 2)
		return x;	/* b = 0: x_prev may be older than a step */
	b = (*streak - 1.0) / (*streak + 2.0);
	if (b > momentum)
		b = momentum;
	y = (double)x + b * ((double)x - (double)x_prev);
	return y * (double)x > 0 ? (float)y : 0.0f;
}
