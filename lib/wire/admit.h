/*
 * admit.h: the one check a decoded message passes before any handler sees
 * it.  ps_msg_decode() (wire.h) proves a frame well formed; this proves it
 * is a message the receiver expects, in the state its connection is in.
 *
 * A receiver describes what it takes as a table of rules, one per message
 * it handles (a type, and the flags that tell its variants apart), each
 * saying in which of the receiver's connection states it may come and how
 * it must look: the other flags it may carry, its keys, its width, how
 * many f64 scalars (aux) it carries and how long its blob may be.  A
 * message that matches no rule, or breaks one, is refused with a reason
 * naming the message and what is wrong; the receiver sends it back as an
 * ERROR, counts it and closes the connection.
 *
 * What an admitted message m under rule r guarantees its handler:
 *  1. m->flags has only flags r names; r->naux_min <= m->naux <= r->naux_max,
 *     so a decoder may read the first naux_min scalars without looking
 *     at naux;
 *     r->width_min <= m->width <= r->width_max; bloblen <= r->blob_max.
 *  2. Keys, by r->keys:
 *     PS_KEYS_NONE   nkeys 0 (with NOKEYS or an empty list): keys and
 *                    vals are NULL.
 *     PS_KEYS_COUNT  NOKEYS; nkeys is a count the sender states (of the
 *                    keys of an earlier request), backed by nothing: a
 *                    handler neither indexes nor allocates by it.
 *     PS_KEYS_LIST   no NOKEYS: m->keys holds nkeys ascending keys, and
 *                    m->vals nkeys * width values; or, only where r allows
 *                    KEYSIG, KEYSIG is still set, keys is NULL and the
 *                    list is awaited (conn.h): the handler must not act.
 *     PS_KEYS_VALUES keys listed as above, or NOKEYS with m->vals holding
 *                    nkeys * width values (a reply to a request's keys);
 *                    width >= 1 then, so nkeys is backed by payload.
 * Every allocation a handler makes from nkeys is so backed by payload
 * bytes already received: at least one byte a listed key, four bytes a
 * value.
 */
#ifndef PS_ADMIT_H
#define PS_ADMIT_H

#include <stddef.h>
#include <stdint.h>

#include "wire/wire.h"

enum ps_keys_rule {
	PS_KEYS_NONE,
	PS_KEYS_COUNT,
	PS_KEYS_LIST,
	PS_KEYS_VALUES
};

struct ps_msg_rule {
	const char	*what;		/* "sgd push": names it in errors */
	uint8_t		 type;		/* enum ps_msg_type */
	unsigned	 states;	/* bit mask of the receiver's states */
	uint8_t		 pick_mask;	/* the rule is m's when */
	uint8_t		 pick;		/* (m->flags & pick_mask) == pick */
	uint8_t		 flags;		/* other flags it may carry */
	uint8_t		 keys;		/* enum ps_keys_rule */
	uint8_t		 width_min, width_max;
	uint8_t		 naux_min, naux_max;
	uint32_t	 blob_max;	/* bytes */
};

/*
 * Find the rule of rules[0 .. n - 1] for m in state (one bit of the
 * states masks) and check m against it.  Return the rule, or NULL with
 * the reason in err: "PUSH is not expected before hello" (state_name
 * names the state), "sgd push: width 2, expected 1", ...
 */
const struct ps_msg_rule *ps_msg_admit(const struct ps_msg_rule *rules,
	    size_t n, unsigned state, const char *state_name,
	    const struct ps_msg *m, char *err, size_t errlen);

/*
 * True when the scalar v is a whole number in [lo, hi]: then it converts
 * to an integer type that holds lo and hi (NaN, infinities and fractions
 * do not), and may count or index.
 */
int	ps_aux_whole(double v, double lo, double hi);

#endif
