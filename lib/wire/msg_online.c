/*
 * msg_online.c: the codec of an sgd job's scalars and of the replies to
 * CURRENT pulls (layout in msg_online.h): the only place that knows
 * their positions.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "util/errbuf.h"
#include "wire/msg_online.h"

void
ps_sgd_push_encode(double epochs, struct ps_msg *m)
{
	m->naux = PS_SGD_PUSH_NAUX;
	m->aux[0] = epochs;
}

int
ps_sgd_push_decode(const struct ps_msg *m, double *epochs, char *err,
    size_t errlen)
{
	*epochs = m->naux >= 1 ? m->aux[0] : NAN;
	if (m->timestamp == UINT64_MAX || !(*epochs >= 0 && *epochs < 1e15))
		return ps_errbuf(err, errlen, -1, "malformed sgd push: "
		    "timestamp %llu, epochs %g",
		    (unsigned long long)m->timestamp, *epochs);
	return 0;
}

void
ps_barrier_pull_encode(double epochs, struct ps_msg *m)
{
	m->naux = PS_BARRIER_PULL_NAUX;
	m->aux[0] = epochs;
}

double
ps_barrier_pull_decode(const struct ps_msg *m)
{
	return m->naux >= 1 && isfinite(m->aux[0]) ? m->aux[0] : NAN;
}

void
ps_current_reply_encode(const struct ps_current_reply *r, struct ps_msg *m)
{
	m->naux = 2;
	m->aux[0] = r->l1;
	m->aux[1] = r->nnz;
	if (r->ckpt || r->held != UINT64_MAX)
		m->aux[m->naux++] = r->ckpt ? 1 : 0;
	if (r->held != UINT64_MAX)
		m->aux[m->naux++] = (double)r->held;
}

int
ps_current_reply_decode(const struct ps_msg *m, struct ps_current_reply *r)
{
	memset(r, 0, sizeof *r);
	if (m->naux < 2)
		return -1;
	r->l1 = m->aux[0];
	r->nnz = m->aux[1];
	r->ckpt = m->naux >= 3 && m->aux[2] == 1;
	r->held = m->naux >= 4 && m->aux[3] >= 0 && m->aux[3] < 0x1p63 ?
	    (uint64_t)m->aux[3] : UINT64_MAX;
	return 0;
}

void
ps_save_encode(const struct ps_save *s, struct ps_msg *m)
{
	m->naux = PS_SAVE_NAUX;
	m->aux[0] = s->ckpt;
	m->aux[1] = s->iteration;
	m->aux[2] = s->epochs;
}

int
ps_save_decode(const struct ps_msg *m, struct ps_save *s, char *err,
    size_t errlen)
{
	s->ckpt = m->naux >= 1 && m->aux[0] == 1;
	s->iteration = m->naux >= 2 ? m->aux[1] : 0;
	s->epochs = m->naux >= 3 ? m->aux[2] : -1;
	if (s->ckpt && (!(s->iteration == -1 || (s->iteration >= 1 &&
	    s->iteration < 0x1p53)) || !(s->epochs >= 0 && s->epochs < 1e15)))
		return ps_errbuf(err, errlen, -1, "malformed checkpoint "
		    "request");
	return 0;
}
