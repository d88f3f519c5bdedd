/*
 * bench-grad.c: how fast a worker computes on its shard: margins X w, one
 * full gradient + curvature pass X^T g over all features as one block, and
 * a pass over B blocks with weight updates as the worker runs it, after
 * the worker's start: reading the shard and building its B blocks (once
 * each, so their fresh memory's page faults count).  Prints TSV: what,
 * seconds (median of the repeats; of one run for the start), nnz/s.
 *
 * usage: bench-grad shard.pss [blocks [repeats]]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/l1lr.h"
#include "algo/prox.h"
#include "data/shard.h"
#include "util/clock.h"
#include "util/keyhash.h"
#include "util/xmalloc.h"

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One pass over nb blocks: gradient, a prox step per feature, apply. */
static void
block_pass(struct ps_l1lr *lr, size_t nb, float *gu, float *wn)
{
	size_t b, p;

	for (b = 0; b < nb; b++) {
		const struct ps_l1lr_block *bl = &lr->blocks[b];

		ps_l1lr_block_grad(lr, (uint32_t)b, gu);
		for (p = 0; p < bl->nfeat; p++) {
			float delta = ps_trust_unpack(lr->trust[bl->feats[p]]);

			wn[p] = ps_prox_step(lr->w[bl->feats[p]], gu[2 * p],
			    gu[2 * p + 1], 1.0, &delta);
		}
		ps_l1lr_apply(lr, (uint32_t)b, wn, NULL, NULL);
	}
}

int
main(int argc, char **argv)
{
	struct ps_dataset ds;
	struct ps_l1lr lr, one;
	char err[512];
	size_t nb, reps, r, j, *off, *fill;
	uint32_t *all, *order;
	float *gu, *wn;
	double *margin, t[3][64], tload, tinit;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: bench-grad shard.pss [blocks [repeats]]\n");
		return 64;
	}
	nb = argc > 2 ? strtoul(argv[2], NULL, 10) : 16;
	reps = argc > 3 ? strtoul(argv[3], NULL, 10) : 5;
	if (nb < 1 || reps < 1 || reps > 64)
		return 64;
	tload = ps_clock_now();
	if (ps_shard_read(argv[1], &ds, err, sizeof err) != 0) {
		fprintf(stderr, "bench-grad: %s\n", err);
		return 65;
	}
	tload = ps_clock_now() - tload;
	all = xcalloc(ds.nfeat + 1, sizeof *all);
	order = xcalloc(ds.nfeat + 1, sizeof *order);
	off = xcalloc(nb + 1, sizeof *off);
	fill = xcalloc(nb, sizeof *fill);
	for (j = 0; j < ds.nfeat; j++) {
		all[j] = (uint32_t)j;
		off[ps_key_mix(ds.fids[j]) % nb + 1]++;
	}
	for (j = 0; j < nb; j++)
		off[j + 1] += off[j];
	memcpy(fill, off, nb * sizeof *fill);
	for (j = 0; j < ds.nfeat; j++)
		order[fill[ps_key_mix(ds.fids[j]) % nb]++] = (uint32_t)j;
	tinit = ps_clock_now();
	ps_l1lr_init(&lr, &ds, 1, (uint32_t)nb, off, order);
	tinit = ps_clock_now() - tinit;
	{
		size_t alloff[2] = { 0, ds.nfeat };

		ps_l1lr_init(&one, &ds, 1, 1, alloff, all);
	}
	gu = xcalloc(2 * ds.nfeat + 2, sizeof *gu);
	wn = xcalloc(ds.nfeat + 1, sizeof *wn);
	margin = xcalloc(ds.nrows + 1, sizeof *margin);
	for (r = 0; r < reps; r++) {
		double t0 = ps_clock_now();

		ps_l1lr_margins(&ds, lr.w, margin);
		t[0][r] = ps_clock_now() - t0;
		t0 = ps_clock_now();
		ps_l1lr_block_grad(&one, 0, gu);
		memcpy(wn, one.w, ds.nfeat * sizeof *wn);
		ps_l1lr_apply(&one, 0, wn, NULL, NULL);
		t[1][r] = ps_clock_now() - t0;
		t0 = ps_clock_now();
		block_pass(&lr, nb, gu, wn);
		t[2][r] = ps_clock_now() - t0;
	}
	printf("what\tseconds\tnnz_per_s\n");
	printf("load_shard\t%.4f\t%.4g\n", tload, (double)ds.nnz / tload);
	printf("init_blocks\t%.4f\t%.4g\n", tinit, (double)ds.nnz / tinit);
	for (j = 0; j < 3; j++) {
		static const char *what[] = { "margins_Xw", "grad_XTg_one_block",
		    "pass_over_blocks" };

		qsort(t[j], reps, sizeof t[j][0], dbl_cmp);
		printf("%s\t%.4f\t%.4g\n", what[j], t[j][reps / 2],
		    (double)ds.nnz / t[j][reps / 2]);
	}
	printf("# %zu rows, %zu features, %zu nnz, %zu blocks\n", ds.nrows,
	    ds.nfeat, ds.nnz, nb);
	ps_l1lr_release(&lr);
	ps_l1lr_release(&one);
	ps_dataset_release(&ds);
	free(all);
	free(order);
	free(off);
	free(fill);
	free(gu);
	free(wn);
	free(margin);
	return 0;
}
