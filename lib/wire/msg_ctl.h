/*
 * msg_ctl.h: the f64 scalars (aux, wire.h) of the messages peers send
 * each other about other messages, as named values: one encode and one
 * decode per message (msg_ctl.c).
 *
 *   KEYS_MISSING   aux  field
 *                    0  type   the dropped message's type (conn.c sends
 *                              it, ps-worker's links.c sends that
 *                              message again)
 *   REPLICATE      aux  field  (primary -> replica, cmd/ps-server/failover/replica.c)
 *                    0  kind   enum ps_replicate_kind; a round's when
 *                              absent
 *                    1  online the optimiser (ftrl.h) whose (w, z, n)
 *                              the values are, an sgd channel's; 0 or
 *                              absent: (w, trust, above: its gradient
 *                              sum above the KKT threshold, 0 or 1)
 *                    2  worker PUSH and FLOOR: the worker whose push
 *                    3  epochs an sgd channel's HANDOFF: the sender's
 *                              model's epochs of data,
 *                    4  iter   its iteration and
 *                    5  lambda its lambda (a part saved by the receiver
 *                              says the same)
 *   REPLICATE_OK   aux  field  (replica -> primary)
 *                  0-2         the REPLICATE's
 */
#ifndef PS_MSG_CTL_H
#define PS_MSG_CTL_H

#include "wire/wire.h"

/* Scalars a REPLICATE carries at most (for the receivers' rules). */
#define PS_REPLICATE_NAUX	6

/* What a REPLICATE carries. */
enum ps_replicate_kind {
	PS_REPLICATE_ROUND = 0,		/* a round's result, to acknowledge */
	PS_REPLICATE_RESYNC = 1,	/* keys sent again after a new ring */
	PS_REPLICATE_HANDOFF = 2,	/* keys to their new primary */
	PS_REPLICATE_PUSH = 3,		/* an sgd push's result (timestamp:
					   the push's), to acknowledge */
	PS_REPLICATE_FLOOR = 4		/* no keys: the sender applied the
					   worker's sgd pushes below
					   timestamp + 1 (a ring change) */
};

/* A REPLICATE's scalars, by name. */
struct ps_replicate {
	int		 kind;		/* enum ps_replicate_kind */
	int		 online;	/* values (w, z, n) of this
					   optimiser; 0: (w, trust, above) */
	uint32_t	 worker;	/* PUSH, FLOOR */
	double		 epochs;	/* an online HANDOFF: the sender's */
	uint64_t	 iteration;	/* its iteration */
	double		 lambda;	/* and its lambda */
};

void	ps_keys_missing_encode(int type, struct ps_msg *m);
/* The dropped message's type, or 0 when absent or not one. */
int	ps_keys_missing_decode(const struct ps_msg *m);

/* The scalars of a REPLICATE or REPLICATE_OK (an OK echoes its REPLICATE's). */
void	ps_replicate_encode(const struct ps_replicate *r, struct ps_msg *m);
/* 0, or -1 for scalars that name no kind, flag or worker. */
int	ps_replicate_decode(const struct ps_msg *m, struct ps_replicate *r);

#endif
