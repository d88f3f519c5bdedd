/*
 * diff.c: ps-ckpt diff, the weights two models disagree on.
 *
 * A feature missing from a model has weight 0 there, so a stored zero
 * and an absent feature are the same.  Like diff(1) and cmp(1) the exit
 * status says whether anything differs: 0 no, 1 yes, above 1 trouble.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <sysexits.h>

#include "ckpt.h"

struct diff_sum {
	size_t	changed;
	double	l2;		/* squared, until printed */
	double	maxabs;
	size_t	nnz_a, nnz_b;
};

/* Count one feature with weights a and b; print it unless quiet. */
static void
diff_one(struct diff_sum *d, uint64_t fid, float a, float b, int quiet)
{
	double delta = (double)b - (double)a;

	d->nnz_a += a != 0;
	d->nnz_b += b != 0;
	if (a == b)
		return;
	d->changed++;
	d->l2 += delta * delta;
	if (fabs(delta) > d->maxabs)
		d->maxabs = fabs(delta);
	if (!quiet)
		printf("%llu\t%.9g\t%.9g\n", (unsigned long long)fid, (double)a,
		    (double)b);
}

/* Walk both models' sorted feature ids together. */
static void
diff_walk(const struct ps_model *a, const struct ps_model *b, int quiet,
    struct diff_sum *d)
{
	size_t i = 0, j = 0;

	while (i < a->n || j < b->n) {
		if (j == b->n || (i < a->n && a->fids[i] < b->fids[j])) {
			diff_one(d, a->fids[i], a->w[i], 0, quiet);
			i++;
		} else if (i == a->n || b->fids[j] < a->fids[i]) {
			diff_one(d, b->fids[j], 0, b->w[j], quiet);
			j++;
		} else {
			diff_one(d, a->fids[i], a->w[i], b->w[j], quiet);
			i++;
			j++;
		}
	}
}

/* ps-ckpt diff: changed weights, then a summary. */
int
cmd_diff(int argc, char **argv)
{
	struct diff_sum d = { 0 };
	struct ps_model a, b;
	int quiet = 0;

	while (ckpt_getopt(argc, argv, "+hq", NULL) != -1)
		quiet = 1;
	if (argc - optind != 2)
		usage(EX_USAGE);
	load_or_exit(1, argv + optind, &a, NULL, 0);
	load_or_exit(1, argv + optind + 1, &b, NULL, 0);
	diff_walk(&a, &b, quiet, &d);
	finish_stdout();	/* the rows before the summary on stderr */
	fprintf(quiet ? stdout : stderr, "changed\t%zu\nl2_distance\t%.17g\n"
	    "max_abs_distance\t%.17g\nnnz_a\t%zu\nnnz_b\t%zu\n", d.changed,
	    sqrt(d.l2), d.maxabs, d.nnz_a, d.nnz_b);
	ps_model_release(&a);
	ps_model_release(&b);
	finish_stdout();
	return d.changed > 0;
}
