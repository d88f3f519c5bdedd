/*
 * sgdresend.c: what an sgd worker keeps of its pushes until the servers
 * acknowledge them, and what it does when the ring changes (sgd.c, rule
 * g; pskit(7), "sgd failover").
 *
 * Invariants:
 *  1. Every push, from sent_lo up to t_done, is kept with its gradient
 *     sums by local feature and the servers it went to that have not
 *     acknowledged it.  A server's reply to a pull acknowledges every push
 *     sent before the pull below the timestamp the reply says its
 *     replicas hold (the end barrier's reply: every push); a push leaves
 *     once every server it went to did, the oldest first.  At most nsent
 *     are kept: when the ring of them is full the oldest is forgotten
 *     (counted), as happens only when a server is sent no pull for
 *     nsent mini-batches.
 *  2. On a new ring (failover.c calls sgd_ring_changed from the wait
 *     loop, after the links were rebuilt and said HELLO): each mini-batch's
 *     features are grouped by their new servers, every kept push is sent
 *     again, whole, in order of t, to the new ring, then every pull in
 *     flight, then the end barrier's if the worker waits there.  The
 *     servers apply each push to each key that lacks it and no other
 *     (cmd/ps-server/online.c, invariant 8).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/xmalloc.h"
#include "worker.h"

/* Pushes kept besides the tau + 1 in flight (invariant 1). */
#define SGD_SENT_SPARE	256

static struct sgd_sent *
sgd_sent_at(struct sgd *sg, uint64_t t)
{
	return &sg->sent[t % sg->nsent];
}

/* The ring of kept pushes, each with room for a mini-batch's features. */
void
sgd_sent_init(struct worker *w)
{
	struct sgd *sg = &w->sgd;
	size_t maxf = sg->bt.maxfeats + 1, ns = w->ring.nservers + 1, k;

	sg->nsent = sg->tau + 1 + SGD_SENT_SPARE;
	sg->sent = xcalloc(sg->nsent, sizeof *sg->sent);
	for (k = 0; k < sg->nsent; k++) {
		sg->sent[k].feat = xcalloc(maxf, sizeof *sg->sent[k].feat);
		sg->sent[k].val = xcalloc(maxf, sizeof *sg->sent[k].val);
		sg->sent[k].unacked = xcalloc(ns, sizeof *sg->sent[k].unacked);
	}
	sg->sent_lo = 0;
}

void
sgd_sent_release(struct sgd *sg)
{
	uint32_t k;

	for (k = 0; sg->sent != NULL && k < sg->nsent; k++) {
		free(sg->sent[k].feat);
		free(sg->sent[k].val);
		free(sg->sent[k].unacked);
	}
	free(sg->sent);
	sg->sent = NULL;
	sg->nsent = 0;
}

/* Drop kept pushes below end from the oldest while acknowledged. */
static void
sgd_sent_trim(struct sgd *sg, uint64_t end)
{
	while (sg->sent_lo < end &&
	    sgd_sent_at(sg, sg->sent_lo)->nunacked == 0)
		sg->sent_lo++;
}

/*
 * Invariant 1: the entry for push t (the next: t_done is t + 1 by now) of
 * batch with its epochs, empty; the oldest kept is forgotten if the ring
 * is full.
 */
struct sgd_sent *
sgd_sent_keep(struct worker *w, uint64_t t, uint32_t batch, double epochs)
{
	struct sgd *sg = &w->sgd;
	struct sgd_sent *e;

	sgd_sent_trim(sg, t);
	if (t - sg->sent_lo >= sg->nsent) {
		log_debug("push %llu forgotten unacknowledged: %u pushes kept",
		    (unsigned long long)sg->sent_lo, sg->nsent);
		sg->forgot++;
		sg->sent_lo++;
	}
	e = sgd_sent_at(sg, t);
	e->t = t;
	e->batch = batch;
	e->epochs = epochs;
	e->n = 0;
	memset(e->unacked, 0, w->ring.nservers * sizeof *e->unacked);
	e->nunacked = 0;
	return e;
}

/* One feature's gradient sum of a kept push. */
void
sgd_sent_add(struct sgd_sent *e, uint32_t feat, float val)
{
	e->feat[e->n] = feat;
	e->val[e->n++] = val;
}

/* Count the servers e went to, once sgd_send marked them. */
void
sgd_sent_count(const struct worker *w, struct sgd_sent *e)
{
	size_t s;

	e->nunacked = 0;
	for (s = 0; s < w->ring.nservers; s++)
		e->nunacked += e->unacked[s] != 0;
}

/* Invariant 1: server acknowledged every push below below. */
void
sgd_acked(struct worker *w, size_t server, uint64_t below)
{
	struct sgd *sg = &w->sgd;
	uint64_t t;

	if (sg->sent == NULL)
		return;
	for (t = sg->sent_lo; t < below && t < sg->t_done; t++) {
		struct sgd_sent *e = sgd_sent_at(sg, t);

		if (e->t == t && e->unacked[server]) {
			e->unacked[server] = 0;
			e->nunacked--;
		}
	}
	sgd_sent_trim(sg, sg->t_done);
}

/* The per-server arrays to the new ring's count of servers. */
static void
sgd_resize(struct worker *w)
{
	struct sgd *sg = &w->sgd;
	size_t ns = w->ring.nservers, k;

	for (k = 0; k <= sg->tau; k++)
		sg->slots[k].got = xreallocarray(sg->slots[k].got, ns + 1,
		    sizeof *sg->slots[k].got);
	for (k = 0; k < sg->nsent; k++)
		sg->sent[k].unacked = xreallocarray(sg->sent[k].unacked,
		    ns + 1, sizeof *sg->sent[k].unacked);
	sg->nnz = xreallocarray(sg->nnz, ns + 1, sizeof *sg->nnz);
	memset(sg->nnz, 0, (ns + 1) * sizeof *sg->nnz);
}

/* Invariant 2: kept push e, whole, to the new ring. */
static void
sgd_resend(struct worker *w, struct sgd_sent *e)
{
	struct sgd *sg = &w->sgd;
	uint32_t k;

	for (k = 0; k < e->n; k++)
		sg->g[e->feat[k]] = e->val[k];
	memset(e->unacked, 0, w->ring.nservers * sizeof *e->unacked);
	sgd_send(w, e->t, e->batch, e->epochs, e->unacked, NULL);
	sgd_sent_count(w, e);
}

/* Invariant 2: the job goes on under the ring the worker took over. */
void
sgd_ring_changed(struct worker *w)
{
	struct sgd *sg = &w->sgd;
	uint64_t t, resent = 0;

	if (sg->slots == NULL)
		return;		/* not started: sgd_begin groups by this ring */
	batches_release(&sg->bt);
	batches_build(&sg->bt, &w->ds, &w->ring, w->conf.batch, w->conf.seed);
	sgd_resize(w);
	for (t = sg->sent_lo; t < sg->t_done; t++) {
		struct sgd_sent *e = sgd_sent_at(sg, t);

		if (e->t != t || e->nunacked == 0)
			continue;
		sgd_resend(w, e);
		resent++;
	}
	for (t = sg->t_done; t < sg->t_next; t++)
		sgd_pull(w, &sg->slots[t % (sg->tau + 1)]);
	if (sg->barrier > 0)
		sgd_barrier_send(w);
	log_info("ring version %u: %zu servers; %llu unacknowledged pushes "
	    "and mini-batches %llu to %llu sent again", w->ring.version,
	    w->ring.nservers, (unsigned long long)resent,
	    (unsigned long long)sg->t_done, (unsigned long long)sg->t_next);
}
