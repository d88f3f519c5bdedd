/*
 * msg_coord.c: the codec of the coordinator protocol's scalars (layout in
 * msg_coord.h): the only place that knows their positions.
 */
#include "config.h"

#include <math.h>

#include "util/errbuf.h"
#include "wire/msg_coord.h"

/* Where a HEARTBEAT carries copying: after the counters. */
#define HB_COPYING	PS_COORD_HB_N

void
ps_register_encode(const struct ps_register *r, struct ps_msg *m)
{
	m->naux = 3;
	m->aux[0] = r->role;
	m->aux[1] = r->worker_id;
	m->aux[2] = r->join;
}

int
ps_register_decode(const struct ps_msg *m, struct ps_register *r,
    char *err, size_t errlen)
{
	const double *a = m->aux;

	r->role = 0;
	r->worker_id = 0;
	r->join = 0;
	if (m->naux < 3 || (a[2] != 0 && a[2] != 1))
		return ps_errbuf(err, errlen, -1, "malformed REGISTER");
	r->join = a[2] == 1;
	if (a[0] == PS_COORD_SERVER) {
		r->role = PS_COORD_SERVER;
		return 0;
	}
	if (a[0] != PS_COORD_WORKER)
		return ps_errbuf(err, errlen, -1, "unknown role %g", a[0]);
	if (!(a[1] >= 0 && a[1] <= 65535) || a[1] != (uint32_t)a[1])
		return ps_errbuf(err, errlen, -1, "invalid worker id %g", a[1]);
	r->role = PS_COORD_WORKER;
	r->worker_id = (uint32_t)a[1];
	return 0;
}

void
ps_ring_msg_encode(double timeout_ms, struct ps_msg *m)
{
	m->naux = 1;
	m->aux[0] = timeout_ms;
}

int
ps_ring_msg_decode(const struct ps_msg *m, double *timeout_ms)
{
	if (m->naux < 1)
		return -1;
	*timeout_ms = m->aux[0];
	return 0;
}

void
ps_heartbeat_encode(const struct ps_heartbeat *hb, struct ps_msg *m)
{
	int i;

	m->naux = 0;
	if (hb->ncounts == 0)
		return;
	for (i = 0; i < PS_COORD_HB_N; i++)
		m->aux[i] = hb->count[i];
	m->aux[HB_COPYING] = hb->copying;
	m->naux = HB_COPYING + 1;
}

void
ps_heartbeat_decode(const struct ps_msg *m, struct ps_heartbeat *hb)
{
	double v;
	int i;

	hb->ncounts = m->naux < PS_COORD_HB_N ? m->naux : PS_COORD_HB_N;
	for (i = 0; i < PS_COORD_HB_N; i++) {
		v = i < hb->ncounts ? m->aux[i] : -1;
		hb->count[i] = isfinite(v) && v >= 0 ? v : -1;
	}
	v = m->naux > HB_COPYING ? m->aux[HB_COPYING] : 0;
	hb->copying = v >= 1 && v <= UINT32_MAX ? (uint32_t)v : 0;
}
