/*
 * zk.h: ZooKeeper's multi-threaded C client under the coordinator's
 * libevent loop.
 *
 * The client library runs its own I/O and completion threads; every
 * completion and every watch is handed to the loop through a pipe and its
 * callback runs there, so the rest of ps-ring stays single-threaded.  The
 * synchronous calls (zk_open, zk_get, zk_create) wait, at most the session
 * timeout: they are for start-up and for a standby taking over the lead,
 * before it has anything else to serve (leader.c).
 *
 * A connect string is "host:port[,host:port...]/path": the ensemble and
 * the znode under which everything of one job lives (created if missing).
 * Relative names below are under that path.
 */
#ifndef PS_RING_ZK_H
#define PS_RING_ZK_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

struct zk;

/*
 * Called on the loop when the session is lost for good: expired, or no
 * server of the ensemble answered for the session timeout (the ensemble
 * may have expired it meanwhile).  Whatever the session held, ephemeral
 * znodes included, must then be taken as gone.
 */
typedef void	(*zk_lost_fn)(void *arg, const char *why);
/*
 * The end of an asynchronous set, on the loop: rc is ZooKeeper's (ZOK,
 * ZBADVERSION, ...) and version the znode's new version.
 */
typedef void	(*zk_done_fn)(void *arg, int rc, int32_t version);
/* A one-time watch fired (the znode changed or went), on the loop. */
typedef void	(*zk_watch_fn)(void *arg);
/*
 * The end of an asynchronous listing, on the loop: rc is ZooKeeper's and
 * names the n children, sorted (freed after the callback returns).
 */
typedef void	(*zk_children_fn)(void *arg, int rc, char **names, size_t n);

/*
 * Connect (waiting up to session_ms for the ensemble), then create the
 * path's znodes that are missing.  NULL with the reason in err.
 */
struct zk	*zk_open(struct event_base *base, const char *connect,
		    int session_ms, zk_lost_fn lost, void *arg, char *err,
		    size_t errlen);
void		 zk_close(struct zk *zk);
/* "host:port,.../path", for messages. */
const char	*zk_where(const struct zk *zk);
/* The session timeout the ensemble granted, in milliseconds. */
int		 zk_session_ms(const struct zk *zk);
/* Is s a valid connect string?  NULL, or why not. */
const char	*zk_connect_check(const char *s);

/*
 * Start-up calls.  zk_get: the data of rel (malloc'd, NUL-terminated) and
 * its version; 0, 1 when there is no such znode, -1 with err.  zk_create:
 * 0, 1 when it exists already, -1 with err; flags are ZooKeeper's
 * (ZOO_EPHEMERAL, ZOO_SEQUENCE) and the created name goes to made.
 */
int		 zk_get(struct zk *zk, const char *rel, char **data,
		    size_t *len, int32_t *version, char *err, size_t errlen);
int		 zk_create(struct zk *zk, const char *rel, const char *data,
		    size_t len, int flags, char *made, size_t madelen,
		    char *err, size_t errlen);

/*
 * Set rel's data if its version is still version: 0 when sent (done runs
 * later, on the loop, exactly once), or ZooKeeper's error code at once.
 */
int		 zk_set_async(struct zk *zk, const char *rel, const char *data,
		    size_t len, int32_t version, zk_done_fn done, void *arg);
/* List rel's children without waiting: 0 when sent, or the error code. */
int		 zk_children_async(struct zk *zk, const char *rel,
		    zk_children_fn done, void *arg);
/*
 * Watch rel without waiting: watch runs once on the loop when rel changes
 * or goes, or at once if it is gone already.  0, or -1 with err.
 */
int		 zk_watch(struct zk *zk, const char *rel, zk_watch_fn watch,
		    void *arg, char *err, size_t errlen);
/* ZooKeeper's text for an error code. */
const char	*zk_strerror(int rc);

#endif
