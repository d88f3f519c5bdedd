/*
 * ftrl.h: the per-coordinate updates of the online path (asynchronous SGD,
 * pskit(7)): FTRL-proximal (McMahan et al., KDD 2013) and AdaGrad in its
 * dual-averaging form (Duchi, Hazan and Singer, JMLR 2011), both with l1
 * and l2 penalties.  The server applies them to each key of a push.
 *
 * Invariants, for one coordinate with state (z, n), after gradients
 * g_1 .. g_t (each the sum over the rows of one mini-batch):
 *  1. n = g_1^2 + ... + g_t^2, and the weight is a function of (z, n) only,
 *     computed when needed and never kept as state:
 *       w(z, n) = 0                                       if |z| <= l1
 *       w(z, n) = -(z - sign(z) l1) / ((beta + sqrt n) / alpha + l2)
 *     It is the minimiser of
 *       Phi(w) = z w + (beta + sqrt n) / (2 alpha) w^2 + l1 |w| + l2/2 w^2.
 *  2. AdaGrad (dual averaging): z = g_1 + ... + g_t, so Phi is the sum of
 *     the linearised losses plus a regulariser centred at 0 that grows
 *     like sqrt n (Duchi et al., the primal-dual update with l1).
 *  3. FTRL-proximal: with sigma_s = (sqrt n_s - sqrt n_{s-1}) / alpha and
 *     w_s the weight before step s, z = sum_s (g_s - sigma_s w_s), which
 *     makes Phi equal, up to a constant, to
 *       sum_s g_s w + beta/(2 alpha) w^2 + sum_s sigma_s/2 (w - w_s)^2
 *       + l1 |w| + l2/2 w^2,
 *     the regulariser centred at the past weights (McMahan's Algorithm 1).
 *  4. l1 and l2 are penalties on the running sum of the losses, not per
 *     step.  F(w) = sum_i loss_i + lambda |w|_1 spreads lambda over its
 *     rows, lambda / N each, so after e epochs (every row seen e times) the
 *     losses seen sum to about e times F's and the matching penalty is
 *     e lambda.  The caller passes the penalties in force now: the server
 *     scales the job's per-epoch l1 and l2 by the epochs of data seen
 *     (online.c), so at any time the weights minimise the online
 *     counterpart of F, at the end of the first epoch as after the last.
 *  5. beta > 0, so the denominator is positive and w is finite for every
 *     reachable (z, n), including a coordinate never touched (z = n = 0).
 */
#ifndef PS_FTRL_H
#define PS_FTRL_H

#include <stddef.h>

enum ps_optimizer {
	PS_OPT_ADAGRAD = 1,
	PS_OPT_FTRL = 2
};

/* An online job's optimiser and its parameters. */
struct ps_ftrl {
	int	opt;		/* enum ps_optimizer */
	double	alpha;		/* learning-rate scale, > 0 */
	double	beta;		/* learning-rate smoothing, > 0 */
	double	l1, l2;		/* penalties on the running loss sum, >= 0 */
};

/* "adagrad", "ftrl"; NULL for anything else. */
const char *ps_ftrl_name(int opt);
/* The optimiser named name, or 0 when unknown. */
int	ps_ftrl_parse(const char *name);
/* 0 when the parameters are usable (finite, in range), else -1 and why. */
int	ps_ftrl_check(const struct ps_ftrl *c, char *err, size_t errlen);
/* The weight of a coordinate with state (z, n), invariant 1. */
double	ps_ftrl_weight(const struct ps_ftrl *c, double z, double n);
/*
 * Apply gradient g to (*z, *n), w being the coordinate's weight before the
 * step (ps_ftrl_weight of the old state, as stored); return the new weight.
 */
double	ps_ftrl_update(const struct ps_ftrl *c, double *z, double *n,
	    double w, double g);
/* The z that gives weight w with n = 0: a warm start from existing weights. */
double	ps_ftrl_warm_z(const struct ps_ftrl *c, double w);

#endif
