/*
 * members.c: the nodes the coordinator knows of: registration, heartbeats,
 * and failure detection.  A dropped connection makes its node dead at
 * once; silence for the timeout does too, and then the coordinator tells
 * the node so and closes the connection itself, so a hung node that wakes
 * up is cut off.  A dead server leaves the ring.  Workers are only
 * reported for now.  The silence of a coordinator that did not run is not
 * the nodes' (members_woken).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* A new record at the end of the list. */
static struct member *
member_new(struct coord *co, int role, const char *addr, uint32_t id)
{
	struct member *mb = xcalloc(1, sizeof *mb);

	mb->role = role;
	mb->worker_id = id;
	snprintf(mb->addr, sizeof mb->addr, "%s", addr);
	TAILQ_INSERT_TAIL(&co->members, mb, entry);
	return mb;
}

/* The servers of a loaded ring must register again within the grace. */
void
members_load(struct coord *co)
{
	size_t i;

	for (i = 0; i < co->ring.nservers; i++)
		member_new(co, PS_COORD_SERVER, co->ring.servers[i].addr, 0);
}

/* The server record with this address, or NULL. */
struct member *
member_server(struct coord *co, const char *addr)
{
	struct member *mb;

	TAILQ_FOREACH(mb, &co->members, entry)
		if (mb->role == PS_COORD_SERVER && strcmp(mb->addr, addr) == 0)
			return mb;
	return NULL;
}

/* The worker record with this id, or NULL. */
struct member *
member_worker(struct coord *co, uint32_t id)
{
	struct member *mb;

	TAILQ_FOREACH(mb, &co->members, entry)
		if (mb->role == PS_COORD_WORKER && mb->worker_id == id)
			return mb;
	return NULL;
}

/* "live", "dead", "unknown", or "standby" for a live server not in it. */
const char *
member_state_name(const struct coord *co, const struct member *mb)
{
	if (mb->state == MEMBER_DEAD)
		return "dead";
	if (mb->state == MEMBER_LEFT)
		return "left";
	if (mb->state == MEMBER_UNKNOWN)
		return "unknown";
	if (mb->role == PS_COORD_SERVER && ps_ring_find(publish_newest(co),
	    mb->addr) < 0)
		return "standby";
	return "live";
}

/* Bind a record to the client that registered it. */
static void
member_attach(struct member *mb, struct client *cl)
{
	mb->client = cl;
	cl->member = mb;
	mb->state = MEMBER_LIVE;
	mb->last_beat = ps_clock_now();
	mb->registered = mb->last_beat;
	mb->acked = 0;
	mb->sample_t = 0;
	memset(mb->rate, 0, sizeof mb->rate);
}

/* REGISTER of a server: its listening address in the blob. */
static void
member_register_server(struct client *cl, const struct ps_msg *m,
    const struct ps_register *reg)
{
	struct coord *co = cl->co;
	const char *addr = m->blob != NULL ? m->blob : "", *why = "empty";
	struct ps_ring next;
	struct member *mb;
	char err[512], *msg;

	if (strlen(addr) != m->bloblen ||
	    (why = ps_ring_addr_check(addr)) != NULL) {
		client_refuse(cl, "invalid server address '%s': %s", addr,
		    why);
		return;
	}
	if ((mb = member_server(co, addr)) != NULL &&
	    mb->state == MEMBER_LIVE) {
		client_refuse(cl, "server '%s' is already registered", addr);
		return;
	}
	if (mb == NULL)
		mb = member_new(co, PS_COORD_SERVER, addr, 0);
	member_attach(mb, cl);
	log_info("server %s registered from %s%s", addr,
	    ps_conn_peer(cl->conn), reg->join ? "" : " as a standby");
	if (ps_ring_find(publish_newest(co), addr) >= 0 || !reg->join) {
		publish_send(mb, co->text, co->textlen, co->ring.version);
		return;
	}
	ps_ring_copy(&next, publish_newest(co));
	msg = xasprintf("server %s joined", addr);
	if (ps_ring_add(&next, addr, err, sizeof err) != 0) {
		ps_ring_release(&next);
		client_refuse(cl, "%s", err);
	} else if (publish_change(co, &next, msg, err, sizeof err) != 0) {
		log_warnx("cannot save ring version %u: %s",
		    co->ring.version + 1, err);
		client_refuse(cl, "cannot save the ring: %s", err);
	}
	free(msg);
}

/* REGISTER of a worker: its id; it gets the published ring. */
static void
member_register_worker(struct client *cl, const struct ps_register *reg)
{
	struct coord *co = cl->co;
	struct member *mb;
	uint32_t id = reg->worker_id;

	if ((mb = member_worker(co, id)) != NULL &&
	    mb->state == MEMBER_LIVE) {
		client_refuse(cl, "worker %u is already registered from %s",
		    id, mb->addr);
		return;
	}
	if (mb == NULL)
		mb = member_new(co, PS_COORD_WORKER, "", id);
	snprintf(mb->addr, sizeof mb->addr, "%s", ps_conn_peer(cl->conn));
	member_attach(mb, cl);
	log_info("worker %u registered from %s", id, mb->addr);
	if (!co->recovering)
		publish_send(mb, co->pub_text, co->pub_len, co->published);
}

/* A REGISTER: a role, a worker's id, a server's join (msg_coord.h). */
void
member_register(struct client *cl, const struct ps_msg *m)
{
	struct ps_register reg;
	char err[128];

	if (cl->member != NULL) {
		client_refuse(cl, "registered twice");
		return;
	}
	if (ps_register_decode(m, &reg, err, sizeof err) != 0)
		client_refuse(cl, "%s", err);
	else if (reg.role == PS_COORD_SERVER)
		member_register_server(cl, m, &reg);
	else
		member_register_worker(cl, &reg);
}

/* A HEARTBEAT: alive, holding ring_version; a server's counters. */
void
member_heartbeat(struct member *mb, const struct ps_msg *m)
{
	struct coord *co = mb->client->co;
	double now = ps_clock_now(), dt = now - mb->sample_t;
	struct ps_heartbeat hb;
	int i;

	mb->last_beat = now;
	mb->acked = m->ring_version;
	if (mb->role != PS_COORD_SERVER)
		return;
	ps_heartbeat_decode(m, &hb);
	mb->copying = hb.copying;
	for (i = 0; i < PS_COORD_HB_N; i++)
		if (hb.count[i] >= 0)
			mb->count[i] = hb.count[i];
	if (mb->sample_t == 0 || dt >= 1.0) {
		for (i = 0; i < PS_COORD_HB_N; i++) {
			if (mb->sample_t != 0)
				mb->rate[i] = (mb->count[i] - mb->sample[i]) /
				    dt;
			mb->sample[i] = mb->count[i];
		}
		mb->sample_t = now;
	}
	publish_check(co);
}

/*
 * A node is gone (dead or left, why says how): close its connection (for
 * a dead one, fencing) and take a server out of the ring.
 */
static void
member_gone(struct coord *co, struct member *mb, enum member_state state,
    const char *why)
{
	struct client *cl = mb->client;
	char *msg;

	if (mb->state == MEMBER_DEAD || mb->state == MEMBER_LEFT)
		return;
	if (mb->role == PS_COORD_SERVER)
		msg = xasprintf("server %s %s", mb->addr, why);
	else
		msg = xasprintf("worker %u (%s) %s", mb->worker_id, mb->addr,
		    why);
	if (state == MEMBER_DEAD)
		log_warnx("%s", msg);
	else
		log_info("%s", msg);
	mb->state = state;
	mb->client = NULL;
	if (cl != NULL) {
		cl->member = NULL;
		if (state == MEMBER_DEAD)
			client_cut(cl, msg);	/* it learns it is cut off */
		else
			client_free(cl);
	}
	if (mb->role == PS_COORD_SERVER &&
	    ps_ring_find(publish_newest(co), mb->addr) >= 0)
		publish_remove(co, mb->addr, msg);
	else
		publish_check(co);
	free(msg);
}

/* A node failed: see member_gone(). */
void
member_dead(struct coord *co, struct member *mb, const char *fmt, ...)
{
	char why[512], *msg;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	msg = xasprintf("is dead: %s", why);
	member_gone(co, mb, MEMBER_DEAD, msg);
	free(msg);
}

/* A node said BYE: it left on purpose. */
void
member_bye(struct coord *co, struct member *mb)
{
	member_gone(co, mb, MEMBER_LEFT, "left");
}

/* Nodes silent for the timeout, and servers that never came back. */
void
members_tick(struct coord *co)
{
	double now = ps_clock_now(), grace;
	struct member *mb;

	grace = PS_COORD_GRACE_MS / 1e3 + co->timeout;
	TAILQ_FOREACH(mb, &co->members, entry) {
		if (mb->state == MEMBER_LIVE &&
		    now - mb->last_beat > co->timeout)
			member_dead(co, mb, "no heartbeat for %.0f ms",
			    (now - mb->last_beat) * 1e3);
		else if (mb->state == MEMBER_UNKNOWN &&
		    now - co->grace_from > grace)
			member_dead(co, mb, "did not register within %.0f ms "
			    "of the coordinator's start or waking",
			    grace * 1e3);
	}
}

/*
 * Every PS_COORD_HEARTBEAT_MS: a HEARTBEAT to each live node, carrying the
 * published version, so that a node given several coordinators hears a
 * silent one (stopped, and so maybe replaced) and moves on (coord.h,
 * rule 7).
 */
void
members_beat(struct coord *co)
{
	struct member *mb;
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_HEARTBEAT;
	m.flags = PS_MSG_F_NOKEYS;
	m.ring_version = co->published;
	TAILQ_FOREACH(mb, &co->members, entry)
		if (mb->state == MEMBER_LIVE && mb->client != NULL)
			ps_conn_send(mb->client->conn, &m);
}

/*
 * The coordinator did not run for slept seconds (SIGSTOP, a suspended
 * machine): the nodes' silence meanwhile is its own, and their heartbeats
 * may still wait unread.  Count every timeout afresh from now (coord.h,
 * rule 5); a node that died meanwhile is found by its closed connection
 * or, hung, by the timeout.
 */
void
members_woken(struct coord *co, double slept)
{
	double now = ps_clock_now();
	struct member *mb;

	log_warnx("this coordinator did not run for %.0f ms: the nodes' "
	    "timeouts start again", slept * 1e3);
	TAILQ_FOREACH(mb, &co->members, entry)
		if (mb->state == MEMBER_LIVE)
			mb->last_beat = now;
	co->grace_from = now;
	if (co->publishing)
		co->pub_started = now;
}

void
members_free(struct coord *co)
{
	struct member *mb;

	while ((mb = TAILQ_FIRST(&co->members)) != NULL) {
		TAILQ_REMOVE(&co->members, mb, entry);
		free(mb);
	}
}
