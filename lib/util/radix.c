/*
 * radix.c: LSD radix sort of 64-bit keys with optional 32-bit values
 * (radix.h): eight passes of one byte at most, each a counting sort into
 * a scratch array of the same size.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/radix.h"
#include "util/xmalloc.h"

/* Offsets of each byte value at shift in keys, or 0 if all keys share it. */
static int
radix_counts(const uint64_t *keys, size_t n, int shift, size_t count[256])
{
	size_t i, sum, c;

	memset(count, 0, 256 * sizeof *count);
	for (i = 0; i < n; i++)
		count[(keys[i] >> shift) & 0xff]++;
	if (count[(keys[0] >> shift) & 0xff] == n)
		return 0;
	for (i = 0, sum = 0; i < 256; i++) {
		c = count[i];
		count[i] = sum;
		sum += c;
	}
	return 1;
}

void
ps_radix_sort(uint64_t *keys, uint32_t *vals, size_t n)
{
	uint64_t *ktmp, *ksrc = keys, *kdst, *kt;
	uint32_t *vtmp = NULL, *vsrc = vals, *vdst = NULL, *vt;
	size_t count[256], i, d;
	int shift;

	if (n < 2)
		return;
	kdst = ktmp = xcalloc(n, sizeof *ktmp);
	if (vals != NULL)
		vdst = vtmp = xcalloc(n, sizeof *vtmp);
	for (shift = 0; shift < 64; shift += 8) {
		if (!radix_counts(ksrc, n, shift, count))
			continue;
		for (i = 0; i < n; i++) {
			d = count[(ksrc[i] >> shift) & 0xff]++;
			kdst[d] = ksrc[i];
			if (vals != NULL)
				vdst[d] = vsrc[i];
		}
		kt = ksrc, ksrc = kdst, kdst = kt;
		vt = vsrc, vsrc = vdst, vdst = vt;
	}
	if (ksrc != keys) {
		memcpy(keys, ksrc, n * sizeof *keys);
		if (vals != NULL)
			memcpy(vals, vsrc, n * sizeof *vals);
	}
	free(ktmp);
	free(vtmp);
}
