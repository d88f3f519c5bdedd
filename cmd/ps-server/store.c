/*
 * store.c: the server's key store: a hash index from feature id to slot and
 * per-slot arrays for the trust radius, last round and momentum of the
 * weight, and for an online job the optimiser state (z, n) from which the
 * weight follows (storesave.c writes it as a model part file).
 * The weight, the momentum's step result and the weight before the last
 * round are 0 on most keys of a sparse model: they are held only where
 * they are not (util/sparse.h), which leaves 2 to 4 percent of an l1
 * model's keys at lambda 1 (a dense model's move to an array of 4 bytes
 * a key there).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/ftrl.h"
#include "algo/prox.h"
#include "server.h"
#include "util/bigarray.h"
#include "util/xmalloc.h"

void
store_init(struct store *st)
{
	memset(st, 0, sizeof *st);
	ps_keytab_init(&st->keys);
	ps_sparse_init(&st->w);
	ps_sparse_init(&st->xprox);
	ps_sparse_init(&st->wprev);
	ps_sparse_init(&st->trustprev);
	ps_stamp16_init(&st->mark, NULL);
}

void
store_release(struct store *st)
{
	ps_keytab_release(&st->keys);
	ps_sparse_release(&st->w);
	ps_bigarray_free(st->trust, st->cap, sizeof *st->trust);
	ps_bigarray_free(st->mark.v, st->cap, sizeof *st->mark.v);
	ps_bigarray_free(st->flags, st->cap, sizeof *st->flags);
	ps_sparse_release(&st->xprox);
	ps_sparse_release(&st->wprev);
	ps_sparse_release(&st->trustprev);
	free(st->sent);
	free(st->z);
	free(st->n);
	memset(st, 0, sizeof *st);
}

/*
 * Make room for slot n in every per-slot array, growing by half.  The
 * per-key state is in arrays of their own pages (bigarray.h): they grow
 * without a copy or a freed block left behind, and entries past the last
 * slot are left unwritten, so that their pages never become resident
 * (store_slot() sets each new slot).
 */
static void
store_grow(struct store *st, size_t n)
{
	size_t cap = st->cap ? st->cap : 1024;

	while (cap <= n)
		cap += cap / 2;
	st->trust = ps_bigarray_resize(st->trust, st->cap, cap,
	    sizeof *st->trust);
	st->mark.v = ps_bigarray_resize(st->mark.v, st->cap, cap,
	    sizeof *st->mark.v);
	st->flags = ps_bigarray_resize(st->flags, st->cap, cap,
	    sizeof *st->flags);
	if (st->nsent > 0)
		st->sent = xreallocarray(st->sent, cap * st->nsent,
		    sizeof *st->sent);
	if (st->z != NULL) {
		st->z = xreallocarray(st->z, cap, sizeof *st->z);
		st->n = xreallocarray(st->n, cap, sizeof *st->n);
	}
	st->cap = cap;
}

/*
 * A new slot's state: the first trust radius, nothing sent, no momentum
 * yet (w, xprox and wprev hold nothing for it: weight 0).
 */
static void
store_new_slot(struct store *st, uint32_t s)
{
	uint32_t k;

	if (s >= st->cap)
		store_grow(st, s);
	st->trust[s] = ps_trust_pack(PS_TRUST_INIT);
	st->mark.v[s] = 0;	/* none */
	st->flags[s] = STORE_GSMALL | STORE_GSMALL_PREV;	/* streak 0 */
	for (k = 0; k < st->nsent; k++)
		st->sent[(size_t)s * st->nsent + k] = 0;
	if (st->z != NULL)
		st->z[s] = st->n[s] = 0;
}

/* slots[k] = store_slot(st, keys[k]) for each k, the lookups overlapped. */
void
store_slots(struct store *st, const uint64_t *keys, size_t n,
    uint32_t *slots)
{
	size_t s = ps_keytab_count(&st->keys);

	ps_keytab_insert_many(&st->keys, keys, n, slots);
	for (; s < ps_keytab_count(&st->keys); s++)
		store_new_slot(st, (uint32_t)s);
}

/* Slot of key, creating the key with weight 0 on first touch. */
uint32_t
store_slot(struct store *st, uint64_t key)
{
	int created;
	uint32_t slot = ps_keytab_insert(&st->keys, key, &created);

	if (created)
		store_new_slot(st, slot);
	return slot;
}

/*
 * A new job of nworkers workers starts: every worker's copy of the weights
 * is 0, as far as the significantly-modified filter knows.
 */
void
store_sent_reset(struct store *st, uint32_t nworkers)
{
	free(st->sent);
	st->nsent = nworkers;
	st->sent = xcalloc(st->cap * nworkers + 1, sizeof *st->sent);
}

/*
 * A job with KKT threshold kkt starts: the verdicts of another threshold
 * say nothing of this one's (the sums behind them are not kept), so every
 * key counts as above it until a round of this job touches it.
 */
void
store_gsmall_reset(struct store *st, double kkt)
{
	size_t n = ps_keytab_count(&st->keys), s;

	if (kkt != st->gsmall_kkt)
		for (s = 0; s < n; s++)
			st->flags[s] &= (uint8_t)~STORE_VERDICTS;
	st->gsmall_kkt = kkt;
}

/*
 * A worker came back (failover/rejoin.c): what it holds is not known, so the
 * significantly-modified filter sends it every weight once more (no
 * distance from NaN is within a threshold).
 */
void
store_sent_forget(struct store *st, uint32_t worker)
{
	size_t s, n = ps_keytab_count(&st->keys);

	if (worker >= st->nsent)
		return;
	for (s = 0; s < n; s++)
		st->sent[s * st->nsent + worker] = NAN;
}

/*
 * Keep each slot's state before its last round from now on (failover/rejoin.c):
 * until a round touches a slot, its state then is the current one.
 */
void
store_keep_prev(struct store *st)
{
	size_t n = ps_keytab_count(&st->keys), s;

	if (st->keep_prev)
		return;
	st->keep_prev = 1;
	ps_sparse_clear(&st->wprev);
	ps_sparse_clear(&st->trustprev);
	for (s = 0; s < n; s++)
		store_set_trust_before(st, (uint32_t)s,
		    store_keep_prev_slot(st, (uint32_t)s));
}

/*
 * Slot s's state now is its state before its last round (st->keep_prev
 * set): its weight and KKT verdict here; its trust radius, returned, goes
 * to store_set_trust_before() once the round set the new one.
 */
uint16_t
store_keep_prev_slot(struct store *st, uint32_t s)
{
	ps_sparse_set(&st->wprev, s, store_w(st, s));
	st->flags[s] = (st->flags[s] & (uint8_t)~STORE_GSMALL_PREV) |
	    (st->flags[s] & STORE_GSMALL ? STORE_GSMALL_PREV : 0);
	return st->trust[s];
}

/*
 * Slot s's trust radius before its last round was before (packed).  Most
 * keys' is the current one (a newton round, a copy) or twice it (a weight
 * that rests halves its radius, prox.h, 3): a flag says which, and only
 * the others' (a weight that moved, a radius that reached its floor) are
 * held, in trustprev, instead of 2 bytes on every key.
 */
void
store_set_trust_before(struct store *st, uint32_t s, uint16_t before)
{
	float now = ps_trust_unpack(st->trust[s]);

	st->flags[s] &= (uint8_t)~STORE_TRUST_HALVED;
	if (before == st->trust[s]) {
		ps_sparse_set(&st->trustprev, s, 0);
	} else if (before == ps_trust_pack(2 * now)) {
		st->flags[s] |= STORE_TRUST_HALVED;
		ps_sparse_set(&st->trustprev, s, 0);
	} else {
		ps_sparse_set(&st->trustprev, s, ps_trust_unpack(before));
	}
}

/* Slot s's trust radius before its last round (st->keep_prev set). */
float
store_trust_before(const struct store *st, uint32_t s)
{
	float held = ps_sparse_get(&st->trustprev, s),
	    now = ps_trust_unpack(st->trust[s]);

	if (held != 0)
		return held;
	return st->flags[s] & STORE_TRUST_HALVED ? 2 * now : now;
}

/*
 * Copy key's state from slot s of src into dst (created if absent): the
 * weight, trust radius, KKT verdict, round mark, momentum and the
 * optimiser state if src has one.
 */
void
store_copy_key(struct store *dst, const struct store *src, uint32_t s)
{
	uint32_t d = store_slot(dst, ps_keytab_key(&src->keys, s));
	uint16_t before = dst->keep_prev ?
	    ps_trust_pack(store_trust_before(dst, d)) : 0;

	store_set(dst, d, store_w(src, s));
	dst->trust[d] = src->trust[s];
	dst->flags[d] = src->flags[s];
	store_set_mark(dst, d, store_mark(src, s));
	if (dst->keep_prev)	/* dst's state before, as it was */
		store_set_trust_before(dst, d, before);
	ps_sparse_set(&dst->xprox, d, ps_sparse_get(&src->xprox, s));
	if (src->z == NULL)
		return;
	if (dst->z == NULL) {
		dst->z = xcalloc(dst->cap, sizeof *dst->z);
		dst->n = xcalloc(dst->cap, sizeof *dst->n);
	}
	dst->z[d] = src->z[s];
	dst->n[d] = src->n[s];
}

/* Weight of key; 0 for a key never seen. */
float
store_get(const struct store *st, uint64_t key)
{
	long slot = ps_keytab_find(&st->keys, key);

	return slot < 0 ? 0.0f : store_w(st, (uint32_t)slot);
}

/* Set a weight, keeping the l1 norm and nnz counts current. */
void
store_set(struct store *st, uint32_t slot, float w)
{
	float old = store_w(st, slot);

	st->l1 += fabs((double)w) - fabs((double)old);
	st->nnz += (w != 0) - (old != 0);
	ps_sparse_set(&st->w, slot, w);
}

/* Recompute every weight from (z, n) under opt (its penalties changed). */
void
store_online_refresh(struct store *st, const struct ps_ftrl *opt)
{
	size_t i, count = ps_keytab_count(&st->keys);

	for (i = 0; i < count; i++)
		store_set(st, (uint32_t)i,
		    (float)ps_ftrl_weight(opt, st->z[i], st->n[i]));
}

/*
 * An online job starts on this store: the weights must follow from (z, n).
 * A store without optimiser state gets it, each existing weight carried
 * over as the z that gives it under opt with n = 0 (a warm start); one that
 * has it (an earlier online job) keeps it and the weights it gave.
 */
void
store_online_begin(struct store *st, const struct ps_ftrl *opt)
{
	size_t i, count = ps_keytab_count(&st->keys);

	if (st->z != NULL)
		return;
	store_online_state(st, opt->opt, 0);
	for (i = 0; i < count; i++) {
		st->z[i] = ps_ftrl_warm_z(opt, store_w(st, (uint32_t)i));
		store_set(st, (uint32_t)i,
		    (float)ps_ftrl_weight(opt, st->z[i], 0));
	}
}

/* A batch job starts: the weights no longer follow an optimiser state. */
void
store_online_end(struct store *st)
{
	free(st->z);
	free(st->n);
	st->z = st->n = NULL;
	st->optimizer = 0;
	st->epochs = 0;
}

/* Give st optimiser state, all 0, of this optimiser and epochs of data. */
void
store_online_state(struct store *st, int optimizer, double epochs)
{
	if (st->cap == 0)
		store_grow(st, 0);
	free(st->z);
	free(st->n);
	st->z = xcalloc(st->cap, sizeof *st->z);
	st->n = xcalloc(st->cap, sizeof *st->n);
	st->optimizer = optimizer;
	st->epochs = epochs;
}

/* Set slot s's round mark (store_mark()). */
void
store_set_mark(struct store *st, uint32_t s, uint64_t mark)
{
	ps_stamp16_set(&st->mark, s, mark, ps_keytab_count(&st->keys));
}

static int
store_mark_cmp(const void *a, const void *b, void *arg)
{
	const struct store *st = arg;
	uint64_t x = store_mark(st, *(const uint32_t *)a);
	uint64_t y = store_mark(st, *(const uint32_t *)b);

	return (x > y) - (x < y);
}

/* Order slots of st by their round mark (resyncs and hand-overs). */
void
store_sort_by_mark(const struct store *st, uint32_t *slots, size_t n)
{
	qsort_r(slots, n, sizeof *slots, store_mark_cmp, (void *)st);
}

/*
 * 0 when st may take the keys not in it yet without holding more than
 * max_keys keys, else -1 with the reason.  Keys are looked up only when
 * the count alone does not settle it.
 */
int
store_room(const struct store *st, const uint64_t *keys, size_t n,
    uint64_t max_keys, char *err, size_t errlen)
{
	uint64_t have = ps_keytab_count(&st->keys), fresh = 0;
	size_t k;

	if (have + n <= max_keys)
		return 0;
	for (k = 0; k < n; k++)
		fresh += ps_keytab_find(&st->keys, keys[k]) < 0;
	if (have + fresh <= max_keys)
		return 0;
	snprintf(err, errlen, "key limit: this server holds %llu keys and a "
	    "push would add %llu, over its limit of %llu (ps-server "
	    "--max-keys)", (unsigned long long)have,
	    (unsigned long long)fresh, (unsigned long long)max_keys);
	return -1;
}
