/*
 * comeback.c: a worker started again during its job (ps-train starts a
 * failed one again; --rejoin), as the servers' HELLO_OKs tell it.  Each
 * says how long the job has run on that server and, if the server took
 * this worker for gone (its connection dropped, or the silence limit
 * closed it), for how long (hello.h).  From them:
 *  1. the progress clock: secs counts from the job's start on the servers
 *     (the earliest), for every worker, so that the lines of a worker
 *     started again go on from those of its first run;
 *  2. where it resumes: dbpg.c and sgd.c take resume_point() (resume.c);
 *  3. how long the recovery took: the probe, a ping sent right behind
 *     its first push (or, with nothing left to push, its end-barrier
 *     pull) on the same connection, is answered once that server has
 *     handled the push.  From the server that took it for gone first,
 *     recovered = away + (probe answered - that server's HELLO_OK), the
 *     time from its death (or, when hung, its last message) to its first
 *     push served.  One line on stderr says it, which ps-train reads:
 *       ps-worker: came back to the job: gone 3.120 s into it, away
 *       0.183 s; recovered in 0.211 s
 */
#include "config.h"

#include "util/log.h"
#include "worker.h"

/* All HELLO_OKs are in (links_open): the clock, and whether it is back. */
void
comeback_begin(struct worker *w)
{
	struct comeback *cb = &w->comeback;
	double started = ps_clock_now();
	size_t i;

	for (i = 0; i < w->nlinks; i++) {
		const struct link *l = w->links[i];

		if (l->hello_at - l->age < started)
			started = l->hello_at - l->age;
		if (l->away >= 0 && (!cb->back || l->away > cb->away)) {
			cb->back = 1;
			cb->away = l->away;
			cb->gone_into = l->age - l->away;
			cb->hello_at = l->hello_at;
		}
	}
	w->started = started;
	if (!cb->back)
		return;
	cb->probe = PROBE_ARMED;
	log_info("came back to the job: gone %.3f s into it, away %.3f s",
	    cb->gone_into, cb->away);
}

/* Is m what a worker sends first when it has work again? */
static int
comeback_is_work(const struct ps_msg *m)
{
	return m->type == PS_MSG_PUSH || (m->type == PS_MSG_PULL &&
	    (m->flags & PS_MSG_F_NOKEYS) && !(m->flags & PS_MSG_F_CURRENT));
}

/* m went to server s: after the first push, the probe follows it. */
void
comeback_sent(struct worker *w, size_t s, const struct ps_msg *m)
{
	struct ps_msg probe;

	if (w->comeback.probe != PROBE_ARMED || !comeback_is_work(m))
		return;
	w->comeback.probe = PROBE_SENT;
	links_msg(w, &probe, PS_MSG_PULL, PS_MSG_F_CURRENT, PROBE_TIMESTAMP);
	links_send(w, s, &probe);
}

/* The probe was answered: the first push was served; say how long. */
void
comeback_served(struct worker *w)
{
	struct comeback *cb = &w->comeback;

	if (cb->probe != PROBE_SENT)
		return;
	cb->probe = PROBE_NONE;
	log_warnx("came back to the job: gone %.3f s into it, away %.3f s; "
	    "recovered in %.3f s", cb->gone_into, cb->away,
	    cb->away + ps_clock_now() - cb->hello_at);
}
