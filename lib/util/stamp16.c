/*
 * stamp16.c: moving the base of 16-bit stamps when a newer stamp is set
 * than their range holds.
 */
#include "config.h"

#include "util/stamp16.h"

/* Move s's base up so that stamp fits with PS_STAMP16_KEEP below it. */
static void
stamp16_rebase(struct ps_stamp16 *s, uint64_t stamp, size_t count)
{
	uint64_t base = stamp - PS_STAMP16_KEEP, shift = base - s->base;
	size_t i;

	for (i = 0; i < count; i++)
		s->v[i] = s->v[i] > shift ? (uint16_t)(s->v[i] - shift) : 0;
	s->base = base;
}

void
ps_stamp16_set(struct ps_stamp16 *s, size_t i, uint64_t stamp, size_t count)
{
	if (stamp >= s->base && stamp - s->base >= UINT16_MAX)
		stamp16_rebase(s, stamp, count);
	s->v[i] = stamp < s->base ? 0 : (uint16_t)(stamp - s->base + 1);
}
