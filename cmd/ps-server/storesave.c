/*
 * storesave.c: write a store as a model part file, its keys by feature id,
 * without a copy of the store.  The keys are in slot order (insertion), so
 * they are sorted a chunk of key range at a time: a histogram of the saved
 * keys over SAVE_BINS bins of their range cuts it into chunks of at most
 * SAVE_CHUNK keys (or one bin, if a bin holds more), and each chunk is
 * gathered in one pass over the slots, sorted and written.  A save costs
 * a server a few hundred kilobytes besides its store, where a sorted copy
 * of its keys and weights cost 16 to 28 bytes a key, more at the end of a
 * job than any round did (tests/bench/README).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "server.h"
#include "util/radix.h"
#include "util/xmalloc.h"

#define SAVE_CHUNK	65536	/* keys sorted at a time, at most */
#define SAVE_BINS	65536	/* of the saved keys' range */

/* The saved keys' range, cut into SAVE_BINS bins of 2^shift keys. */
struct save_range {
	uint64_t	lo, hi;
	unsigned	shift;
};

/* Does slot s go into the model part: a weight, or optimiser state? */
static int
store_saves(const struct store *st, size_t s)
{
	return store_w(st, s) != 0 ||
	    (st->z != NULL && (st->z[s] != 0 || st->n[s] != 0));
}

/* The number of slots st saves, and their keys' range in *r. */
static size_t
save_count(const struct store *st, struct save_range *r)
{
	size_t n = ps_keytab_count(&st->keys), i, k = 0;
	uint64_t key;

	r->lo = UINT64_MAX, r->hi = 0;
	for (i = 0; i < n; i++) {
		if (!store_saves(st, i))
			continue;
		key = ps_keytab_key(&st->keys, i);
		r->lo = key < r->lo ? key : r->lo;
		r->hi = key > r->hi ? key : r->hi;
		k++;
	}
	for (r->shift = 0; ((r->hi - r->lo) >> r->shift) >= SAVE_BINS;
	    r->shift++)
		;
	return k;
}

/* count[b]: the saved keys in bin b of r. */
static void
save_histogram(const struct store *st, const struct save_range *r,
    uint32_t *count)
{
	size_t n = ps_keytab_count(&st->keys), i;

	for (i = 0; i < n; i++)
		if (store_saves(st, i))
			count[(ps_keytab_key(&st->keys, i) - r->lo) >>
			    r->shift]++;
}

/* Write the k saved keys of bins [b0, b1) of r to o, by feature id. */
static void
save_chunk(const struct store *st, const struct save_range *r, size_t b0,
    size_t b1, size_t k, struct ps_model_out *o)
{
	size_t n = ps_keytab_count(&st->keys), i, j = 0;
	uint64_t *keys = xcalloc(k, sizeof *keys), key, bin;
	uint32_t *slots = xcalloc(k, sizeof *slots), s;

	for (i = 0; i < n && j < k; i++) {
		key = ps_keytab_key(&st->keys, i);
		if (key < r->lo)
			continue;
		bin = (key - r->lo) >> r->shift;
		if (bin < b0 || bin >= b1 || !store_saves(st, i))
			continue;
		keys[j] = key;
		slots[j++] = (uint32_t)i;
	}
	ps_radix_sort(keys, slots, j);
	for (i = 0; i < j; i++) {
		s = slots[i];
		ps_model_out_put(o, keys[i], store_w(st, s),
		    st->z != NULL ? st->z[s] : 0, st->z != NULL ? st->n[s] : 0);
	}
	free(keys);
	free(slots);
}

/* Write st's saved keys to o, by feature id, a chunk of bins at a time. */
static void
save_records(const struct store *st, const struct save_range *r,
    struct ps_model_out *o)
{
	uint32_t *count = xcalloc(SAVE_BINS, sizeof *count);
	size_t b0, b1, k;

	save_histogram(st, r, count);
	for (b0 = 0; b0 < SAVE_BINS; b0 = b1) {
		k = count[b0];
		for (b1 = b0 + 1; b1 < SAVE_BINS &&
		    k + count[b1] <= SAVE_CHUNK; b1++)
			k += count[b1];
		if (k > 0)
			save_chunk(st, r, b0, b1, k, o);
	}
	free(count);
}

/*
 * Write the store as a model part (format 2, with the optimiser state, for
 * an online job's), its keys by feature id.
 */
int
store_save(const struct store *st, const struct job *job, uint64_t iteration,
    const char *path, char *err, size_t errlen)
{
	struct ps_model_out *o;
	struct save_range r;
	struct ps_model head;
	int rc;

	memset(&head, 0, sizeof head);
	head.server_id = job->server_index;
	head.nservers = job->nservers ? job->nservers : 1;
	head.ring_version = job->ring_version;
	head.iteration = iteration;
	head.lambda = job->lambda;
	head.n = save_count(st, &r);
	if (st->z != NULL) {
		head.optimizer = (uint32_t)st->optimizer;
		head.epochs = st->epochs;
	}
	if ((rc = ps_model_out_open(&o, path, &head, st->z != NULL, err,
	    errlen)) != 0)
		return rc;
	if (head.n > 0)
		save_records(st, &r, o);
	return ps_model_out_commit(o, err, errlen);
}
