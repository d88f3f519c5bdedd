/*
 * fuzz_model.c: libFuzzer harness for the model part reader, the file a
 * checkpoint is made of (ps_model_read, lib/model/model.c; pskit-model(5)).
 *
 * Invariants besides "no crash": an error is PS_MODEL_EDATA with a
 * message that starts with the file's name; a part that is accepted has
 * feature ids ascending from 1, finite weights and a valid header, and the
 * file is exactly its canonical encoding (format 1: 56 + 12 n bytes;
 * format 2: 68 + 28 n, with a known optimiser, finite epochs >= 0, finite
 * z and n >= 0; every field where model.h puts it), so no byte of an
 * accepted file goes unchecked.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "algo/ftrl.h"
#include "fuzz.h"
#include "model/model.h"
#include "util/crc32c.h"

/* Check format 2's header fields and record state against the bytes. */
static void
check_state(const uint8_t *data, const struct ps_model *m)
{
	const uint8_t *rec = data + PS_MODEL2_HEADER_SIZE;
	size_t i;

	FUZZ_CHECK(m->z != NULL && m->nsq != NULL);
	FUZZ_CHECK(fuzz_ld32(data + 48) == m->optimizer);
	FUZZ_CHECK(ps_ftrl_name((int)m->optimizer) != NULL);
	FUZZ_CHECK(memcmp(data + 52, &m->epochs, 8) == 0);
	FUZZ_CHECK(isfinite(m->epochs) && m->epochs >= 0);
	for (i = 0; i < m->n; i++, rec += PS_MODEL2_RECORD_SIZE) {
		FUZZ_CHECK(memcmp(rec + 12, &m->z[i], 8) == 0);
		FUZZ_CHECK(memcmp(rec + 20, &m->nsq[i], 8) == 0);
		FUZZ_CHECK(isfinite(m->z[i]));
		FUZZ_CHECK(isfinite(m->nsq[i]) && m->nsq[i] >= 0);
	}
}

/* Check an accepted part m against the file's bytes. */
static void
check_model(const uint8_t *data, size_t size, const struct ps_model *m)
{
	int v2 = m->format == PS_MODEL_FORMAT2;
	size_t hsize = v2 ? PS_MODEL2_HEADER_SIZE : PS_MODEL_HEADER_SIZE;
	size_t rsize = v2 ? PS_MODEL2_RECORD_SIZE : PS_MODEL_RECORD_SIZE;
	const uint8_t *rec = data + hsize;
	size_t i;

	FUZZ_CHECK(m->nparts == 1);
	FUZZ_CHECK(size == hsize + 4 + rsize * (uint64_t)m->n);
	FUZZ_CHECK(memcmp(data, PS_MODEL_MAGIC, 8) == 0);
	FUZZ_CHECK(fuzz_ld32(data + 8) == m->format);
	FUZZ_CHECK(m->format == PS_MODEL_FORMAT || v2);
	FUZZ_CHECK(fuzz_ld32(data + 12) == m->server_id);
	FUZZ_CHECK(fuzz_ld32(data + 16) == m->nservers);
	FUZZ_CHECK(fuzz_ld32(data + 20) == m->ring_version);
	FUZZ_CHECK(fuzz_ld64(data + 24) == m->iteration);
	FUZZ_CHECK(memcmp(data + 32, &m->lambda, 8) == 0);
	FUZZ_CHECK(fuzz_ld64(data + 40) == m->n);
	FUZZ_CHECK(m->server_id < m->nservers);
	FUZZ_CHECK(isfinite(m->lambda) && m->lambda >= 0);
	FUZZ_CHECK(fuzz_ld32(data + size - 4) == m->records_crc);
	for (i = 0; i < m->n; i++, rec += rsize) {
		FUZZ_CHECK(fuzz_ld64(rec) == m->fids[i]);
		FUZZ_CHECK(memcmp(rec + 8, &m->w[i], 4) == 0);
		FUZZ_CHECK(m->fids[i] > (i > 0 ? m->fids[i - 1] : 0));
		FUZZ_CHECK(isfinite(m->w[i]));
	}
	if (v2)
		check_state(data, m);
	else
		FUZZ_CHECK(m->z == NULL && m->nsq == NULL && m->optimizer == 0 &&
		    m->epochs == 0);
}

/* Read one input as a model part and check what comes back. */
static void
run(const uint8_t *data, size_t size)
{
	struct ps_model m;
	char path[64], err[512];
	int fd, rc;

	fd = fuzz_memfile(data, size, path, sizeof path);
	rc = ps_model_read(path, &m, err, sizeof err);
	if (rc == 0) {
		check_model(data, size, &m);
		ps_model_release(&m);
	} else {
		FUZZ_CHECK(rc == PS_MODEL_EDATA);
		FUZZ_CHECK(fuzz_starts(err, path));
		FUZZ_CHECK(m.fids == NULL && m.w == NULL && m.n == 0);
		FUZZ_CHECK(m.z == NULL && m.nsq == NULL);
	}
	close(fd);
}

/*
 * Recompute the header's and the trailer's checksums, where the format
 * the input claims puts them: format 2's trailer extends its header's CRC.
 */
static void
fixup(uint8_t *p, size_t size)
{
	const uint8_t *end = p + size;
	size_t h = PS_MODEL_HEADER_SIZE;
	uint32_t crc;

	if (size >= 12 && fuzz_ld32(p + 8) == PS_MODEL_FORMAT2)
		h = PS_MODEL2_HEADER_SIZE;
	if (size >= h)
		fuzz_put_crc(p + h - 4, p, h - 4, end);
	if (size < h + 4)
		return;
	crc = h == PS_MODEL2_HEADER_SIZE ? fuzz_ld32(p + h - 4) : 0;
	crc = ps_crc32c(crc, p + h, size - h - 4);
	memcpy(p + size - 4, &crc, 4);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_twice(data, size, run, fixup);
	return 0;
}
