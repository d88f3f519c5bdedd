/*
 * dataset.c: the CSR data set and its builder.
 *
 * The builder keeps global ids until finish.  Remapping then uses a dense
 * table indexed by id when the largest id is small compared with the data
 * (the usual libsvm case), and otherwise a radix sort of the ids plus a
 * binary search per non-zero.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "util/radix.h"
#include "util/xmalloc.h"

#define DENSE_MIN	(UINT64_C(1) << 24)	/* a dense table is always fine */
#define DENSE_MAX	(UINT64_C(1) << 31)	/* and never beyond this */

void
ps_dataset_release(struct ps_dataset *ds)
{
	free(ds->fids);
	free(ds->y);
	free(ds->rowptr);
	free(ds->col);
	free(ds->val);
	memset(ds, 0, sizeof *ds);
}

size_t
ps_dataset_positives(const struct ps_dataset *ds)
{
	size_t i, n = 0;

	for (i = 0; i < ds->nrows; i++)
		n += ds->y[i] > 0;
	return n;
}

void
ps_dataset_builder_init(struct ps_dataset_builder *b)
{
	memset(b, 0, sizeof *b);
	b->cap_rows = 1024;
	b->y = xmalloc(b->cap_rows);
	b->rowptr = xcalloc(b->cap_rows + 1, sizeof *b->rowptr);
}

void
ps_dataset_builder_reserve(struct ps_dataset_builder *b, size_t rows,
    size_t nnz)
{
	if (b->nrows != 0 || b->nnz != 0)
		return;
	if (rows > b->cap_rows) {
		b->cap_rows = rows;
		free(b->y);
		free(b->rowptr);
		b->y = xmalloc(b->cap_rows);
		b->rowptr = xmalloc((b->cap_rows + 1) * sizeof *b->rowptr);
		b->rowptr[0] = 0;
	}
	if (nnz > b->cap_nnz) {
		b->cap_nnz = nnz;
		free(b->gid32);
		free(b->val);
		b->gid32 = xmalloc(b->cap_nnz * sizeof *b->gid32);
		b->val = xmalloc(b->cap_nnz * sizeof *b->val);
	}
}

/* The global id of non-zero k. */
static inline uint64_t
builder_id(const struct ps_dataset_builder *b, size_t k)
{
	return b->gid != NULL ? b->gid[k] : b->gid32[k];
}

/* An id of 2^32 or more came: keep every id in 8 bytes from now on. */
static void
builder_widen(struct ps_dataset_builder *b)
{
	size_t k;

	b->gid = xcalloc(b->cap_nnz + 1, sizeof *b->gid);
	for (k = 0; k < b->nnz; k++)
		b->gid[k] = b->gid32[k];
	free(b->gid32);
	b->gid32 = NULL;
}

/* Make room for rows more rows and nnz more non-zeros, growing by copies. */
static void
builder_room(struct ps_dataset_builder *b, size_t rows, size_t nnz)
{
	if (b->nrows + rows > b->cap_rows) {
		b->cap_rows = (b->nrows + rows) * 2;
		b->y = xreallocarray(b->y, b->cap_rows, 1);
		b->rowptr = xreallocarray(b->rowptr, b->cap_rows + 1,
		    sizeof *b->rowptr);
	}
	if (b->nnz + nnz > b->cap_nnz) {
		b->cap_nnz = (b->nnz + nnz) * 2 + 1024;
		if (b->gid != NULL)
			b->gid = xreallocarray(b->gid, b->cap_nnz,
			    sizeof *b->gid);
		else
			b->gid32 = xreallocarray(b->gid32, b->cap_nnz,
			    sizeof *b->gid32);
		b->val = xreallocarray(b->val, b->cap_nnz, sizeof *b->val);
	}
}

void
ps_dataset_builder_add(struct ps_dataset_builder *b, int y,
    const uint64_t *fid, const float *val, size_t n)
{
	size_t k;

	builder_room(b, 1, n);
	if (n > 0) {
		if (fid[n - 1] > b->max_fid)
			b->max_fid = fid[n - 1];
		if (b->gid == NULL && b->max_fid > UINT32_MAX)
			builder_widen(b);
		if (b->gid != NULL)
			memcpy(b->gid + b->nnz, fid, n * sizeof *fid);
		else
			for (k = 0; k < n; k++)
				b->gid32[b->nnz + k] = (uint32_t)fid[k];
		memcpy(b->val + b->nnz, val, n * sizeof *val);
		b->nnz += n;
	}
	b->y[b->nrows++] = (int8_t)(y > 0 ? 1 : -1);
	b->rowptr[b->nrows] = b->nnz;
}

void
ps_dataset_builder_append(struct ps_dataset_builder *b,
    struct ps_dataset_builder *more)
{
	size_t k;

	builder_room(b, more->nrows, more->nnz);
	if (more->max_fid > b->max_fid)
		b->max_fid = more->max_fid;
	if (b->gid == NULL && b->max_fid > UINT32_MAX)
		builder_widen(b);
	if (more->nnz > 0) {
		if (b->gid == NULL)
			memcpy(b->gid32 + b->nnz, more->gid32,
			    more->nnz * sizeof *more->gid32);
		else
			for (k = 0; k < more->nnz; k++)
				b->gid[b->nnz + k] = builder_id(more, k);
		memcpy(b->val + b->nnz, more->val,
		    more->nnz * sizeof *more->val);
	}
	memcpy(b->y + b->nrows, more->y, more->nrows);
	for (k = 1; k <= more->nrows; k++)
		b->rowptr[b->nrows + k] = b->nnz + more->rowptr[k];
	b->nrows += more->nrows;
	b->nnz += more->nnz;
	ps_dataset_builder_release(more);
	ps_dataset_builder_init(more);
}

/*
 * Remap through a table indexed by id (all ids are below 2^31, so in
 * gid32); sets ds->fids and nfeat, and col[k] for every non-zero.
 */
static void
remap_dense(const struct ps_dataset_builder *b, struct ps_dataset *ds,
    uint32_t *col)
{
	uint32_t *map = xcalloc(b->max_fid + 1, sizeof *map);
	size_t k, j = 0;
	uint64_t id;

	for (k = 0; k < b->nnz; k++)
		map[b->gid32[k]] = 1;
	for (id = 1; id <= b->max_fid; id++)
		j += map[id];
	ds->nfeat = j;
	ds->fids = xcalloc(j + 1, sizeof *ds->fids);
	for (id = 1, j = 0; id <= b->max_fid; id++)
		if (map[id]) {
			ds->fids[j] = id;
			map[id] = (uint32_t)j++;
		}
	for (k = 0; k < b->nnz; k++)
		col[k] = map[b->gid32[k]];
	free(map);
}

/* Index of id in the sorted array a of n ids (id is known to be there). */
static uint32_t
find_id(const uint64_t *a, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (a[mid] <= id)
			lo = mid;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

/*
 * Remap through sorting; sets ds->fids and nfeat, and col[k] for every
 * non-zero.  Fails beyond 2^32 - 1 distinct ids.
 */
static int
remap_sorted(const struct ps_dataset_builder *b, struct ps_dataset *ds,
    uint32_t *col, char *err, size_t errlen)
{
	uint64_t *ids = xcalloc(b->nnz + 1, sizeof *ids);
	size_t k, j = 0;

	for (k = 0; k < b->nnz; k++)
		ids[k] = builder_id(b, k);
	ps_radix_sort(ids, NULL, b->nnz);
	for (k = 0; k < b->nnz; k++)
		if (j == 0 || ids[k] != ids[j - 1])
			ids[j++] = ids[k];
	if (j > UINT32_MAX) {
		free(ids);
		snprintf(err, errlen, "too many distinct features: %zu", j);
		return -1;
	}
	ds->nfeat = j;
	ds->fids = xreallocarray(ids, j + 1, sizeof *ids);
	for (k = 0; k < b->nnz; k++)
		col[k] = find_id(ds->fids, j, builder_id(b, k));
	return 0;
}

/*
 * The column indices overwrite the 4-byte ids they come from (k is read
 * before it is written), so the data set's col is the builder's gid32;
 * with 8-byte ids it is a new array.
 */
int
ps_dataset_builder_finish(struct ps_dataset_builder *b,
    struct ps_dataset *ds, char *err, size_t errlen)
{
	uint64_t lim = 2 * (uint64_t)b->nnz;
	uint32_t *col;

	memset(ds, 0, sizeof *ds);
	if (b->gid == NULL && b->gid32 == NULL)
		b->gid32 = xcalloc(1, sizeof *b->gid32);	/* no rows */
	col = b->gid != NULL ? xcalloc(b->nnz + 1, sizeof *col) : b->gid32;
	if (lim < DENSE_MIN)
		lim = DENSE_MIN;
	if (b->max_fid < lim && b->max_fid < DENSE_MAX)
		remap_dense(b, ds, col);
	else if (remap_sorted(b, ds, col, err, errlen) != 0) {
		if (col != b->gid32)
			free(col);
		ps_dataset_release(ds);
		return -1;
	}
	if (col == b->gid32)
		b->gid32 = NULL;
	ds->col = col;
	ds->nrows = b->nrows;
	ds->nnz = b->nnz;
	ds->y = b->y;
	ds->rowptr = b->rowptr;
	ds->val = b->val != NULL ? b->val : xcalloc(1, sizeof *ds->val);
	b->y = NULL;
	b->rowptr = NULL;
	b->val = NULL;
	ps_dataset_builder_release(b);
	ps_dataset_builder_init(b);
	return 0;
}

void
ps_dataset_builder_release(struct ps_dataset_builder *b)
{
	free(b->y);
	free(b->rowptr);
	free(b->gid32);
	free(b->gid);
	free(b->val);
	memset(b, 0, sizeof *b);
}
