/*
 * links.c: the worker's connections to the servers of the ring: connect,
 * authenticate (with -a; the HELLO waits in the conn until it is done),
 * HELLO, sending, and routing what comes back (links_recv).  A server
 * that answers ERROR ends the worker at once with a message naming it,
 * and so does one that breaks the protocol.  One that goes
 * away does too, unless a coordinator (-C) can publish a ring without it:
 * then what is sent to it is dropped until the new ring comes (failover.c)
 * and the links are rebuilt for it (links_rebuild), for at most the
 * timeout.  Replies stamped with another ring version than the worker's
 * are from before a change and are ignored: what they answer is sent
 * again under the new ring.  Under a silence limit (--silence-limit) it
 * pings each server it has not written to for a while
 * (links_keepalive).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cluster/hello.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "wire/msg_ctl.h"
#include "wire/msg_online.h"
#include "worker.h"

/* Seconds allowed for connecting to one server. */
#define LINK_CONNECT_TIMEOUT	10.0

/* The server lost a key list we named (conn.h): send that message again. */
static void
link_keys_missing(struct worker *w, struct link *l, const struct ps_msg *m)
{
	log_info("server %u (%s): %.*s; sending the keys again", l->index,
	    l->addr, (int)m->bloblen, m->blob != NULL ? m->blob : "");
	int type = ps_keys_missing_decode(m);

	if (type == PS_MSG_PUSH && w->conf.algorithm == PS_ALG_NEWTON)
		newton_push(w, m->timestamp, l->index);
	else if (type == PS_MSG_PUSH)
		dbpg_push(w, m->timestamp, l->index);
	else if (type == PS_MSG_PULL && w->have_test)
		evaltest_pull(w, l->index);
	else
		fatalx(EX_PROTOCOL, "server %u (%s) lost the keys of a message "
		    "this worker cannot send again", l->index, l->addr);
}

/*
 * The answer to a ping or to the probe (PING_TIMESTAMP, PROBE_TIMESTAMP):
 * proof that the server is there and has handled what went before it.
 * A checkpoint request it passes on is taken (ckpt.c).
 */
static void
link_pong(struct worker *w, struct link *l, const struct ps_msg *m)
{
	struct ps_current_reply rep;

	if (ps_current_reply_decode(m, &rep) == 0 && rep.ckpt)
		ckpt_requested(w, m->timestamp);
	if (m->timestamp == PROBE_TIMESTAMP)
		comeback_served(w);
}

/* Is m the answer to a ping or to the probe? */
static int
link_is_pong(const struct ps_msg *m)
{
	return m->type == PS_MSG_PULL_REPLY && (m->flags & PS_MSG_F_CURRENT) &&
	    (m->timestamp == PING_TIMESTAMP || m->timestamp == PROBE_TIMESTAMP);
}

/* What a HELLO_OK says: where to resume, the job's age, the absence. */
static void
link_hello_ok(struct link *l, const struct ps_msg *m)
{
	struct ps_hello_ok ok;

	l->hello_ok = 1;
	ps_hello_ok_decode(m, &ok);
	l->resume = ok.resume;
	if (ok.nnz > 0)
		l->nnz = ok.nnz;
	l->age = ok.age;
	l->away = ok.away;
	l->hello_at = ps_clock_now();
}

/*
 * Who owns a message: its dispatcher, links_recv.  It releases each
 * message once, after link_route returned; no handler releases the
 * message it is given, and one that needs its keys, values or blob later
 * copies them (or would take the whole message with ps_msg_take()).
 */

/* What a server sent on link l: drop it if stale, else route it by type. */
static void
link_route(struct link *l, struct ps_msg *m)
{
	struct worker *w = l->w;

	if (m->ring_version != w->ring.version &&
	    (m->type == PS_MSG_PULL_REPLY || m->type == PS_MSG_KEYS_MISSING)) {
		log_debug("server %u (%s): dropped a %s of ring version %u",
		    l->index, l->addr, ps_msg_type_name(m->type),
		    m->ring_version);
		return;
	}
	/*
	 * Servers send no key signatures but in KEYS_MISSING, which names
	 * the list it lacks: the conn could not resolve this one (conn.h),
	 * so m has no keys for the reply code to read.
	 */
	if ((m->flags & PS_MSG_F_KEYSIG) && m->type != PS_MSG_KEYS_MISSING)
		fatalx(EX_PROTOCOL, "server %u (%s) sent a %s naming a key "
		    "list this worker does not hold", l->index, l->addr,
		    ps_msg_type_name(m->type));
	/* A pong says the server is there, not that the job moves. */
	l->last_rx = ps_clock_now();
	if (!link_is_pong(m))
		w->last_progress = l->last_rx;
	failover_heard(w, m);
	switch (m->type) {
	case PS_MSG_HELLO_OK:
		link_hello_ok(l, m);
		break;
	case PS_MSG_PULL_REPLY:
		if (link_is_pong(m))
			link_pong(w, l, m);
		else if ((m->flags & PS_MSG_F_CURRENT) &&
		    m->timestamp == EVALTEST_TIMESTAMP)
			evaltest_reply(w, l, m);
		else if ((m->flags & PS_MSG_F_CURRENT) &&
		    m->timestamp == RESUME_TIMESTAMP)
			resume_reply(w, l, m);
		else if (w->conf.algorithm == PS_ALG_SGD)
			sgd_reply(w, l, m);
		else if (w->conf.algorithm == PS_ALG_NEWTON)
			newton_reply(w, l, m);
		else
			dbpg_reply(w, l, m);
		break;
	case PS_MSG_KEYS_MISSING:
		link_keys_missing(w, l, m);
		break;
	case PS_MSG_SAVE_OK:
		break;		/* an sgd checkpoint was written (ckpt.c) */
	case PS_MSG_ERROR:
		fatalx(EX_UNAVAILABLE, "server %u (%s) stopped the job: %.*s",
		    l->index, l->addr, (int)m->bloblen,
		    m->blob != NULL ? m->blob : "");
	default:
		fatalx(EX_PROTOCOL, "server %u (%s) sent an unexpected %s",
		    l->index, l->addr, ps_msg_type_name(m->type));
	}
}

/* What a server sent on link l: route it, then release it (see above). */
void
links_recv(struct link *l, struct ps_msg *m)
{
	link_route(l, m);
	ps_msg_release(m);
}

static void
link_msg_cb(struct ps_conn *c, struct ps_msg *m, void *arg)
{
	links_recv(arg, m);
}

/* Add a conn's counters to sum. */
static void
link_stats_add(struct ps_conn_stats *sum, const struct ps_conn *c)
{
	const struct ps_conn_stats *cs = ps_conn_stats(c);

	sum->bytes_in += cs->bytes_in;
	sum->bytes_out += cs->bytes_out;
	sum->msgs_in += cs->msgs_in;
	sum->msgs_out += cs->msgs_out;
	ps_wire_sizes_add(&sum->in, &cs->in);
	ps_wire_sizes_add(&sum->out, &cs->out);
}

/* Keep a closing link's counters in the worker's totals; free its conn. */
static void
link_drop_conn(struct link *l)
{
	if (l->conn == NULL)
		return;
	link_stats_add(&l->w->gone, l->conn);
	ps_conn_free(l->conn);
	l->conn = NULL;
}

static void
link_close_cb(struct ps_conn *c, const char *reason, void *arg)
{
	struct link *l = arg;
	struct worker *w = l->w;

	if (w->closing)
		return;		/* after BYE a close is no news */
	if (ps_conn_is_auth_error(c))
		fatalx(EX_NOPERM, "server %u (%s): %s", l->index, l->addr,
		    reason);
	if (reason == NULL)
		reason = "connection closed";
	if (!failover_possible(w))
		fatalx(EX_UNAVAILABLE, "server %u (%s) went away: %s",
		    l->index, l->addr, reason);
	log_warnx("server %u (%s) went away: %s; waiting for the "
	    "coordinator's next ring", l->index, l->addr, reason);
	link_drop_conn(l);
	l->lost_at = ps_clock_now();
}

/* Connect link l to its server (l->addr); HELLO waits in the conn. */
static void
link_connect(struct worker *w, struct link *l)
{
	char err[512];

	l->conn = ps_conn_connect(w->base, l->addr, LINK_CONNECT_TIMEOUT,
	    link_msg_cb, link_close_cb, l, err, sizeof err);
	if (l->conn == NULL)
		fatalx(EX_UNAVAILABLE, "server %u: %s", l->index, err);
	if (w->conf.secret_path != NULL && ps_conn_set_auth(l->conn,
	    &w->secret, PS_AUTH_CONNECTOR, err, sizeof err) != 0)
		fatalx(EX_OSERR, "server %u: %s", l->index, err);
	ps_conn_set_lz4(l->conn, (w->conf.filters & FILTER_LZ4) != 0);
	if (w->conf.filters & FILTER_KEYCACHE)
		ps_conn_set_keycache_send(l->conn, PS_KEYCACHE_DEFAULT);
}

/* Say HELLO to server i under the worker's ring. */
static void
link_hello(struct worker *w, size_t i)
{
	struct ps_hello h;
	struct ps_msg hello;

	w->links[i]->hello_ok = 0;
	memset(&h, 0, sizeof h);
	h.worker_id = w->conf.id;
	h.nworkers = w->conf.nworkers;
	h.server_index = (uint32_t)i;
	h.nservers = (uint32_t)w->nlinks;
	h.ring_version = w->ring.version;
	h.lambda = w->conf.lambda;
	h.kkt = w->conf.kkt;	/* 0: KKT filter off */
	h.algorithm = w->conf.algorithm;
	h.opt = w->conf.opt;
	h.resumed = w->failover.count == 0 ? 0 :
	    (w->conf.algorithm == PS_ALG_NEWTON ? w->newton.t_next :
	    w->dbpg.t_next) + 1;
	h.rejoin = w->conf.rejoin;
	h.silence = w->conf.silence;
	memset(&hello, 0, sizeof hello);
	hello.type = PS_MSG_HELLO;
	hello.flags = PS_MSG_F_NOKEYS;
	hello.sender = w->conf.id;
	hello.ring_version = w->ring.version;
	ps_hello_encode(&h, &hello);
	links_send(w, i, &hello);
}

/* A link to server i of the worker's ring, connected. */
static struct link *
link_new(struct worker *w, size_t i)
{
	struct link *l = xcalloc(1, sizeof *l);

	l->w = w;
	l->index = (uint32_t)i;
	l->addr = w->ring.servers[i].addr;
	l->last_rx = l->last_tx = ps_clock_now();
	link_connect(w, l);
	return l;
}

/* Connect to every server and say HELLO; wait for all the answers. */
void
links_open(struct worker *w)
{
	size_t i;

	w->nlinks = w->ring.nservers;
	w->links = xcalloc(w->nlinks, sizeof *w->links);
	for (i = 0; i < w->nlinks; i++) {
		w->links[i] = link_new(w, i);
		link_hello(w, i);
	}
	while (!links_all_hello(w))
		links_step(w, "the servers' hello");
	comeback_begin(w);
}

/*
 * The worker's ring changed (w->ring is the new one): keep the link of
 * every server still in it, under its new index, connect to the new ones,
 * close the rest, and say HELLO to each under the new version.  Nothing
 * waits for the answers: what follows the HELLO on a connection is
 * handled after it.
 */
void
links_rebuild(struct worker *w)
{
	struct link **links = xcalloc(w->ring.nservers, sizeof *links);
	size_t i, j;

	for (i = 0; i < w->ring.nservers; i++) {
		for (j = 0; j < w->nlinks; j++) {
			struct link *l = w->links[j];

			if (l != NULL && l->conn != NULL &&
			    strcmp(l->addr, w->ring.servers[i].addr) == 0) {
				links[i] = l;
				w->links[j] = NULL;
				break;
			}
		}
		if (links[i] == NULL) {
			links[i] = link_new(w, i);
		} else {
			links[i]->index = (uint32_t)i;
			links[i]->addr = w->ring.servers[i].addr;
		}
	}
	for (j = 0; j < w->nlinks; j++) {
		if (w->links[j] == NULL)
			continue;
		link_drop_conn(w->links[j]);
		free(w->links[j]);
	}
	free(w->links);
	w->links = links;
	w->nlinks = w->ring.nservers;
	for (i = 0; i < w->nlinks; i++)
		link_hello(w, i);
}

/* The oldest time a link to a server went away, or 0 if none did. */
double
links_lost_since(const struct worker *w)
{
	double since = 0;
	size_t i;

	for (i = 0; i < w->nlinks; i++)
		if (w->links[i]->conn == NULL && (since == 0 ||
		    w->links[i]->lost_at < since))
			since = w->links[i]->lost_at;
	return since;
}

/*
 * When the earliest server that ring next leaves out was lost to this
 * worker: its link went away then, or (a hung server, whose connection
 * stands) it last sent anything then; 0 if next leaves none out.
 */
double
links_left_since(const struct worker *w, const struct ps_ring *next)
{
	double since = 0;
	size_t i;

	for (i = 0; i < w->nlinks; i++) {
		const struct link *l = w->links[i];
		double at = l->conn == NULL ? l->lost_at : l->last_rx;

		if (ps_ring_find(next, l->addr) >= 0)
			continue;
		if (since == 0 || at < since)
			since = at;
	}
	return since;
}

/* True while some link still has bytes to send. */
static int
links_pending(const struct worker *w)
{
	size_t i;

	for (i = 0; i < w->nlinks; i++)
		if (w->links[i]->conn != NULL &&
		    ps_conn_pending(w->links[i]->conn) > 0)
			return 1;
	return 0;
}

/* Flush what is queued (the BYE), for up to two seconds, then close. */
void
links_close(struct worker *w)
{
	double until = ps_clock_now() + 2;
	size_t i;

	w->closing = 1;
	while (links_pending(w) && ps_clock_now() < until)
		event_base_loop(w->base, EVLOOP_ONCE);
	for (i = 0; i < w->nlinks; i++) {
		link_drop_conn(w->links[i]);
		free(w->links[i]);
	}
	free(w->links);
	w->links = NULL;
	w->nlinks = 0;
}

/*
 * Send m to a server, on this worker's channel.  Dropped if the server
 * went away: the next ring sends what is unanswered again.
 */
void
links_send(struct worker *w, size_t server, const struct ps_msg *m)
{
	struct ps_msg on = *m;

	if (w->links[server]->conn == NULL)
		return;
	on.channel = w->conf.channel;
	if (m->type == PS_MSG_PUSH)
		ps_trace_event(w->trace, m->keys, m->nkeys, "push\t%s\t%u\t%llu",
		    w->links[server]->addr, on.channel,
		    (unsigned long long)m->timestamp);
	if (ps_conn_send(w->links[server]->conn, &on) < 0)
		fatalx(EX_SOFTWARE, "cannot encode %s for server %zu (%s)",
		    ps_msg_type_name(m->type), server, w->links[server]->addr);
	w->links[server]->last_tx = ps_clock_now();
	comeback_sent(w, server, m);
}

/* How often a silence limit wants a ping: a quarter of it, at most 1 s. */
double
links_ping_every(const struct worker *w)
{
	return w->conf.silence > 0 ? fmin(1, w->conf.silence / 4) : 1;
}

/*
 * Ping each server this worker has sent nothing to for every seconds (a
 * CURRENT pull of no keys): at the end barrier, so that a hung server is
 * noticed, and under a silence limit, so that the servers do not take
 * a worker that waits for a round for hung.
 */
void
links_keepalive(struct worker *w, double every)
{
	double now = ps_clock_now();
	struct ps_msg m;
	size_t s;

	links_msg(w, &m, PS_MSG_PULL, PS_MSG_F_CURRENT, PING_TIMESTAMP);
	for (s = 0; s < w->nlinks; s++)
		if (w->links[s]->conn != NULL && w->links[s]->hello_ok &&
		    now - w->links[s]->last_tx >= every)
			links_send(w, s, &m);
}

/* The counters of every link so far, closed ones included. */
void
links_stats(const struct worker *w, struct ps_conn_stats *sum)
{
	size_t i;

	*sum = w->gone;
	for (i = 0; i < w->nlinks; i++)
		if (w->links[i]->conn != NULL)
			link_stats_add(sum, w->links[i]->conn);
}

void
links_bytes(const struct worker *w, uint64_t *sent, uint64_t *recv)
{
	struct ps_conn_stats sum;

	links_stats(w, &sum);
	*sent = sum.bytes_out;
	*recv = sum.bytes_in;
}

/* Run the loop once; give up, naming the quietest server, after a timeout. */
void
links_step(struct worker *w, const char *what)
{
	struct link *quiet;
	size_t i;

	event_base_loop(w->base, EVLOOP_ONCE);
	failover_check(w);
	if (w->conf.silence > 0)
		links_keepalive(w, links_ping_every(w));
	if (ps_clock_now() - w->last_progress <= w->conf.timeout)
		return;
	quiet = w->links[0];
	for (i = 1; i < w->nlinks; i++)
		if (w->links[i]->last_rx < quiet->last_rx)
			quiet = w->links[i];
	fatalx(EX_UNAVAILABLE, "no answer for %.0f s from server %u (%s) while "
	    "waiting for %s", w->conf.timeout, quiet->index, quiet->addr, what);
}

/* Give up on a server silent for the timeout even while others talk. */
void
links_check_each(struct worker *w, const char *what)
{
	double now = ps_clock_now();
	size_t i;

	for (i = 0; i < w->nlinks; i++) {
		struct link *l = w->links[i];

		if (now - l->last_rx > w->conf.timeout)
			fatalx(EX_UNAVAILABLE, "no answer for %.0f s from server "
			    "%u (%s) while waiting for %s", w->conf.timeout,
			    l->index, l->addr, what);
	}
}

/* Start a message of this worker's under its ring: type, flags, t. */
void
links_msg(const struct worker *w, struct ps_msg *m, uint8_t type,
    uint8_t flags, uint64_t t)
{
	memset(m, 0, sizeof *m);
	m->type = type;
	m->flags = flags;
	m->sender = w->conf.id;
	m->timestamp = t;
	m->ring_version = w->ring.version;
}

/* Send m to every server. */
void
links_send_all(struct worker *w, const struct ps_msg *m)
{
	size_t s;

	for (s = 0; s < w->nlinks; s++)
		links_send(w, s, m);
}

/* Tell every server this worker is done. */
void
links_bye(struct worker *w)
{
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_BYE;
	m.flags = PS_MSG_F_NOKEYS;
	m.sender = w->conf.id;
	links_send_all(w, &m);
}

/* True when every server answered HELLO. */
int
links_all_hello(const struct worker *w)
{
	size_t i;

	for (i = 0; i < w->nlinks; i++)
		if (!w->links[i]->hello_ok)
			return 0;
	return 1;
}

/*
 * Run the loop until advance says the run is over; a timeout names what
 * it waited for: unit and *t, the oldest one unfinished.
 */
void
links_run(struct worker *w, int (*advance)(struct worker *),
    const char *unit, const uint64_t *t)
{
	char what[64];

	while (!advance(w)) {
		snprintf(what, sizeof what, "%s %llu", unit,
		    (unsigned long long)*t);
		links_step(w, what);
	}
}
