/*
 * model.c: write and read model part files (layout in model.h); sets of
 * parts and their merge are in modelset.c.
 *
 * Records go through a fixed buffer in both directions so millions of them
 * are encoded or decoded per second; the reader sizes its arrays from the
 * file's real length, never from the header's record count alone.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "crc32c.h"
#include "errbuf.h"
#include "model.h"

#define MODEL_CHUNK	5461	/* records per buffer, 64 KiB */
#define MODEL_TRAILER	4

/* Store v little-endian (configure refuses big-endian hosts). */
static void
put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Store v little-endian. */
static void
put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Load a little-endian u32. */
static uint32_t
get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Load a little-endian u64. */
static uint64_t
get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Why m cannot be written, or NULL. */
static const char *
model_problem(const struct ps_model *m)
{
	size_t i;

	if (m->nservers == 0 || m->server_id >= m->nservers)
		return "server id not below the number of servers";
	if (!isfinite(m->lambda) || m->lambda < 0)
		return "lambda is not a finite number >= 0";
	for (i = 0; i < m->n; i++) {
		if (m->fids[i] == 0 || (i > 0 && m->fids[i] <= m->fids[i - 1]))
			return "feature ids not ascending from 1";
		if (!isfinite(m->w[i]))
			return "weight is not finite";
	}
	return NULL;
}

/* Encode the 52-byte header. */
static void
model_header_encode(unsigned char *h, const struct ps_model *m)
{
	memcpy(h, PS_MODEL_MAGIC, 8);
	put32(h + 8, PS_MODEL_FORMAT);
	put32(h + 12, m->server_id);
	put32(h + 16, m->nservers);
	put32(h + 20, m->ring_version);
	put64(h + 24, m->iteration);
	memcpy(h + 32, &m->lambda, 8);
	put64(h + 40, (uint64_t)m->n);
	put32(h + 48, ps_crc32c(0, h, 48));
}

/* Write the records and their checksum to fp. */
static void
model_records_write(FILE *fp, const struct ps_model *m)
{
	unsigned char buf[MODEL_CHUNK * PS_MODEL_RECORD_SIZE], t[4];
	uint32_t crc = 0;
	size_t i = 0, k;

	while (i < m->n) {
		for (k = 0; k < MODEL_CHUNK && i < m->n; k++, i++) {
			put64(buf + k * 12, m->fids[i]);
			memcpy(buf + k * 12 + 8, &m->w[i], 4);
		}
		crc = ps_crc32c(crc, buf, k * 12);
		fwrite(buf, 12, k, fp);
	}
	put32(t, crc);
	fwrite(t, 1, 4, fp);
}

/* Validate m, then write header, records and trailer atomically. */
int
ps_model_write(const char *path, const struct ps_model *m, char *err,
    size_t errlen)
{
	unsigned char h[PS_MODEL_HEADER_SIZE];
	struct ps_atomic *af;
	const char *why;

	if ((why = model_problem(m)) != NULL)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "cannot write '%s': %s", path, why);
	if ((af = ps_atomic_open(path, err, errlen)) == NULL)
		return PS_MODEL_ESYS;
	model_header_encode(h, m);
	fwrite(h, 1, sizeof h, af->fp);
	model_records_write(af->fp, m);
	if (ps_atomic_commit(af, err, errlen) != 0)
		return PS_MODEL_ESYS;
	return 0;
}

/* Decode and check the header; size is the file's length. */
static int
model_header_decode(const char *path, const unsigned char *h, uint64_t size,
    struct ps_model *m, char *err, size_t errlen)
{
	uint64_t n, need;

	if (memcmp(h, PS_MODEL_MAGIC, 8) != 0)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: offset 0: bad magic (not a model file)", path);
	if (get32(h + 8) != PS_MODEL_FORMAT)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: offset 8: unsupported format %u", path, get32(h + 8));
	if (get32(h + 48) != ps_crc32c(0, h, 48))
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: offset 48: header checksum mismatch", path);
	m->server_id = get32(h + 12);
	m->nservers = get32(h + 16);
	m->ring_version = get32(h + 20);
	m->iteration = get64(h + 24);
	memcpy(&m->lambda, h + 32, 8);
	n = get64(h + 40);
	if (m->nservers == 0 || m->server_id >= m->nservers)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset 12: "
		    "server id %u not below server count %u", path,
		    m->server_id, m->nservers);
	if (!isfinite(m->lambda) || m->lambda < 0)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: offset 32: bad lambda", path);
	if (n > (size - PS_MODEL_HEADER_SIZE - MODEL_TRAILER) / 12)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset "
		    "%llu: truncated (header says %llu records)", path,
		    (unsigned long long)size, (unsigned long long)n);
	need = PS_MODEL_HEADER_SIZE + n * 12 + MODEL_TRAILER;
	if (size != need)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset "
		    "%llu: trailing bytes after the records", path,
		    (unsigned long long)need);
	m->n = (size_t)n;
	return 0;
}

/* Decode k records from buf into m starting at record i. */
static int
model_records_decode(const char *path, const unsigned char *buf, size_t k,
    size_t i, struct ps_model *m, char *err, size_t errlen)
{
	size_t j;

	for (j = 0; j < k; j++, i++) {
		unsigned long long off = PS_MODEL_HEADER_SIZE + (unsigned long long)i * 12;

		m->fids[i] = get64(buf + j * 12);
		memcpy(&m->w[i], buf + j * 12 + 8, 4);
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
			    off + 8);
	}
	return 0;
}

/* Read the records and the trailer that follow the header. */
static int
model_records_read(const char *path, FILE *fp, struct ps_model *m, char *err,
    size_t errlen)
{
	unsigned char buf[MODEL_CHUNK * PS_MODEL_RECORD_SIZE];
	uint32_t crc = 0;
	size_t i = 0, k;
	int rc;

	if ((m->fids = malloc((m->n ? m->n : 1) * sizeof *m->fids)) == NULL ||
	    (m->w = malloc((m->n ? m->n : 1) * sizeof *m->w)) == NULL)
		return ps_errbuf(err, errlen, PS_MODEL_ESYS, "%s: cannot "
		    "allocate %zu records: %s", path, m->n, strerror(errno));
	while (i < m->n) {
		k = m->n - i < MODEL_CHUNK ? m->n - i : MODEL_CHUNK;
		if (fread(buf, 12, k, fp) != k)
			return ps_errbuf(err, errlen, PS_MODEL_ESYS,
			    "cannot read '%s': %s", path, ferror(fp) ?
			    strerror(errno) : "file shrank");
		crc = ps_crc32c(crc, buf, k * 12);
		if ((rc = model_records_decode(path, buf, k, i, m, err,
		    errlen)) != 0)
			return rc;
		i += k;
	}
	if (fread(buf, 1, 4, fp) != 4)
		return ps_errbuf(err, errlen, PS_MODEL_ESYS,
		    "cannot read '%s': file shrank", path);
	if (get32(buf) != crc)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset "
		    "%llu: record checksum mismatch", path,
		    (unsigned long long)PS_MODEL_HEADER_SIZE +
		    (unsigned long long)m->n * 12);
	m->records_crc = crc;
	return 0;
}

/* Read one part from an open stream. */
static int
model_read_stream(const char *path, FILE *fp, struct ps_model *m, char *err,
    size_t errlen)
{
	unsigned char h[PS_MODEL_HEADER_SIZE];
	struct stat st;
	int rc;

	if (fstat(fileno(fp), &st) != 0)
		return ps_errbuf(err, errlen, PS_MODEL_ESYS,
		    "cannot stat '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "%s: not a regular file", path);
	if ((uint64_t)st.st_size < PS_MODEL_HEADER_SIZE + MODEL_TRAILER)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "%s: offset "
		    "%lld: truncated header", path, (long long)st.st_size);
	if (fread(h, 1, sizeof h, fp) != sizeof h)
		return ps_errbuf(err, errlen, PS_MODEL_ESYS,
		    "cannot read '%s': file shrank", path);
	if ((rc = model_header_decode(path, h, (uint64_t)st.st_size, m, err,
	    errlen)) != 0)
		return rc;
	m->file_size = (uint64_t)st.st_size;
	return model_records_read(path, fp, m, err, errlen);
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
	memset(m, 0, sizeof *m);
}
