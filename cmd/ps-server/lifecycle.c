/*
 * lifecycle.c: a server's defaults, its start on an event loop and its
 * teardown, shared by main() (ps-server.c) and the fuzz harness
 * (tests/fuzz/fuzz_server.c) so that both run the same server.
 */
#include "config.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

/*
 * The options' defaults (ps-server(1)): --max-buffered 1 GiB but at most a
 * quarter of the physical memory, --max-keys half of it at
 * SERVER_KEY_BYTES a key.
 */
void
server_defaults(struct server *srv)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t mem = pages > 0 && size > 0 ?
	    (uint64_t)pages * (uint64_t)size : (uint64_t)4 << 30;

	memset(srv, 0, sizeof *srv);
	srv->max_conns = 1024;
	srv->hello_timeout = 10000;
	srv->coord_wait = PS_COORD_WAIT_S;
	srv->max_frame = PS_FRAME_MAX_PAYLOAD;
	srv->key_cache = PS_KEYCACHE_DEFAULT;
	srv->ckpt.keep = 3;
	srv->max_buffered = (size_t)1 << 30;
	if (srv->max_buffered > mem / 4)
		srv->max_buffered = (size_t)(mem / 4);
	srv->max_keys = mem / 2 / SERVER_KEY_BYTES;
	if (srv->max_keys > SERVER_KEYS_MAX)
		srv->max_keys = SERVER_KEYS_MAX;
	srv->momentum = 0.8;
}

/*
 * Make the server ready to take peers on base: channel 0, the pool, and
 * the failover units it calls (failover/failover.c's table).
 */
void
server_open(struct server *srv, struct event_base *base,
    const struct failover_ops *failover)
{
	srv->base = base;
	srv->failover = failover;
	srv->started = time(NULL);
	TAILQ_INIT(&srv->peers);
	channel_get(srv, 0, 1);
	srv->pool = ps_conn_pool_new(base, srv->max_buffered);
}

/* Free the peers, the pool, replica state, channels and the -i model. */
void
server_close(struct server *srv)
{
	server_free_peers(srv);
	ps_conn_pool_free(srv->pool);
	srv->pool = NULL;
	srv->failover->release(srv);
	channels_free(srv);
	ps_model_release(&srv->ckpt.init);
}
