/*
 * model.h: model part files (pskit-model(5)), the weights one server holds
 * (format 1) or its weights and online optimiser state (format 2), and the
 * merge of a set of parts into one model.
 *
 * Layout, all integers little-endian, floating point IEEE 754:
 *
 *   format 1                        format 2
 *   offset  size  field             offset  size  field
 *        0     8  magic "PSKMODL1"       0     8  magic "PSKMODL1"
 *        8     4  format (1)             8     4  format (2)
 *       12     4  server id             12     4  server id
 *       16     4  number of servers     16     4  number of servers
 *       20     4  ring version          20     4  ring version
 *       24     8  iteration             24     8  iteration
 *       32     8  lambda                32     8  lambda
 *       40     8  number of records n   40     8  number of records n
 *       48     4  CRC-32C of 0-47       48     4  optimiser (ftrl.h: 1
 *                                                  adagrad, 2 ftrl)
 *                                       52     8  epochs seen (binary64)
 *                                       60     4  CRC-32C of 0-59
 *       52  12*n  records               64  28*n  records
 *  52+12*n     4  CRC-32C of the    64+28*n     4  CRC-32C of bytes 0-59
 *                 record bytes                     and the record bytes
 *
 * The server id is below the number of servers (>= 1); lambda and epochs
 * are finite and >= 0.  A format 1 record is u64 feature id (>= 1,
 * strictly ascending) and f32 weight (finite); a format 2 record adds
 * f64 z (finite) and f64 n (finite, >= 0), the per-key state of ftrl.h,
 * and may have weight 0.  A format 1 file is exactly 56 + 12 n bytes, a
 * format 2 file 68 + 28 n.
 *
 * Format 2's trailer covers its header (less the header's own CRC, since
 * a CRC run over bytes and their CRC ends the same for any bytes), so that
 * a part's size and trailer, which a MANIFEST lists (manifest.h), pin the
 * optimiser and epochs too: the MANIFEST format stays the same.
 *
 * A struct ps_model owns fids and w, and in format 2 z and nsq (malloc'd,
 * n entries each, never NULL in format 2 even when n is 0);
 * ps_model_release() frees them.  A struct ps_model_set owns its parts
 * and their names; ps_model_set_release() frees them.
 */
#ifndef PS_MODEL_H
#define PS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define PS_MODEL_MAGIC		"PSKMODL1"
#define PS_MODEL_FORMAT		1	/* weights */
#define PS_MODEL_HEADER_SIZE	52
#define PS_MODEL_RECORD_SIZE	12
#define PS_MODEL_FORMAT2	2	/* weights and optimiser state */
#define PS_MODEL2_HEADER_SIZE	64
#define PS_MODEL2_RECORD_SIZE	28

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
	uint32_t	 records_crc;	/* its trailer (set by read) */
	/*
	 * Format 2: the online optimiser's state.  format is set by read
	 * and load; write takes format 2 from z and nsq being set.
	 */
	uint32_t	 format;	/* PS_MODEL_FORMAT or _FORMAT2 */
	uint32_t	 optimizer;	/* enum ps_optimizer; 0 in format 1 */
	double		 epochs;	/* of data seen; 0 in format 1 */
	double		*z;		/* ftrl.h's z per key, or NULL */
	double		*nsq;		/* ftrl.h's n (sum of squared
					   gradients) per key, or NULL */
};

/* Parts read one by one, to be merged into one model. */
struct ps_model_set {
	size_t		 n;
	struct ps_model	*parts;
	char		**names;	/* each part's path, as given */
};

/*
 * Write m atomically; m->fids must be ascending and >= 1.  Format 2 when
 * m->z and m->nsq are set (then optimizer and epochs must be valid),
 * else format 1 (then optimizer and epochs must be 0).
 */
int	ps_model_write(const char *path, const struct ps_model *m, char *err,
	    size_t errlen);
/*
 * A part written record by record, as a server writes its store in key
 * order with no copy of it.  ps_model_out_open() creates path's temporary
 * with head's header fields and record count head->n (its arrays unused;
 * format 2 when state is set, as ps_model_write()'s errors).  Then
 * ps_model_out_put() exactly head->n records, feature ids ascending from 1
 * (z and nsq ignored in format 1), and ps_model_out_commit(), which fails
 * with "cannot write 'path': reason" on the first record that could not
 * be written or a count that differs, and leaves nothing behind then;
 * commit and abort free the writer.
 */
struct ps_model_out;
int	ps_model_out_open(struct ps_model_out **out, const char *path,
	    const struct ps_model *head, int state, char *err, size_t errlen);
void	ps_model_out_put(struct ps_model_out *o, uint64_t fid, float w,
	    double z, double nsq);
int	ps_model_out_commit(struct ps_model_out *o, char *err, size_t errlen);
void	ps_model_out_abort(struct ps_model_out *o);
/* Read and validate one part; errors read "path: offset N: reason". */
int	ps_model_read(const char *path, struct ps_model *m, char *err,
	    size_t errlen);
/*
 * Read parts (files, or directories whose *.psm files are all read) and
 * merge them into one model sorted by feature id.  Parts must agree on
 * iteration, lambda, number of servers, format, optimiser and epochs,
 * have distinct server ids and disjoint feature ids ("parts disagree:
 * ...").  merged->server_id is the first part's; merged->ring_version the
 * highest; a merge of format 2 parts keeps their state.
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
/*
 * Allocate m's arrays for cap records (at least one), zeroed: fids and w,
 * and z and nsq when state is set.  Dies when out of memory.
 */
void	ps_model_alloc(struct ps_model *m, size_t cap, int state);
/* Copy record j of src to record k of dst, its state too if dst has z. */
void	ps_model_copy(struct ps_model *dst, size_t k,
	    const struct ps_model *src, size_t j);
/* Free the parts and names of set and zero it. */
void	ps_model_set_release(struct ps_model_set *set);
/* Free what m owns and zero it. */
void	ps_model_release(struct ps_model *m);

#endif
