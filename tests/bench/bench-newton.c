/*
 * bench-newton.c: the distributed proximal Newton method of algo/newton.h
 * run in one process, one shard per simulated worker, the servers' sums
 * and averages done here: how many iterations and sweeps it needs, before
 * any of it goes on the wire.  Each iteration prints TSV: iteration,
 * objective F (the shards' loss plus lambda |w|_1, before the step), its
 * gap to -f fstar, non-zero weights, the line search's step and seconds
 * so far.  The directions' trust radius (newton.h) starts at -r (1), is
 * quartered after a step below 1/4 and quadrupled after a whole one.  Each
 * worker solves its model directly while at most -D features are active
 * (default 1024, as ps-worker's --solve-max; 0: never), polished by
 * PS_NEWTON_POLISH sweeps (newton.h), else runs -S sweeps.
 *
 * usage: bench-newton [-D max-active] [-f fstar] [-i iterations]
 *                     [-l lambda] [-r radius] [-S sweeps] shard.pss ...
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo/l1lr.h"
#include "algo/newton.h"
#include "data/shard.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* One simulated worker: its shard, its solver, where its features sit. */
struct sim_worker {
	struct ps_dataset ds;
	struct ps_newton nt;
	uint32_t	*global;	/* nfeat: index in the union of ids */
	double		*margin, *gh, *dbar;
	float		*w;
};

/* Options and the union of every shard's feature ids. */
struct sim {
	struct sim_worker *wk;
	size_t		 nwk, nfeat;
	uint64_t	*fids;		/* nfeat, ascending */
	double		 lambda, radius, fstar;
	int		 sweeps, iters;
	size_t		 solve_max;	/* -D */
};

static int
u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The sorted union of the shards' ids, and each local feature's place. */
static void
sim_union(struct sim *sm)
{
	size_t total = 0, n = 0, k, j;

	for (k = 0; k < sm->nwk; k++)
		total += sm->wk[k].ds.nfeat;
	sm->fids = xcalloc(total + 1, sizeof *sm->fids);
	for (k = 0; k < sm->nwk; k++)
		for (j = 0; j < sm->wk[k].ds.nfeat; j++)
			sm->fids[n++] = sm->wk[k].ds.fids[j];
	qsort(sm->fids, n, sizeof *sm->fids, u64_cmp);
	for (k = j = 0; k < n; k++)
		if (j == 0 || sm->fids[k] != sm->fids[j - 1])
			sm->fids[j++] = sm->fids[k];
	sm->nfeat = j;
	for (k = 0; k < sm->nwk; k++) {
		struct sim_worker *wk = &sm->wk[k];
		size_t at = 0;

		wk->global = xcalloc(wk->ds.nfeat + 1, sizeof *wk->global);
		for (j = 0; j < wk->ds.nfeat; j++) {
			while (sm->fids[at] != wk->ds.fids[j])
				at++;
			wk->global[j] = (uint32_t)at;
		}
	}
}

/* Steps 1 and 2 of newton.h for every worker; returns the summed loss. */
static double
sim_directions(struct sim *sm, const double *w, double *sum)
{
	double loss = 0;
	size_t k, j;

	memset(sum, 0, 2 * sm->nfeat * sizeof *sum);
	for (k = 0; k < sm->nwk; k++) {
		struct sim_worker *wk = &sm->wk[k];

		for (j = 0; j < wk->ds.nfeat; j++)
			wk->w[j] = (float)w[wk->global[j]];
		ps_l1lr_margins(&wk->ds, wk->w, wk->margin);
		loss += ps_newton_grad(&wk->nt, wk->margin, wk->gh);
		for (j = 0; j < wk->ds.nfeat; j++) {
			sum[2 * wk->global[j]] += wk->gh[2 * j];
			sum[2 * wk->global[j] + 1] += wk->gh[2 * j + 1];
		}
	}
	for (k = 0; k < sm->nwk; k++) {
		struct sim_worker *wk = &sm->wk[k];

		for (j = 0; j < wk->ds.nfeat; j++) {
			wk->gh[2 * j] = sum[2 * wk->global[j]];
			wk->gh[2 * j + 1] = sum[2 * wk->global[j] + 1];
		}
		if (ps_newton_direct(&wk->nt, wk->w, wk->gh, (double)sm->nwk,
		    sm->lambda, sm->radius, sm->solve_max, PS_NEWTON_POLISH) < 0)
			ps_newton_sweeps(&wk->nt, wk->w, wk->gh,
			    (double)sm->nwk, sm->lambda, sm->radius,
			    sm->sweeps);
	}
	return loss;
}

/* Step 3: dbar, the mean of the directions sent for each weight. */
static void
sim_average(struct sim *sm, double *dbar, double *acc)
{
	size_t k, j;

	memset(acc, 0, 2 * sm->nfeat * sizeof *acc);
	for (k = 0; k < sm->nwk; k++)
		for (j = 0; j < sm->wk[k].ds.nfeat; j++) {
			acc[2 * sm->wk[k].global[j]] += sm->wk[k].nt.d[j];
			acc[2 * sm->wk[k].global[j] + 1] += 1;
		}
	for (j = 0; j < sm->nfeat; j++)
		dbar[j] = acc[2 * j + 1] > 0 ? acc[2 * j] / acc[2 * j + 1] : 0;
}

/* lambda |w + step dbar|_1 */
static double
sim_l1(const struct sim *sm, const double *w, const double *dbar,
    double step)
{
	double l1 = 0;
	size_t j;

	for (j = 0; j < sm->nfeat; j++)
		l1 += fabs(w[j] + step * dbar[j]);
	return sm->lambda * l1;
}

/* Step 4: the servers' choice of step (ps_newton_step). */
#define SIM_TRIALS	20
static double
sim_step(struct sim *sm, const double *w, const double *G, const double *dbar)
{
	double tl[SIM_TRIALS] = { 0 }, part[SIM_TRIALS], pred = 0;
	double f0 = sim_l1(sm, w, dbar, 0);
	size_t k, j, m;

	for (k = 0; k < sm->nwk; k++) {
		struct sim_worker *wk = &sm->wk[k];

		for (j = 0; j < wk->ds.nfeat; j++)
			wk->dbar[j] = dbar[wk->global[j]];
		f0 += ps_newton_trials(&wk->nt, wk->margin, wk->dbar,
		    SIM_TRIALS, part);
		for (m = 0; m < SIM_TRIALS; m++)
			tl[m] += part[m];
	}
	for (j = 0; j < sm->nfeat; j++)
		pred += G[2 * j] * dbar[j];
	pred += sim_l1(sm, w, dbar, 1) - sim_l1(sm, w, dbar, 0);
	for (m = 0; m < SIM_TRIALS; m++)
		tl[m] += sim_l1(sm, w, dbar, ps_newton_trial_step(m));
	return ps_newton_step(f0, pred, tl, SIM_TRIALS);
}

static void
sim_run(struct sim *sm)
{
	double *w = xcalloc(sm->nfeat + 1, sizeof *w);
	double *sum = xcalloc(2 * sm->nfeat + 1, sizeof *sum);
	double *acc = xcalloc(2 * sm->nfeat + 1, sizeof *acc);
	double *dbar = xcalloc(sm->nfeat + 1, sizeof *dbar);
	double t0 = ps_clock_now();
	int it;

	printf("iter\tobjective\tgap\tnnz\tstep\tsecs\n");
	for (it = 0; it < sm->iters; it++) {
		double f, step;
		size_t j, nnz = 0;

		f = sim_directions(sm, w, sum) + sim_l1(sm, w, dbar, 0);
		for (j = 0; j < sm->nfeat; j++)
			nnz += w[j] != 0;
		sim_average(sm, dbar, acc);
		step = sim_step(sm, w, sum, dbar);
		sm->radius = ps_newton_radius(sm->radius, step);
		printf("%d\t%.12g\t%.3e\t%zu\t%g\t%.3f\n", it, f,
		    sm->fstar > 0 ? (f - sm->fstar) / sm->fstar : NAN, nnz,
		    step, ps_clock_now() - t0);
		for (j = 0; j < sm->nfeat; j++)
			w[j] = (float)(w[j] + step * dbar[j]);
	}
	free(w);
	free(sum);
	free(acc);
	free(dbar);
}

static void
sim_load(struct sim *sm, char **paths, size_t n)
{
	char err[512];
	size_t k;

	sm->nwk = n;
	sm->wk = xcalloc(n, sizeof *sm->wk);
	for (k = 0; k < n; k++) {
		struct sim_worker *wk = &sm->wk[k];

		if (ps_shard_read(paths[k], &wk->ds, err, sizeof err) != 0) {
			fprintf(stderr, "bench-newton: %s\n", err);
			exit(65);
		}
		ps_newton_init(&wk->nt, &wk->ds);
		wk->margin = xcalloc(wk->ds.nrows + 1, sizeof *wk->margin);
		wk->gh = xcalloc(2 * wk->ds.nfeat + 1, sizeof *wk->gh);
		wk->dbar = xcalloc(wk->ds.nfeat + 1, sizeof *wk->dbar);
		wk->w = xcalloc(wk->ds.nfeat + 1, sizeof *wk->w);
	}
	sim_union(sm);
}

static void
sim_free(struct sim *sm)
{
	size_t k;

	for (k = 0; k < sm->nwk; k++) {
		struct sim_worker *wk = &sm->wk[k];

		ps_newton_release(&wk->nt);
		ps_dataset_release(&wk->ds);
		free(wk->global);
		free(wk->margin);
		free(wk->gh);
		free(wk->dbar);
		free(wk->w);
	}
	free(sm->wk);
	free(sm->fids);
}

int
main(int argc, char **argv)
{
	struct sim sm;
	int c;

	memset(&sm, 0, sizeof sm);
	sm.lambda = 1;
	sm.radius = 1;
	sm.sweeps = 20;
	sm.iters = 20;
	sm.solve_max = 1024;
	while ((c = getopt(argc, argv, "D:f:i:l:r:S:")) != -1)
		switch (c) {
		case 'D': sm.solve_max = (size_t)atol(optarg); break;
		case 'f': sm.fstar = atof(optarg); break;
		case 'i': sm.iters = atoi(optarg); break;
		case 'l': sm.lambda = atof(optarg); break;
		case 'r': sm.radius = atof(optarg); break;
		case 'S': sm.sweeps = atoi(optarg); break;
		default: goto usage;
		}
	if (optind == argc || sm.iters < 1 || sm.sweeps < 1 ||
	    !(sm.lambda > 0) || !(sm.radius > 0))
		goto usage;
	sim_load(&sm, argv + optind, (size_t)(argc - optind));
	sim_run(&sm);
	sim_free(&sm);
	return 0;
usage:
	fprintf(stderr, "usage: bench-newton [-D max-active] [-f fstar] "
	    "[-i iterations] [-l lambda] [-r radius] [-S sweeps] shard.pss ...\n");
	return 64;
}
