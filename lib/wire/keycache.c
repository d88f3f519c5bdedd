/*
 * keycache.c: the key-list cache of keycache.h, a FIFO of signatures (and
 * on the receiving side of key lists) with a budget in keys.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/keyhash.h"
#include "util/xmalloc.h"
#include "wire/keycache.h"
#include "wire/varint.h"

uint64_t
ps_keysig(const uint64_t *keys, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = ps_key_mix(h ^ keys[i]) + 0x9e3779b97f4a7c15ULL;
	return ps_key_mix(h ^ n);
}

void
ps_keycache_init(struct ps_keycache *kc, size_t max_keys, int keep_lists)
{
	memset(kc, 0, sizeof *kc);
	kc->max_keys = max_keys;
	kc->keep_lists = keep_lists;
}

void
ps_keycache_release(struct ps_keycache *kc)
{
	size_t i;

	for (i = 0; i < kc->count; i++)
		free(kc->ent[(kc->head + i) % kc->cap].packed);
	free(kc->ent);
	memset(kc, 0, sizeof *kc);
}

static struct ps_keycache_entry *
keycache_at(const struct ps_keycache *kc, size_t i)
{
	return &kc->ent[(kc->head + i) % kc->cap];
}

const struct ps_keycache_entry *
ps_keycache_find(const struct ps_keycache *kc, uint64_t sig, uint32_t n)
{
	size_t i;

	for (i = kc->count; i-- > 0;) {
		const struct ps_keycache_entry *e = keycache_at(kc, i);

		if (e->sig == sig && e->n == n)
			return e;
	}
	return NULL;
}

/* Drop the oldest entry. */
static void
keycache_pop(struct ps_keycache *kc)
{
	struct ps_keycache_entry *e = keycache_at(kc, 0);

	kc->nkeys -= e->n;
	free(e->packed);
	memset(e, 0, sizeof *e);
	kc->head = (kc->head + 1) % kc->cap;
	kc->count--;
}

/* Make room for one more entry in the ring buffer. */
static void
keycache_grow(struct ps_keycache *kc)
{
	size_t cap = kc->cap ? 2 * kc->cap : 64, i;
	struct ps_keycache_entry *ent = xcalloc(cap, sizeof *ent);

	for (i = 0; i < kc->count; i++)
		ent[i] = *keycache_at(kc, i);
	free(kc->ent);
	kc->ent = ent;
	kc->cap = cap;
	kc->head = 0;
}

/* The n keys as delta varints (keycache.h) into e->packed, just that size. */
static void
keycache_pack(struct ps_keycache_entry *e, const uint64_t *keys, uint32_t n)
{
	uint64_t prev = 0;
	size_t len = 0, at = 0;
	uint32_t i;

	for (i = 0; i < n; prev = keys[i++])
		len += ps_varint_len(keys[i] - prev);
	e->packed = xmalloc(len + 1);
	e->packed_len = len;
	for (i = 0, prev = 0; i < n; prev = keys[i++])
		at += ps_varint_put(e->packed + at, keys[i] - prev);
}

int
ps_keycache_keys(const struct ps_keycache_entry *e, uint64_t *keys)
{
	const uint8_t *p = e->packed, *end = e->packed + e->packed_len;
	uint64_t key = 0, d;
	uint32_t i;
	int r;

	for (i = 0; i < e->n; i++) {
		if ((r = ps_varint_get(p, end, &d)) <= 0)
			return -1;
		p += r;
		keys[i] = key += d;
	}
	return 0;
}

void
ps_keycache_put(struct ps_keycache *kc, uint64_t sig, const uint64_t *keys,
    uint32_t n)
{
	struct ps_keycache_entry *e;

	if (n > kc->max_keys || ps_keycache_find(kc, sig, n) != NULL)
		return;
	while (kc->count > 0 && kc->nkeys + n > kc->max_keys)
		keycache_pop(kc);
	if (kc->count == kc->cap)
		keycache_grow(kc);
	e = keycache_at(kc, kc->count);
	e->sig = sig;
	e->n = n;
	e->packed = NULL;
	e->packed_len = 0;
	if (kc->keep_lists)
		keycache_pack(e, keys, n);
	kc->count++;
	kc->nkeys += n;
}

void
ps_keycache_forget(struct ps_keycache *kc, uint64_t sig)
{
	size_t i, j;

	for (i = 0; i < kc->count; i++)
		if (keycache_at(kc, i)->sig == sig)
			break;
	if (i == kc->count)
		return;
	kc->nkeys -= keycache_at(kc, i)->n;
	free(keycache_at(kc, i)->packed);
	for (j = i; j + 1 < kc->count; j++)
		*keycache_at(kc, j) = *keycache_at(kc, j + 1);
	memset(keycache_at(kc, kc->count - 1), 0, sizeof(struct ps_keycache_entry));
	kc->count--;
}
