/*
 * shard.h: the binary shard file, one worker's rows in block CSR form.
 *
 * Layout (all integers little-endian; see pskit-shard(5)):
 *
 *   offset 0, the 96-byte header:
 *     0  8  magic "PSKSHRD1"
 *     8  4  format version (1)
 *    12  4  header length (96)
 *    16  8  rows
 *    24  8  nnz (non-zeros)
 *    32  8  nfeat (distinct feature ids)
 *    40  8  positives (rows labelled +1)
 *    48  8  largest feature id (0 when nfeat is 0)
 *    56  8  blocks
 *    64  8  feature list: raw length
 *    72  8  feature list: compressed length
 *    80  4  feature list: CRC32C of the compressed bytes
 *    84  4  flags (0)
 *    88  4  reserved (0)
 *    92  4  CRC32C of bytes 0..91
 *   offset 96: the feature list, LZ4-compressed: the nfeat sorted ids as
 *     varints (LEB128) of their differences (the first from 0; all > 0).
 *   then the blocks, each a 32-byte block header and an LZ4 payload:
 *     0  4  rows in the block (> 0)
 *     4  4  flags (0)
 *     8  8  nnz in the block
 *    16  4  raw payload length: 9 * rows + 8 * nnz
 *    20  4  compressed payload length
 *    24  4  CRC32C of the compressed payload
 *    28  4  CRC32C of bytes 0..27
 *   raw payload: uint32 row lengths[rows], uint32 columns[nnz] (per row the
 *   first local index, then differences > 0), float32 values[nnz],
 *   int8 labels[rows] (+1 or -1).  Each of the three 4-byte arrays is
 *   stored as 4 byte planes: byte 0 of every element, then byte 1, ...
 *   The file ends right after the last block.
 *
 * The reader checks every length against limits and the file size, every
 * CRC, column indices (< nfeat, ascending in a row), labels, finite values
 * and that the counts add up, so a corrupt file gives an error, never a
 * crash or a huge allocation.
 */
#ifndef PS_SHARD_H
#define PS_SHARD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data/dataset.h"

#define PS_SHARD_MAGIC		"PSKSHRD1"
#define PS_SHARD_VERSION	1
#define PS_SHARD_HDRLEN		96
#define PS_SHARD_BLKHDRLEN	32

#define PS_SHARD_EDATA		(-1)	/* corrupt: "path: offset N: reason" */
#define PS_SHARD_EOPEN		(-2)	/* "cannot open/create 'path': ..." */
#define PS_SHARD_EIO		(-3)	/* "cannot read/write 'path': ..." */

/* The counts of a shard header. */
struct ps_shard_header {
	uint32_t	version;
	uint64_t	nrows, nnz, nfeat, positives, max_fid, nblocks;
};

/*
 * Write ds to path atomically (temporary, fsync, rename).  Returns 0 or
 * PS_SHARD_EOPEN/EIO/EDATA (the last for a data set the format cannot
 * hold) with a message in err; on failure no file is left at path.
 */
int	ps_shard_write(const char *path, const struct ps_dataset *ds,
	    char *err, size_t errlen);
/* Write ds to an open stream; name is used in messages.  Same returns. */
int	ps_shard_write_fp(FILE *fp, const char *name,
	    const struct ps_dataset *ds, char *err, size_t errlen);
/*
 * Read and verify a whole shard into ds (release it with
 * ps_dataset_release()).  On failure ds is zeroed and err says why.
 */
int	ps_shard_read(const char *path, struct ps_dataset *ds, char *err,
	    size_t errlen);
/* Read and verify only the header. */
int	ps_shard_read_header(const char *path, struct ps_shard_header *h,
	    char *err, size_t errlen);

#endif
