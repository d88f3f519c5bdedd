/*
 * test_model.c: unit tests of lib/model: the byte layout, write/read round
 * trips (with the file's size and record CRC), every truncation and bit
 * flip of a small file, crafted files with valid checksums but bad
 * contents, merging parts and directories, speed.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tmpdir.h"

#include "crc32c.h"
#include "model.h"

/* dir/name in a static buffer. */
static const char *
in_dir(const char *dir, const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

/* Fill m with n records: fids start, start+step, ...; weights vary. */
static void
model_fill(struct ps_model *m, size_t n, uint64_t start, uint64_t step)
{
	size_t i;

	memset(m, 0, sizeof *m);
	m->server_id = 0;
	m->nservers = 1;
	m->ring_version = 3;
	m->iteration = 42;
	m->lambda = 0.5;
	m->n = n;
	m->fids = calloc(n ? n : 1, sizeof *m->fids);
	m->w = calloc(n ? n : 1, sizeof *m->w);
	assert_non_null(m->fids);
	assert_non_null(m->w);
	for (i = 0; i < n; i++) {
		m->fids[i] = start + i * step;
		m->w[i] = (i % 3 == 0) ? 0.0f : (float)(i * 0.25 - 7);
	}
}

/* Read a whole file into a malloc'd buffer. */
static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf;
	long n;

	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

/* Write len bytes of buf to path. */
static void
spit(const char *path, const unsigned char *buf, size_t len)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

/* Expect reading path to fail as corrupt with this text in the message. */
static void
expect_corrupt(const char *path, const char *want)
{
	struct ps_model m;
	char err[512];

	assert_int_equal(ps_model_read(path, &m, err, sizeof err),
	    PS_MODEL_EDATA);
	if (strncmp(err, path, strlen(path)) != 0 || strstr(err, want) == NULL)
		fail_msg("got '%s', want '%s'", err, want);
	assert_null(m.fids);
}

static void
test_layout_is_as_documented(void **state)
{
	char *dir = test_tmp_dir("test_model");
	const char *path = in_dir(dir, "a.psm");
	struct ps_model m;
	unsigned char *b;
	uint32_t u32;
	uint64_t u64;
	float w;
	size_t len;
	char err[256];

	model_fill(&m, 2, 5, 10);
	m.w[0] = 1.5f;
	assert_int_equal(ps_model_write(path, &m, err, sizeof err), 0);
	b = slurp(path, &len);
	assert_int_equal(len, 56 + 2 * 12);
	assert_memory_equal(b, "PSKMODL1", 8);
	memcpy(&u32, b + 8, 4);
	assert_int_equal(u32, 1);
	memcpy(&u32, b + 20, 4);
	assert_int_equal(u32, 3);
	memcpy(&u64, b + 24, 8);
	assert_int_equal(u64, 42);
	memcpy(&u64, b + 40, 8);
	assert_int_equal(u64, 2);
	memcpy(&u32, b + 48, 4);
	assert_int_equal(u32, ps_crc32c(0, b, 48));
	memcpy(&u64, b + 52, 8);
	assert_int_equal(u64, 5);
	memcpy(&w, b + 60, 4);
	assert_true(w == 1.5f);
	memcpy(&u32, b + 76, 4);
	assert_int_equal(u32, ps_crc32c(0, b + 52, 24));
	free(b);
	ps_model_release(&m);
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void
test_round_trip(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[256];
	const char *path = in_dir(dir, "a.psm");
	struct ps_model a, b;
	unsigned char *bytes;
	size_t i, n, len;

	for (n = 0; n < 20000; n = n * 7 + 1) {
		model_fill(&a, n, 1, 3);
		a.server_id = 2;
		a.nservers = 3;
		assert_int_equal(ps_model_write(path, &a, err, sizeof err), 0);
		assert_int_equal(ps_model_read(path, &b, err, sizeof err), 0);
		assert_int_equal(b.server_id, 2);
		assert_int_equal(b.nservers, 3);
		assert_int_equal(b.ring_version, 3);
		assert_int_equal(b.iteration, 42);
		assert_true(b.lambda == 0.5);
		assert_int_equal(b.nparts, 1);
		assert_int_equal(b.n, n);
		for (i = 0; i < n; i++) {
			assert_int_equal(b.fids[i], a.fids[i]);
			assert_true(b.w[i] == a.w[i]);
		}
		/* The file's size, and its trailer: the records' CRC. */
		bytes = slurp(path, &len);
		assert_int_equal(b.file_size, len);
		assert_memory_equal(&b.records_crc, bytes + len - 4, 4);
		assert_int_equal(b.records_crc, ps_crc32c(0, bytes + 52,
		    len - 56));
		free(bytes);
		ps_model_release(&a);
		ps_model_release(&b);
	}
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void
test_write_rejects_bad_models(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[256];
	const char *path = in_dir(dir, "a.psm");
	struct ps_model m;

	model_fill(&m, 4, 1, 1);
	m.fids[2] = m.fids[1];
	assert_int_equal(ps_model_write(path, &m, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_non_null(strstr(err, "not ascending"));
	m.fids[2] = 3;
	m.w[3] = NAN;
	assert_int_equal(ps_model_write(path, &m, err, sizeof err),
	    PS_MODEL_EDATA);
	m.w[3] = 1;
	m.server_id = 1;
	assert_int_equal(ps_model_write(path, &m, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_int_equal(access(path, F_OK), -1);
	m.server_id = 0;
	assert_int_equal(ps_model_write("/nonexistent/dir/a.psm", &m, err,
	    sizeof err), PS_MODEL_ESYS);
	assert_non_null(strstr(err, "/nonexistent/dir/a.psm"));
	ps_model_release(&m);
	rmdir(dir);
	free(dir);
}

static void
test_every_truncation_fails(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[256];
	char path[4096];
	struct ps_model m;
	unsigned char *b;
	size_t len, cut;

	snprintf(path, sizeof path, "%s/a.psm", dir);
	model_fill(&m, 6, 10, 1);
	assert_int_equal(ps_model_write(path, &m, err, sizeof err), 0);
	ps_model_release(&m);
	b = slurp(path, &len);
	for (cut = 0; cut < len; cut++) {
		spit(path, b, cut);
		expect_corrupt(path, ": offset ");
	}
	spit(path, b, 20);
	expect_corrupt(path, ": offset 20: truncated header");
	spit(path, b, len - 1);
	expect_corrupt(path, "truncated");
	b[len] = 0;
	spit(path, b, len + 1);
	expect_corrupt(path, ": offset 128: trailing bytes");
	free(b);
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void
test_every_bit_flip_fails(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[256];
	char path[4096];
	struct ps_model m;
	unsigned char *b;
	size_t len, i;
	int bit;

	snprintf(path, sizeof path, "%s/a.psm", dir);
	model_fill(&m, 5, 1, 2);
	assert_int_equal(ps_model_write(path, &m, err, sizeof err), 0);
	ps_model_release(&m);
	b = slurp(path, &len);
	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit++) {
			b[i] ^= (unsigned char)(1u << bit);
			spit(path, b, len);
			expect_corrupt(path, ": offset ");
			b[i] ^= (unsigned char)(1u << bit);
		}
	}
	b[0] = 'X';
	spit(path, b, len);
	expect_corrupt(path, ": offset 0: bad magic");
	b[0] = 'P';
	b[50] ^= 1;
	spit(path, b, len);
	expect_corrupt(path, ": offset 48: header checksum mismatch");
	b[50] ^= 1;
	b[len - 1] ^= 1;
	spit(path, b, len);
	expect_corrupt(path, ": offset 112: record checksum mismatch");
	free(b);
	unlink(path);
	rmdir(dir);
	free(dir);
}

/* Build a file by hand with valid checksums: header fields then records. */
static size_t
craft(unsigned char *b, uint32_t sid, uint32_t nsrv, double lambda,
    uint64_t nhdr, const uint64_t *fids, const float *w, size_t n)
{
	uint32_t u32 = 1, crc;
	uint64_t it = 1;
	size_t i;

	memcpy(b, "PSKMODL1", 8);
	memcpy(b + 8, &u32, 4);
	memcpy(b + 12, &sid, 4);
	memcpy(b + 16, &nsrv, 4);
	memcpy(b + 20, &u32, 4);
	memcpy(b + 24, &it, 8);
	memcpy(b + 32, &lambda, 8);
	memcpy(b + 40, &nhdr, 8);
	crc = ps_crc32c(0, b, 48);
	memcpy(b + 48, &crc, 4);
	for (i = 0; i < n; i++) {
		memcpy(b + 52 + 12 * i, &fids[i], 8);
		memcpy(b + 60 + 12 * i, &w[i], 4);
	}
	crc = ps_crc32c(0, b + 52, 12 * n);
	memcpy(b + 52 + 12 * n, &crc, 4);
	return 56 + 12 * n;
}

static void
test_crafted_contents_fail(void **state)
{
	static const uint64_t asc[] = { 1, 2, 3 }, dup[] = { 1, 5, 5 },
	    zero[] = { 0, 1, 2 };
	static const float ok[] = { 1, 2, 3 };
	float nan3[] = { 1, NAN, 3 };
	char *dir = test_tmp_dir("test_model"), path[4096];
	unsigned char b[256];
	size_t len;

	snprintf(path, sizeof path, "%s/a.psm", dir);
	len = craft(b, 0, 1, 1, 3, dup, ok, 3);
	spit(path, b, len);
	expect_corrupt(path, ": offset 76: feature ids not ascending");
	len = craft(b, 0, 1, 1, 3, zero, ok, 3);
	spit(path, b, len);
	expect_corrupt(path, ": offset 52: feature id 0");
	len = craft(b, 0, 1, 1, 3, asc, nan3, 3);
	spit(path, b, len);
	expect_corrupt(path, ": offset 72: weight is not finite");
	len = craft(b, 2, 2, 1, 3, asc, ok, 3);
	spit(path, b, len);
	expect_corrupt(path, ": offset 12: server id 2 not below");
	len = craft(b, 0, 1, -1, 3, asc, ok, 3);
	spit(path, b, len);
	expect_corrupt(path, ": offset 32: bad lambda");
	/* A huge record count must not make the reader allocate it. */
	len = craft(b, 0, 1, 1, (uint64_t)1 << 60, asc, ok, 3);
	spit(path, b, len);
	expect_corrupt(path, ": offset 92: truncated (header says");
	len = craft(b, 0, 1, 1, UINT64_MAX, asc, ok, 3);
	spit(path, b, len);
	expect_corrupt(path, "truncated");
	len = craft(b, 0, 1, 1, 3, asc, ok, 3);
	spit(path, b, len);
	{
		struct ps_model m;
		char err[256];

		assert_int_equal(ps_model_read(path, &m, err, sizeof err), 0);
		assert_int_equal(m.n, 3);
		ps_model_release(&m);
	}
	unlink(path);
	rmdir(dir);
	free(dir);
}

/* Write part sid of nsrv holding fids sid+1, sid+1+nsrv, ... (n of them). */
static void
write_part(const char *path, uint32_t sid, uint32_t nsrv, size_t n)
{
	struct ps_model m;
	char err[256];

	model_fill(&m, n, sid + 1, nsrv);
	m.server_id = sid;
	m.nservers = nsrv;
	m.ring_version = sid + 1;
	assert_int_equal(ps_model_write(path, &m, err, sizeof err), 0);
	ps_model_release(&m);
}

static void
test_merge_parts_and_directory(void **state)
{
	char *dir = test_tmp_dir("test_model");
	char err[512], p0[4096], p1[4096], p2[4096];
	const char *paths[3] = { p2, p0, p1 };
	struct ps_model m;
	size_t i;
	FILE *fp;

	snprintf(p0, sizeof p0, "%s/part-0.psm", dir);
	snprintf(p1, sizeof p1, "%s/part-1.psm", dir);
	snprintf(p2, sizeof p2, "%s/part-2.psm", dir);
	write_part(p0, 0, 3, 100);
	write_part(p1, 1, 3, 50);
	write_part(p2, 2, 3, 0);
	assert_int_equal(ps_model_load(paths, 3, &m, err, sizeof err), 0);
	assert_int_equal(m.nparts, 3);
	assert_int_equal(m.n, 150);
	assert_int_equal(m.ring_version, 3);
	assert_int_equal(m.iteration, 42);
	for (i = 1; i < m.n; i++)
		assert_true(m.fids[i - 1] < m.fids[i]);
	ps_model_release(&m);
	/* A directory: only *.psm files count. */
	fp = fopen(in_dir(dir, "ring"), "w");
	assert_non_null(fp);
	fputs("not a model\n", fp);
	fclose(fp);
	paths[0] = dir;
	assert_int_equal(ps_model_load(paths, 1, &m, err, sizeof err), 0);
	assert_int_equal(m.nparts, 3);
	assert_int_equal(m.n, 150);
	ps_model_release(&m);
	unlink(in_dir(dir, "ring"));
	/* The directory and a part in it: the part is there twice. */
	paths[1] = p0;
	assert_int_equal(ps_model_load(paths, 2, &m, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_non_null(strstr(err, "parts disagree: "));
	assert_null(m.fids);
	unlink(p0);
	unlink(p1);
	unlink(p2);
	assert_int_equal(ps_model_load(paths, 1, &m, err, sizeof err),
	    PS_MODEL_ESYS);
	assert_non_null(strstr(err, "no model parts"));
	rmdir(dir);
	free(dir);
}

static void
test_merge_refuses_disagreement(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[512], p0[4096], p1[4096];
	const char *paths[2] = { p0, p1 };
	struct ps_model m, a;

	snprintf(p0, sizeof p0, "%s/a.psm", dir);
	snprintf(p1, sizeof p1, "%s/b.psm", dir);
	write_part(p0, 0, 2, 10);
	/* Overlapping feature ids. */
	model_fill(&a, 3, 5, 2);
	a.server_id = 1;
	a.nservers = 2;
	assert_int_equal(ps_model_write(p1, &a, err, sizeof err), 0);
	assert_int_equal(ps_model_load(paths, 2, &m, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_non_null(strstr(err, "parts disagree: feature 5 is in both"));
	/* Different iteration, lambda, server count, same server id. */
	a.fids[0] = 2;
	a.fids[1] = 4;
	a.fids[2] = 6;
	a.iteration = 41;
	assert_int_equal(ps_model_write(p1, &a, err, sizeof err), 0);
	assert_int_equal(ps_model_load(paths, 2, &m, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_non_null(strstr(err, "parts disagree: "));
	assert_non_null(strstr(err, "iteration 42 but"));
	a.iteration = 42;
	a.lambda = 0.25;
	assert_int_equal(ps_model_write(p1, &a, err, sizeof err), 0);
	assert_int_equal(ps_model_load(paths, 2, &m, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_non_null(strstr(err, "lambda"));
	a.lambda = 0.5;
	a.nservers = 3;
	assert_int_equal(ps_model_write(p1, &a, err, sizeof err), 0);
	assert_int_equal(ps_model_load(paths, 2, &m, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_non_null(strstr(err, "servers"));
	a.nservers = 2;
	a.server_id = 0;
	assert_int_equal(ps_model_write(p1, &a, err, sizeof err), 0);
	assert_int_equal(ps_model_load(paths, 2, &m, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_non_null(strstr(err, "both server 0"));
	a.server_id = 1;
	assert_int_equal(ps_model_write(p1, &a, err, sizeof err), 0);
	assert_int_equal(ps_model_load(paths, 2, &m, err, sizeof err), 0);
	assert_int_equal(m.n, 13);
	ps_model_release(&m);
	ps_model_release(&a);
	paths[1] = in_dir(dir, "missing.psm");
	assert_int_equal(ps_model_load(paths, 2, &m, err, sizeof err),
	    PS_MODEL_ESYS);
	assert_non_null(strstr(err, "cannot open"));
	unlink(p0);
	unlink(p1);
	rmdir(dir);
	free(dir);
}

/* Seconds since t0. */
static double
since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	    (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void
test_speed(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[256];
	const char *path = in_dir(dir, "big.psm");
	struct ps_model a, b;
	struct timespec t0;
	size_t n = 4000000;
	double tw, tr;

	model_fill(&a, n, 1, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ps_model_write(path, &a, err, sizeof err), 0);
	tw = since(&t0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ps_model_read(path, &b, err, sizeof err), 0);
	tr = since(&t0);
	assert_int_equal(b.n, n);
	print_message("4M records: write %.1f M/s (with fsync), read %.1f M/s\n",
	    (double)n / tw / 1e6, (double)n / tr / 1e6);
	ps_model_release(&a);
	ps_model_release(&b);
	unlink(path);
	rmdir(dir);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_is_as_documented),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_write_rejects_bad_models),
		cmocka_unit_test(test_every_truncation_fails),
		cmocka_unit_test(test_every_bit_flip_fails),
		cmocka_unit_test(test_crafted_contents_fail),
		cmocka_unit_test(test_merge_parts_and_directory),
		cmocka_unit_test(test_merge_refuses_disagreement),
		cmocka_unit_test(test_speed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
