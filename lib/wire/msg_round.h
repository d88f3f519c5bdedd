/*
 * msg_round.h: the f64 scalars (aux, wire.h) of a dbpg or newton round's
 * messages,
 * as structs with named fields: one encode and one decode per message
 * (msg_round.c).  ps-worker (dbpg.c, resume.c) sends the requests and
 * ps-server (round.c, rejoin.c) answers them.  Only the codec indexes
 * aux; an encoder sets naux and aux of a message whose header the caller
 * fills, a decoder reads a message admitted by the receiver's rules
 * (admit.h) and fills the struct, absent optional scalars taking the
 * values said below.
 *
 *   PUSH        aux  field
 *                 0  loss    the worker's loss at the push
 *                 1  vote    its stopping vote (INFINITY: abstains); 0
 *                            when absent
 *                 2  ckpt    optional: 1 asks every server for a
 *                            checkpoint once it applied the round
 *                            (cmd/ps-server/checkpoint.c)
 *   PUSH        aux  field   (a newton job's gradient round, t % 3 == 0)
 *               0-2          as a dbpg PUSH's
 *                 3  radius  optional: the trust radius the worker
 *                            holds; NAN when it came back and does not
 *                            know it (cmd/ps-worker/newton.c)
 *   PUSH        aux  field   (a newton job's step round, t % 3 == 2)
 *               0-2          as a dbpg PUSH's
 *                 3  kkt     the worker's part of the KKT violation at w
 *                 4  pred    its part of the model's predicted decrease
 *                 5  f0      its part of F(w)
 *              6-17  trial   its part of F(w + 4 2^-k dbar), k = 0 .. 11
 *                            (cmd/ps-worker/newton.c says how the parts
 *                            are cut; the servers add them up)
 *   PULL        aux  field   (the round's pull: NOKEYS, no CURRENT)
 *                 0  theta   optional: the significantly-modified
 *                            filter's threshold, >= 0 (NAN: absent)
 *   PULL_REPLY  aux  field   (to a round's pull)
 *               0-5  result  struct ps_round_result, in its order
 *                 6  again   optional: 1 when the worker took this
 *                            round's weights before (it came back,
 *                            round.c invariant 9)
 *                 7  ckpt    optional: 1 asks worker 0 to flag its next
 *                            push for a checkpoint
 *                 8  kkt     optional: the result's kkt (NAN: absent)
 *                 9  step    optional: a newton step round's step
 *                            (NAN: absent)
 *                10  radius  optional: a newton gradient round's trust
 *                            radius, the first its pushes know (NAN:
 *                            absent; step is then sent, NAN)
 *   PULL        aux  field   (a resume pull: CURRENT, rejoin.c)
 *                 0  1       says it is one
 *                 1  round   the round the worker resumes at: the state
 *                            before it is asked for
 */
#ifndef PS_MSG_ROUND_H
#define PS_MSG_ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "wire/wire.h"

/*
 * The highest round a dbpg job may have: a server keeps each key's last
 * round, plus one, in 31 bits (cmd/ps-server/server.h, struct store), and
 * refuses a push or a copy stamped later; ps-worker's -m stays within it
 * (its final round is numbered -m).  At a round a millisecond, 24 days.
 */
#define PS_ROUND_MAX	UINT64_C(2147483646)

/* Scalars each message carries at most (for the receivers' rules). */
#define PS_DBPG_PUSH_NAUX	3
#define PS_NEWTON_TRIALS	12
#define PS_NEWTON_PUSH_NAUX	(6 + PS_NEWTON_TRIALS)
#define PS_ROUND_PULL_NAUX	1
#define PS_RESUME_PULL_NAUX	2

/* A dbpg PUSH's scalars. */
struct ps_dbpg_push {
	double	 loss;		/* the worker's loss at the push */
	double	 vote;		/* its stopping vote; INFINITY abstains */
	int	 ckpt;		/* 1: a checkpoint after this round */
};

/* A newton gradient round's PUSH scalars: a dbpg push's, the radius. */
struct ps_newton_grad_push {
	struct ps_dbpg_push base;
	double	 radius;	/* NAN: not known */
};

/* A newton step round's PUSH scalars: a dbpg push's, then the parts. */
struct ps_newton_push {
	struct ps_dbpg_push base;
	double	 kkt;		/* part of the KKT violation at w */
	double	 pred;		/* part of the predicted decrease */
	double	 f0;		/* part of F(w) */
	double	 trial[PS_NEWTON_TRIALS];	/* parts of F(w + 4 2^-k d) */
};

/*
 * A completed round's result, the same in every reply to its pulls: the
 * summed loss, l1 and nnz before the step, l1 and nnz after, the lowest
 * stopping vote of the workers, and the sum over the round's keys of
 * their KKT violation before the step (prox.h), the stopping measure.
 */
struct ps_round_result {
	double	 loss;		/* NAN: the worker takes another server's;
				   a newton step round's: F at the step
				   taken, as the workers' trials sum it */
	double	 l1_before;
	double	 nnz_before;
	double	 l1_after;
	double	 nnz_after;
	double	 vote;		/* INFINITY: no vote */
	double	 kkt;		/* sum of ps_kkt_violation() */
	double	 step;		/* newton step round: its step; else NAN */
	double	 radius;	/* newton gradient round: the trust radius;
				   else NAN */
};

/* The scalars of the reply to a round's pull. */
struct ps_round_reply {
	struct ps_round_result result;
	int	 again;		/* weights taken before (invariant 9) */
	int	 ckpt;		/* worker 0: flag the next push */
};

void	ps_dbpg_push_encode(const struct ps_dbpg_push *p, struct ps_msg *m);
void	ps_dbpg_push_decode(const struct ps_msg *m, struct ps_dbpg_push *p);
void	ps_newton_grad_push_encode(const struct ps_newton_grad_push *p,
	    struct ps_msg *m);
/* An absent radius reads NAN. */
void	ps_newton_grad_push_decode(const struct ps_msg *m,
	    struct ps_newton_grad_push *p);
void	ps_newton_push_encode(const struct ps_newton_push *p,
	    struct ps_msg *m);
/* Absent parts read NAN (the server then takes no step). */
void	ps_newton_push_decode(const struct ps_msg *m,
	    struct ps_newton_push *p);

/* A round's pull: theta NAN sends no scalar. */
void	ps_round_pull_encode(double theta, struct ps_msg *m);
/*
 * Its threshold in *theta (NAN when absent); -1 with the reason in err
 * for one that is not >= 0.
 */
int	ps_round_pull_decode(const struct ps_msg *m, double *theta, char *err,
	    size_t errlen);

void	ps_round_reply_encode(const struct ps_round_reply *r, struct ps_msg *m);
/* -1 when m carries fewer scalars than the result's first five. */
int	ps_round_reply_decode(const struct ps_msg *m, struct ps_round_reply *r);

/* A resume pull for the state before round. */
void	ps_resume_pull_encode(uint64_t round, struct ps_msg *m);
/*
 * Of a CURRENT pull: 0 and *is_resume 0 for a plain one; *is_resume 1 for
 * a resume pull, 0 and *round set, or -1 with the reason in err when it
 * lacks a valid round.
 */
int	ps_resume_pull_decode(const struct ps_msg *m, int *is_resume,
	    uint64_t *round, char *err, size_t errlen);

#endif
