/*
 * test_libsvm.c: unit tests of the number parser (exactness against
 * strtof/strtod), the libsvm reader (every accepted form and every rejected
 * one, with its message) and the dataset builder.
 */
#include "config.h"

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

#include "data/dataset.h"
#include "data/libsvm.h"
#include "util/parsenum.h"

/* Parse s whole as a float; the return code. */
static int
pf(const char *s, float *f)
{
	return ps_parsenum_float(s, s + strlen(s), NULL, f);
}

/* Compare the parser with strtof and strtod on s (bit for bit). */
static void
check_exact(const char *s)
{
	float f = 0, ref = strtof(s, NULL);
	double d = 0, dref = strtod(s, NULL);
	int rc = pf(s, &f), rcd;

	rcd = ps_parsenum_double(s, s + strlen(s), NULL, &d);
	if (isinf(ref))
		assert_int_equal(rc, PS_NUM_RANGE);
	else {
		assert_int_equal(rc, PS_NUM_OK);
		if (memcmp(&f, &ref, sizeof f) != 0)
			fail_msg("'%s': got %.9g, strtof %.9g", s, f, ref);
	}
	if (isinf(dref))
		assert_int_equal(rcd, PS_NUM_RANGE);
	else if (rcd != PS_NUM_OK || memcmp(&d, &dref, sizeof d) != 0)
		fail_msg("'%s': got %.17g, strtod %.17g", s, d, dref);
}

/* A random decimal in varied forms. */
static void
random_decimal(char *buf, size_t len)
{
	char digits[32];
	int nd = 1 + rand() % 20, i, dot = rand() % (nd + 1), e;

	for (i = 0; i < nd; i++)
		digits[i] = (char)('0' + rand() % 10);
	digits[nd] = '\0';
	e = rand() % 4 == 0 ? 0 : rand() % 90 - 50;
	snprintf(buf, len, "%s%.*s%s%s%s%d", rand() % 2 ? "-" : "",
	    dot, digits, dot < nd ? "." : "", digits + dot,
	    e != 0 ? "e" : "", e);
	if (e == 0)
		buf[strlen(buf) - 1] = '\0';	/* drop the "0" */
}

static void
test_parse_exact_random(void **state)
{
	char buf[64];
	int i;

	srand(12345);
	for (i = 0; i < 300000; i++) {
		random_decimal(buf, sizeof buf);
		check_exact(buf);
	}
	for (i = 0; i < 100000; i++) {
		/* short values like the data sets': %.6g and %.9g of floats */
		float v = (float)rand() / (float)RAND_MAX * powf(10,
		    (float)(rand() % 12 - 6));
		snprintf(buf, sizeof buf, i % 2 ? "%.6g" : "%.9g", v);
		check_exact(buf);
	}
}

static void
test_parse_exact_hard(void **state)
{
	static const char *cases[] = {
		"0", "-0", "1", "0.1", "16777216", "16777217", "16777219",
		"33554435", "9007199254740993", "0.000000000000000000001",
		"3.4028234e38", "3.4028235e38", "3.40282357e38", "3.4028236e38",
		"1.17549435e-38", "1e-45", "1e-46", "7.0064923e-46",
		"1.00000005960464477539", "1.0000000596046448", "4.5e15",
		"123456789012345678901234567890", "0.30000001192092896",
		"2.5e-1", "1E5", "+7.", ".5", "00000.00001e+5", "1e400",
		"1e-400", "0e999999999", "17976931348623157e292",
		"179769313486231580793728971405303415079934132710037826936173",
		"1.9999999999999999999999999999",
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_exact(cases[i]);
}

static void
test_parse_reject(void **state)
{
	static const char *bad[] = {
		"", "-", "+", ".", "e5", "1e", "1e+", "0x10", "nan", "inf",
		"-inf", "infinity", "1.5abc", "1..2", "1 ", " 1", "--1", "1,5",
	};
	uint64_t u;
	float f;
	size_t i;
	const char *s;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(pf(bad[i], &f), PS_NUM_BAD);
	assert_true(ps_parsenum_is_nonfinite("nan", "nan" + 3));
	assert_true(ps_parsenum_is_nonfinite("-Inf", "-Inf" + 4));
	assert_false(ps_parsenum_is_nonfinite("1.5", "1.5" + 3));
	s = "18446744073709551615";
	assert_int_equal(ps_parsenum_u64(s, s + strlen(s), NULL, &u),
	    PS_NUM_OK);
	assert_true(u == UINT64_MAX);
	s = "18446744073709551616";
	assert_int_equal(ps_parsenum_u64(s, s + strlen(s), NULL, &u),
	    PS_NUM_RANGE);
	s = "-1";
	assert_int_equal(ps_parsenum_u64(s, s + strlen(s), NULL, &u),
	    PS_NUM_BAD);
	s = "12:5";
	assert_int_equal(ps_parsenum_u64(s, s + 4, &s, &u), PS_NUM_OK);
	assert_true(u == 12 && *s == ':');
}

/* Write len bytes of text to a new temporary file; free the path. */
static char *
temp_with(const char *text, size_t len)
{
	char *path = strdup("/tmp/test_libsvm.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/*
 * Read all rows of text into b (if not NULL); return the last result of
 * ps_libsvm_next() and the row count in *nrows.
 */
static int
read_all(const char *text, size_t len, const struct ps_libsvm_opts *o,
    struct ps_dataset_builder *b, size_t *nrows, char *err, size_t errlen)
{
	char *path = temp_with(text, len);
	struct ps_libsvm_reader *r = ps_libsvm_open(path, o, err, errlen);
	struct ps_libsvm_row row;
	int rc;

	assert_non_null(r);
	*nrows = 0;
	while ((rc = ps_libsvm_next(r, &row, err, errlen)) == 1) {
		if (b != NULL)
			ps_dataset_builder_add(b, row.y, row.fid, row.val,
			    row.nnz);
		(*nrows)++;
	}
	ps_libsvm_close(r);
	unlink(path);
	free(path);
	return rc;
}

struct bad_case {
	const char	*text;
	size_t		 len;		/* 0: strlen(text) */
	int		 strict;
	const char	*want;		/* ":line: reason" part of the error */
};

static void
test_reader_rejects(void **state)
{
	static const struct bad_case cases[] = {
		{ "+1 1:1 2:x\n", 0, 0, ":1: bad value 'x' for index 2" },
		{ "+1 2:1\n+1 0:1\n", 0, 0, ":2: index 0 (use --zero-based)" },
		{ "+1 9:1 7:1\n", 0, 0, ":1: indices not ascending: 7 after 9" },
		{ "+1 5:1 5:2\n", 0, 0, ":1: repeated index 5" },
		{ "1:1 2:1\n", 0, 0, ":1: missing label" },
		{ "x 1:1\n", 0, 0, ":1: bad label 'x'" },
		{ "2 1:1\n", 0, 0, "bad label '2' (expected +1/-1 or 1/0; name "
		    "the positive class with -p)" },
		{ "+1 1:1\n-1 1:1\n1 2:1\n0 1:1\n", 0, 0, ":4: a third label '0' "
		    "after '+1' and '-1': name the positive class with -p" },
		{ "0 1:1\n1 1:1\n-1 1:1\n", 0, 1, ":3: a third label '-1' "
		    "after '0' and '1'" },
		{ "+1 1:nan\n", 0, 0, ":1: nan or inf value 'nan' for index 1" },
		{ "+1 1:-inf\n", 0, 0, ":1: nan or inf value" },
		{ "+1 1:1e39\n", 0, 0, ":1: value out of range '1e39'" },
		{ "+1 abc\n", 0, 0, ":1: missing ':' in 'abc'" },
		{ "+1 x:1\n", 0, 0, ":1: bad index in 'x:1'" },
		{ "+1 99999999999999999999:1\n", 0, 0, ":1: index too large" },
		{ "+1 1:1\n-1 2:1", 0, 0, ":2: line not terminated by newline "
		    "(truncated file?)" },
		{ "+1 1:1\n-1 2\0:1\n", 15, 0, ":2: binary data (NUL byte)" },
		{ "\x7f\x45LF\0\0\0", 7, 0, ":1: binary data (NUL byte)" },
		{ "+1 qid:3\0 1:1\n", 14, 0, ":1: binary data (NUL byte)" },
		{ "+1 qid:\n", 0, 0, ":1: bad qid 'qid:' (expected qid:N, N "
		    "digits)" },
		{ "+1 1:1\n-1 qid:x 1:1\n", 0, 0, ":2: bad qid 'qid:x'" },
		{ "+1 qid:-1 1:1\n", 0, 0, ":1: bad qid 'qid:-1'" },
		{ "+1 qid:1.5 1:1\n", 0, 0, ":1: bad qid 'qid:1.5'" },
		{ "", 0, 0, ":1: no data rows" },
		{ "# only\n\n", 0, 0, ":3: no data rows" },
		{ "# c\n+1 1:1\n", 0, 1, ":1: comment line" },
		{ "+1 1:1\n\n", 0, 1, ":2: blank line" },
		{ "+1 qid:3 1:1\n", 0, 1, ":1: qid not allowed with --strict" },
		{ "+1 1:1 # x:y\n", 0, 1, ":1: bad index '# x'" },
		{ "+1 1:1\n+1\r\n", 0, 1, ":2: a lone label before \"\\r\\n\"" },
		{ "+1 4294967301:1\n", 0, 1, ":1: index 4294967301 above "
		    "2147483647 (LIBLINEAR's int)" },
		{ "+1 1:1e-400\n", 0, 1, ":1: value out of range '1e-400' for "
		    "index 1" },
		{ "+1 1:nan\n", 0, 1, ":1: nan or inf value 'nan' for index 1" },
		{ "inf 1:1\n", 0, 1, ":1: nan or inf label 'inf'" },
	};
	struct ps_libsvm_opts o;
	char err[512];
	size_t i, n;
	const struct bad_case *c;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		c = &cases[i];
		memset(&o, 0, sizeof o);
		o.strict = c->strict;
		assert_int_equal(read_all(c->text, c->len ? c->len :
		    strlen(c->text), &o, NULL, &n, err, sizeof err),
		    PS_LIBSVM_EDATA);
		if (strstr(err, c->want) == NULL ||
		    strncmp(err, "/tmp/test_libsvm.", 17) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, err,
			    c->want);
	}
}

/* Read text into a dataset (asserting success) with options o. */
static void
load(const char *text, const struct ps_libsvm_opts *o, struct ps_dataset *ds)
{
	struct ps_dataset_builder b;
	char err[512];
	size_t n;

	ps_dataset_builder_init(&b);
	if (read_all(text, strlen(text), o, &b, &n, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(ps_dataset_builder_finish(&b, ds, err, sizeof err), 0);
	ps_dataset_builder_release(&b);
	assert_int_equal(ds->nrows, n);
}

static void
test_reader_superset(void **state)
{
	const char *text = "# header comment\r\n"
	    "+1 1:0.5 3:2 \r\n"
	    "\n"
	    "  -1\tqid:7\t2:1e-3   4:0 # trailing info\n"
	    "1 4:-2.5\n"
	    "-1.0 1:1\n"
	    "1.0 2:3\n";
	struct ps_dataset ds;

	load(text, NULL, &ds);
	assert_int_equal(ds.nrows, 5);
	assert_int_equal(ds.nnz, 7);
	assert_int_equal(ds.nfeat, 4);
	assert_int_equal(ds.y[0], 1);
	assert_int_equal(ds.y[1], -1);
	assert_int_equal(ds.y[2], 1);
	assert_int_equal(ds.y[3], -1);
	assert_int_equal(ds.y[4], 1);
	assert_true(ds.val[0] == 0.5f && ds.val[1] == 2.0f);
	assert_true(ds.val[2] == 1e-3f && ds.val[3] == 0.0f);	/* zero kept */
	assert_int_equal(ds.rowptr[2], 4);
	assert_int_equal(ds.col[3], 3);
	ps_dataset_release(&ds);
}

/* Each two-label convention on its own; three labels with -p. */
static void
test_reader_labels(void **state)
{
	struct ps_libsvm_opts o = { 0, 0, 1, 0, NULL };
	struct ps_dataset ds;

	load("1 1:1\n0 1:1\n1.0 1:1\n", NULL, &ds);
	assert_true(ds.y[0] == 1 && ds.y[1] == -1 && ds.y[2] == 1);
	ps_dataset_release(&ds);
	load("-1 1:1\n+1 1:1\n", NULL, &ds);
	assert_true(ds.y[0] == -1 && ds.y[1] == 1);
	ps_dataset_release(&ds);
	load("0 1:1\n-1 1:1\n", NULL, &ds);	/* two values, one class */
	assert_true(ds.y[0] == -1 && ds.y[1] == -1);
	ps_dataset_release(&ds);
	load("+1 1:1\n-1 1:1\n0 1:1\n2 1:1\n", &o, &ds);
	assert_true(ds.y[0] == -1 && ds.y[2] == 1 && ds.y[3] == -1);
	ps_dataset_release(&ds);
}

/* --strict takes LIBLINEAR's quirks, with the values LIBLINEAR reads. */
static void
test_reader_strict_quirks(void **state)
{
	struct ps_libsvm_opts o = { 1, 0, 0, 0, NULL, 0 };
	struct ps_dataset ds;

	load("+1 +3:1 5: 2 7:0x1p3 foo\n0x1 1:1e-50 # c\n-1 1:1", &o, &ds);
	assert_int_equal(ds.nrows, 3);
	assert_int_equal(ds.nnz, 5);
	assert_true(ds.fids[ds.col[1]] == 5 && ds.val[1] == 2.0f);
	assert_true(ds.val[2] == 8.0f && ds.val[3] == 0.0f);
	assert_true(ds.y[1] == 1 && ds.y[2] == -1);
	ps_dataset_release(&ds);
}

static void
test_reader_zero_based_positive(void **state)
{
	struct ps_libsvm_opts o = { 0, 1, 1, 2 };
	struct ps_dataset ds;

	load("2 0:1 3:2\n1 1:1\n3 0:4\n", &o, &ds);
	assert_int_equal(ds.nfeat, 3);
	assert_true(ds.fids[0] == 1 && ds.fids[1] == 2 && ds.fids[2] == 4);
	assert_int_equal(ds.y[0], 1);
	assert_int_equal(ds.y[1], -1);
	assert_int_equal(ds.y[2], -1);
	ps_dataset_release(&ds);
}

/* Lines longer than the 1 MiB buffer and many lines across its ends. */
static void
test_reader_long_lines(void **state)
{
	size_t cap = 16 << 20, len = 0, i, j;
	char *text = malloc(cap);
	struct ps_dataset ds;

	assert_non_null(text);
	len += (size_t)sprintf(text + len, "+1");
	for (j = 1; j <= 300000; j++)
		len += (size_t)sprintf(text + len, " %zu:%zu.25", j, j % 7);
	text[len++] = '\n';
	for (i = 0; i < 100000; i++)
		len += (size_t)sprintf(text + len, "-1 %zu:1 %zu:0.5\n",
		    i % 50 + 1, i % 50 + 300001);
	text[len] = '\0';
	load(text, NULL, &ds);
	assert_int_equal(ds.nrows, 100001);
	assert_int_equal(ds.nnz, 300000 + 200000);
	assert_int_equal(ds.nfeat, 300050);
	assert_true(ds.val[299999] == 1.25f);	/* 300000 % 7 = 1 */
	assert_true(ds.fids[ds.col[ds.nnz - 1]] == 99999 % 50 + 300001);
	ps_dataset_release(&ds);
	free(text);
}

/*
 * The line limit is exact: maxline bytes before the '\n' (a '\r'
 * included) pass, one more does not, whether the line fits in the first
 * read or makes the buffer grow.
 */
static void
test_reader_maxline(void **state)
{
	static const size_t limits[] = { 16, (size_t)3 << 20 };
	struct ps_libsvm_opts o;
	char *text, err[512];
	size_t i, n, max;

	for (i = 0; i < sizeof limits / sizeof limits[0]; i++) {
		max = limits[i];
		memset(&o, 0, sizeof o);
		o.maxline = max;
		assert_non_null(text = malloc(max + 3));
		memset(text, ' ', max + 2);
		memcpy(text, "+1 1:1", 6);
		text[max - 1] = '\r';
		text[max] = '\n';
		assert_int_equal(read_all(text, max + 1, &o, NULL, &n, err,
		    sizeof err), 0);
		text[max - 1] = ' ';
		text[max] = '\r';
		text[max + 1] = '\n';
		assert_int_equal(read_all(text, max + 2, &o, NULL, &n, err,
		    sizeof err), PS_LIBSVM_EDATA);
		assert_non_null(strstr(err, ":1: line too long (over "));
		free(text);
	}
}

/* Values float32 does not keep are counted, by the fast path and the slow. */
static void
test_reader_rounding(void **state)
{
	static const char *kept[] = { "0.1", "0.12345678", "1.5e-3", "16777216",
	    "1e-40", "0.5000000000000", "0x1p3" };
	static const char *lost[] = { "1440446648", "16777217", "1e-50",
	    "0.123456789", "2e-45", "1.00000001e0" };
	const char *text = "+1 1:1440446648 2:0.1 3:16777217\n-1 1:1e-50\n";
	struct ps_libsvm_reader *r;
	struct ps_libsvm_row row;
	char err[512], *path;
	size_t i;

	for (i = 0; i < sizeof kept / sizeof kept[0]; i++)
		assert_true(ps_parsenum_float_keeps(kept[i], kept[i] +
		    strlen(kept[i]), strtof(kept[i], NULL)));
	for (i = 0; i < sizeof lost / sizeof lost[0]; i++)
		assert_false(ps_parsenum_float_keeps(lost[i], lost[i] +
		    strlen(lost[i]), strtof(lost[i], NULL)));
	path = temp_with(text, strlen(text));
	assert_non_null(r = ps_libsvm_open(path, NULL, err, sizeof err));
	while (ps_libsvm_next(r, &row, err, sizeof err) == 1)
		;
	assert_true(ps_libsvm_rounding(r)->count == 3);
	assert_int_equal(ps_libsvm_rounding(r)->line, 1);
	assert_string_equal(ps_libsvm_rounding(r)->text, "1440446648");
	assert_true(ps_libsvm_rounding(r)->value == 1440446592.0f);
	ps_libsvm_close(r);
	unlink(path);
	free(path);
}

static void
test_builder_sparse_ids(void **state)
{
	uint64_t a[] = { 5, UINT64_C(1) << 40, UINT64_MAX }, b[] = { 3, 5 };
	float va[] = { 1, 2, 3 }, vb[] = { 4, 5 };
	struct ps_dataset_builder bl;
	struct ps_dataset ds;
	char err[128];

	ps_dataset_builder_init(&bl);
	ps_dataset_builder_add(&bl, 1, a, va, 3);
	ps_dataset_builder_add(&bl, -1, b, vb, 2);
	ps_dataset_builder_add(&bl, 1, NULL, NULL, 0);
	assert_int_equal(ps_dataset_builder_finish(&bl, &ds, err, sizeof err),
	    0);
	assert_int_equal(ds.nfeat, 4);
	assert_true(ds.fids[0] == 3 && ds.fids[3] == UINT64_MAX);
	assert_int_equal(ds.col[0], 1);
	assert_int_equal(ds.col[2], 3);
	assert_int_equal(ds.col[3], 0);
	assert_int_equal(ds.rowptr[3], 5);
	assert_int_equal(ps_dataset_positives(&ds), 2);
	ps_dataset_release(&ds);
	ps_dataset_builder_release(&bl);

	/* 4-byte ids widened to 8 when a large one comes after them. */
	ps_dataset_builder_init(&bl);
	ps_dataset_builder_add(&bl, -1, b, vb, 2);
	ps_dataset_builder_add(&bl, 1, a, va, 3);
	assert_int_equal(ps_dataset_builder_finish(&bl, &ds, err, sizeof err),
	    0);
	assert_int_equal(ds.nfeat, 4);
	assert_true(ds.fids[1] == 5 && ds.fids[2] == UINT64_C(1) << 40);
	assert_int_equal(ds.col[0], 0);
	assert_int_equal(ds.col[1], 1);
	assert_int_equal(ds.col[2], 1);
	assert_int_equal(ds.col[4], 3);
	assert_true(ds.val[3] == 2);
	ps_dataset_release(&ds);
	ps_dataset_builder_release(&bl);
}

/* Add row r (of a made-up set) to b: r % 7 ids, one past 2^32 at row 90. */
static void
builder_row(struct ps_dataset_builder *b, size_t r)
{
	uint64_t fid[8];
	float val[8];
	size_t k, n = r % 7;

	for (k = 0; k < n; k++) {
		fid[k] = (r * 31 + k * 1009) % 5000 + k * 5000;
		val[k] = (float)(r + k) / 8;
	}
	if (r == 90 && n > 0)
		fid[n - 1] = (UINT64_C(1) << 33) + r;
	ps_dataset_builder_add(b, r % 3 ? 1 : -1, fid, val, n);
}

/* A builder that reserved room builds the same set as one that grew. */
static void
test_builder_reserve(void **state)
{
	struct ps_dataset_builder grown, roomy;
	struct ps_dataset a, b;
	char err[128];
	/* Row 90 widens the ids: within the room, then past it. */
	size_t r, n, rows[] = { 80, 200 }, from[] = { 88, 0 };

	for (n = 0; n < 2; n++) {
		ps_dataset_builder_init(&grown);
		ps_dataset_builder_init(&roomy);
		ps_dataset_builder_reserve(&roomy, 50, 100);	/* too small */
		for (r = 0; r < rows[n] * 20; r++) {
			builder_row(&grown, r % rows[n] + from[n]);
			builder_row(&roomy, r % rows[n] + from[n]);
		}
		assert_int_equal(ps_dataset_builder_finish(&grown, &a, err,
		    sizeof err), 0);
		assert_int_equal(ps_dataset_builder_finish(&roomy, &b, err,
		    sizeof err), 0);
		assert_int_equal(a.nrows, b.nrows);
		assert_int_equal(a.nfeat, b.nfeat);
		assert_int_equal(a.rowptr[a.nrows], b.rowptr[b.nrows]);
		assert_memory_equal(a.y, b.y, a.nrows);
		assert_memory_equal(a.rowptr, b.rowptr,
		    (a.nrows + 1) * sizeof *a.rowptr);
		assert_memory_equal(a.fids, b.fids, a.nfeat * sizeof *a.fids);
		assert_memory_equal(a.col, b.col,
		    a.rowptr[a.nrows] * sizeof *a.col);
		assert_memory_equal(a.val, b.val,
		    a.rowptr[a.nrows] * sizeof *a.val);
		ps_dataset_release(&a);
		ps_dataset_release(&b);
		ps_dataset_builder_release(&grown);
		ps_dataset_builder_release(&roomy);
	}
	/* Room for a million entries, filled in part. */
	ps_dataset_builder_init(&roomy);
	ps_dataset_builder_reserve(&roomy, 300000, 1000000);
	assert_true(roomy.cap_nnz >= 1000000 && roomy.cap_rows >= 300000);
	for (r = 0; r < 1000; r++)
		builder_row(&roomy, r);
	assert_int_equal(ps_dataset_builder_finish(&roomy, &a, err,
	    sizeof err), 0);
	assert_int_equal(a.nrows, 1000);
	ps_dataset_release(&a);
	ps_dataset_builder_release(&roomy);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_exact_random),
		cmocka_unit_test(test_parse_exact_hard),
		cmocka_unit_test(test_parse_reject),
		cmocka_unit_test(test_reader_rejects),
		cmocka_unit_test(test_reader_superset),
		cmocka_unit_test(test_reader_labels),
		cmocka_unit_test(test_reader_strict_quirks),
		cmocka_unit_test(test_reader_zero_based_positive),
		cmocka_unit_test(test_reader_long_lines),
		cmocka_unit_test(test_reader_maxline),
		cmocka_unit_test(test_reader_rounding),
		cmocka_unit_test(test_builder_sparse_ids),
		cmocka_unit_test(test_builder_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
