/*
 * roundmsg.h: the f64 scalars (aux, wire.h) of a dbpg round's PUSH and
 * PULL_REPLY, and of the SAVE that asks for an sgd checkpoint, shared by
 * ps-worker (dbpg.c, sgd.c, ckpt.c) and ps-server (round.c, checkpoint.c).
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
 *
 * An sgd job's pushes reach only the servers of a mini-batch's keys, so
 * its worker 0 asks for a checkpoint with a SAVE to every server:
 *
 *   SAVE        aux  field
 *                 0  1: a checkpoint (without it, SAVE writes -o's part)
 *                 1  its iteration, worker 0's mini-batches; -1 after the
 *                    end barrier: the mini-batches of all workers
 *                 2  the epochs of data to record (worker 0's)
 *   CURRENT PULL_REPLY to worker 0 of an sgd job: aux 2 is 1 when a
 *                    checkpoint was requested at the server.
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

enum ps_save_aux {
	PS_SAVE_CKPT = 0,
	PS_SAVE_ITERATION = 1,
	PS_SAVE_EPOCHS = 2
};

/* aux of a CURRENT pull's reply: l1, nnz, and a checkpoint request. */
#define PS_CURRENT_CKPT	2

#endif
