/*
 * keycache.h: key caching, one of the traffic filters (Li et al., OSDI 2014,
 * section 4.2).  A worker sends the same key lists again and again (a
 * block's keys for a server, pass after pass), so both ends of a
 * connection remember recent lists by a signature and the sender then sends
 * 8 bytes instead of the list.
 *
 * The signature covers every key of the list and its length (a chained
 * 64-bit mix), not a sample: two lists that differ anywhere get different
 * signatures but with probability about 2^-64.  The sender keeps only the
 * signatures it believes the receiver holds; the receiver keeps the lists.
 * Both forget the oldest lists first once they hold more than max_keys
 * keys, and the receiver may hold less than the sender thinks (a smaller
 * budget, a restart): it then answers KEYS_MISSING and the sender forgets
 * that signature and sends the message again with its keys (wire.h).
 *
 * Lookups scan the entries from the newest: a cache holds one list per
 * (block, server) pair, some hundreds, so this costs less than decoding.
 * The receiver keeps each list as the wire does (varint.h): the first key,
 * then each one's difference from the one before (modulo 2^64, so any
 * order is kept exactly), a byte or two a key instead of eight for the
 * ascending lists of dbpg; ps_keycache_keys() unpacks one.
 */
#ifndef PS_KEYCACHE_H
#define PS_KEYCACHE_H

#include <stddef.h>
#include <stdint.h>

/* Lists shorter than this are always sent as keys. */
#define PS_KEYCACHE_MIN_KEYS	16
/* Default budget of one connection's cache, in keys. */
#define PS_KEYCACHE_DEFAULT	(4u << 20)

struct ps_keycache_entry {
	uint64_t	 sig;
	uint32_t	 n;
	uint8_t		*packed;	/* the n keys as delta varints, owned;
					   NULL on the sending side */
	size_t		 packed_len;	/* bytes in packed */
};

struct ps_keycache {
	struct ps_keycache_entry *ent;	/* FIFO: ent[head .. head+count) mod cap */
	size_t		 cap, head, count;
	size_t		 nkeys, max_keys;
	int		 keep_lists;
};

/* Signature of the n keys (any order is hashed as given). */
uint64_t	ps_keysig(const uint64_t *keys, uint32_t n);

/*
 * An empty cache holding at most max_keys keys (0: every lookup misses);
 * keep_lists 1 on the receiving side (copies of the lists), 0 on the
 * sending side (signatures only).
 */
void		ps_keycache_init(struct ps_keycache *kc, size_t max_keys,
		    int keep_lists);
void		ps_keycache_release(struct ps_keycache *kc);

/* The entry for sig with n keys, or NULL. */
const struct ps_keycache_entry *ps_keycache_find(const struct ps_keycache *kc,
		    uint64_t sig, uint32_t n);
/* The n keys of a receiving side's entry e into keys; -1 if damaged. */
int		ps_keycache_keys(const struct ps_keycache_entry *e,
		    uint64_t *keys);
/* Remember the list (packed when keep_lists), evicting the oldest ones. */
void		ps_keycache_put(struct ps_keycache *kc, uint64_t sig,
		    const uint64_t *keys, uint32_t n);
/* Forget sig (after the receiver said it lost it); absent is fine. */
void		ps_keycache_forget(struct ps_keycache *kc, uint64_t sig);

#endif
