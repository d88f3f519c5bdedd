/*
 * show.c: ps-ckpt info (a model's summary), dump (its non-zero weights)
 * and export (a LIBLINEAR model file or the same TSV as dump).  Only info
 * shows a format 2 model's optimiser state; the others use its weights,
 * and keys with state but weight 0 are absent from dump as any zero is.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "algo/ftrl.h"
#include "ckpt.h"
#include "util/atomicfile.h"
#include "util/parsenum.h"

/* ps-ckpt info: summary of a model. */
int
cmd_info(int argc, char **argv)
{
	struct ps_ckpt_source src;
	double l1 = 0, maxw = 0;
	struct ps_model m;
	size_t i, nnz = 0;

	plain_options(argc, argv);
	load_or_exit(argc - optind, argv + optind, &m, &src, 0);
	for (i = 0; i < m.n; i++) {
		double a = fabs((double)m.w[i]);

		nnz += a != 0;
		l1 += a;
		if (a > maxw)
			maxw = a;
	}
	printf("parts\t%u\nservers\t%u\niteration\t%llu\nlambda\t%.17g\n"
	    "features_stored\t%zu\nnnz\t%zu\nl1_norm\t%.17g\nmax_abs_w\t%.17g\n"
	    "ring_version\t%u\n", m.nparts, m.nservers,
	    (unsigned long long)m.iteration, m.lambda, m.n, nnz, l1, maxw,
	    m.ring_version);
	printf("format\t%u\n", m.format);
	if (m.format == PS_MODEL_FORMAT2)
		printf("optimizer\t%s\nepochs\t%.17g\n",
		    ps_ftrl_name((int)m.optimizer), m.epochs);
	if (src.version != NULL)
		printf("version\t%s\n", src.version);
	ps_ckpt_source_release(&src);
	ps_model_release(&m);
	return finish_stdout();
}

/* Write the non-zero weights as feature_id<TAB>weight. */
void
write_tsv(FILE *fp, const struct ps_model *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->w[i] != 0)
			fprintf(fp, "%llu\t%.9g\n", (unsigned long long)m->fids[i],
			    (double)m->w[i]);
}

/*
 * Write a LIBLINEAR L1R_LR model with nfeat dense weights; the format is
 * what liblinear-train 2.3 writes, a space after each weight included.
 */
static void
write_liblinear(FILE *fp, const struct ps_model *m, uint64_t nfeat)
{
	uint64_t j;
	size_t k = 0;

	fprintf(fp, "solver_type L1R_LR\nnr_class 2\nlabel 1 -1\n"
	    "nr_feature %llu\nbias -1\nw\n", (unsigned long long)nfeat);
	for (j = 1; j <= nfeat; j++) {
		double w = 0;

		if (k < m->n && m->fids[k] == j)
			w = m->w[k++];
		fprintf(fp, "%.17g \n", w);
	}
}

/* ps-ckpt dump: non-zero weights on stdout. */
int
cmd_dump(int argc, char **argv)
{
	struct ps_model m;

	plain_options(argc, argv);
	load_or_exit(argc - optind, argv + optind, &m, NULL, 0);
	write_tsv(stdout, &m);
	ps_model_release(&m);
	return finish_stdout();
}

/* Write the model in the chosen format to out ("-" is stdout). */
static int
export_to(const char *out, int liblinear, const struct ps_model *m,
    uint64_t nfeat)
{
	struct ps_atomic *af = NULL;
	char msg[1024];
	FILE *fp = stdout;

	if (strcmp(out, "-") != 0) {
		if ((af = ps_atomic_open(out, msg, sizeof msg)) == NULL)
			errx(EX_CANTCREAT, "%s", msg);
		fp = af->fp;
	}
	if (liblinear)
		write_liblinear(fp, m, nfeat);
	else
		write_tsv(fp, m);
	if (af == NULL)
		return finish_stdout();
	if (ps_atomic_commit(af, msg, sizeof msg) != 0)
		errx(EX_CANTCREAT, "%s", msg);
	return 0;
}

/* Parse -n: a LIBLINEAR feature count, 0 to INT_MAX. */
static uint64_t
parse_nfeat(const char *s)
{
	uint64_t v;

	if (ps_parsenum_u64_in(s, 0, INT_MAX, &v) != PS_NUM_OK) {
		warnx("invalid nr_feature '%s'", s);
		usage(EX_USAGE);
	}
	return v;
}

/* ps-ckpt export: LIBLINEAR or TSV. */
int
cmd_export(int argc, char **argv)
{
	const char *out = "-";
	uint64_t nfeat = 0;
	struct ps_model m;
	int ch, liblinear = 1;

	while ((ch = ckpt_getopt(argc, argv, "+f:hn:o:", NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (strcmp(optarg, "liblinear") != 0 &&
			    strcmp(optarg, "tsv") != 0) {
				warnx("unknown format '%s'", optarg);
				usage(EX_USAGE);
			}
			liblinear = strcmp(optarg, "liblinear") == 0;
			break;
		case 'n':
			nfeat = parse_nfeat(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		}
	}
	load_or_exit(argc - optind, argv + optind, &m, NULL, 0);
	if (m.n > 0 && m.fids[m.n - 1] > nfeat)
		nfeat = m.fids[m.n - 1];
	if (liblinear && nfeat > INT_MAX)
		errx(EX_DATAERR, "feature id %llu is too large for liblinear",
		    (unsigned long long)nfeat);
	export_to(out, liblinear, &m, nfeat);
	ps_model_release(&m);
	return 0;
}
