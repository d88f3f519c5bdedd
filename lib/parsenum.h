/*
 * parsenum.h: exact decimal number parsing for the libsvm hot path.
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
/* Whether [p, end) spells nan or inf(inity), with an optional sign. */
int	ps_parsenum_is_nonfinite(const char *p, const char *end);

#endif
