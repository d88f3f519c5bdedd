/*
 * varint.h: LEB128-style unsigned varints, the key encoding of wire frames.
 *
 * Seven bits per byte, least significant group first, the high bit set on
 * every byte but the last.  A uint64_t takes 1 to PS_VARINT_MAX bytes.  The
 * decoder accepts only the shortest encoding of a value, so every value has
 * exactly one byte form (a frame's checksum then pins down its contents).
 */
#ifndef PS_VARINT_H
#define PS_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define PS_VARINT_MAX		10	/* bytes of the largest uint64_t */

#define PS_VARINT_TRUNCATED	(-1)	/* input ended inside a varint */
#define PS_VARINT_OVERLONG	(-2)	/* over 64 bits or not the shortest form */

/* Bytes that ps_varint_put() writes for v. */
size_t	ps_varint_len(uint64_t v);

/* Write v at p (room for PS_VARINT_MAX bytes); return the bytes written. */
static inline size_t
ps_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/*
 * Read one varint from [p, end) into *v.  Return the bytes consumed (> 0),
 * PS_VARINT_TRUNCATED or PS_VARINT_OVERLONG.
 */
int	ps_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v);

#endif
