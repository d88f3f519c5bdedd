/*
 * half.c: float <-> binary16 conversion by bit manipulation (no F16C
 * needed), rounding to nearest even.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "util/half.h"

uint16_t
ps_half_from_float(float f)
{
	uint32_t x, ax, sign, h, rem;
	float a;

	memcpy(&x, &f, sizeof x);
	sign = (x >> 16) & 0x8000;
	ax = x & 0x7fffffff;
	if (ax > 0x7f800000)			/* NaN: keep it quiet */
		return (uint16_t)(sign | 0x7e00);
	if (ax >= 0x477ff000)			/* >= 65520: infinity */
		return (uint16_t)(sign | 0x7c00);
	if (ax < 0x38800000) {			/* below 2^-14: subnormal */
		memcpy(&a, &ax, sizeof a);
		/* a * 2^24 < 1024 is exact; nearbyintf rounds half to even. */
		return (uint16_t)(sign | (uint32_t)nearbyintf(a * 16777216.0f));
	}
	h = ((((ax >> 23) - 127 + 15) << 10) | ((ax & 0x7fffff) >> 13));
	rem = ax & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;				/* may carry into the exponent */
	return (uint16_t)(sign | h);
}

float
ps_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
	float f;

	if (e == 0) {
		f = (float)m * 0x1p-24f;
		return sign ? -f : f;
	}
	if (e == 31)
		x = sign | 0x7f800000 | (m << 13);
	else
		x = sign | ((e - 15 + 127) << 23) | (m << 13);
	memcpy(&f, &x, sizeof f);
	return f;
}
