/*
 * fuzz_shard.c: libFuzzer harness for the shard reader (ps_shard_read and
 * ps_shard_read_header, lib/data/shard.c; pskit-shard(5)).
 *
 * Invariants besides "no crash": an error is PS_SHARD_EDATA with a message
 * that starts with the file's name, and leaves the data set zeroed; a
 * header that reads alone agrees with the whole read; an accepted shard is
 * a well-formed CSR data set (row offsets from 0 to nnz, columns below
 * nfeat and ascending in each row, feature ids ascending from 1, labels
 * +1 or -1, finite values, counts as the header says), and writing it
 * again with ps_shard_write_fp() gives a shard that reads back the same.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "data/shard.h"
#include "fuzz.h"

/* Check that ds is a well-formed data set with the header's counts. */
static void
check_dataset(const struct ps_dataset *ds, const struct ps_shard_header *h)
{
	uint64_t k, pos = 0;
	size_t i, j;

	FUZZ_CHECK(ds->nrows == h->nrows && ds->nnz == h->nnz &&
	    ds->nfeat == h->nfeat);
	FUZZ_CHECK(ds->rowptr[0] == 0 && ds->rowptr[ds->nrows] == ds->nnz);
	for (j = 0; j < ds->nfeat; j++)
		FUZZ_CHECK(ds->fids[j] > (j > 0 ? ds->fids[j - 1] : 0));
	FUZZ_CHECK(h->max_fid == (ds->nfeat > 0 ? ds->fids[ds->nfeat - 1] : 0));
	for (i = 0; i < ds->nrows; i++) {
		FUZZ_CHECK(ds->rowptr[i] <= ds->rowptr[i + 1]);
		FUZZ_CHECK(ds->y[i] == 1 || ds->y[i] == -1);
		pos += ds->y[i] > 0;
		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++) {
			FUZZ_CHECK(ds->col[k] < ds->nfeat);
			FUZZ_CHECK(k == ds->rowptr[i] ||
			    ds->col[k] > ds->col[k - 1]);
			FUZZ_CHECK(isfinite(ds->val[k]));
		}
	}
	FUZZ_CHECK(pos == h->positives);
}

/* Whether two data sets hold the same rows, ids and values, bit for bit. */
static int
same_dataset(const struct ps_dataset *a, const struct ps_dataset *b)
{
	return a->nrows == b->nrows && a->nnz == b->nnz &&
	    a->nfeat == b->nfeat &&
	    memcmp(a->fids, b->fids, a->nfeat * sizeof *a->fids) == 0 &&
	    memcmp(a->y, b->y, a->nrows) == 0 &&
	    memcmp(a->rowptr, b->rowptr,
	    (a->nrows + 1) * sizeof *a->rowptr) == 0 &&
	    memcmp(a->col, b->col, a->nnz * sizeof *a->col) == 0 &&
	    memcmp(a->val, b->val, a->nnz * sizeof *a->val) == 0;
}

/* Write ds as a shard to a memory file and read it back: the same rows. */
static void
check_rewrite(const struct ps_dataset *ds)
{
	struct ps_dataset again;
	char path[64], err[512];
	FILE *fp;
	int fd;

	fd = fuzz_memfile(NULL, 0, path, sizeof path);
	FUZZ_CHECK((fp = fopen(path, "wb")) != NULL);
	FUZZ_CHECK(ps_shard_write_fp(fp, path, ds, err, sizeof err) == 0);
	FUZZ_CHECK(fclose(fp) == 0);
	FUZZ_CHECK(ps_shard_read(path, &again, err, sizeof err) == 0);
	FUZZ_CHECK(same_dataset(ds, &again));
	ps_dataset_release(&again);
	close(fd);
}

/* Read one input as a shard, header alone and whole, and check both. */
static void
run(const uint8_t *data, size_t size)
{
	struct ps_shard_header h;
	struct ps_dataset ds;
	char path[64], err[512];
	int fd, rc, hrc;

	fd = fuzz_memfile(data, size, path, sizeof path);
	hrc = ps_shard_read_header(path, &h, err, sizeof err);
	if (hrc != 0) {
		FUZZ_CHECK(hrc == PS_SHARD_EDATA && fuzz_starts(err, path));
	}
	rc = ps_shard_read(path, &ds, err, sizeof err);
	if (rc == 0) {
		FUZZ_CHECK(hrc == 0);
		check_dataset(&ds, &h);
		check_rewrite(&ds);
		ps_dataset_release(&ds);
	} else {
		FUZZ_CHECK(rc == PS_SHARD_EDATA && fuzz_starts(err, path));
		FUZZ_CHECK(ds.nrows == 0 && ds.y == NULL && ds.col == NULL);
	}
	close(fd);
}

/* Recompute the checksums of the header, feature list and blocks. */
static void
fixup(uint8_t *p, size_t size)
{
	const uint8_t *end = p + size;
	uint64_t off, clen;

	if (size < PS_SHARD_HDRLEN)
		return;
	if ((clen = fuzz_ld64(p + 72)) > size)
		return;
	fuzz_put_crc(p + 80, p + PS_SHARD_HDRLEN, clen, end);
	fuzz_put_crc(p + 92, p, 92, end);
	for (off = PS_SHARD_HDRLEN + clen;
	    off < size && size - off >= PS_SHARD_BLKHDRLEN;
	    off += PS_SHARD_BLKHDRLEN + clen) {
		clen = fuzz_ld32(p + off + 20);
		fuzz_put_crc(p + off + 24, p + off + PS_SHARD_BLKHDRLEN, clen,
		    end);
		fuzz_put_crc(p + off + 28, p + off, 28, end);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_twice(data, size, run, fixup);
	return 0;
}
