/*
 * ringstore_zk.c: the coordinator's ring in a znode, "ring" under the
 * job's path, holding its pskit-ring(5) text.  A save is a setData()
 * conditional on the znode version this coordinator last read or wrote,
 * so a coordinator that another one has overtaken fails to save and can
 * never publish (ringstore.h).  Loads and saves end on the event loop
 * (zk.h): a load reads the znode, or creates it with the first version.
 * A save whose connection dropped (a pause of ZooKeeper shorter than the
 * session) has an unknown outcome: the znode is read once the session is
 * back, after a sync (the server it reconnects to may not have applied
 * the write yet), and the save counts as made if the znode moved one
 * version on and holds our text, is sent again if it did not move, and
 * fails if another coordinator moved it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zookeeper/zookeeper.h>

#include "ringstore.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "cluster/zk.h"

#define ZK_RING_NODE	"ring"

struct zk_store {
	struct zk		*zk;		/* not owned */
	struct ring_store	*st;
	int32_t			 zversion;	/* znode version held */
	uint32_t		 stored;	/* ring version held */
	uint32_t		 saving;	/* ring version in flight, or 0 */
	char			*saving_text;	/* its text, while in flight */
	size_t			 saving_len;
	struct ps_ring		*loading;	/* the load's, while it runs */
	char			*empty_text;	/* the load's first version */
	size_t			 empty_len;
	uint32_t		 empty_version;
};

static void	zk_store_read(struct zk_store *zs);

/* The load ended: say so on the loop, with err for a failure. */
static void
zk_store_loaded(struct zk_store *zs, int rc, const char *err)
{
	free(zs->empty_text);
	zs->empty_text = NULL;
	zs->st->loaded(zs->st->loaded_arg, rc, err);
}

/* The first version was created, or another coordinator made it first. */
static void
zk_store_created(void *arg, int rc, const char *name)
{
	struct zk_store *zs = arg;
	char err[512];

	if (rc == ZNODEEXISTS) {
		zk_store_read(zs);	/* read what the other one wrote */
		return;
	}
	if (rc != ZOK) {
		snprintf(err, sizeof err, "%s: cannot create it: %s",
		    zs->st->where, zk_strerror(rc));
		zk_store_loaded(zs, RING_STORE_ECREATE, err);
		return;
	}
	zs->zversion = 0;
	zs->stored = zs->empty_version;
	if (ps_ring_parse(zs->empty_text, zs->empty_len, zs->st->where,
	    zs->loading, err, sizeof err) != 0)
		zk_store_loaded(zs, PS_RING_EDATA, err);
	else
		zk_store_loaded(zs, 1, NULL);
}

/* The ring znode was read, or is missing: parse it, or create it. */
static void
zk_store_got(void *arg, int rc, const char *text, size_t len,
    int32_t version)
{
	struct zk_store *zs = arg;
	char err[512];

	if (rc == ZNONODE)
		rc = zk_create_async(zs->zk, ZK_RING_NODE, zs->empty_text,
		    zs->empty_len, 0, zk_store_created, zs);
	else if (rc == ZOK && ps_ring_parse(text, len, zs->st->where,
	    zs->loading, err, sizeof err) != 0) {
		zk_store_loaded(zs, PS_RING_EDATA, err);
		return;
	} else if (rc == ZOK) {
		zs->zversion = version;
		zs->stored = zs->loading->version;
		zk_store_loaded(zs, 0, NULL);
		return;
	}
	if (rc != ZOK) {
		snprintf(err, sizeof err, "%s: cannot read it: %s",
		    zs->st->where, zk_strerror(rc));
		zk_store_loaded(zs, PS_RING_ESYS, err);
	}
}

static void
zk_store_read(struct zk_store *zs)
{
	char err[512];
	int rc = zk_get_async(zs->zk, ZK_RING_NODE, zk_store_got, zs);

	if (rc != ZOK) {
		snprintf(err, sizeof err, "%s: cannot read it: %s",
		    zs->st->where, zk_strerror(rc));
		zk_store_loaded(zs, PS_RING_ESYS, err);
	}
}

/* Read the znode (or create it with *empty) on the loop: ends later. */
static int
zk_store_load(struct ring_store *st, struct ps_ring *r,
    const struct ps_ring *empty, char *err, size_t errlen)
{
	struct zk_store *zs = st->state;

	zs->loading = r;
	zs->empty_version = empty->version;
	ps_ring_format(empty, &zs->empty_text, &zs->empty_len);
	zk_store_read(zs);
	return RING_STORE_LATER;
}

static void	zk_store_done(void *arg, int rc, int32_t version);

/* Send the save in flight: ZooKeeper's code. */
static int
zk_store_send(struct zk_store *zs)
{
	return zk_set_async(zs->zk, ZK_RING_NODE, zs->saving_text,
	    zs->saving_len, zs->zversion, zk_store_done, zs);
}

/* After a save's connection dropped: did it happen? */
static void
zk_store_checked(void *arg, int rc, const char *text, size_t len,
    int32_t version)
{
	struct zk_store *zs = arg;

	if (rc == ZOK && version == zs->zversion &&
	    (rc = zk_store_send(zs)) == ZOK)
		return;		/* it did not: sent again */
	if (rc == ZOK && (version != zs->zversion + 1 ||
	    len != zs->saving_len || memcmp(text, zs->saving_text, len) != 0))
		rc = ZBADVERSION;	/* another coordinator's */
	zk_store_done(zs, rc, version);
}

/* The set ended, on the loop. */
static void
zk_store_done(void *arg, int rc, int32_t version)
{
	struct zk_store *zs = arg;
	struct ring_store *st = zs->st;
	uint32_t v = zs->saving;
	char why[256];

	if (zk_unsure(rc)) {
		log_info("%s: %s while saving ring version %u; reading it "
		    "back once ZooKeeper answers", st->where,
		    zk_strerror(rc), v);
		if ((rc = zk_get_latest_async(zs->zk, ZK_RING_NODE,
		    zk_store_checked, zs)) == ZOK)
			return;
	}
	zs->saving = 0;
	free(zs->saving_text);
	zs->saving_text = NULL;
	if (rc == ZOK) {
		zs->zversion = version;
		zs->stored = v;
		st->saved(st->saved_arg, v, 1, NULL);
		return;
	}
	snprintf(why, sizeof why, "%s%s", zk_strerror(rc), rc == ZBADVERSION ?
	    " (another coordinator wrote the ring)" : "");
	st->saved(st->saved_arg, v, 0, why);
}

static int
zk_store_save(struct ring_store *st, const struct ps_ring *r, char *err,
    size_t errlen)
{
	struct zk_store *zs = st->state;
	int rc;

	if (zs->saving != 0 || r->version != zs->stored + 1) {
		snprintf(err, errlen, "%s holds ring version %u%s, not the "
		    "one before %u", st->where, zs->stored, zs->saving ?
		    " and saves another" : "", r->version);
		return -1;
	}
	ps_ring_format(r, &zs->saving_text, &zs->saving_len);
	if ((rc = zk_store_send(zs)) != ZOK) {
		free(zs->saving_text);
		zs->saving_text = NULL;
		snprintf(err, errlen, "%s: %s", st->where, zk_strerror(rc));
		return -1;
	}
	zs->saving = r->version;
	return 1;
}

static void
zk_store_close(struct ring_store *st)
{
	struct zk_store *zs = st->state;

	free(zs->empty_text);
	free(zs->saving_text);
	free(zs);
	free(st->where);
	free(st);
}

static const struct ring_store_ops zk_ops = {
	"zookeeper", zk_store_load, zk_store_save, zk_store_close
};

struct ring_store *
ringstore_zk_open(struct zk *zk)
{
	struct ring_store *st = xcalloc(1, sizeof *st);
	struct zk_store *zs = xcalloc(1, sizeof *zs);

	zs->zk = zk;
	zs->st = st;
	zs->zversion = -1;
	st->ops = &zk_ops;
	st->where = xasprintf("zk://%s/%s", zk_where(zk), ZK_RING_NODE);
	st->state = zs;
	return st;
}
