/*
 * fuzz_server.c: libFuzzer harness for ps-server's dispatch of what a
 * connected peer sends (cmd/ps-server/peer.c and everything behind it:
 * round.c, online.c, rejoin.c, replica.c, checkpoint.c, store.c).
 *
 * Each input gets a fresh server, set up as main() sets it up but without
 * a listener, a ring, a checkpoint directory or an output file: one or two
 * socketpairs, whose server ends become accepted peers through
 * peer_accept_cb.  The input is
 *
 *   byte 0   the opening (openings[] below, modulo their count): what
 *            each connection says first, a valid HELLO of a dbpg or sgd
 *            job of one or two workers, or nothing
 *   rest     frames (or text lines), sent after the opening on every
 *            connection; a two-worker job thus runs rounds that complete
 *
 * The loop runs until every connection closed (the end of input closes
 * them); then the jobs are ended and the channels freed, so nothing is
 * kept from one input to the next.  Only "no crash, no sanitizer report,
 * no hang" is checked: the server answers on the other end, which is read
 * and dropped.
 */
#include "config.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "cluster/hello.h"
#include "failover/failover.h"
#include "fuzz.h"
#include "util/log.h"
#include "wire/keycache.h"

#define FUZZ_CONNS_MAX	2

/* What each connection says first. */
struct opening {
	int	 nconns;	/* connections; each is worker i of nworkers */
	int	 hello;		/* 0: no HELLO, the input alone */
	int	 alg;		/* enum ps_algorithm */
	double	 rejoin;	/* HELLO's rejoin wait */
};

static const struct opening openings[] = {
	{ 1, 0, PS_ALG_DBPG, 0 },
	{ 1, 1, PS_ALG_DBPG, 0 },
	{ 1, 1, PS_ALG_SGD, 0 },
	{ 1, 1, PS_ALG_DBPG, 30 },
	{ 2, 1, PS_ALG_DBPG, 0 },
	{ 2, 1, PS_ALG_SGD, 0 },
};
#define NOPENINGS	(sizeof openings / sizeof openings[0])

static struct event_base *base;

/* A worker's HELLO as cmd/ps-worker/links.c builds it, to server 0 of 1. */
static void
put_hello(struct evbuffer *out, const struct opening *o, uint32_t id)
{
	struct ps_hello h;
	struct ps_msg m;

	memset(&h, 0, sizeof h);
	h.worker_id = id;
	h.nworkers = o->nconns;
	h.nservers = 1;
	h.lambda = 1;
	h.kkt = o->alg == PS_ALG_DBPG ? 0.9 : 0;
	h.algorithm = o->alg;
	h.opt = (struct ps_ftrl){ .opt = PS_OPT_FTRL, .alpha = 0.1,
	    .beta = 1, .l1 = 1, .l2 = 0 };
	h.rejoin = o->rejoin;
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_HELLO;
	m.flags = PS_MSG_F_NOKEYS;
	m.sender = id;
	ps_hello_encode(&h, &m);
	fuzz_put_msg(out, &m);
}

/* A server as main() makes one, on base, with channel 0. */
static void
server_setup(struct server *srv)
{
	server_defaults(srv);
	snprintf(srv->bound, sizeof srv->bound, "fuzz");
	server_open(srv, base, &failover_ops);
}

/* Free what the input left: jobs, channels, replica state. */
static void
server_teardown(struct server *srv)
{
	uint32_t i;

	server_free_peers(srv);
	for (i = 0; i < SERVER_CHANNELS_MAX; i++)
		if (srv->channels[i] != NULL)
			job_end(srv->channels[i]);
	server_close(srv);
}

static void
run(const uint8_t *data, size_t size)
{
	const struct opening *o;
	struct event *sink[FUZZ_CONNS_MAX];
	struct evbuffer *pre;
	struct server srv;
	int i;

	if (size == 0)
		return;
	o = &openings[data[0] % NOPENINGS];
	server_setup(&srv);
	FUZZ_CHECK((pre = evbuffer_new()) != NULL);
	for (i = 0; i < o->nconns; i++) {
		if (o->hello)
			put_hello(pre, o, (uint32_t)i);
		sink[i] = fuzz_accept(base, peer_accept_cb, &srv, pre,
		    data + 1, size - 1);
	}
	evbuffer_free(pre);
	while (srv.nconns > 0)
		FUZZ_CHECK(event_base_loop(base, EVLOOP_ONCE) == 0);
	fuzz_sinks_free(sink, o->nconns);
	server_teardown(&srv);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_daemon_base(&base);
	fuzz_twice(data, size, run, fuzz_fix_after_first);
	return 0;
}
