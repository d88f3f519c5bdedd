/*
 * coordlink.c: a worker's link to the coordinator (-C): it registers with
 * its id, takes the first ring that names servers as its ring, and
 * heartbeats for the rest of the job.  A later ring of another version
 * goes to worker_ring_changed() (failover.c).  A worker that loses the
 * coordinator trains on with the ring it holds and reconnects; without one
 * for --coordinator-wait it exits 69.  With -a it proves the secret to the
 * coordinator as to the servers; a refusal exits 77.
 */
#include "config.h"

#include <stdio.h>
#include <sysexits.h>

#include "cluster/zkmember.h"
#include "util/log.h"
#include "worker.h"

static void
coordlink_ring(struct ps_ring *ring, void *arg)
{
	struct worker *w = arg;

	if (w->have_ring && (ring->version == w->ring.version ||
	    (w->failover.pending && ring->version == w->failover.next.version))) {
		ps_ring_release(ring);	/* the same ring again, on reconnecting */
	} else if (w->have_ring) {
		worker_ring_changed(w, ring);
	} else if (ring->nservers == 0) {
		log_info("ring version %u has no servers yet; waiting",
		    ring->version);
		ps_ring_release(ring);
	} else {
		w->ring = *ring;
		w->have_ring = 1;
		log_info("ring version %u from coordinator '%s': %zu servers",
		    w->ring.version, w->conf.coord_addr, w->ring.nservers);
	}
}

/* Nothing to do but say so: the ring held stays until another comes. */
static void
coordlink_lost(const char *why, int gone, void *arg)
{
	struct worker *w = arg;

	if (gone && w->have_ring)
		log_warnx("%s; it went away: training on ring version %u until "
		    "one answers there again", why, w->ring.version);
	else
		log_warnx("%s; reconnecting", why);
}

/* A wrong or missing secret: as with a server, exit 77. */
static void
coordlink_refused(const char *why, void *arg)
{
	fatalx(EX_NOPERM, "%s", why);
}

/* No coordinator for --coordinator-wait. */
static void
coordlink_gave_up(const char *why, void *arg)
{
	fatalx(EX_UNAVAILABLE, "%s", why);
}

static const struct ps_coord_node_cbs coordlink_cbs = {
	coordlink_ring, coordlink_lost, coordlink_refused, NULL,
	coordlink_gave_up
};

/* -Z: ZooKeeper names the coordinator that leads. */
static void
coordlink_follow(void *arg, const char *addr)
{
	struct worker *w = arg;

	ps_coord_node_follow(w->coord, addr);
}

/* -Z: hold our znode, and follow the leader. */
static void
coordlink_zk_open(struct worker *w, const struct ps_secret *secret)
{
	char name[64], err[1024];

	snprintf(name, sizeof name, "worker-%u", w->conf.id);
	w->zk_member = ps_zk_member_open(w->base, w->conf.zk_connect,
	    PS_ZK_SESSION_MS, secret, name, coordlink_follow, w, err,
	    sizeof err);
	if (w->zk_member == NULL)
		fatalx(EX_UNAVAILABLE, "-Z: %s", err);
}

/* Register and wait (up to the timeout) for a ring with servers. */
void
coordlink_open(struct worker *w)
{
	const struct ps_secret *secret = w->conf.secret_path != NULL ?
	    &w->secret : NULL;
	const char *why;

	w->coord = ps_coord_node_new(w->base, w->conf.zk_connect == NULL ?
	    w->conf.coord_addr : NULL, PS_COORD_WORKER, w->conf.id, 0, NULL,
	    secret, &coordlink_cbs, w);
	ps_coord_node_set_wait(w->coord, w->conf.coord_wait);
	if (w->conf.zk_connect != NULL)
		coordlink_zk_open(w, secret);
	while (!w->have_ring) {
		event_base_loop(w->base, EVLOOP_ONCE);
		if (ps_clock_now() - w->started <= w->conf.timeout)
			continue;
		why = ps_coord_node_error(w->coord);
		fatalx(EX_UNAVAILABLE, "no ring with servers from coordinator "
		    "'%s' within %.0f s%s%s", w->conf.coord_addr,
		    w->conf.timeout, *why != '\0' ? ": " : "", why);
	}
}

/* Tell the coordinator this worker is done (before links_close). */
void
coordlink_leave(struct worker *w)
{
	if (w->coord != NULL)
		ps_coord_node_leave(w->coord);
}

void
coordlink_close(struct worker *w)
{
	ps_zk_member_free(w->zk_member);
	w->zk_member = NULL;
	ps_coord_node_free(w->coord);
	w->coord = NULL;
}
