/*
 * worker.h: the parts of ps-worker and what they share.
 *
 * A worker loads its shard and the ring (ps-worker.c) or gets the ring from
 * the coordinator (coordlink.c), connects to every server of the ring
 * (links.c) and runs one of three algorithms: the Delayed Block Proximal
 * Gradient iterations (dbpg.c) over feature blocks split by server
 * (plan.c), a distributed proximal Newton method (newton.c), or
 * asynchronous SGD (sgd.c) over mini-batches of rows (batches.c).  Either scores a test shard now and then (evaltest.c).  A
 * worker started again during its job resumes it (comeback.c; dbpg:
 * resume.c).  One
 * thread, one libevent loop; all computation happens in the main loop,
 * callbacks only record replies.
 */
#ifndef PS_WORKER_H
#define PS_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "algo/ftrl.h"
#include "algo/l1lr.h"
#include "algo/newton.h"
#include "cluster/coord.h"
#include "cluster/ring.h"
#include "data/dataset.h"
#include "util/clock.h"
#include "util/trace.h"
#include "wire/auth.h"
#include "wire/conn.h"
#include "wire/msg_round.h"
#include "wire/wire.h"

struct ps_zk_member;

struct worker_conf {
	const char	*ring_path, *shard_path, *test_path;
	const char	*coord_addr;	/* -C or -Z: the ring comes from there */
	const char	*zk_connect;	/* -Z, or NULL */
	double		 coord_wait;	/* --coordinator-wait seconds */
	const char	*secret_path;	/* -a, or NULL */
	uint32_t	 id, nworkers;
	uint32_t	 channel;	/* the servers' weight vector */
	double		 lambda;
	uint32_t	 tau;
	uint32_t	 nblocks;
	uint32_t	 sweeps;	/* newton: coordinate-descent sweeps */
	uint32_t	 solve_max;	/* newton: most active features for
					   ps_newton_direct() */
	double		 eps;
	uint64_t	 max_iter;
	uint64_t	 seed;
	double		 timeout;	/* seconds without progress before giving up */
	int		 lifeline;	/* --lifeline: stdin's EOF ends us */
	const char	*trace_path;	/* --trace, or NULL */
	double		 rejoin;	/* seconds the servers wait for this
					   worker to come back (comeback.c) */
	double		 silence;	/* seconds of silence before the servers
					   take it for hung (links.c pings) */
	double		 beta;		/* row-count factor of the curvature bound */
	double		 kkt;		/* inactive when w = 0 and |G| <= kkt lambda */
	unsigned	 filters;	/* FILTER_* */
	double		 theta;		/* significantly-modified: first threshold */
	double		 skip;		/* random skip: probability */
	int		 algorithm;	/* enum ps_algorithm (hello.h) */
	struct ps_ftrl	 opt;		/* sgd: optimiser; l1, l2 as sent (sgd.c) */
	double		 l2;		/* sgd: l2 penalty in F's units */
	uint32_t	 epochs;	/* sgd: passes over the shard */
	uint32_t	 batch;		/* sgd: rows per mini-batch */
	uint64_t	 ckpt_every;	/* worker 0: a checkpoint every n
					   iterations or mini-batches (ckpt.c) */
	double		 ckpt_secs;	/* and/or every secs; 0 none */
};

/* filters.c: the traffic filters a job may stack (-F). */
#define FILTER_KKT	0x01	/* push only the KKT active set */
#define FILTER_SIGMOD	0x02	/* pull only significantly modified weights */
#define FILTER_SKIP	0x04	/* push a random part of each block */
#define FILTER_KEYCACHE	0x08	/* send repeated key lists as signatures */
#define FILTER_LZ4	0x10	/* LZ4 on payloads where it shrinks them */
#define FILTER_FP16	0x20	/* push values as 16-bit floats */
#define FILTER_DEFAULT	(FILTER_KKT | FILTER_KEYCACHE)

/* Entries each filter of the worker saw and let through, so far. */
struct filter_counts {
	uint64_t	 block;		/* features of the blocks started */
	uint64_t	 active;	/* after the KKT filter */
	uint64_t	 pushed;	/* after random skip */
	uint64_t	 received;	/* pull entries after significantly-modified */
};

/*
 * Timestamps of CURRENT pulls that are not a mini-batch's: the test set's
 * weights (evaltest.c), the liveness pings (links.c: at the end barrier
 * and under a silence limit), a dbpg resume and the probe behind a
 * restarted worker's first push (comeback.c).
 */
#define EVALTEST_TIMESTAMP	UINT64_MAX
#define PING_TIMESTAMP		(UINT64_MAX - 1)
#define RESUME_TIMESTAMP	(UINT64_MAX - 2)	/* resume.c */
#define PROBE_TIMESTAMP		(UINT64_MAX - 3)	/* comeback.c */

/* plan.c: local features by block, ascending ids within a block. */
struct plan {
	uint32_t	 nblocks, nservers;
	size_t		*boff;		/* [nblocks + 1] block starts */
	uint32_t	*feats;		/* local feature indices */
	uint64_t	*keys;		/* their feature ids, same order */
	uint32_t	*srv;		/* their server under the current ring */
};

/*
 * batches.c: the shard's rows in mini-batches of conf.batch rows, drawn by
 * a seeded shuffle once, and for each mini-batch the features its rows
 * touch, grouped by server and ascending within a server.
 */
struct batches {
	uint32_t	 nbatches, nservers;
	size_t		*roff;		/* [nbatches + 1] into rows */
	uint32_t	*rows;		/* row indices, ascending within a batch */
	size_t		*off;		/* [nbatches * nservers + 1] into feats */
	uint32_t	*feats;		/* local feature indices */
	size_t		 maxfeats;	/* most features in one mini-batch */
};

/* sgd.c: one mini-batch in flight. */
struct sgd_slot {
	uint64_t	 t;		/* mini-batch number, the push timestamp */
	uint32_t	 batch;		/* which of the shard's mini-batches */
	uint32_t	 pending;	/* servers yet to answer its pull */
	uint8_t		*got;		/* [nservers] answered */
	float		*wpull;		/* [maxfeats] its features' weights */
	uint64_t	 pushed_below;	/* pushes sent before its pull: a reply
					   acknowledges them (sgdresend.c) */
};

/* sgdresend.c: a push not yet acknowledged by every server it went to. */
struct sgd_sent {
	uint64_t	 t;
	uint32_t	 batch;
	double		 epochs;	/* its scalar */
	uint32_t	 n;		/* gradient sums: */
	uint32_t	*feat;		/* [maxfeats] local features */
	float		*val;		/* [maxfeats] their sums */
	uint8_t		*unacked;	/* [nservers]: sent there, no ack yet */
	uint32_t	 nunacked;
};

/* sgd.c: the asynchronous SGD run. */
struct sgd {
	struct batches	 bt;
	uint32_t	 tau;		/* mini-batches in flight: tau + 1 */
	uint32_t	*order;		/* this epoch's mini-batch order */
	struct sgd_slot	*slots;		/* [tau + 1], by t % (tau + 1) */
	uint64_t	 total;		/* mini-batches in the run */
	uint64_t	 t_next;	/* next mini-batch to start */
	uint64_t	 t_done;	/* mini-batches below it were pushed */
	float		*w;		/* weights by local feature (scratch) */
	double		*g;		/* gradient by local feature (scratch) */
	uint64_t	*keybuf;	/* one message's keys */
	float		*gbuf;		/* one push's values */
	double		*nnz;		/* [nservers] as each last reported */
	uint32_t	 barrier;	/* servers yet to answer the end barrier */
	uint64_t	 rows;		/* rows done */
	double		 ep_loss;	/* this epoch's progressive loss sum */
	uint64_t	 ep_rows;	/* and its rows */
	struct sgd_sent	*sent;		/* [nsent], by t % nsent: pushes from
					   sent_lo to t_done */
	uint32_t	 nsent;
	uint64_t	 sent_lo;
	uint64_t	 forgot;	/* pushes dropped unacknowledged: the
					   ring of them was full */
};

struct worker;

/* links.c: one connection per server of the ring. */
struct link {
	struct worker	*w;
	uint32_t	 index;
	const char	*addr;
	struct ps_conn	*conn;		/* NULL once the server went away */
	int		 hello_ok;
	uint64_t	 resume;	/* HELLO_OK: the round to resume at */
	double		 nnz;		/* HELLO_OK: the server's non-zero
					   weights (a job's starting model) */
	double		 age;		/* HELLO_OK: the job's age there */
	double		 away;		/* HELLO_OK: this worker was away so
					   long; -1: new to the job */
	double		 hello_at;	/* when the HELLO_OK came */
	int		 resumed;	/* resume.c: its weights came */
	uint32_t	*resume_pos;	/* resume.c: plan positions asked for */
	size_t		 resume_n;
	double		 last_rx;	/* when it last sent us anything */
	double		 last_tx;	/* when we last sent it anything */
	double		 lost_at;	/* when it went away */
};

/* failover.c: a ring the coordinator published, not yet taken over. */
struct failover {
	struct ps_ring	 next;
	int		 pending;	/* next holds a ring */
	double		 started;	/* when the last change was taken over */
	double		 lost_at;	/* when the worker lost a server the
					   new ring left out, or 0 */
	uint32_t	 version;	/* its version, until a reply under it */
	unsigned	 count;		/* ring changes taken over */
};

/*
 * The progress TSV's first columns, dbpg's and newton's alike (the
 * filters' follow; ps-worker(1), DESCRIPTION).
 */
#define PROGRESS_COLUMNS	"iter\tsecs\tobjective\trel_change\tnnz\t" \
	"bytes_sent\tbytes_recv\ttest_logloss\ttest_auc\tkkt_rel\tgap_est"

/* dbpg.c rule 6: no vote on stopping, from a worker just restarted. */
#define VOTE_ABSTAIN	UINT32_MAX

/* dbpg.c: one iteration in flight or finished. */
struct iter {
	uint64_t	 t;
	uint32_t	 block;
	uint32_t	 pending;	/* servers yet to answer */
	double		 loss, l1, nnz;	/* as the servers report them */
	double		 kkt;		/* the servers' summed KKT violation */
	float		*wnew;		/* the block's new weights as they come */
	float		*slack;		/* how far the servers' may be from them */
	uint8_t		*drop;		/* the servers' KKT verdicts */
	double		 push_loss;	/* the loss the push carried */
	uint32_t	 vote;		/* on stopping, the push carried (rule 3);
					   VOTE_ABSTAIN: none (rule 6) */
	uint32_t	 vmin;		/* the lowest vote of all, as replies say */
	double		 theta;		/* the pull's filter threshold, or NAN */
	int		 ckpt;		/* the push asks for a checkpoint */
	uint32_t	*actpos;	/* block positions of the pushed features */
	size_t		*actoff;	/* [nservers + 1]: each server's part */
	float		*gu;		/* gradient and curvature by block
					   position, as pushed */
	uint8_t		*sel;		/* by block position: pushed */
};

/* dbpg.c: the Delayed Block Proximal Gradient run. */
struct dbpg {
	struct plan	 plan;		/* blocks, their keys, owners */
	struct ps_l1lr	 lr;		/* margins, loss, gradients */
	struct iter	*inflight;	/* [nslots + 1]: by t % nslots the
					   iterations in flight and the one
					   finished last; then a spare for
					   that one, sent again after a ring
					   change (dbpg_ring_changed) */
	uint32_t	 nslots;	/* tau + 2 */
	uint64_t	 echoes;	/* finished iterations sent again */
	double		*objective;	/* by iteration */
	size_t		 objcap;
	uint64_t	 t_next;	/* next iteration to start */
	uint64_t	 t_done;	/* iterations < t_done have finished */
	uint64_t	 t_printed;	/* iterations < t_printed were reported */
	uint64_t	 t_resumed;	/* rule 6: the first iteration this
					   process ran */
	float		*drift;		/* by feature: how far the servers'
					   weight may be from ours (sigmod) */
	uint64_t	*keybuf;	/* one push's keys */
	float		*gubuf;		/* one push's values */
	uint8_t		*fullpass;	/* by pass: began with every feature
					   active */
	double		*kktpass;	/* by pass: KKT violation (stop.c) */
	double		 kktref;	/* the largest of a whole pass */
	uint32_t	*order;		/* this pass's block order */
	size_t		 passcap;
	uint64_t	 vote_t;	/* the latest voting iteration finished
					   (rule 3), plus one; 0: none */
	uint32_t	 vote_agreed;	/* its lowest vote of all */
	int		 stopping;
	int		 warm;		/* began from the servers' model */
};

/* newton.c: one round of a newton job, in flight or finished last. */
struct nround {
	uint64_t	 t;		/* UINT64_MAX: none yet */
	uint32_t	 pending;	/* servers yet to answer */
	float		*vals;		/* [2 * features] by plan position:
					   the push's values */
	struct ps_newton_push aux;	/* its scalars (msg_round.h) */
	double		 loss, l1, nnz;	/* as the servers report them */
	double		 kkt, step;	/* step round: the summed violation
					   and the step; NAN: not reported */
	double		 radius;	/* gradient round: the job's trust
					   radius; NAN: not reported */
	uint32_t	 vmin;		/* the lowest vote, 0 or 1 */
};

/*
 * newton.c: the proximal Newton run (one block: dbpg's plan).  It keeps
 * the pushes of its last four rounds: with a gradient round in flight,
 * those of the iteration before, which a ring change sends again.
 */
#define NEWTON_SLOTS	4
struct newton {
	struct ps_newton nt;		/* column view, direction d */
	size_t		*off;		/* [nservers + 2] into bysrv */
	uint32_t	*bysrv;		/* plan positions grouped by server */
	float		*w;		/* by local feature */
	double		*margin;	/* by row: w.x_i */
	double		*gh;		/* by local feature: g, h, then the
					   sums G, H */
	double		*dbar, *holders;	/* by local feature */
	uint64_t	*keybuf;	/* one push's keys */
	float		*valbuf;	/* and values */
	struct nround	 slot[NEWTON_SLOTS];	/* by t % NEWTON_SLOTS: the
					   last rounds pushed (newton.c) */
	uint64_t	 t_next;	/* next round to start */
	uint64_t	 t_done;	/* rounds below it finished */
	uint64_t	 t_taken;	/* rounds below it taken (newton_finish) */
	uint64_t	 echoes;	/* finished rounds sent again */
	double		 loss;		/* the rows' loss at w */
	double		 f, nnz;	/* F(w) and non-zero weights */
	double		 fprev;		/* F at the iteration before */
	double		 kktref;	/* the largest violation seen */
	double		 radius;	/* trust radius (newton.h); NAN: not
					   known yet (came back) */
	int		 vote;		/* 1: this worker votes to stop */
};

/* evaltest.c: the test shard and its features split by server. */
struct evaltest {
	struct ps_dataset ds;
	size_t		*off;		/* [nservers + 1] into keys */
	uint64_t	*keys;		/* test features grouped by server */
	uint32_t	*local;		/* their local index in ds */
	float		*w;		/* pulled weights by local index */
	double		*margin;
	uint32_t	 pending;
	double		 l1, nnz;
};

/*
 * comeback.c: a worker started again during its job, as the servers'
 * HELLO_OKs say, and the probe that times its recovery.
 */
enum { PROBE_NONE, PROBE_ARMED, PROBE_SENT };
struct comeback {
	int		 back;		/* a server says it came back */
	double		 gone_into;	/* seconds into the job it went away */
	double		 away;		/* how long it was away, by then */
	double		 hello_at;	/* when that server's HELLO_OK came */
	int		 probe;		/* PROBE_* */
};

struct worker {
	struct worker_conf	 conf;
	struct event_base	*base;
	struct event		*tick;
	struct ps_ring		 ring;
	int			 have_ring;
	struct ps_coord_node	*coord;		/* with -C (coordlink.c) */
	struct ps_zk_member	*zk_member;	/* with -Z: the leader */
	struct ps_secret	 secret;	/* -a: proven to each server */
	struct ps_dataset	 ds;
	struct link		**links;	/* [nlinks], by ring index */
	size_t			 nlinks;
	struct ps_conn_stats	 gone;		/* counters of closed links */
	struct failover		 failover;
	double			 started, last_progress;
	int			 ckpt_asked;	/* a server asked worker 0 for one */
	double			 ckpt_last;	/* when the last one was asked */
	uint64_t		 ckpt_after;	/* and after which iteration, + 1 */
	int			 have_test;
	int			 closing;	/* BYE sent: closes are expected */
	struct evaltest		 test;
	struct filter_counts	 counts;
	struct dbpg		 dbpg;
	struct sgd		 sgd;
	struct newton		 newton;
	struct comeback		 comeback;
	struct ps_trace		*trace;		/* --trace: pushes and acks */
};

/* plan.c */
void	plan_build(struct plan *pl, const struct ps_dataset *ds,
	    const struct ps_ring *ring, uint32_t nblocks, uint64_t seed);
void	plan_assign(struct plan *pl, const struct ps_ring *ring);
void	plan_release(struct plan *pl);
void	plan_pass_order(const struct plan *pl, uint64_t pass, uint64_t seed,
	    uint32_t *perm);
void	plan_shuffle(uint32_t *perm, uint32_t n, uint64_t seed,
	    uint64_t round);

/* batches.c */
void	batches_build(struct batches *bt, const struct ps_dataset *ds,
	    const struct ps_ring *ring, uint32_t batch, uint64_t seed);
void	batches_release(struct batches *bt);

/* filters.c */
int	filters_parse(const char *list, struct worker_conf *c);
const char *filters_names(unsigned filters, char *buf, size_t len);
int	filters_exact_pass(const struct worker *w, uint64_t pass);
double	filters_theta(const struct worker *w, uint64_t pass);
int	filters_skip(const struct worker *w, uint64_t t, uint64_t key);
void	filters_print_header(void);
void	filters_print(const struct worker *w);

/* ckpt.c */
int	ckpt_due(struct worker *w, uint64_t t);
int	ckpt_periodic(const struct worker *w);
void	ckpt_requested(struct worker *w, uint64_t t);
void	ckpt_sgd_save(struct worker *w, uint64_t t, double epochs, int final);

/* links.c */
void	links_open(struct worker *w);
void	links_close(struct worker *w);
void	links_send(struct worker *w, size_t server, const struct ps_msg *m);
void	links_send_all(struct worker *w, const struct ps_msg *m);
void	links_msg(const struct worker *w, struct ps_msg *m, uint8_t type,
	    uint8_t flags, uint64_t t);
void	links_rebuild(struct worker *w);
double	links_lost_since(const struct worker *w);
double	links_left_since(const struct worker *w, const struct ps_ring *next);
void	links_stats(const struct worker *w, struct ps_conn_stats *sum);
void	links_bytes(const struct worker *w, uint64_t *sent, uint64_t *recv);
void	links_step(struct worker *w, const char *what);
void	links_check_each(struct worker *w, const char *what);
void	links_bye(struct worker *w);
void	links_recv(struct link *l, struct ps_msg *m);
int	links_all_hello(const struct worker *w);
void	links_keepalive(struct worker *w, double every);
double	links_ping_every(const struct worker *w);
void	links_run(struct worker *w, int (*advance)(struct worker *),
	    const char *unit, const uint64_t *t);

/* dbpg.c */
int	dbpg_run(struct worker *w);
void	dbpg_prepare(struct worker *w);
void	dbpg_begin(struct worker *w);
int	dbpg_advance(struct worker *w);
void	dbpg_release(struct worker *w);
void	dbpg_reply(struct worker *w, struct link *l, struct ps_msg *m);
void	dbpg_push(struct worker *w, uint64_t t, size_t server);
void	dbpg_ring_changed(struct worker *w);

/* newton.c */
int	newton_run(struct worker *w);
int	newton_advance(struct worker *w);
void	newton_reply(struct worker *w, struct link *l, struct ps_msg *m);
void	newton_push(struct worker *w, uint64_t t, size_t server);
void	newton_ring_changed(struct worker *w);
void	newton_release(struct worker *w);

/* stop.c */
void	stop_pass_grow(struct dbpg *db, uint64_t p);
void	stop_ring_changed(struct worker *w);
void	stop_add_kkt(struct worker *w, uint64_t t, double kkt);
double	stop_kkt_rel(const struct worker *w, uint64_t p);
double	stop_gap_estimate(const struct worker *w, uint64_t p);
uint32_t stop_vote(const struct worker *w);

/* sgd.c */
int	sgd_run(struct worker *w);
void	sgd_begin(struct worker *w);
int	sgd_advance(struct worker *w);
void	sgd_reply(struct worker *w, struct link *l, struct ps_msg *m);
void	sgd_release(struct sgd *sg);
void	sgd_pull(struct worker *w, struct sgd_slot *sl);
void	sgd_send(struct worker *w, uint64_t t, uint32_t batch, double epochs,
	    uint8_t *to, struct sgd_sent *keep);
void	sgd_barrier_send(struct worker *w);

/* sgdresend.c */
void	sgd_sent_init(struct worker *w);
void	sgd_sent_release(struct sgd *sg);
struct sgd_sent *sgd_sent_keep(struct worker *w, uint64_t t, uint32_t batch,
	    double epochs);
void	sgd_sent_add(struct sgd_sent *e, uint32_t feat, float val);
void	sgd_sent_count(const struct worker *w, struct sgd_sent *e);
void	sgd_acked(struct worker *w, size_t server, uint64_t below);
void	sgd_ring_changed(struct worker *w);

/* comeback.c */
void	comeback_begin(struct worker *w);
void	comeback_sent(struct worker *w, size_t server, const struct ps_msg *m);
void	comeback_served(struct worker *w);

/* resume.c */
uint64_t resume_point(const struct worker *w);
uint64_t resume_last_push(const struct worker *w);
void	resume_weights(struct worker *w, uint64_t r);
void	resume_reply(struct worker *w, struct link *l, struct ps_msg *m);
void	resume_start_model(struct worker *w);

/* evaltest.c */
void	evaltest_init(struct worker *w);
void	evaltest_group(struct worker *w);
void	evaltest_ring_changed(struct worker *w);
void	evaltest_pull(struct worker *w, size_t server);
void	evaltest_release(struct evaltest *ev);
void	evaltest_run(struct worker *w, double *logloss, double *auc);
void	evaltest_reply(struct worker *w, struct link *l, struct ps_msg *m);

/* coordlink.c */
void	coordlink_open(struct worker *w);
void	coordlink_leave(struct worker *w);
void	coordlink_close(struct worker *w);

/*
 * failover.c: the coordinator published *ring, a version other than the
 * one the job runs on; worker_ring_changed takes ring over and
 * failover_check, called from the wait loop, moves the job onto it.
 */
void	worker_ring_changed(struct worker *w, struct ps_ring *ring);
int	failover_possible(const struct worker *w);
void	failover_check(struct worker *w);
void	failover_heard(struct worker *w, const struct ps_msg *m);
void	failover_release(struct worker *w);

#endif
