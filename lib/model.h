/*
 * model.h: model part files (pskit-model(5)), the weights one server holds,
 * and the merge of a set of parts into one model.
 *
 * Layout, all integers little-endian:
 *
 *   offset  size  field
 *        0     8  magic "PSKMODL1"
 *        8     4  format version (1)
 *       12     4  server id (below the number of servers)
 *       16     4  number of servers (>= 1)
 *       20     4  ring version
 *       24     8  iteration
 *       32     8  lambda, IEEE 754 binary64, finite and >= 0
 *       40     8  number of records n
 *       48     4  CRC-32C of bytes 0-47
 *       52  12*n  records: u64 feature id (>= 1, strictly ascending),
 *                 f32 weight (finite)
 *  52+12*n     4  CRC-32C of the record bytes
 *
 * The file is exactly 56 + 12 n bytes.  A struct ps_model owns fids and w
 * (malloc'd, n entries each); ps_model_release() frees them.  A struct
 * ps_model_set owns its parts and their names; ps_model_set_release()
 * frees them.
 */
#ifndef PS_MODEL_H
#define PS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define PS_MODEL_MAGIC		"PSKMODL1"
#define PS_MODEL_FORMAT		1
#define PS_MODEL_HEADER_SIZE	52
#define PS_MODEL_RECORD_SIZE	12

/* Return values besides 0. */
#define PS_MODEL_EDATA		(-1)	/* corrupt or inconsistent contents */
#define PS_MODEL_ESYS		(-2)	/* cannot open, read or write; errno set */

struct ps_model {
	uint32_t	 server_id;
	uint32_t	 nservers;
	uint32_t	 ring_version;
	uint64_t	 iteration;
	double		 lambda;
	size_t		 n;		/* records */
	uint64_t	*fids;		/* ascending */
	float		*w;
	uint32_t	 nparts;	/* parts merged (set by read and load) */
	uint64_t	 file_size;	/* bytes of the file (set by read) */
	uint32_t	 records_crc;	/* its trailer, the records' CRC-32C */
};

/* Parts read one by one, to be merged into one model. */
struct ps_model_set {
	size_t		 n;
	struct ps_model	*parts;
	char		**names;	/* each part's path, as given */
};

/* Write m atomically; m->fids must be ascending and >= 1. */
int	ps_model_write(const char *path, const struct ps_model *m, char *err,
	    size_t errlen);
/* Read and validate one part; errors read "path: offset N: reason". */
int	ps_model_read(const char *path, struct ps_model *m, char *err,
	    size_t errlen);
/*
 * Read parts (files, or directories whose *.psm files are all read) and
 * merge them into one model sorted by feature id.  Parts must agree on
 * iteration, lambda and number of servers, have distinct server ids and
 * disjoint feature ids ("parts disagree: ...").  merged->server_id is the
 * first part's; merged->ring_version the highest.
 */
int	ps_model_load(const char *const *paths, size_t npaths,
	    struct ps_model *merged, char *err, size_t errlen);
/*
 * The names of dir's *.psm files, sorted bytewise, in *names (the caller
 * frees each and the array); *n may be 0.  PS_MODEL_ESYS if dir cannot be
 * opened.
 */
int	ps_model_dir_list(const char *dir, char ***names, size_t *n,
	    char *err, size_t errlen);
/* Read one part file into set (ps_model_read's errors). */
int	ps_model_set_add(struct ps_model_set *set, const char *path,
	    char *err, size_t errlen);
/* Read every *.psm file of dir into set; none is PS_MODEL_ESYS, ENOENT. */
int	ps_model_set_add_dir(struct ps_model_set *set, const char *dir,
	    char *err, size_t errlen);
/* Check that the parts agree (as ps_model_load) and merge them. */
int	ps_model_set_merge(const struct ps_model_set *set,
	    struct ps_model *merged, char *err, size_t errlen);
/* Free the parts and names of set and zero it. */
void	ps_model_set_release(struct ps_model_set *set);
/* Free what m owns and zero it. */
void	ps_model_release(struct ps_model *m);

#endif
