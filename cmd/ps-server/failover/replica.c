/*
 * replica.c: replication of each round's result to the next servers of the
 * ring, and the copies this server holds for others (OSDI 2014, 4.3:
 * replicate the aggregated update, not every push).
 *
 * Invariants:
 *  1. With a ring of k replicas, when a round of Algorithm 2 completes the
 *     primary sends, for every key the round touched, the key's new state
 *     (weight, trust radius, gradient sum) to the k servers that follow
 *     the key's segment (ring.h): REPLICATE frames of at most
 *     REPLICA_CHUNK keys per replica server, each frame's keys ascending
 *     and its payload LZ4-compressed, stamped with the round's timestamp
 *     and the ring version.
 *  2. The round's pulls are answered once every one of those servers
 *     answered REPLICATE_OK for every earlier round (round.c, invariant 6):
 *     the replicas lag by the round answered last at most, which every
 *     worker keeps and sends again after a ring change (cmd/ps-worker/
 *     dbpg.c), so no acknowledged update is lost to a single failure.
 *  3. A replica keeps the copies in its channel's replica store, apart from
 *     the keys it serves; its l1, nnz, answers and saved model are those of
 *     its own keys only.  Each copied key's mark becomes t + 1, so a
 *     replica that takes a segment over knows which rounds it has seen.
 *  4. A replica accepts only keys whose segment it follows in the ring the
 *     message names; a replica link that closes while a round waits for
 *     it ends the job with a message naming that replica.
 *
 *  5. After a ring change (ringchange.c) a server sends every key it serves
 *     to its replicas again, as a resync: not a round, nothing waits for
 *     the answers; one message per round mark, so each copy keeps the
 *     mark of the round that last touched it (round.c, invariant 7).
 *  6. With a coordinator, a REPLICATE stamped with another ring version
 *     than the replica's is not applied: an older one's round is sent
 *     again by the workers; a newer one is a resync that beat the new
 *     ring here, kept until this server takes that ring over.  A replica
 *     that goes away does not end the job: the coordinator publishes a
 *     ring without it, and the rounds waiting for it are sent again.
 *
 *  7. An sgd channel's keys go as (w, z, n): each push applied, to the
 *     replicas of its keys (kind PUSH, stamped with the push's timestamp
 *     and worker, answered like a round's: cmd/ps-server/onlineack.c),
 *     and in resyncs and handoffs.  A replica records, per primary and
 *     worker, the pushes below which the copies it holds include
 *     (online.c, invariant 8); after a ring change every server says its
 *     own to every other (kind FLOOR, no keys), before any handoff.
 *
 * REPLICATE: width 5 per key, (w, trust, above, xprox, streak), above 1
 * when the last round's gradient sum was above the KKT threshold, else 0
 * (round.c, 3; the verdict, not the sum, is kept), or an sgd
 * channel's (w, z, n, 0, 0), timestamp t, channel; its scalars
 * (msg_ctl.h): the kind (a round, a resync, a handoff (handoff.c), an sgd
 * push, a floor), whether the values are an sgd channel's, and the worker
 * of a push or floor.
 * REPLICATE_OK: NOKEYS, the same timestamp, channel and scalars.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/prox.h"
#include "failover.h"
#include "util/log.h"
#include "util/radix.h"
#include "util/trace.h"
#include "util/xmalloc.h"

#define REPLICA_CONNECT_TIMEOUT	2.0
#define REPLICA_CHUNK		8192	/* keys a frame: small arrays a frame */

static void replica_link_msg_cb(struct ps_conn *, struct ps_msg *, void *);
static void replica_link_close_cb(struct ps_conn *, const char *, void *);
static void replica_early_free(struct server *);

/* The link to ring server index i, connected on first use; NULL on error. */
static struct replica_link *
replica_link_get(struct server *srv, size_t i)
{
	struct replica_link *l;
	char err[512];

	if (srv->rlinks == NULL) {
		srv->nrlinks = srv->ring.nservers;
		srv->rlinks = xcalloc(srv->nrlinks, sizeof *srv->rlinks);
	}
	l = &srv->rlinks[i];
	if (l->conn != NULL)
		return l;
	l->srv = srv;
	l->index = i;
	l->conn = ps_conn_connect(srv->base, srv->ring.servers[i].addr,
	    REPLICA_CONNECT_TIMEOUT, replica_link_msg_cb,
	    replica_link_close_cb, l, err, sizeof err);
	if (l->conn == NULL) {
		log_warnx("replica %s: %s", srv->ring.servers[i].addr, err);
		return NULL;
	}
	if (srv->have_secret && ps_conn_set_auth(l->conn, &srv->secret,
	    PS_AUTH_CONNECTOR, err, sizeof err) != 0) {
		log_warnx("replica %s: %s", srv->ring.servers[i].addr, err);
		ps_conn_free(l->conn);
		l->conn = NULL;
		return NULL;
	}
	ps_conn_set_lz4(l->conn, 1);
	return l;
}

/* Close every replica link (the ring changed, or the server stops). */
void
replica_links_free(struct server *srv)
{
	size_t i;

	if (srv->rlinks == NULL)
		return;
	for (i = 0; i < srv->nrlinks; i++)
		ps_conn_free(srv->rlinks[i].conn);
	free(srv->rlinks);
	srv->rlinks = NULL;
	srv->nrlinks = 0;
}

/*
 * Group the round's slots by replica server: bysrv[s] of n[s] slots, in
 * the round's order (4 bytes a key: each frame sorts its own keys).
 */
static void
replica_group(struct server *srv, const struct store *st,
    const uint32_t *slots, size_t nslots, uint32_t **bysrv, size_t *n)
{
	size_t max = (size_t)srv->ring.replicas + 1, k, j, cnt;
	size_t *idx = xcalloc(max, sizeof *idx);

	for (k = 0; k < nslots; k++) {
		uint64_t key = ps_keytab_key(&st->keys, slots[k]);

		cnt = ps_ring_replicas(&srv->ring, key, idx, max);
		for (j = 1; j < cnt; j++) {
			if (bysrv[idx[j]] == NULL)
				bysrv[idx[j]] = xcalloc(nslots,
				    sizeof *bysrv[idx[j]]);
			bysrv[idx[j]][n[idx[j]]++] = slots[k];
		}
	}
	free(idx);
}

/*
 * One REPLICATE frame of these slots of st on l, its keys sorted (the
 * wire's order); 0, or -1.
 */
static int
replica_frame(struct channel *ch, const struct store *st,
    struct replica_link *l, uint64_t t, const struct ps_replicate *rep,
    const uint32_t *slots, size_t n)
{
	struct server *srv = ch->srv;
	uint32_t *sorted = xcalloc(n + 1, sizeof *sorted);
	struct ps_msg m;
	size_t k;
	int rc;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_REPLICATE;
	m.width = REPLICA_WIDTH;
	m.sender = (uint32_t)srv->ring_index;
	m.channel = ch->id;
	m.timestamp = t;
	m.ring_version = srv->ring.version;
	ps_replicate_encode(rep, &m);
	m.nkeys = (uint32_t)n;
	m.keys = xcalloc(n + 1, sizeof *m.keys);
	m.vals = xcalloc((n + 1) * REPLICA_WIDTH, sizeof *m.vals);
	for (k = 0; k < n; k++) {
		m.keys[k] = ps_keytab_key(&st->keys, slots[k]);
		sorted[k] = slots[k];
	}
	ps_radix_sort(m.keys, sorted, n);
	for (k = 0; k < n; k++) {
		uint32_t s = sorted[k];
		float *v = m.vals + (size_t)REPLICA_WIDTH * k;

		v[0] = store_w(st, s);
		v[1] = rep->online ? (float)st->z[s] :
		    ps_trust_unpack(st->trust[s]);
		v[2] = rep->online ? (float)st->n[s] :
		    !(st->flags[s] & STORE_GSMALL);
		if (rep->online)
			continue;	/* the rest 0 */
		v[3] = ps_sparse_get(&st->xprox, s);
		v[4] = store_streak(st, s);
	}
	rc = ps_conn_send(l->conn, &m);
	free(sorted);
	free(m.keys);
	free(m.vals);
	if (rc < 0)
		return -1;
	srv->stats.replicate_msgs_out++;
	srv->stats.replicate_keys_out += n;
	return 0;
}

/*
 * Send one server these slots of st, stamped t and rep, in frames of at
 * most REPLICA_CHUNK keys (each answered on its own); the number of
 * frames, or -1 if the server cannot be reached.
 */
static int
replica_send(struct channel *ch, const struct store *st, size_t server,
    uint64_t t, const struct ps_replicate *rep, const uint32_t *slots,
    size_t n)
{
	struct replica_link *l = replica_link_get(ch->srv, server);
	size_t at, len;
	int frames = 0;

	if (l == NULL)
		return -1;
	for (at = 0; at < n; at += len, frames++) {
		len = n - at < REPLICA_CHUNK ? n - at : REPLICA_CHUNK;
		if (replica_frame(ch, st, l, t, rep, slots + at, len) != 0)
			return -1;
	}
	return frames;
}

/* Send server the given slots of st, stamped t and kind: frames, or -1. */
int
replica_send_store(struct channel *ch, const struct store *st, size_t server,
    uint64_t t, int kind, const uint32_t *slots, size_t n)
{
	struct ps_replicate rep = { .kind = kind,
	    .online = st->z != NULL ? st->optimizer : 0, .epochs = st->epochs,
	    .iteration = ch->job.iter_base + ch->job.rounds_done,
	    .lambda = ch->job.lambda };

	return replica_send(ch, st, server, t, &rep, slots, n);
}

/*
 * Send the slots' state to their replicas, stamped t; the number of
 * answers to wait for, or -1 when a replica cannot be reached and no
 * coordinator will publish a ring without it.
 */
static int
replica_send_slots(struct channel *ch, uint64_t t,
    const struct ps_replicate *rep, const uint32_t *slots, size_t nslots)
{
	struct server *srv = ch->srv;
	uint32_t **bysrv;
	size_t *n, s, ns;
	int waits = 0, failed = 0;

	if (!srv->have_ring || srv->ring.replicas == 0 || nslots == 0)
		return 0;
	ns = srv->ring.nservers;
	bysrv = xcalloc(ns, sizeof *bysrv);
	n = xcalloc(ns, sizeof *n);
	replica_group(srv, &ch->store, slots, nslots, bysrv, n);
	for (s = 0; s < ns; s++) {
		if (n[s] > 0 && (!failed || srv->coord_addr != NULL)) {
			int frames = replica_send(ch, &ch->store, s, t, rep,
			    bysrv[s], n[s]);

			if (frames >= 0)
				waits += frames;
			else
				failed++;
		}
		free(bysrv[s]);
	}
	free(bysrv);
	free(n);
	if (failed && srv->coord_addr == NULL)
		return -1;
	/* Invariant 6: an unreachable replica's answer waits for a ring. */
	return waits + failed;
}

/*
 * Invariant 1: send round t's touched slots to their replicas.  Returns
 * the number of REPLICATE_OK answers to wait for, or -1 when a replica
 * cannot be reached (the caller then ends the job).
 */
int
replica_round(struct channel *ch, uint64_t t, const uint32_t *slots,
    size_t nslots)
{
	struct ps_replicate rep = { .kind = PS_REPLICATE_ROUND };

	return replica_send_slots(ch, t, &rep, slots, nslots);
}

/*
 * Invariant 7: send the slots push t of worker was applied to to their
 * replicas; the answers to wait for, or -1 as replica_round.
 */
int
replica_push(struct channel *ch, uint32_t worker, uint64_t t,
    const uint32_t *slots, size_t nslots)
{
	struct ps_replicate rep = { .kind = PS_REPLICATE_PUSH,
	    .online = ch->store.optimizer, .worker = worker };

	return replica_send_slots(ch, t, &rep, slots, nslots);
}

/*
 * Invariant 7: after a ring change, tell every other server of the ring
 * below which of each worker's pushes this one applied (an sgd job's).
 */
void
replica_floors(struct channel *ch)
{
	struct server *srv = ch->srv;
	const struct online *on = &ch->job.online;
	struct ps_replicate rep = { .kind = PS_REPLICATE_FLOOR,
	    .online = ch->store.optimizer };
	struct replica_link *l;
	struct ps_msg m;
	size_t s;

	if (!ch->job.active || ch->job.algorithm != PS_ALG_SGD)
		return;
	for (s = 0; s < srv->ring.nservers; s++) {
		if (s == srv->ring_index || (l = replica_link_get(srv, s)) == NULL)
			continue;
		for (rep.worker = 0; rep.worker < ch->job.nworkers;
		    rep.worker++) {
			if (on->next_t[rep.worker] == 0)
				continue;
			memset(&m, 0, sizeof m);
			m.type = PS_MSG_REPLICATE;
			m.width = REPLICA_WIDTH;
			m.sender = (uint32_t)srv->ring_index;
			m.channel = ch->id;
			m.timestamp = on->next_t[rep.worker] - 1;
			m.ring_version = srv->ring.version;
			ps_replicate_encode(&rep, &m);
			if (ps_conn_send(l->conn, &m) < 0)
				break;
		}
	}
}

/* Send these served slots to their replicas as a resync, stamped t. */
void
replica_copy(struct channel *ch, uint64_t t, const uint32_t *slots, size_t n)
{
	struct ps_replicate rep = { .kind = PS_REPLICATE_RESYNC,
	    .online = ch->store.z != NULL ? ch->store.optimizer : 0 };

	if (replica_send_slots(ch, t, &rep, slots, n) < 0)
		log_warnx("channel %u: a replica cannot be reached; %zu keys "
		    "are not copied", ch->id, n);
}

/*
 * Invariant 5: every key this channel serves, to its replicas again, one
 * message per mark, stamped with that round (a mark of 0, no round yet,
 * goes as round UINT64_MAX, which the replica marks 0).
 */
void
replica_resync(struct channel *ch)
{
	const struct store *st = &ch->store;
	size_t n = ps_keytab_count(&st->keys), i, j;
	uint32_t *slots = xcalloc(n + 1, sizeof *slots);
	struct ps_replicate rep = { .kind = PS_REPLICATE_RESYNC,
	    .online = st->z != NULL ? st->optimizer : 0 };

	for (i = 0; i < n; i++)
		slots[i] = (uint32_t)i;
	store_sort_by_mark(st, slots, n);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n &&
		    store_mark(st, slots[j]) == store_mark(st, slots[i]); j++)
			continue;
		if (replica_send_slots(ch,
		    store_mark_round(store_mark(st, slots[i])), &rep,
		    slots + i, j - i) < 0) {
			log_warnx("channel %u: a replica cannot be reached; "
			    "its copies are not restored", ch->id);
			break;
		}
	}
	free(slots);
}

/* Whether v may be value i of a key in a REPLICATE (invariant 4). */
static int
replica_value_ok(float v, size_t i, int online)
{
	if (!isfinite(v))
		return 0;
	if (online)
		return i != 2 || v >= 0;
	if (i == 1)
		return v > 0;
	if (i == 2)
		return v == 0 || v == 1;
	return i != 4 || (v >= 0 && v <= PS_STREAK_MAX && v == floorf(v));
}

/*
 * Invariant 4: 0 if this server follows every key's segment (any key, for
 * a handoff: handoff.c checks it is the new primary; none, for a floor)
 * and the values are finite, a trust radius positive, an n not negative,
 * a verdict 0 or 1, a streak a whole number from 0 to PS_STREAK_MAX (31);
 * else -1.
 */
static int
replica_check_keys(const struct server *srv, const struct ps_msg *m,
    const struct ps_replicate *rep, char *err, size_t errlen)
{
	size_t max = (size_t)srv->ring.replicas + 1, k, j, cnt;
	size_t *idx = xcalloc(max, sizeof *idx);
	int rc = 0, handoff = rep->kind == PS_REPLICATE_HANDOFF;

	if (rep->kind == PS_REPLICATE_FLOOR && m->nkeys > 0) {
		snprintf(err, errlen, "a floor with %u keys", m->nkeys);
		rc = -1;
	}
	if (rep->online != 0 && rep->online != PS_OPT_ADAGRAD &&
	    rep->online != PS_OPT_FTRL) {
		snprintf(err, errlen, "unknown optimiser %d", rep->online);
		rc = -1;
	}
	for (k = 0; k < m->nkeys && rc == 0 && !handoff; k++) {
		cnt = ps_ring_replicas(&srv->ring, m->keys[k], idx, max);
		for (j = 1; j < cnt && idx[j] != srv->ring_index; j++)
			continue;
		if (j == cnt) {
			snprintf(err, errlen, "this server is no replica of "
			    "key %llu in ring version %u",
			    (unsigned long long)m->keys[k], srv->ring.version);
			rc = -1;
		}
	}
	for (k = 0; k < (size_t)m->nkeys * m->width && rc == 0; k++)
		if (!replica_value_ok(m->vals[k], k % REPLICA_WIDTH,
		    rep->online)) {
			snprintf(err, errlen, "bad value %g for key %llu",
			    (double)m->vals[k],
			    (unsigned long long)m->keys[k / REPLICA_WIDTH]);
			rc = -1;
		}
	free(idx);
	return rc;
}

/* The address of m's sender, a server of this server's ring. */
const char *
replica_sender(const struct server *srv, const struct ps_msg *m)
{
	return m->sender < srv->ring.nservers ?
	    srv->ring.servers[m->sender].addr : "?";
}

/*
 * Set slot s of st from key k's values in m: (w, z, n) of optimiser
 * online, or (w, trust, above, xprox, streak) when 0.
 */
void
replica_set_key(struct store *st, uint32_t s, const struct ps_msg *m,
    size_t k, int online)
{
	const float *v = m->vals + (size_t)REPLICA_WIDTH * k;

	store_set(st, s, v[0]);
	if (!online) {
		st->trust[s] = ps_trust_pack(v[1]);
		st->flags[s] = v[2] == 0 ? STORE_GSMALL : 0;
		ps_sparse_set(&st->xprox, s, v[3]);
		store_set_streak(st, s, (uint8_t)v[4]);
		return;
	}
	if (st->z == NULL)
		store_online_state(st, online, 0);
	st->optimizer = online;
	st->z[s] = v[1];
	st->n[s] = v[2];
}

/*
 * Hold m's copies in the channel's replica store (invariant 3) and, for an
 * sgd push or floor, what its sender applied (invariant 7).
 */
static void
replica_store(struct server *srv, struct channel *ch, const struct ps_msg *m,
    const struct ps_replicate *rep)
{
	struct store *st = &ch->replica;
	uint32_t *slots;
	size_t k;

	if (rep->kind == PS_REPLICATE_PUSH || rep->kind == PS_REPLICATE_FLOOR)
		online_origin_said(ch, replica_sender(srv, m), rep->worker,
		    m->timestamp + 1);
	if (rep->kind == PS_REPLICATE_HANDOFF) {
		handoff_apply(ch, m, rep);
		return;
	}
	slots = xcalloc(m->nkeys + 1, sizeof *slots);
	store_slots(st, m->keys, m->nkeys, slots);
	for (k = 0; k < m->nkeys; k++) {
		replica_set_key(st, slots[k], m, k, rep->online);
		if (!rep->online)
			store_set_mark(st, slots[k],
			    store_round_mark(m->timestamp));
	}
	free(slots);
	if (!rep->online)
		ps_trace_event(srv->trace, m->keys, m->nkeys,
		    "%s\t%u\t%llu\t%s", rep->kind == PS_REPLICATE_ROUND ?
		    "held" : "copy", ch->id, (unsigned long long)m->timestamp,
		    replica_sender(srv, m));
	srv->stats.replicate_msgs_in++;
	srv->stats.replicate_keys_in += m->nkeys;
}

/* Say a REPLICATE was taken. */
static void
replica_ack(struct server *srv, struct peer *p, const struct ps_msg *m,
    const struct ps_replicate *rep)
{
	struct ps_msg ok;

	memset(&ok, 0, sizeof ok);
	ok.type = PS_MSG_REPLICATE_OK;
	ok.flags = PS_MSG_F_NOKEYS;
	ok.sender = (uint32_t)srv->ring_index;
	ok.channel = m->channel;
	ok.timestamp = m->timestamp;
	ok.ring_version = m->ring_version;
	ps_replicate_encode(rep, &ok);
	peer_send(p, &ok);
}

/* Invariant 6: 1 if m's ring is not this server's (m kept or dropped). */
static int
replica_other_ring(struct server *srv, struct peer *p, struct ps_msg *m,
    const struct ps_replicate *rep)
{
	int resync = rep->kind == PS_REPLICATE_RESYNC ||
	    rep->kind == PS_REPLICATE_HANDOFF ||
	    rep->kind == PS_REPLICATE_FLOOR;

	if (srv->coord_addr == NULL || (srv->have_ring &&
	    m->ring_version == srv->ring.version))
		return 0;
	if (srv->have_ring && m->ring_version < srv->ring.version) {
		log_info("%s: dropped a replicate of ring version %u (this "
		    "server holds %u)", ps_conn_peer(p->conn),
		    m->ring_version, srv->ring.version);
		return 1;
	}
	if (!resync || srv->nearly >= SERVER_EARLY_MAX) {
		peer_fail(p, "replicate refused: ring version %u is not this "
		    "server's", m->ring_version);
		return 1;
	}
	replica_ack(srv, p, m, rep);
	srv->early = xreallocarray(srv->early, srv->nearly + 1,
	    sizeof *srv->early);
	ps_msg_take(&srv->early[srv->nearly++], m);	/* kept */
	return 1;
}

/* A primary's REPLICATE: hold the copies (invariant 3) and say so. */
void
replica_apply(struct server *srv, struct peer *p, struct ps_msg *m)
{
	struct channel *ch = channel_get(srv, m->channel, 1);
	struct ps_replicate rep;
	char err[512];

	if (ch == NULL) {
		peer_fail(p, "replicate for channel %u (channels are 0 to %d)",
		    m->channel, SERVER_CHANNELS_MAX - 1);
		return;
	}
	if (ps_replicate_decode(m, &rep) != 0) {
		peer_fail(p, "replicate refused: bad scalars");
		return;
	}
	if (!rep.online && m->timestamp > PS_ROUND_MAX &&
	    m->timestamp != UINT64_MAX) {
		peer_fail(p, "replicate refused: round %llu, past the last a "
		    "job may have (%llu)", (unsigned long long)m->timestamp,
		    (unsigned long long)PS_ROUND_MAX);
		return;
	}
	if (replica_other_ring(srv, p, m, &rep))
		return;
	if (owner_load(srv, m->ring_version, err, sizeof err) != 0 ||
	    replica_check_keys(srv, m, &rep, err, sizeof err) != 0) {
		peer_fail(p, "replicate refused: %s", err);
		return;
	}
	replica_store(srv, ch, m, &rep);
	replica_ack(srv, p, m, &rep);
}

/* Invariant 6: the server took a ring over; apply the resyncs kept for it. */
void
replica_apply_early(struct server *srv)
{
	struct ps_replicate rep;
	char err[512];
	size_t i;

	for (i = 0; i < srv->nearly; i++) {
		struct ps_msg *m = &srv->early[i];
		struct channel *ch = channel_get(srv, m->channel, 1);

		(void)ps_replicate_decode(m, &rep);	/* checked when kept */
		if (ch == NULL || m->ring_version != srv->ring.version ||
		    replica_check_keys(srv, m, &rep, err, sizeof err) != 0)
			log_warnx("a resync of ring version %u for channel %u "
			    "is dropped: %s", m->ring_version, m->channel,
			    ch == NULL || m->ring_version != srv->ring.version ?
			    "not this server's ring" : err);
		else
			replica_store(srv, ch, m, &rep);
	}
	replica_early_free(srv);
}

static void
replica_early_free(struct server *srv)
{
	size_t i;

	for (i = 0; i < srv->nearly; i++)
		ps_msg_release(&srv->early[i]);
	free(srv->early);
	srv->early = NULL;
	srv->nearly = 0;
}

/* The server stops: close the replica links, drop what was kept. */
void
replica_free(struct server *srv)
{
	replica_links_free(srv);
	replica_early_free(srv);
}

/*
 * A replica's REPLICATE_OK: one wait fewer for that round (invariant 2).
 * The dispatcher of a replica link: it releases m, as peer.c's rule says.
 */
static void
replica_link_msg_cb(struct ps_conn *c, struct ps_msg *m, void *arg)
{
	struct replica_link *l = arg;
	struct channel *ch = channel_get(l->srv, m->channel, 0);
	struct ps_replicate rep;
	int ok = m->type == PS_MSG_REPLICATE_OK && ch != NULL &&
	    ps_replicate_decode(m, &rep) == 0;

	if (ok && rep.kind == PS_REPLICATE_HANDOFF)
		handoff_answered(l->srv, 0);
	else if (ok && rep.kind == PS_REPLICATE_ROUND)
		ok = round_replicated(ch, m->timestamp) == 0;
	else if (ok && rep.kind == PS_REPLICATE_PUSH)
		online_replicated(ch, rep.worker, m->timestamp);
	if (!ok)
		log_warnx("replica %s: unexpected %s for channel %u round "
		    "%llu%s%s", ps_conn_peer(c), ps_msg_type_name(m->type),
		    m->channel, (unsigned long long)m->timestamp,
		    m->bloblen > 0 ? ": " : "", m->bloblen > 0 ? m->blob : "");
	ps_msg_release(m);
}

/* Invariant 4: a replica went away; every job waiting on it ends. */
static void
replica_link_close_cb(struct ps_conn *c, const char *reason, void *arg)
{
	struct replica_link *l = arg;
	struct server *srv = l->srv;
	char *why;
	uint32_t i;

	why = xasprintf("replica %s went away: %s", ps_conn_peer(c),
	    reason != NULL && *reason != '\0' ? reason : "closed");
	log_warnx("%s%s", why, srv->coord_addr != NULL ? "; waiting for the "
	    "coordinator's next ring" : "");
	ps_conn_free(l->conn);
	l->conn = NULL;
	handoff_answered(srv, 1);
	for (i = 0; i < SERVER_CHANNELS_MAX && srv->coord_addr == NULL; i++)
		if (srv->channels[i] != NULL &&
		    rounds_awaiting_replicas(srv->channels[i]))
			job_abort(srv->channels[i], why);
	free(why);
}
