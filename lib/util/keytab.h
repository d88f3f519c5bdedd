/*
 * keytab.h: an open-addressing hash table from feature id (any uint64)
 * to a dense slot index, the server's index of the keys it holds.
 *
 * Slots are numbered 0, 1, 2, ... in order of insertion and never move, so
 * callers keep per-key state in parallel arrays of ps_keytab_count() entries
 * (grow them when ps_keytab_insert() reports a new slot).
 */
#ifndef PS_KEYTAB_H
#define PS_KEYTAB_H

#include <stddef.h>
#include <stdint.h>

/*
 * A bucket holds a slot index plus one (0: empty) in its low slot_bits,
 * the bit length of the bucket count, and in the bits above those a tag
 * from the key's hash, so that a probe reads a key only when the tags
 * match (about 1 in 2^(32 - slot_bits), 1 in 1024 at 4M buckets).  The
 * key is the slot's entry in bykey32, or in bykey once a key does not
 * fit in 32 bits (the table then widens all of them): feature ids are
 * mostly small, so that a key costs 4 bytes there and 4 / load in
 * buckets.  The bucket count is any number, not a power of two (a key's
 * home bucket is its hash scaled to it), grown by a quarter when the
 * table is 15/16 full: a load of 0.75 to 0.9375, 4.3 to 5.3 bytes a key
 * (4.8 on average over sizes), where growing by half at 7/8 full spent
 * 4.6 to 6.9 (5.6) and doubling at 3/4 full 5.3 to 10.7.  Read a slot's
 * key with ps_keytab_key().
 */
struct ps_keytab {
	uint32_t	*buckets;	/* bucket -> tag | slot + 1, 0 = empty */
	size_t		 nbuckets;
	unsigned	 slot_bits;	/* bits of slot + 1 in a bucket */
	size_t		 count;		/* keys held */
	uint32_t	*bykey32;	/* slot -> key while all fit, or NULL */
	uint64_t	*bykey;		/* slot -> key once one did not, or NULL */
	size_t		 bykey_cap;
};

void	ps_keytab_init(struct ps_keytab *t);
void	ps_keytab_release(struct ps_keytab *t);
/* Slot of key, or -1 when absent. */
long	ps_keytab_find(const struct ps_keytab *t, uint64_t key);
/* Slot of key, inserting it if absent; *created tells which. */
uint32_t ps_keytab_insert(struct ps_keytab *t, uint64_t key, int *created);
/*
 * slots[k] = the slot of keys[k], inserting the absent ones in order (new
 * slots are those from the count before the call).  The same slots as a
 * loop of ps_keytab_insert(), but it asks the memory for the buckets and
 * keys of the lookups a few keys ahead, so that their cache misses
 * overlap, and it makes room for all the absent keys in one rebuild: a
 * server looks up every key of every push and replica this way.
 */
void	ps_keytab_insert_many(struct ps_keytab *t, const uint64_t *keys,
	    size_t n, uint32_t *slots);
static inline size_t
ps_keytab_count(const struct ps_keytab *t)
{
	return t->count;
}
/* The key of slot s (< ps_keytab_count()). */
static inline uint64_t
ps_keytab_key(const struct ps_keytab *t, size_t s)
{
	return t->bykey != NULL ? t->bykey[s] : t->bykey32[s];
}

#endif
