/*
 * keyhash.h: the invertible 64-bit mix that places feature ids on the ring.
 *
 * Keys travel and are stored as plain feature ids (so sorted key lists
 * delta-encode into one or two bytes each); only ring placement and feature
 * blocks use the mixed value.  ps_key_unmix() inverts ps_key_mix().
 */
#ifndef PS_KEYHASH_H
#define PS_KEYHASH_H

#include <stdint.h>

/* splitmix64's finaliser: a bijection on 64-bit integers. */
static inline uint64_t
ps_key_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Undo x ^= x >> s for a shift s. */
static inline uint64_t
ps_key_unshift(uint64_t x, int s)
{
	uint64_t r = x;
	int i;

	for (i = s; i < 64; i += s)
		r = x ^ (r >> s);
	return r;
}

static inline uint64_t
ps_key_unmix(uint64_t x)
{
	x = ps_key_unshift(x, 31);
	x *= 0x319642b2d24d8ec3ULL;	/* inverse of 0x94d049bb133111eb */
	x = ps_key_unshift(x, 27);
	x *= 0x96de1b173f119089ULL;	/* inverse of 0xbf58476d1ce4e5b9 */
	x = ps_key_unshift(x, 30);
	return x;
}

#endif
