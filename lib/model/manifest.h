/*
 * manifest.h: the MANIFEST of a checkpoint version directory
 * (pskit-ckpt(5)), the text file that ties the parts of one model version
 * together with its iteration and ring version.
 *
 * The layout, every line ending in LF, fields separated by one space:
 *
 *   line      contents
 *   1         pskit-manifest 1
 *   2         iteration N              (decimal, as in every part)
 *   3         ring_version N           (every part's ring version)
 *   4         servers N                (1 to PS_MANIFEST_MAX_SERVERS)
 *   5         lambda X                 (%.17g, finite, >= 0)
 *   6 .. 5+N  part S NAME SIZE CRC     (S = 0, 1, ..., N-1 in this order;
 *                                       NAME a file of the same directory;
 *                                       SIZE its bytes; CRC its record
 *                                       checksum, 8 lowercase hex)
 *   6+N       crc32c CRC               (of every byte before this line)
 *
 * Nothing follows the last line.  Invariants of a complete version, which
 * ps_manifest_load() checks in this order:
 *   1. the MANIFEST parses and its own checksum matches;
 *   2. every part it lists exists and is a valid part (ps_model_read);
 *   3. each part's header agrees with the manifest (server id S,
 *      servers, ring version, iteration, lambda);
 *   4. each part's size and record checksum (its last 4 bytes: in
 *      format 1 the CRC-32C of its records, in format 2 that of its
 *      header before the header's CRC and its records) are the listed
 *      ones; with 3, this pins every byte of the part, so one rewritten
 *      after the manifest, even validly, is caught.  (Format 1's header
 *      fields outside 3 are its magic, format, record count and header
 *      CRC, fixed by the format and the size; format 2's optimiser and
 *      epochs are under its trailer instead, so the manifest needs no
 *      line for them.  Not a CRC of the whole file: a CRC over bytes
 *      that end in their own CRC is the same for every file of a
 *      length.)
 *   5. the parts have disjoint feature ids (ps_model_set_merge).
 * A version directory without a MANIFEST is incomplete: writers put the
 * parts first and the MANIFEST last, atomically.
 *
 * A struct ps_manifest owns its parts array and their names;
 * ps_manifest_release() frees them.
 */
#ifndef PS_MANIFEST_H
#define PS_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

#define PS_MANIFEST_NAME	"MANIFEST"
#define PS_MANIFEST_FORMAT	1
#define PS_MANIFEST_MAX_SERVERS	4096	/* as many as a ring holds */
#define PS_MANIFEST_MAX_SIZE	(4UL << 20)	/* bytes of a MANIFEST */
#define PS_MANIFEST_MAX_NAME	255	/* bytes of a part's file name */

/* Return values besides 0: those of model.h. */
#define PS_MANIFEST_EDATA	PS_MODEL_EDATA	/* invalid or inconsistent */
#define PS_MANIFEST_ESYS	PS_MODEL_ESYS	/* cannot read or write */

struct ps_manifest_part {
	uint32_t	 server;	/* the part's server id */
	char		*name;		/* file name inside the directory */
	uint64_t	 size;		/* bytes */
	uint32_t	 crc;		/* its trailer CRC-32C (last 4 bytes) */
};

struct ps_manifest {
	uint64_t		 iteration;
	uint32_t		 ring_version;
	uint32_t		 nservers;
	double			 lambda;
	struct ps_manifest_part	*parts;	/* nservers, by server id */
};

/*
 * Parse manifest text[0, len) strictly; errors read "name:LINE: reason"
 * (PS_MANIFEST_EDATA).  m is the caller's on success, zeroed on failure.
 */
int	ps_manifest_parse(const char *text, size_t len, const char *name,
	    struct ps_manifest *m, char *err, size_t errlen);
/* The text of m, NUL-terminated; the caller frees *text. */
void	ps_manifest_format(const struct ps_manifest *m, char **text,
	    size_t *len);
/*
 * Read and parse dir/MANIFEST.  PS_MANIFEST_ESYS with errno set when it
 * cannot be read (ENOENT: the version is incomplete).
 */
int	ps_manifest_read(const char *dir, struct ps_manifest *m, char *err,
	    size_t errlen);
/*
 * The manifest of the parts (every *.psm file) in dir: they must be valid,
 * agree as ps_model_load() requires, share one ring version and be one
 * part per server.  Nothing is written; see ps_manifest_write().
 */
int	ps_manifest_build(const char *dir, struct ps_manifest *m, char *err,
	    size_t errlen);
/* Write m as dir/MANIFEST atomically (PS_MANIFEST_ESYS on failure). */
int	ps_manifest_write(const char *dir, const struct ps_manifest *m,
	    char *err, size_t errlen);
/*
 * Check that dir is a complete version (the invariants above) and load its
 * parts into merged, the manifest into m; both the caller's on success,
 * zeroed on failure.  A part listed but absent is PS_MANIFEST_EDATA.
 */
int	ps_manifest_load(const char *dir, struct ps_manifest *m,
	    struct ps_model *merged, char *err, size_t errlen);
/* Free what m owns and zero it. */
void	ps_manifest_release(struct ps_manifest *m);

#endif
