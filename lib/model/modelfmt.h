/*
 * modelfmt.h: what the reader (model.c) and the writer (modelwrite.c) of
 * model part files share: the two formats' sizes (model.h has the
 * layout), a record's field offsets and little-endian access.
 */
#ifndef PS_MODELFMT_H
#define PS_MODELFMT_H

#include <stdint.h>
#include <string.h>

#include "model/model.h"

#define MODEL_BUF	65520	/* bytes of records, a multiple of 12 and 28 */
#define MODEL_TRAILER	4
#define REC_W		8	/* offsets in a record */
#define REC_Z		12
#define REC_N		20

/* What a format fixes: the sizes of its header and records. */
struct model_layout {
	uint32_t	format;
	size_t		header;		/* bytes, its CRC-32C the last 4 */
	size_t		record;
};

static const struct model_layout model_v1 = {
	PS_MODEL_FORMAT, PS_MODEL_HEADER_SIZE, PS_MODEL_RECORD_SIZE
};
static const struct model_layout model_v2 = {
	PS_MODEL_FORMAT2, PS_MODEL2_HEADER_SIZE, PS_MODEL2_RECORD_SIZE
};

/* Store v little-endian (configure refuses big-endian hosts). */
static inline void
model_put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Store v little-endian. */
static inline void
model_put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Load a little-endian u32. */
static inline uint32_t
model_get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Load a little-endian u64. */
static inline uint64_t
model_get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

#endif
