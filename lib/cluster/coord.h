/*
 * coord.h: the coordinator protocol (ps-ring serve, pskit(7)) and the node
 * side of it that ps-server and ps-worker share (coord.c).
 *
 * Each node keeps one connection to the coordinator and speaks pskit
 * frames (wire.h) on it.  A coordinator with a secret (ps-ring serve -a)
 * first runs the handshake of auth.h on every connection, as a server
 * does; nodes and text clients must then prove the same secret before
 * anything else.  Fields not named below are 0; the scalars (aux) are
 * struct ps_register, the RING's timeout and struct ps_heartbeat, whose
 * codec is msg_coord.h.
 *
 *   REGISTER   node -> coordinator, first on each connection
 *              scalars: role, the worker's id (workers), join (servers:
 *                     1 join the ring now, 0 wait as a standby until
 *                     `ps-ring add`)
 *              blob   the server's listening "host:port" (servers)
 *   RING       coordinator -> node: ring_version v, blob the pskit-ring(5)
 *              text of version v
 *              scalar: the coordinator's timeout in milliseconds
 *   HEARTBEAT  node -> coordinator every PS_COORD_HEARTBEAT_MS, and at once
 *              after a node applied a RING (its acknowledgement); and
 *              coordinator -> node every PS_COORD_HEARTBEAT_MS (rule 7),
 *              ring_version the published one, nothing else
 *              ring_version the version the node holds
 *              scalars (servers): counters since the start
 *                     (PS_COORD_HB_*) and the version it still copies for
 *   BYE        node -> coordinator: leaving for good (a worker whose job
 *              ended); the coordinator reports it as "left", not dead
 *   ERROR      coordinator -> node: why a REGISTER was refused; the
 *              coordinator then closes the connection
 *
 * Rules:
 *   1. A connection that drops marks its node dead at once; one silent for
 *      the coordinator's timeout (default PS_COORD_TIMEOUT_MS) is marked
 *      dead, sent an ERROR saying so and its connection closed, so a hung
 *      node that wakes up finds itself cut off (fencing).  A node whose
 *      heartbeats stay unacknowledged for that timeout less one heartbeat
 *      interval (at least one interval) gives the connection up itself, so
 *      a node cut off silently, its packets dropped, knows it shortly after
 *      the coordinator declares it dead, and not only once the network
 *      heals.
 *   2. A dead server leaves the ring (version + 1).  A server that comes
 *      back registers again as a new member.
 *   3. Publishing version v: persist it, send it to every live server,
 *      wait until each acknowledged v (a server that does not within the
 *      timeout is dead, which makes another version), then send it to the
 *      workers.  No worker acts on a version its servers do not hold.
 *   4. A server refuses requests stamped with a ring version other than
 *      the one it holds.  A node that lost its coordinator tells two cases
 *      apart.  The coordinator went away (gone): its connection closed or
 *      was reset without an ERROR, and every connect since was refused;
 *      no ring can change until a coordinator serves there again, so a
 *      server keeps serving the version it holds.  Cut off: an ERROR (this
 *      node was declared dead), a silent link (a timeout) or a connect
 *      that fails otherwise; the coordinator may be running and publishing
 *      without this node, so a server refuses all key traffic until it
 *      holds a ring again.
 *   5. A coordinator started again on its ring store (the same file and
 *      address) gives the servers of the stored ring PS_COORD_GRACE_MS
 *      and its timeout to register again before they are dead, and sends
 *      workers the ring only once every one of them holds it (the one
 *      before may have died publishing it); its versions go on from the
 *      stored one.  A coordinator that did not run for over half its
 *      timeout (stopped, suspended) takes the silence meanwhile for its
 *      own: the nodes get the timeout again, counted from its waking.
 *   6. A node without a coordinator for longer than its wait
 *      (ps_coord_node_set_wait) gives up.
 *   7. Several coordinators (ps-ring serve -Z) elect one through
 *      ZooKeeper; the others have bound their address but do not listen.
 *      A node given their list tries each in turn until one takes it; a
 *      node that follows ZooKeeper (ps_coord_node_follow, zkmember.h)
 *      goes to the leader it names.
 *      The coordinator sends every live node a HEARTBEAT (the published
 *      version) every PS_COORD_HEARTBEAT_MS, and such a node gives up a
 *      connection that says nothing for the coordinator's timeout (before
 *      a RING, PS_COORD_SILENCE_FIRST_MS) as cut off: a stopped leader
 *      loses its session, and the next one leads and publishes.
 */
#ifndef PS_COORD_H
#define PS_COORD_H

#include <stdint.h>

#include <event2/event.h>

#include "cluster/ring.h"
#include "wire/auth.h"
#include "wire/msg_coord.h"
#include "wire/wire.h"

#define PS_COORD_HEARTBEAT_MS	100	/* a node's heartbeat interval */
#define PS_COORD_TIMEOUT_MS	300	/* default silence before "dead" */
#define PS_COORD_TIMEOUT_MIN_MS	10	/* bounds of ps-ring serve -t */
#define PS_COORD_TIMEOUT_MAX_MS	600000
#define PS_COORD_GRACE_MS	3000	/* servers of a loaded ring have this
					   long to register again */
#define PS_COORD_RETRY_MIN_MS	50	/* a node's reconnect backoff */
#define PS_COORD_RETRY_MAX_MS	1000
#define PS_COORD_RETRY_GONE_MS	100	/* while connects are refused */
#define PS_COORD_WAIT_S		30	/* default of a node's wait */
#define PS_COORD_CONNECT_S	1.0	/* seconds allowed for one connect */
#define PS_COORD_SILENCE_FIRST_MS 2000	/* rule 7, until a RING says the
					   coordinator's timeout */

/*
 * A server's HEARTBEAT says the ring version it is still copying segments
 * for (copying; 0: none).  Its ring_version then stays the one before,
 * and the coordinator waits for it up to PS_COORD_COPY_MAX_MS instead of
 * its timeout.
 */
#define PS_COORD_COPY_MAX_MS	60000

struct ps_coord_node;

/* What a node's owner hears from its coordinator link. */
struct ps_coord_node_cbs {
	/* A RING arrived; the callback owns *ring (ps_ring_release). */
	void	(*ring)(struct ps_ring *ring, void *arg);
	/*
	 * The connection is gone (why); the link reconnects by itself.
	 * gone is 1 when the coordinator went away, 0 when this node is cut
	 * off (rule 4); a link that was gone calls it again with 0 when a
	 * connect fails other than by a refusal.
	 */
	void	(*lost)(const char *why, int gone, void *arg);
	/*
	 * The coordinator refused this node's secret, or asked for one it
	 * was not given (ps_conn_is_auth_refused); the link has stopped for
	 * good.  The owner should exit 77.  A coordinator that does not
	 * challenge in time is lost instead, and tried again.
	 */
	void	(*refused)(const char *why, void *arg);
	/* Fill a heartbeat's counters and ncounts (servers); NULL: none. */
	void	(*counters)(struct ps_heartbeat *hb, void *arg);
	/*
	 * No RING came for the wait since the link was lost, or since it
	 * started without a coordinator named (rule 6); the link has stopped
	 * for good.  The owner should exit 69.
	 */
	void	(*gave_up)(const char *why, void *arg);
};

/*
 * Start a node's link to the coordinator at addr, or to whichever of a
 * comma-separated list leads (ps-ring serve -Z), or (addr NULL) to the
 * one ps_coord_node_follow() names later: connect (retrying with
 * a backoff from PS_COORD_RETRY_MIN_MS to PS_COORD_RETRY_MAX_MS, or to
 * PS_COORD_RETRY_GONE_MS while the coordinator is gone), REGISTER
 * with role, id, join and self (a server's "host:port"; NULL for workers),
 * heartbeat, and acknowledge each RING once the ring callback returned.
 * With a secret (not NULL) every connection first proves it.  The strings
 * and the secret stay the caller's and must outlive the link.
 */
struct ps_coord_node *ps_coord_node_new(struct event_base *base,
		    const char *addr, int role, uint32_t id, int join,
		    const char *self, const struct ps_secret *secret,
		    const struct ps_coord_node_cbs *cbs, void *arg);
/*
 * Talk to the coordinator at addr from now on (the leader ZooKeeper names,
 * zkmember.h): a connection to another one is dropped as gone (rule 4)
 * and addr tried at once.  A link made with addr NULL waits for this
 * before it connects (its wait runs from its start).  addr is copied.
 */
void		 ps_coord_node_follow(struct ps_coord_node *n,
		    const char *addr);
/*
 * Give up (the gave_up callback) once the link has been lost for secs
 * seconds without a RING since; 0: never.  The default is PS_COORD_WAIT_S.
 */
void		 ps_coord_node_set_wait(struct ps_coord_node *n, double secs);
/*
 * Say BYE and close once it is flushed (the loop must run a little);
 * no more heartbeats or reconnecting.  Free the link afterwards.
 */
void		 ps_coord_node_leave(struct ps_coord_node *n);
/*
 * From the ring callback: do not acknowledge this ring yet (segments are
 * being copied); ps_coord_node_ack() does, when they are.  A later ring
 * drops the hold.
 */
void		 ps_coord_node_hold(struct ps_coord_node *n);
void		 ps_coord_node_ack(struct ps_coord_node *n);
/* Why the last connection attempt failed or the link dropped, or "". */
const char	*ps_coord_node_error(const struct ps_coord_node *n);
/* Close the connection and free the link; NULL is fine. */
void		 ps_coord_node_free(struct ps_coord_node *n);
/*
 * Split "host:port[,host:port...]" into *n strings; the caller frees them
 * with ps_coord_split_free().
 */
char		**ps_coord_split(const char *list, size_t *n);
void		 ps_coord_split_free(char **addrs, size_t n);
/* Is each address of such a list well formed?  0, or -1 with err. */
int		 ps_coord_list_check(const char *list, char *err,
		    size_t errlen);

#endif
