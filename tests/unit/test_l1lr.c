/*
 * test_l1lr.c: unit tests of the worker-side l1-LR computations on a small
 * random data set: the block gradient against finite differences, the
 * curvature bound as a true majoriser inside the trust region, margin
 * and loss bookkeeping after an update, reservations in either order,
 * sweeps over the live entries alone the same as over all of them, and
 * a restart's margins from the blocks once the shard's entries are gone;
 * and the proximal Newton method's gradient, Hessian diagonal and sweeps
 * (newton.h), which must reach the optimum's KKT conditions; and the
 * inline exp of the sweeps (fastexp.h) within 1 ulp of libm's.
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "algo/fastexp.h"
#include "algo/l1lr.h"
#include "algo/logistic.h"
#include "algo/newton.h"
#include "algo/prox.h"
#include "util/xmalloc.h"

#define NROWS	60
#define NFEAT	12

/* A random data set with about half the entries present. */
static void
make_data(struct ps_dataset *ds, unsigned seed)
{
	size_t i, j, k = 0;

	srand(seed);
	memset(ds, 0, sizeof *ds);
	ds->nrows = NROWS;
	ds->nfeat = NFEAT;
	ds->fids = xcalloc(NFEAT, sizeof *ds->fids);
	ds->y = xcalloc(NROWS, sizeof *ds->y);
	ds->rowptr = xcalloc(NROWS + 1, sizeof *ds->rowptr);
	ds->col = xcalloc(NROWS * NFEAT, sizeof *ds->col);
	ds->val = xcalloc(NROWS * NFEAT, sizeof *ds->val);
	for (j = 0; j < NFEAT; j++)
		ds->fids[j] = 3 * j + 1;
	for (i = 0; i < NROWS; i++) {
		ds->y[i] = rand() % 2 ? 1 : -1;
		for (j = 0; j < NFEAT; j++) {
			if (rand() % 2)
				continue;
			ds->col[k] = (uint32_t)j;
			ds->val[k++] = (float)(rand() % 2000) / 1000.0f - 1;
		}
		ds->rowptr[i + 1] = k;
	}
	ds->nnz = k;
}

static void
free_data(struct ps_dataset *ds)
{
	free(ds->fids);
	free(ds->y);
	free(ds->rowptr);
	free(ds->col);
	free(ds->val);
}

/* Loss of the data set at weights w (dense, by local index). */
static double
loss_at(const struct ps_dataset *ds, const double *w)
{
	double sum = 0;
	size_t i;
	uint64_t k;

	for (i = 0; i < ds->nrows; i++) {
		double m = 0, z;

		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++)
			m += ds->val[k] * w[ds->col[k]];
		z = ds->y[i] * m;
		sum += z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z));
	}
	return sum;
}

static void
test_gradient(void **state)
{
	struct ps_dataset ds;
	struct ps_l1lr lr;
	uint32_t feats[NFEAT];
	float gu[2 * NFEAT], wnew[NFEAT];
	double w[NFEAT], h = 1e-6;
	size_t j, boff[2] = { 0, NFEAT };

	make_data(&ds, 1);
	for (j = 0; j < NFEAT; j++) {
		feats[j] = (uint32_t)(NFEAT - 1 - j);	/* any order */
		wnew[j] = (float)(0.1 * ((int)feats[j] - 5));
		w[feats[j]] = wnew[j];
	}
	ps_l1lr_init(&lr, &ds, 1, 1, boff, feats);
	ps_l1lr_block_grad(&lr, 0, gu);		/* features pending */
	ps_l1lr_apply(&lr, 0, wnew, NULL, NULL);
	for (j = 0; j < NROWS; j++)
		assert_true(lr.pendk[j] == 0 && fabs(lr.pendr[j]) < 1e-12);
	assert_true(fabs(lr.loss - loss_at(&ds, w)) < 1e-9);
	assert_true(fabs(ps_l1lr_loss(&lr) - loss_at(&ds, w)) < 1e-9);
	ps_l1lr_block_grad(&lr, 0, gu);
	for (j = 0; j < NFEAT; j++) {
		uint32_t f = feats[j];
		double fd;

		w[f] += h;
		fd = loss_at(&ds, w);
		w[f] -= 2 * h;
		fd = (fd - loss_at(&ds, w)) / (2 * h);
		w[f] += h;
		assert_true(fabs(fd - gu[2 * j]) < 1e-4 * (1 + fabs(fd)));
		assert_true(gu[2 * j + 1] > 0);
	}
	ps_l1lr_release(&lr);
	free_data(&ds);
}

/*
 * With beta = 1 the bound majorises: for any step d with |d_j| <= delta_j,
 * loss(w + d) <= loss(w) + g.d + 1/2 sum u_j d_j^2.
 */
static void
test_majoriser(void **state)
{
	struct ps_dataset ds;
	struct ps_l1lr lr;
	uint32_t feats[NFEAT];
	float gu[2 * NFEAT];
	double w[NFEAT], l0, model;
	size_t j, boff[2] = { 0, NFEAT };
	int trial;

	make_data(&ds, 2);
	for (j = 0; j < NFEAT; j++) {
		feats[j] = (uint32_t)j;
		w[j] = 0;
	}
	ps_l1lr_init(&lr, &ds, 1, 1, boff, feats);
	ps_l1lr_block_grad(&lr, 0, gu);
	l0 = loss_at(&ds, w);
	for (trial = 0; trial < 200; trial++) {
		double d[NFEAT];

		model = l0;
		for (j = 0; j < NFEAT; j++) {
			d[j] = ps_trust_unpack(lr.trust[j]) * ((double)(rand() % 2001) / 1000 - 1);
			model += gu[2 * j] * d[j] + gu[2 * j + 1] * d[j] * d[j] / 2;
		}
		assert_true(loss_at(&ds, d) <= model + 1e-4);
	}
	ps_l1lr_release(&lr);
	free_data(&ds);
}

/*
 * A block whose gradient sweep reserved it alone (tau 0) and another
 * reserved beside it afterwards: the second block's gradient, and the
 * pending sums once both are applied, are those of reserving both first.
 */
static void
test_reserve_order(void **state)
{
	struct ps_dataset ds;
	struct ps_l1lr solo, both;
	uint32_t feats[NFEAT];
	float gs[2 * NFEAT], gb[2 * NFEAT], wnew[NFEAT];
	size_t j, boff[4] = { 0, 4, 8, NFEAT };

	make_data(&ds, 3);
	for (j = 0; j < NFEAT; j++) {
		feats[j] = (uint32_t)j;
		wnew[j] = (float)(0.05 * ((int)j - 6));
	}
	ps_l1lr_init(&solo, &ds, 1, 3, boff, feats);
	ps_l1lr_init(&both, &ds, 1, 3, boff, feats);
	ps_l1lr_block_grad(&solo, 0, gs);	/* reserved alone */
	ps_l1lr_reserve(&solo, 1);
	ps_l1lr_reserve(&both, 0);
	ps_l1lr_reserve(&both, 1);
	ps_l1lr_block_grad(&both, 0, gb);
	ps_l1lr_block_grad(&solo, 1, gs);
	ps_l1lr_block_grad(&both, 1, gb);
	assert_memory_equal(gs, gb, 8 * sizeof *gs);
	ps_l1lr_apply(&solo, 0, wnew, NULL, NULL);
	ps_l1lr_apply(&both, 0, wnew, NULL, NULL);
	ps_l1lr_apply(&solo, 1, wnew + 4, NULL, NULL);
	ps_l1lr_apply(&both, 1, wnew + 4, NULL, NULL);
	for (j = 0; j < NROWS; j++) {
		assert_true(solo.pendk[j] == 0 && fabs(solo.pendr[j]) < 1e-12);
		assert_true(solo.margin[j] == both.margin[j]);
	}
	/* Block 2, alone again: the pending sums stay untouched. */
	ps_l1lr_block_grad(&solo, 2, gs);
	ps_l1lr_apply(&solo, 2, wnew + 8, NULL, NULL);
	for (j = 0; j < NROWS; j++)
		assert_true(solo.pendk[j] == 0 && solo.pendr[j] == both.pendr[j]);
	assert_true(solo.nreserved == 0 && both.nreserved == 0);
	ps_l1lr_release(&solo);
	ps_l1lr_release(&both);
	free_data(&ds);
}

/*
 * Two blocks whose KKT verdicts dropped most features: their sweeps go
 * over the live entries only (l1lr_live.c), first copied, then with
 * features dropped since the copy, then copied again in place, and give
 * the gradients, margins and pending sums of the sweeps over every entry
 * (ps_l1lr_live_reset()), bit for bit, with the blocks reserved alone
 * and side by side.
 */
/*
 * A restart (a worker that resumes) rebuilds the margins from the blocks'
 * entries alone, the shard's having lent their memory to the live copies
 * (ps_l1lr_take_room()), which then hold what the sweeps need.
 */
static void
test_restart_margins(void **state)
{
	struct ps_dataset ds, copy;
	struct ps_l1lr lr;
	uint32_t feats[NFEAT];
	uint8_t drop[NFEAT];
	float gu[2 * NFEAT], wnew[NFEAT];
	double margin[NROWS], loss;
	size_t j, i, boff[3] = { 0, 7, NFEAT };

	make_data(&ds, 5);
	make_data(&copy, 5);
	for (j = 0; j < NFEAT; j++) {
		feats[j] = (uint32_t)j;
		drop[j] = j % 3 == 0;	/* a third of each block's entries */
		wnew[j] = drop[j] ? 0 : (float)(0.1 * ((int)j - 5));
	}
	ps_l1lr_init(&lr, &copy, 1, 2, boff, feats);
	ps_l1lr_take_room(&lr, &copy);
	assert_null(copy.col);
	for (j = 0; j < 2; j++) {
		ps_l1lr_block_grad(&lr, (uint32_t)j, gu);
		ps_l1lr_apply(&lr, (uint32_t)j, wnew + boff[j], NULL,
		    drop + boff[j]);
	}
	assert_true(lr.blocks[0].shrunk && lr.blocks[1].shrunk);
	loss = lr.loss;
	ps_l1lr_restart(&lr);
	ps_l1lr_margins(&ds, lr.w, margin);
	for (i = 0; i < NROWS; i++)
		assert_true(fabs(lr.margin[i] - margin[i]) <= 1e-12);
	assert_true(fabs(lr.loss - loss) <= 1e-9 * loss);
	ps_l1lr_release(&lr);
	free_data(&ds);
	free(copy.fids);
	free(copy.y);
	free(copy.rowptr);
}

/* Entries the sweeps of block b go over, and of its features to drop. */
static void
live_counts(const struct ps_l1lr *lr, uint32_t b, const uint8_t *drop,
    uint64_t *swept, uint64_t *dropped)
{
	const struct ps_l1lr_block *bl = &lr->blocks[b];
	const struct ps_l1lr_rows *v = bl->shrunk ? &bl->live : &bl->all;
	size_t i;

	*swept = v->rowptr[v->nrows];
	*dropped = 0;
	for (i = 0; i < bl->nact; i++)
		if (drop[bl->act[i]])
			*dropped += lr->nent[bl->feats[bl->act[i]]];
}

static void
test_live_entries(void **state)
{
	/* Features kept, by round, of block 0 (9) and block 1 (3). */
	static const size_t keep[4][2] = { { 8, 3 }, { 3, 1 }, { 2, 1 },
	    { 1, 1 } };
	struct ps_dataset ds;
	struct ps_l1lr live, all;
	uint32_t feats[NFEAT];
	uint8_t drop[NFEAT];
	float gl[2 * NFEAT], ga[2 * NFEAT], wnew[NFEAT];
	size_t j, b, round, copies = 0, boff[3] = { 0, 9, NFEAT };
	uint64_t swept, dropped;

	make_data(&ds, 4);
	for (j = 0; j < NFEAT; j++) {
		feats[j] = (uint32_t)j;
		wnew[j] = (float)(0.05 * ((int)j - 6));
	}
	ps_l1lr_init(&live, &ds, 1, 2, boff, feats);
	ps_l1lr_init(&all, &ds, 1, 2, boff, feats);
	for (round = 0; round < 4; round++) {
		for (b = 0; b < 2; b++) {	/* round 2: side by side */
			if (round == 2)
				ps_l1lr_reserve(&live, 1 - (uint32_t)b);
			if (round == 2)
				ps_l1lr_reserve(&all, 1 - (uint32_t)b);
			ps_l1lr_block_grad(&live, (uint32_t)b, gl);
			ps_l1lr_block_grad(&all, (uint32_t)b, ga);
			for (j = 0; j < boff[b + 1] - boff[b]; j++)
				if (all.active[feats[boff[b] + j]])
					assert_memory_equal(gl + 2 * j,
					    ga + 2 * j, 2 * sizeof *gl);
		}
		for (b = 0; b < 2; b++) {
			const struct ps_l1lr_block *bl = &live.blocks[b];
			size_t before = bl->nswept;

			for (j = boff[b]; j < boff[b + 1]; j++) {
				wnew[j] *= 0.5f;
				drop[j] = j - boff[b] >= keep[round][b];
			}
			live_counts(&live, (uint32_t)b, drop + boff[b], &swept,
			    &dropped);
			ps_l1lr_apply(&live, (uint32_t)b, wnew + boff[b], NULL,
			    drop + boff[b]);
			ps_l1lr_apply(&all, (uint32_t)b, wnew + boff[b], NULL,
			    drop + boff[b]);
			ps_l1lr_live_reset(&all);
			/* A copy once an eighth of the entries went. */
			if (dropped > 0 && dropped >= swept / 8) {
				assert_true(bl->shrunk &&
				    bl->nswept == bl->nact);
				copies++;
			} else {
				assert_true(bl->nswept == before);
			}
			assert_true(!all.blocks[b].shrunk);
		}
		assert_memory_equal(live.margin, all.margin,
		    NROWS * sizeof *live.margin);
		assert_memory_equal(live.pendr, all.pendr,
		    NROWS * sizeof *live.pendr);
		assert_true(live.loss == all.loss);
	}
	/* Round 0 left block 0's copy unmade, rounds 1-3 made it (from all,
	 * then twice in place) and block 1's once. */
	assert_true(live.blocks[0].nswept == 1 && copies == 4);
	for (b = 0; b < 2; b++) {
		const struct ps_l1lr_block *bl = &live.blocks[b];

		assert_true(bl->live.rowptr[bl->live.nrows] ==
		    bl->nactive_ent && bl->nactive_ent > 0);
	}
	assert_true(ps_l1lr_activate_all(&live) > 0 && !live.blocks[0].shrunk);
	assert_true(live.blocks[0].nact == 9 && live.blocks[1].nact == 3);
	ps_l1lr_release(&live);
	ps_l1lr_release(&all);
	free_data(&ds);
}

/* ps_newton_grad: g against finite differences, h against its formula. */
static void
test_newton_grad(void **state)
{
	struct ps_dataset ds;
	struct ps_newton nt;
	double w[NFEAT], margin[NROWS], gh[2 * NFEAT], hd = 1e-6, loss;
	float wf[NFEAT];
	size_t i, j;
	uint64_t k;

	make_data(&ds, 3);
	for (j = 0; j < NFEAT; j++) {
		wf[j] = (float)(0.2 * ((int)j - 6));
		w[j] = wf[j];
	}
	ps_l1lr_margins(&ds, wf, margin);
	ps_newton_init(&nt, &ds);
	loss = ps_newton_grad(&nt, margin, gh);
	assert_true(fabs(loss - loss_at(&ds, w)) < 1e-9 * loss);
	for (j = 0; j < NFEAT; j++) {
		double fd, h = 0;

		w[j] += hd;
		fd = loss_at(&ds, w);
		w[j] -= 2 * hd;
		fd = (fd - loss_at(&ds, w)) / (2 * hd);
		w[j] += hd;
		assert_true(fabs(fd - gh[2 * j]) < 1e-5 * (1 + fabs(fd)));
		for (i = 0; i < NROWS; i++)
			for (k = ds.rowptr[i]; k < ds.rowptr[i + 1]; k++) {
				double p = 1 / (1 + exp(-margin[i]));

				if (ds.col[k] == j)
					h += p * (1 - p) * ds.val[k] * ds.val[k];
			}
		assert_true(fabs(h - gh[2 * j + 1]) < 1e-12 * (1 + h));
	}
	ps_newton_release(&nt);
	free_data(&ds);
}

/* The summed KKT violation (prox.h) of every feature at w. */
static double
newton_violation(struct ps_newton *nt, const float *w, double lambda)
{
	double margin[NROWS], gh[2 * NFEAT], viol = 0;
	size_t j;

	ps_l1lr_margins(nt->ds, w, margin);
	ps_newton_grad(nt, margin, gh);
	for (j = 0; j < NFEAT; j++)
		viol += ps_kkt_violation(w[j], gh[2 * j], lambda);
	return viol;
}

/*
 * One worker's iterations from w, w += d with no line search: d solved
 * directly while at most solve_max features are active (the unpolished
 * solve never taking a weight across 0), else by 50 sweeps, and never
 * out of the radius 0.5.  Returns the iterations solved directly.
 */
static int
newton_run(struct ps_newton *nt, float *w, double lambda, int iters,
    size_t solve_max)
{
	double margin[NROWS], gh[2 * NFEAT];
	size_t j;
	int it, solved = 0;

	for (it = 0; it < iters; it++) {
		ps_l1lr_margins(nt->ds, w, margin);
		ps_newton_grad(nt, margin, gh);
		if (ps_newton_direct(nt, w, gh, 1, lambda, 0.5, solve_max,
		    0) == 0)
			for (j = 0; j < NFEAT; j++)
				assert_true((double)w[j] * (w[j] + nt->d[j]) >= 0);
		if (ps_newton_direct(nt, w, gh, 1, lambda, 0.5, solve_max,
		    2) == 0)
			solved++;
		else
			ps_newton_sweeps(nt, w, gh, 1, lambda, 0.5, 50);
		for (j = 0; j < NFEAT; j++) {
			assert_true(fabs(nt->d[j]) <= 0.5);
			w[j] = (float)(w[j] + nt->d[j]);
		}
	}
	return solved;
}

/*
 * Sweeps alone reach, in 30 iterations, a point where every feature's
 * KKT violation (prox.h) sums to below 1e-4.
 */
static void
test_newton_optimum(void **state)
{
	struct ps_dataset ds;
	struct ps_newton nt;
	float w[NFEAT] = { 0 };

	make_data(&ds, 4);
	ps_newton_init(&nt, &ds);
	assert_int_equal(newton_run(&nt, w, 1, 30, 0), 0);
	assert_true(newton_violation(&nt, w, 1) < 1e-4);
	ps_newton_release(&nt);
	free_data(&ds);
}

/*
 * ps_newton_direct: a set past max_active is refused with d left alone;
 * solving directly (and sweeping when refused) gets there in 12.
 */
static void
test_newton_direct(void **state)
{
	struct ps_dataset ds;
	struct ps_newton nt;
	double margin[NROWS], gh[2 * NFEAT];
	float w[NFEAT] = { 0 };
	size_t j;

	make_data(&ds, 4);
	ps_newton_init(&nt, &ds);
	ps_l1lr_margins(&ds, w, margin);
	ps_newton_grad(&nt, margin, gh);
	for (j = 0; j < NFEAT; j++)
		nt.d[j] = 7;
	assert_int_equal(ps_newton_direct(&nt, w, gh, 1, 0.01, 0.5, 1, 0), -1);
	assert_true(nt.d[0] == 7 && nt.d[NFEAT - 1] == 7);
	assert_true(newton_run(&nt, w, 1, 12, NFEAT) >= 6);
	assert_true(newton_violation(&nt, w, 1) < 1e-4);
	ps_newton_release(&nt);
	free_data(&ds);
}

/*
 * ps_newton_trials: the losses at w + 4 2^-k d as ps_logistic_loss sums
 * them row by row, to 1e-12, with rows far out (|margin| past 300)
 * among them; and the loss at w.
 */
static void
test_newton_trials(void **state)
{
	struct ps_dataset ds;
	struct ps_newton nt;
	double margin[NROWS], d[NFEAT], loss[12], want, want0 = 0, l0;
	size_t i, j, m;
	uint64_t k;

	make_data(&ds, 5);
	ps_newton_init(&nt, &ds);
	for (j = 0; j < NFEAT; j++)
		d[j] = 0.7 * ((int)j - 5);
	for (i = 0; i < NROWS; i++)
		margin[i] = i % 7 == 0 ? 400.0 * (i % 2 ? 1 : -1) :
		    0.3 * ((int)(i % 11) - 5);
	l0 = ps_newton_trials(&nt, margin, d, 12, loss);
	for (m = 0; m < 12; m++) {
		want = 0;
		for (i = 0; i < NROWS; i++) {
			double xd = 0;

			for (k = ds.rowptr[i]; k < ds.rowptr[i + 1]; k++)
				xd += ds.val[k] * d[ds.col[k]];
			want += ps_logistic_loss(ds.y[i] * (margin[i] +
			    ldexp(xd, 2 - (int)m)));
			if (m == 0)
				want0 += ps_logistic_loss(ds.y[i] * margin[i]);
		}
		assert_true(fabs(loss[m] - want) <= 1e-12 * want);
	}
	assert_true(fabs(l0 - want0) <= 1e-12 * want0);
	ps_newton_release(&nt);
	free_data(&ds);
}

/*
 * ps_newton_step over trials at 4, 2, 1, 1/2, 1/4 (f0 10, pred -4, so a
 * step s passes at or below 10 - 0.04 s): step 1 when it passes, or the
 * lower of 4 and 2 where that passes and decreases F a quarter more than
 * 1 does; else the first passing below 1; 0 when none passes or pred is
 * not negative.
 */
static void
test_newton_step(void **state)
{
	double two_gains[] = { 9.9, 7, 8, 9, 9.5 };	/* 3 against 2 */
	double two_gains_little[] = { 9.9, 7.6, 8, 9, 9.5 };
	double four_lowest[] = { 6, 7, 8, 9, 9.5 };
	double four_fails[] = { 9.85, 9.8, 9.9, 9.95, 9.96 };
	double short_ones[] = { 11, 10.5, 10, 9.9, 9 };
	double none[] = { 10, 10, 10, 10, 10 };

	assert_true(ps_newton_step(10, -4, two_gains, 5) == 2);
	assert_true(ps_newton_step(10, -4, two_gains_little, 5) == 1);
	assert_true(ps_newton_step(10, -4, four_lowest, 5) == 4);
	assert_true(ps_newton_step(10, -4, four_fails, 5) == 2);
	assert_true(ps_newton_step(10, -4, short_ones, 5) == 0.5);
	assert_true(ps_newton_step(10, -4, none, 5) == 0);
	assert_true(ps_newton_step(10, 0, two_gains, 5) == 0);
	assert_true(ps_newton_step(10, NAN, two_gains, 5) == 0);
	assert_true(ps_newton_radius(1, 2) == 4 && ps_newton_radius(1, 0.5) == 1);
}

/*
 * ps_fastexp: within 1 ulp of libm's exp over [-708, 708] (random points,
 * and the ends of each range the table splits), 0 below, exact at 0.
 */
static void
test_fastexp(void **state)
{
	uint64_t s = 12345;
	double x, got, want, ulp;
	int i;

	(void)state;
	for (i = 0; i < 400000; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		x = ((double)(s >> 11) * 0x1p-53 * 2 - 1) *
		    (i % 4 == 0 ? 708 : i % 4 == 1 ? 40 : 0.5);
		if (i % 1000 == 0)	/* halfway between table points */
			x = (i / 1000 - 200) * M_LN2 / 64;
		got = ps_fastexp(x);
		want = exp(x);
		ulp = nextafter(want, INFINITY) - want;
		if (!(fabs(got - want) <= ulp))
			fail_msg("exp(%a): %a, libm %a", x, got, want);
	}
	assert_true(ps_fastexp(0) == 1);
	assert_true(ps_fastexp(-709) == 0);
	assert_true(ps_fastexp(709) == exp(709));
	assert_true(isnan(ps_fastexp(NAN)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gradient),
		cmocka_unit_test(test_majoriser),
		cmocka_unit_test(test_reserve_order),
		cmocka_unit_test(test_live_entries),
		cmocka_unit_test(test_restart_margins),
		cmocka_unit_test(test_newton_grad),
		cmocka_unit_test(test_newton_optimum),
		cmocka_unit_test(test_newton_direct),
		cmocka_unit_test(test_newton_trials),
		cmocka_unit_test(test_newton_step),
		cmocka_unit_test(test_fastexp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
