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
ps_replicate_encode(int kind, struct ps_msg *m)
{
	m->naux = PS_REPLICATE_NAUX;
	m->aux[0] = kind;
}

int
ps_replicate_decode(const struct ps_msg *m)
{
	if (m->naux < 1)
		return PS_REPLICATE_ROUND;
	return ps_aux_whole(m->aux[0], PS_REPLICATE_ROUND,
	    PS_REPLICATE_HANDOFF) ? (int)m->aux[0] : -1;
}
