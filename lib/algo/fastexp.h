/*
 * fastexp.h: exp(x), inline, for the exps of the dbpg workers' sweeps (a
 * row's e = exp(-|m|), l1lr.c; the curvature bound's exp(r), logistic.h):
 * the libm call cost them more than its arithmetic, about a sixth of a
 * worker's time on a large sparse set (tests/bench/README).  The Newton
 * workers' (newton.c: a row's loss and slope, the line search's trials)
 * too: libm's exp and log1p were an eighth of bench-newton's time on w8a.
 *
 * x = (32 k + j) ln2 / 32 + r with |r| <= ln2 / 64, so exp(x) =
 * 2^k 2^(j/32) e^r: the 32 powers 2^(j/32) are a table (correctly
 * rounded), e^r - 1 a degree-6 Taylor polynomial (the next term is below
 * 4e-18), and 2^k goes into the exponent's bits.  The result is within
 * 1 ulp of exp(x) (measured over 2e7 points), 0 below -708 (exp(-708)
 * is 3e-308, where 2^k would turn subnormal), libm's above 708 (where it
 * would overflow); NaN stays NaN.
 */
#ifndef PS_FASTEXP_H
#define PS_FASTEXP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static const double ps_fastexp_pow2[32] = {
	0x1.0000000000000p+0, 0x1.059b0d3158574p+0, 0x1.0b5586cf9890fp+0,
	0x1.11301d0125b51p+0, 0x1.172b83c7d517bp+0, 0x1.1d4873168b9aap+0,
	0x1.2387a6e756238p+0, 0x1.29e9df51fdee1p+0, 0x1.306fe0a31b715p+0,
	0x1.371a7373aa9cbp+0, 0x1.3dea64c123422p+0, 0x1.44e086061892dp+0,
	0x1.4bfdad5362a27p+0, 0x1.5342b569d4f82p+0, 0x1.5ab07dd485429p+0,
	0x1.6247eb03a5585p+0, 0x1.6a09e667f3bcdp+0, 0x1.71f75e8ec5f74p+0,
	0x1.7a11473eb0187p+0, 0x1.82589994cce13p+0, 0x1.8ace5422aa0dbp+0,
	0x1.93737b0cdc5e5p+0, 0x1.9c49182a3f090p+0, 0x1.a5503b23e255dp+0,
	0x1.ae89f995ad3adp+0, 0x1.b7f76f2fb5e47p+0, 0x1.c199bdd85529cp+0,
	0x1.cb720dcef9069p+0, 0x1.d5818dcfba487p+0, 0x1.dfc97337b9b5fp+0,
	0x1.ea4afa2a490dap+0, 0x1.f50765b6e4540p+0
};

/* exp(x) (see above). */
static inline double
ps_fastexp(double x)
{
	const double shift = 0x1.8p52;
	const double ln2hi = 0x1.62e42fefa0000p-6;	/* ln2 / 32, split */
	const double ln2lo = 0x1.cf79abc9e3b3ap-45;
	double kd, r, p, s;
	uint64_t bits;
	int32_t n, j;

	if (x < -708)
		return 0;
	if (x > 708)
		return exp(x);
	kd = x * 0x1.71547652b82fep+5 + shift;		/* 32 / ln2 */
	memcpy(&bits, &kd, sizeof bits);
	n = (int32_t)(uint32_t)bits;		/* round(32 x / ln2) */
	kd -= shift;
	r = (x - kd * ln2hi) - kd * ln2lo;
	j = n & 31;
	memcpy(&bits, &ps_fastexp_pow2[j], sizeof bits);
	bits += (uint64_t)(int64_t)((n - j) / 32) << 52;
	memcpy(&s, &bits, sizeof s);
	p = r + r * r * (0.5 + r * (1.0 / 6 + r * (1.0 / 24 +
	    r * (1.0 / 120 + r * (1.0 / 720)))));
	return s + s * p;
}

#endif
