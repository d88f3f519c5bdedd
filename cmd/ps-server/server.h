/*
 * server.h: the parts of ps-server and what they share.
 *
 * A server holds one or more channels (channel.c), each an independent
 * weight vector with its own job: the keys workers send it (store.c) and,
 * for Algorithm 2, each round's pushes from every worker of the job,
 * aggregated before the proximal step and the round's pulls (round.c); for
 * the online path, each push applied at once by FTRL or AdaGrad (online.c).
 * It takes connections and dispatches their messages (peer.c), keeps the
 * job its workers run (job.c), writes checkpoints (checkpoint.c) and
 * starts from a model (startmodel.c).
 *
 * That is the serving path.  What keeps a job going when a server or a
 * worker goes is in failover/ (failover/failover.h): the coordinator's
 * ring and who owns a key, replicas, handoff, workers that come back
 * after going away or being silent too long.
 * Failover calls the serving path directly; the serving path calls
 * failover only through struct failover_ops below, which ps-server.c
 * hands to server_open.  So the calls between them run one way.
 * All of it runs on one libevent loop in one thread.
 */
#ifndef PS_SERVER_H
#define PS_SERVER_H

#include <sys/queue.h>

#include <stdint.h>
#include <time.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "algo/ftrl.h"
#include "cluster/coord.h"
#include "cluster/hello.h"
#include "cluster/ring.h"
#include "model/model.h"
#include "util/clock.h"
#include "util/keytab.h"
#include "util/sparse.h"
#include "util/stamp16.h"
#include "util/trace.h"
#include "wire/auth.h"
#include "wire/conn.h"
#include "wire/msg_ctl.h"
#include "wire/msg_online.h"
#include "wire/msg_round.h"
#include "wire/wire.h"

struct ps_zk_member;

struct server;
struct channel;
struct peer;

/*
 * What the serving path asks of failover (failover/failover.c fills it
 * in; each entry names the function it is).
 */
struct failover_ops {
	/* owner.c: the ring a job runs under, and who owns what. */
	int	(*load_ring)(struct server *, uint32_t version, char *err,
		    size_t errlen);
	int	(*stale)(const struct server *, const struct ps_msg *);
	int	(*fence)(const struct server *, const struct ps_msg *,
		    char *err, size_t errlen);
	int	(*owns)(const struct server *, const uint64_t *keys,
		    size_t n, char *err, size_t errlen);
	/* rejoin.c: dbpg workers that went away and come back. */
	void	(*job_start)(struct channel *, const struct ps_hello *);
	void	(*job_end)(struct channel *);
	int	(*worker_hello)(struct channel *, struct peer *,
		    const struct ps_hello *, struct ps_hello_ok *said);
	int	(*worker_gone)(struct peer *, const char *reason);
	void	(*resume_pull)(struct channel *, struct peer *,
		    const struct ps_msg *, uint64_t round);
	/* replica.c: a round's result to the replicas, and their copies. */
	int	(*round_done)(struct channel *, uint64_t t,
		    const uint32_t *slots, size_t nslots);
	int	(*push_done)(struct channel *, uint32_t worker, uint64_t t,
		    const uint32_t *slots, size_t nslots);
	void	(*replicate)(struct server *, struct peer *,
		    struct ps_msg *);
	void	(*resync)(struct channel *);
	void	(*release)(struct server *);
};

/* One connection: a worker once it said HELLO, else an anonymous client. */
struct peer {
	struct server		*srv;
	struct ps_conn		*conn;
	struct channel		*ch;		/* the worker's channel */
	int			 is_worker;
	uint32_t		 worker_id;
	int			 said_bye;
	int			 proven;	/* a HELLO or REPLICATE was taken:
						   no idle limit, never evicted */
	double			 silence;	/* a worker's silence limit, as
						   its HELLO said (rejoin.c) */
	TAILQ_ENTRY(peer)	 entry;
};
TAILQ_HEAD(peer_list, peer);

/*
 * store.c: the bits of a slot's flags: its KKT verdicts, whether its trust
 * radius before its last round was twice the current one (store.c,
 * store_trust_before()), and above them its momentum streak (prox.h; at
 * most PS_STREAK_MAX, 5 bits).
 */
#define STORE_GSMALL		1
#define STORE_GSMALL_PREV	2
#define STORE_VERDICTS		(STORE_GSMALL | STORE_GSMALL_PREV)
#define STORE_TRUST_HALVED	4
#define STORE_STREAK_SHIFT	3

/* store.c: the server's keys and per-key state, in slot order. */
struct store {
	struct ps_keytab	 keys;
	struct ps_sparse	 w;		/* weight (store_w()), held where it
						   is not +0: an l1 model's weights
						   are 0 on most keys */
	uint16_t		*trust;		/* trust radius (ps_trust_pack()) */
	struct ps_stamp16	 mark;		/* last round (t + 1) that touched
						   the slot (store_mark()) */
	uint8_t			*flags;		/* STORE_GSMALL: the gradient sum of
						   the slot's last round was within
						   the KKT threshold (round.c, 3), as
						   a new slot's 0 is; _PREV: of the
						   round before (with wprev);
						   _HALVED (trustprev); and the
						   streak (store_streak()) */
	struct ps_sparse	 xprox;		/* the step's result behind w, which
						   momentum extrapolates (prox.h, 4) */
	struct ps_sparse	 wprev;		/* w and trust before the slot's */
	struct ps_sparse	 trustprev;	/* last round, for workers that come
						   back (failover/rejoin.c): the trust
						   only where it was neither the
						   current one nor (_HALVED) twice it */
	int			 keep_prev;	/* whether the job keeps them */
	float			*sent;		/* [slot * nsent + worker]: weight last
						   sent (significantly-modified filter) */
	uint32_t		 nsent;		/* workers in sent; 0 until first used */
	double			*z, *n;		/* optimiser state (ftrl.h); NULL unless
						   the weights are an online job's */
	int			 optimizer;	/* with z: whose state it is */
	double			 epochs;	/* with z: epochs of data behind it */
	size_t			 cap;		/* allocated entries per array */
	double			 gsmall_kkt;	/* the threshold gsmall is of */
	double			 l1;		/* sum |w| */
	uint64_t		 nnz;		/* count of w != 0 */
};

/* round.c: a completed round's result, kept for replays (see round.c). */
struct round_done {
	uint64_t		 t;		/* the round, plus one; 0: empty */
	struct ps_round_result	 result;
};
#define ROUND_HISTORY	4096

/*
 * round.c: one timestamp of the job.  A round completes when every worker
 * pushed; its pulls are answered from then on and it is freed once every
 * worker pulled.
 */
struct round {
	uint64_t		 t;
	uint32_t		 npushes, npulls;
	struct ps_msg		*pushes;	/* [nworkers], by worker id */
	uint32_t		**slots;	/* [nworkers]: each push's keys' slots,
						   from when it is held (a dbpg
						   round's on arrival, its keys then
						   freed) or summed, NULL before
						   (replies check them: a push may
						   change) */
	uint32_t		*nslots;	/* [nworkers]: keys in slots[w] */
	uint8_t			*resend;	/* [nworkers]: push dropped for an
						   unknown key list, resend due */
	double			*theta;		/* [nworkers]: the pull's filter
						   threshold, NAN for none */
	uint8_t			*settled;	/* [nworkers]: push already applied
						   here (a replay after a ring
						   change), answered at once */
	uint8_t			*answered;	/* [nworkers]: pull answered */
	uint8_t			*again;		/* [nworkers]: the worker came back
						   and took this round's weights
						   before its pull (failover/rejoin.c) */
	int			 replay;	/* held only to answer a returning
						   worker's pushes again */
	int			 done;
	uint32_t		 acks;		/* REPLICATE_OK still awaited */
	struct ps_round_result	 result;	/* what its pull replies carry */
	int			 has_result;	/* result holds something */
	int			 ckpt;		/* a worker asked for a checkpoint
						   after it (checkpoint.c) */
	struct peer		**waiting;	/* pullers that came before done */
	size_t			 nwaiting;
	double			*sums;		/* newton.c: a sums round's, 2 a key */
	uint32_t		**pos;		/* [nworkers]: each push's keys'
						   places in sums */
	TAILQ_ENTRY(round)	 entry;
};

TAILQ_HEAD(round_list, round);

/* onlineack.c: an sgd push applied here not yet held by every replica. */
struct online_wait {
	uint32_t		 worker;
	uint64_t		 t;
	uint32_t		 acks;		/* REPLICATE_OK still awaited */
};

/*
 * online.c: what this server knows another one applied of each worker's
 * sgd pushes: below next[worker], from the pushes it replicated here and
 * the floors it sent after a ring change (failover/replica.c).  The keys
 * that server served are taken over with those pushes in them.
 */
struct online_origin {
	char			*addr;
	uint64_t		*next;		/* [n] */
	uint32_t		 n;
};

/*
 * online.c: an online job's optimiser and, per worker, the lowest push
 * timestamp it may still send (each push is applied once, in order), its
 * epochs of data pushed, and the workers waiting at the end barrier.
 */
struct online {
	struct ps_ftrl		 opt;		/* l1, l2 per epoch of data */
	double			 base;		/* the store's epochs at the start */
	uint64_t		*next_t;	/* [nworkers] */
	double			*epochs;	/* [nworkers] */
	double			 epochs_sum;
	uint64_t		*batches;	/* [nworkers], said at the barrier */
	struct peer		**done;		/* [nworkers], NULL until it finished */
	uint32_t		 ndone;
	int			 passed;	/* all were there: the barrier's
						   replies went out */
	int			 barrier_held;	/* all are there, pushes not yet
						   held by the replicas */
	struct online_wait	*waits;		/* [nwaits], by arrival */
	size_t			 nwaits;
};

/* The job the connected workers run; set by the first HELLO. */
struct job {
	int			 active;
	int			 algorithm;	/* enum ps_algorithm (hello.h) */
	uint32_t		 nworkers;
	double			 lambda;
	double			 kkt;		/* KKT filter: inactive when w = 0 and
						   |G| <= kkt; 0 is off */
	uint32_t		 server_index, nservers, ring_version;
	struct peer		**workers;	/* [nworkers], NULL until HELLO */
	uint32_t		 nhello, nbye;
	uint64_t		 rounds_done;
	uint64_t		 last_round;
	uint64_t		 iter_base;	/* iteration of the model the job
						   started from (checkpoint.c) */
	struct round_list	 rounds;
	struct round_done	*history;	/* [ROUND_HISTORY], by t */
	unsigned		 ring_changes;	/* during this job */
	uint64_t		 replay_below;	/* rounds that may be replays (round.c,
						   invariant 7); 0: none */
	struct online		 online;	/* algorithm sgd only */
	uint64_t		 grads_gathered; /* newton: the iteration of
						   the last gradient round
						   gathered, + 1 (newton.c) */
	/* failover/rejoin.c: workers that went away and may come back. */
	double			 started;	/* when the first HELLO came */
	double			 rejoin_wait;	/* seconds; 0: abort at once */
	struct event		*rejoin_timer;
	double			*gone_at;	/* [nworkers]: when, or 0 */
	uint64_t		*pushed_below;	/* [nworkers]: last round pushed + 1 */
	uint64_t		*again_below;	/* [nworkers]: rounds a returning
						   worker pushes again */
	uint64_t		*resumed_at;	/* [nworkers]: where it resumed */
};

/*
 * channel.c: one weight vector and the job that trains it, named by the
 * frame header's channel field (a model being served on one channel while
 * another is trained, say).  Created by the first HELLO or SAVE naming it.
 */
#define SERVER_CHANNELS_MAX	16
/*
 * What a key costs a server, with room to spare: store.c's arrays (12
 * bytes, 2 more when workers may rejoin, and the momentum's step result
 * and the weight before a round on the keys where they are not 0, or 4
 * bytes each on every key once many are, util/sparse.h), the
 * key table (4 while the keys fit in 32 bits, else 8, and 4-8 of
 * buckets), two workers' cached key lists (2-4 bytes a key each) and a
 * round's frames; peak RSS over keys held measured 35-38 on 4M and 1M
 * generated rows (tests/bench/README).
 */
#define SERVER_KEY_BYTES	80
/*
 * The most keys a channel may hold (--max-keys): round.c's sums number
 * them in 31 bits, and a round's other pushes may add as many again.
 */
#define SERVER_KEYS_MAX		(UINT64_C(1) << 30)
#define SERVER_EARLY_MAX	65536

struct channel {
	struct server		*srv;
	uint32_t		 id;
	struct store		 store;
	struct store		 replica;	/* copies of others' keys */
	struct job		 job;
	struct online_origin	*origins;	/* [norigins], this job's */
	size_t			 norigins;
	int			 handed;	/* sgd keys were handed over here
						   and the end barrier has not
						   passed here since: a saved
						   part says what the sender's
						   would (channel.c) */
	double			 handed_epochs, handed_lambda;
	uint64_t		 handed_iteration;
};

/* failover/replica.c: a REPLICATE's values per key: weight, trust
   radius, last G, the momentum's x and streak (prox.h, 4). */
#define REPLICA_WIDTH	5

/* failover/replica.c: a link to another server of the ring. */
struct replica_link {
	struct server		*srv;
	size_t			 index;		/* in srv->ring.servers */
	struct ps_conn		*conn;		/* NULL until used, or closed */
};

/* checkpoint.c: where checkpoints go, and the model a job starts from. */
struct ckpt_conf {
	const char		*dir;		/* -k, or NULL: none */
	unsigned		 keep;		/* sealed versions kept */
	int			 wanted;	/* a checkpoint was asked for */
	struct ps_model		 init;		/* -i, until the first job */
	int			 have_init;
};

struct server_stats {
	uint64_t	conns_total, conns_refused, frames_rejected;
	uint64_t	auth_failures;		/* connections that failed it */
	uint64_t	conns_idle;		/* closed by --hello-timeout */
	uint64_t	ckpt_failed;		/* checkpoints not written */
	uint64_t	conns_evicted;		/* closed to make room (peer.c) */
	uint64_t	bytes_in, bytes_out, msgs_in, msgs_out;
	uint64_t	pushes, pulls, keys_pushed, keys_pulled;
	uint64_t	sigmod_in, sigmod_out;	/* pull entries before, after */
	uint64_t	kkt_marked;		/* keys sent as inactive */
	uint64_t	push_resends;		/* pushes dropped: unknown keys */
	struct ps_wire_sizes wire_in, wire_out;	/* of closed connections */
	uint64_t	keysig_hits, keysig_misses;
	uint64_t	pushes_refused;
	uint64_t	replicate_msgs_out, replicate_keys_out;
	uint64_t	replicate_msgs_in, replicate_keys_in;
	uint64_t	stale_dropped;		/* requests of an older ring */
	uint64_t	handoff_keys_in;	/* keys taken from an old primary */
	uint64_t	replays_settled;	/* pushes already applied */
	uint64_t	workers_gone, workers_back;	/* failover/rejoin.c */
};

struct server {
	struct event_base	*base;
	const struct failover_ops *failover;	/* see the top */
	struct evconnlistener	*listener;
	char			 bound[128];
	const char		*model_path;	/* -o, or NULL */
	const char		*ring_path;	/* -r, or NULL: accept any key */
	const char		*coord_addr;	/* -C or -Z, or NULL */
	const char		*zk_connect;	/* -Z, or NULL */
	struct ps_zk_member	*zk_member;	/* -Z: our znode, the leader */
	int			 standby;	/* --standby: wait for ps-ring add */
	int			 lifeline;	/* --lifeline: stdin's EOF ends us */
	const char		*trace_path;	/* --trace, or NULL */
	struct ps_trace		*trace;		/* and its events (trace.h) */
	struct ps_coord_node	*coord;		/* the link to it (failover/) */
	int			 coord_lost;	/* no coordinator now */
	int			 coord_cut;	/* cut off from it: refuse keys */
	double			 coord_wait;	/* --coordinator-wait seconds */
	struct ps_ring		 ring;		/* -r: loaded at the first HELLO;
						   -C: the latest version */
	int			 have_ring;
	struct ps_ring		 prev_ring;	/* the one before, if any: who
						   served a key before (online.c) */
	int			 have_prev_ring;
	int			 in_ring;	/* this server is in it */
	size_t			 ring_index;	/* and its place there */
	struct replica_link	*rlinks;	/* [nrlinks], by ring index */
	size_t			 nrlinks;
	struct ps_msg		*early;		/* [nearly] resyncs stamped with a
						   ring this server does not hold
						   yet (failover/replica.c) */
	size_t			 nearly;	/* at most SERVER_EARLY_MAX */
	size_t			 handoff_acks;	/* handoff frames unanswered */
	double			 handoff_started;
	int			 max_conns;
	unsigned int		 hello_timeout;	/* ms a new peer may stay silent */
	size_t			 max_frame;	/* -m: payload bytes per frame */
	struct ps_secret	 secret;	/* -a: every peer proves it, and
						   so does this server to -C */
	int			 have_secret;
	int			 exit_status;	/* why the loop was ended, or 0 */
	size_t			 key_cache;	/* keys cached per connection */
	size_t			 max_buffered;	/* --max-buffered: bytes all
						   peers hold (conn.h pool) */
	struct ps_conn_pool	*pool;
	uint64_t		 max_keys;	/* --max-keys: a channel's store */
	double			 momentum;	/* --momentum: prox.h, invariant 4 */
	int			 nconns;
	time_t			 started;
	struct channel		*channels[SERVER_CHANNELS_MAX];
	struct peer_list	 peers;
	struct server_stats	 stats;
	struct ckpt_conf	 ckpt;
};

/* store.c */
void	store_init(struct store *st);
void	store_release(struct store *st);
uint32_t store_slot(struct store *st, uint64_t key);
void	store_slots(struct store *st, const uint64_t *keys, size_t n,
	    uint32_t *slots);
float	store_get(const struct store *st, uint64_t key);
void	store_set(struct store *st, uint32_t slot, float w);
void	store_copy_key(struct store *dst, const struct store *src,
	    uint32_t s);
void	store_set_mark(struct store *st, uint32_t s, uint64_t mark);
void	store_sort_by_mark(const struct store *st, uint32_t *slots,
	    size_t n);
void	store_sent_reset(struct store *st, uint32_t nworkers);
void	store_gsmall_reset(struct store *st, double kkt);
void	store_sent_forget(struct store *st, uint32_t worker);
void	store_keep_prev(struct store *st);
uint16_t store_keep_prev_slot(struct store *st, uint32_t s);
void	store_set_trust_before(struct store *st, uint32_t s, uint16_t before);
float	store_trust_before(const struct store *st, uint32_t s);
void	store_online_begin(struct store *st, const struct ps_ftrl *opt);
void	store_online_refresh(struct store *st, const struct ps_ftrl *opt);
void	store_online_end(struct store *st);
void	store_online_state(struct store *st, int optimizer, double epochs);
int	store_room(const struct store *st, const uint64_t *keys, size_t n,
	    uint64_t max_keys, char *err, size_t errlen);

/* storesave.c */
int	store_save(const struct store *st, const struct job *job,
	    uint64_t iteration, const char *path, char *err, size_t errlen);

/* Slot s's weight (store_set() sets it). */
static inline float
store_w(const struct store *st, uint32_t s)
{
	return ps_sparse_get(&st->w, s);
}

/* Slot s's momentum streak (prox.h), and setting it. */
static inline uint8_t
store_streak(const struct store *st, uint32_t s)
{
	return st->flags[s] >> STORE_STREAK_SHIFT;
}
static inline void
store_set_streak(struct store *st, uint32_t s, uint8_t streak)
{
	st->flags[s] = (uint8_t)((st->flags[s] &
	    ((1u << STORE_STREAK_SHIFT) - 1)) | streak << STORE_STREAK_SHIFT);
}

/*
 * A slot's mark for round t, and back: t <= PS_ROUND_MAX, or UINT64_MAX
 * for none (how a copy of a key that no round touched is stamped).
 */
static inline uint64_t
store_round_mark(uint64_t t)
{
	return t == UINT64_MAX ? 0 : t + 1;
}

static inline uint64_t
store_mark_round(uint64_t mark)
{
	return mark == 0 ? UINT64_MAX : mark - 1;
}

/*
 * Slot s's mark: the last round that touched it plus one, or 0 for none
 * (stamp16.h: also for a round more than PS_STAMP16_KEEP before the
 * store's newest mark, which every round in progress, replayed or kept
 * (ROUND_HISTORY) is after).
 */
static inline uint64_t
store_mark(const struct store *st, size_t s)
{
	return ps_stamp16_get(&st->mark, s);
}

/* startmodel.c */
void	startmodel_load(struct server *srv, const char *path);
void	startmodel_apply(struct channel *ch, const struct ps_ftrl *opt);

/* checkpoint.c */
int	ckpt_request(struct server *srv, char *err, size_t errlen);
int	ckpt_tell(struct channel *ch, const struct peer *p);
void	ckpt_round(struct channel *ch, uint64_t t);
int	ckpt_sgd(struct channel *ch, const struct ps_save *save, char *err,
	    size_t errlen);
void	ckpt_dir_check(const struct server *srv);

/* channel.c */
struct channel *channel_get(struct server *srv, uint32_t id, int create);
void	channels_free(struct server *srv);
int	channels_save(struct server *srv, char *err, size_t errlen);

/* peer.c */
void	peer_accept_cb(struct evconnlistener *lis, evutil_socket_t fd,
	    struct sockaddr *sa, int salen, void *arg);
void	peer_fail(struct peer *p, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	peer_send(struct peer *p, const struct ps_msg *m);
void	peer_send_error(struct peer *p, const char *text);
void	server_free_peers(struct server *srv);

/* job.c */
void	job_start(struct channel *ch, const struct ps_hello *h);
int	job_match(const struct job *job, const struct ps_hello *h, char *err,
	    size_t errlen);
void	job_abort(struct channel *ch, const char *why);
void	job_end(struct channel *ch);

/* lifecycle.c */
void	server_defaults(struct server *srv);
void	server_open(struct server *srv, struct event_base *base,
	    const struct failover_ops *failover);
void	server_close(struct server *srv);

/* rules.c */
int	peer_admit(const struct peer *p, const struct ps_msg *m, char *err,
	    size_t errlen);

/* stats.c */
char	*server_stats_text(struct server *srv);

/* online.c */
void	online_start(struct channel *ch);
void	online_push(struct channel *ch, struct peer *p,
	    const struct ps_msg *m);
void	online_pull(struct channel *ch, struct peer *p,
	    const struct ps_msg *m);
void	online_barrier_pass(struct channel *ch);
void	online_clear(struct channel *ch);
void	online_gone(struct channel *ch, uint32_t id);
uint64_t online_resume_point(const struct channel *ch, uint32_t id);
void	online_origin_said(struct channel *ch, const char *addr,
	    uint32_t worker, uint64_t below);
void	online_origins_free(struct channel *ch);

/* onlineack.c */
void	online_wait_add(struct channel *ch, uint32_t worker, uint64_t t,
	    uint32_t acks);
uint64_t online_held(const struct channel *ch, uint32_t worker);
int	online_hold_barrier(struct channel *ch);
void	online_replicated(struct channel *ch, uint32_t worker, uint64_t t);
void	online_ring_changed(struct channel *ch);
void	online_waits_clear(struct channel *ch);

/* round.c */
void	round_push(struct channel *ch, struct peer *p, struct ps_msg *m);
void	round_push_unresolved(struct channel *ch, struct peer *p,
	    const struct ps_msg *m);
void	round_pull(struct channel *ch, struct peer *p, const struct ps_msg *m);
void	round_pull_current(struct channel *ch, struct peer *p,
	    const struct ps_msg *m);
void	rounds_clear(struct channel *ch);
int	round_replicated(struct channel *ch, uint64_t t);
size_t	rounds_awaiting_replicas(const struct channel *ch);
void	rounds_ring_changed(struct channel *ch);
void	rounds_resumed(struct channel *ch, const struct ps_hello *hello);
void	rounds_forget_peer(struct channel *ch, const struct peer *p);
uint64_t rounds_resume_point(struct channel *ch, uint32_t id);
void	rounds_mark_again(struct channel *ch, uint32_t id, uint64_t below);
float	round_reply_weight(struct channel *ch, uint32_t slot, int count);

/* newton.c */
int	newton_sums_round(const struct channel *ch, uint64_t t);
void	newton_gather(struct channel *ch, struct round *r);
int	newton_keeps(const struct channel *ch, const struct round *r);
int	newton_stale(const struct channel *ch, const struct round *r);
void	newton_sums_reply(const struct channel *ch, const struct round *r,
	    uint32_t id, struct ps_msg *reply);
double	newton_step(const struct channel *ch, const struct round *r,
	    double *kkt, double *fstep);
float	newton_weight(float w, double step, double dsum, double holders);
float	round_reply_weight_before(struct channel *ch, uint32_t slot,
	    uint64_t r, float *trust);
void	round_current_reply(const struct channel *ch, const struct ps_msg *m,
	    uint8_t width, struct ps_msg *reply);

#endif
