/*
 * conn_pool.c: a cap on the memory that a set of connections (a server's
 * accepted peers) hold between them: bytes read but not yet handled
 * (unfinished frames, mostly) and the key lists they cached (keycache.h).
 * A conn's share is counted again after each read; when the sum is over
 * the cap the conn holding most is closed, as a protocol error naming the
 * cap, and its memory given back (conn.h).
 */
#include "config.h"

#ifdef HAVE_MALLOC_TRIM
#include <malloc.h>
#endif
#include <stdlib.h>

#include <event2/event.h>

#include "util/xmalloc.h"
#include "wire/conn_priv.h"

/* A conn that held this much returns freed memory to the system. */
#define CONN_POOL_TRIM_MIN	(1u << 20)

static void conn_pool_trim_cb(evutil_socket_t fd, short what, void *arg);

struct ps_conn_pool *
ps_conn_pool_new(struct event_base *base, size_t max_bytes)
{
	struct ps_conn_pool *pool = xcalloc(1, sizeof *pool);

	pool->max = max_bytes;
	TAILQ_INIT(&pool->conns);
	pool->trim = evtimer_new(base, conn_pool_trim_cb, pool);
	return pool;
}

void
ps_conn_pool_free(struct ps_conn_pool *pool)
{
	struct ps_conn *c;

	if (pool == NULL)
		return;
	while ((c = TAILQ_FIRST(&pool->conns)) != NULL)
		conn_pool_leave(c);
	if (pool->trim != NULL)
		event_free(pool->trim);
	free(pool);
}

size_t
ps_conn_pool_held(const struct ps_conn_pool *pool)
{
	return pool->held;
}

size_t
ps_conn_pool_evicted(const struct ps_conn_pool *pool)
{
	return pool->evicted;
}

void
ps_conn_set_pool(struct ps_conn *c, struct ps_conn_pool *pool)
{
	conn_pool_leave(c);
	c->pool = pool;
	c->pooled = 1;
	TAILQ_INSERT_TAIL(&pool->conns, c, pool_entry);
}

/* The member holding most. */
static struct ps_conn *
conn_pool_largest(struct ps_conn_pool *pool)
{
	struct ps_conn *c, *max = NULL;

	TAILQ_FOREACH(c, &pool->conns, pool_entry)
		if (max == NULL || c->held > max->held)
			max = c;
	return max;
}

/* Count c's share again; close the largest members while over the cap. */
void
conn_pool_account(struct ps_conn *c)
{
	struct ps_conn_pool *pool = c->pool;
	struct ps_conn *big;
	size_t now;

	if (pool == NULL || !c->pooled || c->dead)
		return;
	now = evbuffer_get_length(bufferevent_get_input(c->bev)) +
	    c->recv_lists.nkeys * sizeof(uint64_t);
	pool->held = pool->held - c->held + now;
	c->held = now;
	if (now > c->held_peak)
		c->held_peak = now;
	while (pool->held > pool->max &&
	    (big = conn_pool_largest(pool)) != NULL) {
		pool->evicted++;
		conn_fail(big, 1, "memory limit: connections hold %zu bytes "
		    "of unfinished frames and cached keys (limit %zu), this "
		    "one %zu", pool->held, pool->max, big->held);
	}
}

/*
 * c holds nothing more (it failed, or is freed): its share leaves the
 * sum; c keeps its pool to trim for it (conn_pool_trim).
 */
void
conn_pool_leave(struct ps_conn *c)
{
	if (c->pool == NULL || !c->pooled)
		return;
	c->pool->held -= c->held;
	TAILQ_REMOVE(&c->pool->conns, c, pool_entry);
	c->pooled = 0;
	c->held = 0;
}

/* Give freed heap pages back to the system (glibc keeps them). */
static void
conn_pool_trim_cb(evutil_socket_t fd, short what, void *arg)
{
#ifdef HAVE_MALLOC_TRIM
	malloc_trim(0);
#endif
}

/*
 * c, which is being freed, held peak bytes at most: when that is much,
 * trim the heap a little later, once libevent finalized its buffers (it
 * frees them after the running callback), and once for many conns.
 */
void
conn_pool_trim(struct ps_conn *c)
{
	struct timeval soon = { 0, 20000 };

	if (c->pool != NULL && c->pool->trim != NULL &&
	    c->held_peak >= CONN_POOL_TRIM_MIN &&
	    !evtimer_pending(c->pool->trim, NULL))
		evtimer_add(c->pool->trim, &soon);
}
