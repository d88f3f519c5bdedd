/*
 * rejoin.c: a dbpg worker that goes away during the job, and comes back.
 *
 * When the job's HELLO asked for it (hello.h, rejoin), a worker whose
 * connection drops does not end the job: the server forgets its
 * connection and waits up to the job's rejoin wait for a worker with the
 * same id to say HELLO again (ps-train restarts it on the same shard).
 * Rounds that need its push wait too; the other workers wait for them
 * under their own timeout.  The one that comes back is told where to
 * resume (HELLO_OK's resume, rounds_resume_point), takes the weights,
 * trust radii and KKT verdicts of its keys as they were before the round
 * it resumes at with a resume pull (rejoin_pull; the store keeps each
 * key's state before its last round for this), and pushes again from a
 * little before the resume point to rebuild its view of the rounds
 * (round.c, invariant 9).  If it does not come back in time, the job is
 * aborted naming it.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo/prox.h"
#include "cluster/hello.h"
#include "failover.h"
#include "util/log.h"
#include "util/xmalloc.h"

static void rejoin_timer_cb(evutil_socket_t fd, short what, void *arg);

/* A job starts: how long its workers may be away (0: not at all). */
void
rejoin_start(struct channel *ch, const struct ps_hello *hello)
{
	struct job *job = &ch->job;
	double wait = hello->rejoin;

	job->rejoin_wait = wait > 0 && job->algorithm == PS_ALG_DBPG ?
	    wait : 0;
	job->gone_at = xcalloc(job->nworkers, sizeof *job->gone_at);
	job->pushed_below = xcalloc(job->nworkers,
	    sizeof *job->pushed_below);
	job->again_below = xcalloc(job->nworkers,
	    sizeof *job->again_below);
	job->resumed_at = xcalloc(job->nworkers, sizeof *job->resumed_at);
	if (job->rejoin_wait > 0)
		store_keep_prev(&ch->store);
}

/* The job ended: free what rejoin_start made. */
void
rejoin_end(struct channel *ch)
{
	struct job *job = &ch->job;

	if (job->rejoin_timer != NULL)
		event_free(job->rejoin_timer);
	job->rejoin_timer = NULL;
	free(job->gone_at);
	free(job->pushed_below);
	free(job->again_below);
	free(job->resumed_at);
	job->gone_at = NULL;
	job->pushed_below = job->again_below = job->resumed_at = NULL;
	job->rejoin_wait = 0;
}

/* Wake up when the worker gone longest has used up the wait. */
static void
rejoin_arm(struct channel *ch)
{
	struct job *job = &ch->job;
	double first = 0, left;
	struct timeval tv;
	uint32_t i;

	for (i = 0; i < job->nworkers; i++)
		if (job->gone_at[i] > 0 && (first == 0 ||
		    job->gone_at[i] < first))
			first = job->gone_at[i];
	if (first == 0) {
		if (job->rejoin_timer != NULL)
			evtimer_del(job->rejoin_timer);
		return;
	}
	if (job->rejoin_timer == NULL)
		job->rejoin_timer = evtimer_new(ch->srv->base, rejoin_timer_cb,
		    ch);
	left = fmax(first + job->rejoin_wait - ps_clock_now(), 0) + 0.001;
	tv.tv_sec = (time_t)left;
	tv.tv_usec = (suseconds_t)((left - (double)tv.tv_sec) * 1e6);
	evtimer_add(job->rejoin_timer, &tv);
}

/* The wait ran out for some worker: end the job, naming it. */
static void
rejoin_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct channel *ch = arg;
	struct job *job = &ch->job;
	double now = ps_clock_now();
	char *why;
	uint32_t i;

	for (i = 0; i < job->nworkers; i++) {
		if (job->gone_at[i] == 0 ||
		    now - job->gone_at[i] < job->rejoin_wait)
			continue;
		why = xasprintf("worker %u went away %.1f s ago and did not "
		    "come back", i, now - job->gone_at[i]);
		job_abort(ch, why);
		free(why);
		return;
	}
	rejoin_arm(ch);
}

/*
 * Worker p's connection dropped before its BYE: 1 if the job waits for
 * it to come back, 0 if the caller must abort the job.
 */
int
rejoin_gone(struct peer *p, const char *reason)
{
	struct channel *ch = p->ch;
	struct job *job = &ch->job;
	uint32_t id = p->worker_id;

	if (job->rejoin_wait <= 0)
		return 0;
	log_warnx("worker %u (%s) went away: %s; waiting up to %g s for it "
	    "to come back", id, ps_conn_peer(p->conn), reason,
	    job->rejoin_wait);
	ch->srv->stats.workers_gone++;
	rounds_forget_peer(ch, p);
	job->workers[id] = NULL;
	job->gone_at[id] = ps_clock_now();
	p->is_worker = 0;
	rejoin_arm(ch);
	return 1;
}

/*
 * A HELLO for worker id, whose place is empty: 1 if it comes back (it
 * went away, or pushed before), with *resume where it resumes; 0 if it
 * is new to the job.
 */
int
rejoin_hello(struct channel *ch, struct peer *p, uint32_t id,
    uint64_t *resume)
{
	struct job *job = &ch->job;

	*resume = 0;
	if (job->gone_at[id] == 0 && job->pushed_below[id] == 0)
		return 0;
	*resume = rounds_resume_point(ch, id);
	job->again_below[id] = job->pushed_below[id];
	job->gone_at[id] = 0;
	store_sent_forget(&ch->store, id);
	ch->srv->stats.workers_back++;
	log_info("%s: worker %u came back; it resumes at round %llu",
	    ps_conn_peer(p->conn), id, (unsigned long long)*resume);
	rejoin_arm(ch);
	return 1;
}

/*
 * Slot s's weight as a reply carries it (-0 for a KKT drop) and trust
 * radius, before round r: its state before its last round if that round
 * is r or later (a round the worker resumes at, or one of the rounds
 * that followed it here: each key is touched once in those).
 */
static float
rejoin_state(struct channel *ch, long s, uint64_t r, double *trust)
{
	const struct store *st = &ch->store;
	float w, g;

	if (s < 0) {
		*trust = PS_TRUST_INIT;
		return 0;
	}
	if (st->wprev == NULL || st->mark[s] <= r) {
		*trust = st->trust[s];
		return round_reply_weight(ch, (uint32_t)s, 0);
	}
	w = st->wprev[s];
	g = st->glastprev[s];
	*trust = st->trustprev[s];
	return ch->job.kkt > 0 && w == 0 && fabsf(g) <= ch->job.kkt ?
	    -0.0f : w;
}

/*
 * The resume pull m of a worker that came back, for the round r it
 * resumes at (msg_round.h; peer.c decoded it): for each key it
 * names, its weight and trust radius before round r (rejoin_state), the
 * radius split into three floats whose sum is it (72 bits hold the 53).  Rounds below r applied now are
 * marked (round.c, invariant 9).
 */
void
rejoin_pull(struct channel *ch, struct peer *p, const struct ps_msg *m,
    uint64_t r)
{
	const struct store *st = &ch->store;
	struct ps_msg reply;
	size_t k;

	ch->job.resumed_at[p->worker_id] = r;
	round_current_reply(ch, m, 4, &reply);
	for (k = 0; k < m->nkeys; k++) {
		float *v = reply.vals + 4 * k;
		double trust;

		v[0] = rejoin_state(ch, ps_keytab_find(&st->keys, m->keys[k]),
		    r, &trust);
		v[1] = (float)trust;
		v[2] = (float)(trust - v[1]);
		v[3] = (float)(trust - v[1] - v[2]);
	}
	rounds_mark_again(ch, p->worker_id, r);
	ch->srv->stats.pulls++;
	ch->srv->stats.keys_pulled += m->nkeys;
	peer_send(p, &reply);
	free(reply.vals);
}
