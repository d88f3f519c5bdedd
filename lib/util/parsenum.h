/*
 * parsenum.h: exact decimal number parsing, for the libsvm hot path and
 * for every number a program reads from its command line or a text file.
 *
 * The parsers read a number from [p, end) without needing a NUL terminator
 * and without the locale.  Syntax: an optional sign, digits with at most one
 * '.', at least one digit, then an optional exponent ('e' or 'E', optional
 * sign, digits).  Hex, "nan", "inf" and empty input are rejected.  Results
 * are correctly rounded (as strtof/strtod in the C locale would give).
 *
 * If stop is NULL the number must fill all of [p, end); otherwise parsing
 * ends at the first byte that cannot continue the number and *stop is set to
 * it (the caller decides whether what follows is acceptable).
 */
#ifndef PS_PARSENUM_H
#define PS_PARSENUM_H

#include <float.h>
#include <stdint.h>

#define PS_NUM_OK	0
#define PS_NUM_BAD	(-1)	/* not a decimal number (or trailing junk) */
#define PS_NUM_RANGE	(-2)	/* overflows the type */

/* A float, correctly rounded; overflow to infinity is PS_NUM_RANGE. */
int	ps_parsenum_float(const char *p, const char *end, const char **stop,
	    float *out);
/* A double, correctly rounded; overflow to infinity is PS_NUM_RANGE. */
int	ps_parsenum_double(const char *p, const char *end, const char **stop,
	    double *out);
/* An unsigned decimal integer (digits only, no sign). */
int	ps_parsenum_u64(const char *p, const char *end, const char **stop,
	    uint64_t *out);
/*
 * The whole NUL-terminated string s as an unsigned decimal integer, or as
 * a number (the syntax above), within [lo, hi]: PS_NUM_OK with *out set,
 * PS_NUM_BAD, or PS_NUM_RANGE when it overflows or lies outside [lo, hi].
 * The one parser of option values, ring, manifest and address fields.
 */
int	ps_parsenum_u64_in(const char *s, uint64_t lo, uint64_t hi,
	    uint64_t *out);
int	ps_parsenum_double_in(const char *s, double lo, double hi,
	    double *out);
/*
 * Whether float f, the value of the number [p, end), keeps it: printed with
 * as many significant digits as the text has, f reads back as the text's
 * number.  0.1 -> 0.1f does; 1440446648 -> 1440446592 and 1e-50 -> 0 do
 * not.  Cheap for up to 6 digits (FLT_DIG), else a printf and a strtod.
 */
int	ps_parsenum_float_keeps(const char *p, const char *end, float f);
/* Whether [p, end) spells nan or inf(inity), with an optional sign. */
int	ps_parsenum_is_nonfinite(const char *p, const char *end);

/*
 * The inline fast path of ps_parsenum_float() for the usual libsvm value:
 * an optional sign, digits with at most one '.', no exponent, a mantissa
 * below 2^24 and at most 10 digits after the point.  Both the mantissa and
 * 10^frac are then exact floats, so one IEEE float division is correctly
 * rounded (Clinger's fast path in single precision).  Returns 1 with *out
 * and *stop set, or 0 to leave the input to ps_parsenum_float(); what
 * follows the number is for the caller to check.  Needs FLT_EVAL_METHOD 0
 * (no excess precision), otherwise it always declines.
 */
static inline int
ps_parsenum_float_short(const char *p, const char *end, const char **stop,
    float *out)
{
	static const float pow10f[] = {
		1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f,
		1e10f
	};
	const char *q = p, *dot;
	uint64_t m = 0;
	unsigned c;
	long nint, nfrac = 0;
	int neg = 0;
	float v;

	if (FLT_EVAL_METHOD != 0)
		return 0;
	if (q < end && (*q == '-' || *q == '+'))
		neg = *q++ == '-';
	for (dot = q; q < end && (c = (unsigned)(*q - '0')) < 10; q++)
		m = m * 10 + c;
	nint = q - dot;
	if (q < end && *q == '.') {
		for (dot = ++q; q < end && (c = (unsigned)(*q - '0')) < 10; q++)
			m = m * 10 + c;
		nfrac = q - dot;
	}
	if (nint + nfrac == 0 || nint + nfrac > 19 || nfrac > 10 ||
	    m >= (UINT64_C(1) << 24) || (q < end && (*q | 0x20) == 'e'))
		return 0;
	v = (float)m / pow10f[nfrac];
	*out = neg ? -v : v;
	*stop = q;
	return 1;
}

#endif
