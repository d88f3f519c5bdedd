/*
 * failover.c: what a worker does when the coordinator publishes a new ring
 * version during its job (a server died, joined or was removed).
 *
 * The coordinator sends a new version to the servers first and to the
 * workers only once every server holds it, so when a worker takes it over
 * the servers already refuse requests stamped with the old one (they drop
 * them) and have handed keys over (cmd/ps-server/ringchange.c).  The worker
 * then, from its wait loop (never inside a callback):
 *  1. rebuilds its links: servers still in the ring keep their connection
 *     under their new index, new ones are connected, each gets a HELLO
 *     under the new version (links.c);
 *  2. gives each planned feature its new server (plan.c), and regroups the
 *     test set (evaltest.c);
 *  3. sends every iteration that is not fully answered again, whole, to
 *     every server of the new ring, and the one finished last, which a
 *     server may have answered before its replicas held it (dbpg.c).  The
 *     servers answer a push they already applied from what they hold, and
 *     apply each key's update once (cmd/ps-server/round.c), so nothing
 *     acknowledged is lost and nothing is applied twice.
 * An sgd worker regroups its mini-batches instead, and sends its
 * unacknowledged pushes and its pulls in flight again (sgdresend.c).
 * A server that goes away is waited for: sends to it are dropped until the
 * new ring comes, for at most the timeout.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "cluster/hello.h"
#include "util/log.h"
#include "worker.h"

/* Can this worker's job move to another ring? */
int
failover_possible(const struct worker *w)
{
	return w->coord != NULL;
}

/* The ring changed to *ring, which this takes over; see worker.h. */
void
worker_ring_changed(struct worker *w, struct ps_ring *ring)
{
	struct failover *f = &w->failover;

	if (f->pending)
		ps_ring_release(&f->next);
	f->next = *ring;
	f->pending = 1;
}

/* Move the job onto the pending ring (steps 1 to 3 above). */
static void
failover_apply(struct worker *w)
{
	struct failover *f = &w->failover;
	struct ps_ring old;
	uint32_t from = w->ring.version;
	size_t nfrom = w->ring.nservers;
	uint64_t lo, hi;

	if (f->next.nservers == 0)
		fatalx(EX_UNAVAILABLE, "ring version %u has no servers left",
		    f->next.version);
	f->pending = 0;
	f->started = ps_clock_now();
	f->lost_at = links_left_since(w, &f->next);
	f->version = f->next.version;
	f->count++;
	old = w->ring;
	w->ring = f->next;
	memset(&f->next, 0, sizeof f->next);
	links_rebuild(w);	/* the links name servers by old's strings */
	ps_ring_release(&old);
	if (w->have_test)
		evaltest_ring_changed(w);
	if (w->conf.algorithm == PS_ALG_SGD) {
		sgd_ring_changed(w);
		w->last_progress = ps_clock_now();
		return;
	}
	plan_assign(&w->dbpg.plan, &w->ring);
	if (w->conf.algorithm == PS_ALG_NEWTON) {
		newton_ring_changed(w);
		lo = w->newton.t_done - (w->newton.t_done > 0);	/* the echo */
		hi = w->newton.t_next;
	} else {
		stop_ring_changed(w);
		dbpg_ring_changed(w);
		lo = w->dbpg.t_done;
		hi = w->dbpg.t_next;
	}
	w->last_progress = ps_clock_now();
	log_info("ring version %u -> %u: %zu -> %zu servers; %s %llu to %llu "
	    "sent again", from, w->ring.version, nfrom, w->ring.nservers,
	    w->conf.algorithm == PS_ALG_NEWTON ? "rounds" : "iterations",
	    (unsigned long long)lo, (unsigned long long)hi);
}

/*
 * From the wait loop: take a pending ring over, or give up when a server
 * went away and no ring without it came within the timeout.
 */
void
failover_check(struct worker *w)
{
	double lost;

	if (w->failover.pending) {
		failover_apply(w);
		return;
	}
	lost = links_lost_since(w);
	if (lost > 0 && ps_clock_now() - lost > w->conf.timeout)
		fatalx(EX_UNAVAILABLE, "a server went away and coordinator "
		    "'%s' published no ring without it within %.0f s",
		    w->conf.coord_addr, w->conf.timeout);
}

/*
 * A server answered under the ring taken over last: report how long the
 * change took, from taking the ring over to this first answer, from the
 * loss of a server the ring left out (its link gone, or a hung one's last
 * message: ps-train quotes it as the recovery time), and the wall-clock time
 * (tests/bench/failover.sh measures from the kill).
 */
void
failover_heard(struct worker *w, const struct ps_msg *m)
{
	struct failover *f = &w->failover;
	struct timespec now;
	char lost[64];

	if (f->version == 0 || m->type != PS_MSG_PULL_REPLY ||
	    m->ring_version != f->version)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	lost[0] = '\0';
	if (f->lost_at > 0)
		snprintf(lost, sizeof lost, ", %.1f ms after losing a server",
		    (ps_clock_now() - f->lost_at) * 1e3);
	/* A fault recovered from is said without -v too. */
	(f->lost_at > 0 ? log_warnx : log_info)("first reply under ring "
	    "version %u %.1f ms after taking it over%s, at unix time "
	    "%lld.%06ld", f->version, (ps_clock_now() - f->started) * 1e3,
	    lost, (long long)now.tv_sec, now.tv_nsec / 1000);
	f->version = 0;
}

void
failover_release(struct worker *w)
{
	if (w->failover.pending)
		ps_ring_release(&w->failover.next);
	w->failover.pending = 0;
}
