/*
 * rules.c: what ps-server takes from a peer, as admit.h's rules, checked
 * once on every message before peer.c dispatches it.
 *
 * A connection is in one of four states: anonymous (no HELLO yet, or its
 * job ended: a client reading weights, another server replicating), a
 * worker of a dbpg job, of an sgd job, of a newton job (no fp16: its sums
 * need the precision).  The shapes are those
 * ps-worker and failover/replica.c send (hello.h, msg_round.h, msg_online.h,
 * msg_ctl.h).
 */
#include "config.h"

#include "server.h"
#include "wire/admit.h"

enum {
	PEER_ANON = 1,
	PEER_DBPG = 2,
	PEER_SGD = 4,
	PEER_NEWTON = 8,
	PEER_ROUNDS = PEER_DBPG | PEER_NEWTON,
	PEER_WORKER = PEER_ROUNDS | PEER_SGD,
	PEER_ANY = PEER_ANON | PEER_WORKER
};

#define CUR	PS_MSG_F_CURRENT
#define SIG	PS_MSG_F_KEYSIG
#define FP16	PS_MSG_F_FP16

static const struct ps_msg_rule server_rules[] = {
	/* what, type, states, pick_mask, pick, flags, keys, width, naux, blob */
	{ "hello", PS_MSG_HELLO, PEER_ANY, 0, 0, 0, PS_KEYS_NONE,
	    0, 0, PS_HELLO_NAUX_MIN, PS_HELLO_NAUX_MAX, 0 },
	{ "dbpg push", PS_MSG_PUSH, PEER_DBPG, 0, 0, FP16 | SIG, PS_KEYS_LIST,
	    2, 2, 1, PS_DBPG_PUSH_NAUX, 0 },
	{ "newton push", PS_MSG_PUSH, PEER_NEWTON, 0, 0, SIG, PS_KEYS_LIST,
	    2, 2, 1, PS_NEWTON_PUSH_NAUX, 0 },
	{ "sgd push", PS_MSG_PUSH, PEER_SGD, 0, 0, FP16 | SIG, PS_KEYS_LIST,
	    1, 1, 1, PS_SGD_PUSH_NAUX, 0 },
	/* Current weights (round.c), or a resume pull (failover/rejoin.c). */
	{ "current pull", PS_MSG_PULL, PEER_ANY, CUR, CUR, SIG, PS_KEYS_LIST,
	    0, 0, 0, PS_RESUME_PULL_NAUX, 0 },
	/* Round t's weights: the keys of the worker's push for t. */
	{ "round pull", PS_MSG_PULL, PEER_ROUNDS, CUR, 0, 0, PS_KEYS_COUNT,
	    0, 0, 0, PS_ROUND_PULL_NAUX, 0 },
	{ "end-barrier pull", PS_MSG_PULL, PEER_SGD, CUR, 0, 0, PS_KEYS_NONE,
	    0, 0, 0, PS_BARRIER_PULL_NAUX, 0 },
	{ "bye", PS_MSG_BYE, PEER_WORKER, 0, 0, 0, PS_KEYS_NONE,
	    0, 0, 0, 0, 0 },
	{ "save", PS_MSG_SAVE, PEER_ANY, 0, 0, 0, PS_KEYS_NONE,
	    0, 0, 0, PS_SAVE_NAUX, 0 },
	/* Without its scalar a REPLICATE is a round's (failover/replica.c). */
	{ "replicate", PS_MSG_REPLICATE, PEER_ANON, 0, 0, 0, PS_KEYS_LIST,
	    REPLICA_WIDTH, REPLICA_WIDTH, 0, PS_REPLICATE_NAUX, 0 },
};

/* p's state, as the rules name it, and its name for errors. */
static unsigned
peer_state(const struct peer *p, const char **name)
{
	if (!p->is_worker) {
		*name = "before hello";
		return PEER_ANON;
	}
	if (p->ch->job.algorithm == PS_ALG_SGD) {
		*name = "from a worker of an sgd job";
		return PEER_SGD;
	}
	if (p->ch->job.algorithm == PS_ALG_NEWTON) {
		*name = "from a worker of a newton job";
		return PEER_NEWTON;
	}
	*name = "from a worker of a dbpg job";
	return PEER_DBPG;
}

/* 0 when m is a message p may send now, else -1 with the reason. */
int
peer_admit(const struct peer *p, const struct ps_msg *m, char *err,
    size_t errlen)
{
	const char *name;
	unsigned state = peer_state(p, &name);

	if (ps_msg_admit(server_rules, sizeof server_rules /
	    sizeof server_rules[0], state, name, m, err, errlen) == NULL)
		return -1;
	return 0;
}
