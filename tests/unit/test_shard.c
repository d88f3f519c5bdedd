/*
 * test_shard.c: shard files round-trip exactly, a block's padding is
 * zeros (never what a buffer held before), and a corrupt shard (any byte
 * changed, any truncation, trailing junk) is refused with a message, never
 * a crash.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <lz4.h>

#include "data/dataset.h"
#include "data/shard.h"

/* A random data set of nrows rows over ids up to maxid. */
static void
make(struct ps_dataset *ds, size_t nrows, uint64_t maxid, unsigned seed)
{
	struct ps_dataset_builder b;
	uint64_t fid[64], id;
	float val[64];
	char err[128];
	size_t i, n;

	srand(seed);
	ps_dataset_builder_init(&b);
	for (i = 0; i < nrows; i++) {
		for (n = 0, id = 0; n < 64; n++) {
			id += 1 + (uint64_t)rand() % (maxid / 32 + 1);
			if (id > maxid)
				break;
			fid[n] = id;
			val[n] = (float)(rand() % 1000) / 7.0f - 50;
		}
		n = (size_t)rand() % (n + 1);
		ps_dataset_builder_add(&b, rand() % 3 ? -1 : 1, fid, val, n);
	}
	assert_int_equal(ps_dataset_builder_finish(&b, ds, err, sizeof err), 0);
	ps_dataset_builder_release(&b);
}

/* Assert a and b hold the same rows. */
static void
same(const struct ps_dataset *a, const struct ps_dataset *b)
{
	assert_int_equal(a->nrows, b->nrows);
	assert_int_equal(a->nnz, b->nnz);
	assert_int_equal(a->nfeat, b->nfeat);
	assert_memory_equal(a->fids, b->fids, a->nfeat * sizeof *a->fids);
	assert_memory_equal(a->y, b->y, a->nrows);
	assert_memory_equal(a->rowptr, b->rowptr,
	    (a->nrows + 1) * sizeof *a->rowptr);
	assert_memory_equal(a->col, b->col, a->nnz * sizeof *a->col);
	assert_memory_equal(a->val, b->val, a->nnz * sizeof *a->val);
}

/* A fresh temporary path (the file does not exist); free it. */
static char *
temp_path(void)
{
	char *path = strdup("/tmp/test_shard.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	return path;
}

/* Write ds to a temporary, read it back and compare. */
static void
round_trip(const struct ps_dataset *ds)
{
	struct ps_shard_header h;
	struct ps_dataset back;
	char *path = temp_path(), err[512];

	if (ps_shard_write(path, ds, err, sizeof err) != 0)
		fail_msg("%s", err);
	if (ps_shard_read(path, &back, err, sizeof err) != 0)
		fail_msg("%s", err);
	same(ds, &back);
	assert_int_equal(ps_shard_read_header(path, &h, err, sizeof err), 0);
	assert_int_equal(h.nrows, ds->nrows);
	assert_int_equal(h.positives, ps_dataset_positives(ds));
	ps_dataset_release(&back);
	unlink(path);
	free(path);
}

static void
test_round_trip(void **state)
{
	struct ps_dataset ds;

	make(&ds, 5000, 1000, 1);		/* dense ids */
	round_trip(&ds);
	ps_dataset_release(&ds);
	make(&ds, 70000, 100, 2);		/* several blocks */
	round_trip(&ds);
	ps_dataset_release(&ds);
	make(&ds, 300, UINT64_MAX - 5, 3);	/* huge ids */
	round_trip(&ds);
	ps_dataset_release(&ds);
	make(&ds, 0, 10, 4);			/* empty */
	round_trip(&ds);
	ps_dataset_release(&ds);
	make(&ds, 50, 1, 5);			/* rows without features */
	round_trip(&ds);
	ps_dataset_release(&ds);
}

/* Read a file holding the n bytes of buf; the result of ps_shard_read(). */
static int
read_bytes(const char *path, const unsigned char *buf, size_t n, char *err,
    size_t errlen)
{
	struct ps_dataset ds;
	FILE *fp = fopen(path, "wb");
	int rc;

	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
	if ((rc = ps_shard_read(path, &ds, err, errlen)) != 0)
		assert_null(ds.y);	/* released on failure */
	ps_dataset_release(&ds);
	return rc;
}

/* Load a shard file into memory; *n gets its size. */
static unsigned char *
slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf;
	long len;

	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)len + 16);
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	*n = (size_t)len;
	return buf;
}

/* Little-endian fields of the file (pskit-shard(5)). */
static uint64_t
le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/*
 * A big block and then a one-row block: the small one's 4 bytes of padding
 * (pskit-shard(5)) fall where the writer's buffers held the big one's
 * payload, and must still be zeros.
 */
static void
test_padding_zero(void **state)
{
	static uint64_t fid[8192];
	static float val[8192];
	struct ps_dataset_builder b;
	struct ps_dataset ds;
	char *path = temp_path(), err[512], *comp, raw[9 + 8 + 16];
	uint8_t h[PS_SHARD_HDRLEN], bh[PS_SHARD_BLKHDRLEN];
	size_t i;
	FILE *fp;

	(void)state;
	for (i = 0; i < 8192; i++) {
		fid[i] = 2 * i + 1;
		val[i] = (float)i + 0.5f;
	}
	ps_dataset_builder_init(&b);
	ps_dataset_builder_add(&b, 1, fid, val, 8192);
	ps_dataset_builder_add(&b, -1, fid, val, 8192);
	ps_dataset_builder_add(&b, 1, fid + 7, val + 7, 1);
	assert_int_equal(ps_dataset_builder_finish(&b, &ds, err, sizeof err), 0);
	ps_dataset_builder_release(&b);
	if (ps_shard_write(path, &ds, err, sizeof err) != 0)
		fail_msg("%s", err);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	/* Past the header, the feature list and the first block. */
	assert_int_equal(fread(h, 1, sizeof h, fp), sizeof h);
	assert_int_equal(fseek(fp, (long)le(h + 72, 8), SEEK_CUR), 0);
	assert_int_equal(fread(bh, 1, sizeof bh, fp), sizeof bh);
	assert_int_equal(le(bh, 4), 2);
	assert_int_equal(fseek(fp, (long)le(bh + 20, 4), SEEK_CUR), 0);
	/* The one-row block: 9 + 8 raw bytes, the last 4 the padding. */
	assert_int_equal(fread(bh, 1, sizeof bh, fp), sizeof bh);
	assert_int_equal(le(bh, 4), 1);
	assert_int_equal(le(bh + 16, 4), 9 + 8);
	comp = malloc(le(bh + 20, 4));
	assert_int_equal(fread(comp, 1, le(bh + 20, 4), fp),
	    le(bh + 20, 4));
	assert_int_equal(LZ4_decompress_safe(comp, raw, (int)le(bh + 20, 4),
	    (int)sizeof raw), 9 + 8);
	assert_memory_equal(raw + 13, "\0\0\0\0", 4);
	free(comp);
	fclose(fp);
	ps_dataset_release(&ds);
	unlink(path);
	free(path);
}

static void
test_corruption(void **state)
{
	struct ps_dataset ds;
	char *path = temp_path(), *bad = temp_path(), err[512];
	unsigned char *buf;
	size_t n, off, bit;

	make(&ds, 20, 100, 6);
	assert_int_equal(ps_shard_write(path, &ds, err, sizeof err), 0);
	buf = slurp(path, &n);
	for (off = 0; off < n; off++) {		/* every byte changed */
		bit = 1u << (off % 8);
		buf[off] ^= (unsigned char)bit;
		if (read_bytes(bad, buf, n, err, sizeof err) != PS_SHARD_EDATA)
			fail_msg("flipped byte %zu was accepted", off);
		assert_non_null(strstr(err, ": offset "));
		assert_int_equal(strncmp(err, bad, strlen(bad)), 0);
		buf[off] ^= (unsigned char)bit;
	}
	for (off = 0; off < n; off++)		/* every truncation */
		assert_int_equal(read_bytes(bad, buf, off, err, sizeof err),
		    PS_SHARD_EDATA);
	memset(buf + n, 0, 16);			/* trailing junk */
	assert_int_equal(read_bytes(bad, buf, n + 1, err, sizeof err),
	    PS_SHARD_EDATA);
	assert_non_null(strstr(err, "trailing data"));
	assert_int_equal(read_bytes(bad, buf, n, err, sizeof err), 0);
	unlink(path);
	unlink(bad);
	free(buf);
	free(path);
	free(bad);
	ps_dataset_release(&ds);
}

static void
test_errors_named(void **state)
{
	struct ps_dataset ds;
	char err[512];

	assert_int_equal(ps_shard_read("/nonexistent/x.pss", &ds, err,
	    sizeof err), PS_SHARD_EOPEN);
	assert_string_equal(err, "cannot open '/nonexistent/x.pss': "
	    "No such file or directory");
	make(&ds, 10, 10, 7);
	assert_int_equal(ps_shard_write("/nonexistent/x.pss", &ds, err,
	    sizeof err), PS_SHARD_EOPEN);
	ps_dataset_release(&ds);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_padding_zero),
		cmocka_unit_test(test_corruption),
		cmocka_unit_test(test_errors_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
