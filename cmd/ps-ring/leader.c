/*
 * leader.c: coordinators on one ZooKeeper path (-Z) elect one, by the
 * standard recipe: each makes an ephemeral, sequential znode
 * coord/c-NNNNNNNNNN holding its address; the lowest leads; every other
 * watches the one just below its own and, when that goes (its coordinator
 * died or lost its session), lists the queue again.  A standby has bound
 * its address but does not listen, so nodes that try it are refused and
 * take the coordinator for gone (lib/cluster/coord.h, rule 4) until it
 * leads.  Two leaders cannot both publish: the ring store's
 * compare-and-set (ringstore_zk.c) fences the one overtaken.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <zookeeper/zookeeper.h>

#include "serve.h"
#include "util/log.h"
#include "cluster/zk.h"

#define LEADER_QUEUE	"coord"

static void	leader_check(struct coord *co);

/* The znode below ours went: see where we stand now. */
static void
leader_watch_cb(void *arg)
{
	leader_check(arg);
}

/* The queue, listed: lead, or watch the one below us. */
static void
leader_listed_cb(void *arg, int rc, char **names, size_t n)
{
	struct coord *co = arg;
	const char *mine = strrchr(co->election, '/') + 1;
	char below[128], err[512];
	size_t i;

	if (rc != ZOK)
		fatalx(EX_UNAVAILABLE, "cannot list the coordinators' queue in "
		    "%s: %s", zk_where(co->zk), zk_strerror(rc));
	for (i = 0; i < n && strcmp(names[i], mine) != 0; i++)
		;
	if (i == n)
		fatalx(EX_UNAVAILABLE, "%s left the coordinators' queue (its "
		    "session ended): another may lead now", co->election);
	if (i == 0) {
		co->lead(co);
		return;
	}
	if (!co->standby_said) {
		printf("standby %s\n", co->bound);
		if (fflush(stdout) != 0)
			fatal(EX_IOERR, "stdout");
		co->standby_said = 1;
	}
	snprintf(below, sizeof below, LEADER_QUEUE "/%s", names[i - 1]);
	log_info("standby: %zu coordinator%s ahead in %s; watching %s", i,
	    i > 1 ? "s" : "", zk_where(co->zk), below);
	if (zk_watch(co->zk, below, leader_watch_cb, co, err, sizeof err) != 0)
		fatalx(EX_UNAVAILABLE, "%s", err);
}

static void
leader_check(struct coord *co)
{
	int rc = zk_children_async(co->zk, LEADER_QUEUE, leader_listed_cb,
	    NULL, co);

	if (rc != ZOK)
		fatalx(EX_UNAVAILABLE, "cannot list the coordinators' queue in "
		    "%s: %s", zk_where(co->zk), zk_strerror(rc));
}

/* Our place in the queue is made: see where we stand. */
static void
leader_queued_cb(void *arg, int rc, const char *name)
{
	struct coord *co = arg;

	if (rc != ZOK)
		fatalx(EX_UNAVAILABLE, "cannot join the coordinators' queue "
		    "in %s: %s", zk_where(co->zk), zk_strerror(rc));
	snprintf(co->election, sizeof co->election, "%s", name);
	log_info("in the coordinators' queue of %s as %s", zk_where(co->zk),
	    co->election);
	leader_check(co);
}

/* The queue's znode is there (made now or before): join it. */
static void
leader_queue_cb(void *arg, int rc, const char *name)
{
	struct coord *co = arg;

	if (rc == ZOK || rc == ZNODEEXISTS)
		rc = zk_create_async(co->zk, LEADER_QUEUE "/c-", co->bound,
		    strlen(co->bound), ZOO_EPHEMERAL | ZOO_SEQUENCE,
		    leader_queued_cb, co);
	if (rc != ZOK)
		fatalx(EX_UNAVAILABLE, "cannot join the coordinators' queue "
		    "in %s: %s", zk_where(co->zk), zk_strerror(rc));
}

void
leader_elect(struct coord *co)
{
	int rc = zk_create_async(co->zk, LEADER_QUEUE, NULL, 0, 0,
	    leader_queue_cb, co);

	if (rc != ZOK)
		fatalx(EX_UNAVAILABLE, "cannot make the coordinators' queue "
		    "in %s: %s", zk_where(co->zk), zk_strerror(rc));
}
