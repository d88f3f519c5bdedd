/*
 * msg_round.c: the codec of a dbpg or newton round's scalars (layout in
 * msg_round.h): the only place that knows their positions.
 */
#include "config.h"

#include <math.h>

#include "util/errbuf.h"
#include "wire/msg_round.h"

void
ps_dbpg_push_encode(const struct ps_dbpg_push *p, struct ps_msg *m)
{
	m->naux = PS_DBPG_PUSH_NAUX;
	m->aux[0] = p->loss;
	m->aux[1] = p->vote;
	m->aux[2] = p->ckpt;
}

void
ps_dbpg_push_decode(const struct ps_msg *m, struct ps_dbpg_push *p)
{
	p->loss = m->naux >= 1 ? m->aux[0] : 0;
	p->vote = m->naux >= 2 ? m->aux[1] : 0;
	p->ckpt = m->naux >= 3 && m->aux[2] == 1;
}

void
ps_newton_grad_push_encode(const struct ps_newton_grad_push *p,
    struct ps_msg *m)
{
	ps_dbpg_push_encode(&p->base, m);
	m->aux[m->naux++] = p->radius;
}

void
ps_newton_grad_push_decode(const struct ps_msg *m,
    struct ps_newton_grad_push *p)
{
	ps_dbpg_push_decode(m, &p->base);
	p->radius = m->naux > 3 ? m->aux[3] : NAN;
}

void
ps_newton_push_encode(const struct ps_newton_push *p, struct ps_msg *m)
{
	size_t k;

	ps_dbpg_push_encode(&p->base, m);
	m->aux[3] = p->kkt;
	m->aux[4] = p->pred;
	m->aux[5] = p->f0;
	for (k = 0; k < PS_NEWTON_TRIALS; k++)
		m->aux[6 + k] = p->trial[k];
	m->naux = PS_NEWTON_PUSH_NAUX;
}

void
ps_newton_push_decode(const struct ps_msg *m, struct ps_newton_push *p)
{
	size_t k;

	ps_dbpg_push_decode(m, &p->base);
	p->kkt = m->naux > 3 ? m->aux[3] : NAN;
	p->pred = m->naux > 4 ? m->aux[4] : NAN;
	p->f0 = m->naux > 5 ? m->aux[5] : NAN;
	for (k = 0; k < PS_NEWTON_TRIALS; k++)
		p->trial[k] = m->naux > 6 + k ? m->aux[6 + k] : NAN;
}

void
ps_round_pull_encode(double theta, struct ps_msg *m)
{
	m->naux = 0;
	if (!isnan(theta)) {
		m->naux = PS_ROUND_PULL_NAUX;
		m->aux[0] = theta;
	}
}

int
ps_round_pull_decode(const struct ps_msg *m, double *theta, char *err,
    size_t errlen)
{
	*theta = NAN;
	if (m->naux < 1)
		return 0;
	if (!(m->aux[0] >= 0))
		return ps_errbuf(err, errlen, -1, "pull with a bad filter "
		    "threshold %g", m->aux[0]);
	*theta = m->aux[0];
	return 0;
}

void
ps_round_reply_encode(const struct ps_round_reply *r, struct ps_msg *m)
{
	const struct ps_round_result *res = &r->result;

	m->naux = 6;
	m->aux[0] = res->loss;
	m->aux[1] = res->l1_before;
	m->aux[2] = res->nnz_before;
	m->aux[3] = res->l1_after;
	m->aux[4] = res->nnz_after;
	m->aux[5] = res->vote;
	m->aux[m->naux++] = r->again;
	m->aux[m->naux++] = r->ckpt;
	m->aux[m->naux++] = res->kkt;
	if (!isnan(res->step) || !isnan(res->radius))
		m->aux[m->naux++] = res->step;
	if (!isnan(res->radius))
		m->aux[m->naux++] = res->radius;
}

int
ps_round_reply_decode(const struct ps_msg *m, struct ps_round_reply *r)
{
	struct ps_round_result *res = &r->result;

	if (m->naux < 5)
		return -1;
	res->loss = m->aux[0];
	res->l1_before = m->aux[1];
	res->nnz_before = m->aux[2];
	res->l1_after = m->aux[3];
	res->nnz_after = m->aux[4];
	res->vote = m->naux >= 6 ? m->aux[5] : 0;
	r->again = m->naux >= 7 && m->aux[6] == 1;
	r->ckpt = m->naux >= 8 && m->aux[7] == 1;
	res->kkt = m->naux >= 9 ? m->aux[8] : NAN;
	res->step = m->naux >= 10 ? m->aux[9] : NAN;
	res->radius = m->naux >= 11 ? m->aux[10] : NAN;
	return 0;
}

void
ps_resume_pull_encode(uint64_t round, struct ps_msg *m)
{
	m->naux = PS_RESUME_PULL_NAUX;
	m->aux[0] = 1;
	m->aux[1] = (double)round;
}

int
ps_resume_pull_decode(const struct ps_msg *m, int *is_resume,
    uint64_t *round, char *err, size_t errlen)
{
	*round = 0;
	*is_resume = m->naux >= 1 && m->aux[0] == 1;
	if (!*is_resume)
		return 0;
	if (m->naux < 2 || !(m->aux[1] >= 0 && m->aux[1] < 0x1p63))
		return ps_errbuf(err, errlen, -1, "resume pull without its "
		    "round");
	*round = (uint64_t)m->aux[1];
	return 0;
}
