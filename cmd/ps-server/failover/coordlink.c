/*
 * coordlink.c: a server's link to the coordinator (-C): it registers with
 * its listening address, heartbeats with its counters, and holds each ring
 * version it is sent (owner.c).  While the coordinator is gone (coord.h,
 * rule 4) the server goes on serving the ring it holds; cut off from it,
 * it serves no key traffic and aborts the jobs it runs; without one for
 * --coordinator-wait it ends (exit 69).  A server that comes back
 * after the ring changed without it, or that leaves the ring, drops every
 * weight it held: it must not serve old data; one removed while alive
 * hands its keys over first (handoff.c).  A coordinator that refuses the
 * server's secret (-a), or asks for one, ends the server with exit status
 * 77.
 */
#include "config.h"

#include <stdio.h>
#include <sysexits.h>

#include "cluster/zkmember.h"
#include "failover.h"
#include "util/log.h"

/* Abort every running job, telling its workers why. */
static void
coordlink_abort_jobs(struct server *srv, const char *why)
{
	uint32_t i;

	for (i = 0; i < SERVER_CHANNELS_MAX; i++)
		if (srv->channels[i] != NULL && srv->channels[i]->job.active)
			job_abort(srv->channels[i], why);
}

/*
 * Drop every weight: this server no longer holds valid data.  Its jobs
 * end, with an ERROR to their workers when it was cut off (they cannot go
 * on), quietly when it left the ring alive (they moved to the new ring).
 */
static void
coordlink_forget(struct server *srv, int cut_off, const char *why)
{
	size_t keys = 0;
	uint32_t i;

	if (cut_off)
		coordlink_abort_jobs(srv, why);
	for (i = 0; i < SERVER_CHANNELS_MAX; i++) {
		struct channel *ch = srv->channels[i];

		if (ch == NULL)
			continue;
		if (ch->job.active)
			job_end(ch);
		keys += ps_keytab_count(&ch->store.keys);
		store_release(&ch->store);
		store_init(&ch->store);
	}
	log_warnx("dropped the weights of %zu keys: %s", keys, why);
}

/*
 * The version it holds again, from a coordinator it registered with anew
 * (the same version is the same ring, ring.h): keep the ring; adopting it
 * again would drop the rounds in progress, which no worker sends again.
 */
static void
coordlink_same(struct server *srv, struct ps_ring *ring)
{
	log_info("ring version %u again: %s", ring->version, srv->coord_cut ?
	    "serving again" : "the job goes on");
	ps_ring_release(ring);
	srv->coord_lost = 0;
	srv->coord_cut = 0;
}

/* A new ring version: hold it, dropping the weights if they are stale. */
static void
coordlink_ring(struct ps_ring *ring, void *arg)
{
	struct server *srv = arg;
	int was = srv->have_ring && srv->in_ring, now;
	uint32_t old = srv->ring.version;

	if (srv->have_ring && ring->version == old) {
		coordlink_same(srv, ring);
		return;
	}
	now = owner_adopt(srv, ring);
	log_info("ring version %u: %s", srv->ring.version, now ?
	    "serving this server's keys" : "not in the ring, serving none");
	if (was && !now)
		coordlink_forget(srv, srv->coord_lost,
		    "this server left the ring");
	else if (was && srv->coord_lost && old != srv->ring.version)
		coordlink_forget(srv, 1, "the ring changed while this server "
		    "had no coordinator");
	srv->coord_lost = 0;
	srv->coord_cut = 0;
}

/*
 * The link is down.  The coordinator gone, serve the ring held until one
 * answers again (no ring can change meanwhile); cut off, no key traffic
 * until then.
 */
static void
coordlink_lost(const char *why, int gone, void *arg)
{
	struct server *srv = arg;
	char msg[700];

	if (srv->coord_cut || (gone && srv->coord_lost))
		return;
	srv->coord_lost = 1;
	snprintf(msg, sizeof msg, "this server lost the coordinator: %s",
	    why);
	if (gone && srv->have_ring) {
		log_warnx("%s; it went away: serving ring version %u until "
		    "one answers there again", msg, srv->ring.version);
		return;
	}
	srv->coord_cut = 1;
	log_warnx("%s; reconnecting", msg);
	coordlink_abort_jobs(srv, msg);
}

/* The link stopped for good: end as SIGTERM does (saving the model). */
static void
coordlink_end(struct server *srv, const char *why, int status)
{
	log_warnx("%s", why);
	srv->exit_status = status;
	event_base_loopbreak(srv->base);
}

/* No coordinator for --coordinator-wait: exit 69. */
static void
coordlink_gave_up(const char *why, void *arg)
{
	coordlink_end(arg, why, EX_UNAVAILABLE);
}

/*
 * The coordinator refused our secret, or wants one we were not given:
 * another try would fail the same way; exit 77.
 */
static void
coordlink_refused(const char *why, void *arg)
{
	coordlink_end(arg, why, EX_NOPERM);
}

/* A heartbeat's counters: keys held, bytes each way, requests. */
static void
coordlink_counters(struct ps_heartbeat *hb, void *arg)
{
	struct server *srv = arg;
	uint64_t keys = 0, in = srv->stats.bytes_in, out = srv->stats.bytes_out;
	struct peer *p;
	uint32_t i;

	for (i = 0; i < SERVER_CHANNELS_MAX; i++)
		if (srv->channels[i] != NULL)
			keys += ps_keytab_count(&srv->channels[i]->store.keys);
	TAILQ_FOREACH(p, &srv->peers, entry) {
		in += ps_conn_stats(p->conn)->bytes_in;
		out += ps_conn_stats(p->conn)->bytes_out;
	}
	hb->ncounts = PS_COORD_HB_N;
	hb->count[PS_COORD_HB_KEYS] = (double)keys;
	hb->count[PS_COORD_HB_BYTES_IN] = (double)in;
	hb->count[PS_COORD_HB_BYTES_OUT] = (double)out;
	hb->count[PS_COORD_HB_REQUESTS] = (double)(srv->stats.pushes +
	    srv->stats.pulls);
}

static const struct ps_coord_node_cbs coordlink_cbs = {
	coordlink_ring, coordlink_lost, coordlink_refused, coordlink_counters,
	coordlink_gave_up
};

/* -Z: ZooKeeper names the coordinator that leads. */
static void
coordlink_follow(void *arg, const char *addr)
{
	struct server *srv = arg;

	ps_coord_node_follow(srv->coord, addr);
}

/*
 * Connect to the coordinator (with -a, proving the secret) and register;
 * with -Z, to the one ZooKeeper names, holding a znode there.
 */
void
coordlink_start(struct server *srv)
{
	const struct ps_secret *secret = srv->have_secret ? &srv->secret :
	    NULL;
	char name[160], err[1024];

	srv->coord = ps_coord_node_new(srv->base, srv->zk_connect == NULL ?
	    srv->coord_addr : NULL, PS_COORD_SERVER, 0, !srv->standby,
	    srv->bound, secret, &coordlink_cbs, srv);
	ps_coord_node_set_wait(srv->coord, srv->coord_wait);
	if (srv->zk_connect == NULL)
		return;
	snprintf(name, sizeof name, "server-%s", srv->bound);
	srv->zk_member = ps_zk_member_open(srv->base, srv->zk_connect,
	    PS_ZK_SESSION_MS, secret, name, coordlink_follow, srv, err,
	    sizeof err);
	if (srv->zk_member == NULL)
		fatalx(EX_UNAVAILABLE, "-Z: %s", err);
}

void
coordlink_stop(struct server *srv)
{
	ps_zk_member_free(srv->zk_member);
	srv->zk_member = NULL;
	ps_coord_node_free(srv->coord);
	srv->coord = NULL;
}
