/*
 * shard-data.h: the parts of ps-shard-data, grouped by file.
 *
 * ps-shard-data.c reads the options and the input rows; split.c reads a
 * large file's second half in a thread meanwhile; output.c assigns rows
 * to shards and writes them (binary through the shard builder, or
 * canonical libsvm text); stats.c counts rows, non-zeros and distinct ids.
 */
#ifndef SHARD_DATA_H
#define SHARD_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data/dataset.h"
#include "data/libsvm.h"
#include "util/atomicfile.h"

enum sd_format {
	SD_BIN,		/* PREFIX-K.pss, pskit-shard(5) */
	SD_LIBSVM	/* PREFIX-K.libsvm, canonical text */
};

struct sd_opts {
	int			 nshards;
	const char		*prefix;	/* NULL: write nothing */
	enum sd_format		 format;
	int			 hash;		/* assign by the row's text */
	double			 test;		/* held-out fraction, 0 = none */
	uint64_t		 seed;
	int			 stats, quiet;
	int			 nosync;	/* --no-sync */
	struct ps_libsvm_opts	 lo;
};

/* stats.c: counts over a set of rows. */
struct sd_stats {
	uint64_t	 rows, nnz, positives, max_fid;
	uint64_t	*dense;		/* [ndense]: bitmap of the ids < 2^24 */
	size_t		 ndense;
	uint64_t	*slot;		/* open-addressing set of larger ids */
	size_t		 cap, nfeat;
};

void	sd_stats_init(struct sd_stats *st);
void	sd_stats_add(struct sd_stats *st, const struct ps_libsvm_row *row);
void	sd_stats_merge(struct sd_stats *dst, const struct sd_stats *src);
void	sd_stats_print_header(FILE *fp);
void	sd_stats_print(FILE *fp, const char *name, const struct sd_stats *st);
void	sd_stats_release(struct sd_stats *st);

/* output.c: the shard files being written. */
struct sd_out {
	char				*path;
	struct ps_atomic		*af;
	struct ps_dataset_builder	 b;
	struct ps_dataset_builder	 tail;	/* rows after b's, read by a
						   second thread (split.c) */
	struct sd_stats			 st;
};

struct sd_outputs {
	const struct sd_opts	*o;
	struct sd_out		*out;		/* nshards, then the test set */
	size_t			 n;
	uint64_t		 rowno;		/* rows seen */
	uint64_t		 nextrow;	/* round-robin counter */
};

/*
 * Create every output's temporary; an exit status (0 or EX_CANTCREAT).
 * bytes: the inputs' size, if known (else 0), to size the shards' arrays.
 */
int	sd_outputs_open(struct sd_outputs *os, const struct sd_opts *o,
	    uint64_t bytes);
/*
 * Outputs that only collect rows, in memory (no paths or files): a
 * second thread's, for the second half of an input (split.c), and the
 * first step of sd_outputs_open.
 */
void	sd_outputs_open_rows(struct sd_outputs *os, const struct sd_opts *o,
	    uint64_t bytes);
/*
 * Give os the rows of later, read after os's, as if they had been routed
 * there (in turn: from os's next output on), and their counts; later is
 * freed.  Binary outputs only.
 */
void	sd_outputs_join(struct sd_outputs *os, struct sd_outputs *later);
/* Route one row to its output; 0 or EX_IOERR. */
int	sd_outputs_add(struct sd_outputs *os, const struct ps_libsvm_row *row);
/* Finish, fsync and rename every output; 0 or EX_IOERR (nothing left). */
int	sd_outputs_commit(struct sd_outputs *os);
/* Remove the temporaries not committed and free everything. */
void	sd_outputs_free(struct sd_outputs *os);
/* Print the per-output stats lines. */
void	sd_outputs_print_stats(const struct sd_outputs *os, FILE *fp);
/* Add every output's stats to all (the outputs hold every row once). */
void	sd_outputs_merge_stats(const struct sd_outputs *os, struct sd_stats *all);

/*
 * split.c: a large file's second half read by a second thread.  Start it
 * with the first half's reader r, fresh on path (NULL: read it all with
 * r; else r stops at the middle); once r ended without error, join it:
 * its rows then count as read by r (or, when they cannot, r reads on
 * through them).  After an error, drop it.  Its rows and bytes so far are
 * for progress reports (0 for NULL).
 */
struct sd_half;
struct sd_half *sd_half_start(struct ps_libsvm_reader *r, const char *path,
	    const struct sd_opts *o);
uint64_t sd_half_rows(struct sd_half *h);
uint64_t sd_half_bytes(struct sd_half *h);
void	sd_half_join(struct sd_half *h, struct ps_libsvm_reader *r,
	    struct sd_outputs *os);
void	sd_half_drop(struct sd_half *h);

#endif
