/*
 * keytab.c: linear-probing hash table of feature ids, kept under 50% full.
 */
#include "config.h"

#include <stdlib.h>

#include "util/keyhash.h"
#include "util/keytab.h"
#include "util/xmalloc.h"

#define KEYTAB_MIN_BUCKETS	1024

void
ps_keytab_init(struct ps_keytab *t)
{
	t->mask = KEYTAB_MIN_BUCKETS - 1;
	t->keys = xcalloc(KEYTAB_MIN_BUCKETS, sizeof *t->keys);
	t->slots = xcalloc(KEYTAB_MIN_BUCKETS, sizeof *t->slots);
	t->count = 0;
	t->bykey_cap = KEYTAB_MIN_BUCKETS / 2;
	t->bykey = xcalloc(t->bykey_cap, sizeof *t->bykey);
}

void
ps_keytab_release(struct ps_keytab *t)
{
	free(t->keys);
	free(t->slots);
	free(t->bykey);
	t->keys = NULL;
	t->slots = NULL;
	t->bykey = NULL;
	t->count = 0;
}

long
ps_keytab_find(const struct ps_keytab *t, uint64_t key)
{
	size_t b = ps_key_mix(key) & t->mask;

	while (t->keys[b] != 0) {
		if (t->keys[b] == key)
			return (long)t->slots[b];
		b = (b + 1) & t->mask;
	}
	return -1;
}

/* Double the bucket array and re-place every key. */
static void
keytab_grow(struct ps_keytab *t)
{
	size_t n = (t->mask + 1) * 2, i, b;
	uint64_t *keys = xcalloc(n, sizeof *keys);
	uint32_t *slots = xcalloc(n, sizeof *slots);

	for (i = 0; i <= t->mask; i++) {
		if (t->keys[i] == 0)
			continue;
		b = ps_key_mix(t->keys[i]) & (n - 1);
		while (keys[b] != 0)
			b = (b + 1) & (n - 1);
		keys[b] = t->keys[i];
		slots[b] = t->slots[i];
	}
	free(t->keys);
	free(t->slots);
	t->keys = keys;
	t->slots = slots;
	t->mask = n - 1;
	t->bykey_cap = n / 2;
	t->bykey = xreallocarray(t->bykey, t->bykey_cap, sizeof *t->bykey);
}

uint32_t
ps_keytab_insert(struct ps_keytab *t, uint64_t key, int *created)
{
	size_t b;

	if (t->count + 1 > (t->mask + 1) / 2)
		keytab_grow(t);
	b = ps_key_mix(key) & t->mask;
	while (t->keys[b] != 0) {
		if (t->keys[b] == key) {
			*created = 0;
			return t->slots[b];
		}
		b = (b + 1) & t->mask;
	}
	t->keys[b] = key;
	t->slots[b] = (uint32_t)t->count;
	t->bykey[t->count] = key;
	*created = 1;
	return (uint32_t)t->count++;
}
