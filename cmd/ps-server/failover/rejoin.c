/*
 * rejoin.c: a worker that goes away during the job, or hangs, and comes
 * back.
 *
 * When the job's HELLO asked for it (hello.h, rejoin), a worker whose
 * connection drops does not end the job: the server forgets its
 * connection and waits up to the job's rejoin wait for a worker with the
 * same id to say HELLO again (ps-train restarts it on the same shard).
 * With a silence limit (hello.h, silence) the server also closes the
 * connection of a worker that sent nothing for that long, and takes the
 * worker for gone since its last message: a hung worker is fenced, as
 * nothing it sends after reaches the job, and waited for like a dead one.
 * Until its connection is closed, by its process's end or the limit, the
 * worker's place is taken and a HELLO for its id is refused (peer.c), so
 * nothing an old process sends is taken once a new one said HELLO.
 *
 * dbpg: rounds that need its push wait too; the other workers wait for
 * them under their own timeout.  The one that comes back is told where to
 * resume (HELLO_OK's resume, rounds_resume_point), takes the weights,
 * trust radii and KKT verdicts of its keys as they were before the round
 * it resumes at with a resume pull (rejoin_pull; the store keeps each
 * key's state before its last round for this), and pushes again from a
 * little before the resume point to rebuild its view of the rounds
 * (round.c, invariant 9).
 *
 * newton: the same, by iterations (cmd/ps-server/newton.c, rejoin): told
 * the round after its last push here, the worker takes the weights before
 * that iteration's step round and pushes its rounds again from the
 * iteration's gradient round, whose sums the servers keep for it.
 *
 * sgd: the other workers go on.  The one that comes back resumes at the
 * mini-batch after the last one of its this server applied
 * (online_resume_point); its worker takes the lowest over the servers, so
 * that a push some server missed is sent again, and a server that
 * applied it refuses it as a duplicate (online.c, invariant 1): each
 * mini-batch is applied once by each server.  One that was waiting at the
 * end barrier waits there again.
 *
 * If it does not come back in time, the job is aborted naming it.
 */
#include "config.h"

#include <float.h>
#include <limits.h>
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

	job->started = ps_clock_now();
	job->rejoin_wait = wait > 0 ? wait : 0;
	job->gone_at = xcalloc(job->nworkers, sizeof *job->gone_at);
	job->pushed_below = xcalloc(job->nworkers,
	    sizeof *job->pushed_below);
	job->again_below = xcalloc(job->nworkers,
	    sizeof *job->again_below);
	job->resumed_at = xcalloc(job->nworkers, sizeof *job->resumed_at);
	if (job->rejoin_wait > 0 && job->algorithm != PS_ALG_SGD)
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
 * Worker p's connection dropped before its BYE, or the silence limit
 * closed it: 1 if the job waits for it to come back, 0 if the caller must
 * abort the job.  A silent worker went away with its last message.
 */
int
rejoin_gone(struct peer *p, const char *reason)
{
	struct channel *ch = p->ch;
	struct job *job = &ch->job;
	uint32_t id = p->worker_id;
	int hung = ps_conn_idled_out(p->conn);

	if (job->rejoin_wait <= 0)
		return 0;
	if (hung)
		log_warnx("worker %u (%s) is hung: %s; its connection is "
		    "closed (fenced); waiting up to %g s for it to come back",
		    id, ps_conn_peer(p->conn), reason, job->rejoin_wait);
	else
		log_warnx("worker %u (%s) went away: %s; waiting up to %g s "
		    "for it to come back", id, ps_conn_peer(p->conn), reason,
		    job->rejoin_wait);
	ch->srv->stats.workers_gone++;
	if (job->algorithm == PS_ALG_SGD)
		online_gone(ch, id);
	else
		rounds_forget_peer(ch, p);
	job->workers[id] = NULL;
	job->gone_at[id] = fmax(ps_clock_now() - (hung ? p->silence : 0),
	    DBL_MIN);
	p->is_worker = 0;
	rejoin_arm(ch);
	return 1;
}

/* A worker's first HELLO on p: the silence limit it asked for. */
static void
rejoin_watch(struct peer *p, double silence)
{
	double ms = silence * 1e3;

	p->silence = silence;
	if (ms > 0)
		ps_conn_set_idle_limit(p->conn, ms < 1 ? 1 :
		    ms > UINT_MAX ? UINT_MAX : (unsigned int)ms);
}

/*
 * A HELLO for a worker whose place is empty: 1 if it comes back (it
 * went away, or pushed before), with said's resume and away; 0 if it is
 * new to the job.  Either way said has the job's age, and p the silence
 * limit the HELLO asked for.
 */
int
rejoin_hello(struct channel *ch, struct peer *p, const struct ps_hello *hello,
    struct ps_hello_ok *said)
{
	struct job *job = &ch->job;
	uint32_t id = hello->worker_id;
	double now = ps_clock_now();
	int sgd = job->algorithm == PS_ALG_SGD;

	rejoin_watch(p, hello->silence);
	said->age = now - job->started;
	said->away = -1;
	said->resume = 0;
	if (job->gone_at[id] == 0 && (sgd ?
	    online_resume_point(ch, id) == 0 : job->pushed_below[id] == 0))
		return 0;
	if (job->gone_at[id] > 0)
		said->away = now - job->gone_at[id];
	if (sgd) {
		said->resume = online_resume_point(ch, id);
	} else {
		said->resume = rounds_resume_point(ch, id);
		job->again_below[id] = job->pushed_below[id];
		store_sent_forget(&ch->store, id);
	}
	job->gone_at[id] = 0;
	ch->srv->stats.workers_back++;
	log_info("%s: worker %u came back; it resumes at %s %llu",
	    ps_conn_peer(p->conn), id, sgd ? "mini-batch" : "round",
	    (unsigned long long)said->resume);
	rejoin_arm(ch);
	return 1;
}

/*
 * Slot s's weight as a reply carries it (-0 for a KKT drop) and trust
 * radius, before round r (round_reply_weight_before: its state before
 * its last round if that round is r or later, a round the worker resumes
 * at or one of the rounds that followed it here: each key is touched once
 * in those).
 */
static float
rejoin_state(struct channel *ch, long s, uint64_t r, float *trust)
{
	if (s < 0) {
		*trust = PS_TRUST_INIT;
		return 0;
	}
	return round_reply_weight_before(ch, (uint32_t)s, r, trust);
}

/*
 * The resume pull m of a worker that came back, for the round r it
 * resumes at (msg_round.h; peer.c decoded it): for each key it
 * names, its weight and trust radius before round r (rejoin_state).
 * Rounds below r applied now are marked (round.c, invariant 9).
 */
void
rejoin_pull(struct channel *ch, struct peer *p, const struct ps_msg *m,
    uint64_t r)
{
	const struct store *st = &ch->store;
	struct ps_msg reply;
	size_t k;

	ch->job.resumed_at[p->worker_id] = r;
	round_current_reply(ch, m, 2, &reply);
	for (k = 0; k < m->nkeys; k++) {
		float *v = reply.vals + 2 * k;

		v[0] = rejoin_state(ch, ps_keytab_find(&st->keys, m->keys[k]),
		    r, &v[1]);
	}
	rounds_mark_again(ch, p->worker_id, r);
	ch->srv->stats.pulls++;
	ch->srv->stats.keys_pulled += m->nkeys;
	peer_send(p, &reply);
	free(reply.vals);
}
