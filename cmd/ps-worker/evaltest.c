/*
 * evaltest.c: scoring the test shard (-T) with the servers' current weights:
 * pull every test feature's weight (PULL with the CURRENT flag, answered at
 * once), compute margins, report mean log loss and AUC.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "algo/metrics.h"
#include "data/shard.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "worker.h"

/* Load the test shard and group its features by server. */
void
evaltest_init(struct worker *w)
{
	struct evaltest *ev = &w->test;
	char err[512];

	if (ps_shard_read(w->conf.test_path, &ev->ds, err, sizeof err) != 0)
		fatalx(EX_DATAERR, "%s", err);
	ev->keys = xcalloc(ev->ds.nfeat, sizeof *ev->keys);
	ev->local = xcalloc(ev->ds.nfeat, sizeof *ev->local);
	ev->w = xcalloc(ev->ds.nfeat, sizeof *ev->w);
	ev->margin = xcalloc(ev->ds.nrows, sizeof *ev->margin);
	evaltest_group(w);
	w->have_test = 1;
}

/* Group the test features by their server under the worker's ring. */
void
evaltest_group(struct worker *w)
{
	struct evaltest *ev = &w->test;
	size_t n = ev->ds.nfeat, ns = w->ring.nservers, j, s, *fill, *srv;

	free(ev->off);
	ev->off = xcalloc(ns + 1, sizeof *ev->off);
	srv = xcalloc(n + 1, sizeof *srv);
	for (j = 0; j < n; j++) {
		srv[j] = ps_ring_lookup(&w->ring, ev->ds.fids[j]);
		ev->off[srv[j] + 1]++;
	}
	for (s = 0; s < ns; s++)
		ev->off[s + 1] += ev->off[s];
	fill = xcalloc(ns, sizeof *fill);
	memcpy(fill, ev->off, ns * sizeof *fill);
	for (j = 0; j < n; j++) {
		size_t at = fill[srv[j]]++;

		ev->keys[at] = ev->ds.fids[j];
		ev->local[at] = (uint32_t)j;
	}
	free(fill);
	free(srv);
}

/* The ring changed: regroup, and ask every server again if waiting. */
void
evaltest_ring_changed(struct worker *w)
{
	size_t s;

	evaltest_group(w);
	if (w->test.pending == 0)
		return;
	w->test.pending = (uint32_t)w->ring.nservers;
	for (s = 0; s < w->ring.nservers; s++)
		evaltest_pull(w, s);
}

void
evaltest_release(struct evaltest *ev)
{
	ps_dataset_release(&ev->ds);
	free(ev->off);
	free(ev->keys);
	free(ev->local);
	free(ev->w);
	free(ev->margin);
	memset(ev, 0, sizeof *ev);
}

/* A server's current weights for its share of the test features. */
void
evaltest_reply(struct worker *w, struct link *l, struct ps_msg *m)
{
	struct evaltest *ev = &w->test;
	size_t a, z, k;

	if (!w->have_test || ev->pending == 0 || m->width != 1)
		fatalx(EX_PROTOCOL, "server %u (%s) sent an unexpected "
		    "weights reply", l->index, l->addr);
	a = ev->off[l->index];
	z = ev->off[l->index + 1];
	if (m->nkeys != z - a)
		fatalx(EX_PROTOCOL, "server %u (%s) sent an unexpected "
		    "weights reply", l->index, l->addr);
	for (k = a; k < z; k++)
		ev->w[ev->local[k]] = m->vals[k - a];
	ev->pending--;
}

/* Ask server s for the current weights of its test features. */
void
evaltest_pull(struct worker *w, size_t s)
{
	struct evaltest *ev = &w->test;
	struct ps_msg m;

	links_msg(w, &m, PS_MSG_PULL, PS_MSG_F_CURRENT, EVALTEST_TIMESTAMP);
	m.nkeys = (uint32_t)(ev->off[s + 1] - ev->off[s]);
	m.keys = ev->keys + ev->off[s];
	links_send(w, s, &m);
}

void
evaltest_run(struct worker *w, double *logloss, double *auc)
{
	struct evaltest *ev = &w->test;
	size_t s;

	ev->pending = (uint32_t)w->ring.nservers;
	for (s = 0; s < w->ring.nservers; s++)
		evaltest_pull(w, s);
	while (ev->pending > 0)
		links_step(w, "test-set weights");
	ps_l1lr_margins(&ev->ds, ev->w, ev->margin);
	*logloss = ps_logloss(ev->margin, ev->ds.y, ev->ds.nrows);
	*auc = ps_auc(ev->margin, ev->ds.y, ev->ds.nrows);
}
