/*
 * newton.h: a worker's side of a distributed proximal Newton method for
 * l1-LR (ps-worker -A newton).
 *
 * Each iteration, with K workers holding the rows and w the weights:
 *  1. every worker computes, on its rows, the loss gradient g_j and the
 *     Hessian diagonal h_j = sum_i D_i x_ij^2, D_i = p_i (1 - p_i), and
 *     the servers sum them into G and H;
 *  2. every worker minimises its own quadratic model of F around w,
 *        q(d) = G.d + 1/2 d' A d + lambda |w + d|_1,
 *     where A is K X_k' D X_k, X_k its rows, with each diagonal entry
 *     raised to H_j where that is larger: the Hessian's coupling of
 *     features approximated by K times its own rows' (GIANT, DANE), the
 *     gradient exact (with K times its own diagonal alone, a feature rare
 *     in a worker's rows but frequent in others' took steps of thousands;
 *     with H alone, A need not be positive definite), and no entry of
 *     d leaves a trust radius (where the loss is nearly linear, H_j is
 *     near 0 and an unbounded step is huge: news20.half.binary);
 *     directly on a small active set (newton_direct.c), else by S
 *     coordinate-descent sweeps;
 *  3. the servers average the workers' directions into d;
 *  4. every worker computes its rows' loss at w + beta d for beta = 4,
 *     2, 1, 1/2, ..., the servers sum them and take the step that
 *     decreases F enough (Armijo), as LIBLINEAR's newGLMNET does (which
 *     stops at 1; ps_newton_step says which), and narrow the radius after
 *     a short step, widen it after a whole one or longer.
 * Three round trips an iteration.  Run in one process on a9a with 2
 * simulated workers (tests/bench/bench-newton) it needs 5 iterations to
 * 1e-3 of F* solving directly, 8 of 20 sweeps, where the default dbpg job
 * needs 78 passes of 5 blocks.  The rows' columns must ascend (every
 * reader of pskit's makes them so: newton_direct.c relies on it).
 *
 * The sweeps run over a column view of the shard (built once); each keeps
 * X_k d, the rows' residual, up to date.  The struct owns every array it
 * allocates; the data set stays the caller's.
 */
#ifndef PS_NEWTON_H
#define PS_NEWTON_H

#include <stddef.h>
#include <stdint.h>

#include "data/dataset.h"

struct ps_newton {
	const struct ps_dataset *ds;	/* the shard, not owned */
	uint64_t	*colptr;	/* nfeat + 1: column j's entries */
	uint32_t	*rowidx;	/* nnz: each entry's row */
	float		*colval;	/* nnz: each entry's value */
	double		*curv;		/* nrows: D_i at the iteration's start */
	double		*xd;		/* nrows: (X_k d)_i */
	double		*d;		/* nfeat: the direction */
	double		*own;		/* nfeat: h_j of the rows */
	int32_t		*place;		/* nfeat: index in the active set,
					   or -1 (newton_direct.c) */
	double		*mat;		/* the direct solve's matrix, kept
					   between iterations (a fresh one
					   of megabytes is page faults) */
	size_t		 matcap;	/* entries mat holds */
	size_t		 rowmax;	/* the longest row's entries, >= 1 */
};

void	ps_newton_init(struct ps_newton *nt, const struct ps_dataset *ds);
void	ps_newton_release(struct ps_newton *nt);
/*
 * Step 1 at margins m_i = w.x_i: keep D_i, put g_j and h_j of the rows
 * into gh[2j] and gh[2j + 1] (j a local feature), return the rows' loss.
 */
double	ps_newton_grad(struct ps_newton *nt, const double *margin, double *gh);
/*
 * Step 2: sweeps passes of coordinate descent on q from d = 0, with the
 * summed gradient and diagonal GH (G_j at 2j, H_j at 2j + 1, per local
 * feature; h_j of the rows kept from step 1) and K workers, each d_j kept
 * in [-radius, radius].  The direction is in nt->d.
 */
void	ps_newton_sweeps(struct ps_newton *nt, const float *w, const double *GH,
	    double K, double lambda, double radius, int sweeps);
/* The sweeps from the direction in nt->d and nt->xd = X_k d. */
void	ps_newton_sweeps_from(struct ps_newton *nt, const float *w,
	    const double *GH, double K, double lambda, double radius,
	    int sweeps);
/* nt->xd = X_k nt->d. */
void	ps_newton_xd(struct ps_newton *nt);
/* q(d) for d in nt->d, nt->xd. */
double	ps_newton_model(const struct ps_newton *nt, const float *w,
	    const double *GH, double K, double lambda);
/*
 * Step 2 solved directly (newton_direct.c): the minimiser of q on the
 * orthant of the active set, projected back on it and held in the radius,
 * into nt->d; -1 (nt->d unchanged) when the set has more than max_active
 * features or its matrix is not definite.
 */
int	ps_newton_direct(struct ps_newton *nt, const float *w, const double *GH,
	    double K, double lambda, double radius, size_t max_active,
	    int sweeps);
/*
 * Sweeps after a direct solve, for the l1 term's kinks it did not see.
 * One: with a second, bench-newton (2 shards) took 6-15% longer to 1e-3
 * of F* on w8a, a9a, mushrooms and dense200, in as many iterations or
 * more (tests/bench/README, twenty-seventh session); with none, ps-train
 * needed 12 iterations instead of 10 on w8a, 9 instead of 7 on a9a.
 */
#define PS_NEWTON_POLISH	1
/*
 * Step 4's trial steps: the k-th is PS_NEWTON_STEP_MAX 2^-k.  Steps past
 * 1 are for the first iterations from w = 0, where a row's curvature
 * falls as its margin grows and the model's minimiser falls short:
 * bench-newton (2 shards) reached 1e-3 of F* in 5 iterations instead of
 * 8 on w8a, 6 instead of 7 on dense200, 8 instead of 9 on mushrooms, as
 * many on a9a, spamassassin and news20.half.unit (tests/bench/README,
 * forty-fourth session).
 */
#define PS_NEWTON_STEP_MAX	4.0
/* The k-th trial step, PS_NEWTON_STEP_MAX 2^-k (k < PS_NEWTON_TRIALS_MAX). */
double	ps_newton_trial_step(size_t k);
/*
 * Step 4: the rows' loss at margins m + PS_NEWTON_STEP_MAX 2^-k X dbar,
 * k = 0 .. n - 1 (n at most PS_NEWTON_TRIALS_MAX), for the averaged
 * direction dbar (per local feature), into loss[k]; returns the loss at
 * m, summed the same way.
 */
#define PS_NEWTON_TRIALS_MAX	32
double	ps_newton_trials(struct ps_newton *nt, const double *margin,
	    const double *dbar, size_t n, double *loss);
/*
 * Step 4's choice among the trial steps s_k = PS_NEWTON_STEP_MAX 2^-k,
 * k < n, whose objectives are trial[k]: those below f0 by at least 1% of
 * s_k times the predicted decrease -pred (Armijo) pass.  The first that
 * passes from 1 down; if that is 1, the step of lowest objective among
 * 1 and the passing longer ones that decrease F by at least a quarter
 * more than 1 does.  0 when none passes, or when pred is not negative
 * (NAN included).
 */
double	ps_newton_step(double f0, double pred, const double *trial, size_t n);
/*
 * The trust radius after a step: quartered below 1/4, quadrupled at 1 or
 * more (the first steps of a dense set are held by the radius: doubled,
 * the default dense200 job took 10 iterations, quadrupled 9).
 */
double	ps_newton_radius(double radius, double step);

#endif
