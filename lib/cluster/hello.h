/*
 * hello.h: the job a HELLO describes, and the HELLO_OK that answers it.
 * A worker's HELLO carries its job in the frame's f64 scalars (aux,
 * wire.h); ps-worker fills a struct ps_hello and encodes it, ps-server
 * decodes it (which checks every scalar) and checks it against the
 * channel's job.  Only hello.c indexes aux.
 *
 *   aux  field
 *     0  worker id, 0 .. workers - 1
 *     1  workers in the job
 *     2  index of the receiving server in the ring
 *     3  servers in the ring
 *     4  ring version
 *     5  lambda, the l1 penalty of F(w) = sum_i loss_i + lambda |w|_1
 *     6  optional: dbpg's KKT filter factor, 0 .. 1 (0: off); the
 *        threshold is it times lambda
 *     7  algorithm: 0 dbpg (Algorithm 2), 1 sgd (the online path),
 *        2 newton (distributed proximal Newton, msg_round.h)
 *     8  optimizer: 1 adagrad, 2 ftrl (ftrl.h); 0 for dbpg and newton
 *     9  alpha         10  beta
 *    11  l1            12  l2        per epoch of data (ftrl.h, inv. 4)
 *    13  optional, after a ring change during the job (a failover): the
 *        first iteration the worker had not started then, plus one; no
 *        worker finished any round from there on, and below it the server
 *        answers pushes of rounds it finds applied (cmd/ps-server/round.c);
 *        0 otherwise
 *    14  optional: seconds the servers wait for this worker to come back
 *        if its connection drops (a supervisor such as ps-train restarts
 *        it); 0 ends the job at once.  The first HELLO of a job sets it.
 *    15  optional: the silence limit, seconds: a server closes the
 *        connection of a worker of the job that sent it nothing for this
 *        long, taking the worker for hung (fenced: what it sends later
 *        goes nowhere), and then waits for it as for one that went away
 *        (aux 14); the worker sends a ping on a connection it has not
 *        written to for a while.  0: no limit.  Each worker's HELLO
 *        sets it for its own connection.
 *
 * The server's HELLO_OK carries four scalars: the point the worker is to
 * resume at, the server's non-zero weights, the seconds since the job
 * started on the server (its first HELLO), and, for a worker that came
 * back, the seconds since it went away (-1 for one new to the job).  The
 * resume point is 0 for a worker new to the job; for a dbpg worker that
 * came back after its connection dropped (aux 14), the lowest round it
 * pushed that the server still holds, else the one after the last round
 * it pushed; for an sgd one, the mini-batch after the last one of its
 * that the server applied (cmd/ps-server/failover/rejoin.c).  A worker that went
 * away for silence (aux 15) went away when it last sent something.
 *
 * A HELLO with fewer than 13 scalars is a dbpg worker's, as sent before
 * the online path existed; aux 8 to 12 mean nothing for dbpg.
 */
#ifndef PS_HELLO_H
#define PS_HELLO_H

#include <stddef.h>
#include <stdint.h>

#include "algo/ftrl.h"
#include "wire/wire.h"

/* Scalars a HELLO carries: at least the first six, at most all. */
#define PS_HELLO_NAUX_MIN	6
#define PS_HELLO_NAUX_MAX	16

/*
 * Longest wait for a worker to come back, and longest silence limit, that
 * a HELLO may ask for.
 */
#define PS_HELLO_REJOIN_MAX	86400.0

enum ps_algorithm {
	PS_ALG_DBPG = 0,
	PS_ALG_SGD = 1,
	PS_ALG_NEWTON = 2
};

/* A HELLO's scalars (aux 0 to 15 above). */
struct ps_hello {
	uint32_t	 worker_id;	/* 0 .. nworkers - 1 */
	uint32_t	 nworkers;	/* 1 .. 65536 */
	uint32_t	 server_index;	/* the receiver's, in the ring */
	uint32_t	 nservers;	/* in the ring */
	uint32_t	 ring_version;
	double		 lambda;	/* the l1 penalty, finite, >= 0 */
	double		 kkt;		/* KKT filter factor in [0, 1]; 0 off */
	int		 algorithm;	/* enum ps_algorithm */
	struct ps_ftrl	 opt;		/* sgd's optimiser; zeroed otherwise */
	uint64_t	 resumed;	/* after a failover: the first
					   iteration not started, plus one;
					   0 otherwise */
	double		 rejoin;	/* seconds the servers wait for it,
					   0 .. PS_HELLO_REJOIN_MAX */
	double		 silence;	/* seconds of silence before a
					   server takes it for hung, 0 ..
					   PS_HELLO_REJOIN_MAX; 0 none */
};

/* A HELLO_OK's scalars. */
struct ps_hello_ok {
	uint64_t	 resume;	/* the round to resume at */
	double		 nnz;		/* the server's non-zero weights */
	double		 age;		/* seconds since the job started there */
	double		 away;		/* a worker that came back: seconds
					   since it went away; -1 otherwise */
};

/* "dbpg", "sgd", "newton"; NULL for anything else. */
const char *ps_algorithm_name(int alg);
/* The algorithm named name, or -1 when unknown. */
int	ps_algorithm_parse(const char *name);

/* Set every scalar of a HELLO (opt is sgd's only). */
void	ps_hello_encode(const struct ps_hello *h, struct ps_msg *m);
/*
 * Fill *h from a HELLO and check it: counts and indices whole and in
 * range, lambda, the KKT factor, the rejoin wait and silence limit, the
 * algorithm and optimiser (a HELLO of fewer than 13 scalars is a dbpg
 * worker's, as sent before the online path existed).  0, or -1 with the reason in err
 * ("worker 3 of 2", "unknown algorithm 2", ...).
 */
int	ps_hello_decode(const struct ps_msg *m, struct ps_hello *h, char *err,
	    size_t errlen);

void	ps_hello_ok_encode(const struct ps_hello_ok *ok, struct ps_msg *m);
/*
 * Fill *ok; a resume, nnz or age absent or out of range reads 0, an away
 * absent or out of range -1.
 */
void	ps_hello_ok_decode(const struct ps_msg *m, struct ps_hello_ok *ok);

#endif
