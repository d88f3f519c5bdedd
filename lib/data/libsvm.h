/*
 * libsvm.h: a streaming reader of libsvm/svmlight text ("label idx:val ...").
 *
 * The reader pulls 256 KiB chunks with read(2) from a file or stdin ("-") and
 * hands out one row at a time.  Feature ids are 1-based in the file; with
 * zero_based the file's ids start at 0 and are stored plus one, so the ids
 * a caller sees are always >= 1 and strictly ascending within a row.
 *
 * Labels: by default +1 and 1 give +1, -1 and 0 give -1, anything else is an
 * error, and so is a third distinct value (+1, 0 and -1 in one input are not
 * two classes): "a third label '0' after '+1' and '-1'".  With has_positive,
 * a label equal to positive gives +1 and every other label -1 (one-vs-rest).
 *
 * The default accepts the svmlight superset: '#' comment lines and trailing
 * "# info", "qid:N" (ignored, N digits only), blank lines, CRLF, tabs and
 * runs of blanks.
 * strict reads each line as LIBLINEAR 2.3 does (libsvm_strict.c): no
 * comments, qid or blank lines, ids below 2^31, its quirks accepted.
 * Always rejected: index 0 (unless zero_based), non-ascending or repeated
 * indices, bad numbers, nan/inf, NUL bytes, lines over maxline bytes and
 * input without any data row; without strict, a last line without a
 * newline too.
 * Explicit zero values are kept, as LIBLINEAR does.
 */
#ifndef PS_LIBSVM_H
#define PS_LIBSVM_H

#include <stddef.h>
#include <stdint.h>

/* The longest line accepted, in bytes before its '\n' (a '\r' counts). */
#define PS_LIBSVM_MAXLINE	((size_t)256 << 20)

/*
 * The distinct label values seen (without has_positive), with their text
 * as first written.  Point several readers' opts at one to check the labels
 * across their inputs; the caller owns it and zeroes it before the first.
 */
struct ps_libsvm_labels {
	int	n;
	double	v[2];
	char	text[2][24];
};

struct ps_libsvm_opts {
	int	strict;		/* LIBLINEAR's rules */
	int	zero_based;	/* the file's ids start at 0 */
	int	has_positive;	/* one-vs-rest: positive is the +1 class */
	double	positive;
	struct ps_libsvm_labels *labels; /* shared by readers, or NULL */
	size_t	maxline;	/* 0: PS_LIBSVM_MAXLINE */
};

/* One row; all pointers are into reader memory valid until the next call. */
struct ps_libsvm_row {
	int		 y;		/* +1 or -1 */
	size_t		 nnz;
	const uint64_t	*fid;		/* nnz ids, >= 1, strictly ascending */
	const float	*val;		/* nnz values, finite */
	size_t		 lineno;	/* 1-based line of this row */
	const char	*line;		/* the line's text without "\r\n" */
	size_t		 linelen;
};

struct ps_libsvm_reader;

/*
 * Open path ("-" = stdin, shown as "<stdin>" in messages).  o may be NULL
 * for the defaults.  Returns NULL with "cannot open 'x': reason" in err.
 * Free with ps_libsvm_close().
 */
struct ps_libsvm_reader *ps_libsvm_open(const char *path,
	    const struct ps_libsvm_opts *o, char *err, size_t errlen);

#define PS_LIBSVM_EDATA	(-1)	/* malformed input: "file:line: reason" */
#define PS_LIBSVM_EIO	(-2)	/* read error: "cannot read 'x': reason" */

/* Next row: 1 = row, 0 = end of input, PS_LIBSVM_EDATA or PS_LIBSVM_EIO. */
int	ps_libsvm_next(struct ps_libsvm_reader *r, struct ps_libsvm_row *row,
	    char *err, size_t errlen);
/*
 * Values that float32 does not keep (see ps_parsenum_float_keeps: printed
 * with the text's digits, the float is another number): how many so far,
 * and the first one's line, text and float.
 */
struct ps_libsvm_rounding {
	uint64_t	count;
	size_t		line;
	char		text[40];
	float		value;
};
const struct ps_libsvm_rounding *ps_libsvm_rounding(
	    const struct ps_libsvm_reader *r);
/* Bytes consumed so far (for progress reports). */
uint64_t ps_libsvm_tell(const struct ps_libsvm_reader *r);

/*
 * Reading a regular file in parts (ps-shard-data reads the halves of a
 * large one at once).  ps_libsvm_seek() makes a reader that has read
 * nothing yet start at input offset start, which begins a line; its line
 * numbers then count from there.  ps_libsvm_set_end() makes a reader stop
 * at offset end, just after a '\n', as at the end of input but without
 * the "no data rows" error; UINT64_MAX lets it read on to the real end.
 * ps_libsvm_absorb() takes the rows reader later read, from where r
 * stopped, as if r had read them: r's line and row counts, labels,
 * rounded values and position move on to later's, and its next call
 * ends the input.  It returns -1, r unchanged, when the two readers'
 * labels are three values: r should then read those rows itself (set
 * its end to UINT64_MAX), to name the line.
 */
int	ps_libsvm_seek(struct ps_libsvm_reader *r, uint64_t start, char *err,
	    size_t errlen);
void	ps_libsvm_set_end(struct ps_libsvm_reader *r, uint64_t end);
int	ps_libsvm_absorb(struct ps_libsvm_reader *r,
	    const struct ps_libsvm_reader *later);
/* The name used in messages: the path or "<stdin>". */
const char *ps_libsvm_name(const struct ps_libsvm_reader *r);
/* Close the file (not stdin) and free the reader; NULL is a no-op. */
void	ps_libsvm_close(struct ps_libsvm_reader *r);

#endif
