/*
 * sgd.c: asynchronous SGD as seen by one worker (pskit(7), "The online
 * path").  The servers hold the optimiser (FTRL-proximal or AdaGrad,
 * ftrl.h) and apply each push at once; the worker only computes gradients.
 *
 * Mini-batch t (the t-th of the run; batches.c says which rows) goes:
 *  1. start: pull, with the CURRENT flag, the weights of exactly the keys
 *     its rows touch, one sorted list per server that holds any;
 *  2. when every reply is in: compute each row's margin with those weights,
 *     add the row's loss to the progressive validation loss (the loss of a
 *     row before any step has used it), and sum the gradient per key;
 *  3. push the gradient sums to the same servers, timestamp t, with the
 *     epochs of data done (rows pushed over the shard's rows), by which
 *     the servers scale the penalties (ftrl.h, invariant 4).
 * Rules, with tau the allowed delay:
 *  a. mini-batch t starts only when every mini-batch up to t - tau - 1 has
 *     been pushed: at most tau + 1 in flight, tau = 0 one at a time (the
 *     pull of t + 1 then follows the push of t on every connection, so it
 *     sees it);
 *  b. mini-batches are computed and pushed in order of t even when their
 *     replies come out of order, so each server sees this worker's
 *     timestamps strictly increasing, as it requires;
 *  c. each epoch visits every mini-batch once, in an order drawn from
 *     (seed, epoch); the test shard is scored at each epoch's end;
 *  d. after its last push the worker waits at the end barrier (a PULL
 *     without keys, answered once every worker got there; its timestamp
 *     and its scalar (msg_online.h) say the worker's mini-batches and
 *     epochs, which every server then holds alike,
 *     cmd/ps-server/online.c), pinging the
 *     servers each second so that a hung one is still noticed, then
 *     scores the final model and says BYE.
 *  e. worker 0 asks every server for a checkpoint after its mini-batch t
 *     (a SAVE behind the push on each connection, ckpt.c) every
 *     --checkpoint-every mini-batches or --checkpoint-secs seconds, when a
 *     reply said one was requested, and, with either option, after the
 *     end barrier, when the servers hold the final model.
 *  f. a worker started again during the job (comeback.c) resumes at the
 *     mini-batch the servers say: the lowest over them of the one after
 *     the last of its pushes each applied.  A server that applied one of
 *     the mini-batches it then pushes again refuses it as a duplicate, so
 *     each server applies each mini-batch once.  The epoch's progressive
 *     loss counts from there; the progress header is not printed again.
 *  g. a server's reply to a pull acknowledges the pushes sent before the
 *     pull that its replicas hold (the reply says below which timestamp
 *     they do, cmd/ps-server/onlineack.c), the end barrier's every push:
 *     the worker keeps each push until
 *     every server it went to acknowledged it, and after a ring change
 *     sends the rest again to their keys' new servers, then its pulls in
 *     flight (sgdresend.c); the servers take each push into each key
 *     once (cmd/ps-server/online.c, invariant 8).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "algo/logistic.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "wire/msg_online.h"
#include "worker.h"

/* The largest tau: "inf" means this many mini-batches in flight. */
#define SGD_TAU_MAX	1024
/* Progress lines per epoch, besides the one at its end. */
#define SGD_LINES_PER_EPOCH	10

static struct sgd_slot *
sgd_slot(struct worker *w, uint64_t t)
{
	return &w->sgd.slots[t % (w->sgd.tau + 1)];
}

/* Mini-batches, in-flight slots and scratch arrays. */
static void
sgd_init(struct worker *w)
{
	struct sgd *sg = &w->sgd;
	size_t ns = w->ring.nservers, maxf, k;

	batches_build(&sg->bt, &w->ds, &w->ring, w->conf.batch, w->conf.seed);
	sg->total = (uint64_t)sg->bt.nbatches * w->conf.epochs;
	sg->tau = w->conf.tau < SGD_TAU_MAX ? w->conf.tau : SGD_TAU_MAX;
	if (sg->total > 0 && sg->tau >= sg->total)	/* no more than all */
		sg->tau = (uint32_t)(sg->total - 1);
	maxf = sg->bt.maxfeats + 1;
	sg->order = xcalloc(sg->bt.nbatches + 1, sizeof *sg->order);
	sg->slots = xcalloc((size_t)sg->tau + 1, sizeof *sg->slots);
	for (k = 0; k <= sg->tau; k++) {
		sg->slots[k].got = xcalloc(ns, sizeof *sg->slots[k].got);
		sg->slots[k].wpull = xcalloc(maxf, sizeof *sg->slots[k].wpull);
	}
	sg->w = xcalloc(w->ds.nfeat + 1, sizeof *sg->w);
	sg->g = xcalloc(w->ds.nfeat + 1, sizeof *sg->g);
	sg->keybuf = xcalloc(maxf, sizeof *sg->keybuf);
	sg->gbuf = xcalloc(maxf, sizeof *sg->gbuf);
	sg->nnz = xcalloc(ns, sizeof *sg->nnz);
	sgd_sent_init(w);
	log_info("sgd: %u mini-batches of up to %u rows, %u epochs, tau %u, "
	    "%s alpha %g beta %g, l1 %g l2 %g per epoch", sg->bt.nbatches,
	    w->conf.batch, w->conf.epochs, sg->tau,
	    ps_ftrl_name(w->conf.opt.opt), w->conf.opt.alpha,
	    w->conf.opt.beta, w->conf.opt.l1, w->conf.opt.l2);
}

void
sgd_release(struct sgd *sg)
{
	size_t k;

	sgd_sent_release(sg);
	batches_release(&sg->bt);
	for (k = 0; sg->slots != NULL && k <= sg->tau; k++) {
		free(sg->slots[k].got);
		free(sg->slots[k].wpull);
	}
	free(sg->slots);
	free(sg->order);
	free(sg->w);
	free(sg->g);
	free(sg->keybuf);
	free(sg->gbuf);
	free(sg->nnz);
	memset(sg, 0, sizeof *sg);
}

/* Keys of mini-batch b's features for server s, into keybuf; their count. */
static uint32_t
sgd_keys(struct worker *w, uint32_t b, size_t s)
{
	const struct batches *bt = &w->sgd.bt;
	size_t a = bt->off[(size_t)b * bt->nservers + s];
	size_t z = bt->off[(size_t)b * bt->nservers + s + 1], k;

	for (k = a; k < z; k++)
		w->sgd.keybuf[k - a] = w->ds.fids[bt->feats[k]];
	return (uint32_t)(z - a);
}

/*
 * Step 1's pulls for the slot's mini-batch, to the servers of the ring
 * (again after a ring change, sgdresend.c): a reply acknowledges the
 * pushes sent before.
 */
void
sgd_pull(struct worker *w, struct sgd_slot *sl)
{
	struct sgd *sg = &w->sgd;
	size_t s;
	struct ps_msg m;

	sl->pending = 0;
	sl->pushed_below = sg->t_done;
	for (s = 0; s < sg->bt.nservers; s++) {
		memset(&m, 0, sizeof m);
		m.nkeys = sgd_keys(w, sl->batch, s);
		sl->got[s] = m.nkeys == 0;
		if (m.nkeys == 0)
			continue;
		m.type = PS_MSG_PULL;
		m.flags = PS_MSG_F_CURRENT;
		m.sender = w->conf.id;
		m.timestamp = sl->t;
		m.ring_version = w->ring.version;
		m.keys = sg->keybuf;
		links_send(w, s, &m);
		sl->pending++;
	}
}

/* Step 1: pull the weights mini-batch t needs. */
static void
sgd_start(struct worker *w, uint64_t t)
{
	struct sgd *sg = &w->sgd;
	struct sgd_slot *sl = sgd_slot(w, t);
	uint32_t nb = sg->bt.nbatches;

	if (t % nb == 0)
		plan_shuffle(sg->order, nb, w->conf.seed, t / nb);
	sl->t = t;
	sl->batch = sg->order[t % nb];
	log_debug("mini-batch %llu starts: mini-batches below %llu were "
	    "pushed", (unsigned long long)t, (unsigned long long)sg->t_done);
	sgd_pull(w, sl);
}

/* A server's answer to the end barrier. */
static void
sgd_reply_barrier(struct worker *w, struct link *l, struct ps_msg *m)
{
	struct sgd *sg = &w->sgd;
	struct ps_current_reply rep;

	if (sg->t_done < sg->total || sg->barrier == 0 ||
	    m->nkeys != 0 || ps_current_reply_decode(m, &rep) != 0)
		fatalx(EX_PROTOCOL, "server %u (%s) sent an unexpected end of "
		    "the job", l->index, l->addr);
	sg->nnz[l->index] = rep.nnz;
	sg->barrier--;
	sgd_acked(w, l->index, sg->total);
}

/* A server's weights for a mini-batch in flight, or a barrier reply. */
void
sgd_reply(struct worker *w, struct link *l, struct ps_msg *m)
{
	struct sgd *sg = &w->sgd;
	const struct batches *bt = &sg->bt;
	struct sgd_slot *sl = NULL;
	struct ps_current_reply rep;
	size_t base, a, z;

	if (!(m->flags & PS_MSG_F_CURRENT)) {
		sgd_reply_barrier(w, l, m);
		return;
	}
	/* No slot before the run began: slots is NULL, t_next 0. */
	if (m->timestamp >= sg->t_done && m->timestamp < sg->t_next)
		sl = sgd_slot(w, m->timestamp);
	if (sl == NULL || sl->t != m->timestamp || sl->got[l->index])
		fatalx(EX_PROTOCOL, "server %u (%s) answered mini-batch %llu, "
		    "which it was not asked for", l->index, l->addr,
		    (unsigned long long)m->timestamp);
	base = bt->off[(size_t)sl->batch * bt->nservers];
	a = bt->off[(size_t)sl->batch * bt->nservers + l->index];
	z = bt->off[(size_t)sl->batch * bt->nservers + l->index + 1];
	if (m->width != 1 || m->nkeys != z - a)
		fatalx(EX_PROTOCOL, "server %u (%s) answered mini-batch %llu "
		    "with %u values of width %u, expected %zu", l->index,
		    l->addr, (unsigned long long)m->timestamp, m->nkeys,
		    m->width, z - a);
	memcpy(sl->wpull + (a - base), m->vals, (z - a) * sizeof *m->vals);
	if (ps_current_reply_decode(m, &rep) == 0)
		sg->nnz[l->index] = rep.nnz;
	if (rep.ckpt)
		ckpt_requested(w, m->timestamp);	/* rule e */
	sl->got[l->index] = 1;
	sl->pending--;
	sgd_acked(w, l->index, rep.held < sl->pushed_below ? rep.held :
	    sl->pushed_below);
}

/*
 * Step 2: the gradient sums of the slot's mini-batch into sg->g (by local
 * feature) from the weights pulled for it; return its rows' loss.
 */
static double
sgd_gradient(struct worker *w, const struct sgd_slot *sl)
{
	struct sgd *sg = &w->sgd;
	const struct batches *bt = &sg->bt;
	const struct ps_dataset *ds = &w->ds;
	size_t base = bt->off[(size_t)sl->batch * bt->nservers];
	size_t end = bt->off[((size_t)sl->batch + 1) * bt->nservers], r, k;
	double loss = 0;

	for (k = base; k < end; k++)
		sg->w[bt->feats[k]] = sl->wpull[k - base];
	for (r = bt->roff[sl->batch]; r < bt->roff[sl->batch + 1]; r++) {
		uint32_t i = bt->rows[r];
		double m = 0, s, c;

		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++)
			m += (double)ds->val[k] * sg->w[ds->col[k]];
		loss += ps_logistic_loss_slope(ds->y[i] * m, &s);
		c = -ds->y[i] * s;
		for (k = ds->rowptr[i]; k < ds->rowptr[i + 1]; k++)
			sg->g[ds->col[k]] += c * ds->val[k];
	}
	return loss;
}

/*
 * Step 3: push mini-batch t's gradient sums (of batch, in sg->g, cleared
 * behind them) with its epochs of data to the servers of the ring; to[s]
 * set for each server a push went to; the sums kept in keep if given.
 */
void
sgd_send(struct worker *w, uint64_t t, uint32_t batch, double epochs,
    uint8_t *to, struct sgd_sent *keep)
{
	struct sgd *sg = &w->sgd;
	const struct batches *bt = &sg->bt;
	size_t s, a, k;
	struct ps_msg m;

	for (s = 0; s < bt->nservers; s++) {
		a = bt->off[(size_t)batch * bt->nservers + s];
		memset(&m, 0, sizeof m);
		m.nkeys = sgd_keys(w, batch, s);
		if (m.nkeys == 0)
			continue;
		for (k = 0; k < m.nkeys; k++) {
			uint32_t j = bt->feats[a + k];

			sg->gbuf[k] = (float)sg->g[j];
			sg->g[j] = 0;
			if (keep != NULL)
				sgd_sent_add(keep, j, sg->gbuf[k]);
		}
		m.type = PS_MSG_PUSH;
		m.flags = w->conf.filters & FILTER_FP16 ? PS_MSG_F_FP16 : 0;
		m.sender = w->conf.id;
		m.timestamp = t;
		m.ring_version = w->ring.version;
		m.keys = sg->keybuf;
		m.width = 1;
		m.vals = sg->gbuf;
		ps_sgd_push_encode(epochs, &m);
		links_send(w, s, &m);
		to[s] = 1;
	}
}

/* Step 3 for the slot, kept until acknowledged (sgdresend.c). */
static void
sgd_push(struct worker *w, const struct sgd_slot *sl)
{
	double epochs = (double)w->sgd.rows / (double)w->ds.nrows;
	struct sgd_sent *e = sgd_sent_keep(w, sl->t, sl->batch, epochs);

	sgd_send(w, sl->t, sl->batch, epochs, e->unacked, e);
	sgd_sent_count(w, e);
}

/* One TSV progress line; test metrics if asked and there is a test set. */
static void
sgd_print(struct worker *w, uint64_t epoch, uint64_t batches, int eval)
{
	struct sgd *sg = &w->sgd;
	double logloss = NAN, auc = NAN, nnz = 0;
	uint64_t sent, recv;
	size_t s;

	if (eval && w->have_test)
		evaltest_run(w, &logloss, &auc);
	for (s = 0; s < sg->bt.nservers; s++)
		nnz += sg->nnz[s];
	links_bytes(w, &sent, &recv);
	printf("%llu\t%llu\t%.3f\t%llu\t%.6g\t%.0f\t%.6g\t%.6g\t%llu\t%llu",
	    (unsigned long long)epoch, (unsigned long long)batches,
	    ps_clock_now() - w->started, (unsigned long long)sg->rows,
	    sg->ep_rows ? sg->ep_loss / (double)sg->ep_rows : NAN, nnz,
	    logloss, auc, (unsigned long long)sent, (unsigned long long)recv);
	filters_print(w);
	putchar('\n');
}

/* Steps 2 and 3 for mini-batch t, whose replies are all in; report. */
static void
sgd_finish(struct worker *w, uint64_t t)
{
	struct sgd *sg = &w->sgd;
	struct sgd_slot *sl = sgd_slot(w, t);
	uint32_t nb = sg->bt.nbatches;
	uint64_t every = (nb + SGD_LINES_PER_EPOCH - 1) / SGD_LINES_PER_EPOCH;
	uint64_t pos = t % nb + 1;

	sg->ep_loss += sgd_gradient(w, sl);
	sg->ep_rows += sg->bt.roff[sl->batch + 1] - sg->bt.roff[sl->batch];
	sg->rows += sg->bt.roff[sl->batch + 1] - sg->bt.roff[sl->batch];
	sgd_push(w, sl);	/* with the epochs done, this one included */
	if (ckpt_due(w, t))	/* rule e */
		ckpt_sgd_save(w, t, (double)sg->rows / (double)w->ds.nrows, 0);
	if (pos == nb || pos % every == 0)
		sgd_print(w, t / nb + 1, t + 1, pos == nb);
	if (pos == nb && t + 1 < sg->total) {
		sg->ep_loss = 0;
		sg->ep_rows = 0;
	}
}

/* Rule a: may mini-batch t_next start now? */
static int
sgd_may_start(const struct worker *w)
{
	const struct sgd *sg = &w->sgd;

	return sg->t_next < sg->total && sg->t_next - sg->t_done <= sg->tau;
}

/* Rule d: the end barrier's pulls, to every server of the ring. */
void
sgd_barrier_send(struct worker *w)
{
	struct sgd *sg = &w->sgd;
	struct ps_msg m;

	links_msg(w, &m, PS_MSG_PULL, PS_MSG_F_NOKEYS, sg->total);
	/* its mini-batches, the timestamp, and epochs: */
	ps_barrier_pull_encode((double)sg->rows / (double)w->ds.nrows, &m);
	links_send_all(w, &m);
	sg->barrier = (uint32_t)w->nlinks;
}

/*
 * Rule d: the end barrier, with a ping to each server every second.  The
 * wait is for the other workers, however long they take (one may be
 * started again); each server must answer its pings within the timeout.
 */
static void
sgd_barrier(struct worker *w)
{
	struct sgd *sg = &w->sgd;

	sgd_barrier_send(w);
	while (sg->barrier > 0) {
		w->last_progress = ps_clock_now();
		links_keepalive(w, 1);
		links_step(w, "the other workers to finish");
		links_check_each(w, "the other workers to finish");
	}
}

/*
 * Rule f: a worker started again resumes at mini-batch r > 0, which the
 * servers said (comeback.c): the rows of the mini-batches before it are
 * done, and this epoch's order is drawn again.
 */
static void
sgd_resume(struct worker *w, uint64_t r)
{
	struct sgd *sg = &w->sgd;
	uint32_t nb = sg->bt.nbatches;
	uint64_t t;

	if (r > sg->total)
		fatalx(EX_PROTOCOL, "the servers resume this worker at "
		    "mini-batch %llu of %llu", (unsigned long long)r,
		    (unsigned long long)sg->total);
	sg->t_next = sg->t_done = r;
	sg->rows = r / nb * w->ds.nrows;	/* whole epochs, then this one's */
	if (r % nb != 0)
		plan_shuffle(sg->order, nb, w->conf.seed, r / nb);
	for (t = r / nb * nb; t < r; t++)
		sg->rows += sg->bt.roff[sg->order[t % nb] + 1] -
		    sg->bt.roff[sg->order[t % nb]];
	log_info("restarted: the servers resume this worker at mini-batch "
	    "%llu of %llu", (unsigned long long)r,
	    (unsigned long long)sg->total);
}

/*
 * The run's state; for a worker started again, the point it resumes at
 * (rule f); the progress header unless that is past the start (then its
 * first run printed it).
 */
void
sgd_begin(struct worker *w)
{
	uint64_t r = w->comeback.back ? resume_point(w) : 0;

	sgd_init(w);
	if (r > 0) {
		sgd_resume(w, r);
		return;
	}
	printf("epoch\tbatch\tsecs\trows\tprogressive_logloss\tnnz\t"
	    "test_logloss\ttest_auc\tbytes_sent\tbytes_recv");
	filters_print_header();
	putchar('\n');
}

/*
 * Start the mini-batches that may start and finish the answered ones;
 * 1 once every one finished, 0 while replies are awaited.
 */
int
sgd_advance(struct worker *w)
{
	struct sgd *sg = &w->sgd;

	while (sg->t_done < sg->total) {
		if (sgd_may_start(w))
			sgd_start(w, sg->t_next++);
		else if (sgd_slot(w, sg->t_done)->pending == 0)
			sgd_finish(w, sg->t_done++);
		else
			return 0;
	}
	return 1;
}

int
sgd_run(struct worker *w)
{
	struct sgd *sg = &w->sgd;

	sgd_begin(w);
	links_run(w, sgd_advance, "mini-batch", &sg->t_done);
	sgd_barrier(w);
	if (ckpt_periodic(w))	/* rule e: the final model */
		ckpt_sgd_save(w, sg->total, 0, 1);
	sgd_print(w, w->conf.epochs, sg->total, 1);
	fflush(stdout);
	log_info("finished %llu mini-batches, %llu rows", (unsigned long long)
	    sg->total, (unsigned long long)sg->rows);
	links_bye(w);
	return 0;
}
