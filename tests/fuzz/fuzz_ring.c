/*
 * fuzz_ring.c: libFuzzer harness for the coordinator's dispatch (ps-ring
 * serve: cmd/ps-ring/accept.c, and members.c, publish.c, textcmd.c behind
 * it): what a node or a user sends it, frames or text lines.
 *
 * Each input gets a fresh coordinator, set up as cmd_serve() sets it up but
 * without a listener, over a ring store in memory (below) instead of a
 * file: one or two socketpairs, whose coordinator ends become accepted
 * clients through client_accept_cb.  The input is
 *
 *   byte 0   the opening (openings[] below, modulo their count): whether
 *            the ring starts with two servers that must register, and
 *            what each connection says first, a valid REGISTER (as
 *            lib/cluster/coord.c sends it) of a server joining, of a standby
 *            server or of a worker, or nothing
 *   rest     frames (HEARTBEAT, BYE, ...) or text lines (status, add,
 *            remove, ...), sent after the opening on every connection
 *
 * The failure-detection tick runs after each turn of the loop, which runs
 * until every connection closed; one opening has a 1 ms timeout so that
 * members die of silence.  Then everything is freed.  Only "no crash, no
 * sanitizer report, no hang" is checked.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "fuzz.h"
#include "serve.h"
#include "util/xmalloc.h"

#define FUZZ_CONNS_MAX	2

/* One connection's REGISTER. */
struct reg {
	int		 role;		/* 0: none; PS_COORD_SERVER, _WORKER */
	int		 join;
	const char	*addr;		/* a server's */
};

struct opening {
	int		 preload;	/* the ring holds two servers */
	double		 timeout;	/* seconds; 0: the default */
	struct reg	 conn[FUZZ_CONNS_MAX];	/* role 0 ends the list */
};

#define S1	"127.0.0.1:7001"
#define S2	"127.0.0.1:7002"
static const struct opening openings[] = {
	{ 0, 0, { { 0, 0, NULL } } },	/* one client, the input alone */
	{ 0, 0, { { PS_COORD_SERVER, 1, S1 } } },
	{ 0, 0, { { PS_COORD_SERVER, 0, S1 } } },
	{ 0, 0, { { PS_COORD_WORKER, 0, NULL } } },
	{ 0, 0, { { PS_COORD_SERVER, 1, S1 }, { PS_COORD_SERVER, 1, S2 } } },
	{ 0, 0, { { PS_COORD_SERVER, 1, S1 }, { PS_COORD_WORKER, 0, NULL } } },
	{ 1, 0, { { PS_COORD_SERVER, 1, S1 }, { PS_COORD_WORKER, 0, NULL } } },
	{ 1, 0.001, { { PS_COORD_SERVER, 1, S2 } } },
};
#define NOPENINGS	(sizeof openings / sizeof openings[0])

static struct event_base *base;

/* The ring store in memory: the version saved last. */
static int
mem_load(struct ring_store *st, struct ps_ring *r,
    const struct ps_ring *empty, char *err, size_t errlen)
{
	ps_ring_copy(r, empty);
	return 1;
}

/* As the file store: only the version after the one saved last. */
static int
mem_save(struct ring_store *st, const struct ps_ring *r, char *err,
    size_t errlen)
{
	uint32_t *saved = st->state;

	if (*saved != 0 && r->version != *saved + 1) {
		snprintf(err, errlen, "version %u after %u", r->version,
		    *saved);
		return -1;
	}
	*saved = r->version;
	return 0;
}

static void
mem_close(struct ring_store *st)
{
	free(st->state);
	free(st);
}

static const struct ring_store_ops mem_ops = {
	"memory", mem_load, mem_save, mem_close
};

/* A coordinator as cmd_serve() makes one, its ring as o says. */
static void
coord_setup(struct coord *co, const struct opening *o)
{
	char err[256];

	memset(co, 0, sizeof *co);
	co->base = base;
	co->timeout = o->timeout > 0 ? o->timeout : PS_COORD_TIMEOUT_MS / 1e3;
	TAILQ_INIT(&co->clients);
	TAILQ_INIT(&co->members);
	co->started = ps_clock_now();
	snprintf(co->bound, sizeof co->bound, "fuzz");
	co->store = xcalloc(1, sizeof *co->store);
	co->store->ops = &mem_ops;
	co->store->where = "memory";
	co->store->state = xcalloc(1, sizeof(uint32_t));
	ps_ring_empty(&co->ring, 8, 1);
	if (o->preload)
		FUZZ_CHECK(ps_ring_add(&co->ring, S1, err, sizeof err) == 0 &&
		    ps_ring_add(&co->ring, S2, err, sizeof err) == 0);
	FUZZ_CHECK(mem_save(co->store, &co->ring, err, sizeof err) == 0);
	members_load(co);
	publish_init(co);
}

/* A REGISTER as lib/cluster/coord.c sends it. */
static void
put_register(struct evbuffer *out, const struct reg *r)
{
	struct ps_register reg = { r->role, 0, r->join };
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_REGISTER;
	m.flags = PS_MSG_F_NOKEYS;
	ps_register_encode(&reg, &m);
	if (r->addr != NULL) {
		m.blob = (char *)r->addr;
		m.bloblen = strlen(r->addr);
	}
	fuzz_put_msg(out, &m);
}

static void
run(const uint8_t *data, size_t size)
{
	const struct opening *o;
	struct event *sink[FUZZ_CONNS_MAX];
	struct evbuffer *pre;
	struct coord co;
	int n;

	if (size == 0)
		return;
	o = &openings[data[0] % NOPENINGS];
	coord_setup(&co, o);
	FUZZ_CHECK((pre = evbuffer_new()) != NULL);
	for (n = 0; n == 0 || (n < FUZZ_CONNS_MAX && o->conn[n].role); n++) {
		if (o->conn[n].role != 0)
			put_register(pre, &o->conn[n]);
		sink[n] = fuzz_accept(base, client_accept_cb, &co, pre,
		    data + 1, size - 1);
	}
	evbuffer_free(pre);
	while (!TAILQ_EMPTY(&co.clients)) {
		FUZZ_CHECK(event_base_loop(base, EVLOOP_ONCE) == 0);
		members_tick(&co);
		publish_tick(&co);
	}
	fuzz_sinks_free(sink, n);
	coord_release(&co);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_daemon_base(&base);
	fuzz_twice(data, size, run, fuzz_fix_after_first);
	return 0;
}
