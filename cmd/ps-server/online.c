/*
 * online.c: the server's side of asynchronous SGD (pskit(7), "The online
 * path"): each push of an online job is applied at once, key by key, by
 * FTRL-proximal or AdaGrad (ftrl.h) on the channel's store, which creates
 * a key the first time a push touches it.
 *
 * Invariants:
 *  1. A push's timestamp is the worker's mini-batch number, and each
 *     worker's pushes to this server must come with strictly increasing
 *     timestamps.  A push is applied only if its timestamp is at least
 *     next_t[worker], which then becomes timestamp + 1; a duplicate or
 *     older timestamp is refused with a logged reason, counted
 *     (pushes_refused) and not applied, so no push is applied twice.  The
 *     connection stays open: a resent push harms nothing once refused.
 *  2. A push is checked whole (its shape by rules.c; its timestamp,
 *     epochs and finite values here) before any key is touched: a
 *     malformed one changes nothing and ends the job (peer_fail), naming
 *     the peer.  So does one that would take the store over --max-keys,
 *     naming the limit.
 *  3. The push's scalar is the worker's epochs of data so far (rows pushed
 *     over its shard's rows).  The penalties in force are the job's
 *     per-epoch l1 and l2 times the epochs behind the state: those of the
 *     store when the job started (a job that starts from a model goes on
 *     from its epochs) plus the mean of the workers' latest epochs, which
 *     with equal shards is the epochs of the whole data set seen (ftrl.h,
 *     invariant 4); it never decreases.
 *  4. An online job's pulls name their keys with the CURRENT flag and are
 *     answered at once with the weights as they are (round_pull_current);
 *     a key no push touched yet has weight 0 and is not created.
 *  5. End barrier: a PULL naming no keys (NOKEYS) says the worker pushed
 *     its last mini-batch.  Such pulls are answered all together once every
 *     worker of the job sent one, after every weight was recomputed under
 *     the final penalties, so what the workers score is the final model.
 *  6. The barrier pull says the worker's mini-batches (its timestamp) and
 *     epochs of data (msg_online.h); once all are in, every server holds the
 *     same sums, so the model parts they save agree: its iteration is the
 *     mini-batches of all workers, its epochs (the store's, which a later
 *     job starts from) the store's before the job plus the mean of the
 *     workers'.  A pull without them leaves what the pushes said.
 *  8. Failover (pskit(7), "sgd failover"): with replicas, each applied
 *     push's keys go, as their new (w, z, n), to the key's replicas
 *     (failover/replica.c), and each reply to the worker's pulls says
 *     below which timestamp its pushes are held there (onlineack.c): a
 *     push is acknowledged once they are.  After a ring change the
 *     worker sends its unacknowledged pushes again to their keys' new
 *     servers.  A key then already holds a push when the server that
 *     served it under the previous ring had applied it: this one
 *     (next_t), or one whose pushes it followed as a replica (its
 *     origin's floor, from what that server replicated or said).  Such
 *     keys are left out of the push, the others applied, so each key
 *     takes each push once; a floor is raised past each push applied
 *     here.  Without a previous ring invariant 1 alone holds.
 *  7. A worker that goes away in a job that waits for it (rejoin.c) and
 *     comes back resumes at next_t, the mini-batch after the last one of
 *     its applied here; its worker takes the lowest such point over the
 *     servers, and pushes from there again: a server that applied one of
 *     them refuses it by invariant 1, so no push is applied twice, and
 *     pushes of the old process that were still in flight were either
 *     read before its connection closed (and counted in next_t) or were
 *     lost with it.  Its epochs of data are as they were; if it was at
 *     the end barrier, it is taken off it until it comes there again,
 *     and answered at once then if the others passed it meanwhile.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* The optimiser with the penalties in force now (invariant 3). */
static struct ps_ftrl
online_opt(const struct channel *ch)
{
	const struct online *on = &ch->job.online;
	struct ps_ftrl opt = on->opt;
	double epochs = on->base + on->epochs_sum / ch->job.nworkers;

	opt.l1 *= epochs;
	opt.l2 *= epochs;
	return opt;
}

/* The first HELLO started an online job: per-worker state, optimiser arrays. */
void
online_start(struct channel *ch)
{
	struct online *on = &ch->job.online;
	struct ps_ftrl opt;

	on->next_t = xcalloc(ch->job.nworkers, sizeof *on->next_t);
	on->epochs = xcalloc(ch->job.nworkers, sizeof *on->epochs);
	on->epochs_sum = 0;
	on->batches = xcalloc(ch->job.nworkers, sizeof *on->batches);
	on->done = xcalloc(ch->job.nworkers, sizeof *on->done);
	on->ndone = 0;
	on->passed = 0;
	on->base = ch->store.z != NULL ? ch->store.epochs : 0;
	opt = online_opt(ch);
	store_online_begin(&ch->store, &opt);
	ch->store.optimizer = opt.opt;	/* keys handed over came without */
}

/*
 * Invariant 7: worker id went away (rejoin.c): if it waited at the end
 * barrier, it waits there no longer.
 */
void
online_gone(struct channel *ch, uint32_t id)
{
	struct online *on = &ch->job.online;

	if (on->done[id] == NULL)
		return;
	on->done[id] = NULL;
	on->ndone--;
}

/* Invariant 7: where worker id resumes, coming back: its next push. */
uint64_t
online_resume_point(const struct channel *ch, uint32_t id)
{
	return ch->job.online.next_t[id];
}

/* The job ended: drop its online state; the store keeps (z, n). */
void
online_clear(struct channel *ch)
{
	struct online *on = &ch->job.online;

	online_waits_clear(ch);
	online_origins_free(ch);
	free(on->next_t);
	free(on->epochs);
	free(on->batches);
	free(on->done);
	memset(on, 0, sizeof *on);
}

/*
 * Invariant 2: 0 and its epochs of data if m is a well-formed online
 * push, else fail the peer.
 */
static int
online_check_push(struct peer *p, const struct ps_msg *m, double *epochs)
{
	char err[128];
	uint32_t k;

	if (m->flags & PS_MSG_F_KEYSIG) {
		peer_fail(p, "sgd push %llu names a key list this connection "
		    "does not hold (sgd jobs send their keys)",
		    (unsigned long long)m->timestamp);
		return -1;
	}
	if (ps_sgd_push_decode(m, epochs, err, sizeof err) != 0) {
		peer_fail(p, "%s", err);
		return -1;
	}
	for (k = 0; k < m->nkeys; k++) {
		if (!isfinite(m->vals[k])) {
			peer_fail(p, "malformed sgd push %llu: gradient %g for "
			    "key %llu", (unsigned long long)m->timestamp,
			    (double)m->vals[k], (unsigned long long)m->keys[k]);
			return -1;
		}
	}
	return 0;
}

/* Invariant 8: what the server at addr was said to apply, NULL if nothing. */
static struct online_origin *
online_origin(const struct channel *ch, const char *addr)
{
	size_t i;

	for (i = 0; i < ch->norigins; i++)
		if (strcmp(ch->origins[i].addr, addr) == 0)
			return &ch->origins[i];
	return NULL;
}

/* Invariant 8: the server at addr applied worker's pushes below below. */
void
online_origin_said(struct channel *ch, const char *addr, uint32_t worker,
    uint64_t below)
{
	struct online_origin *o = online_origin(ch, addr);

	if (o == NULL) {
		ch->origins = xreallocarray(ch->origins, ch->norigins + 1,
		    sizeof *ch->origins);
		o = &ch->origins[ch->norigins++];
		o->addr = xstrdup(addr);
		o->next = NULL;
		o->n = 0;
	}
	if (worker >= o->n) {
		o->next = xreallocarray(o->next, (size_t)worker + 1,
		    sizeof *o->next);
		memset(o->next + o->n, 0, (worker + 1 - o->n) * sizeof *o->next);
		o->n = worker + 1;
	}
	if (below > o->next[worker])
		o->next[worker] = below;
}

void
online_origins_free(struct channel *ch)
{
	size_t i;

	for (i = 0; i < ch->norigins; i++) {
		free(ch->origins[i].addr);
		free(ch->origins[i].next);
	}
	free(ch->origins);
	ch->origins = NULL;
	ch->norigins = 0;
}

/* Invariant 8: worker id's pushes below this are in key's state here. */
static uint64_t
online_key_floor(const struct channel *ch, uint32_t id, uint64_t key)
{
	const struct server *srv = ch->srv;
	const struct online_origin *o;
	const char *was;

	if (!srv->have_prev_ring || srv->prev_ring.nservers == 0)
		return ch->job.online.next_t[id];
	was = srv->prev_ring.servers[ps_ring_lookup(&srv->prev_ring, key)].addr;
	if (strcmp(was, srv->bound) == 0)
		return ch->job.online.next_t[id];
	o = online_origin(ch, was);
	return o != NULL && id < o->n ? o->next[id] : 0;
}

/*
 * Invariant 8: the range of worker id's floors here: below lo no key
 * takes a push, from hi on every key does.
 */
static void
online_floors(const struct channel *ch, uint32_t id, uint64_t *lo,
    uint64_t *hi)
{
	uint64_t mine = ch->job.online.next_t[id];
	size_t i;

	*lo = *hi = mine;
	if (!ch->srv->have_prev_ring)
		return;
	for (i = 0; i < ch->norigins; i++) {
		uint64_t f = id < ch->origins[i].n ? ch->origins[i].next[id] : 0;

		*lo = f < *lo ? f : *lo;
		*hi = f > *hi ? f : *hi;
	}
}

/* Invariant 8: every floor of worker id past push t, which was applied. */
static void
online_floors_raise(struct channel *ch, uint32_t id, uint64_t t)
{
	size_t i;

	if (t + 1 > ch->job.online.next_t[id])
		ch->job.online.next_t[id] = t + 1;
	/* Each origin gets the worker, so no floor of 0 is left below t. */
	for (i = 0; i < ch->norigins; i++)
		online_origin_said(ch, ch->origins[i].addr, id, t + 1);
}

/* Invariant 1: a push none of whose keys may take it, refused. */
static void
online_refuse(struct channel *ch, struct peer *p, const struct ps_msg *m)
{
	uint64_t next = ch->job.online.next_t[p->worker_id];

	log_warnx("%s: push %llu of worker %u refused: %s timestamp, "
	    "pushes up to %llu were applied", ps_conn_peer(p->conn),
	    (unsigned long long)m->timestamp, p->worker_id,
	    m->timestamp + 1 == next ? "duplicate" : "out-of-order",
	    (unsigned long long)(next - 1));
	ch->srv->stats.pushes_refused++;
	ps_trace_event(ch->srv->trace, NULL, 0, "refused\t%u\t%u\t%llu",
	    ch->id, p->worker_id, (unsigned long long)m->timestamp);
}

/*
 * Apply push m's gradients to the keys that lack it (all if every is
 * true, else by invariant 8); the slots applied to, and their count.
 */
static uint32_t *
online_apply(struct channel *ch, struct peer *p, const struct ps_msg *m,
    int every, size_t *n)
{
	struct store *st = &ch->store;
	struct ps_ftrl opt = online_opt(ch);
	uint32_t *slots = xcalloc(m->nkeys + 1, sizeof *slots), k, s;

	*n = 0;
	for (k = 0; k < m->nkeys; k++) {
		if (!every && m->timestamp < online_key_floor(ch,
		    p->worker_id, m->keys[k]))
			continue;
		s = store_slot(st, m->keys[k]);
		store_set(st, s, (float)ps_ftrl_update(&opt, &st->z[s],
		    &st->n[s], store_w(st, s), m->vals[k]));
		slots[(*n)++] = s;
	}
	return slots;
}

/* Trace and count the n keys of slots push m was applied to. */
static void
online_applied(struct channel *ch, struct peer *p, const struct ps_msg *m,
    const uint32_t *slots, size_t n)
{
	struct server_stats *stats = &ch->srv->stats;
	uint64_t *keys = xcalloc(n + 1, sizeof *keys);
	size_t k;

	for (k = 0; k < n; k++)
		keys[k] = ps_keytab_key(&ch->store.keys, slots[k]);
	if (n < m->nkeys)
		log_info("%s: push %llu of worker %u: %u of its keys held it "
		    "already (taken over), applied to the other %zu",
		    ps_conn_peer(p->conn), (unsigned long long)m->timestamp,
		    p->worker_id, m->nkeys - (uint32_t)n, n);
	ps_trace_event(ch->srv->trace, keys, n, "push\t%u\t%u\t%llu",
	    ch->id, p->worker_id, (unsigned long long)m->timestamp);
	free(keys);
	ch->job.rounds_done++;
	stats->pushes++;
	stats->keys_pushed += n;
}

/* Apply a push at once (invariants 1 and 8). */
void
online_push(struct channel *ch, struct peer *p, const struct ps_msg *m)
{
	struct online *on = &ch->job.online;
	uint32_t id = p->worker_id, *slots;
	double *epochs = &on->epochs[id];
	uint64_t lo, hi;
	char err[256];
	double said;
	size_t n;
	int frames;

	if (online_check_push(p, m, &said) != 0)
		return;
	if (store_room(&ch->store, m->keys, m->nkeys, ch->srv->max_keys, err,
	    sizeof err) != 0) {
		job_abort(ch, err);
		return;
	}
	online_floors(ch, id, &lo, &hi);
	if (m->timestamp < lo) {
		online_refuse(ch, p, m);
		return;
	}
	if (said > *epochs) {
		on->epochs_sum += said - *epochs;
		*epochs = said;
	}
	slots = online_apply(ch, p, m, m->timestamp >= hi, &n);
	online_floors_raise(ch, id, m->timestamp);
	online_applied(ch, p, m, slots, n);
	frames = ch->srv->failover->push_done(ch, id, m->timestamp, slots, n);
	free(slots);
	if (frames < 0)
		job_abort(ch, "a replica cannot be reached");
	else if (frames > 0)
		online_wait_add(ch, id, m->timestamp, (uint32_t)frames);
}

/*
 * Invariant 6: what worker id's barrier pull says: its mini-batches (the
 * timestamp) and its epochs of data (msg_online.h), which every server
 * then holds alike.
 */
static void
online_barrier_counts(struct channel *ch, uint32_t id, const struct ps_msg *m)
{
	struct online *on = &ch->job.online;
	double epochs = ps_barrier_pull_decode(m);	/* NAN: not said */

	on->batches[id] = m->timestamp;
	if (epochs > on->epochs[id])
		on->epochs[id] = epochs;
}

/*
 * Invariant 6: every worker is at the barrier: the epochs seen, summed in
 * worker order, and the mini-batches of all, the same on every server.
 */
static void
online_barrier_sums(struct channel *ch)
{
	struct online *on = &ch->job.online;
	uint64_t batches = 0;
	uint32_t i;

	on->epochs_sum = 0;
	for (i = 0; i < ch->job.nworkers; i++) {
		on->epochs_sum += on->epochs[i];
		batches += on->batches[i];
	}
	ch->store.epochs = on->base + on->epochs_sum / ch->job.nworkers;
	ch->job.rounds_done = batches;
}

/* Invariant 5: the reply to the end barrier's pulls. */
static void
online_barrier_reply(const struct channel *ch, struct ps_msg *reply)
{
	struct ps_current_reply said = { 0, 0, 0, UINT64_MAX };

	memset(reply, 0, sizeof *reply);
	reply->type = PS_MSG_PULL_REPLY;
	reply->flags = PS_MSG_F_NOKEYS;
	reply->ring_version = ch->job.ring_version;
	said.l1 = ch->store.l1;
	said.nnz = (double)ch->store.nnz;
	ps_current_reply_encode(&said, reply);
}

/*
 * Invariant 5: the end barrier.  A worker that comes back to it after it
 * was passed (invariant 7) is answered at once.
 */
void
online_pull(struct channel *ch, struct peer *p, const struct ps_msg *m)
{
	struct online *on = &ch->job.online;
	struct ps_msg reply;

	if (on->done[p->worker_id] != NULL) {
		peer_fail(p, "worker %u reached the end twice", p->worker_id);
		return;
	}
	on->done[p->worker_id] = p;
	online_barrier_counts(ch, p->worker_id, m);
	on->ndone++;
	if (on->passed) {
		online_barrier_reply(ch, &reply);
		peer_send(p, &reply);
		return;
	}
	if (on->ndone < ch->job.nworkers)
		return;
	if (online_hold_barrier(ch))
		return;		/* onlineack.c passes it once all is held */
	online_barrier_pass(ch);
}

/* Invariant 5: every worker is at the end and every push held: pass. */
void
online_barrier_pass(struct channel *ch)
{
	struct online *on = &ch->job.online;
	struct ps_ftrl opt;
	struct ps_msg reply;
	uint32_t i;

	online_barrier_sums(ch);
	ch->handed = 0;		/* this server's own sums from now on */
	opt = online_opt(ch);
	store_online_refresh(&ch->store, &opt);
	online_barrier_reply(ch, &reply);
	for (i = 0; i < ch->job.nworkers; i++)
		peer_send(on->done[i], &reply);
	on->passed = 1;
	log_info("job on channel %u: every worker pushed its last "
	    "mini-batch; l1 %g, l2 %g at the end", ch->id, opt.l1, opt.l2);
}

/*
 * Invariant 8: the server took a new ring over during an sgd job: the
 * pushes awaiting replicas are dropped (onlineack.c), and so are the
 * workers at the end barrier unless it passed (they come there again
 * under the new ring).
 */
void
online_ring_changed(struct channel *ch)
{
	struct server *srv = ch->srv;
	struct job *job = &ch->job;
	struct online *on = &job->online;
	uint32_t i;

	if (!job->active || job->algorithm != PS_ALG_SGD)
		return;
	online_waits_clear(ch);
	for (i = 0; i < job->nworkers; i++)
		on->done[i] = NULL;
	on->ndone = 0;
	job->ring_changes++;
	job->ring_version = srv->ring.version;
	job->server_index = (uint32_t)srv->ring_index;
	job->nservers = (uint32_t)srv->ring.nservers;
	log_info("channel %u: ring version %u: the workers send their "
	    "unacknowledged pushes and their pulls again", ch->id,
	    srv->ring.version);
}
