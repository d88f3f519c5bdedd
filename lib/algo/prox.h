/*
 * prox.h: the server-side proximal step of the Delayed Block Proximal
 * Gradient method for l1-regularised problems.
 *
 * Invariants, for one coordinate j with weight w, aggregated gradient G and
 * curvature bound U (sums over all workers) and trust radius delta:
 *  1. z = soft_threshold(w - G/U, lambda/U) minimises the model
 *     m(d) = G d + U/2 d^2 + lambda |w + d| at d = z - w.  When w, z and
 *     w + 1.5 (z - w) lie on one side of 0, m is a plain quadratic there and
 *     the over-relaxed step 1.5 (z - w) still lowers it by 1 - 0.5^2 = 3/4
 *     of the plain step's decrease; it converges in markedly fewer passes.
 *     The step is then clipped to [-delta, delta], inside which U bounds
 *     the curvature (l1lr.h): the objective cannot go up.
 *  2. The new weight is rounded to float32, the precision every worker holds,
 *     and d is recomputed from the rounded value, so servers and workers
 *     agree on every bit.
 *  3. The trust radius then becomes max(2 |d|, delta / 2, 1e-4) (Genkin,
 *     Lewis and Madigan's BBR rule, with a floor so that a coordinate resting
 *     at 0 can re-enter the support at once), rounded down to 9
 *     significant bits (ps_trust_pack(): 16 bits a key on a server and a
 *     worker instead of 32; the radius only bounds a step, so 0.4% of it
 *     does not matter); workers apply the same rule to the weights they
 *     pull, so both sides hold the same radius without sending it (a
 *     message that hands a coordinate over carries it whole, in one
 *     float).
 *  4. Momentum (ps-server --momentum m; 0 turns it off): the weight the
 *     workers get is not the step's result x but x + b (x - x_prev), x_prev
 *     the coordinate's previous x and b = (n - 1) / (n + 2) after n steps
 *     since the last restart, at most m (the sequence of Nesterov's method
 *     and FISTA, per coordinate).  It restarts (n = 0, no extrapolation)
 *     when g (x - x_prev) > 0, O'Donoghue and Candes's gradient restart, or
 *     when x is 0, so that a weight the l1 term holds at 0 stays there; an
 *     extrapolation never crosses 0.  The objective may then rise for a
 *     round, which the restart answers; in exchange ill-conditioned data
 *     need about half the passes.  Rule 3 then applies to the step the
 *     workers take, from the old weight to the extrapolated one.
 */
#ifndef PS_PROX_H
#define PS_PROX_H

#include <stdint.h>
#include <string.h>

/* Initial trust radius of every coordinate. */
#define PS_TRUST_INIT	1.0

/* soft_threshold(z, t) = sign(z) max(|z| - t, 0). */
double	ps_soft_threshold(double z, double t);
/* One proximal step; returns the new weight and updates *delta. */
float	ps_prox_step(float w, double g, double u, double lambda, float *delta);
/*
 * Invariant 4: the weight to send for the step's result x, the previous
 * result x_prev and the gradient sum g; *streak counts the steps since the
 * last restart (start it at 0: the first two steps do not extrapolate), up
 * to PS_STREAK_MAX, where the factor (streak - 1) / (streak + 2) is 0.909
 * (the default momentum, 0.8, caps it from 14 steps on; a server keeps
 * the streak in 5 bits).
 */
#define PS_STREAK_MAX	31
float	ps_prox_momentum(float x, float x_prev, double g, uint8_t *streak,
	    double momentum);
/*
 * A trust radius as a key holds it: bits 15-30 of its float32, the sign
 * (0) and the low 15 bits of the mantissa dropped.  Every radius the rules
 * below return packs without loss; ps_trust_pack() of another positive
 * float rounds it down.
 */
static inline uint16_t
ps_trust_pack(float delta)
{
	uint32_t u;

	memcpy(&u, &delta, sizeof u);
	return (uint16_t)(u >> 15);
}

static inline float
ps_trust_unpack(uint16_t packed)
{
	uint32_t u = (uint32_t)packed << 15;
	float delta;

	memcpy(&delta, &u, sizeof delta);
	return delta;
}

/* The trust-radius rule of invariant 3, for a step from w_old to w_new. */
float	ps_trust_next(float w_old, float w_new, double delta);
/* The same rule for a step of the given length. */
float	ps_trust_after(double step, double delta);
/*
 * How far w is from optimal in its coordinate, for the gradient sum g:
 * the size of the smallest subgradient of g w + lambda |w|, that is
 * |g + lambda sign(w)| for w != 0 and max(|g| - lambda, 0) for w = 0
 * (LIBLINEAR's -e measures its sum; 0 at the optimum).
 */
double	ps_kkt_violation(float w, double g, double lambda);

#endif
