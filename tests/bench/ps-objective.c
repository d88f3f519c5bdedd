/*
 * ps-objective.c: evaluate the l1-regularised logistic regression objective
 *	F(w) = sum_i log(1 + exp(-y_i <w, x_i>)) + lambda * |w|_1
 * of a LIBLINEAR model file on a libsvm data set, so that LIBLINEAR's
 * solution (which minimises |w|_1 + C * loss, i.e. lambda = 1/C) can be
 * compared with pskit's progress objective.
 *
 * Labels follow LIBLINEAR: the first label of the model's `label` line is
 * the positive class, every other label is negative.  Features beyond the
 * model's nr_feature are ignored, as liblinear-predict does.  When the model
 * has a bias term (bias >= 0) its weight is the last `w` line and it
 * contributes w_bias * bias to every margin.
 *
 * With -d it also prints a duality gap, an upper bound on F(w) - F*: the
 * dual of min F is max sum_i H(a_i) over a in [0,1]^n with
 * |sum_i y_i a_i x_ij| <= lambda for every j, H the binary entropy (in
 * nats); a_i = sigma(-y_i <w, x_i>), scaled by s = min(1, lambda /
 * max_j |sum_i y_i a_i x_ij|) to be feasible, gives a dual value D, and
 * F(w) - D >= F(w) - F* >= 0.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "util/usage.h"
#include "util/xmalloc.h"

/* A binary LIBLINEAR model; ps_objective_model_free frees w. */
struct ps_objective_model {
	double		*w;
	size_t		 nw;		/* weights read */
	size_t		 capw;
	size_t		 nr_feature;
	double		 bias;		/* < 0: no bias feature */
	double		 positive;	/* the first label */
	int		 have_label;
	int		 in_w;
};

/* Sums over the data set. */
struct ps_objective_sum {
	long double	loss;
	size_t		rows;
	size_t		correct;
	int		dual;		/* -d: keep what the dual needs */
	double		*a;		/* [rows]: sigma(-y m) */
	size_t		 capa;
	double		*g;		/* [capg]: sum_i y_i a_i x_ij, by j - 1 */
	size_t		 capg;
	unsigned long long *ri;		/* the current row's indices */
	double		*rv;		/* and values */
	size_t		 caprow;
};

static const char usage_text[] =
"usage: ps-objective [-dhV] [-l lambda] model data.libsvm\n";

/* Print the usage (and the option list when asked for help), then exit. */
static void
usage(int status)
{
	ps_usage(status, usage_text, "\n"
	    "  -d, --dual             also print a duality gap, a bound on F(w) - F*\n"
	    "  -l, --lambda x         l1 penalty (default 1; LIBLINEAR's -c is 1/lambda)\n"
	    "  -V, --version          print the version and exit\n"
	    "  -h, --help             print this help and exit\n"
	    "\nPrints a TSV header and one line: objective loss l1 nnz rows accuracy\n"
	    "(and with -d: dual dual_gap rel_dual_gap).\n"
	    "Example: liblinear-train -s 6 -c 1 a9a m && ps-objective m a9a\n");
}

/* Parse a whole-token double; return 0 on success. */
static int
ps_objective_real(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return *s == '\0' || *end != '\0' || errno == ERANGE || !isfinite(*v);
}

/* Append one weight to the model. */
static void
ps_objective_model_push(struct ps_objective_model *m, double w)
{
	if (m->nw == m->capw) {
		m->capw = m->capw ? 2 * m->capw : 1024;
		m->w = xreallocarray(m->w, m->capw, sizeof *m->w);
	}
	m->w[m->nw++] = w;
}

/* Interpret one model line; return an error message or NULL. */
static const char *
ps_objective_model_line(struct ps_objective_model *m, char *line)
{
	char *key = strtok(line, " \t\r\n"), *arg;
	double v;

	if (key == NULL)
		return NULL;
	if (m->in_w) {
		if (ps_objective_real(key, &v))
			return "bad weight";
		if (strtok(NULL, " \t\r\n") != NULL)
			return "more than one weight: not a two-class model";
		ps_objective_model_push(m, v);
		return NULL;
	}
	if (strcmp(key, "w") == 0) {
		m->in_w = 1;
		return NULL;
	}
	arg = strtok(NULL, " \t\r\n");
	if (strcmp(key, "solver_type") == 0)
		return arg == NULL ? "missing solver type" : NULL;
	if (arg == NULL || ps_objective_real(arg, &v))
		return "missing or bad number";
	if (strcmp(key, "nr_class") == 0)
		return v == 2 ? NULL : "not a two-class model";
	if (strcmp(key, "label") == 0) {
		m->positive = v;
		m->have_label = 1;
	} else if (strcmp(key, "nr_feature") == 0) {
		if (v < 0 || v > 1e12 || v != floor(v))
			return "bad nr_feature";
		m->nr_feature = (size_t)v;
	} else if (strcmp(key, "bias") == 0)
		m->bias = v;
	else
		return "unknown key";
	return NULL;
}

/* Read a LIBLINEAR model file; exit 66 or 65 on errors. */
static void
ps_objective_model_load(struct ps_objective_model *m, const char *path)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	const char *e;

	memset(m, 0, sizeof *m);
	m->bias = -1;
	if ((fp = fopen(path, "r")) == NULL)
		err(EX_NOINPUT, "cannot open '%s'", path);
	while (getline(&line, &cap, fp) != -1) {
		lineno++;
		if ((e = ps_objective_model_line(m, line)) != NULL)
			errx(EX_DATAERR, "%s:%zu: %s", path, lineno, e);
	}
	if (ferror(fp))
		err(EX_IOERR, "cannot read '%s'", path);
	fclose(fp);
	free(line);
	if (!m->in_w || !m->have_label)
		errx(EX_DATAERR, "%s: not a LIBLINEAR model (no label or w)",
		    path);
	if (m->nw != m->nr_feature + (m->bias >= 0))
		errx(EX_DATAERR, "%s: %zu weights for nr_feature %zu", path,
		    m->nw, m->nr_feature);
}

/* Keep entry k of the current row (idx, v) for the dual's gradient. */
static void
ps_objective_keep(struct ps_objective_sum *s, size_t k,
    unsigned long long idx, double v)
{
	if (k == s->caprow) {
		s->caprow = s->caprow ? 2 * s->caprow : 64;
		s->ri = xreallocarray(s->ri, s->caprow, sizeof *s->ri);
		s->rv = xreallocarray(s->rv, s->caprow, sizeof *s->rv);
	}
	s->ri[k] = idx;
	s->rv[k] = v;
}

/*
 * Margin <w, x> of one data row (after its label); NULL or an error.  With
 * -d the row's entries go to s (their count in *n).
 */
static const char *
ps_objective_margin(const struct ps_objective_model *m, char *p, double *out,
    struct ps_objective_sum *s, size_t *n)
{
	char *tok, *colon, *end;
	unsigned long long idx;
	double v, dot = 0;

	*n = 0;
	while ((tok = strtok_r(NULL, " \t\r\n", &p)) != NULL) {
		if (tok[0] == '#')
			break;
		if (strncmp(tok, "qid:", 4) == 0)
			continue;
		if ((colon = strchr(tok, ':')) == NULL)
			return "expected index:value";
		*colon = '\0';
		errno = 0;
		idx = strtoull(tok, &end, 10);
		if (tok[0] < '0' || tok[0] > '9' || *end != '\0' ||
		    errno != 0 || idx == 0)
			return "bad feature index";
		if (ps_objective_real(colon + 1, &v))
			return "bad feature value";
		if (idx <= m->nr_feature)
			dot += m->w[idx - 1] * v;
		if (s->dual)
			ps_objective_keep(s, (*n)++, idx, v);
	}
	if (m->bias >= 0)
		dot += m->w[m->nr_feature] * m->bias;
	*out = dot;
	return NULL;
}

/* The dual's share of a row with label y and y m = z, n entries kept. */
static void
ps_objective_dual_row(struct ps_objective_sum *s, int y, double z, size_t n)
{
	double a = 1 / (1 + exp(z));
	size_t k, cap;

	if (s->rows == s->capa) {
		s->capa = s->capa ? 2 * s->capa : 4096;
		s->a = xreallocarray(s->a, s->capa, sizeof *s->a);
	}
	s->a[s->rows] = a;
	for (k = 0; k < n; k++) {
		if (s->ri[k] > s->capg) {
			for (cap = s->capg ? s->capg : 1024; cap < s->ri[k];)
				cap *= 2;
			s->g = xreallocarray(s->g, cap, sizeof *s->g);
			memset(s->g + s->capg, 0, (cap - s->capg) * sizeof *s->g);
			s->capg = cap;
		}
		s->g[s->ri[k] - 1] += y * a * s->rv[k];
	}
}

/* Binary entropy in nats. */
static double
ps_objective_entropy(double a)
{
	return (a > 0 ? -a * log(a) : 0) - (a < 1 ? (1 - a) * log1p(-a) : 0);
}

/* The dual value of the scaled a (see the top of the file). */
static double
ps_objective_dual(const struct ps_objective_sum *s, double lambda)
{
	double gmax = 0, scale, d = 0;
	size_t i;

	for (i = 0; i < s->capg; i++)
		if (fabs(s->g[i]) > gmax)
			gmax = fabs(s->g[i]);
	scale = gmax > lambda ? lambda / gmax : 1;
	for (i = 0; i < s->rows; i++)
		d += ps_objective_entropy(scale * s->a[i]);
	return d;
}

/* Add one data line to the sums; NULL or an error message. */
static const char *
ps_objective_row(const struct ps_objective_model *m, char *line,
    struct ps_objective_sum *s)
{
	char *p = NULL, *tok = strtok_r(line, " \t\r\n", &p);
	double label, z;
	const char *e;
	size_t n;
	int y;

	if (tok == NULL || tok[0] == '#')
		return NULL;
	if (ps_objective_real(tok, &label))
		return "bad label";
	y = label == m->positive ? 1 : -1;
	if ((e = ps_objective_margin(m, p, &z, s, &n)) != NULL)
		return e;
	s->correct += (z > 0 ? 1 : -1) == y;
	z *= y;
	s->loss += z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z));
	if (s->dual)
		ps_objective_dual_row(s, y, z, n);
	s->rows++;
	return NULL;
}

/* Sum the loss of the model over a data file; exit 66/65/74 on errors. */
static void
ps_objective_scan(const struct ps_objective_model *m, const char *path,
    struct ps_objective_sum *s)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	const char *e;

	if (strcmp(path, "-") == 0)
		fp = stdin;
	else if ((fp = fopen(path, "r")) == NULL)
		err(EX_NOINPUT, "cannot open '%s'", path);
	while (getline(&line, &cap, fp) != -1) {
		lineno++;
		if ((e = ps_objective_row(m, line, s)) != NULL)
			errx(EX_DATAERR, "%s:%zu: %s", path, lineno, e);
	}
	if (ferror(fp))
		err(EX_IOERR, "cannot read '%s'", path);
	if (fp != stdin)
		fclose(fp);
	free(line);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dual", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "lambda", required_argument, NULL, 'l' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct ps_objective_model m;
	struct ps_objective_sum s;
	double lambda = 1, l1 = 0, f, d;
	size_t j, nnz = 0;
	int ch;

	memset(&s, 0, sizeof s);
	while ((ch = getopt_long(argc, argv, "dhl:V", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd': s.dual = 1; break;
		case 'h': usage(0); break;
		case 'l':
			if (ps_objective_real(optarg, &lambda) || lambda < 0) {
				warnx("-l: bad lambda '%s'", optarg);
				usage(EX_USAGE);
			}
			break;
		case 'V': printf("ps-objective %s\n", PACKAGE_VERSION); exit(0);
		default: usage(EX_USAGE);
		}
	}
	if (argc - optind != 2)
		usage(EX_USAGE);
	ps_objective_model_load(&m, argv[optind]);
	ps_objective_scan(&m, argv[optind + 1], &s);
	for (j = 0; j < m.nw; j++) {
		l1 += fabs(m.w[j]);
		nnz += m.w[j] != 0;
	}
	f = (double)s.loss + lambda * l1;
	printf("objective\tloss\tl1\tnnz\trows\taccuracy%s\n",
	    s.dual ? "\tdual\tdual_gap\trel_dual_gap" : "");
	printf("%.17g\t%.17g\t%.17g\t%zu\t%zu\t%.6f", f, (double)s.loss, l1,
	    nnz, s.rows, s.rows ? (double)s.correct / (double)s.rows : 0.0);
	if (s.dual) {
		d = ps_objective_dual(&s, lambda);
		printf("\t%.17g\t%.6g\t%.6g", d, f - d, (f - d) / f);
	}
	printf("\n");
	free(m.w);
	free(s.a);
	free(s.g);
	free(s.ri);
	free(s.rv);
	if (fflush(stdout) != 0 || ferror(stdout))
		err(EX_IOERR, "cannot write to stdout");
	return 0;
}
