/*
 * parsenum.c: exact decimal to float/double/uint64 conversion without strtod
 * on the common path.
 *
 * A decimal is scanned into an integer mantissa of at most 19 significant
 * digits and a power of ten.  When the mantissa is below 2^53 and the power
 * is within 10^+-22, both are exact doubles, so one IEEE multiply or divide
 * gives the correctly rounded double (Clinger's fast path).  For a float we
 * round that double once more, which is correct unless the double landed
 * exactly on a midpoint between two floats: every float midpoint is itself
 * a double and rounding is monotonic, so otherwise the double and the exact
 * value lie on the same side of every midpoint.  Short decimals take the
 * float-only fast path of parsenum.h first.  Rare inputs (long
 * mantissas, large exponents, midpoints) go to strtof/strtod on a
 * NUL-terminated copy of the text already validated here.
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/parsenum.h"
#include "util/xmalloc.h"

/* The scanner is small and hot: inline it into each parser. */
#define HOT	static inline __attribute__((always_inline))

/* A scanned decimal: value = mant * 10^exp10 (before the sign). */
struct dec {
	uint64_t	mant;
	int64_t		exp10;
	int		ndig;		/* significant digits kept in mant */
	int		truncated;	/* a non-zero digit did not fit */
	int		neg;
};

static const double pow10d[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* Fold one digit into d; frac says it comes after the decimal point. */
HOT void
dec_digit(struct dec *d, unsigned c, int frac)
{
	if (d->ndig == 0 && c == 0) {
		if (frac)
			d->exp10--;
		return;
	}
	if (d->ndig < 19) {
		d->mant = d->mant * 10 + c;
		d->ndig++;
		if (frac)
			d->exp10--;
		return;
	}
	if (c != 0)
		d->truncated = 1;
	if (!frac)
		d->exp10++;
}

/* Scan a decimal at p; return the byte after it or NULL if there is none. */
HOT const char *
dec_scan(const char *p, const char *end, struct dec *d)
{
	const char *q = p, *r;
	int64_t x = 0;
	int any = 0, eneg = 0;

	memset(d, 0, sizeof *d);
	if (q < end && (*q == '+' || *q == '-'))
		d->neg = *q++ == '-';
	for (; q < end && (unsigned)(*q - '0') < 10; q++, any = 1)
		dec_digit(d, (unsigned)(*q - '0'), 0);
	if (q < end && *q == '.')
		for (q++; q < end && (unsigned)(*q - '0') < 10; q++, any = 1)
			dec_digit(d, (unsigned)(*q - '0'), 1);
	if (!any)
		return NULL;
	if (q < end && (*q == 'e' || *q == 'E')) {
		r = q + 1;
		if (r < end && (*r == '+' || *r == '-'))
			eneg = *r++ == '-';
		if (r < end && (unsigned)(*r - '0') < 10) {
			for (; r < end && (unsigned)(*r - '0') < 10; r++)
				if (x < 1000000)
					x = x * 10 + (*r - '0');
			d->exp10 += eneg ? -x : x;
			q = r;
		}
	}
	return q;
}

/*
 * The common case in one tight loop: at most 19 digits (leading zeros
 * included), an optional '.', no exponent.  Fills d and returns the byte
 * after the number, or NULL to leave the input to dec_scan().
 */
HOT const char *
dec_simple(const char *p, const char *end, struct dec *d)
{
	const char *q = p, *digits;
	uint64_t m = 0;
	unsigned c;
	int frac = 0;

	d->neg = 0;
	if (q < end && (*q == '+' || *q == '-'))
		d->neg = *q++ == '-';
	digits = q;
	for (; q < end && (c = (unsigned)(*q - '0')) < 10; q++)
		m = m * 10 + c;
	if (q < end && *q == '.') {
		digits++;
		for (q++; q < end && (c = (unsigned)(*q - '0')) < 10; q++) {
			m = m * 10 + c;
			frac++;
		}
	}
	if (q == digits || q - digits > 19 ||
	    (q < end && (*q == 'e' || *q == 'E')))
		return NULL;
	d->mant = m;
	d->exp10 = -frac;
	d->ndig = 1;
	d->truncated = 0;
	return q;
}

/* Scan and check what follows; PS_NUM_OK with *q past the number. */
HOT int
dec_take(const char *p, const char *end, const char **stop, struct dec *d,
    const char **q)
{
	if ((*q = dec_simple(p, end, d)) == NULL)
		*q = dec_scan(p, end, d);
	if (*q == NULL)
		return PS_NUM_BAD;
	if (stop != NULL)
		*stop = *q;
	else if (*q != end)
		return PS_NUM_BAD;
	return PS_NUM_OK;
}

/* Clinger's fast path: the exact double, or 0 if it does not apply. */
HOT int
dec_fast(const struct dec *d, double *out)
{
	double v;

	if (d->truncated || d->mant >= (UINT64_C(1) << 53) ||
	    d->exp10 < -22 || d->exp10 > 22)
		return 0;
	v = (double)d->mant;
	v = d->exp10 < 0 ? v / pow10d[-d->exp10] : v * pow10d[d->exp10];
	*out = d->neg ? -v : v;
	return 1;
}

/* Whether double v lies exactly halfway between two adjacent floats. */
static int
float_midpoint(double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof bits);
	return (bits & UINT64_C(0x1fffffff)) == UINT64_C(0x10000000);
}

/* strtof or strtod (isfloat) on a NUL-terminated copy of [p, q). */
static int
slow_path(const char *p, const char *q, int isfloat, double *out)
{
	char small[128], *buf = small;
	size_t len = (size_t)(q - p);
	double v;

	if (len >= sizeof small)
		buf = xmalloc(len + 1);
	memcpy(buf, p, len);
	buf[len] = '\0';
	errno = 0;
	v = isfloat ? (double)strtof(buf, NULL) : strtod(buf, NULL);
	if (buf != small)
		free(buf);
	if (isinf(v))
		return PS_NUM_RANGE;
	*out = v;
	return PS_NUM_OK;
}

int
ps_parsenum_float(const char *p, const char *end, const char **stop,
    float *out)
{
	struct dec d;
	const char *q;
	double v;
	float f;
	int rc;

	if (ps_parsenum_float_short(p, end, &q, &f) &&
	    (stop != NULL || q == end)) {
		if (stop != NULL)
			*stop = q;
		*out = f;
		return PS_NUM_OK;
	}
	if ((rc = dec_take(p, end, stop, &d, &q)) != PS_NUM_OK)
		return rc;
	if (d.mant == 0 && !d.truncated) {
		*out = d.neg ? -0.0f : 0.0f;
		return PS_NUM_OK;
	}
	if (dec_fast(&d, &v) && !float_midpoint(v)) {
		*out = (float)v;
		return PS_NUM_OK;
	}
	if ((rc = slow_path(p, q, 1, &v)) == PS_NUM_OK)
		*out = (float)v;
	return rc;
}

int
ps_parsenum_double(const char *p, const char *end, const char **stop,
    double *out)
{
	struct dec d;
	const char *q;
	int rc;

	if ((rc = dec_take(p, end, stop, &d, &q)) != PS_NUM_OK)
		return rc;
	if (dec_fast(&d, out))
		return PS_NUM_OK;
	return slow_path(p, q, 0, out);
}

int
ps_parsenum_u64(const char *p, const char *end, const char **stop,
    uint64_t *out)
{
	const char *q = p;
	uint64_t v = 0;
	unsigned c;

	for (; q < end && (c = (unsigned)(*q - '0')) < 10 && q - p < 19; q++)
		v = v * 10 + c;		/* 19 digits cannot overflow */
	for (; q < end && (c = (unsigned)(*q - '0')) < 10; q++) {
		if (v > (UINT64_MAX - c) / 10)
			return PS_NUM_RANGE;
		v = v * 10 + c;
	}
	if (q == p)
		return PS_NUM_BAD;
	if (stop != NULL)
		*stop = q;
	else if (q != end)
		return PS_NUM_BAD;
	*out = v;
	return PS_NUM_OK;
}

int
ps_parsenum_u64_in(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t v;
	int rc;

	if ((rc = ps_parsenum_u64(s, s + strlen(s), NULL, &v)) != PS_NUM_OK)
		return rc;
	if (v < lo || v > hi)
		return PS_NUM_RANGE;
	*out = v;
	return PS_NUM_OK;
}

int
ps_parsenum_double_in(const char *s, double lo, double hi, double *out)
{
	double v;
	int rc;

	if ((rc = ps_parsenum_double(s, s + strlen(s), NULL, &v)) != PS_NUM_OK)
		return rc;
	if (!(v >= lo && v <= hi))
		return PS_NUM_RANGE;
	*out = v;
	return PS_NUM_OK;
}

int
ps_parsenum_is_nonfinite(const char *p, const char *end)
{
	if (p < end && (*p == '+' || *p == '-'))
		p++;
	if (end - p < 3)
		return 0;
	return strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0;
}

/*
 * ps_parsenum_float_keeps() for a decimal of up to 15 digits and a power
 * of ten within 10^+-22: f keeps it iff f / 10^exp10 is within half a unit
 * of the digits.  x has one rounding, well within the slack kept around
 * 0.5; 1 or 0, or -1 to leave it to printf and strtod.
 */
static int
keeps_fast(const char *p, const char *end, float f)
{
	struct dec d;
	const char *q;
	double x, dist, slack;

	if (dec_take(p, end, NULL, &d, &q) != PS_NUM_OK || d.truncated ||
	    d.mant >= UINT64_C(1000000000000000) || d.exp10 < -22 ||
	    d.exp10 > 22)
		return -1;
	x = fabs((double)f);
	x = d.exp10 < 0 ? x * pow10d[-d.exp10] : x / pow10d[d.exp10];
	dist = fabs(x - (double)d.mant);
	slack = 4 * (double)d.mant * DBL_EPSILON;	/* > the one rounding */
	return dist < 0.5 - slack ? 1 : dist > 0.5 + slack ? 0 : -1;
}

int
ps_parsenum_float_keeps(const char *p, const char *end, float f)
{
	char num[64], back[64];
	const char *q;
	size_t len = (size_t)(end - p);
	int k = 0, hex = 0, near;

	if ((near = keeps_fast(p, end, f)) >= 0)
		return near;
	for (q = p; q < end && *q != 'e' && *q != 'E'; q++) {
		hex |= *q == 'x' || *q == 'X';
		if ((k > 0 && *q == '0') || (*q >= '1' && *q <= '9'))
			k++;
	}
	if (k == 0 && !hex)
		return f == 0;
	if (k <= FLT_DIG && !hex && isnormal(f))
		return 1;
	if (len >= sizeof num)
		len = sizeof num - 1;	/* 63 bytes tell the value apart */
	memcpy(num, p, len);
	num[len] = '\0';
	if (hex)
		return strtod(num, NULL) == (double)f;
	snprintf(back, sizeof back, "%.*e", (k > 17 ? 17 : k) - 1, (double)f);
	return strtod(back, NULL) == strtod(num, NULL);
}
