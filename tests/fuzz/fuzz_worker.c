/*
 * fuzz_worker.c: libFuzzer harness for ps-worker's receiving side: what
 * the servers send a worker (HELLO_OK, PULL_REPLY, KEYS_MISSING, SAVE_OK,
 * ERROR, ...), through cmd/ps-worker/links.c's links_recv and what it
 * calls (dbpg.c, sgd.c, resume.c, evaltest.c, ckpt.c, failover.c), with
 * the worker's own computation running between messages as its main
 * loop runs it (dbpg_advance, sgd_advance).
 *
 * Each input gets a fresh worker of a small job: a data set of 12 rows
 * built here, a ring of one or two servers, the dbpg or sgd algorithm,
 * as the opening says.  Each link's conn is a real accepted-style conn
 * (lib/wire/conn.c) on a socketpair, so frames are checked, decoded and their
 * key signatures resolved as on a worker; what the worker sends goes out
 * on it and is dropped.  The input is
 *
 *   byte 0   the opening (openings[] below, modulo their count): the job
 *            and whether a valid HELLO_OK from every server comes first
 *   rest     the frames the servers send: each frame goes to the link
 *            its header's sender field names, modulo the links (bytes
 *            after the last whole frame go to link 0)
 *
 * The one difference from ps-worker: its conn callback calls links_recv
 * at once, inside the event loop; here the callback queues the message
 * and the harness calls links_recv after the loop returns.  ps-worker
 * exits on every protocol error (fatalx), and only outside the loop can
 * the harness's fatalx (fuzzlog.c) jump back without leaving libevent
 * and the conns half-way through a callback.  Left out: the resume paths
 * that wait in the event loop (a HELLO_OK naming a resume point or a
 * starting model is taken as 0), the test set, checkpoints by time.
 * Checked: no crash, no sanitizer report, no hang.
 */
#include "config.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "cluster/hello.h"
#include "data/libsvm.h"
#include "fuzz.h"
#include "util/xmalloc.h"
#include "worker.h"

#define FUZZ_LINKS_MAX	2
#define FUZZ_QUEUE_MAX	4096

struct opening {
	int		 alg;		/* enum ps_algorithm */
	uint32_t	 nservers;
	uint32_t	 tau;
	unsigned	 filters;
	int		 hello_ok;	/* the input starts after HELLO_OK */
};

static const struct opening openings[] = {
	/* 0, 1: as the captured seeds' jobs ran (tests/fuzz/mkcorpus) */
	{ PS_ALG_DBPG, 1, 0, FILTER_DEFAULT, 0 },
	{ PS_ALG_SGD, 1, 0, FILTER_DEFAULT, 0 },
	{ PS_ALG_DBPG, 1, 0, FILTER_DEFAULT, 1 },
	{ PS_ALG_DBPG, 2, 2, FILTER_DEFAULT | FILTER_SIGMOD, 1 },
	{ PS_ALG_DBPG, 1, 1, FILTER_KKT | FILTER_SKIP | FILTER_FP16, 0 },
	{ PS_ALG_SGD, 1, 0, FILTER_KEYCACHE, 1 },
	{ PS_ALG_SGD, 2, 2, FILTER_KEYCACHE | FILTER_LZ4, 1 },
};
#define NOPENINGS	(sizeof openings / sizeof openings[0])

/* One input's worker and what its conns delivered, not yet handled. */
struct fuzz_worker {
	struct worker	 w;
	struct ps_msg	 queue[FUZZ_QUEUE_MAX];
	size_t		 head, tail;
	size_t		 end;		/* queued before the first close */
	int		 open;		/* conns not closed */
	int		 started;	/* the algorithm began */
};

static struct event_base *base;

/* The conn of a link decoded a message: keep it for after the loop. */
static void
queue_msg_cb(struct ps_conn *c, struct ps_msg *m, void *arg)
{
	struct fuzz_worker *fw = arg;

	if (fw->tail == FUZZ_QUEUE_MAX) {
		ps_msg_release(m);
		return;
	}
	fw->queue[fw->tail++] = *m;
	memset(m, 0, sizeof *m);
}

/*
 * A server went away: the worker exits once it handled what came before
 * (link_close_cb; no coordinator, no failover).
 */
static void
queue_close_cb(struct ps_conn *c, const char *reason, void *arg)
{
	struct fuzz_worker *fw = arg;
	size_t i;

	if (fw->end > fw->tail)
		fw->end = fw->tail;
	for (i = 0; i < fw->w.nlinks; i++)
		if (fw->w.links[i]->conn == c)
			fw->w.links[i]->conn = NULL;
	ps_conn_free(c);
	fw->open--;
}

/*
 * The worker's shard: the first 12 rows of scripts/sample/a9a-sample.libsvm
 * (tests/fuzz/mkcorpus captures the seeds' traffic on the same rows).
 */
static const char worker_rows[] =
	"-1 3:1 11:1 14:1 19:1 39:1 42:1 55:1 64:1 67:1 73:1 75:1 76:1 80:1 83:1\n"
	"-1 5:1 7:1 14:1 19:1 39:1 40:1 51:1 63:1 67:1 73:1 74:1 76:1 78:1 83:1\n"
	"-1 3:1 6:1 17:1 22:1 36:1 41:1 53:1 64:1 67:1 73:1 74:1 76:1 80:1 83:1\n"
	"-1 5:1 6:1 17:1 21:1 35:1 40:1 53:1 63:1 71:1 73:1 74:1 76:1 80:1 83:1\n"
	"-1 2:1 6:1 18:1 19:1 39:1 40:1 52:1 61:1 71:1 72:1 74:1 76:1 80:1 95:1\n"
	"-1 3:1 6:1 18:1 29:1 39:1 40:1 51:1 61:1 67:1 72:1 74:1 76:1 80:1 83:1\n"
	"-1 4:1 6:1 16:1 26:1 35:1 45:1 49:1 64:1 71:1 72:1 74:1 76:1 78:1 101:1\n"
	"+1 5:1 7:1 17:1 22:1 36:1 40:1 51:1 63:1 67:1 73:1 74:1 76:1 81:1 83:1\n"
	"+1 2:1 6:1 14:1 29:1 39:1 42:1 52:1 64:1 67:1 72:1 75:1 76:1 82:1 83:1\n"
	"+1 4:1 6:1 16:1 19:1 39:1 40:1 51:1 63:1 67:1 73:1 75:1 76:1 80:1 83:1\n"
	"+1 3:1 6:1 18:1 20:1 37:1 40:1 51:1 63:1 71:1 73:1 74:1 76:1 82:1 83:1\n"
	"+1 2:1 11:1 15:1 19:1 39:1 40:1 52:1 63:1 68:1 73:1 74:1 76:1 80:1 90:1\n";

/* The rows above, read by the libsvm reader from a memfd. */
static void
worker_data(struct ps_dataset *ds)
{
	struct ps_libsvm_opts opts = { 0 };
	struct ps_libsvm_reader *r;
	struct ps_dataset_builder b;
	struct ps_libsvm_row row;
	char path[64], err[256];
	int fd;

	fd = fuzz_memfile((const uint8_t *)worker_rows, sizeof worker_rows - 1,
	    path, sizeof path);
	FUZZ_CHECK((r = ps_libsvm_open(path, &opts, err, sizeof err)) != NULL);
	ps_dataset_builder_init(&b);
	while (ps_libsvm_next(r, &row, err, sizeof err) == 1)
		ps_dataset_builder_add(&b, row.y, row.fid, row.val, row.nnz);
	ps_libsvm_close(r);
	close(fd);
	FUZZ_CHECK(ps_dataset_builder_finish(&b, ds, err, sizeof err) == 0);
	ps_dataset_builder_release(&b);
}

/*
 * The worker's configuration: main()'s defaults but for the run's length
 * (the captured seeds' jobs ran with -m 20 and --epochs 3), and o's job.
 */
static void
worker_conf(struct worker_conf *c, const struct opening *o)
{
	c->nworkers = 1;
	c->lambda = 1;
	c->nblocks = 16;
	c->eps = 1e-6;
	c->max_iter = 20;
	c->seed = 1;
	c->timeout = 60;
	c->beta = 1;
	c->kkt = 0.9;
	c->filters = o->filters;
	c->theta = 1e-3;
	c->skip = 0.5;
	c->algorithm = o->alg;
	c->tau = o->tau;
	c->opt.opt = PS_OPT_FTRL;
	c->opt.alpha = 1;
	c->opt.beta = 1;
	c->opt.l1 = c->lambda;
	c->epochs = 3;
	c->batch = 1000;
}

/*
 * Link i to server i: a conn on a socketpair whose other end, drained,
 * was given what is in stream (then emptied).  Returns the sink.
 */
static struct event *
worker_link(struct fuzz_worker *fw, size_t i, struct evbuffer *stream)
{
	struct worker *w = &fw->w;
	struct link *l = xcalloc(1, sizeof *l);
	int sv[2];

	fuzz_socketpair(sv);
	fuzz_feed_after(sv[1], stream, NULL, 0);
	l->w = w;
	l->index = (uint32_t)i;
	l->addr = w->ring.servers[i].addr;
	l->last_rx = ps_clock_now();
	l->conn = ps_conn_new(base, sv[0], l->addr, queue_msg_cb, NULL,
	    queue_close_cb, fw);
	ps_conn_set_lz4(l->conn, (w->conf.filters & FILTER_LZ4) != 0);
	if (w->conf.filters & FILTER_KEYCACHE)
		ps_conn_set_keycache_send(l->conn, PS_KEYCACHE_DEFAULT);
	w->links[i] = l;
	fw->open++;
	return fuzz_sink_new(base, sv[1]);
}

/* A worker of o's job, with its plan for dbpg, as worker_load makes it. */
static void
worker_setup(struct fuzz_worker *fw, const struct opening *o)
{
	struct worker *w = &fw->w;
	char addr[32], err[256];
	uint32_t i;

	memset(fw, 0, sizeof *fw);
	fw->end = SIZE_MAX;
	worker_conf(&w->conf, o);
	w->base = base;
	w->started = w->last_progress = ps_clock_now();
	ps_ring_empty(&w->ring, 8, 0);
	for (i = 0; i < o->nservers; i++) {
		snprintf(addr, sizeof addr, "127.0.0.1:%u", 7001 + i);
		FUZZ_CHECK(ps_ring_add(&w->ring, addr, err, sizeof err) == 0);
	}
	w->ring.version = 1;	/* as ps-ring init writes it */
	worker_data(&w->ds);
	if (o->alg == PS_ALG_DBPG)
		dbpg_prepare(w);
	w->nlinks = w->ring.nservers;
	w->links = xcalloc(w->nlinks, sizeof *w->links);
}

/* Free the worker and whatever the input left queued. */
static void
worker_teardown(struct fuzz_worker *fw)
{
	struct worker *w = &fw->w;
	size_t i;

	for (i = 0; i < w->nlinks; i++) {
		ps_conn_free(w->links[i]->conn);
		free(w->links[i]);
	}
	free(w->links);
	/* The one links_recv had when fatalx jumped, and those after it. */
	for (i = fw->head > 0 ? fw->head - 1 : 0; i < fw->tail; i++)
		ps_msg_release(&fw->queue[i]);
	dbpg_release(w);
	sgd_release(&w->sgd);
	failover_release(w);
	ps_dataset_release(&w->ds);
	ps_ring_release(&w->ring);
}

/*
 * Once every server said HELLO_OK, the algorithm begins as after
 * links_open(), from the start (no resume, no starting model: see above).
 */
static int
worker_advance(struct fuzz_worker *fw)
{
	struct worker *w = &fw->w;
	size_t i;

	if (!fw->started) {
		if (!links_all_hello(w))
			return 0;
		for (i = 0; i < w->nlinks; i++)
			w->links[i]->resume = 0, w->links[i]->nnz = 0;
		fw->started = 1;
		if (w->conf.algorithm == PS_ALG_SGD)
			sgd_begin(w);
		else
			dbpg_begin(w);
	}
	return w->conf.algorithm == PS_ALG_SGD ? sgd_advance(w) :
	    dbpg_advance(w);
}

/* Give each queued message to links_recv; 1 once the run is over. */
static int
worker_drain(struct fuzz_worker *fw)
{
	struct worker *w = &fw->w;
	struct ps_msg *m;

	while (fw->head < fw->tail && fw->head < fw->end) {
		m = &fw->queue[fw->head++];
		links_recv(w->links[m->sender % w->nlinks], m);
		if (worker_advance(fw))
			return 1;
	}
	return 0;
}

/* A valid HELLO_OK of a server new to the job, as peer.c sends it. */
static void
put_hello_ok(struct evbuffer *out, const struct worker *w, uint32_t i)
{
	struct ps_hello_ok ok = { 0, 0, 0, -1 };
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_HELLO_OK;
	m.flags = PS_MSG_F_NOKEYS;
	m.sender = i;
	m.ring_version = w->ring.version;
	ps_hello_ok_encode(&ok, &m);
	fuzz_put_msg(out, &m);
}

/*
 * Split the frames of data among the links' streams by their sender
 * field; what follows the last whole frame goes to link 0.
 */
static void
split_frames(struct evbuffer **stream, size_t n, const uint8_t *data,
    size_t size)
{
	size_t off = 0, flen;

	while (size - off >= PS_FRAME_HDR_LEN) {
		flen = PS_FRAME_HDR_LEN + (size_t)fuzz_ld32(data + off + 40);
		if (flen > size - off)
			break;
		evbuffer_add(stream[fuzz_ld32(data + off + 8) % n], data + off,
		    flen);
		off += flen;
	}
	evbuffer_add(stream[0], data + off, size - off);
}

/* Connect the links, each to its stream, and run until the end. */
static void
worker_run(struct fuzz_worker *fw, const struct opening *o,
    const uint8_t *data, size_t size)
{
	struct evbuffer *stream[FUZZ_LINKS_MAX];
	struct event *sink[FUZZ_LINKS_MAX];
	struct worker *w = &fw->w;
	size_t i, n = w->nlinks;

	for (i = 0; i < n; i++) {
		FUZZ_CHECK((stream[i] = evbuffer_new()) != NULL);
		if (o->hello_ok)
			put_hello_ok(stream[i], w, (uint32_t)i);
	}
	split_frames(stream, n, data, size);
	for (i = 0; i < n; i++) {
		sink[i] = worker_link(fw, i, stream[i]);
		evbuffer_free(stream[i]);
	}
	if (setjmp(fuzz_fatal_jmp) == 0) {
		fuzz_fatal_armed = 1;
		while (fw->head < fw->end &&
		    (fw->open > 0 || fw->head < fw->tail)) {
			if (fw->head == fw->tail)
				FUZZ_CHECK(event_base_loop(base,
				    EVLOOP_ONCE) == 0);
			if (worker_drain(fw))
				break;
		}
	}
	fuzz_fatal_armed = 0;
	fuzz_sinks_free(sink, (int)n);
}

static void
run(const uint8_t *data, size_t size)
{
	static struct fuzz_worker fw;
	const struct opening *o;

	if (size == 0)
		return;
	o = &openings[data[0] % NOPENINGS];
	worker_setup(&fw, o);
	worker_run(&fw, o, data + 1, size - 1);
	worker_teardown(&fw);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_daemon_base(&base);
	fuzz_twice(data, size, run, fuzz_fix_after_first);
	return 0;
}
