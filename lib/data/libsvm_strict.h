/*
 * libsvm_strict.h: LIBLINEAR's line reader, for the libsvm reader's strict
 * option (internal to lib/data/libsvm.c; see libsvm_strict.c for the rules).
 */
#ifndef PS_LIBSVM_STRICT_H
#define PS_LIBSVM_STRICT_H

#include <stddef.h>
#include <stdint.h>

/* A parsed line; fid and val are the caller's, room for a pair per 4 bytes. */
struct ps_strict_row {
	double		 label;
	uint64_t	*fid;		/* stored ids: plus one if zero_based */
	float		*val;
	size_t		 nnz;
	size_t		 nlost;		/* values float32 does not keep */
	const char	*lost, *lost_end; /* the first one's text in s */
	float		 lost_val;
};

/*
 * Parse the NUL-terminated line s (its '\n' kept, as LIBLINEAR reads it);
 * s is overwritten.  0, or -1 with the reason (no "file:line:") in why.
 */
int	ps_libsvm_strict_parse(char *s, int zero_based,
	    struct ps_strict_row *row, char *why, size_t whylen);

#endif
