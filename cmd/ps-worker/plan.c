/*
 * plan.c: which of the worker's features go in which block and to which
 * server, and the seeded order in which blocks are visited (the shuffle
 * also orders sgd's mini-batches).
 *
 * A feature's block is a hash of its id and the job's seed, so every worker
 * puts a feature in the same block without talking.  Within a block features
 * are in ascending id order, so any server's part of a block, taken in
 * order, is the sorted key list the wire needs.  Positions do not depend on
 * the ring: only each feature's server (its primary) does, and that is
 * assigned again when the ring changes (failover.c), while the per-block
 * state built on positions (l1lr.h, gradients in flight) stays valid.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/keyhash.h"
#include "util/xmalloc.h"
#include "worker.h"

/* Block of feature fid: the same on every worker of a job. */
static uint32_t
plan_block(uint64_t fid, uint32_t nblocks, uint64_t seed)
{
	return (uint32_t)(ps_key_mix(fid ^ ps_key_mix(seed + 1)) % nblocks);
}

void
plan_build(struct plan *pl, const struct ps_dataset *ds,
    const struct ps_ring *ring, uint32_t nblocks, uint64_t seed)
{
	uint32_t *block = xcalloc(ds->nfeat, sizeof *block);
	size_t j, *fill;

	memset(pl, 0, sizeof *pl);
	pl->nblocks = nblocks;
	pl->boff = xcalloc((size_t)nblocks + 1, sizeof *pl->boff);
	pl->feats = xcalloc(ds->nfeat, sizeof *pl->feats);
	pl->keys = xcalloc(ds->nfeat, sizeof *pl->keys);
	for (j = 0; j < ds->nfeat; j++) {
		block[j] = plan_block(ds->fids[j], nblocks, seed);
		pl->boff[block[j] + 1]++;
	}
	for (j = 0; j < nblocks; j++)
		pl->boff[j + 1] += pl->boff[j];
	fill = xcalloc(nblocks, sizeof *fill);
	memcpy(fill, pl->boff, nblocks * sizeof *fill);
	for (j = 0; j < ds->nfeat; j++) {
		size_t at = fill[block[j]]++;

		pl->feats[at] = (uint32_t)j;
		pl->keys[at] = ds->fids[j];
	}
	free(fill);
	free(block);
	plan_assign(pl, ring);
}

/* Give every planned feature its server under ring (again on a change). */
void
plan_assign(struct plan *pl, const struct ps_ring *ring)
{
	size_t n = pl->boff[pl->nblocks], pos;

	free(pl->srv);
	pl->srv = xcalloc(n + 1, sizeof *pl->srv);
	pl->nservers = (uint32_t)ring->nservers;
	for (pos = 0; pos < n; pos++)
		pl->srv[pos] = (uint32_t)ps_ring_lookup(ring, pl->keys[pos]);
}

void
plan_release(struct plan *pl)
{
	free(pl->boff);
	free(pl->srv);
	free(pl->feats);
	free(pl->keys);
	memset(pl, 0, sizeof *pl);
}

/*
 * A permutation of 0 .. n-1 drawn from (seed, round): Fisher-Yates over
 * splitmix64.  The same arguments give the same permutation on every worker.
 */
void
plan_shuffle(uint32_t *perm, uint32_t n, uint64_t seed, uint64_t round)
{
	uint64_t state = ps_key_mix(seed ^ ps_key_mix(round + 7));
	uint32_t i, k, b;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n > 0 ? n - 1 : 0; i > 0; i--) {
		state = ps_key_mix(state + 0x9e3779b97f4a7c15ULL);
		k = (uint32_t)(state % (i + 1));
		b = perm[i];
		perm[i] = perm[k];
		perm[k] = b;
	}
}

/* The order of blocks in pass p: every block once, shuffled by (seed, p). */
void
plan_pass_order(const struct plan *pl, uint64_t pass, uint64_t seed,
    uint32_t *perm)
{
	plan_shuffle(perm, pl->nblocks, seed, pass);
}
