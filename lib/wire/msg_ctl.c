/*
 * msg_ctl.c: the codec of the KEYS_MISSING and REPLICATE scalars (layout
 * in msg_ctl.h): the only place that knows their positions.
 */
#include "config.h"

#include "wire/admit.h"
#include "wire/msg_ctl.h"

void
ps_keys_missing_encode(int type, struct ps_msg *m)
{
	m->naux = 1;
	m->aux[0] = type;
}

int
ps_keys_missing_decode(const struct ps_msg *m)
{
	return m->naux >= 1 && ps_aux_whole(m->aux[0], 1, PS_MSG_TYPE_MAX) ?
	    (int)m->aux[0] : 0;
}

void
ps_replicate_encode(const struct ps_replicate *r, struct ps_msg *m)
{
	int full = r->online || r->kind == PS_REPLICATE_PUSH ||
	    r->kind == PS_REPLICATE_FLOOR;
	int said = r->online && r->kind == PS_REPLICATE_HANDOFF;

	m->naux = said ? PS_REPLICATE_NAUX : full ? 3 : 1;
	m->aux[0] = r->kind;
	if (!full)
		return;
	m->aux[1] = r->online;
	m->aux[2] = r->worker;
	if (!said)
		return;
	m->aux[3] = r->epochs;
	m->aux[4] = (double)r->iteration;
	m->aux[5] = r->lambda;
}

int
ps_replicate_decode(const struct ps_msg *m, struct ps_replicate *r)
{
	r->kind = PS_REPLICATE_ROUND;
	r->online = 0;
	r->worker = 0;
	r->epochs = 0;
	r->iteration = 0;
	r->lambda = 0;
	if (m->naux >= 1 && !ps_aux_whole(m->aux[0], PS_REPLICATE_ROUND,
	    PS_REPLICATE_FLOOR))
		return -1;
	if (m->naux >= 1)
		r->kind = (int)m->aux[0];
	if (m->naux >= 2 && !ps_aux_whole(m->aux[1], 0, 255))
		return -1;
	if (m->naux >= 2)
		r->online = (int)m->aux[1];
	if (m->naux >= 3 && !ps_aux_whole(m->aux[2], 0, UINT32_MAX))
		return -1;
	if (m->naux >= 3)
		r->worker = (uint32_t)m->aux[2];
	if (m->naux >= 4 && !(m->aux[3] >= 0 && m->aux[3] < 1e15))
		return -1;
	if (m->naux >= 4)
		r->epochs = m->aux[3];
	if (m->naux >= 5 && !ps_aux_whole(m->aux[4], 0, 0x1p53))
		return -1;
	if (m->naux >= 5)
		r->iteration = (uint64_t)m->aux[4];
	if (m->naux >= 6 && !(m->aux[5] >= 0 && m->aux[5] <= 1e12))
		return -1;
	if (m->naux >= 6)
		r->lambda = m->aux[5];
	return 0;
}
