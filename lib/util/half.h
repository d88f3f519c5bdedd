/*
 * half.h: IEEE 754 binary16 ("half") conversions for the lossy value filter
 * (wire.h, PS_MSG_F_FP16).  Rounding is to nearest, ties to even; values
 * past the half range become infinities, NaN stays NaN.
 */
#ifndef PS_HALF_H
#define PS_HALF_H

#include <stdint.h>

uint16_t	ps_half_from_float(float f);
float		ps_half_to_float(uint16_t h);

#endif
