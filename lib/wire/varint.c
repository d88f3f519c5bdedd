/*
 * varint.c: decoding and sizing of the varints declared in varint.h.
 */
#include "config.h"

#include "wire/varint.h"

/* Bytes that ps_varint_put() writes for v. */
size_t
ps_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Read one shortest-form varint from [p, end); see varint.h. */
int
ps_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	int i;

	for (i = 0; i < PS_VARINT_MAX; i++) {
		uint8_t b;

		if (p + i >= end)
			return PS_VARINT_TRUNCATED;
		b = p[i];
		if (i == PS_VARINT_MAX - 1 && b > 1)
			return PS_VARINT_OVERLONG;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (b < 0x80) {
			if (b == 0 && i > 0)
				return PS_VARINT_OVERLONG;
			*v = x;
			return i + 1;
		}
	}
	return PS_VARINT_OVERLONG;
}
