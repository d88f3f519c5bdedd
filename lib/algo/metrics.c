/*
 * metrics.c: AUC by sorting scores (Mann-Whitney U with mid-ranks for ties)
 * and mean log loss.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "algo/logistic.h"
#include "algo/metrics.h"
#include "util/xmalloc.h"

struct scored {
	double	score;
	int8_t	y;
};

/* qsort order: ascending score. */
static int
scored_cmp(const void *a, const void *b)
{
	double x = ((const struct scored *)a)->score;
	double z = ((const struct scored *)b)->score;

	return (x > z) - (x < z);
}

double
ps_auc(const double *margin, const int8_t *y, size_t n)
{
	struct scored *s = xcalloc(n, sizeof *s);
	double npos = 0, nneg = 0, ranksum = 0;
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		s[i].score = margin[i];
		s[i].y = y[i];
	}
	qsort(s, n, sizeof *s, scored_cmp);
	for (i = 0; i < n; i = j) {
		double pos_in_tie = 0, midrank;

		for (j = i; j < n && s[j].score == s[i].score; j++)
			;
		for (k = i; k < j; k++)
			pos_in_tie += s[k].y > 0;
		midrank = (double)(i + 1 + j) / 2;	/* ranks are 1-based */
		ranksum += pos_in_tie * midrank;
		npos += pos_in_tie;
		nneg += (double)(j - i) - pos_in_tie;
	}
	free(s);
	if (npos == 0 || nneg == 0)
		return NAN;
	return (ranksum - npos * (npos + 1) / 2) / (npos * nneg);
}

double
ps_logloss(const double *margin, const int8_t *y, size_t n)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += ps_logistic_loss(y[i] * margin[i]);
	return n > 0 ? sum / (double)n : NAN;
}
