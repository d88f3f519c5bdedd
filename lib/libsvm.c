/*
 * libsvm.c: the streaming libsvm/svmlight reader (see libsvm.h for the rules).
 *
 * Input is read in chunks into one buffer; a line that crosses the end of
 * the buffer is moved to its front before the next read, and the buffer
 * doubles when a single line does not fit (up to PS_LIBSVM_MAXLINE).  Each
 * line is tokenised in one pass, numbers parsed in place by parsenum.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libsvm.h"
#include "parsenum.h"
#include "xmalloc.h"

#define CHUNK	(1UL << 20)

struct ps_libsvm_reader {
	int			 fd;
	char			*name;
	struct ps_libsvm_opts	 o;
	char			*buf;
	size_t			 cap, pos, len;	/* unread data is buf[pos, len) */
	size_t			 scanned;	/* bytes after pos with no '\n' */
	int			 eof;
	uint64_t		 base;		/* input offset of buf[0] */
	size_t			 lineno, rows;
	uint64_t		*fid;
	float			*val;
	size_t			 fcap;
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
	r->cap = CHUNK;
	r->buf = xmalloc(r->cap);
	return r;
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
	free(r);
}

uint64_t
ps_libsvm_tell(const struct ps_libsvm_reader *r)
{
	return r->base + r->pos;
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
	ssize_t n;

	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->base += r->pos;
		r->len -= r->pos;
		r->pos = 0;
	}
	if (r->len == r->cap) {
		if (r->cap > PS_LIBSVM_MAXLINE) {
			r->lineno++;
			return bad(r, NULL, err, errlen,
			    "line too long (over %lu bytes)",
			    (unsigned long)PS_LIBSVM_MAXLINE);
		}
		r->cap *= 2;
		r->buf = xreallocarray(r->buf, r->cap, 1);
	}
	do
		n = read(r->fd, r->buf + r->len, r->cap - r->len);
	while (n == -1 && errno == EINTR);
	if (n == -1) {
		snprintf(err, errlen, "cannot read '%s': %s", r->name,
		    strerror(errno));
		return PS_LIBSVM_EIO;
	}
	if (n == 0)
		r->eof = 1;
	r->len += (size_t)n;
	return 0;
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
			ln->start = r->buf + r->pos;
			ln->end = nl;
			r->pos = (size_t)(nl - r->buf) + 1;
			r->scanned = 0;
			r->lineno++;
			return 1;
		}
		r->scanned = r->len - r->pos;
		if (r->eof)
			break;
		if ((rc = fill(r, err, errlen)) != 0)
			return rc;
	}
	if (r->pos == r->len)
		return 0;
	ln->start = r->buf + r->pos;
	ln->end = r->buf + r->len;
	r->lineno++;
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

/* Parse the label at *pp into row->y. */
static int
parse_label(struct ps_libsvm_reader *r, const struct line *ln,
    const char **pp, struct ps_libsvm_row *row, char *err, size_t errlen)
{
	const char *p = *pp, *q, *end = ln->end;
	char tok[48];
	double lab;
	int rc;

	rc = ps_parsenum_double(p, end, &q, &lab);
	if (rc == PS_NUM_OK && (q == end || *q == ' ' || *q == '\t')) {
		if ((row->y = map_label(&r->o, lab)) != 0) {
			*pp = q;
			return 0;
		}
		return bad(r, ln, err, errlen, "bad label '%s' (expected "
		    "+1/-1 or 1/0; use --positive for other labels)",
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

/* Skip a "qid:N" token at *pp (or reject it in strict mode). */
static int
skip_qid(struct ps_libsvm_reader *r, const struct line *ln, const char **pp,
    char *err, size_t errlen)
{
	const char *p = *pp;

	if (r->o.strict)
		return bad(r, ln, err, errlen, "qid not allowed with --strict");
	while (p < ln->end && *p != ' ' && *p != '\t')
		p++;
	*pp = p;
	return 0;
}

/* ps_parsenum_u64() inlined: the index of every pair goes through here. */
static inline int
parse_index(const char *p, const char *end, const char **stop, uint64_t *out)
{
	const char *q = p;
	uint64_t v = 0;
	unsigned c;

	for (; q < end && (c = (unsigned)(*q - '0')) < 10 && q - p < 19; q++)
		v = v * 10 + c;		/* 19 digits cannot overflow */
	for (; q < end && (c = (unsigned)(*q - '0')) < 10; q++) {
		if (v > (UINT64_MAX - c) / 10)
			return PS_NUM_RANGE;
		v = v * 10 + c;
	}
	*stop = q;
	*out = v;
	return q == p ? PS_NUM_BAD : PS_NUM_OK;
}

/* Parse "index:value" pairs from p into the reader's arrays; *n gets the count. */
static int
parse_pairs(struct ps_libsvm_reader *r, const struct line *ln, const char *p,
    size_t *n, char *err, size_t errlen)
{
	const char *end = ln->end, *q, *start;
	uint64_t idx, id, prev = 0;
	size_t k = 0;
	float v;
	int rc;

	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			break;
		if (*p == '#') {
			if (r->o.strict)
				return bad(r, ln, err, errlen,
				    "comment not allowed with --strict");
			if (memchr(p, '\0', end - p) != NULL)
				return bad(r, ln, err, errlen, "binary data");
			break;
		}
		start = p;
		rc = parse_index(p, end, &q, &idx);
		if (rc != PS_NUM_OK || q == end || *q != ':') {
			if (end - p >= 4 && memcmp(p, "qid:", 4) == 0) {
				if ((rc = skip_qid(r, ln, &p, err, errlen)) != 0)
					return rc;
				continue;
			}
			return bad_index(r, ln, p, rc, err, errlen);
		}
		if (r->o.zero_based) {
			if (idx == UINT64_MAX)
				return bad_index(r, ln, p, PS_NUM_RANGE, err,
				    errlen);
			id = idx + 1;
		} else if ((id = idx) == 0)
			return bad(r, ln, err, errlen,
			    "index 0 (use --zero-based)");
		if (id <= prev)
			return bad_order(r, ln, id, prev, err, errlen);
		rc = ps_parsenum_float(q + 1, end, &p, &v);
		if (rc != PS_NUM_OK || (p < end && *p != ' ' && *p != '\t'))
			return bad_value(r, ln, start, q, rc, err, errlen);
		r->fid[k] = id;
		r->val[k++] = v;
		prev = id;
	}
	*n = k;
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
			if (r->rows > 0)
				return 0;
			r->lineno++;
			return bad(r, NULL, err, errlen, "no data rows");
		}
		if (ln.end > ln.start && ln.end[-1] == '\r')
			ln.end--;
		for (p = ln.start; p < ln.end && (*p == ' ' || *p == '\t'); p++)
			;
		if (p == ln.end || *p == '#') {
			if ((rc = skip_line(r, &ln, p, err, errlen)) != 0)
				return rc;
			continue;
		}
		reserve(r, (size_t)(ln.end - ln.start));
		if ((rc = parse_label(r, &ln, &p, row, err, errlen)) != 0 ||
		    (rc = parse_pairs(r, &ln, p, &row->nnz, err, errlen)) != 0)
			return rc;
		r->rows++;
		row->fid = r->fid;
		row->val = r->val;
		row->lineno = r->lineno;
		row->line = ln.start;
		row->linelen = (size_t)(ln.end - ln.start);
		return 1;
	}
}
