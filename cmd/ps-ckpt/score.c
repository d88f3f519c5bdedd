/*
 * score.c: ps-ckpt predict (the probability of the positive class for
 * each libsvm row) and eval (AUC, log loss and accuracy over labelled
 * rows).
 *
 * A row's margin is m = w.x summed in double in the row's feature order,
 * as LIBLINEAR's predict_values does (features the model lacks, or beyond
 * it, count 0), and P(y = +1) = 1 / (1 + exp(-m)); the predicted label is
 * +1 where m > 0.  So `predict -l` prints what `liblinear-predict -b 1`
 * prints for the model's `export -f liblinear`.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "algo/metrics.h"
#include "ckpt.h"
#include "data/libsvm.h"
#include "util/atomicfile.h"
#include "util/parsenum.h"
#include "util/xmalloc.h"

/* Called with each row and its margin. */
typedef void (*row_fn)(void *arg, const struct ps_libsvm_row *row,
    double margin);

/* w.x: each of the row's ascending ids searched above the last found. */
static double
row_margin(const struct ps_model *m, const struct ps_libsvm_row *row)
{
	size_t j, lo = 0, hi, mid;
	double s = 0;

	for (j = 0; j < row->nnz && lo < m->n; j++) {
		for (hi = m->n; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (m->fids[mid] < row->fid[j])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < m->n && m->fids[lo] == row->fid[j])
			s += (double)m->w[lo] * (double)row->val[j];
	}
	return s;
}

/*
 * Call fn for every row of path ("-" is stdin).  Returns 0, or an exit
 * status (65 bad row, 66 cannot open, 74 cannot read) with the message.
 */
static int
score_file(const struct ps_model *m, const char *path,
    const struct ps_libsvm_opts *o, row_fn fn, void *arg, char *err,
    size_t errlen)
{
	struct ps_libsvm_reader *r;
	struct ps_libsvm_row row;
	int rc;

	if ((r = ps_libsvm_open(path, o, err, errlen)) == NULL)
		return EX_NOINPUT;
	while ((rc = ps_libsvm_next(r, &row, err, errlen)) == 1)
		fn(arg, &row, row_margin(m, &row));
	ps_libsvm_close(r);
	if (rc == PS_LIBSVM_EDATA)
		return EX_DATAERR;
	if (rc == PS_LIBSVM_EIO)
		return EX_IOERR;
	return 0;
}

/* score_file over every input (stdin when there is none). */
static int
score_all(const struct ps_model *m, int n, char **paths,
    const struct ps_libsvm_opts *o, row_fn fn, void *arg, char *err,
    size_t errlen)
{
	char *in[] = { "-" };
	int i, rc = 0;

	if (n == 0) {
		paths = in;
		n = 1;
	}
	for (i = 0; i < n && rc == 0; i++)
		rc = score_file(m, paths[i], o, fn, arg, err, errlen);
	return rc;
}

/* The options predict and eval share; the rest go to other(). */
static void
score_options(int argc, char **argv, const char *optstring,
    struct ps_libsvm_opts *o, void (*other)(int ch, void *arg), void *arg)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "positive", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	memset(o, 0, sizeof *o);
	while ((ch = ckpt_getopt(argc, argv, optstring, longopts)) != -1) {
		switch (ch) {
		case 'p':
			if (ps_parsenum_double(optarg, optarg + strlen(optarg),
			    NULL, &o->positive) != PS_NUM_OK) {
				warnx("invalid label '%s'", optarg);
				usage(EX_USAGE);
			}
			o->has_positive = 1;
			break;
		default:
			other(ch, arg);
		}
	}
	if (argc - optind < 1)
		usage(EX_USAGE);
}

struct predict {
	const char	*out;		/* -o, or NULL */
	int		 liblinear;	/* -l */
	FILE		*fp;
};

/* predict's own options. */
static void
predict_option(int ch, void *arg)
{
	struct predict *p = arg;

	if (ch == 'l')
		p->liblinear = 1;
	else
		p->out = optarg;
}

/* One row's prediction. */
static void
predict_row(void *arg, const struct ps_libsvm_row *row, double margin)
{
	struct predict *p = arg;
	double prob = 1 / (1 + exp(-margin));

	if (p->liblinear)
		fprintf(p->fp, "%g %g %g\n", margin > 0 ? 1.0 : -1.0, prob,
		    1. - prob);
	else
		fprintf(p->fp, "%.17g\n", prob);
}

/* ps-ckpt predict: P(y = +1) per row, or liblinear-predict -b 1's lines. */
int
cmd_predict(int argc, char **argv)
{
	struct predict p = { NULL, 0, stdout };
	struct ps_libsvm_opts o;
	struct ps_atomic *af = NULL;
	struct ps_model m;
	char msg[2048];
	int rc;

	score_options(argc, argv, "+hlo:p:", &o, predict_option, &p);
	load_or_exit(1, argv + optind, &m, NULL, 0);
	if (p.out != NULL && strcmp(p.out, "-") != 0) {
		if ((af = ps_atomic_open(p.out, msg, sizeof msg)) == NULL)
			errx(EX_CANTCREAT, "%s", msg);
		p.fp = af->fp;
	} else
		setvbuf(stdout, NULL, _IOLBF, 0);
	if (p.liblinear)
		fprintf(p.fp, "labels 1 -1\n");
	rc = score_all(&m, argc - optind - 1, argv + optind + 1, &o,
	    predict_row, &p, msg, sizeof msg);
	ps_model_release(&m);
	if (rc != 0) {
		ps_atomic_abort(af);
		errx(rc, "%s", msg);
	}
	if (af != NULL && ps_atomic_commit(af, msg, sizeof msg) != 0)
		errx(EX_CANTCREAT, "%s", msg);
	return finish_stdout();
}

struct eval {
	int		 json;
	double		*margin;
	int8_t		*y;
	size_t		 n, cap, correct, positives;
};

/* eval's own option: -j. */
static void
eval_option(int ch, void *arg)
{
	((struct eval *)arg)->json = 1;
}

/* Keep one row's margin and label. */
static void
eval_row(void *arg, const struct ps_libsvm_row *row, double margin)
{
	struct eval *e = arg;

	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 4096;
		e->margin = xreallocarray(e->margin, e->cap, sizeof *e->margin);
		e->y = xreallocarray(e->y, e->cap, sizeof *e->y);
	}
	e->margin[e->n] = margin;
	e->y[e->n++] = (int8_t)row->y;
	e->correct += (margin > 0 ? 1 : -1) == row->y;
	e->positives += row->y > 0;
}

/* A metric for JSON: null when it is not a number. */
static void
json_number(const char *key, double v, const char *sep)
{
	if (isfinite(v))
		printf("\"%s\":%.17g%s", key, v, sep);
	else
		printf("\"%s\":null%s", key, sep);
}

/* Print the metrics as key<TAB>value lines or one JSON object. */
static void
eval_print(const struct eval *e)
{
	double auc = ps_auc(e->margin, e->y, e->n);
	double logloss = ps_logloss(e->margin, e->y, e->n);
	double accuracy = (double)e->correct / (double)e->n;

	if (!e->json) {
		printf("rows\t%zu\npositives\t%zu\nauc\t%.17g\nlogloss\t%.17g\n"
		    "accuracy\t%.17g\n", e->n, e->positives, auc, logloss,
		    accuracy);
		return;
	}
	printf("{\"rows\":%zu,\"positives\":%zu,", e->n, e->positives);
	json_number("auc", auc, ",");
	json_number("logloss", logloss, ",");
	json_number("accuracy", accuracy, "}\n");
}

/* ps-ckpt eval: how well the model scores labelled rows. */
int
cmd_eval(int argc, char **argv)
{
	struct eval e = { 0 };
	struct ps_libsvm_opts o;
	struct ps_model m;
	char msg[2048];
	int rc;

	score_options(argc, argv, "+hjp:", &o, eval_option, &e);
	load_or_exit(1, argv + optind, &m, NULL, 0);
	rc = score_all(&m, argc - optind - 1, argv + optind + 1, &o,
	    eval_row, &e, msg, sizeof msg);
	ps_model_release(&m);
	if (rc != 0)
		errx(rc, "%s", msg);
	eval_print(&e);
	free(e.margin);
	free(e.y);
	return finish_stdout();
}
