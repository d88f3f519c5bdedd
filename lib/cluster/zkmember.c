/*
 * zkmember.c: a node's znode in its job's ZooKeeper, and the leading
 * coordinator it follows (see zkmember.h).  Every step is an asynchronous
 * call whose answer runs on the loop: make members/, make our znode, list
 * the coordinators' queue (watching it), read the first one's address.
 * A listing that finds no coordinator is tried again every
 * ZK_MEMBER_RETRY_MS.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <zookeeper/zookeeper.h>

#include "cluster/zk.h"
#include "cluster/zkmember.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define ZK_MEMBER_RETRY_MS	200
#define ZK_MEMBERS		"members"
#define ZK_QUEUE		"coord"

struct ps_zk_member {
	struct zk	*zk;
	char		*name;		/* "server-HOST:PORT", "worker-K" */
	char		 made[256];	/* our znode, once made */
	char		*leader;	/* the address followed, or NULL */
	ps_zk_leader_fn	 cb;
	void		*arg;
	struct event	*retry;		/* list the queue again */
	int		 silent_said;	/* warned: no server answers */
};

static void	member_list(struct ps_zk_member *m);
static void	member_join(struct ps_zk_member *m);

/* The job's znodes are another secret's (zk.h): as a refused secret, 77. */
static void
member_check_auth(struct ps_zk_member *m, int rc, const char *what)
{
	if (rc == ZNOAUTH)
		fatalx(EX_NOPERM, "ZooKeeper %s: cannot %s: %s (the job's "
		    "znodes belong to another secret)", zk_where(m->zk), what,
		    zk_strerror(rc));
}

static void
member_retry_later(struct ps_zk_member *m)
{
	struct timeval tv = { 0, ZK_MEMBER_RETRY_MS * 1000 };

	evtimer_add(m->retry, &tv);
}

static void
member_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	member_list(arg);
}

/* The first coordinator's address: follow it if it is a new one. */
static void
member_leader_read(void *arg, int rc, const char *data, size_t len,
    int32_t version)
{
	struct ps_zk_member *m = arg;

	if (rc != ZOK || len == 0) {	/* it went meanwhile: list again */
		member_retry_later(m);
		return;
	}
	if (m->leader != NULL && strcmp(m->leader, data) == 0)
		return;
	free(m->leader);
	m->leader = xstrdup(data);
	log_info("ZooKeeper %s: coordinator %s leads", zk_where(m->zk), data);
	m->cb(m->arg, m->leader);
}

/* The queue changed: see who leads now. */
static void
member_queue_changed(void *arg)
{
	member_list(arg);
}

static void
member_listed(void *arg, int rc, char **names, size_t n)
{
	struct ps_zk_member *m = arg;
	char first[128];

	member_check_auth(m, rc, "list the coordinators");
	if (rc != ZOK || n == 0) {	/* no coordinator (queue) yet */
		member_retry_later(m);
		return;
	}
	snprintf(first, sizeof first, ZK_QUEUE "/%s", names[0]);
	rc = zk_get_async(m->zk, first, member_leader_read, m);
	if (rc != ZOK)
		member_retry_later(m);
}

/* List the coordinators' queue, watching it for the next change. */
static void
member_list(struct ps_zk_member *m)
{
	if (zk_children_async(m->zk, ZK_QUEUE, member_listed,
	    member_queue_changed, m) != ZOK)
		member_retry_later(m);
}

static void
member_made(void *arg, int rc, const char *name)
{
	struct ps_zk_member *m = arg;

	member_check_auth(m, rc, "make its znode");
	if (rc != ZOK) {
		log_warnx("ZooKeeper %s: cannot make %s/%s-: %s",
		    zk_where(m->zk), ZK_MEMBERS, m->name, zk_strerror(rc));
		return;
	}
	snprintf(m->made, sizeof m->made, "%s", name);
	log_info("ZooKeeper %s: this node is %s", zk_where(m->zk), m->made);
}

static void	member_dir_made(void *arg, int rc, const char *name);

/* Make our znode; members/ is made first when it is missing. */
static void
member_make(struct ps_zk_member *m, zk_created_fn done)
{
	char rel[300];
	int rc;

	snprintf(rel, sizeof rel, ZK_MEMBERS "/%s-", m->name);
	rc = zk_create_async(m->zk, rel, m->name, strlen(m->name),
	    ZOO_EPHEMERAL | ZOO_SEQUENCE, done, m);
	if (rc != ZOK)
		log_warnx("ZooKeeper %s: cannot make %s: %s", zk_where(m->zk),
		    rel, zk_strerror(rc));
}

/* The first try: a missing members/ is made, then the znode again. */
static void
member_made_first(void *arg, int rc, const char *name)
{
	struct ps_zk_member *m = arg;

	if (rc != ZNONODE) {
		member_made(m, rc, name);
		return;
	}
	rc = zk_create_async(m->zk, ZK_MEMBERS, NULL, 0, 0, member_dir_made,
	    m);
	if (rc != ZOK)
		member_dir_made(m, rc, "");
}

static void
member_dir_made(void *arg, int rc, const char *name)
{
	struct ps_zk_member *m = arg;

	member_check_auth(m, rc, "make " ZK_MEMBERS);
	if (rc == ZOK || rc == ZNODEEXISTS)
		member_make(m, member_made);
	else
		log_warnx("ZooKeeper %s: cannot make %s: %s", zk_where(m->zk),
		    ZK_MEMBERS, zk_strerror(rc));
}

/* Make our znode and, meanwhile, look for the leader. */
static void
member_join(struct ps_zk_member *m)
{
	member_make(m, member_made_first);
	member_list(m);
}

/* A renewed session is connected: join again. */
static void
member_back(void *arg)
{
	struct ps_zk_member *m = arg;

	log_info("ZooKeeper %s: a new session", zk_where(m->zk));
	member_join(m);
}

/*
 * An expired session is renewed; a silent ensemble leaves the node with
 * the coordinator it follows.
 */
static void
member_lost(void *arg, int expired, const char *why)
{
	struct ps_zk_member *m = arg;
	char err[512];

	if (!expired) {
		if (!m->silent_said)
			log_warnx("%s; going on with coordinator %s", why,
			    m->leader != NULL ? m->leader : "(none yet)");
		m->silent_said = 1;
		return;
	}
	m->silent_said = 0;
	m->made[0] = '\0';
	log_warnx("%s: %s goes with it; starting another session", why,
	    m->name);
	if (zk_renew(m->zk, member_back, m, err, sizeof err) != 0)
		log_warnx("%s", err);
}

struct ps_zk_member *
ps_zk_member_open(struct event_base *base, const char *connect,
    int session_ms, const struct ps_secret *secret, const char *name,
    ps_zk_leader_fn leader, void *arg, char *err, size_t errlen)
{
	struct ps_zk_member *m = xcalloc(1, sizeof *m);

	m->name = xstrdup(name);
	m->cb = leader;
	m->arg = arg;
	m->retry = evtimer_new(base, member_retry_cb, m);
	m->zk = zk_open(base, connect, session_ms, secret, member_lost, m,
	    err, errlen);
	if (m->zk == NULL || zk_make_path(m->zk, err, errlen) != 0) {
		ps_zk_member_free(m);
		return NULL;
	}
	member_join(m);
	return m;
}

void
ps_zk_member_free(struct ps_zk_member *m)
{
	if (m == NULL)
		return;
	zk_close(m->zk);
	if (m->retry != NULL)
		event_free(m->retry);
	free(m->leader);
	free(m->name);
	free(m);
}
