/*
 * test_model.c: unit tests of lib/model: the byte layout, write/read round
 * trips (with the file's size and record CRC), a writer given too few or
 * too many records, every truncation and bit flip of a small file,
 * crafted files with valid checksums but bad contents, merging parts and
 * directories, speed; the same for format 2 (weights and optimiser
 * state), and format 1 read as before.
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
#include <unistd.h>

#include <cmocka.h>

#include "tmpdir.h"

#include "algo/ftrl.h"
#include "model/model.h"
#include "util/clock.h"
#include "util/crc32c.h"

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

/* model_fill, with optimiser state: format 2, zero weights included. */
static void
model_fill2(struct ps_model *m, size_t n, uint64_t start, uint64_t step)
{
	size_t i;

	model_fill(m, n, start, step);
	m->optimizer = PS_OPT_FTRL;
	m->epochs = 2.5;
	m->z = calloc(n ? n : 1, sizeof *m->z);
	m->nsq = calloc(n ? n : 1, sizeof *m->nsq);
	assert_non_null(m->z);
	assert_non_null(m->nsq);
	for (i = 0; i < n; i++) {
		m->z[i] = (double)i * 0.5 - 3;
		m->nsq[i] = (double)i * 1.25;
	}
}

/* Check that b, read back, is a as written, in format 2 if v2. */
static void
check_read_back(const struct ps_model *a, const struct ps_model *b, int v2)
{
	size_t i;

	assert_int_equal(b->server_id, 2);
	assert_int_equal(b->nservers, 3);
	assert_int_equal(b->ring_version, 3);
	assert_int_equal(b->iteration, 42);
	assert_true(b->lambda == 0.5);
	assert_int_equal(b->nparts, 1);
	assert_int_equal(b->n, a->n);
	assert_int_equal(b->format, v2 ? 2 : 1);
	assert_int_equal(b->optimizer, v2 ? PS_OPT_ADAGRAD : 0);
	assert_true(b->epochs == (v2 ? 2.5 : 0));
	assert_true((b->z != NULL) == v2 && (b->nsq != NULL) == v2);
	for (i = 0; i < a->n; i++) {
		assert_int_equal(b->fids[i], a->fids[i]);
		assert_true(b->w[i] == a->w[i]);
		assert_true(!v2 || (b->z[i] == a->z[i] &&
		    b->nsq[i] == a->nsq[i]));
	}
}

static void
test_round_trip(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[256];
	const char *path = in_dir(dir, "a.psm");
	size_t n, len, hsize;
	struct ps_model a, b;
	unsigned char *bytes;
	uint32_t crc;
	int v2;

	for (v2 = 0; v2 <= 1; v2++)
	for (n = 0; n < 20000; n = n * 7 + 1) {
		if (v2) {
			model_fill2(&a, n, 1, 3);
			a.optimizer = PS_OPT_ADAGRAD;
		} else
			model_fill(&a, n, 1, 3);
		a.server_id = 2;
		a.nservers = 3;
		assert_int_equal(ps_model_write(path, &a, err, sizeof err), 0);
		assert_int_equal(ps_model_read(path, &b, err, sizeof err), 0);
		check_read_back(&a, &b, v2);
		/*
		 * The file's size, and its trailer: the records' CRC, in
		 * format 2 following that of the header before its CRC.
		 */
		bytes = slurp(path, &len);
		hsize = v2 ? 64 : 52;
		assert_int_equal(len, hsize + 4 + n * (v2 ? 28 : 12));
		assert_int_equal(b.file_size, len);
		assert_memory_equal(&b.records_crc, bytes + len - 4, 4);
		crc = v2 ? ps_crc32c(0, bytes, 60) : 0;
		assert_int_equal(b.records_crc, ps_crc32c(crc, bytes + hsize,
		    len - hsize - 4));
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
	assert_int_equal(rmdir(dir), 0);	/* no temporary left */
	free(dir);
}

/* Write m's first put records with a writer whose header says m->n. */
static int
write_records(const char *path, const struct ps_model *m, size_t put,
    char *err, size_t errlen)
{
	struct ps_model_out *o;
	size_t i;

	assert_int_equal(ps_model_out_open(&o, path, m, 0, err, errlen), 0);
	for (i = 0; i < put; i++)
		ps_model_out_put(o, m->fids[i % m->n], m->w[i % m->n], 0, 0);
	return ps_model_out_commit(o, err, errlen);
}

static void
test_writer_counts_must_match(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[256];
	const char *path = in_dir(dir, "a.psm");
	struct ps_model m, back;

	model_fill(&m, 5, 2, 3);
	assert_int_equal(write_records(path, &m, 4, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_non_null(strstr(err, "fewer records"));
	assert_int_equal(write_records(path, &m, 6, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_non_null(strstr(err, "more records"));
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(write_records(path, &m, 5, err, sizeof err), 0);
	assert_int_equal(ps_model_read(path, &back, err, sizeof err), 0);
	assert_int_equal(back.n, 5);
	assert_memory_equal(back.fids, m.fids, 5 * sizeof *m.fids);
	assert_memory_equal(back.w, m.w, 5 * sizeof *m.w);
	ps_model_release(&back);
	ps_model_release(&m);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
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

/* Recompute a format 2 file's header CRC and its trailer. */
static void
fix_crc2(unsigned char *b, size_t len)
{
	uint32_t crc = ps_crc32c(0, b, 60);

	memcpy(b + 60, &crc, 4);
	crc = ps_crc32c(crc, b + 64, len - 68);
	memcpy(b + len - 4, &crc, 4);
}

static void
test_format2_layout(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[256];
	const char *path = in_dir(dir, "a.psm");
	struct ps_model m;
	unsigned char *b;
	uint32_t u32;
	uint64_t u64;
	double d;
	float w;
	size_t len;

	model_fill2(&m, 2, 5, 10);
	m.w[1] = 1.5f;
	m.z[1] = -0.75;
	m.nsq[1] = 9;
	assert_int_equal(ps_model_write(path, &m, err, sizeof err), 0);
	b = slurp(path, &len);
	assert_int_equal(len, 68 + 2 * 28);
	assert_memory_equal(b, "PSKMODL1", 8);
	memcpy(&u32, b + 8, 4);
	assert_int_equal(u32, 2);
	memcpy(&u64, b + 40, 8);
	assert_int_equal(u64, 2);
	memcpy(&u32, b + 48, 4);
	assert_int_equal(u32, PS_OPT_FTRL);
	memcpy(&d, b + 52, 8);
	assert_true(d == 2.5);
	memcpy(&u32, b + 60, 4);
	assert_int_equal(u32, ps_crc32c(0, b, 60));
	memcpy(&u64, b + 64 + 28, 8);
	assert_int_equal(u64, 15);
	memcpy(&w, b + 64 + 28 + 8, 4);
	assert_true(w == 1.5f);
	memcpy(&d, b + 64 + 28 + 12, 8);
	assert_true(d == -0.75);
	memcpy(&d, b + 64 + 28 + 20, 8);
	assert_true(d == 9);
	/* The trailer covers the header but its CRC, then the records. */
	memcpy(&u32, b + len - 4, 4);
	assert_int_equal(u32, ps_crc32c(ps_crc32c(0, b, 60), b + 64, 56));
	free(b);
	ps_model_release(&m);
	unlink(path);
	rmdir(dir);
	free(dir);
}

/* Expect writing m to fail as bad data naming why. */
static void
expect_write_fails(const char *path, const struct ps_model *m,
    const char *want)
{
	char err[256];

	assert_int_equal(ps_model_write(path, m, err, sizeof err),
	    PS_MODEL_EDATA);
	if (strstr(err, want) == NULL)
		fail_msg("got '%s', want '%s'", err, want);
}

static void
test_format2_write_rejects_bad_state(void **state)
{
	char *dir = test_tmp_dir("test_model");
	const char *path = in_dir(dir, "a.psm");
	struct ps_model m;
	double *nsq;

	model_fill2(&m, 4, 1, 1);
	m.nsq[2] = -1;
	expect_write_fails(path, &m, "n is not a finite number >= 0");
	m.nsq[2] = INFINITY;
	expect_write_fails(path, &m, "n is not a finite number >= 0");
	m.nsq[2] = 0;
	m.z[3] = NAN;
	expect_write_fails(path, &m, "z is not finite");
	m.z[3] = 0;
	m.optimizer = 3;
	expect_write_fails(path, &m, "unknown optimiser");
	m.optimizer = 0;
	expect_write_fails(path, &m, "unknown optimiser");
	m.optimizer = PS_OPT_FTRL;
	m.epochs = -0.5;
	expect_write_fails(path, &m, "epochs is not");
	m.epochs = NAN;
	expect_write_fails(path, &m, "epochs is not");
	m.epochs = 1;
	nsq = m.nsq;
	m.nsq = NULL;
	expect_write_fails(path, &m, "needs both z and n");
	free(m.z);
	m.z = NULL;
	/* Format 1 cannot carry an optimiser or epochs. */
	expect_write_fails(path, &m, "without optimiser state");
	m.optimizer = 0;
	expect_write_fails(path, &m, "without optimiser state");
	assert_int_equal(access(path, F_OK), -1);
	free(nsq);
	ps_model_release(&m);
	rmdir(dir);
	free(dir);
}

static void
test_format2_crafted_contents_fail(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[256], path[4096];
	const double nan = NAN, inf = INFINITY, neg = -1;
	const uint32_t opt = 3;
	struct ps_model m;
	unsigned char *good, *b;
	size_t len, i;

	snprintf(path, sizeof path, "%s/a.psm", dir);
	model_fill2(&m, 3, 1, 1);
	assert_int_equal(ps_model_write(path, &m, err, sizeof err), 0);
	ps_model_release(&m);
	good = slurp(path, &len);
	b = malloc(len);
	assert_non_null(b);
	for (i = 0; i < len; i++) {	/* every truncation */
		spit(path, good, i);
		expect_corrupt(path, ": offset ");
	}
	spit(path, good, 60);
	expect_corrupt(path, ": offset 60: truncated header");
	memcpy(b, good, len);
	b[60] ^= 1;
	spit(path, b, len);
	expect_corrupt(path, ": offset 60: header checksum mismatch");
	memcpy(b, good, len);
	memcpy(b + 48, &opt, 4);
	fix_crc2(b, len);
	spit(path, b, len);
	expect_corrupt(path, ": offset 48: unknown optimiser 3");
	memcpy(b, good, len);
	memcpy(b + 52, &inf, 8);
	fix_crc2(b, len);
	spit(path, b, len);
	expect_corrupt(path, ": offset 52: bad epochs");
	memcpy(b, good, len);
	memcpy(b + 64 + 28 + 12, &nan, 8);
	fix_crc2(b, len);
	spit(path, b, len);
	expect_corrupt(path, ": offset 104: z is not finite");
	memcpy(b, good, len);
	memcpy(b + 64 + 56 + 20, &neg, 8);
	fix_crc2(b, len);
	spit(path, b, len);
	expect_corrupt(path, ": offset 140: n is not a finite number >= 0");
	/*
	 * Epochs changed and the header's CRC made right: the trailer, which
	 * covers the header, still catches it (what a MANIFEST relies on).
	 */
	memcpy(b, good, len);
	memcpy(b + 52, &neg, 8);
	b[52 + 7] &= 0x7f;	/* +1 */
	memcpy(b + 60, &(uint32_t){ ps_crc32c(0, b, 60) }, 4);
	spit(path, b, len);
	expect_corrupt(path, ": offset 148: record checksum mismatch");
	free(b);
	free(good);
	unlink(path);
	rmdir(dir);
	free(dir);
}

/* Write part sid of nsrv as write_part does, in format 2 with opt, epochs. */
static void
write_part2(const char *path, uint32_t sid, uint32_t nsrv, size_t n,
    uint32_t opt, double epochs)
{
	struct ps_model m;
	char err[256];

	model_fill2(&m, n, sid + 1, nsrv);
	m.server_id = sid;
	m.nservers = nsrv;
	m.optimizer = opt;
	m.epochs = epochs;
	assert_int_equal(ps_model_write(path, &m, err, sizeof err), 0);
	ps_model_release(&m);
}

/* Expect loading the two paths to fail with want in the message. */
static void
expect_load_fails(const char **paths, const char *want)
{
	struct ps_model m;
	char err[512];

	assert_int_equal(ps_model_load(paths, 2, &m, err, sizeof err),
	    PS_MODEL_EDATA);
	if (strstr(err, "parts disagree: ") == NULL ||
	    strstr(err, want) == NULL)
		fail_msg("got '%s', want '%s'", err, want);
	assert_null(m.fids);
	assert_null(m.z);
}

static void
test_format2_merge(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[512], p0[4096], p1[4096];
	const char *paths[2] = { p0, p1 };
	struct ps_model m;
	size_t i;

	snprintf(p0, sizeof p0, "%s/a.psm", dir);
	snprintf(p1, sizeof p1, "%s/b.psm", dir);
	write_part2(p0, 0, 2, 8, PS_OPT_FTRL, 2.5);
	write_part2(p1, 1, 2, 8, PS_OPT_FTRL, 2.5);
	assert_int_equal(ps_model_load(paths, 2, &m, err, sizeof err), 0);
	assert_int_equal(m.format, 2);
	assert_int_equal(m.optimizer, PS_OPT_FTRL);
	assert_true(m.epochs == 2.5);
	assert_int_equal(m.n, 16);
	/* Part 0 has fids 1, 3, 5, ...; part 1 has 2, 4, ...: interleaved. */
	for (i = 0; i < m.n; i++) {
		size_t j = i / 2;

		assert_int_equal(m.fids[i], i + 1);
		assert_true(m.z[i] == (double)j * 0.5 - 3);
		assert_true(m.nsq[i] == (double)j * 1.25);
	}
	ps_model_release(&m);
	write_part2(p1, 1, 2, 8, PS_OPT_ADAGRAD, 2.5);
	expect_load_fails(paths, "optimiser ftrl but");
	write_part2(p1, 1, 2, 8, PS_OPT_FTRL, 2.25);
	expect_load_fails(paths, "epochs 2.5 but");
	write_part(p1, 1, 2, 8);
	expect_load_fails(paths, "is format 2 but");
	unlink(p0);
	unlink(p1);
	rmdir(dir);
	free(dir);
}

static void
test_speed(void **state)
{
	char *dir = test_tmp_dir("test_model"), err[256];
	const char *path = in_dir(dir, "big.psm");
	struct ps_model a, b;
	size_t n = 4000000;
	double t0, tw, tr;

	model_fill(&a, n, 1, 1);
	t0 = ps_clock_now();
	assert_int_equal(ps_model_write(path, &a, err, sizeof err), 0);
	tw = ps_clock_now() - t0;
	t0 = ps_clock_now();
	assert_int_equal(ps_model_read(path, &b, err, sizeof err), 0);
	tr = ps_clock_now() - t0;
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
		cmocka_unit_test(test_writer_counts_must_match),
		cmocka_unit_test(test_every_truncation_fails),
		cmocka_unit_test(test_every_bit_flip_fails),
		cmocka_unit_test(test_crafted_contents_fail),
		cmocka_unit_test(test_merge_parts_and_directory),
		cmocka_unit_test(test_merge_refuses_disagreement),
		cmocka_unit_test(test_format2_layout),
		cmocka_unit_test(test_format2_write_rejects_bad_state),
		cmocka_unit_test(test_format2_crafted_contents_fail),
		cmocka_unit_test(test_format2_merge),
		cmocka_unit_test(test_speed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
