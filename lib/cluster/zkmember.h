/*
 * zkmember.h: a node's presence in its job's ZooKeeper (ps-server -Z,
 * ps-worker -Z).
 *
 * The node holds an ephemeral, sequential znode members/NAME-NNNNNNNNNN
 * for as long as its session lives: the leading coordinator takes its
 * going (the session expired) for the node's failure.  NAME is
 * "server-HOST:PORT" (the address it serves) or "worker-K".  The node
 * also reads which coordinator leads: the lowest of the coordinators'
 * queue coord/c-NNNNNNNNNN holds its address (ps-ring serve -Z), and the
 * node follows it as the queue changes.  A session that expires is
 * renewed and the znode made again; while no ZooKeeper server answers,
 * the node goes on with the coordinator it follows.
 */
#ifndef PS_CLUSTER_ZKMEMBER_H
#define PS_CLUSTER_ZKMEMBER_H

#include <stddef.h>

#include <event2/event.h>

struct ps_secret;
struct ps_zk_member;

/* The leading coordinator's address, on the loop, each time it changes. */
typedef void	(*ps_zk_leader_fn)(void *arg, const char *addr);

/*
 * Open the session (waiting up to session_ms: call it before the loop
 * runs), then, on the loop, make the znode and follow the leader.  The
 * strings are copied; the secret (NULL: none) must outlive the member.
 * NULL with the reason in err.
 */
struct ps_zk_member *ps_zk_member_open(struct event_base *base,
		    const char *connect, int session_ms,
		    const struct ps_secret *secret, const char *name,
		    ps_zk_leader_fn leader, void *arg, char *err,
		    size_t errlen);
/* Close the session (its znode goes at once) and free m; NULL is fine. */
void		 ps_zk_member_free(struct ps_zk_member *m);

/* The default session timeout of -Z, in milliseconds. */
#define PS_ZK_SESSION_MS	2000

#endif
