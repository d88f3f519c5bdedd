/*
 * fuzz_model.c: libFuzzer harness for the model part reader, the file a
 * checkpoint is made of (ps_model_read, lib/model.c; pskit-model(5)).
 *
 * Invariants besides "no crash": an error is PS_MODEL_EDATA with a
 * message that starts with the file's name; a part that is accepted has
 * feature ids ascending from 1, finite weights and a valid header, and the
 * file is exactly its canonical encoding (56 + 12 n bytes, every field
 * where model.h puts it), so no byte of an accepted file goes unchecked.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "model.h"

/* Check an accepted part m against the file's bytes. */
static void
check_model(const uint8_t *data, size_t size, const struct ps_model *m)
{
	const uint8_t *rec = data + PS_MODEL_HEADER_SIZE;
	size_t i;

	FUZZ_CHECK(m->nparts == 1);
	FUZZ_CHECK(size == PS_MODEL_HEADER_SIZE + 4 +
	    PS_MODEL_RECORD_SIZE * (uint64_t)m->n);
	FUZZ_CHECK(memcmp(data, PS_MODEL_MAGIC, 8) == 0);
	FUZZ_CHECK(fuzz_ld32(data + 8) == PS_MODEL_FORMAT);
	FUZZ_CHECK(fuzz_ld32(data + 12) == m->server_id);
	FUZZ_CHECK(fuzz_ld32(data + 16) == m->nservers);
	FUZZ_CHECK(fuzz_ld32(data + 20) == m->ring_version);
	FUZZ_CHECK(fuzz_ld64(data + 24) == m->iteration);
	FUZZ_CHECK(memcmp(data + 32, &m->lambda, 8) == 0);
	FUZZ_CHECK(fuzz_ld64(data + 40) == m->n);
	FUZZ_CHECK(m->server_id < m->nservers);
	FUZZ_CHECK(isfinite(m->lambda) && m->lambda >= 0);
	for (i = 0; i < m->n; i++, rec += PS_MODEL_RECORD_SIZE) {
		FUZZ_CHECK(fuzz_ld64(rec) == m->fids[i]);
		FUZZ_CHECK(memcmp(rec + 8, &m->w[i], 4) == 0);
		FUZZ_CHECK(m->fids[i] > (i > 0 ? m->fids[i - 1] : 0));
		FUZZ_CHECK(isfinite(m->w[i]));
	}
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
	}
	close(fd);
}

/* Recompute the header's and the records' checksums. */
static void
fixup(uint8_t *p, size_t size)
{
	const uint8_t *end = p + size;

	if (size >= PS_MODEL_HEADER_SIZE)
		fuzz_put_crc(p + 48, p, 48, end);
	if (size >= PS_MODEL_HEADER_SIZE + 4)
		fuzz_put_crc(p + size - 4, p + PS_MODEL_HEADER_SIZE,
		    size - PS_MODEL_HEADER_SIZE - 4, end);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_twice(data, size, run, fixup);
	return 0;
}
