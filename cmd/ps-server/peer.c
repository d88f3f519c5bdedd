/*
 * peer.c: connections to ps-server: accepting them, the HELLO that makes a
 * connection a worker of the job (again under each new ring), dispatch of
 * each message by type (requests of an older ring from a worker are
 * dropped: it sends them again under the new one), the
 * plain-text "stats" command, and what happens when a peer goes away (a
 * worker of a job that waits for it: failover/rejoin.c; else the job
 * ends, job.c).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/util.h>

#include "server.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "wire/sockname.h"

static void peer_msg_cb(struct ps_conn *c, struct ps_msg *m, void *arg);
static void peer_text_cb(struct ps_conn *c, const char *line, void *arg);
static void peer_close_cb(struct ps_conn *c, const char *reason, void *arg);
static void peer_free(struct peer *p);

/*
 * Make room for one more connection: close the oldest that has not proved
 * itself (no HELLO or REPLICATE yet), so that silent sockets cannot lock
 * the job's peers out.  0, or -1 when every connection has proved itself.
 */
static int
peer_make_room(struct server *srv)
{
	struct peer *p;

	TAILQ_FOREACH(p, &srv->peers, entry)
		if (!p->proven)
			break;
	if (p == NULL)
		return -1;
	log_info("%s: closed to make room for a new connection (%d open)",
	    ps_conn_peer(p->conn), srv->nconns);
	srv->stats.conns_evicted++;
	peer_free(p);
	return 0;
}

void
peer_accept_cb(struct evconnlistener *lis, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct server *srv = arg;
	char name[128], err[256];
	struct peer *p;

	srv->stats.conns_total++;
	ps_sockaddr_name(sa, name, sizeof name);
	if (srv->nconns >= srv->max_conns && peer_make_room(srv) != 0) {
		log_warnx("%s: refused: %d connections already", name,
		    srv->nconns);
		srv->stats.conns_refused++;
		evutil_closesocket(fd);
		return;
	}
	p = xcalloc(1, sizeof *p);
	p->srv = srv;
	p->conn = ps_conn_new(srv->base, fd, name, peer_msg_cb, peer_text_cb,
	    peer_close_cb, p);
	ps_conn_set_keycache_recv(p->conn, srv->key_cache);
	ps_conn_set_max_frame(p->conn, srv->max_frame);
	ps_conn_set_pool(p->conn, srv->pool);
	if (srv->hello_timeout > 0)
		ps_conn_set_idle_limit(p->conn, srv->hello_timeout);
	srv->nconns++;
	TAILQ_INSERT_TAIL(&srv->peers, p, entry);
	log_debug("%s: connected", name);
	if (srv->have_secret && ps_conn_set_auth(p->conn, &srv->secret,
	    PS_AUTH_ACCEPTOR, err, sizeof err) != 0) {
		log_warnx("%s", err);
		srv->stats.auth_failures++;
		peer_free(p);
	}
}

/* Fold a connection's byte counters into the server totals. */
static void
peer_count(struct server *srv, struct peer *p)
{
	const struct ps_conn_stats *cs = ps_conn_stats(p->conn);

	srv->stats.bytes_in += cs->bytes_in;
	srv->stats.bytes_out += cs->bytes_out;
	srv->stats.msgs_in += cs->msgs_in;
	srv->stats.msgs_out += cs->msgs_out;
	ps_wire_sizes_add(&srv->stats.wire_in, &cs->in);
	ps_wire_sizes_add(&srv->stats.wire_out, &cs->out);
	srv->stats.keysig_hits += cs->keysig_hits;
	srv->stats.keysig_misses += cs->keysig_misses;
}

static void
peer_free(struct peer *p)
{
	struct server *srv = p->srv;

	peer_count(srv, p);
	if (p->is_worker && p->ch->job.workers != NULL &&
	    p->ch->job.workers[p->worker_id] == p)
		p->ch->job.workers[p->worker_id] = NULL;
	TAILQ_REMOVE(&srv->peers, p, entry);
	ps_conn_free(p->conn);
	srv->nconns--;
	free(p);
}

void
server_free_peers(struct server *srv)
{
	struct peer *p;

	while ((p = TAILQ_FIRST(&srv->peers)) != NULL)
		peer_free(p);
}

int
peer_send(struct peer *p, const struct ps_msg *m)
{
	return ps_conn_send(p->conn, m);
}

/* Send an ERROR frame with the text and close once it is flushed. */
void
peer_send_error(struct peer *p, const char *text)
{
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_ERROR;
	m.flags = PS_MSG_F_NOKEYS;
	m.blob = (char *)text;
	m.bloblen = strlen(text);
	ps_conn_send(p->conn, &m);
	ps_conn_close_after_flush(p->conn);
}

/* A peer broke the protocol: log it, tell it why, drop it (and the job). */
void
peer_fail(struct peer *p, const char *fmt, ...)
{
	char why[512], *msg;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	p->srv->stats.frames_rejected++;
	log_warnx("%s: %s", ps_conn_peer(p->conn), why);
	peer_send_error(p, why);
	if (p->is_worker && p->ch->job.active) {
		msg = xasprintf("worker %u (%s) broke the protocol: %s",
		    p->worker_id, ps_conn_peer(p->conn), why);
		p->is_worker = 0;
		job_abort(p->ch, msg);
		free(msg);
	}
	p->is_worker = 0;
}

/*
 * A HELLO for worker id from a new connection while its old one stands:
 * in a job that waits for its workers to come back, the old one is taken
 * for gone, as if it had dropped (its host was cut off silently, with no
 * FIN, and the worker was started again elsewhere), and freed; 1 if so.
 */
static int
peer_replace_worker(struct server *srv, struct peer *old, struct peer *p)
{
	char *why;
	int gone;

	why = xasprintf("replaced by a new connection from %s",
	    ps_conn_peer(p->conn));
	gone = srv->failover->worker_gone(old, why);
	free(why);
	if (gone)
		peer_free(old);
	return gone;
}

/* Check a HELLO against the job, starting the job with the first one. */
static void
peer_hello(struct server *srv, struct peer *p, const struct ps_msg *m)
{
	struct channel *ch = channel_get(srv, m->channel, 1);
	struct job *job;
	struct ps_hello h;
	struct ps_hello_ok said = { 0, 0, 0, -1 };
	struct ps_msg ok;
	char err[512];
	uint32_t id;

	if (ch == NULL) {
		peer_fail(p, "no channel %u (channels are 0 to %d)",
		    m->channel, SERVER_CHANNELS_MAX - 1);
		return;
	}
	job = &ch->job;
	if (ps_hello_decode(m, &h, err, sizeof err) != 0) {
		peer_fail(p, "malformed hello: %s", err);
		return;
	}
	id = h.worker_id;
	if (srv->failover->load_ring(srv, m->ring_version, err,
	    sizeof err) != 0) {
		peer_fail(p, "%s", err);
		return;
	}
	if (!job->active) {
		job_start(ch, &h);
	} else if (job_match(job, &h, err, sizeof err) != 0) {
		peer_fail(p, "hello does not match the job on channel %u: %s",
		    ch->id, err);
		return;
	}
	if (p->is_worker && p->ch == ch && p->worker_id == id &&
	    job->workers[id] == p) {
		/* The same worker under a new ring (failover/): say OK. */
	} else if (p->is_worker || (job->workers[id] != NULL &&
	    !peer_replace_worker(srv, job->workers[id], p))) {
		peer_fail(p, "worker %u is already connected", id);
		return;
	} else {
		job->nhello += !srv->failover->worker_hello(ch, p, &h, &said);
		job->workers[id] = p;
	}
	rounds_resumed(ch, &h);
	p->ch = ch;
	p->is_worker = 1;
	p->worker_id = id;
	log_info("%s: worker %u of %u", ps_conn_peer(p->conn), id, h.nworkers);
	memset(&ok, 0, sizeof ok);
	ok.type = PS_MSG_HELLO_OK;
	ok.flags = PS_MSG_F_NOKEYS;
	ok.ring_version = job->ring_version;
	ok.channel = ch->id;
	said.nnz = (double)ch->store.nnz;
	ps_hello_ok_encode(&said, &ok);
	peer_send(p, &ok);
}

/* A worker finished; the job ends when all of them did. */
static void
peer_bye(struct peer *p)
{
	struct channel *ch = p->ch;
	struct job *job = &ch->job;

	p->said_bye = 1;
	if (++job->nbye < job->nworkers)
		return;
	log_info("job on channel %u finished after %llu rounds: %llu keys, "
	    "%llu non-zero", ch->id, (unsigned long long)job->rounds_done,
	    (unsigned long long)ps_keytab_count(&ch->store.keys),
	    (unsigned long long)ch->store.nnz);
	job_end(ch);
}

/*
 * SAVE: write this server's model part now, or, from worker 0 of an sgd
 * job, a checkpoint (checkpoint.c, invariant 5).
 */
static void
peer_save(struct server *srv, struct peer *p, const struct ps_msg *m)
{
	char err[512];
	struct ps_msg reply;
	struct ps_save save;
	int bad = ps_save_decode(m, &save, err, sizeof err);

	if (save.ckpt) {
		if (!p->is_worker || p->worker_id != 0 ||
		    p->ch->id != m->channel) {
			peer_fail(p, "a checkpoint request that is not worker "
			    "0's of the channel's job");
			return;
		}
		if (bad != 0 || ckpt_sgd(p->ch, &save, err, sizeof err) != 0) {
			peer_fail(p, "%s", err);
			return;
		}
	} else if (srv->model_path == NULL) {
		peer_fail(p, "cannot save: server started without -o");
		return;
	} else if (channels_save(srv, err, sizeof err) != 0) {
		log_warnx("%s", err);
		peer_fail(p, "cannot save: %s", err);
		return;
	}
	memset(&reply, 0, sizeof reply);
	reply.type = PS_MSG_SAVE_OK;
	reply.flags = PS_MSG_F_NOKEYS;
	peer_send(p, &reply);
}

/*
 * A CURRENT pull names its channel; anyone may read one that exists.  A
 * dbpg or newton worker of its job asks for its start with a resume pull
 * (msg_round.h, failover/rejoin.c).
 */
static void
peer_pull_current(struct server *srv, struct peer *p, const struct ps_msg *m)
{
	struct channel *ch = channel_get(srv, m->channel, 0);
	char err[128];
	uint64_t round;
	int resume, bad;

	if (ch == NULL) {
		peer_fail(p, "no channel %u on this server", m->channel);
		return;
	}
	bad = ps_resume_pull_decode(m, &resume, &round, err, sizeof err);
	if (!(resume && p->is_worker && p->ch == ch &&
	    ch->job.algorithm != PS_ALG_SGD))
		round_pull_current(ch, p, m);
	else if (bad != 0)
		peer_fail(p, "%s", err);
	else
		srv->failover->resume_pull(ch, p, m, round);
}

/*
 * Who owns a message: its dispatcher.  peer_msg_cb takes each decoded
 * message from the conn and releases it once, after peer_route (the
 * drops, the admission and peer_dispatch) returned, whatever happened
 * there.  No handler releases the message it is given; one that keeps
 * its keys, values or blob past its return moves the whole message out
 * with ps_msg_take(), which leaves it empty (a round's pushes, round.c; a
 * resync that came before its ring, failover/replica.c).
 */

/* Hand an admitted message to its handler. */
static void
peer_dispatch(struct server *srv, struct peer *p, struct ps_msg *m)
{
	switch (m->type) {
	case PS_MSG_HELLO:
		peer_hello(srv, p, m);
		break;
	case PS_MSG_PUSH:
		if (p->ch->job.algorithm == PS_ALG_SGD)
			online_push(p->ch, p, m);
		else if (m->flags & PS_MSG_F_KEYSIG)
			round_push_unresolved(p->ch, p, m);
		else
			round_push(p->ch, p, m);
		break;
	case PS_MSG_PULL:
		if (m->flags & PS_MSG_F_CURRENT)
			peer_pull_current(srv, p, m);
		else if (p->ch->job.algorithm == PS_ALG_SGD)
			online_pull(p->ch, p, m);
		else
			round_pull(p->ch, p, m);
		break;
	case PS_MSG_BYE:
		peer_bye(p);
		break;
	case PS_MSG_SAVE:
		peer_save(srv, p, m);
		break;
	case PS_MSG_REPLICATE:
		srv->failover->replicate(srv, p, m);
		break;
	}
}

/*
 * Two kinds of message are dropped first, from their header alone: one
 * naming a key list the conn could not resolve (it comes again with its
 * keys) and a keyed request of an older ring (it comes again under the
 * new one).  Every other is admitted (rules.c): one that p may not send
 * now, or that is not shaped as its kind must be, fails p; the handlers
 * below rely on what admit.h guarantees.
 */
static void
peer_route(struct peer *p, struct ps_msg *m)
{
	struct server *srv = p->srv;
	char why[512];
	int keyed = m->type == PS_MSG_PUSH || m->type == PS_MSG_PULL;
	int job_only = m->type == PS_MSG_PUSH || m->type == PS_MSG_BYE ||
	    (m->type == PS_MSG_PULL && !(m->flags & PS_MSG_F_CURRENT));

	if ((m->flags & PS_MSG_F_KEYSIG) && m->type != PS_MSG_PUSH) {
		/* The conn asked for the keys; the peer sends it again. */
		log_info("%s: %s named an unknown key list; asked for its "
		    "keys", ps_conn_peer(p->conn), ps_msg_type_name(m->type));
		return;
	}
	if (keyed && p->ch != NULL && srv->failover->stale(srv, m)) {
		/*
		 * Sent by a worker (of this job, or of one that ended here
		 * when this server left the ring) before it took the new
		 * ring: it comes again, where the new ring says.
		 */
		srv->stats.stale_dropped++;
		log_debug("%s: dropped a %s of ring version %u",
		    ps_conn_peer(p->conn), ps_msg_type_name(m->type),
		    m->ring_version);
		return;
	}
	if (peer_admit(p, m, why, sizeof why) != 0) {
		peer_fail(p, "%s", why);
		return;
	}
	if (job_only && m->channel != p->ch->id) {
		peer_fail(p, "%s for channel %u, but the worker joined "
		    "channel %u", ps_msg_type_name(m->type), m->channel,
		    p->ch->id);
		return;
	}
	if (((m->type == PS_MSG_HELLO || keyed) &&
	    srv->failover->fence(srv, m, why, sizeof why) != 0) ||
	    (keyed && srv->failover->owns(srv, m->keys, m->nkeys, why,
	    sizeof why) != 0)) {
		peer_fail(p, "%s", why);
		return;
	}
	if (!p->proven && (m->type == PS_MSG_HELLO ||
	    m->type == PS_MSG_REPLICATE)) {
		p->proven = 1;
		ps_conn_set_idle_limit(p->conn, 0);
	}
	peer_dispatch(srv, p, m);
}

/* A decoded message from p: route it, then release it (see above). */
static void
peer_msg_cb(struct ps_conn *c, struct ps_msg *m, void *arg)
{
	peer_route(arg, m);
	ps_msg_release(m);
}

/*
 * Text protocol: "stats" answers memcached-style STAT lines; "checkpoint"
 * asks for a checkpoint (checkpoint.c).
 */
static void
peer_text_cb(struct ps_conn *c, const char *line, void *arg)
{
	struct peer *p = arg;
	char *text;

	if (strcmp(line, "stats") == 0) {
		text = server_stats_text(p->srv);
		ps_conn_send_text(c, text);
		free(text);
	} else if (strcmp(line, "checkpoint") == 0) {
		char err[256], *reply;

		reply = ckpt_request(p->srv, err, sizeof err) == 0 ?
		    xstrdup("checkpoint requested\r\nEND\r\n") :
		    xasprintf("CLIENT_ERROR %s: %s\r\n", p->srv->bound, err);
		ps_conn_send_text(c, reply);
		free(reply);
	} else if (strcmp(line, "quit") == 0) {
		ps_conn_close_after_flush(c);
	} else {
		ps_conn_send_text(c, "ERROR unknown command\r\n");
	}
}

static void
peer_close_cb(struct ps_conn *c, const char *reason, void *arg)
{
	struct peer *p = arg;
	struct server *srv = p->srv;
	char *why;

	if (p->is_worker && p->ch->job.active && !p->said_bye &&
	    srv->failover->worker_gone(p, reason != NULL ? reason :
	    "connection closed")) {
		/* The job waits for it to come back. */
	} else if (p->is_worker && p->ch->job.active && !p->said_bye) {
		why = xasprintf("worker %u (%s) went away: %s", p->worker_id,
		    ps_conn_peer(c), reason);
		p->is_worker = 0;
		job_abort(p->ch, why);
		free(why);
	} else if (ps_conn_idled_out(c)) {
		srv->stats.conns_idle++;
		log_info("%s: %s", ps_conn_peer(c), reason);
	} else if (ps_conn_is_auth_error(c)) {
		srv->stats.auth_failures++;
		log_warnx("%s: %s", ps_conn_peer(c), reason);
	} else if (reason != NULL && *reason != '\0') {
		if (ps_conn_is_protocol_error(c)) {
			srv->stats.frames_rejected++;
			log_warnx("%s: %s", ps_conn_peer(c), reason);
		} else {
			log_debug("%s: closed: %s", ps_conn_peer(c), reason);
		}
	}
	peer_free(p);
}
