/*
 * zkmembers.c: with -Z, the leader watches the nodes' znodes (members/,
 * lib/cluster/zkmember.h).  A node whose znodes are all gone, its
 * ZooKeeper session over, is dead as one silent for the timeout is
 * (members.c): a server leaves the ring.  Only a live node is; one that
 * said BYE or was found dead already is left as it is.  A node started
 * again makes its new znode before it registers, so a znode that goes
 * while a newer one of the same node is there is no death.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <zookeeper/zookeeper.h>

#include "cluster/zk.h"
#include "serve.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define ZK_MEMBERS	"members"
#define ZK_SEQ_DIGITS	10	/* of a sequential znode's name */

static void	zkmembers_list(struct coord *co);

/* The node a znode names, "server-ADDR-" or "worker-K-": its prefix. */
static size_t
zkmembers_prefix(const char *name)
{
	size_t n = strlen(name);

	return n > ZK_SEQ_DIGITS ? n - ZK_SEQ_DIGITS : 0;
}

/* Does any of names belong to the node of prefix (len bytes)? */
static int
zkmembers_has(char **names, size_t n, const char *prefix, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (zkmembers_prefix(names[i]) == len &&
		    strncmp(names[i], prefix, len) == 0)
			return 1;
	return 0;
}

/* The live member a gone znode's prefix names, or NULL. */
static struct member *
zkmembers_find(struct coord *co, const char *prefix, size_t len)
{
	char id[PS_RING_MAX_ADDR + 16];
	struct member *mb = NULL;

	if (len < 2 || len - 1 >= sizeof id)
		return NULL;
	memcpy(id, prefix, len - 1);	/* without the '-' */
	id[len - 1] = '\0';
	if (strncmp(id, "server-", 7) == 0)
		mb = member_server(co, id + 7);
	else if (strncmp(id, "worker-", 7) == 0)
		mb = member_worker(co, (uint32_t)strtoul(id + 7, NULL, 10));
	return mb != NULL && mb->state == MEMBER_LIVE ? mb : NULL;
}

/* A listing: the nodes whose last znode went since the one before die. */
static void
zkmembers_listed(void *arg, int rc, char **names, size_t n)
{
	struct coord *co = arg;
	struct member *mb;
	size_t i, len;

	if (rc != ZOK)
		fatalx(EX_UNAVAILABLE, "cannot list the nodes in %s: %s",
		    zk_where(co->zk), zk_strerror(rc));
	for (i = 0; i < co->zk_nmembers; i++) {
		len = zkmembers_prefix(co->zk_members[i]);
		if (zkmembers_has(names, n, co->zk_members[i], len))
			continue;
		if ((mb = zkmembers_find(co, co->zk_members[i], len)) != NULL)
			member_dead(co, mb, "its ZooKeeper session ended "
			    "(" ZK_MEMBERS "/%s went)", co->zk_members[i]);
	}
	zkmembers_free(co);
	co->zk_members = xcalloc(n + 1, sizeof *co->zk_members);
	for (i = 0; i < n; i++)
		co->zk_members[i] = xstrdup(names[i]);
	co->zk_nmembers = n;
}

static void
zkmembers_changed(void *arg)
{
	zkmembers_list(arg);
}

static void
zkmembers_list(struct coord *co)
{
	int rc = zk_children_async(co->zk, ZK_MEMBERS, zkmembers_listed,
	    zkmembers_changed, co);

	if (rc != ZOK)
		fatalx(EX_UNAVAILABLE, "cannot list the nodes in %s: %s",
		    zk_where(co->zk), zk_strerror(rc));
}

/* members/ is there (made now or before): list it, watching. */
static void
zkmembers_made(void *arg, int rc, const char *name)
{
	struct coord *co = arg;

	if (rc != ZOK && rc != ZNODEEXISTS)
		fatalx(EX_UNAVAILABLE, "cannot make the nodes' znode in %s: %s",
		    zk_where(co->zk), zk_strerror(rc));
	zkmembers_list(co);
}

void
zkmembers_watch(struct coord *co)
{
	int rc = zk_create_async(co->zk, ZK_MEMBERS, NULL, 0, 0,
	    zkmembers_made, co);

	if (rc != ZOK)
		fatalx(EX_UNAVAILABLE, "cannot make the nodes' znode in %s: %s",
		    zk_where(co->zk), zk_strerror(rc));
}

void
zkmembers_free(struct coord *co)
{
	while (co->zk_nmembers > 0)
		free(co->zk_members[--co->zk_nmembers]);
	free(co->zk_members);
	co->zk_members = NULL;
}
