/*
 * libsvm_strict.c: one line read the way LIBLINEAR 2.3's train reads it,
 * for ps_libsvm_next() with the strict option.
 *
 * LIBLINEAR tokenises with strtok: the label up to a blank or '\n', then
 * alternately an index up to the next ':' and a value up to the next blank,
 * converted by strtol and strtod with errno checked.  Its quirks follow
 * from that and are kept, so --strict accepts what LIBLINEAR accepts: a
 * '+' or leading zeros on an index, "1: 2" (the value after blanks), hex
 * and subnormal-free decimal values, and anything after the last pair that
 * holds no ':' followed by more text (a "# comment", a lone word).  It
 * rejects blank lines, comment lines, qid, index 0, non-ascending indices,
 * values strtod flags with ERANGE (1e400, 1e-400, subnormals) and a label
 * with trailing bytes (so a lone label before "\r\n").
 *
 * Where LIBLINEAR's acceptance would put garbage into a pskit model, this
 * reader refuses on purpose: nan and inf values or labels, and indices
 * above 2^31-1 or below 0, which LIBLINEAR casts to int (4294967301 is
 * read as 5).  See ps-shard-data(1).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/libsvm_strict.h"
#include "util/errbuf.h"
#include "util/parsenum.h"

/* How much of token t to quote in a message: 32 bytes at most, trimmed. */
static int
shown(const char *t)
{
	size_t n = strnlen(t, 32);

	while (n > 0 && isspace((unsigned char)t[n - 1]))
		n--;
	return (int)n;
}

/* The label token lab as LIBLINEAR takes it: the whole token by strtod. */
static int
strict_label(const char *lab, double *out, char *why, size_t whylen)
{
	char *end;

	if (lab[0] == '#')
		return ps_errbuf(why, whylen, -1,
		    "comment line (not allowed with --strict)");
	*out = strtod(lab, &end);
	if (end != lab && strcmp(end, "\r") == 0)
		return ps_errbuf(why, whylen, -1, "a lone label before \"\\r\\n\" "
		    "(LIBLINEAR rejects it)");
	if (end == lab || *end != '\0')
		return ps_errbuf(why, whylen, -1, strchr(lab, ':') != NULL ?
		    "missing label" : "bad label '%.*s'", shown(lab), lab);
	if (!isfinite(*out))
		return ps_errbuf(why, whylen, -1, "nan or inf label '%.*s'",
		    shown(lab), lab);
	return 0;
}

/* Check the index token idx after prev (as written); *out is it. */
static int
strict_index(const char *idx, long prev, long *out, char *why, size_t whylen)
{
	char *end;

	if (strncmp(idx, "qid", 3) == 0 && idx[3] == '\0')
		return ps_errbuf(why, whylen, -1, "qid not allowed with --strict");
	errno = 0;
	*out = strtol(idx, &end, 10);
	if (end == idx || *end != '\0')
		return ps_errbuf(why, whylen, -1, "bad index '%.*s'", shown(idx), idx);
	if (errno != 0 || *out > INT_MAX)
		return ps_errbuf(why, whylen, -1, "index %.*s above 2147483647 "
		    "(LIBLINEAR's int)", shown(idx), idx);
	if (*out < 0)
		return ps_errbuf(why, whylen, -1, "negative index %ld", *out);
	if (*out == 0 && prev == 0)
		return ps_errbuf(why, whylen, -1, "index 0 (use --zero-based)");
	if (*out == prev)
		return ps_errbuf(why, whylen, -1, "repeated index %ld", *out);
	if (*out < prev)
		return ps_errbuf(why, whylen, -1, "indices not ascending: %ld after "
		    "%ld", *out, prev);
	return 0;
}

/* Check the value token val (of index idx) into the row's next value. */
static int
strict_value(const char *val, long idx, struct ps_strict_row *row,
    char *why, size_t whylen)
{
	float *out = &row->val[row->nnz];
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (end == val || (*end != '\0' && !isspace((unsigned char)*end)))
		return ps_errbuf(why, whylen, -1, "bad value '%.*s' for index %ld",
		    shown(val), val, idx);
	if (errno != 0)
		return ps_errbuf(why, whylen, -1, "value out of range '%.*s' for "
		    "index %ld", shown(val), val, idx);
	if (!isfinite(v))
		return ps_errbuf(why, whylen, -1, "nan or inf value '%.*s' for "
		    "index %ld", shown(val), val, idx);
	*out = strtof(val, NULL);
	if (!ps_parsenum_float_keeps(val, end, *out) && row->nlost++ == 0) {
		row->lost = val;
		row->lost_end = end;
		row->lost_val = *out;
	}
	return 0;
}

int
ps_libsvm_strict_parse(char *s, int zero_based, struct ps_strict_row *row,
    char *why, size_t whylen)
{
	char *save, *lab, *idx, *val;
	long id = 0, prev = zero_based ? -1 : 0;

	row->nnz = row->nlost = 0;
	if ((lab = strtok_r(s, " \t\n", &save)) == NULL)
		return ps_errbuf(why, whylen, -1,
		    "blank line (not allowed with --strict)");
	if (strict_label(lab, &row->label, why, whylen) != 0)
		return -1;
	for (;;) {
		idx = strtok_r(NULL, ":", &save);
		if ((val = strtok_r(NULL, " \t", &save)) == NULL)
			return 0;	/* the rest holds no pair */
		if (strict_index(idx, prev, &id, why, whylen) != 0 ||
		    strict_value(val, id, row, why, whylen) != 0)
			return -1;
		row->fid[row->nnz++] = (uint64_t)id + (zero_based ? 1 : 0);
		prev = id;
	}
}
