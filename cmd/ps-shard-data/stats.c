/*
 * stats.c: the counts ps-shard-data --stats prints, as TSV.
 *
 * Distinct feature ids are kept in an open-addressing hash set (ids are
 * >= 1, so 0 marks a free slot) that doubles at half load.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "keyhash.h"
#include "shard-data.h"
#include "xmalloc.h"

void
sd_stats_init(struct sd_stats *st)
{
	memset(st, 0, sizeof *st);
	st->cap = 1024;
	st->slot = xcalloc(st->cap, sizeof *st->slot);
}

/* Insert id into the set (no growth check). */
static void
set_put(uint64_t *slot, size_t cap, uint64_t id, size_t *n)
{
	size_t i = ps_key_mix(id) & (cap - 1);

	while (slot[i] != 0 && slot[i] != id)
		i = (i + 1) & (cap - 1);
	if (slot[i] == 0) {
		slot[i] = id;
		(*n)++;
	}
}

/* Double the set's capacity. */
static void
set_grow(struct sd_stats *st)
{
	uint64_t *old = st->slot;
	size_t i, cap = st->cap, n = 0;

	st->cap *= 2;
	st->slot = xcalloc(st->cap, sizeof *st->slot);
	for (i = 0; i < cap; i++)
		if (old[i] != 0)
			set_put(st->slot, st->cap, old[i], &n);
	free(old);
}

void
sd_stats_add(struct sd_stats *st, const struct ps_libsvm_row *row)
{
	size_t k;

	st->rows++;
	st->nnz += row->nnz;
	st->positives += row->y > 0;
	if (row->nnz > 0 && row->fid[row->nnz - 1] > st->max_fid)
		st->max_fid = row->fid[row->nnz - 1];
	for (k = 0; k < row->nnz; k++) {
		if (2 * (st->nfeat + 1) > st->cap)
			set_grow(st);
		set_put(st->slot, st->cap, row->fid[k], &st->nfeat);
	}
}

void
sd_stats_print_header(FILE *fp)
{
	fputs("set\trows\tfeatures\tmax_feature_id\tnnz\tpositives\t"
	    "negatives\n", fp);
}

void
sd_stats_print(FILE *fp, const char *name, const struct sd_stats *st)
{
	fprintf(fp, "%s\t%" PRIu64 "\t%zu\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
	    "\t%" PRIu64 "\n", name, st->rows, st->nfeat, st->max_fid,
	    st->nnz, st->positives, st->rows - st->positives);
}

void
sd_stats_release(struct sd_stats *st)
{
	free(st->slot);
	memset(st, 0, sizeof *st);
}
