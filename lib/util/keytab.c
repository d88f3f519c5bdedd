/*
 * keytab.c: linear-probing hash table of feature ids, kept at most 3/4
 * full; buckets hold slot indices and the keys live once, in bykey32 or,
 * from the first key past 32 bits, in bykey.  All three are arrays of
 * their own pages (bigarray.h), so that a table that grows leaves no freed
 * copies in the heap.
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

void
ps_keytab_init(struct ps_keytab *t)
{
	t->mask = KEYTAB_MIN_BUCKETS - 1;
	t->buckets = ps_bigarray_resize(NULL, 0, KEYTAB_MIN_BUCKETS,
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
	ps_bigarray_free(t->buckets, t->mask + 1, sizeof *t->buckets);
	ps_bigarray_free(t->bykey32, t->bykey_cap, sizeof *t->bykey32);
	ps_bigarray_free(t->bykey, t->bykey_cap, sizeof *t->bykey);
	t->buckets = NULL;
	t->bykey32 = NULL;
	t->bykey = NULL;
	t->count = 0;
}

/* The bucket that holds key, or the empty one where it would go. */
static size_t
keytab_bucket(const struct ps_keytab *t, uint64_t key)
{
	size_t b = ps_key_mix(key) & t->mask;

	while (t->buckets[b] != 0 && ps_keytab_key(t, t->buckets[b] - 1) != key)
		b = (b + 1) & t->mask;
	return b;
}

long
ps_keytab_find(const struct ps_keytab *t, uint64_t key)
{
	size_t b = keytab_bucket(t, key);

	return t->buckets[b] != 0 ? (long)t->buckets[b] - 1 : -1;
}

/* Double the bucket array and re-place every slot. */
static void
keytab_grow(struct ps_keytab *t)
{
	size_t n = (t->mask + 1) * 2, i, b;

	ps_bigarray_free(t->buckets, t->mask + 1, sizeof *t->buckets);
	t->buckets = ps_bigarray_resize(NULL, 0, n, sizeof *t->buckets);
	t->mask = n - 1;
	for (i = 0; i < t->count; i++) {
		b = ps_key_mix(ps_keytab_key(t, i)) & t->mask;
		while (t->buckets[b] != 0)
			b = (b + 1) & t->mask;
		t->buckets[b] = (uint32_t)(i + 1);
	}
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
	size_t b = keytab_bucket(t, key);

	if (t->buckets[b] != 0) {
		*created = 0;
		return t->buckets[b] - 1;
	}
	keytab_put_key(t, key);
	if (4 * (t->count + 1) > 3 * (t->mask + 1)) {
		t->count++;
		keytab_grow(t);	/* places the new slot too */
	} else
		t->buckets[b] = (uint32_t)++t->count;
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

void
ps_keytab_insert_many(struct ps_keytab *t, const uint64_t *keys, size_t n,
    uint32_t *slots)
{
	size_t k, b;
	int created;

	for (k = 0; k < n; k++) {
		if (k + KEYTAB_AHEAD_BUCKET < n)
			__builtin_prefetch(&t->buckets[ps_key_mix(
			    keys[k + KEYTAB_AHEAD_BUCKET]) & t->mask]);
		if (k + KEYTAB_AHEAD_KEY < n) {
			b = ps_key_mix(keys[k + KEYTAB_AHEAD_KEY]) & t->mask;
			if (t->buckets[b] != 0)
				keytab_prefetch_key(t, t->buckets[b] - 1);
		}
		slots[k] = ps_keytab_insert(t, keys[k], &created);
	}
}
