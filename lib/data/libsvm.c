/*
 * libsvm.c: the streaming libsvm/svmlight reader (see libsvm.h for the rules).
 *
 * Input is read in chunks into one buffer; a line that crosses the end of
 * the buffer is moved to its front before the next read, and the buffer
 * grows when a single line does not fit (up to the maxline option).  Each
 * line is tokenised in one pass, numbers parsed in place: plain pairs by the
 * fast path below, anything else by the byte-at-a-time reference path and
 * parsenum.  PAD zero bytes after the data let the fast path read ahead.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "data/libsvm.h"
#include "data/libsvm_strict.h"
#include "util/parsenum.h"
#include "util/xmalloc.h"

#define CHUNK	(1UL << 18)
#define PAD	64		/* zero bytes kept after the data */

struct ps_libsvm_reader {
	int			 fd;
	char			*name;
	struct ps_libsvm_opts	 o;
	char			*buf;
	size_t			 cap, pos, len;	/* unread data is buf[pos, len) */
	size_t			 scanned;	/* bytes after pos with no '\n' */
	int			 eof;
	uint64_t		 base;		/* input offset of buf[0] */
	uint64_t		 end;		/* read up to here (UINT64_MAX:
						   the input's end) */
	size_t			 lineno, rows;
	uint64_t		*fid;
	float			*val;
	size_t			 fcap;
	struct ps_libsvm_labels	 own_labels;
	struct ps_libsvm_labels	*labels;	/* own_labels or the caller's */
	struct ps_libsvm_rounding rounding;
	char			*copy;		/* strict: the line with "\n\0" */
	size_t			 copycap;
};

/* A parsed line's bounds for error messages. */
struct line {
	const char	*start, *end;
};

struct ps_libsvm_reader *
ps_libsvm_open(const char *path, const struct ps_libsvm_opts *o, char *err,
    size_t errlen)
{
	struct ps_libsvm_reader *r;
	int fd;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
		    strerror(errno));
		return NULL;
	}
	r = xcalloc(1, sizeof *r);
	r->fd = fd;
	r->name = xstrdup(fd == STDIN_FILENO ? "<stdin>" : path);
	if (o != NULL)
		r->o = *o;
	r->labels = r->o.labels != NULL ? r->o.labels : &r->own_labels;
	if (r->o.maxline == 0)
		r->o.maxline = PS_LIBSVM_MAXLINE;
	r->cap = CHUNK;
	r->buf = xcalloc(r->cap + PAD, 1);
	r->end = UINT64_MAX;
	return r;
}

int
ps_libsvm_seek(struct ps_libsvm_reader *r, uint64_t start, char *err,
    size_t errlen)
{
	if (lseek(r->fd, (off_t)start, SEEK_SET) == -1) {
		snprintf(err, errlen, "cannot read '%s': %s", r->name,
		    strerror(errno));
		return PS_LIBSVM_EIO;
	}
	r->base = start;
	return 0;
}

void
ps_libsvm_set_end(struct ps_libsvm_reader *r, uint64_t end)
{
	r->end = end;
	r->eof = 0;
}

/* Whether label value v is among those ls holds. */
static int
label_seen(const struct ps_libsvm_labels *ls, double v)
{
	int i;

	for (i = 0; i < ls->n; i++)
		if (ls->v[i] == v)
			return 1;
	return 0;
}

/* Whether labels ls and then those of more are two values at most. */
static int
labels_fit(const struct ps_libsvm_labels *ls,
    const struct ps_libsvm_labels *more)
{
	int j, n = ls->n;

	for (j = 0; j < more->n; j++)
		n += !label_seen(ls, more->v[j]);
	return n <= 2;
}

int
ps_libsvm_absorb(struct ps_libsvm_reader *r,
    const struct ps_libsvm_reader *later)
{
	struct ps_libsvm_labels *ls = r->labels;
	const struct ps_libsvm_rounding *more = &later->rounding;
	int j;

	if (!labels_fit(ls, later->labels))
		return -1;
	for (j = 0; j < later->labels->n; j++) {
		if (!label_seen(ls, later->labels->v[j])) {
			ls->v[ls->n] = later->labels->v[j];
			memcpy(ls->text[ls->n++], later->labels->text[j],
			    sizeof ls->text[0]);
		}
	}
	if (r->rounding.count == 0 && more->count > 0) {
		r->rounding = *more;
		r->rounding.line += r->lineno;
	} else
		r->rounding.count += more->count;
	r->lineno += later->lineno;
	r->rows += later->rows;
	r->base = later->base + later->pos;
	r->pos = r->len = r->scanned = 0;
	r->eof = 1;
	r->end = UINT64_MAX;
	return 0;
}

void
ps_libsvm_close(struct ps_libsvm_reader *r)
{
	if (r == NULL)
		return;
	if (r->fd != STDIN_FILENO)
		close(r->fd);
	free(r->name);
	free(r->buf);
	free(r->fid);
	free(r->val);
	free(r->copy);
	free(r);
}

uint64_t
ps_libsvm_tell(const struct ps_libsvm_reader *r)
{
	return r->base + r->pos;
}

const struct ps_libsvm_rounding *
ps_libsvm_rounding(const struct ps_libsvm_reader *r)
{
	return &r->rounding;
}

/* Count the value [p, end) if v does not keep it; note the first one. */
static void
check_kept(struct ps_libsvm_reader *r, const char *p, const char *end,
    float v)
{
	struct ps_libsvm_rounding *rd = &r->rounding;
	size_t n = (size_t)(end - p);

	if (ps_parsenum_float_keeps(p, end, v))
		return;
	if (rd->count++ > 0)
		return;
	rd->line = r->lineno;
	rd->value = v;
	if (n >= sizeof rd->text)
		n = sizeof rd->text - 1;
	memcpy(rd->text, p, n);
	rd->text[n] = '\0';
}

const char *
ps_libsvm_name(const struct ps_libsvm_reader *r)
{
	return r->name;
}

/* Format "name:line: reason", or the NUL-byte reason if the line has one. */
static int __attribute__((format(printf, 5, 6)))
bad(struct ps_libsvm_reader *r, const struct line *ln, char *err,
    size_t errlen, const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	if (ln != NULL && memchr(ln->start, '\0', ln->end - ln->start) != NULL)
		snprintf(reason, sizeof reason, "binary data (NUL byte)");
	snprintf(err, errlen, "%s:%zu: %s", r->name, r->lineno, reason);
	return PS_LIBSVM_EDATA;
}

/* Copy the token at p (up to a blank) into out for a message. */
static const char *
token(const char *p, const char *end, char *out, size_t outlen)
{
	size_t n = 0;

	for (; p < end && *p != ' ' && *p != '\t' && n + 4 < outlen; p++)
		out[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
	if (p < end && *p != ' ' && *p != '\t') {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

/* Read more input; 0 ok (or end of input), PS_LIBSVM_EIO/EDATA on error. */
static int
fill(struct ps_libsvm_reader *r, char *err, size_t errlen)
{
	size_t want;
	ssize_t n;

	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->base += r->pos;
		r->len -= r->pos;
		r->pos = 0;
	}
	if (r->len == r->cap) {	/* one line fills it: cap <= maxline */
		r->cap = r->cap < r->o.maxline / 2 ? r->cap * 2 :
		    r->o.maxline + 1;
		r->buf = xreallocarray(r->buf, r->cap + PAD, 1);
	}
	want = r->cap - r->len;
	if (r->end - r->base - r->len < want)	/* base + len <= end */
		want = (size_t)(r->end - r->base - r->len);
	do
		n = want > 0 ? read(r->fd, r->buf + r->len, want) : 0;
	while (n == -1 && errno == EINTR);
	if (n == -1) {
		snprintf(err, errlen, "cannot read '%s': %s", r->name,
		    strerror(errno));
		return PS_LIBSVM_EIO;
	}
	if (n == 0)
		r->eof = 1;
	r->len += (size_t)n;
	memset(r->buf + r->len, 0, PAD);
	return 0;
}

/* The error for the next line, longer than maxline. */
static int
too_long(struct ps_libsvm_reader *r, char *err, size_t errlen)
{
	r->lineno++;
	return bad(r, NULL, err, errlen, "line too long (over %zu bytes)",
	    r->o.maxline);
}

/* The next line into ln (without '\n'): 1, 0 at end of input, or error. */
static int
next_line(struct ps_libsvm_reader *r, struct line *ln, char *err,
    size_t errlen)
{
	char *nl;
	int rc;

	for (;;) {
		nl = memchr(r->buf + r->pos + r->scanned, '\n',
		    r->len - r->pos - r->scanned);
		if (nl != NULL) {
			if ((size_t)(nl - (r->buf + r->pos)) > r->o.maxline)
				return too_long(r, err, errlen);
			ln->start = r->buf + r->pos;
			ln->end = nl;
			r->pos = (size_t)(nl - r->buf) + 1;
			r->scanned = 0;
			r->lineno++;
			return 1;
		}
		r->scanned = r->len - r->pos;
		if (r->scanned > r->o.maxline)
			return too_long(r, err, errlen);
		if (r->eof)
			break;
		if ((rc = fill(r, err, errlen)) != 0)
			return rc;
	}
	if (r->pos == r->len)
		return 0;
	ln->start = r->buf + r->pos;
	ln->end = r->buf + r->len;
	r->pos = r->len;
	r->scanned = 0;
	r->lineno++;
	if (r->o.strict)		/* LIBLINEAR takes it */
		return 1;
	return bad(r, ln, err, errlen,
	    "line not terminated by newline (truncated file?)");
}

/* Map a numeric label to +1/-1; 0 if it is not acceptable. */
static int
map_label(const struct ps_libsvm_opts *o, double lab)
{
	if (o->has_positive)
		return lab == o->positive ? 1 : -1;
	if (lab == 1)
		return 1;
	if (lab == -1 || lab == 0)
		return -1;
	return 0;
}

/*
 * The fast path of a label: an optional sign and at most 9 digits up to a
 * blank or the end of the line, as an exact double.  Returns the byte after
 * it, or NULL to leave the label to ps_parsenum_double().  Every line ends
 * at a '\r' or '\n' in the buffer (see next_line), and no scan here or in
 * fast_index() runs past such a byte.
 */
static inline const char *
fast_label(const char *p, const char *end, double *lab)
{
	const char *q = p, *d;
	unsigned v = 0, c;
	int neg = 0;

	if (*q == '+' || *q == '-')
		neg = *q++ == '-';
	for (d = q; (c = (unsigned)(*q - '0')) < 10 && q - d < 9; q++)
		v = v * 10 + c;
	if (q == d || (q != end && *q != ' ' && *q != '\t'))
		return NULL;
	*lab = neg ? -(double)v : (double)v;
	return q;
}

/*
 * Note the label value lab (text at p) among the distinct ones seen; a
 * third one is an error, as two classes cannot hold +1, 0 and -1 apart.
 */
static int
note_label(struct ps_libsvm_reader *r, const struct line *ln, double lab,
    const char *p, char *err, size_t errlen)
{
	struct ps_libsvm_labels *ls = r->labels;
	char tok[48];

	if (label_seen(ls, lab))
		return 0;
	token(p, ln->end, tok, sizeof tok);
	if (ls->n == 2)
		return bad(r, ln, err, errlen, "a third label '%s' after '%s' "
		    "and '%s': name the positive class with -p", tok,
		    ls->text[0], ls->text[1]);
	ls->v[ls->n] = lab;
	token(p, ln->end, ls->text[ls->n++], sizeof ls->text[0]);
	return 0;
}

/* Parse the label at *pp into row->y. */
static int
parse_label(struct ps_libsvm_reader *r, const struct line *ln,
    const char **pp, struct ps_libsvm_row *row, char *err, size_t errlen)
{
	const char *p = *pp, *q, *end = ln->end;
	char tok[48];
	double lab;
	int rc;

	if ((q = fast_label(p, end, &lab)) != NULL)
		rc = PS_NUM_OK;
	else
		rc = ps_parsenum_double(p, end, &q, &lab);
	if (rc == PS_NUM_OK && (q == end || *q == ' ' || *q == '\t')) {
		if ((row->y = map_label(&r->o, lab)) != 0) {
			*pp = q;
			return r->o.has_positive ? 0 :
			    note_label(r, ln, lab, p, err, errlen);
		}
		return bad(r, ln, err, errlen, "bad label '%s' (expected "
		    "+1/-1 or 1/0; name the positive class with -p)",
		    token(p, end, tok, sizeof tok));
	}
	token(p, end, tok, sizeof tok);
	if (strchr(tok, ':') != NULL)
		return bad(r, ln, err, errlen, "missing label");
	return bad(r, ln, err, errlen, "bad label '%s'", tok);
}

/* Report a bad value in the "index:value" pair at p with ':' at colon. */
static int
bad_value(struct ps_libsvm_reader *r, const struct line *ln, const char *p,
    const char *colon, int rc, char *err, size_t errlen)
{
	char tok[48], idx[48];
	const char *end = ln->end;

	token(p, colon, idx, sizeof idx);
	token(colon + 1, end, tok, sizeof tok);
	if (ps_parsenum_is_nonfinite(colon + 1, end))
		return bad(r, ln, err, errlen, "nan or inf value '%s' for "
		    "index %s", tok, idx);
	if (rc == PS_NUM_RANGE)
		return bad(r, ln, err, errlen, "value out of range '%s' for "
		    "index %s", tok, idx);
	return bad(r, ln, err, errlen, "bad value '%s' for index %s", tok,
	    idx);
}

/* Report a token at p that does not start with "index:". */
static int
bad_index(struct ps_libsvm_reader *r, const struct line *ln, const char *p,
    int rc, char *err, size_t errlen)
{
	char tok[48];

	token(p, ln->end, tok, sizeof tok);
	if (strchr(tok, ':') == NULL)
		return bad(r, ln, err, errlen, "missing ':' in '%s'", tok);
	if (rc == PS_NUM_RANGE)
		return bad(r, ln, err, errlen, "index too large in '%s'", tok);
	return bad(r, ln, err, errlen, "bad index in '%s'", tok);
}

/* Report an id that is not above the previous one (both as stored). */
static int
bad_order(struct ps_libsvm_reader *r, const struct line *ln, uint64_t id,
    uint64_t prev, char *err, size_t errlen)
{
	uint64_t shift = r->o.zero_based ? 1 : 0;

	if (id == prev)
		return bad(r, ln, err, errlen, "repeated index %llu",
		    (unsigned long long)(id - shift));
	return bad(r, ln, err, errlen, "indices not ascending: %llu after %llu",
	    (unsigned long long)(id - shift),
	    (unsigned long long)(prev - shift));
}

/* Skip a "qid:N" token at *pp, N digits (or reject it in strict mode). */
static int
skip_qid(struct ps_libsvm_reader *r, const struct line *ln, const char **pp,
    char *err, size_t errlen)
{
	const char *p = *pp, *q;
	uint64_t qid;
	char tok[48];

	if (r->o.strict)
		return bad(r, ln, err, errlen, "qid not allowed with --strict");
	if (ps_parsenum_u64(p + 4, ln->end, &q, &qid) != PS_NUM_OK ||
	    (q != ln->end && *q != ' ' && *q != '\t'))
		return bad(r, ln, err, errlen, "bad qid '%s' (expected qid:N, "
		    "N digits)", token(p, ln->end, tok, sizeof tok));
	*pp = q;
	return 0;
}

/*
 * The fast path.  Most lines are "label i:v i:v ... i:v" with single
 * spaces, short indices and short plain decimals.  Scanning such a line a
 * byte at a time makes every token boundary a branch the CPU must guess,
 * and scanning it with word tricks makes each token's start wait on the
 * previous token's length.  Instead the boundaries (' ', ':' and the end
 * of the line) of 64 bytes at a time become the bits of a mask, so the next
 * boundary is one count of trailing zeros, and the tokens between them are
 * checked and converted 8 bytes at a time, off that critical path.  A pair
 * the fast path does not take as it is goes to the byte-at-a-time slow
 * path (slow_pair), which is the reference: the fast path only accepts
 * what the slow path would accept, with the same result.
 *
 * Both read past the line: the boundary scan up to 64 bytes past it, the
 * token converters 8; the buffer keeps PAD zero bytes after its data.
 */

/* Boundaries ahead of a scan: bit i of mask is base[i]. */
struct scan {
	const char	*base, *end;
	uint64_t	 mask;
};

/* The boundary bits of the 64 bytes at base, up to and including end. */
static inline uint64_t
scan_mask(const char *base, const char *end)
{
	uint64_t m = 0;
#ifdef __SSE2__
	const __m128i sp = _mm_set1_epi8(' '), co = _mm_set1_epi8(':');
	__m128i v;
	int i;

	for (i = 0; i < 4; i++) {
		v = _mm_loadu_si128((const __m128i *)(const void *)
		    (base + 16 * i));
		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_or_si128(
		    _mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, co))) << (16 * i);
	}
#else
	int i;

	for (i = 0; i < 64; i++)
		m |= (uint64_t)(base[i] == ' ' || base[i] == ':') << i;
#endif
	if (end - base < 64) {
		m &= (UINT64_C(1) << (end - base)) - 1;
		m |= UINT64_C(1) << (end - base);
	}
	return m;
}

/* Start a scan for the boundaries after p. */
static inline void
scan_init(struct scan *sc, const char *p, const char *end)
{
	sc->base = p;
	sc->end = end;
	sc->mask = scan_mask(p, end) & ~UINT64_C(1);
}

/* The next boundary (the end of the line at the latest). */
static inline const char *
scan_next(struct scan *sc)
{
	const char *b;

	while (sc->mask == 0) {
		sc->base += 64;
		sc->mask = scan_mask(sc->base, sc->end);
	}
	b = sc->base + __builtin_ctzll(sc->mask);
	sc->mask &= sc->mask - 1;
	return b;
}

/*
 * Which of the 8 bytes in x are not decimal digits: the top bit of each
 * such byte's nibble mask.  A byte is a digit when its high nibble is 3 and
 * stays 3 after adding 6.  A carry out of a byte of x + 6 only comes from a
 * byte >= 0xfa, which is no digit, and it spoils only later bytes.
 */
static inline uint64_t
not_digits(uint64_t x)
{
	const uint64_t hi = UINT64_C(0xf0f0f0f0f0f0f0f0),
	    threes = UINT64_C(0x3030303030303030);

	return ((x & hi) ^ threes) |
	    (((x + UINT64_C(0x0606060606060606)) & hi) ^ threes);
}

/*
 * The value of the n <= 8 digits at the start of x (first digit in the
 * lowest byte), all known to be digits; n = 0 gives 0.
 */
static inline uint64_t
digits_value(uint64_t x, unsigned n)
{
	uint64_t d;

	if (n == 0)
		return 0;
	d = (x - UINT64_C(0x3030303030303030)) << (8 * (8 - n));
	d = d * 10 + (d >> 8);
	return ((d & UINT64_C(0x000000ff000000ff)) *
	    (100 + (UINT64_C(1000000) << 32)) +
	    ((d >> 16) & UINT64_C(0x000000ff000000ff)) *
	    (1 + (UINT64_C(10000) << 32))) >> 32;
}

/* The n <= 8 bytes at p as a number; 0 if one is not a digit. */
static inline int
digits8(const char *p, unsigned n, uint64_t *v)
{
	uint64_t x, keep;

	memcpy(&x, p, sizeof x);
	keep = n == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * n)) - 1;
	if ((not_digits(x) & keep) != 0)
		return 0;
	*v = digits_value(x, n);
	return 1;
}

/* The index in [p, e): 1 to 16 digits.  Returns 0 if it is anything else. */
static inline int
fast_index(const char *p, const char *e, uint64_t *idx)
{
	size_t n = (size_t)(e - p);
	uint64_t hi, lo;

	if (n - 1 < 8)
		return digits8(p, (unsigned)n, idx);
	if (n - 1 >= 16 || !digits8(p, (unsigned)n - 8, &hi) ||
	    !digits8(p + n - 8, 8, &lo))
		return 0;
	*idx = hi * 100000000 + lo;
	return 1;
}

/*
 * The value in [p, e) as ps_parsenum_float() would give it, if it is
 * [-+]digits[.digits] with at least one digit, at most 8 digits on each side
 * of the point and a mantissa below 2^24.  Both the mantissa and the power
 * of ten are then exact floats, so one IEEE float division rounds correctly
 * (see parsenum.h).  Returns 0 for anything else.
 */
static inline int
fast_value(const char *p, const char *e, float *out)
{
	static const float pow10f[] = {
		1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f
	};
	static const uint32_t pow10u[] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000
	};
	uint64_t x, m, f;
	size_t nint, nfrac = 0;
	int neg = 0;
	float v;

	if (FLT_EVAL_METHOD != 0 || p == e)
		return 0;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	memcpy(&x, p, sizeof x);
	x = not_digits(x);
	nint = x == 0 ? 8 : (size_t)__builtin_ctzll(x) / 8;
	if (nint >= (size_t)(e - p))
		nint = (size_t)(e - p);
	else if (p[nint] == '.')
		nfrac = (size_t)(e - p) - nint - 1;
	else
		return 0;
	if (nint > 8 || nfrac > 8 || nint + nfrac == 0 ||
	    !digits8(p, (unsigned)nint, &m) ||
	    !digits8(p + nint + 1, (unsigned)nfrac, &f))
		return 0;
	if (nfrac > 0)
		m = m * pow10u[nfrac] + f;
	if (m >= (UINT64_C(1) << 24))
		return 0;
	v = nfrac == 0 ? (float)m : (float)m / pow10f[nfrac];
	/*
	 * Up to 6 digits a float keeps the value (FLT_DIG); else v must be
	 * within half a unit of the last digit (v * 10^nfrac is exact in a
	 * double), or the slow path counts it as rounded.
	 */
	if (m >= 1000000 && fabs((double)v * pow10u[nfrac] - (double)m) >= 0.5)
		return 0;
	*out = neg ? -v : v;
	return 1;
}

/*
 * The pair after the ' ' at p by the fast path: its index and value, and
 * the boundary after it, or NULL to leave it to slow_pair().
 */
static inline const char *
fast_pair(struct scan *sc, const char *p, uint64_t *idx, float *v)
{
	const char *colon, *e;

	if (*p != ' ')
		return NULL;
	colon = scan_next(sc);		/* not ':' at the end of the line */
	if (*colon != ':')
		return NULL;
	e = scan_next(sc);
	if ((e != sc->end && *e != ' ') || !fast_index(p + 1, colon, idx) ||
	    !fast_value(colon + 1, e, v))
		return NULL;
	return e;
}

/* Map index idx of the token at p to a stored id above prev, or fail. */
static inline int
check_index(struct ps_libsvm_reader *r, const struct line *ln, const char *p,
    uint64_t idx, uint64_t prev, uint64_t *id, char *err, size_t errlen)
{
	if (r->o.zero_based) {
		if (idx == UINT64_MAX)
			return bad_index(r, ln, p, PS_NUM_RANGE, err, errlen);
		*id = idx + 1;
	} else if ((*id = idx) == 0)
		return bad(r, ln, err, errlen, "index 0 (use --zero-based)");
	if (*id <= prev)
		return bad_order(r, ln, *id, prev, err, errlen);
	return 0;
}

/* The pairs of a row parsed so far. */
struct pairs {
	uint64_t	*fid;
	float		*val;
	size_t		 k;
	uint64_t	 prev;
};

#define ROW_MORE	0	/* a pair or a qid token taken: go on */
#define ROW_END		1	/* the end of the line or a trailing comment */

/*
 * The next pair (or qid, or comment) after the blanks at *pp, a byte at a
 * time; *pp goes past it.  ROW_MORE, ROW_END or an error.
 */
static int
slow_pair(struct ps_libsvm_reader *r, const struct line *ln,
    const char **pp, struct pairs *pr, char *err, size_t errlen)
{
	const char *p = *pp, *end = ln->end, *q, *start;
	uint64_t idx, id = 0;
	float v;
	int rc;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end)
		return ROW_END;
	if (*p == '#') {
		if (r->o.strict)
			return bad(r, ln, err, errlen,
			    "comment not allowed with --strict");
		if (memchr(p, '\0', end - p) != NULL)
			return bad(r, ln, err, errlen, "binary data");
		return ROW_END;
	}
	start = p;
	rc = ps_parsenum_u64(p, end, &q, &idx);
	if (rc != PS_NUM_OK || q == end || *q != ':') {
		if (end - p >= 4 && memcmp(p, "qid:", 4) == 0) {
			rc = skip_qid(r, ln, &p, err, errlen);
			*pp = p;
			return rc != 0 ? rc : ROW_MORE;
		}
		return bad_index(r, ln, p, rc, err, errlen);
	}
	if ((rc = check_index(r, ln, start, idx, pr->prev, &id, err,
	    errlen)) != 0)
		return rc;
	rc = ps_parsenum_float(q + 1, end, &p, &v);
	if (rc != PS_NUM_OK || (p < end && *p != ' ' && *p != '\t'))
		return bad_value(r, ln, start, q, rc, err, errlen);
	check_kept(r, q + 1, p, v);
	pr->fid[pr->k] = pr->prev = id;
	pr->val[pr->k++] = v;
	*pp = p;
	return ROW_MORE;
}

/*
 * Parse "index:value" pairs from p (a blank or the end of the line) into
 * the reader's arrays; *n gets the count.
 */
static int
parse_pairs(struct ps_libsvm_reader *r, const struct line *ln, const char *p,
    size_t *n, char *err, size_t errlen)
{
	struct pairs pr = { r->fid, r->val, 0, 0 };
	const char *end = ln->end, *e;
	struct scan sc;
	uint64_t idx, id = 0;
	int rc;

	scan_init(&sc, p, end);
	while (p != end) {
		if ((e = fast_pair(&sc, p, &idx, &pr.val[pr.k])) != NULL) {
			if ((rc = check_index(r, ln, p + 1, idx, pr.prev, &id,
			    err, errlen)) != 0)
				return rc;
			pr.fid[pr.k++] = pr.prev = id;
			p = e;
			continue;
		}
		if ((rc = slow_pair(r, ln, &p, &pr, err, errlen)) < 0)
			return rc;
		if (rc == ROW_END)
			break;
		scan_init(&sc, p, end);
	}
	*n = pr.k;
	return 0;
}

/* Make room for the pairs a line of len bytes can hold ("i:v " each). */
static void
reserve(struct ps_libsvm_reader *r, size_t len)
{
	size_t need = len / 4 + 2;

	if (need <= r->fcap)
		return;
	r->fcap = need + need / 2;
	r->fid = xreallocarray(r->fid, r->fcap, sizeof *r->fid);
	r->val = xreallocarray(r->val, r->fcap, sizeof *r->val);
}

/* Whether a line without data (blank or comment) is acceptable. */
static int
skip_line(struct ps_libsvm_reader *r, const struct line *ln, const char *p,
    char *err, size_t errlen)
{
	if (p == ln->end)
		return r->o.strict ? bad(r, ln, err, errlen,
		    "blank line (not allowed with --strict)") : 0;
	if (r->o.strict)
		return bad(r, ln, err, errlen,
		    "comment line (not allowed with --strict)");
	if (memchr(p, '\0', ln->end - p) != NULL)
		return bad(r, ln, err, errlen, "binary data");
	return 0;
}

/* Parse the line ln as LIBLINEAR does (see libsvm_strict.c) into row. */
static int
strict_row(struct ps_libsvm_reader *r, const struct line *ln,
    struct ps_libsvm_row *row, char *err, size_t errlen)
{
	size_t len = (size_t)(ln->end - ln->start);
	struct ps_strict_row sr = { 0, r->fid, r->val, 0, 0, NULL, NULL, 0 };
	const char *lab;
	char why[160], tok[48];

	if (memchr(ln->start, '\0', len) != NULL)
		return bad(r, ln, err, errlen, "binary data");
	if (len + 2 > r->copycap) {
		r->copycap = len + 2 + len / 2;
		r->copy = xreallocarray(r->copy, r->copycap, 1);
	}
	memcpy(r->copy, ln->start, len);
	memcpy(r->copy + len, "\n", 2);
	if (ps_libsvm_strict_parse(r->copy, r->o.zero_based, &sr, why,
	    sizeof why) != 0)
		return bad(r, ln, err, errlen, "%s", why);
	row->nnz = sr.nnz;
	if (sr.nlost > 0) {
		check_kept(r, sr.lost, sr.lost_end, sr.lost_val);
		r->rounding.count += sr.nlost - 1;
	}
	for (lab = ln->start; *lab == ' ' || *lab == '\t'; lab++)
		;
	if ((row->y = map_label(&r->o, sr.label)) == 0)
		return bad(r, ln, err, errlen, "bad label '%s' (expected +1/-1 "
		    "or 1/0; name the positive class with -p)",
		    token(lab, ln->end, tok, sizeof tok));
	if (r->o.has_positive)
		return 0;
	return note_label(r, ln, sr.label, lab, err, errlen);
}

/* Finish row (label and pairs parsed) from the line ln; returns 1. */
static int
emit(struct ps_libsvm_reader *r, const struct line *ln,
    struct ps_libsvm_row *row)
{
	r->rows++;
	row->fid = r->fid;
	row->val = r->val;
	row->lineno = r->lineno;
	row->line = ln->start;
	row->linelen = (size_t)(ln->end - ln->start);
	return 1;
}

int
ps_libsvm_next(struct ps_libsvm_reader *r, struct ps_libsvm_row *row,
    char *err, size_t errlen)
{
	struct line ln;
	const char *p;
	int rc;

	for (;;) {
		if ((rc = next_line(r, &ln, err, errlen)) < 0)
			return rc;
		if (rc == 0) {
			if (r->rows > 0 || r->end != UINT64_MAX)
				return 0;
			r->lineno++;
			return bad(r, NULL, err, errlen, "no data rows");
		}
		reserve(r, (size_t)(ln.end - ln.start));
		if (r->o.strict && (rc = strict_row(r, &ln, row, err,
		    errlen)) != 0)
			return rc;
		if (ln.end > ln.start && ln.end[-1] == '\r')
			ln.end--;
		if (r->o.strict)
			return emit(r, &ln, row);
		for (p = ln.start; p < ln.end && (*p == ' ' || *p == '\t'); p++)
			;
		if (p == ln.end || *p == '#') {
			if ((rc = skip_line(r, &ln, p, err, errlen)) != 0)
				return rc;
			continue;
		}
		if ((rc = parse_label(r, &ln, &p, row, err, errlen)) != 0 ||
		    (rc = parse_pairs(r, &ln, p, &row->nnz, err, errlen)) != 0)
			return rc;
		return emit(r, &ln, row);
	}
}
