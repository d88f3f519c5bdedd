/*
 * dataset.h: an in-memory data set in CSR form, and a builder that collects
 * rows with global feature ids and remaps them to local column indices.
 *
 * Row i has labels y[i] (+1 or -1) and the non-zeros k in
 * [rowptr[i], rowptr[i + 1]): column col[k] (an index into fids, ascending
 * within a row) with value val[k].  fids holds the nfeat distinct feature
 * ids that occur, sorted ascending, so local index j stands for fids[j].
 * A shard file (shard.h) loads into exactly this struct.
 *
 * Every array is malloc'd and owned by the struct; ps_dataset_release()
 * frees them all and zeroes the struct.
 */
#ifndef PS_DATASET_H
#define PS_DATASET_H

#include <stddef.h>
#include <stdint.h>

struct ps_dataset {
	size_t		 nrows, nnz, nfeat;
	uint64_t	*fids;		/* nfeat sorted unique feature ids */
	int8_t		*y;		/* nrows labels, +1/-1 */
	uint64_t	*rowptr;	/* nrows + 1 offsets into col/val */
	uint32_t	*col;		/* nnz indices into fids */
	float		*val;		/* nnz values */
};

/* Free the arrays and zero ds; a zeroed struct is fine. */
void	ps_dataset_release(struct ps_dataset *ds);
/* Number of rows with label +1. */
size_t	ps_dataset_positives(const struct ps_dataset *ds);

/*
 * Rows collected so far, with global ids; use only through the functions.
 * The ids take 4 bytes each while they all fit (gid32, remapped in place to
 * the data set's col at the end), 8 once one does not (gid).
 */
struct ps_dataset_builder {
	size_t		 nrows, nnz, cap_rows, cap_nnz;
	int8_t		*y;
	uint64_t	*rowptr;
	uint32_t	*gid32;		/* nnz global ids, while gid is NULL */
	uint64_t	*gid;		/* nnz global ids, once one is >= 2^32 */
	float		*val;
	uint64_t	 max_fid;
};

/* Start empty. */
void	ps_dataset_builder_init(struct ps_dataset_builder *b);
/*
 * Make room for about rows rows and nnz non-zeros at once (an estimate:
 * more still fit, growing as before), so that a builder whose size is
 * known roughly does not copy its arrays as it grows.  Call it empty.
 */
void	ps_dataset_builder_reserve(struct ps_dataset_builder *b, size_t rows,
	    size_t nnz);
/* Append a row; fid must be strictly ascending (as a libsvm row is). */
void	ps_dataset_builder_add(struct ps_dataset_builder *b, int y,
	    const uint64_t *fid, const float *val, size_t n);
/*
 * Append more's rows after b's (ids of either width); more is left empty
 * and may be reused.
 */
void	ps_dataset_builder_append(struct ps_dataset_builder *b,
	    struct ps_dataset_builder *more);
/*
 * Move the rows into ds with local column indices; the builder is left
 * empty and may be reused.  Fails only with over 2^32 - 1 distinct ids.
 */
int	ps_dataset_builder_finish(struct ps_dataset_builder *b,
	    struct ps_dataset *ds, char *err, size_t errlen);
/* Free what the builder holds. */
void	ps_dataset_builder_release(struct ps_dataset_builder *b);

#endif
