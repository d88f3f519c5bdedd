/*
 * resume.c: a dbpg worker restarted during its job (after a crash, by
 * ps-train) picks the job up where the servers say it left it.
 *
 * Every server's HELLO_OK names the round the worker resumes at (hello.h);
 * the worker resumes at the lowest of the servers that knew it
 * (resume_point).  It then asks each
 * server for the current weight, KKT verdict and trust radius of every
 * feature of its shard that the server holds (one resume pull per server,
 * answered in one piece, so that it is a snapshot of that server), and
 * rebuilds its margins from them (resume_weights).  dbpg.c then runs the
 * iterations again from the end of the pass before (its rule 6).  A
 * newton worker asks for the weights before the step round of the
 * iteration of its last push (resume_last_push, newton.c).
 *
 * A new worker of a job whose servers started from a model (ps-server -i)
 * takes the weights the same way before its first iteration
 * (resume_start_model), with every feature in the KKT active set.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <sysexits.h>

#include "algo/prox.h"
#include "cluster/hello.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "wire/msg_round.h"
#include "worker.h"

/*
 * The lowest round the servers that knew this worker said to resume at; 0
 * for a new worker.  A server that joined the ring after the worker went
 * away (it took segments over from the others) never saw it and says 0
 * (away < 0): it has nothing to resume, and it takes the worker at the
 * others' round as it took the job's other workers when it joined.
 */
uint64_t
resume_point(const struct worker *w)
{
	uint64_t t = UINT64_MAX;
	size_t i;

	for (i = 0; i < w->nlinks; i++)
		if (w->links[i]->away >= 0 && w->links[i]->resume < t)
			t = w->links[i]->resume;
	return t == UINT64_MAX ? 0 : t;
}

/*
 * The highest round the servers that knew this worker said to resume at,
 * each the one after its last push there (newton.c): 0 if it pushed none.
 */
uint64_t
resume_last_push(const struct worker *w)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < w->nlinks; i++)
		if (w->links[i]->away >= 0 && w->links[i]->resume > t)
			t = w->links[i]->resume;
	return t;
}

/* A feature of the plan: its key, and where the plan holds it. */
struct resume_key {
	uint64_t	 key;
	uint32_t	 pos;
};

static int
resume_key_cmp(const void *a, const void *b)
{
	const struct resume_key *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * Ask server s for the state of the plan's features it holds, by
 * ascending key (the wire wants them so); l->resume_pos keeps their plan
 * positions in that order for the reply.
 */
static void
resume_ask(struct worker *w, size_t s, uint64_t r)
{
	const struct plan *pl = &w->dbpg.plan;
	struct link *l = w->links[s];
	struct resume_key *rk;
	size_t pos, k, n = 0;
	uint64_t *keys;
	struct ps_msg m;

	for (pos = 0; pos < pl->boff[pl->nblocks]; pos++)
		n += pl->srv[pos] == s;
	rk = xcalloc(n + 1, sizeof *rk);
	for (pos = 0, k = 0; pos < pl->boff[pl->nblocks]; pos++)
		if (pl->srv[pos] == s)
			rk[k++] = (struct resume_key){ pl->keys[pos],
			    (uint32_t)pos };
	qsort(rk, n, sizeof *rk, resume_key_cmp);
	keys = xcalloc(n + 1, sizeof *keys);
	l->resume_pos = xcalloc(n + 1, sizeof *l->resume_pos);
	l->resume_n = n;
	for (k = 0; k < n; k++) {
		keys[k] = rk[k].key;
		l->resume_pos[k] = rk[k].pos;
	}
	free(rk);
	links_msg(w, &m, PS_MSG_PULL, PS_MSG_F_CURRENT, RESUME_TIMESTAMP);
	m.nkeys = (uint32_t)n;
	m.keys = keys;
	ps_resume_pull_encode(r, &m);	/* cmd/ps-server/rejoin.c */
	links_send(w, s, &m);
	free(keys);
}

/* A newton worker's starting weights, radii left out (newton.c). */
static void
resume_reply_newton(struct worker *w, struct link *l, const struct ps_msg *m)
{
	size_t k;

	for (k = 0; k < m->nkeys; k++) {
		float v = m->vals[2 * k];

		w->newton.w[w->dbpg.plan.feats[l->resume_pos[k]]] =
		    v == 0 ? 0.0f : v;
	}
	free(l->resume_pos);
	l->resume_pos = NULL;
	l->resumed = 1;
}

/* Server l's answer: weight and trust radius per key. */
void
resume_reply(struct worker *w, struct link *l, struct ps_msg *m)
{
	struct ps_l1lr *lr = &w->dbpg.lr;
	size_t k;

	if (l->resume_pos == NULL || m->nkeys != l->resume_n || m->width != 2)
		fatalx(EX_PROTOCOL, "server %u (%s) sent an unexpected resume "
		    "reply: %u values of width %u", l->index, l->addr,
		    m->nkeys, m->width);
	if (w->conf.algorithm == PS_ALG_NEWTON) {
		resume_reply_newton(w, l, m);
		return;
	}
	for (k = 0; k < m->nkeys; k++) {
		uint32_t f = w->dbpg.plan.feats[l->resume_pos[k]];
		const float *v = m->vals + 2 * k;

		lr->w[f] = v[0] == 0 ? 0.0f : v[0];
		lr->active[f] = !(v[0] == 0 && signbit(v[0]));
		lr->trust[f] = ps_trust_pack(v[1]);
	}
	free(l->resume_pos);
	l->resume_pos = NULL;
	l->resumed = 1;
}

/* True once every server answered its resume pull. */
static int
resume_all_answered(const struct worker *w)
{
	size_t i;

	for (i = 0; i < w->nlinks; i++)
		if (!w->links[i]->resumed)
			return 0;
	return 1;
}

/*
 * Take the servers' state of every feature before round r (some servers
 * may have applied it); rebuild margins and loss.
 */
void
resume_weights(struct worker *w, uint64_t r)
{
	size_t s;

	for (s = 0; s < w->nlinks; s++)
		resume_ask(w, s, r);
	while (!resume_all_answered(w))
		links_step(w, "the weights to resume with");
	if (w->conf.algorithm == PS_ALG_NEWTON)
		return;		/* newton.c builds its margins */
	ps_l1lr_restart(&w->dbpg.lr);
	log_info("resumed with the servers' weights: loss %.17g",
	    w->dbpg.lr.loss);
}

/* dbpg.c rule 8: take the servers' starting model, if they hold one. */
void
resume_start_model(struct worker *w)
{
	struct ps_l1lr *lr = &w->dbpg.lr;
	size_t i;
	double nnz = 0;

	for (i = 0; i < w->nlinks; i++)
		nnz += w->links[i]->nnz;
	if (nnz == 0)
		return;
	resume_weights(w, 0);
	w->dbpg.warm = 1;	/* no tail estimate (stop.c) */
	if (w->conf.algorithm != PS_ALG_NEWTON)
		ps_l1lr_activate_all(lr);
	log_info("the servers hold a model with %.0f non-zero weights: "
	    "starting from it", nnz);
}
