/*
 * ps-gen-libsvm.c: write a synthetic, non-separable binary classification
 * set in libsvm format to stdout, fast and in O(features) memory, for
 * benchmarks that need more rows than the real data sets have.
 *
 * The model behind the data:
 *  1. Feature popularity follows a power law: rank r (0-based) is drawn with
 *     probability proportional to 1 / (r + 1)^a (struct ps_zipf), and ranks
 *     map to feature ids through a seeded permutation, so the frequent
 *     features are spread over the id range.
 *  2. Every row has exactly z distinct features, printed in ascending order.
 *     Values are lognormal-ish (exp of 0.5 times a standardised sum of eight
 *     random bytes, read from a table) and each row is scaled to unit L2 norm unless
 *     -U is given.
 *  3. A planted weight vector w* has k non-zeros, half on frequent ranks and
 *     half on ranks drawn uniformly (mostly rare features).
 *  4. The label is sign(<w*, x> + n * L) with L standard logistic noise, so
 *     P(y = +1 | x) = 1 / (1 + exp(-<w*, x> / n)); n = 0 gives separable data.
 *  5. With -c p, each feature of a row after its first is, with probability
 *     p, a neighbour (rank 1 to 4 away) of one the row already has instead
 *     of a fresh draw, so features come in groups that occur together, like
 *     the nearby pixels of an image; their values are all positive, so such
 *     columns are strongly correlated and the problem ill-conditioned.
 *     p = 0 (the default) draws nothing more: the output is as without -c.
 * The output depends only on the options: same options, same bytes.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "util/usage.h"
#include "util/xmalloc.h"

#define PS_GEN_MAX_FEATURES	(1U << 30)
#define PS_GEN_OUTBUF		(1 << 20)
#define PS_GEN_MAXFIELD		64	/* longest " id:value" or label we print */
#define PS_GEN_HEAD		(1U << 16)	/* ranks in the alias table */
#define PS_GEN_LEVELS		(8 * 255 + 1)	/* sums of eight bytes */

/* xoshiro256** state (Blackman and Vigna), seeded through splitmix64. */
struct ps_rng {
	uint64_t	s[4];
};

/* What the generator knows about one rank. */
struct ps_gen_rank {
	uint32_t	id;		/* its feature id, 1-based */
	float		w;		/* the planted weight, often 0 */
};

/* A Walker/Vose alias slot: keep its rank if the low word < thresh. */
struct ps_alias_slot {
	uint32_t	thresh;
	uint32_t	alias;
};

/*
 * Power-law sampler over ranks 0 .. n-1 with weights (r + 1)^-a.  Most draws
 * hit the first `head` ranks: those go through an alias table small enough
 * to stay in cache.  The rare rest (tail_p of the mass) inverts the
 * continuous density x^-a on [head + 1, n + 1), so a draw costs no random
 * memory access however many features there are.
 */
struct ps_zipf {
	struct ps_alias_slot *slot;	/* head entries */
	uint32_t	 head;
	uint32_t	 n;
	double		 tail_p;
	double		 lo, span;	/* tail: x = g^-1(lo + u * span) */
	double		 inv;		/* 1 / (1 - a), or 0 when g is log */
};

/* One feature of the row being built. */
struct ps_gen_ent {
	uint32_t	id;
	uint32_t	rank;
	float		w;
};

/* Buffered stdout: the buffer is owned here and freed by ps_out_close. */
struct ps_out {
	char		*buf;
	size_t		 len;
};

struct ps_gen_conf {
	uint64_t	rows;
	uint64_t	seed;
	uint32_t	features;
	uint32_t	z;
	uint32_t	k;
	double		noise;
	double		exponent;
	double		corr;		/* -c: chance of a neighbour pick */
	int		raw;		/* -U: keep values, no unit norm */
};

/* Everything one run needs; ps_gen_init allocates, ps_gen_free frees. */
struct ps_gen {
	struct ps_gen_conf conf;
	struct ps_rng	 rng;
	struct ps_zipf	 zipf;
	struct ps_gen_rank *rank;	/* indexed by rank */
	struct ps_gen_ent *ent;		/* the current row's features */
	double		*vals;		/* and their values */
	uint32_t	*seen;		/* hash set of the row's ids, 0 = free */
	uint32_t	 seen_bits;	/* it has 2^seen_bits slots */
	double		 level[PS_GEN_LEVELS];	/* byte sum -> raw value */
	uint64_t	 nnz;
	uint64_t	 positives;
	struct ps_out	 out;
};

static const char usage_text[] =
"usage: ps-gen-libsvm [-hUV] [-a exponent] [-c p] [-f features]\n"
"                     [-k planted_nnz] [-n noise] [-r rows] [-s seed]\n"
"                     [-z nnz_per_row]\n";

/* Print the usage (and the option list when asked for help), then exit. */
static void
usage(int status)
{
	ps_usage(status, usage_text, "\n"
	    "  -r, --rows n           rows to write (default 1000)\n"
	    "  -f, --features n       feature ids 1 .. n (default 10000)\n"
	    "  -z, --nnz n            distinct features per row (default 10)\n"
	    "  -k, --planted n        non-zeros of the true weights (default 100)\n"
	    "  -n, --noise x          scale of the logistic label noise, 0 = separable (default 1)\n"
	    "  -a, --exponent x       power-law exponent of feature popularity (default 1.1)\n"
	    "  -c, --correlated p     chance that a row's next feature neighbours one it\n"
	    "                         has (features in correlated groups; default 0)\n"
	    "  -s, --seed n           seed; equal options give equal output (default 1)\n"
	    "  -U, --raw              do not scale rows to unit L2 norm\n"
	    "  -V, --version          print the version and exit\n"
	    "  -h, --help             print this help and exit\n"
	    "\nExamples: ps-gen-libsvm -r 1000000 -f 1000000 -z 10 > gen.libsvm\n"
	    "          ps-gen-libsvm -r 60000 -f 784 -z 200 -c 0.5 > dense.libsvm\n");
}

/* splitmix64 step, used to expand the seed. */
static uint64_t
ps_rng_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Seed the generator from a 64-bit value. */
static void
ps_rng_seed(struct ps_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = ps_rng_splitmix(&seed);
}

/* Rotate left. */
static inline uint64_t
ps_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Next 64 random bits (xoshiro256**). */
static inline uint64_t
ps_rng_next(struct ps_rng *r)
{
	uint64_t *s = r->s, res = ps_rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = ps_rng_rotl(s[3], 45);
	return res;
}

/* Uniform double in the open interval (0, 1). */
static inline double
ps_rng_open01(struct ps_rng *r)
{
	return ((double)(ps_rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

/* Uniform integer in [0, n) for n < 2^32 (Lemire's multiply-shift). */
static inline uint32_t
ps_rng_below(struct ps_rng *r, uint32_t n)
{
	return (uint32_t)(((ps_rng_next(r) >> 32) * n) >> 32);
}

/* Alias table of weights q[0 .. n-1] that sum to n (Vose's method). */
static struct ps_alias_slot *
ps_alias_build(double *q, uint32_t n)
{
	struct ps_alias_slot *t = xreallocarray(NULL, n, sizeof *t);
	uint32_t *work = xreallocarray(NULL, n, sizeof *work);
	uint32_t i, ns = 0, nl = n, s, l;

	/* Small entries fill work[] from the front, large ones from the back. */
	for (i = 0; i < n; i++) {
		t[i].alias = i;
		t[i].thresh = UINT32_MAX;
		if (q[i] < 1)
			work[ns++] = i;
		else
			work[--nl] = i;
	}
	while (ns > 0 && nl < n) {
		s = work[--ns];
		l = work[nl];
		t[s].thresh = (uint32_t)(q[s] * 4294967296.0);
		t[s].alias = l;
		q[l] -= 1 - q[s];
		if (q[l] < 1) {
			nl++;
			work[ns++] = l;
		}
	}
	/* What is left has weight 1 up to rounding: keeps itself. */
	free(work);
	return t;
}

/* The tail's integrand g: log x for a = 1, else x^(1 - a). */
static double
ps_zipf_g(double x, double a)
{
	return fabs(1 - a) < 1e-9 ? log(x) : pow(x, 1 - a);
}

/* Set up the sampler over n ranks with exponent a. */
static void
ps_zipf_init(struct ps_zipf *z, uint32_t n, double a)
{
	uint32_t i, h = n < PS_GEN_HEAD ? n : PS_GEN_HEAD;
	double *q = xreallocarray(NULL, h, sizeof *q), head = 0, tail = 0;

	z->n = n;
	z->head = h;
	for (i = 0; i < h; i++)
		head += q[i] = pow((double)i + 1, -a);
	for (i = h; i < n; i++)
		tail += pow((double)i + 1, -a);
	for (i = 0; i < h; i++)
		q[i] *= h / head;
	z->slot = ps_alias_build(q, h);
	free(q);
	z->tail_p = tail / (head + tail);
	z->inv = fabs(1 - a) < 1e-9 ? 0 : 1 / (1 - a);
	z->lo = ps_zipf_g((double)h + 1, a);
	z->span = ps_zipf_g((double)n + 1, a) - z->lo;
}

/* Draw one rank. */
static inline uint32_t
ps_zipf_draw(const struct ps_zipf *z, struct ps_rng *r)
{
	uint64_t x;
	uint32_t i;
	double t;

	if (z->tail_p > 0 && ps_rng_open01(r) < z->tail_p) {
		t = z->lo + ps_rng_open01(r) * z->span;
		t = z->inv == 0 ? exp(t) : pow(t, z->inv);
		i = t < (double)z->n + 1 ? (uint32_t)t - 1 : z->n - 1;
		return i < z->head ? z->head : i;
	}
	x = ps_rng_next(r);
	i = (uint32_t)(((x >> 32) * z->head) >> 32);
	return (uint32_t)x < z->slot[i].thresh ? i : z->slot[i].alias;
}

/* Write out the buffer; exit 74 on a write error. */
static void
ps_out_flush(struct ps_out *o)
{
	if (o->len > 0 && fwrite(o->buf, 1, o->len, stdout) != o->len)
		err(EX_IOERR, "cannot write to stdout");
	o->len = 0;
}

/* Make room for one more field. */
static inline char *
ps_out_reserve(struct ps_out *o)
{
	if (o->len + PS_GEN_MAXFIELD > PS_GEN_OUTBUF)
		ps_out_flush(o);
	return o->buf + o->len;
}

static const char ps_fmt_pairs[] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

/* Format an unsigned integer at p; return the number of characters. */
static inline size_t
ps_fmt_uint(char *p, uint64_t x)
{
	char tmp[24], *t = tmp + sizeof tmp;
	size_t n, i;

	while (x >= 100) {
		t -= 2;
		memcpy(t, ps_fmt_pairs + 2 * (x % 100), 2);
		x /= 100;
	}
	if (x >= 10) {
		t -= 2;
		memcpy(t, ps_fmt_pairs + 2 * x, 2);
	} else
		*--t = (char)('0' + x);
	n = (size_t)(tmp + sizeof tmp - t);
	for (i = 0; i < n; i++)
		p[i] = t[i];
	return n;
}

/*
 * Format a positive value below 1e12 with six significant digits, no
 * exponent and no trailing zeros; never prints 0.  The digits of the
 * scaled integer are printed once and the point is placed among them, so
 * there is no division by a variable power of ten.  Returns the length.
 */
static size_t
ps_fmt_value(char *p, double v)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17 };
	char dig[24];
	size_t d = 0, nd, ip, len, i, z;
	uint64_t n;

	while (d < 17 && v * p10[d] < 1e5)
		d++;
	n = (uint64_t)(v * p10[d] + 0.5);
	nd = ps_fmt_uint(dig, n == 0 ? 1 : n);
	while (d > 0 && dig[nd - 1] == '0') {
		nd--;
		d--;
	}
	/* nd - d digits before the point, or "0." and d - nd zeros. */
	ip = nd > d ? nd - d : 0;
	len = 0;
	if (d > 0 && ip == 0)
		p[len++] = '0';
	for (i = 0; i < nd; i++) {
		if (i == ip && d > 0) {
			p[len++] = '.';
			for (z = nd; z < d; z++)
				p[len++] = '0';
		}
		p[len++] = dig[i];
	}
	return len;
}

/* Plant k non-zero weights: even picks among frequent ranks, odd anywhere. */
static void
ps_gen_plant(struct ps_gen *g)
{
	const struct ps_gen_conf *c = &g->conf;
	struct ps_gen_rank *s;
	uint32_t i, head;
	double mag = c->raw ? 1 : sqrt((double)c->z), u;

	head = c->k > c->features / 4 ? c->features : 4 * c->k;
	for (i = 0; i < c->k; i++) {
		do {
			s = &g->rank[ps_rng_below(&g->rng,
			    i % 2 == 0 ? head : c->features)];
		} while (s->w != 0);
		u = ps_rng_open01(&g->rng);
		s->w = (float)(mag * (0.5 + 1.5 * u));
		if (ps_rng_next(&g->rng) >> 63)
			s->w = -s->w;
	}
}

/* Allocate the tables and draw the permutation and the planted weights. */
static void
ps_gen_init(struct ps_gen *g, const struct ps_gen_conf *c)
{
	uint32_t i, j, tmp;

	memset(g, 0, sizeof *g);
	g->conf = *c;
	ps_rng_seed(&g->rng, c->seed);
	g->rank = xcalloc(c->features, sizeof *g->rank);
	for (i = 0; i < c->features; i++)
		g->rank[i].id = i + 1;
	for (i = c->features - 1; i > 0; i--) {
		j = ps_rng_below(&g->rng, i + 1);
		tmp = g->rank[i].id;
		g->rank[i].id = g->rank[j].id;
		g->rank[j].id = tmp;
	}
	ps_zipf_init(&g->zipf, c->features, c->exponent);
	/* A byte sum has mean 1020 and variance 8 * (256^2 - 1) / 12. */
	for (i = 0; i < PS_GEN_LEVELS; i++)
		g->level[i] = exp(0.5 * ((double)i - 1020) /
		    sqrt(8 * 65535 / 12.0));
	g->ent = xreallocarray(NULL, c->z, sizeof *g->ent);
	g->vals = xreallocarray(NULL, c->z, sizeof *g->vals);
	g->seen_bits = 1;
	while ((1U << g->seen_bits) < 2 * c->z)
		g->seen_bits++;
	g->seen = xcalloc((size_t)1 << g->seen_bits, sizeof *g->seen);
	g->out.buf = xmalloc(PS_GEN_OUTBUF);
	ps_gen_plant(g);
}

/* Free what ps_gen_init allocated. */
static void
ps_gen_free(struct ps_gen *g)
{
	free(g->zipf.slot);
	free(g->rank);
	free(g->ent);
	free(g->seen);
	free(g->vals);
	free(g->out.buf);
}

/* Compare two row entries by feature id for qsort. */
static int
ps_gen_cmp_id(const void *a, const void *b)
{
	uint32_t x = ((const struct ps_gen_ent *)a)->id;
	uint32_t y = ((const struct ps_gen_ent *)b)->id;

	return (x > y) - (x < y);
}

/* Sort the row by id: insertion sort for the usual short rows. */
static void
ps_gen_sort(struct ps_gen_ent *e, uint32_t n)
{
	struct ps_gen_ent x;
	uint32_t i, j;

	if (n > 32) {
		qsort(e, n, sizeof *e, ps_gen_cmp_id);
		return;
	}
	for (i = 1; i < n; i++) {
		x = e[i];
		for (j = i; j > 0 && e[j - 1].id > x.id; j--)
			e[j] = e[j - 1];
		e[j] = x;
	}
}

/* Add id to the row's set; return 0 if it was already there. */
static inline int
ps_gen_seen_add(struct ps_gen *g, uint32_t id)
{
	uint32_t mask = (1U << g->seen_bits) - 1;
	uint32_t h = (id * 0x9e3779b1U) >> (32 - g->seen_bits);

	while (g->seen[h] != 0) {
		if (g->seen[h] == id)
			return 0;
		h = (h + 1) & mask;
	}
	g->seen[h] = id;
	return 1;
}

/*
 * The rank of the row's next feature: a power-law draw, or (-c) a
 * neighbour of one of its n features so far.
 */
static uint32_t
ps_gen_next_rank(struct ps_gen *g, uint32_t n)
{
	uint32_t f = g->conf.features, parent, step;

	if (g->conf.corr > 0 && n > 0 && ps_rng_open01(&g->rng) < g->conf.corr) {
		parent = g->ent[ps_rng_below(&g->rng, n)].rank;
		step = 1 + ps_rng_below(&g->rng, 4);
		if (ps_rng_next(&g->rng) >> 63)
			return parent + step < f ? parent + step : parent;
		return parent >= step ? parent - step : parent;
	}
	return ps_zipf_draw(&g->zipf, &g->rng);
}

/*
 * Pick the row's z distinct ids by power-law draws (or neighbours, -c);
 * when those keep hitting ids already taken (z close to the number of
 * features), finish with uniform draws so the row always completes.
 */
static void
ps_gen_pick(struct ps_gen *g)
{
	uint32_t n = 0, z = g->conf.z, rank;
	uint64_t tries = 0, budget = 8 * (uint64_t)z + 64;
	const struct ps_gen_rank *s;

	memset(g->seen, 0, ((size_t)1 << g->seen_bits) * sizeof *g->seen);
	while (n < z) {
		if (tries++ < budget)
			rank = ps_gen_next_rank(g, n);
		else
			rank = ps_rng_below(&g->rng, g->conf.features);
		s = &g->rank[rank];
		if (!ps_gen_seen_add(g, s->id))
			continue;
		g->ent[n].id = s->id;
		g->ent[n].rank = rank;
		g->ent[n++].w = s->w;
	}
	ps_gen_sort(g->ent, z);
}

/* Draw the values (unit norm unless raw) and return the margin <w*, x>. */
static double
ps_gen_values(struct ps_gen *g)
{
	uint32_t i, z = g->conf.z;
	uint64_t x;
	double norm = 0, dot = 0, scale = 1;

	for (i = 0; i < z; i++) {
		/* Sum the eight bytes: pairs into 16-bit lanes, then lanes. */
		x = ps_rng_next(&g->rng);
		x = (x & 0x00ff00ff00ff00ffULL) + ((x >> 8) & 0x00ff00ff00ff00ffULL);
		g->vals[i] = g->level[(x * 0x0001000100010001ULL) >> 48];
		norm += g->vals[i] * g->vals[i];
	}
	if (!g->conf.raw)
		scale = 1 / sqrt(norm);
	for (i = 0; i < z; i++) {
		g->vals[i] *= scale;
		dot += g->ent[i].w * g->vals[i];
	}
	return dot;
}

/* Label from the margin plus logistic noise: +1 or -1, a coin on a tie. */
static int
ps_gen_label(struct ps_gen *g, double margin)
{
	double u;

	if (g->conf.noise > 0) {
		u = ps_rng_open01(&g->rng);
		margin += g->conf.noise * log(u / (1 - u));
	}
	if (margin == 0)
		return ps_rng_next(&g->rng) >> 63 ? 1 : -1;
	return margin > 0 ? 1 : -1;
}

/* Generate and buffer one row. */
static void
ps_gen_row(struct ps_gen *g)
{
	struct ps_out *o = &g->out;
	uint32_t i;
	char *p;
	int y;

	ps_gen_pick(g);
	y = ps_gen_label(g, ps_gen_values(g));
	g->positives += y > 0;
	p = ps_out_reserve(o);
	memcpy(p, y > 0 ? "+1" : "-1", 2);
	o->len += 2;
	for (i = 0; i < g->conf.z; i++) {
		p = ps_out_reserve(o);
		p[0] = ' ';
		o->len += 1 + ps_fmt_uint(p + 1, g->ent[i].id);
		o->buf[o->len++] = ':';
		o->len += ps_fmt_value(o->buf + o->len, g->vals[i]);
	}
	o->buf[o->len++] = '\n';
	g->nnz += g->conf.z;
}

/* Parse an unsigned number in [lo, hi] for option opt, or exit 64. */
static uint64_t
ps_gen_num(int opt, const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 ||
	    v < lo || v > hi) {
		warnx("-%c: '%s' is not a number in %" PRIu64 "..%" PRIu64,
		    opt, s, lo, hi);
		usage(EX_USAGE);
	}
	return v;
}

/* Parse a real number in [lo, hi] for option opt, or exit 64. */
static double
ps_gen_real(int opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || !(v >= lo && v <= hi)) {
		warnx("-%c: '%s' is not a number in %g..%g", opt, s, lo, hi);
		usage(EX_USAGE);
	}
	return v;
}

/* Parse the command line into c; exit 64 on a bad one. */
static void
ps_gen_options(int argc, char **argv, struct ps_gen_conf *c)
{
	static const struct option longopts[] = {
		{ "exponent", required_argument, NULL, 'a' },
		{ "correlated", required_argument, NULL, 'c' },
		{ "features", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "planted", required_argument, NULL, 'k' },
		{ "noise", required_argument, NULL, 'n' },
		{ "rows", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "raw", no_argument, NULL, 'U' },
		{ "version", no_argument, NULL, 'V' },
		{ "nnz", required_argument, NULL, 'z' },
		{ NULL, 0, NULL, 0 }
	};
	const char *zarg = NULL, *karg = NULL;
	int ch;

	*c = (struct ps_gen_conf){ .rows = 1000, .seed = 1, .features = 10000,
	    .noise = 1, .exponent = 1.1 };
	while ((ch = getopt_long(argc, argv, "a:c:f:hk:n:r:s:UVz:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'a': c->exponent = ps_gen_real(ch, optarg, 0, 4); break;
		case 'c': c->corr = ps_gen_real(ch, optarg, 0, 1); break;
		case 'f': c->features = (uint32_t)ps_gen_num(ch, optarg, 1,
		    PS_GEN_MAX_FEATURES); break;
		case 'h': usage(0); break;
		case 'k': karg = optarg; break;
		case 'n': c->noise = ps_gen_real(ch, optarg, 0, 1e6); break;
		case 'r': c->rows = ps_gen_num(ch, optarg, 0, UINT64_MAX / 2);
		    break;
		case 's': c->seed = ps_gen_num(ch, optarg, 0, UINT64_MAX); break;
		case 'U': c->raw = 1; break;
		case 'V': printf("ps-gen-libsvm %s\n", PACKAGE_VERSION); exit(0);
		case 'z': zarg = optarg; break;
		default: usage(EX_USAGE);
		}
	}
	if (optind != argc)
		usage(EX_USAGE);
	/* -z and -k default to 10 and 100 but never above -f. */
	c->z = zarg ? (uint32_t)ps_gen_num('z', zarg, 1, c->features) :
	    (c->features < 10 ? c->features : 10);
	c->k = karg ? (uint32_t)ps_gen_num('k', karg, 0, c->features) :
	    (c->features < 100 ? c->features : 100);
}

int
main(int argc, char **argv)
{
	struct ps_gen_conf conf;
	struct ps_gen g;
	uint64_t r;

	ps_gen_options(argc, argv, &conf);
	ps_gen_init(&g, &conf);
	for (r = 0; r < conf.rows; r++)
		ps_gen_row(&g);
	ps_out_flush(&g.out);
	if (fflush(stdout) != 0 || ferror(stdout))
		err(EX_IOERR, "cannot write to stdout");
	fprintf(stderr, "ps-gen-libsvm: %" PRIu64 " rows, %" PRIu32
	    " features, %" PRIu64 " nnz, %" PRIu64 " positives\n",
	    conf.rows, conf.features, g.nnz, g.positives);
	ps_gen_free(&g);
	return 0;
}
