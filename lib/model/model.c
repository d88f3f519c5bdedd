/*
 * model.c: read model part files (layout in model.h); writing them is in
 * modelwrite.c, sets of parts and their merge in modelset.c.
 *
 * Records go through a fixed buffer so millions of them are decoded per
 * second; the reader sizes its arrays from the file's real length, never
 * from the header's record count alone.  The two formats differ in their
 * sizes (struct model_layout, modelfmt.h), in format 2's header fields and
 * record state, and in where the trailer's CRC starts.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/ftrl.h"
#include "model/model.h"
#include "model/modelfmt.h"
#include "util/crc32c.h"
#include "util/errbuf.h"

/* Read the header into h (PS_MODEL2_HEADER_SIZE bytes); its layout in *l. */
static int
model_header_read(const char *path, FILE *fp, uint64_t size,
    unsigned char *h, const struct model_layout **l, char *err, size_t errlen)
{
	if (size < PS_MODEL_HEADER_SIZE + MODEL_TRAILER)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset "
		    "%llu: truncated header", path, (unsigned long long)size);
	if (fread(h, 1, PS_MODEL_HEADER_SIZE, fp) != PS_MODEL_HEADER_SIZE)
		return ps_errbuf(err, errlen, PS_MODEL_ESYS,
		    "cannot read '%s': file shrank", path);
	if (memcmp(h, PS_MODEL_MAGIC, 8) != 0)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: offset 0: bad magic (not a model file)", path);
	if (model_get32(h + 8) == PS_MODEL_FORMAT) {
		*l = &model_v1;
		return 0;
	}
	if (model_get32(h + 8) != PS_MODEL_FORMAT2)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: offset 8: unsupported format %u", path, model_get32(h + 8));
	*l = &model_v2;
	if (size < PS_MODEL2_HEADER_SIZE + MODEL_TRAILER)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset "
		    "%llu: truncated header", path, (unsigned long long)size);
	if (fread(h + PS_MODEL_HEADER_SIZE, 1, PS_MODEL2_HEADER_SIZE -
	    PS_MODEL_HEADER_SIZE, fp) != PS_MODEL2_HEADER_SIZE -
	    PS_MODEL_HEADER_SIZE)
		return ps_errbuf(err, errlen, PS_MODEL_ESYS,
		    "cannot read '%s': file shrank", path);
	return 0;
}

/* Decode and check format 2's optimiser and epochs. */
static int
model_header2_decode(const char *path, const unsigned char *h,
    struct ps_model *m, char *err, size_t errlen)
{
	m->optimizer = model_get32(h + 48);
	memcpy(&m->epochs, h + 52, 8);
	if (ps_ftrl_name((int)m->optimizer) == NULL)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset 48: "
		    "unknown optimiser %u", path, m->optimizer);
	if (!isfinite(m->epochs) || m->epochs < 0)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: offset 52: bad epochs", path);
	return 0;
}

/* Decode and check the header h of layout l; size is the file's length. */
static int
model_header_decode(const char *path, const unsigned char *h,
    const struct model_layout *l, uint64_t size, struct ps_model *m,
    char *err, size_t errlen)
{
	size_t hc = l->header - 4;
	uint64_t n, need;

	if (model_get32(h + hc) != ps_crc32c(0, h, hc))
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: offset %zu: header checksum mismatch", path, hc);
	m->format = l->format;
	m->server_id = model_get32(h + 12);
	m->nservers = model_get32(h + 16);
	m->ring_version = model_get32(h + 20);
	m->iteration = model_get64(h + 24);
	memcpy(&m->lambda, h + 32, 8);
	n = model_get64(h + 40);
	if (m->nservers == 0 || m->server_id >= m->nservers)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset 12: "
		    "server id %u not below server count %u", path,
		    m->server_id, m->nservers);
	if (!isfinite(m->lambda) || m->lambda < 0)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: offset 32: bad lambda", path);
	if (l->format == PS_MODEL_FORMAT2 &&
	    model_header2_decode(path, h, m, err, errlen) != 0)
		return PS_MODEL_EDATA;
	if (n > (size - l->header - MODEL_TRAILER) / l->record)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset "
		    "%llu: truncated (header says %llu records)", path,
		    (unsigned long long)size, (unsigned long long)n);
	need = l->header + n * l->record + MODEL_TRAILER;
	if (size != need)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset "
		    "%llu: trailing bytes after the records", path,
		    (unsigned long long)need);
	m->n = (size_t)n;
	return 0;
}

/* Decode format 2's state of record i from r; off is the record's offset. */
static int
model_state_decode(const char *path, const unsigned char *r,
    unsigned long long off, size_t i, struct ps_model *m, char *err,
    size_t errlen)
{
	memcpy(&m->z[i], r + REC_Z, 8);
	memcpy(&m->nsq[i], r + REC_N, 8);
	if (!isfinite(m->z[i]))
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: offset %llu: z is not finite", path, off + REC_Z);
	if (!isfinite(m->nsq[i]) || m->nsq[i] < 0)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset "
		    "%llu: n is not a finite number >= 0", path, off + REC_N);
	return 0;
}

/* Decode k records of layout l from buf into m starting at record i. */
static int
model_records_decode(const char *path, const unsigned char *buf, size_t k,
    size_t i, const struct model_layout *l, struct ps_model *m, char *err,
    size_t errlen)
{
	const unsigned char *r = buf;
	size_t j;

	for (j = 0; j < k; j++, i++, r += l->record) {
		unsigned long long off = l->header +
		    (unsigned long long)i * l->record;

		m->fids[i] = model_get64(r);
		memcpy(&m->w[i], r + REC_W, 4);
		if (m->fids[i] == 0)
			return ps_errbuf(err, errlen, PS_MODEL_EDATA,
			    "%s: offset %llu: feature id 0", path, off);
		if (i > 0 && m->fids[i] <= m->fids[i - 1])
			return ps_errbuf(err, errlen, PS_MODEL_EDATA,
			    "%s: offset %llu: feature ids not ascending", path,
			    off);
		if (!isfinite(m->w[i]))
			return ps_errbuf(err, errlen, PS_MODEL_EDATA,
			    "%s: offset %llu: weight is not finite", path,
			    off + REC_W);
		if (m->z != NULL && model_state_decode(path, r, off, i, m, err,
		    errlen) != 0)
			return PS_MODEL_EDATA;
	}
	return 0;
}

/* Allocate m's arrays for m->n records of layout l. */
static int
model_alloc(const char *path, const struct model_layout *l,
    struct ps_model *m, char *err, size_t errlen)
{
	size_t n = m->n ? m->n : 1;

	if ((m->fids = malloc(n * sizeof *m->fids)) == NULL ||
	    (m->w = malloc(n * sizeof *m->w)) == NULL ||
	    (l->format == PS_MODEL_FORMAT2 &&
	    ((m->z = malloc(n * sizeof *m->z)) == NULL ||
	    (m->nsq = malloc(n * sizeof *m->nsq)) == NULL)))
		return ps_errbuf(err, errlen, PS_MODEL_ESYS, "%s: cannot "
		    "allocate %zu records: %s", path, m->n, strerror(errno));
	return 0;
}

/* Read the records and the trailer, a CRC-32C extending crc. */
static int
model_records_read(const char *path, FILE *fp, const struct model_layout *l,
    uint32_t crc, struct ps_model *m, char *err, size_t errlen)
{
	unsigned char buf[MODEL_BUF];
	size_t i = 0, k, chunk = MODEL_BUF / l->record;
	int rc;

	if ((rc = model_alloc(path, l, m, err, errlen)) != 0)
		return rc;
	while (i < m->n) {
		k = m->n - i < chunk ? m->n - i : chunk;
		if (fread(buf, l->record, k, fp) != k)
			return ps_errbuf(err, errlen, PS_MODEL_ESYS,
			    "cannot read '%s': %s", path, ferror(fp) ?
			    strerror(errno) : "file shrank");
		crc = ps_crc32c(crc, buf, k * l->record);
		if ((rc = model_records_decode(path, buf, k, i, l, m, err,
		    errlen)) != 0)
			return rc;
		i += k;
	}
	if (fread(buf, 1, 4, fp) != 4)
		return ps_errbuf(err, errlen, PS_MODEL_ESYS,
		    "cannot read '%s': file shrank", path);
	if (model_get32(buf) != crc)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset "
		    "%llu: record checksum mismatch", path,
		    (unsigned long long)m->file_size - 4);
	m->records_crc = crc;
	return 0;
}

/* Read one part from an open stream. */
static int
model_read_stream(const char *path, FILE *fp, struct ps_model *m, char *err,
    size_t errlen)
{
	unsigned char h[PS_MODEL2_HEADER_SIZE];
	const struct model_layout *l;
	struct stat st;
	uint64_t size;
	int rc;

	if (fstat(fileno(fp), &st) != 0)
		return ps_errbuf(err, errlen, PS_MODEL_ESYS,
		    "cannot stat '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: not a regular file", path);
	size = (uint64_t)st.st_size;
	if ((rc = model_header_read(path, fp, size, h, &l, err, errlen)) != 0 ||
	    (rc = model_header_decode(path, h, l, size, m, err, errlen)) != 0)
		return rc;
	m->file_size = size;
	return model_records_read(path, fp, l, l == &model_v2 ?
	    model_get32(h + l->header - 4) : 0, m, err, errlen);
}

/* Open and validate one part file. */
int
ps_model_read(const char *path, struct ps_model *m, char *err, size_t errlen)
{
	FILE *fp;
	int rc, saved;

	memset(m, 0, sizeof *m);
	if ((fp = fopen(path, "rb")) == NULL) {
		saved = errno;
		snprintf(err, errlen, "cannot open '%s': %s", path,
		    strerror(errno));
		errno = saved;
		return PS_MODEL_ESYS;
	}
	rc = model_read_stream(path, fp, m, err, errlen);
	fclose(fp);
	if (rc != 0)
		ps_model_release(m);
	else
		m->nparts = 1;
	return rc;
}

/* Free what m owns. */
void
ps_model_release(struct ps_model *m)
{
	free(m->fids);
	free(m->w);
	free(m->z);
	free(m->nsq);
	memset(m, 0, sizeof *m);
}
