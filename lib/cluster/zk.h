/*
 * zk.h: ZooKeeper's multi-threaded C client under a libevent loop: the
 * coordinator's (ps-ring serve -Z) and a node's (zkmember.h).
 *
 * The client library runs its own I/O and completion threads; every
 * completion and every watch is handed to the loop through a pipe and its
 * callback runs there, so the programs stay single-threaded.  zk_open
 * and zk_make_path wait, at most the session timeout, before the loop
 * runs; the calls a loop makes return at once and answer on it.
 *
 * A connect string is "host:port[,host:port...]/path": the ensemble and
 * the znode under which everything of one job lives (created if missing).
 * Relative names below are under that path.  With a secret, the session
 * authenticates as the digest user "pskit" (its password derived from the
 * secret) and the job's znode and all below it are readable and writable
 * by that user only; the path's parents are left open.
 */
#ifndef PS_CLUSTER_ZK_H
#define PS_CLUSTER_ZK_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

struct ps_secret;
struct zk;

/*
 * Called on the loop when the session is lost: expired (expired 1; so is
 * a refusal of its credentials), or no server of the ensemble answered
 * for the session timeout (expired 0: the ensemble may have expired it
 * meanwhile, or may take it back when it answers).  A coordinator must
 * take whatever the session held, ephemeral znodes included, as gone; a
 * node may renew the session (zk_renew) once it expired.
 */
typedef void	(*zk_lost_fn)(void *arg, int expired, const char *why);
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
 * The end of an asynchronous read, on the loop: rc is ZooKeeper's (ZNONODE
 * when there is no such znode), data its len bytes, NUL-terminated (freed
 * after the callback returns), version the znode's.
 */
typedef void	(*zk_data_fn)(void *arg, int rc, const char *data, size_t len,
		    int32_t version);
/*
 * The end of an asynchronous create, on the loop: rc is ZooKeeper's
 * (ZNODEEXISTS when it was there), name the znode made, relative to the
 * job's path (a sequential one's number included).
 */
typedef void	(*zk_created_fn)(void *arg, int rc, const char *name);

/*
 * Connect (waiting up to session_ms for the ensemble) and authenticate
 * with the secret (NULL: none; the caller keeps it).  NULL with the
 * reason in err.
 */
struct zk	*zk_open(struct event_base *base, const char *connect,
		    int session_ms, const struct ps_secret *secret,
		    zk_lost_fn lost, void *arg, char *err, size_t errlen);
/*
 * Create the job's path, each of its znodes that is missing (waiting, at
 * start-up).  0, or -1 with err.
 */
int		 zk_make_path(struct zk *zk, char *err, size_t errlen);
/*
 * After the session expired: start another, without waiting; back runs
 * on the loop once it is connected (and authenticated).  Watches and
 * ephemeral znodes of the old session are gone; calls made before it
 * are answered with an error, if at all.  0, or -1 with err.
 */
int		 zk_renew(struct zk *zk, zk_watch_fn back, void *arg, char *err,
		    size_t errlen);
void		 zk_close(struct zk *zk);
/* "host:port,.../path", for messages. */
const char	*zk_where(const struct zk *zk);
/* The session timeout the ensemble granted, in milliseconds. */
int		 zk_session_ms(const struct zk *zk);
/* Is s a valid connect string?  NULL, or why not. */
const char	*zk_connect_check(const char *s);

/*
 * The asynchronous calls: each returns 0 when sent (its callback then
 * runs later, on the loop, exactly once), or ZooKeeper's error code at
 * once.  zk_get_async reads rel; zk_create_async makes it with data and
 * ZooKeeper's flags (ZOO_EPHEMERAL, ZOO_SEQUENCE).  A read (a get, a
 * listing, a watch's exists) failed by the connection's loss is sent
 * again once the session is connected again: its callback sees a real
 * answer, or ZSESSIONEXPIRED after zk_renew; so is a create without
 * ZOO_SEQUENCE (ZNODEEXISTS if the first got through).  A set or a
 * sequential create so failed is answered with the error (zk_unsure):
 * the caller finds out.
 */
int		 zk_get_async(struct zk *zk, const char *rel, zk_data_fn done,
		    void *arg);
/*
 * zk_get_async after a sync: the answer holds every write the ensemble's
 * leader had committed when it was sent, a write whose answer a lost
 * connection took included (the server a session reconnects to may lag
 * behind the one that took that write).
 */
int		 zk_get_latest_async(struct zk *zk, const char *rel,
		    zk_data_fn done, void *arg);
int		 zk_create_async(struct zk *zk, const char *rel,
		    const char *data, size_t len, int flags,
		    zk_created_fn done, void *arg);

/*
 * Set rel's data if its version is still version: 0 when sent (done runs
 * later, on the loop, exactly once), or ZooKeeper's error code at once.
 */
int		 zk_set_async(struct zk *zk, const char *rel, const char *data,
		    size_t len, int32_t version, zk_done_fn done, void *arg);
/*
 * List rel's children without waiting: 0 when sent, or the error code.
 * With watch (not NULL), it runs once on the loop when the children
 * change after this listing.
 */
int		 zk_children_async(struct zk *zk, const char *rel,
		    zk_children_fn done, zk_watch_fn watch, void *arg);
/*
 * Watch rel without waiting: watch runs once on the loop when rel changes
 * or goes, or at once if it is gone already.  0, or -1 with err.
 */
int		 zk_watch(struct zk *zk, const char *rel, zk_watch_fn watch,
		    void *arg, char *err, size_t errlen);
/*
 * For one-shot commands (ps-ring forget), never on a daemon's loop: wait
 * for ZooKeeper.  zk_live_children: how many children rel has (0 when it
 * does not exist), or -1 with err.  zk_delete_tree: delete rel and every
 * znode below it ("" for the job's path itself), counting them in
 * *removed; 0, or -1 with err (what was deleted stays deleted).
 */
int		 zk_live_children(struct zk *zk, const char *rel, char *err,
		    size_t errlen);
int		 zk_delete_tree(struct zk *zk, const char *rel, size_t *removed,
		    char *err, size_t errlen);
/*
 * Did the connection's loss fail a call (ZCONNECTIONLOSS, a timeout), so
 * that a write's outcome is unknown?  (Reads are sent again: zk.c.)
 */
int		 zk_unsure(int rc);
/* ZooKeeper's text for an error code. */
const char	*zk_strerror(int rc);

#endif
