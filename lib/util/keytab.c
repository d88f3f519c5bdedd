/*
 * keytab.c: linear-probing hash table of feature ids, kept at most 15/16
 * full; buckets hold slot indices under a tag of the key's hash, and the
 * keys live once, in bykey32 or, from the first key past 32 bits, in
 * bykey.  All three are arrays of their own pages (bigarray.h), so that
 * a table that grows leaves no freed copies in the heap.
 */
#include "config.h"

#include <stdlib.h>

#include "util/bigarray.h"
#include "util/keyhash.h"
#include "util/keytab.h"

#define KEYTAB_MIN_BUCKETS	1024
/* How many keys ahead insert_many asks for a bucket, then for its key. */
#define KEYTAB_AHEAD_BUCKET	16
#define KEYTAB_AHEAD_KEY	8

/* Bits of slot + 1 in a bucket of a table of n buckets (< 2^32). */
static unsigned
keytab_slot_bits(size_t n)
{
	return 64 - (unsigned)__builtin_clzll((unsigned long long)n);
}

/* The mask of slot + 1 in a bucket. */
static uint32_t
keytab_slot_mask(const struct ps_keytab *t)
{
	return t->slot_bits >= 32 ? UINT32_MAX :
	    (UINT32_C(1) << t->slot_bits) - 1;
}

/*
 * Hash h's home bucket: its low 32 bits scaled to the bucket count.  Not
 * its top bits: the ring places keys by the same hash (keyhash.h), so a
 * server's keys share their top bits, and would crowd a few stretches.
 */
static size_t
keytab_home(const struct ps_keytab *t, uint64_t h)
{
	return (size_t)(((h & UINT32_MAX) * (uint64_t)t->nbuckets) >> 32);
}

/*
 * Hash h's tag, in the bits of a bucket above its slot: h's lowest bits,
 * which hardly move the home bucket (that is the top of the low half),
 * and not its top ones, which a ring segment's keys share.
 */
static uint32_t
keytab_tag(const struct ps_keytab *t, uint64_t h)
{
	return t->slot_bits >= 32 ? 0 : (uint32_t)h << t->slot_bits;
}

/* Whether bucket value v (not empty) may hold the key of hash h. */
static int
keytab_tag_matches(const struct ps_keytab *t, uint32_t v, uint64_t h)
{
	return (v & ~keytab_slot_mask(t)) == keytab_tag(t, h);
}

/* The slot in bucket value v (not empty). */
static uint32_t
keytab_slot(const struct ps_keytab *t, uint32_t v)
{
	return (v & keytab_slot_mask(t)) - 1;
}

void
ps_keytab_init(struct ps_keytab *t)
{
	t->nbuckets = KEYTAB_MIN_BUCKETS;
	t->slot_bits = keytab_slot_bits(t->nbuckets);
	t->buckets = ps_bigarray_resize(NULL, 0, t->nbuckets,
	    sizeof *t->buckets);
	t->count = 0;
	t->bykey_cap = KEYTAB_MIN_BUCKETS / 2;
	t->bykey32 = ps_bigarray_resize(NULL, 0, t->bykey_cap,
	    sizeof *t->bykey32);
	t->bykey = NULL;
}

void
ps_keytab_release(struct ps_keytab *t)
{
	ps_bigarray_free(t->buckets, t->nbuckets, sizeof *t->buckets);
	ps_bigarray_free(t->bykey32, t->bykey_cap, sizeof *t->bykey32);
	ps_bigarray_free(t->bykey, t->bykey_cap, sizeof *t->bykey);
	t->buckets = NULL;
	t->bykey32 = NULL;
	t->bykey = NULL;
	t->count = 0;
}

/* The bucket that holds key (of hash h), or the empty one where it would go. */
static size_t
keytab_bucket(const struct ps_keytab *t, uint64_t key, uint64_t h)
{
	size_t b = keytab_home(t, h);
	uint32_t v;

	while ((v = t->buckets[b]) != 0) {
		if (keytab_tag_matches(t, v, h) &&
		    ps_keytab_key(t, keytab_slot(t, v)) == key)
			break;
		if (++b == t->nbuckets)
			b = 0;
	}
	return b;
}

long
ps_keytab_find(const struct ps_keytab *t, uint64_t key)
{
	size_t b = keytab_bucket(t, key, ps_key_mix(key));

	return t->buckets[b] != 0 ? (long)keytab_slot(t, t->buckets[b]) : -1;
}

/* n buckets, and every slot placed anew. */
static void
keytab_rebuild(struct ps_keytab *t, size_t n)
{
	size_t i, b;

	ps_bigarray_free(t->buckets, t->nbuckets, sizeof *t->buckets);
	t->buckets = ps_bigarray_resize(NULL, 0, n, sizeof *t->buckets);
	t->nbuckets = n;
	t->slot_bits = keytab_slot_bits(n);
	for (i = 0; i < t->count; i++) {
		uint64_t h = ps_key_mix(ps_keytab_key(t, i));

		b = keytab_home(t, h);
		while (t->buckets[b] != 0)
			if (++b == n)
				b = 0;
		t->buckets[b] = keytab_tag(t, h) | (uint32_t)(i + 1);
	}
}

/* A quarter as many buckets again. */
static void
keytab_grow(struct ps_keytab *t)
{
	keytab_rebuild(t, t->nbuckets + t->nbuckets / 4);
}

/*
 * Room for n keys more at most 15/16 full, in one rebuild: as many
 * buckets as a table grown a quarter at a time would have after them
 * (a load of 3/4), not the ~4 rebuilds that growth costs every key.
 */
static void
keytab_reserve(struct ps_keytab *t, size_t n)
{
	size_t want = t->count + n, fit = want + want / 3;
	size_t quarter = t->nbuckets + t->nbuckets / 4;

	if (16 * want > 15 * t->nbuckets)
		keytab_rebuild(t, fit > quarter ? fit : quarter);
}

/* The first key past 32 bits: every key moves to 8 bytes. */
static void
keytab_widen(struct ps_keytab *t)
{
	size_t i;

	t->bykey = ps_bigarray_resize(NULL, 0, t->bykey_cap, sizeof *t->bykey);
	for (i = 0; i < t->count; i++)
		t->bykey[i] = t->bykey32[i];
	ps_bigarray_free(t->bykey32, t->bykey_cap, sizeof *t->bykey32);
	t->bykey32 = NULL;
}

/* Slot count (the next one) holds key. */
static void
keytab_put_key(struct ps_keytab *t, uint64_t key)
{
	if (t->bykey == NULL && key > UINT32_MAX)
		keytab_widen(t);
	if (t->count == t->bykey_cap) {
		size_t cap = t->bykey_cap + t->bykey_cap / 2;

		if (t->bykey != NULL)
			t->bykey = ps_bigarray_resize(t->bykey, t->bykey_cap,
			    cap, sizeof *t->bykey);
		else
			t->bykey32 = ps_bigarray_resize(t->bykey32,
			    t->bykey_cap, cap, sizeof *t->bykey32);
		t->bykey_cap = cap;
	}
	if (t->bykey != NULL)
		t->bykey[t->count] = key;
	else
		t->bykey32[t->count] = (uint32_t)key;
}

uint32_t
ps_keytab_insert(struct ps_keytab *t, uint64_t key, int *created)
{
	uint64_t h = ps_key_mix(key);
	size_t b = keytab_bucket(t, key, h);

	if (t->buckets[b] != 0) {
		*created = 0;
		return keytab_slot(t, t->buckets[b]);
	}
	keytab_put_key(t, key);
	if (16 * (t->count + 1) > 15 * t->nbuckets) {
		t->count++;
		keytab_grow(t);	/* places the new slot too */
	} else
		t->buckets[b] = keytab_tag(t, h) | (uint32_t)++t->count;
	*created = 1;
	return (uint32_t)(t->count - 1);
}

/* Ask the memory for slot s's key. */
static void
keytab_prefetch_key(const struct ps_keytab *t, size_t s)
{
	if (t->bykey != NULL)
		__builtin_prefetch(&t->bykey[s]);
	else
		__builtin_prefetch(&t->bykey32[s]);
}

/* slots[k] = the slot of keys[k], or UINT32_MAX when absent; how many are. */
static size_t
keytab_find_many(const struct ps_keytab *t, const uint64_t *keys, size_t n,
    uint32_t *slots)
{
	size_t k, absent = 0;

	for (k = 0; k < n; k++) {
		long s;

		if (k + KEYTAB_AHEAD_BUCKET < n)
			__builtin_prefetch(&t->buckets[keytab_home(t,
			    ps_key_mix(keys[k + KEYTAB_AHEAD_BUCKET]))]);
		if (k + KEYTAB_AHEAD_KEY < n) {
			uint64_t h = ps_key_mix(keys[k + KEYTAB_AHEAD_KEY]);
			uint32_t v = t->buckets[keytab_home(t, h)];

			if (v != 0 && keytab_tag_matches(t, v, h))
				keytab_prefetch_key(t, keytab_slot(t, v));
		}
		s = ps_keytab_find(t, keys[k]);
		slots[k] = s >= 0 ? (uint32_t)s : UINT32_MAX;
		absent += s < 0;
	}
	return absent;
}

/*
 * Two sweeps: look every key up, then make room for the absent ones at
 * once and insert them (a server's first push of a block brings
 * thousands of new keys).
 */
void
ps_keytab_insert_many(struct ps_keytab *t, const uint64_t *keys, size_t n,
    uint32_t *slots)
{
	size_t k, absent = keytab_find_many(t, keys, n, slots);
	int created;

	if (absent == 0)
		return;
	keytab_reserve(t, absent);
	for (k = 0; k < n; k++)
		if (slots[k] == UINT32_MAX)
			slots[k] = ps_keytab_insert(t, keys[k], &created);
}
