/*
 * roundmsg.h: the f64 scalars (aux, wire.h) of a dbpg round's PUSH and
 * PULL_REPLY, shared by ps-worker (dbpg.c) and ps-server (round.c).
 *
 *   PUSH        aux  field
 *                 0  the worker's loss at the push
 *                 1  its stopping vote (INFINITY: abstains)
 *                 2  optional: 1 asks every server for a checkpoint once
 *                    it applied the round (cmd/ps-server/checkpoint.c)
 *   PULL_REPLY  aux  field
 *               0-5  the round's result (ROUND_RESULTS, server.h)
 *                 6  optional: 1 when the worker took this round's
 *                    weights before (it came back, round.c invariant 9)
 *                 7  optional: 1 asks worker 0 to flag its next push for
 *                    a checkpoint (one was requested at the server)
 */
#ifndef PS_ROUNDMSG_H
#define PS_ROUNDMSG_H

enum ps_push_aux {
	PS_PUSH_LOSS = 0,
	PS_PUSH_VOTE = 1,
	PS_PUSH_CKPT = 2
};

enum ps_reply_aux {
	PS_REPLY_AGAIN = 6,
	PS_REPLY_CKPT = 7
};

#endif
