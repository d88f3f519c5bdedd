/*
 * keytab.c: linear-probing hash table of feature ids, kept at most 3/4
 * full; buckets hold slot indices and the keys live once, in bykey.
 */
#include "config.h"

#include <stdlib.h>

#include "util/keyhash.h"
#include "util/keytab.h"
#include "util/xmalloc.h"

#define KEYTAB_MIN_BUCKETS	1024
/* How many keys ahead insert_many asks for a bucket, then for its key. */
#define KEYTAB_AHEAD_BUCKET	16
#define KEYTAB_AHEAD_KEY	8

void
ps_keytab_init(struct ps_keytab *t)
{
	t->mask = KEYTAB_MIN_BUCKETS - 1;
	t->buckets = xcalloc(KEYTAB_MIN_BUCKETS, sizeof *t->buckets);
	t->count = 0;
	t->bykey_cap = KEYTAB_MIN_BUCKETS / 2;
	t->bykey = xcalloc(t->bykey_cap, sizeof *t->bykey);
}

void
ps_keytab_release(struct ps_keytab *t)
{
	free(t->buckets);
	free(t->bykey);
	t->buckets = NULL;
	t->bykey = NULL;
	t->count = 0;
}

/* The bucket that holds key, or the empty one where it would go. */
static size_t
keytab_bucket(const struct ps_keytab *t, uint64_t key)
{
	size_t b = ps_key_mix(key) & t->mask;

	while (t->buckets[b] != 0 && t->bykey[t->buckets[b] - 1] != key)
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

	free(t->buckets);
	t->buckets = xcalloc(n, sizeof *t->buckets);
	t->mask = n - 1;
	for (i = 0; i < t->count; i++) {
		b = ps_key_mix(t->bykey[i]) & t->mask;
		while (t->buckets[b] != 0)
			b = (b + 1) & t->mask;
		t->buckets[b] = (uint32_t)(i + 1);
	}
}

uint32_t
ps_keytab_insert(struct ps_keytab *t, uint64_t key, int *created)
{
	size_t b = keytab_bucket(t, key);

	if (t->buckets[b] != 0) {
		*created = 0;
		return t->buckets[b] - 1;
	}
	if (t->count == t->bykey_cap) {
		t->bykey_cap += t->bykey_cap / 2;
		t->bykey = xreallocarray(t->bykey, t->bykey_cap,
		    sizeof *t->bykey);
	}
	t->bykey[t->count] = key;
	if (4 * (t->count + 1) > 3 * (t->mask + 1)) {
		t->count++;
		keytab_grow(t);	/* places the new slot too */
	} else
		t->buckets[b] = (uint32_t)++t->count;
	*created = 1;
	return (uint32_t)(t->count - 1);
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
				__builtin_prefetch(&t->bykey[t->buckets[b] - 1]);
		}
		slots[k] = ps_keytab_insert(t, keys[k], &created);
	}
}
