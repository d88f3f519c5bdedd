/*
 * fuzz_libsvm.c: libFuzzer harness for the libsvm/svmlight text reader
 * (ps_libsvm_open and ps_libsvm_next, lib/data/libsvm.c), the first thing
 * ps-shard-data runs on its input.
 *
 * Each input is read four times: with the defaults, --strict, zero-based
 * ids and one-vs-rest labels (positive 1).  Invariants besides "no crash":
 * an error is PS_LIBSVM_EDATA with a message that starts with "name:";
 * every row has ascending ids from 1 and finite values, and agrees with
 * its own line as the C library reads it (strtod for the label, strtoull
 * and strtof for each pair: the reader's fast paths must round exactly as
 * strtof does, and count as rounded the values ps_parsenum_float_keeps()
 * says float32 does not keep); strict rows, read LIBLINEAR's way, have
 * ids below 2^31, and when the defaults accept an input strict accepts too, they agree on
 * the rows (strict takes some forms the defaults refuse, such as "1: 2" or
 * a trailing word, and the reverse: comments, qid, blank lines); what the
 * defaults accept, one-vs-rest and zero-based accept too, with the same
 * rows (zero-based: ids one higher, unless an id is already UINT64_MAX).
 * A third label value is refused by all but one-vs-rest.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/libsvm.h"
#include "fuzz.h"
#include "util/parsenum.h"
#include "util/xmalloc.h"

/* The rows one reading gave, flattened, and how it ended. */
struct reading {
	int	 rc;		/* 0: every row read; else the error */
	uint8_t	*rows;		/* y, nnz, then (id, value) per pair */
	size_t	 len, cap;
	uint64_t max_id;	/* as the file spells it */
};

/* Append n bytes to the reading's rows. */
static void
add(struct reading *rd, const void *p, size_t n)
{
	if (rd->len + n > rd->cap) {
		rd->cap = 2 * (rd->len + n);
		rd->rows = xreallocarray(rd->rows, rd->cap, 1);
	}
	memcpy(rd->rows + rd->len, p, n);
	rd->len += n;
}

/* The label a reader with options o gives the number lab, or 0 for none. */
static int
expected_label(const struct ps_libsvm_opts *o, double lab)
{
	if (o->has_positive)
		return lab == o->positive ? 1 : -1;
	return lab == 1 ? 1 : lab == -1 || lab == 0 ? -1 : 0;
}

/*
 * Check row against its line read by the C library: the label by strtod,
 * then each "index:value" pair, skipping "qid:" tokens and stopping at '#'.
 */
static void
check_row(const struct ps_libsvm_opts *o, const struct ps_libsvm_row *row,
    uint64_t *lost)
{
	char *line = xcalloc(row->linelen + 1, 1), *tok, *save, *colon;
	unsigned long long idx;
	size_t k = 0;
	float v;

	memcpy(line, row->line, row->linelen);
	tok = strtok_r(line, " \t", &save);
	FUZZ_CHECK(tok != NULL);
	FUZZ_CHECK(row->y == expected_label(o, strtod(tok, NULL)));
	while ((tok = strtok_r(NULL, " \t", &save)) != NULL && *tok != '#') {
		if (!o->strict && strncmp(tok, "qid:", 4) == 0)
			continue;
		FUZZ_CHECK(k < row->nnz);
		idx = strtoull(tok, &colon, 10);
		FUZZ_CHECK(*colon == ':');
		FUZZ_CHECK(row->fid[k] == idx + (o->zero_based ? 1 : 0));
		FUZZ_CHECK(k == 0 || row->fid[k] > row->fid[k - 1]);
		FUZZ_CHECK(row->fid[k] >= 1);
		v = strtof(colon + 1, NULL);
		*lost += !ps_parsenum_float_keeps(colon + 1,
		    colon + 1 + strlen(colon + 1), v);
		FUZZ_CHECK(memcmp(&v, &row->val[k], sizeof v) == 0);
		FUZZ_CHECK(isfinite(row->val[k]));
		k++;
	}
	FUZZ_CHECK(k == row->nnz);
	free(line);
}

/* A strict row (no zero_based): LIBLINEAR's int ids, finite values. */
static void
check_strict_row(const struct ps_libsvm_row *row)
{
	size_t k;

	FUZZ_CHECK(row->y == 1 || row->y == -1);
	for (k = 0; k < row->nnz; k++) {
		FUZZ_CHECK(row->fid[k] >= 1 && row->fid[k] <= INT32_MAX);
		FUZZ_CHECK(k == 0 || row->fid[k] > row->fid[k - 1]);
		FUZZ_CHECK(isfinite(row->val[k]));
	}
}

/* Read the file at path with options o into rd, checking every row. */
static void
read_all(const char *path, const struct ps_libsvm_opts *o,
    struct reading *rd)
{
	struct ps_libsvm_reader *r;
	struct ps_libsvm_row row;
	char err[512];
	uint64_t id, shift = o->zero_based ? 1 : 0, lost = 0;
	size_t k;
	int rc;

	memset(rd, 0, sizeof *rd);
	FUZZ_CHECK((r = ps_libsvm_open(path, o, err, sizeof err)) != NULL);
	while ((rc = ps_libsvm_next(r, &row, err, sizeof err)) == 1) {
		if (o->strict)
			check_strict_row(&row);
		else
			check_row(o, &row, &lost);
		add(rd, &row.y, sizeof row.y);
		add(rd, &row.nnz, sizeof row.nnz);
		for (k = 0; k < row.nnz; k++) {
			id = row.fid[k] - shift;
			add(rd, &id, sizeof id);
			add(rd, &row.val[k], sizeof row.val[k]);
			if (id > rd->max_id)
				rd->max_id = id;
		}
	}
	rd->rc = rc;
	if (rc == 0 && !o->strict)	/* the fast path counts as the slow */
		FUZZ_CHECK(ps_libsvm_rounding(r)->count == lost);
	if (rc != 0) {
		FUZZ_CHECK(rc == PS_LIBSVM_EDATA);
		FUZZ_CHECK(fuzz_starts(err, path) && err[strlen(path)] == ':');
	}
	ps_libsvm_close(r);
}

/* Whether two readings that both succeeded gave the same rows. */
static int
same_rows(const struct reading *a, const struct reading *b)
{
	return a->len == b->len && memcmp(a->rows, b->rows, a->len) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ps_libsvm_opts dflt = { 0, 0, 0, 0, NULL, 0 },
	    strict = { 1, 0, 0, 0, NULL, 0 }, zero = { 0, 1, 0, 0, NULL, 0 },
	    ovr = { 0, 0, 1, 1.0, NULL, 0 };
	struct reading d, s, z, p;
	char path[64];
	int fd;

	fd = fuzz_memfile(data, size, path, sizeof path);
	read_all(path, &dflt, &d);
	read_all(path, &strict, &s);
	read_all(path, &zero, &z);
	read_all(path, &ovr, &p);
	if (s.rc == 0 && d.rc == 0)
		FUZZ_CHECK(same_rows(&s, &d));
	if (d.rc == 0) {
		FUZZ_CHECK(p.rc == 0 && same_rows(&p, &d));
		if (d.max_id < UINT64_MAX)
			FUZZ_CHECK(z.rc == 0 && same_rows(&z, &d));
	}
	free(d.rows);
	free(s.rows);
	free(z.rows);
	free(p.rows);
	close(fd);
	return 0;
}
