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
 *   REPLICATE_OK   aux  field  (replica -> primary)
 *                    0  kind   the REPLICATE's
 */
#ifndef PS_MSG_CTL_H
#define PS_MSG_CTL_H

#include "wire/wire.h"

/* Scalars a REPLICATE carries at most (for the receivers' rules). */
#define PS_REPLICATE_NAUX	1

/* What a REPLICATE carries. */
enum ps_replicate_kind {
	PS_REPLICATE_ROUND = 0,		/* a round's result, to acknowledge */
	PS_REPLICATE_RESYNC = 1,	/* keys sent again after a new ring */
	PS_REPLICATE_HANDOFF = 2	/* keys to their new primary */
};

void	ps_keys_missing_encode(int type, struct ps_msg *m);
/* The dropped message's type, or 0 when absent or not one. */
int	ps_keys_missing_decode(const struct ps_msg *m);

/* The kind of a REPLICATE or REPLICATE_OK (an OK echoes its decoded one). */
void	ps_replicate_encode(int kind, struct ps_msg *m);
/* Its kind, or -1 for a scalar that names none. */
int	ps_replicate_decode(const struct ps_msg *m);

#endif
