/*
 * failover.h: what keeps a job going when a server or a worker goes.
 *
 * A server with -C follows the coordinator's ring (coordlink.c) and
 * serves the keys it says are this server's (owner.c); a new ring moves
 * keys between servers (ringchange.c), and the keys that leave go to
 * their new owner (handoff.c).  With k replicas each round's result is
 * copied to the next k servers before any worker sees it, so one of them
 * can take over (replica.c).  A dbpg worker that went away may come back
 * and resume (rejoin.c).
 *
 * These units call the serving path (../server.h) directly; the serving
 * path calls them only through struct failover_ops, filled in by
 * failover.c.  Only failover/ and ps-server.c include this header.
 */
#ifndef PS_SERVER_FAILOVER_H
#define PS_SERVER_FAILOVER_H

#include "../server.h"

/* failover.c */
extern const struct failover_ops failover_ops;

/* owner.c */
int	owner_adopt(struct server *srv, struct ps_ring *ring);
int	owner_load(struct server *srv, uint32_t version, char *err,
	    size_t errlen);
int	owner_stale(const struct server *srv, const struct ps_msg *m);
int	owner_fence(const struct server *srv, const struct ps_msg *m,
	    char *err, size_t errlen);
int	owner_check(const struct server *srv, const uint64_t *keys, size_t n,
	    char *err, size_t errlen);

/* coordlink.c */
void	coordlink_start(struct server *srv);
void	coordlink_stop(struct server *srv);

/* ringchange.c */
void	ringchange_apply(struct server *srv);
void	ringchange_leave(struct server *srv);

/* replica.c */
int	replica_round(struct channel *ch, uint64_t t, const uint32_t *slots,
	    size_t nslots);
void	replica_resync(struct channel *ch);
void	replica_apply(struct server *srv, struct peer *p, struct ps_msg *m);
void	replica_links_free(struct server *srv);
void	replica_free(struct server *srv);
void	replica_apply_early(struct server *srv);
const char *replica_sender(const struct server *srv, const struct ps_msg *m);
void	replica_copy(struct channel *ch, uint64_t t, const uint32_t *slots,
	    size_t n);
int	replica_push(struct channel *ch, uint32_t worker, uint64_t t,
	    const uint32_t *slots, size_t nslots);
void	replica_floors(struct channel *ch);
void	replica_set_key(struct store *st, uint32_t s, const struct ps_msg *m,
	    size_t k, int online);
int	replica_send_store(struct channel *ch, const struct store *st,
	    size_t server, uint64_t t, int kind, const uint32_t *slots,
	    size_t n);

/* rejoin.c */
void	rejoin_start(struct channel *ch, const struct ps_hello *hello);
int	rejoin_gone(struct peer *p, const char *reason);
int	rejoin_hello(struct channel *ch, struct peer *p,
	    const struct ps_hello *hello, struct ps_hello_ok *said);
void	rejoin_pull(struct channel *ch, struct peer *p,
	    const struct ps_msg *m, uint64_t round);
void	rejoin_end(struct channel *ch);

/* handoff.c */
void	handoff_send(struct channel *ch, const struct store *old);
void	handoff_hold(struct server *srv);
void	handoff_answered(struct server *srv, int lost);
void	handoff_apply(struct channel *ch, const struct ps_msg *m,
	    const struct ps_replicate *rep);

#endif
