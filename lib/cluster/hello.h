/*
 * hello.h: the job a HELLO describes.  A worker's HELLO carries its job in
 * the frame's f64 scalars (aux, wire.h); ps-worker writes them, ps-server
 * checks them against the channel's job.
 *
 *   aux  field
 *     0  worker id, 0 .. workers - 1
 *     1  workers in the job
 *     2  index of the receiving server in the ring
 *     3  servers in the ring
 *     4  ring version
 *     5  lambda, the l1 penalty of F(w) = sum_i loss_i + lambda |w|_1
 *     6  reserved for DBPG's KKT filter factor; send 0
 *     7  algorithm: 0 dbpg (Algorithm 2), 1 sgd (the online path)
 *     8  optimizer: 1 adagrad, 2 ftrl (ftrl.h); 0 for dbpg
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
 *
 * The server's HELLO_OK carries one scalar: the round the worker is to
 * resume at.  It is 0 for a worker new to the job; for one that came back
 * after its connection dropped (aux 14), the lowest round it pushed that
 * the server still holds, else the one after the last round it pushed
 * (cmd/ps-server/rejoin.c).
 *
 * A HELLO with fewer than PS_HELLO_NAUX scalars is a dbpg worker's, as
 * sent before the online path existed; aux 8 to 12 mean nothing for dbpg.
 */
#ifndef PS_HELLO_H
#define PS_HELLO_H

#include <stddef.h>

#include "algo/ftrl.h"
#include "wire/wire.h"

enum ps_hello_aux {
	PS_HELLO_KKT = 6,
	PS_HELLO_ALGORITHM = 7,
	PS_HELLO_OPTIMIZER,
	PS_HELLO_ALPHA,
	PS_HELLO_BETA,
	PS_HELLO_L1,
	PS_HELLO_L2,
	PS_HELLO_NAUX,
	PS_HELLO_RESUMED = PS_HELLO_NAUX,
	PS_HELLO_REJOIN
};

/* Longest wait for a worker to come back that a HELLO may ask for. */
#define PS_HELLO_REJOIN_MAX	86400.0

enum ps_algorithm {
	PS_ALG_DBPG = 0,
	PS_ALG_SGD = 1
};

/* "dbpg", "sgd"; NULL for anything else. */
const char *ps_algorithm_name(int alg);
/* The algorithm named name, or -1 when unknown. */
int	ps_algorithm_parse(const char *name);
/*
 * Write aux 7 to 12 of a HELLO whose aux 0 to 6 the caller filled: the
 * algorithm and, for sgd, the optimiser (opt is ignored for dbpg).  Sets
 * naux to PS_HELLO_NAUX.
 */
void	ps_hello_set_job(struct ps_msg *m, int alg, const struct ps_ftrl *opt);
/*
 * Read the algorithm and optimiser of a HELLO (dbpg when it has fewer than
 * PS_HELLO_NAUX scalars; *opt is then zeroed).  0, or -1 with the reason
 * in err.
 */
int	ps_hello_job(const struct ps_msg *m, int *alg, struct ps_ftrl *opt,
	    char *err, size_t errlen);

#endif
