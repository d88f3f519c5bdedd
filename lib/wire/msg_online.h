/*
 * msg_online.h: the f64 scalars (aux, wire.h) of an sgd job's messages
 * and of the replies to CURRENT pulls, as structs with named fields: one
 * encode and one decode per message (msg_online.c).  ps-worker (sgd.c,
 * ckpt.c) sends the requests, ps-server (online.c, round.c,
 * checkpoint.c) answers them.  Encoders set naux and aux of a message
 * whose header the caller fills; decoders fill the struct, absent
 * optional scalars taking the values said below.
 *
 *   PUSH        aux  field   (sgd)
 *                 0  epochs  the worker's epochs of data so far (rows
 *                            pushed over its shard's rows), in [0, 1e15)
 *   PULL        aux  field   (sgd end barrier: NOKEYS, no CURRENT)
 *                 0  epochs  optional, as the push's (NAN: absent)
 *   PULL_REPLY  aux  field   (to a CURRENT pull, or the end barrier's)
 *                 0  l1      the server's sum |w|
 *                 1  nnz     its non-zero weights
 *                 2  ckpt    optional: 1 asks worker 0 of an sgd job
 *                            for a checkpoint (one was requested at the
 *                            server)
 *                 3  held    optional: the lowest timestamp of this
 *                            worker's sgd pushes applied here whose
 *                            replicas have not all answered (absent:
 *                            every push applied here is held)
 *
 * An sgd job's pushes reach only the servers of a mini-batch's keys, so
 * its worker 0 asks for a checkpoint with a SAVE to every server:
 *
 *   SAVE        aux  field
 *                 0  ckpt    1: a checkpoint (without it, SAVE writes
 *                            -o's part)
 *                 1  iteration  worker 0's mini-batches; -1 after the
 *                            end barrier: the mini-batches of all
 *                            workers (0 when absent)
 *                 2  epochs  the epochs of data to record, worker 0's
 *                            (-1 when absent)
 */
#ifndef PS_MSG_ONLINE_H
#define PS_MSG_ONLINE_H

#include <stddef.h>
#include <stdint.h>

#include "wire/wire.h"

/* Scalars each message carries at most (for the receivers' rules). */
#define PS_SGD_PUSH_NAUX	1
#define PS_BARRIER_PULL_NAUX	1
#define PS_SAVE_NAUX		3

/* The reply to a CURRENT pull or to the end barrier. */
struct ps_current_reply {
	double	 l1;		/* sum |w| */
	double	 nnz;		/* non-zero weights */
	int	 ckpt;		/* worker 0: a checkpoint was asked for */
	uint64_t held;		/* pushes below it are held; UINT64_MAX:
				   every push applied (absent) */
};

/* A SAVE's scalars. */
struct ps_save {
	int	 ckpt;		/* 1: an sgd checkpoint, else -o's part */
	double	 iteration;	/* mini-batches; -1 after the end barrier */
	double	 epochs;	/* epochs of data */
};

/* An sgd push: epochs of data; timestamp is its mini-batch. */
void	ps_sgd_push_encode(double epochs, struct ps_msg *m);
/*
 * Its epochs in *epochs; -1 with the reason in err when they or the
 * timestamp are out of range.
 */
int	ps_sgd_push_decode(const struct ps_msg *m, double *epochs, char *err,
	    size_t errlen);

/* The end barrier's pull: epochs of data. */
void	ps_barrier_pull_encode(double epochs, struct ps_msg *m);
/* Its epochs, or NAN when absent or not finite. */
double	ps_barrier_pull_decode(const struct ps_msg *m);

void	ps_current_reply_encode(const struct ps_current_reply *r,
	    struct ps_msg *m);
/* -1 when m carries fewer than l1 and nnz. */
int	ps_current_reply_decode(const struct ps_msg *m,
	    struct ps_current_reply *r);

/* An sgd checkpoint request (ckpt 1, all three scalars). */
void	ps_save_encode(const struct ps_save *s, struct ps_msg *m);
/*
 * Fill *s; -1 with the reason in err for a checkpoint request whose
 * iteration or epochs are out of range (*s is still filled).
 */
int	ps_save_decode(const struct ps_msg *m, struct ps_save *s, char *err,
	    size_t errlen);

#endif
