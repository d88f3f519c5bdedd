/*
 * modelwrite.c: write model part files (layout in model.h), from a whole
 * struct ps_model or record by record (struct ps_model_out), as a server
 * writes its store without a copy of it.  Records are checked as they
 * come and go through a fixed buffer; a part with a record that cannot
 * be written, or with fewer or more records than its header says, is
 * never renamed into place.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/ftrl.h"
#include "model/model.h"
#include "model/modelfmt.h"
#include "util/atomicfile.h"
#include "util/crc32c.h"
#include "util/errbuf.h"
#include "util/xmalloc.h"

struct ps_model_out {
	struct ps_atomic		*af;
	const struct model_layout	*l;
	const char			*why;	/* the first record's problem */
	uint32_t			 crc;	/* of the bytes written */
	size_t				 n;	/* records the header says */
	size_t				 put;	/* records given */
	uint64_t			 last;	/* the last one's feature id */
	size_t				 fill;	/* bytes in buf */
	unsigned char			 buf[MODEL_BUF];
};

/* Why m's header fields (format 2's too, with state) cannot be written. */
static const char *
model_head_problem(const struct ps_model *m, int state)
{
	if (m->nservers == 0 || m->server_id >= m->nservers)
		return "server id not below the number of servers";
	if (!isfinite(m->lambda) || m->lambda < 0)
		return "lambda is not a finite number >= 0";
	if (!state && (m->optimizer != 0 || m->epochs != 0))
		return "optimiser or epochs without optimiser state";
	if (state && ps_ftrl_name((int)m->optimizer) == NULL)
		return "unknown optimiser";
	if (state && (!isfinite(m->epochs) || m->epochs < 0))
		return "epochs is not a finite number >= 0";
	return NULL;
}

/* Why the next record of o cannot be written, or NULL. */
static const char *
model_record_problem(const struct ps_model_out *o, uint64_t fid, float w,
    double z, double nsq)
{
	if (o->put == o->n)
		return "more records than the header's count";
	if (fid == 0 || (o->put > 0 && fid <= o->last))
		return "feature ids not ascending from 1";
	if (!isfinite(w))
		return "weight is not finite";
	if (o->l == &model_v2 && !isfinite(z))
		return "z is not finite";
	if (o->l == &model_v2 && (!isfinite(nsq) || nsq < 0))
		return "n is not a finite number >= 0";
	return NULL;
}

/* Encode the header of layout l; return its CRC. */
static uint32_t
model_header_encode(unsigned char *h, const struct ps_model *m,
    const struct model_layout *l)
{
	uint32_t crc;

	memcpy(h, PS_MODEL_MAGIC, 8);
	model_put32(h + 8, l->format);
	model_put32(h + 12, m->server_id);
	model_put32(h + 16, m->nservers);
	model_put32(h + 20, m->ring_version);
	model_put64(h + 24, m->iteration);
	memcpy(h + 32, &m->lambda, 8);
	model_put64(h + 40, (uint64_t)m->n);
	if (l->format == PS_MODEL_FORMAT2) {
		model_put32(h + 48, m->optimizer);
		memcpy(h + 52, &m->epochs, 8);
	}
	crc = ps_crc32c(0, h, l->header - 4);
	model_put32(h + l->header - 4, crc);
	return crc;
}

/*
 * Create path's temporary and write head's header (head->n records, format
 * 2 with state); 0 with *out set, or PS_MODEL_EDATA or _ESYS.  Format 2's
 * trailer extends the CRC of the header's bytes before its CRC.
 */
int
ps_model_out_open(struct ps_model_out **out, const char *path,
    const struct ps_model *head, int state, char *err, size_t errlen)
{
	unsigned char h[PS_MODEL2_HEADER_SIZE];
	struct ps_model_out *o;
	const char *why;
	uint32_t crc;

	*out = NULL;
	if ((why = model_head_problem(head, state)) != NULL)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "cannot write '%s': %s", path, why);
	o = xcalloc(1, sizeof *o);
	if ((o->af = ps_atomic_open(path, err, errlen)) == NULL) {
		free(o);
		return PS_MODEL_ESYS;
	}
	o->l = state ? &model_v2 : &model_v1;
	o->n = head->n;
	crc = model_header_encode(h, head, o->l);
	fwrite(h, 1, o->l->header, o->af->fp);
	o->crc = state ? crc : 0;
	*out = o;
	return 0;
}

/* Write out o's buffered records. */
static void
model_out_flush(struct ps_model_out *o)
{
	o->crc = ps_crc32c(o->crc, o->buf, o->fill);
	fwrite(o->buf, 1, o->fill, o->af->fp);
	o->fill = 0;
}

/* The next record (z and nsq are format 2's, else ignored). */
void
ps_model_out_put(struct ps_model_out *o, uint64_t fid, float w, double z,
    double nsq)
{
	unsigned char *r = o->buf + o->fill;

	if (o->why != NULL ||
	    (o->why = model_record_problem(o, fid, w, z, nsq)) != NULL)
		return;
	model_put64(r, fid);
	memcpy(r + REC_W, &w, 4);
	if (o->l == &model_v2) {
		memcpy(r + REC_Z, &z, 8);
		memcpy(r + REC_N, &nsq, 8);
	}
	o->fill += o->l->record;
	o->put++;
	o->last = fid;
	if (o->fill == MODEL_BUF)
		model_out_flush(o);
}

/* Remove o's temporary and free o. */
void
ps_model_out_abort(struct ps_model_out *o)
{
	if (o == NULL)
		return;
	ps_atomic_abort(o->af);
	free(o);
}

/*
 * Write the trailer and rename the part into place, if every record could
 * be written and they were as many as the header said; 0, or
 * PS_MODEL_EDATA or _ESYS with nothing left behind.  Frees o.
 */
int
ps_model_out_commit(struct ps_model_out *o, char *err, size_t errlen)
{
	unsigned char t[4];
	int rc = 0;

	if (o->why == NULL && o->put != o->n)
		o->why = "fewer records than the header's count";
	if (o->why != NULL) {
		rc = ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "cannot write '%s': %s", o->af->path, o->why);
		ps_model_out_abort(o);
		return rc;
	}
	model_out_flush(o);
	model_put32(t, o->crc);
	fwrite(t, 1, 4, o->af->fp);
	if (ps_atomic_commit(o->af, err, errlen) != 0)
		rc = PS_MODEL_ESYS;
	free(o);
	return rc;
}

/* Write m atomically, record by record. */
int
ps_model_write(const char *path, const struct ps_model *m, char *err,
    size_t errlen)
{
	struct ps_model_out *o;
	size_t i;
	int state = m->z != NULL, rc;

	if (state != (m->nsq != NULL))
		return ps_errbuf(err, errlen, PS_MODEL_EDATA,
		    "cannot write '%s': optimiser state needs both z and n",
		    path);
	if ((rc = ps_model_out_open(&o, path, m, state, err, errlen)) != 0)
		return rc;
	for (i = 0; i < m->n; i++)
		ps_model_out_put(o, m->fids[i], m->w[i], state ? m->z[i] : 0,
		    state ? m->nsq[i] : 0);
	return ps_model_out_commit(o, err, errlen);
}
