/*
 * stamp16.h: stamps kept in 16 bits an entry.  A stamp is a count that
 * only grows, such as a round number plus one, and 0 means none.  An entry
 * holds its stamp's offset from a base (plus one; 0: none) that moves up
 * when a stamp set would not fit: every stamp within PS_STAMP16_KEEP of
 * the newest set reads back exact, and older ones read as none.  A
 * server's round marks take 2 bytes a key this way, where 4 would hold
 * any round.
 */
#ifndef PS_STAMP16_H
#define PS_STAMP16_H

#include <stddef.h>
#include <stdint.h>

#define PS_STAMP16_KEEP		32767

struct ps_stamp16 {
	uint16_t	*v;		/* [entries]: the caller's array, zeroed
					   (none) where new */
	uint64_t	 base;		/* the stamp an entry of 1 stands for */
};

/* An empty set of stamps over the caller's array v (NULL until grown). */
static inline void
ps_stamp16_init(struct ps_stamp16 *s, uint16_t *v)
{
	s->v = v;
	s->base = 1;
}

/* The stamp of entry i: exact, or 0 for none or too old. */
static inline uint64_t
ps_stamp16_get(const struct ps_stamp16 *s, size_t i)
{
	return s->v[i] == 0 ? 0 : s->base + s->v[i] - 1;
}

/*
 * Stamp entry i (0: none; one older than the oldest kept reads as none).
 * A newer stamp than fits moves the base, which rewrites entries
 * [0, count), the ones in use: once in PS_STAMP16_KEEP stamps at most.
 */
void	ps_stamp16_set(struct ps_stamp16 *s, size_t i, uint64_t stamp,
	    size_t count);

#endif
