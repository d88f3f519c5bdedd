/*
 * ringstore_zk.c: the coordinator's ring in a znode, "ring" under the
 * job's path, holding its pskit-ring(5) text.  A save is a setData()
 * conditional on the znode version this coordinator last read or wrote,
 * so a coordinator that another one has overtaken fails to save and can
 * never publish (ringstore.h).  Loading happens at start-up; saves end on
 * the event loop (zk.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <zookeeper/zookeeper.h>

#include "ringstore.h"
#include "util/xmalloc.h"
#include "zk.h"

#define ZK_RING_NODE	"ring"

struct zk_store {
	struct zk		*zk;		/* not owned */
	struct ring_store	*st;
	int32_t			 zversion;	/* znode version held */
	uint32_t		 stored;	/* ring version held */
	uint32_t		 saving;	/* ring version in flight, or 0 */
};

/* Parse the znode's text into *r. */
static int
zk_store_parse(struct ring_store *st, const char *text, size_t len,
    struct ps_ring *r, char *err, size_t errlen)
{
	return ps_ring_parse(text, len, st->where, r, err, errlen) != 0 ?
	    PS_RING_EDATA : 0;
}

static int
zk_store_load(struct ring_store *st, struct ps_ring *r,
    const struct ps_ring *empty, char *err, size_t errlen)
{
	struct zk_store *zs = st->state;
	char *text;
	size_t len;
	int rc, made;

	for (;;) {
		rc = zk_get(zs->zk, ZK_RING_NODE, &text, &len, &zs->zversion,
		    err, errlen);
		if (rc < 0)
			return PS_RING_ESYS;
		if (rc == 0)
			break;
		ps_ring_format(empty, &text, &len);
		made = zk_create(zs->zk, ZK_RING_NODE, text, len, 0, NULL, 0,
		    err, errlen);
		free(text);
		if (made < 0)
			return RING_STORE_ECREATE;
		if (made == 0) {
			zs->zversion = 0;
			zs->stored = empty->version;
			ps_ring_copy(r, empty);
			return 1;
		}
		/* Another coordinator made it first: read what it wrote. */
	}
	rc = zk_store_parse(st, text, len, r, err, errlen);
	free(text);
	if (rc == 0)
		zs->stored = r->version;
	return rc;
}

/* The set ended, on the loop. */
static void
zk_store_done(void *arg, int rc, int32_t version)
{
	struct zk_store *zs = arg;
	struct ring_store *st = zs->st;
	uint32_t v = zs->saving;
	char why[256];

	zs->saving = 0;
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
	char *text;
	size_t len;
	int rc;

	if (zs->saving != 0 || r->version != zs->stored + 1) {
		snprintf(err, errlen, "%s holds ring version %u%s, not the "
		    "one before %u", st->where, zs->stored, zs->saving ?
		    " and saves another" : "", r->version);
		return -1;
	}
	ps_ring_format(r, &text, &len);
	rc = zk_set_async(zs->zk, ZK_RING_NODE, text, len, zs->zversion,
	    zk_store_done, zs);
	free(text);	/* the library copied it into its request */
	if (rc != ZOK) {
		snprintf(err, errlen, "%s: %s", st->where, zk_strerror(rc));
		return -1;
	}
	zs->saving = r->version;
	return 1;
}

static void
zk_store_close(struct ring_store *st)
{
	free(st->state);
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
