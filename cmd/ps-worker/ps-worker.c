/*
 * ps-worker.c: a worker of an l1-regularised logistic regression job:
 * options, loading the shard and the ring, then the algorithm: Delayed
 * Block Proximal Gradient (dbpg.c) or asynchronous SGD (sgd.c).
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sysexits.h>

#include "cluster/hello.h"
#include "cluster/zk.h"
#include "data/shard.h"
#include "util/lifeline.h"
#include "util/log.h"
#include "util/parsenum.h"
#include "util/usage.h"
#include "util/xmalloc.h"
#include "wire/crash.h"
#include "wire/msg_round.h"
#include "worker.h"

/* sgd defaults, as strings for usage() and numbers for main(). */
#define SGD_ALPHA	"1"
#define SGD_BETA	"1"
#define SGD_EPOCHS	"20"
#define SGD_BATCH	"1000"

static const char usage_text[] =
"usage: ps-worker [-hLVvz] [-A dbpg|newton|sgd] [-a secret-file] [-b blocks]\n"
"                 [-c channel] [-e epsilon] [-F filters] [-i id] [-l lambda]\n"
"                 [-m max-iter] [-n workers] [-S seed] [-t tau] [-T test.pss]\n"
"                 [--alpha x] [--batch rows] [--beta x] [--epochs n] [--l2 x]\n"
"                 [--checkpoint-every n] [--checkpoint-secs secs]\n"
"                 [--optimizer adagrad|ftrl] [--rejoin secs] [--trace file]\n"
"                 [--silence-limit secs] [--solve-max n] [--sweeps n]\n"
"                 [--timeout secs]\n"
"                 -C host:port[,...] | -Z host:port[,...]/path\n"
"                 [--coordinator-wait secs] | -r ring shard.pss\n";

static void
usage(int status)
{
	ps_usage(status, usage_text, "\n"
	    "  -r, --ring file        the ring naming the servers\n"
	    "  -C, --coordinator host:port  instead, get the ring from this\n"
	    "                         coordinator (ps-ring serve), or from whichever\n"
	    "                         of a comma-separated list leads (serve -Z)\n"
	    "  -Z, --zookeeper host:port[,...]/path  instead, get it from the\n"
	    "                         coordinator leading on this ZooKeeper path\n"
	    "                         (serve -Z), following the lead as it moves;\n"
	    "                         hold a znode there (its session's end is ours)\n"
	    "      --coordinator-wait secs  with -C or -Z: give up (exit 69) when no\n"
	    "                         coordinator answers for this long after losing\n"
	    "                         it (default 30; 0: never)\n"
	    "  -i, --id n             this worker's id, 0 .. workers-1 (default 0)\n"
	    "  -n, --workers n        workers in the job (default 1)\n"
	    "  -c, --channel n        the servers' weight vector to train, 0-15 (default 0)\n"
	    "  -A, --algorithm name   dbpg (Algorithm 2, default), newton (distributed\n"
	    "                         proximal Newton) or sgd (asynchronous SGD)\n"
	    "  -l, --lambda x         l1 penalty of F (default 1)\n"
	    "  -t, --tau n|inf        bounded delay; 0 is sequential, inf eventual (default 0)\n"
	    "  -S, --seed n           seed of block or mini-batch assignment and order (default 1)\n"
	    "  -T, --test file        score this test shard after each pass or epoch\n"
	    "  -a, --auth-secret file prove to every server (and the -C coordinator)\n"
	    "                         that we know this secret (their -a file; mode 0600)\n"
	    "      --rejoin secs      if this worker dies, the servers wait this long for\n"
	    "                         it to be started again (ps-train does) instead of\n"
	    "                         ending the job; it then resumes (default 0)\n"
	    "      --silence-limit secs  the servers take this worker for hung when it\n"
	    "                         sends nothing for secs, close its connections and\n"
	    "                         wait for it as for a dead one; it pings a server it\n"
	    "                         has not written to for secs/4 (at most 1 s)\n"
	    "                         (default 0: no limit)\n"
	    "dbpg:\n"
	    "  -b, --blocks n         feature blocks per pass (default 16; same on all workers)\n"
	    "  -e, --epsilon x        stop when the objective's estimated distance to the\n"
	    "                         optimum (gap_est) is at most x relatively, or when\n"
	    "                         a pass's KKT violation, relative to the largest, is\n"
	    "                         at most x and the pass changes the objective by at\n"
	    "                         most x/100 relatively, or by at most x/1000\n"
	    "                         (default 1e-3; 0: only -m stops)\n"
	    "  -m, --max-iter n       stop after n iterations, at most 2147483646\n"
	    "                         (default 100000)\n"
	    "  -F, --filters list     traffic filters, comma-separated: kkt sigmod[=theta]\n"
	    "                         skip[=p] keycache lz4 fp16, or all or none\n"
	    "                         (default kkt,keycache; theta 1e-3, p 0.5;\n"
	    "                         sgd takes only lz4 and fp16, default none;\n"
	    "                         newton only keycache and lz4, default keycache)\n"
	    "  -z, --lz4              the same as adding lz4 to the filters\n"
	    "      --checkpoint-every n  worker 0: the servers write a checkpoint\n"
	    "                         (ps-server -k) after every n-th iteration (sgd:\n"
	    "                         mini-batch)\n"
	    "      --checkpoint-secs secs  worker 0: and after the first one\n"
	    "                         secs after the last; with either, also at the end\n"
	    "newton (-e and -m as dbpg's, a pass being an iteration):\n"
	    "      --solve-max n      solve each worker's model of the objective\n"
	    "                         directly while at most n features are active\n"
	    "                         (default 1024; 0: never), then polish it with one\n"
	    "                         sweep\n"
	    "      --sweeps n         coordinate-descent sweeps on the model when it\n"
	    "                         is not solved directly (default 20)\n"
	    "sgd (the servers apply the optimizer to each push):\n"
	    "      --optimizer name   ftrl (FTRL-proximal, default) or adagrad\n"
	    "      --alpha x          learning-rate scale (default " SGD_ALPHA ")\n"
	    "      --beta x           learning-rate smoothing, > 0 (default " SGD_BETA ")\n"
	    "      --l2 x             l2 penalty, F + l2/2 |w|^2 (default 0)\n"
	    "      --epochs n         passes over the shard (default " SGD_EPOCHS ")\n"
	    "      --batch rows       rows per mini-batch (default " SGD_BATCH ")\n"
	    "      --timeout secs     give up when servers are silent this long (default 60)\n"
	    "      --trace file       append each push sent and each iteration a\n"
	    "                         server answered to file (tests/chaos/check-trace)\n"
	    "  -L, --lifeline         exit 75 when standard input, a pipe from the\n"
	    "                         launcher, reaches end of file (or the parent dies)\n"
	    "  -v, --verbose          more messages on stderr\n"
	    "  -V, --version          print the version and exit\n"
	    "  -h, --help             print this help and exit\n"
	    "\nProgress goes to stdout as TSV.  dbpg and newton: iter secs objective\n"
	    "rel_change nnz bytes_sent bytes_recv test_logloss test_auc kkt_rel.  sgd:\n"
	    "epoch batch secs rows progressive_logloss nnz test_logloss test_auc\n"
	    "bytes_sent bytes_recv.  All then give the filter counters msgs_sent\n"
	    "msgs_recv kkt_in kkt_out skip_out sigmod_in sigmod_out keycache_in\n"
	    "keycache_out fp16_in fp16_out lz4_in lz4_out.\n");
}

/* Parse a number in [lo, hi] or exit with usage. */
static double
parse_num(const char *what, const char *s, double lo, double hi)
{
	double v;

	if (ps_parsenum_double_in(s, lo, hi, &v) != PS_NUM_OK) {
		fprintf(stderr, "ps-worker: bad %s '%s'\n", what, s);
		usage(EX_USAGE);
	}
	return v;
}

/*
 * Settle the filters: -z adds lz4; sgd runs none by default and takes
 * only those that act on any push (lz4, fp16); newton runs keycache by
 * default and takes lz4 besides (it pushes every feature, at full
 * precision); the KKT threshold is 0 when its filter is off.
 */
static void
worker_check_filters(struct worker_conf *c, int given, int lz4)
{
	const unsigned sgd_ok = FILTER_LZ4 | FILTER_FP16;

	const unsigned newton_ok = FILTER_KEYCACHE | FILTER_LZ4;

	if (c->algorithm == PS_ALG_SGD && !given)
		c->filters = 0;
	if (c->algorithm == PS_ALG_NEWTON && !given)
		c->filters = FILTER_KEYCACHE;
	if (lz4)
		c->filters |= FILTER_LZ4;
	if (c->algorithm == PS_ALG_SGD && (c->filters & ~sgd_ok)) {
		fprintf(stderr, "ps-worker: -A sgd takes only the lz4 and "
		    "fp16 filters\n");
		usage(EX_USAGE);
	}
	if (c->algorithm == PS_ALG_NEWTON && (c->filters & ~newton_ok)) {
		fprintf(stderr, "ps-worker: -A newton takes only the keycache "
		    "and lz4 filters\n");
		usage(EX_USAGE);
	}
	if (!(c->filters & FILTER_KKT))
		c->kkt = 0;
}

/* The options without a short form; OPT_ALPHA to OPT_OPTIMIZER are sgd's. */
enum {
	OPT_TIMEOUT = 1, OPT_ALPHA, OPT_BATCH, OPT_BETA, OPT_EPOCHS, OPT_L2,
	OPT_OPTIMIZER, OPT_REJOIN, OPT_SILENCE, OPT_CKPT_EVERY, OPT_CKPT_SECS,
	OPT_TRACE, OPT_COORD_WAIT, OPT_SWEEPS, OPT_SOLVE_MAX
};

static const struct option worker_longopts[] = {
	{ "algorithm", required_argument, NULL, 'A' },
	{ "auth-secret", required_argument, NULL, 'a' },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "beta", required_argument, NULL, OPT_BETA },
	{ "epochs", required_argument, NULL, OPT_EPOCHS },
	{ "l2", required_argument, NULL, OPT_L2 },
	{ "optimizer", required_argument, NULL, OPT_OPTIMIZER },
	{ "blocks", required_argument, NULL, 'b' },
	{ "channel", required_argument, NULL, 'c' },
	{ "coordinator", required_argument, NULL, 'C' },
	{ "zookeeper", required_argument, NULL, 'Z' },
	{ "epsilon", required_argument, NULL, 'e' },
	{ "filters", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ "id", required_argument, NULL, 'i' },
	{ "lambda", required_argument, NULL, 'l' },
	{ "max-iter", required_argument, NULL, 'm' },
	{ "workers", required_argument, NULL, 'n' },
	{ "ring", required_argument, NULL, 'r' },
	{ "seed", required_argument, NULL, 'S' },
	{ "solve-max", required_argument, NULL, OPT_SOLVE_MAX },
	{ "sweeps", required_argument, NULL, OPT_SWEEPS },
	{ "tau", required_argument, NULL, 't' },
	{ "test", required_argument, NULL, 'T' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "coordinator-wait", required_argument, NULL, OPT_COORD_WAIT },
	{ "rejoin", required_argument, NULL, OPT_REJOIN },
	{ "silence-limit", required_argument, NULL, OPT_SILENCE },
	{ "checkpoint-every", required_argument, NULL, OPT_CKPT_EVERY },
	{ "checkpoint-secs", required_argument, NULL, OPT_CKPT_SECS },
	{ "lifeline", no_argument, NULL, 'L' },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "lz4", no_argument, NULL, 'z' },
	{ NULL, 0, NULL, 0 }
};

/* One of sgd's long options, OPT_ALPHA to OPT_OPTIMIZER. */
static void
worker_sgd_option(struct worker_conf *c, int ch, const char *arg)
{
	switch (ch) {
	case OPT_ALPHA: c->opt.alpha = parse_num("alpha", arg, 1e-12, 1e12); break;
	case OPT_BATCH: c->batch = (uint32_t)parse_num("batch size", arg, 1, 1 << 24); break;
	case OPT_BETA: c->opt.beta = parse_num("beta", arg, 1e-12, 1e12); break;
	case OPT_EPOCHS: c->epochs = (uint32_t)parse_num("epoch count", arg, 0, 1e6); break;
	case OPT_L2: c->l2 = parse_num("l2", arg, 0, 1e12); break;
	default:
		if ((c->opt.opt = ps_ftrl_parse(arg)) == 0) {
			fprintf(stderr, "ps-worker: unknown optimizer '%s'\n", arg);
			usage(EX_USAGE);
		}
	}
}

/* A malformed -C address is a usage error, not a server to retry. */
static void
worker_check_coord(const char *addr)
{
	char msg[512];

	if (ps_coord_list_check(addr, msg, sizeof msg) != 0) {
		fprintf(stderr, "ps-worker: %s\n", msg);
		usage(EX_USAGE);
	}
}

/*
 * The checks of a whole command line: one shard, -r or -C, the worker id
 * below the count; then what follows from the options.  Exit 64 if bad.
 */
static void
worker_check_args(struct worker_conf *c, int argc, char **argv, int given,
    int lz4)
{
	if (argc - optind != 1 || (c->ring_path == NULL) ==
	    (c->coord_addr == NULL))
		usage(EX_USAGE);
	if (c->id >= c->nworkers) {
		fprintf(stderr, "ps-worker: worker id %u is not below the "
		    "worker count %u\n", c->id, c->nworkers);
		usage(EX_USAGE);
	}
	if (c->zk_connect != NULL && zk_connect_check(c->zk_connect)) {
		fprintf(stderr, "ps-worker: bad -Z '%s': %s\n", c->zk_connect,
		    zk_connect_check(c->zk_connect));
		usage(EX_USAGE);
	}
	if (c->zk_connect == NULL && c->coord_addr != NULL)
		worker_check_coord(c->coord_addr);
	c->shard_path = argv[optind];
	if (c->algorithm == PS_ALG_NEWTON && c->max_iter > PS_ROUND_MAX / 3) {
		fprintf(stderr, "ps-worker: -A newton runs at most %llu "
		    "iterations (-m)\n", (unsigned long long)(PS_ROUND_MAX / 3));
		usage(EX_USAGE);
	}
	worker_check_filters(c, given, lz4);
	/* F's penalties per epoch of data; the servers scale them (ftrl.h). */
	c->opt.l1 = c->lambda;
	c->opt.l2 = c->l2;
}

/* Fill c from the command line, or exit 64. */
static void
worker_parse_args(struct worker_conf *c, int argc, char **argv, int *verbose)
{
	int ch, given = 0, lz4 = 0;

	while ((ch = getopt_long(argc, argv, "A:a:b:C:c:e:F:hi:Ll:m:n:r:S:t:T:vVZ:z",
	    worker_longopts, NULL)) != -1) {
		switch (ch) {
		case 'A':
			if ((c->algorithm = ps_algorithm_parse(optarg)) < 0) {
				fprintf(stderr, "ps-worker: unknown algorithm '%s'\n", optarg);
				usage(EX_USAGE);
			}
			break;
		case 'a': c->secret_path = optarg; break;
		case OPT_ALPHA: case OPT_BATCH: case OPT_BETA: case OPT_EPOCHS:
		case OPT_L2: case OPT_OPTIMIZER:
			worker_sgd_option(c, ch, optarg);
			break;
		case 'b': c->nblocks = (uint32_t)parse_num("block count", optarg, 1, 1 << 20); break;
		case 'C':
		case 'Z':
			if (c->coord_addr != NULL) {
				fprintf(stderr, "ps-worker: one -C or -Z\n");
				usage(EX_USAGE);
			}
			c->coord_addr = optarg;
			c->zk_connect = ch == 'Z' ? optarg : NULL;
			break;
		case 'c': c->channel = (uint32_t)parse_num("channel", optarg, 0, 15); break;
		case 'e': c->eps = parse_num("epsilon", optarg, 0, 1); break;
		case 'F':
			given = 1;
			if (filters_parse(optarg, c) != 0) {
				fprintf(stderr, "ps-worker: bad filter list '%s'\n",
				    optarg);
				usage(EX_USAGE);
			}
			break;
		case 'h': usage(0); break;
		case 'i': c->id = (uint32_t)parse_num("worker id", optarg, 0, 65535); break;
		case 'l': c->lambda = parse_num("lambda", optarg, 0, 1e12); break;
		case 'm':
			c->max_iter = (uint64_t)parse_num("iteration limit",
			    optarg, 1, (double)PS_ROUND_MAX);
			break;
		case 'n': c->nworkers = (uint32_t)parse_num("worker count", optarg, 1, 65536); break;
		case 'r': c->ring_path = optarg; break;
		case 'S': c->seed = (uint64_t)parse_num("seed", optarg, 0, 1e18); break;
		case 't':
			c->tau = strcmp(optarg, "inf") == 0 ? UINT32_MAX :
			    (uint32_t)parse_num("tau", optarg, 0, 1 << 16);
			break;
		case 'T': c->test_path = optarg; break;
		case OPT_SWEEPS: c->sweeps = (uint32_t)parse_num("sweep count", optarg, 1, 1e4); break;
		case OPT_SOLVE_MAX: c->solve_max = (uint32_t)parse_num("active features", optarg, 0, 65536); break;
		case OPT_TIMEOUT: c->timeout = parse_num("timeout", optarg, 0.1, 1e6); break;
		case OPT_COORD_WAIT: c->coord_wait = parse_num("coordinator wait", optarg, 0, 1e6); break;
		case OPT_REJOIN: c->rejoin = parse_num("rejoin wait", optarg, 0, PS_HELLO_REJOIN_MAX); break;
		case OPT_SILENCE: c->silence = parse_num("silence limit", optarg, 0, PS_HELLO_REJOIN_MAX); break;
		case OPT_CKPT_EVERY: c->ckpt_every = (uint64_t)parse_num("checkpoint interval", optarg, 1, 1e15); break;
		case OPT_CKPT_SECS: c->ckpt_secs = parse_num("checkpoint interval", optarg, 0.001, 1e9); break;
		case 'L': c->lifeline = 1; break;
		case OPT_TRACE: c->trace_path = optarg; break;
		case 'v': (*verbose)++; break;
		case 'V': printf("ps-worker %s\n", PACKAGE_VERSION); exit(0);
		case 'z': lz4 = 1; break;
		default: usage(EX_USAGE);
		}
	}
	worker_check_args(c, argc, argv, given, lz4);
}

/* Load the ring and shards, build the plan and the margins. */
static void
worker_load(struct worker *w)
{
	char err[512];

	if (w->conf.secret_path != NULL && ps_secret_load(w->conf.secret_path,
	    &w->secret, err, sizeof err) != 0)
		fatalx(EX_NOINPUT, "%s", err);
	if (w->conf.coord_addr != NULL) {
		coordlink_open(w);
	} else if (ps_ring_load(w->conf.ring_path, &w->ring, err,
	    sizeof err) != 0) {
		fatalx(EX_DATAERR, "%s", err);
	} else if (w->ring.nservers == 0) {
		fatalx(EX_DATAERR, "ring '%s' has no servers",
		    w->conf.ring_path);
	}
	if (ps_shard_read(w->conf.shard_path, &w->ds, err, sizeof err) != 0)
		fatalx(EX_DATAERR, "%s", err);
	if (w->conf.test_path != NULL)
		evaltest_init(w);
	log_info("shard %s: %zu rows, %zu features, %zu non-zeros",
	    w->conf.shard_path, w->ds.nrows, w->ds.nfeat, w->ds.nnz);
	if (w->conf.algorithm == PS_ALG_SGD)
		return;		/* sgd.c cuts its own mini-batches */
	if (w->conf.algorithm == PS_ALG_NEWTON)
		w->conf.nblocks = 1;	/* newton.c: the plan's keys, owners */
	if (w->conf.nblocks > w->ds.nfeat && w->ds.nfeat > 0)
		log_info("%u blocks for %zu features: some blocks are empty",
		    w->conf.nblocks, w->ds.nfeat);
	dbpg_prepare(w);
}

/* --lifeline: the launcher is gone, and nobody waits for our result. */
static void
worker_orphaned_cb(void *arg)
{
	fatalx(EX_TEMPFAIL, "the launcher is gone (standard input closed)");
}

/*
 * The tick wakes the loop every second, or as often as the pings of a
 * silence limit go (links_ping_every), so that waits can time out and
 * the pings go out while nothing else comes in.
 */
static void
worker_tick_cb(evutil_socket_t fd, short what, void *arg)
{
}

int
main(int argc, char **argv)
{
	struct worker w;
	struct ps_lifeline *lifeline = NULL;
	char err[512];
	int verbose = 0, status;
	double tick;

	memset(&w, 0, sizeof w);
	w.conf.nworkers = 1;
	w.conf.lambda = 1;
	w.conf.nblocks = 16;
	w.conf.sweeps = 20;
	w.conf.solve_max = 1024;
	w.conf.eps = 1e-3;
	w.conf.max_iter = 100000;
	w.conf.seed = 1;
	w.conf.timeout = 60;
	w.conf.coord_wait = PS_COORD_WAIT_S;
	w.conf.beta = 1;
	w.conf.kkt = 0.9;
	w.conf.filters = FILTER_DEFAULT;
	w.conf.theta = 1e-3;
	w.conf.skip = 0.5;
	w.conf.opt.opt = PS_OPT_FTRL;
	worker_sgd_option(&w.conf, OPT_ALPHA, SGD_ALPHA);
	worker_sgd_option(&w.conf, OPT_BETA, SGD_BETA);
	worker_sgd_option(&w.conf, OPT_EPOCHS, SGD_EPOCHS);
	worker_sgd_option(&w.conf, OPT_BATCH, SGD_BATCH);
	worker_parse_args(&w.conf, argc, argv, &verbose);
	log_init("ps-worker", verbose);
	log_route_libevent();
	signal(SIGPIPE, SIG_IGN);
	ps_crash_init("ps-worker");
	setvbuf(stdout, NULL, _IOLBF, 0);
	w.started = w.last_progress = ps_clock_now();
	if ((w.base = event_base_new()) == NULL)
		fatalx(EX_OSERR, "cannot create event loop");
	w.tick = event_new(w.base, -1, EV_PERSIST, worker_tick_cb, NULL);
	tick = links_ping_every(&w);
	event_add(w.tick, &(struct timeval){ .tv_sec = (time_t)tick,
	    .tv_usec = (suseconds_t)((tick - (time_t)tick) * 1e6) });
	if (w.conf.lifeline && (lifeline = ps_lifeline_watch(w.base,
	    STDIN_FILENO, worker_orphaned_cb, NULL, err, sizeof err)) == NULL)
		fatalx(EX_USAGE, "--lifeline: %s", err);
	if (w.conf.trace_path != NULL && (w.trace = ps_trace_open(
	    w.conf.trace_path, err, sizeof err)) == NULL)
		fatalx(EX_CANTCREAT, "%s", err);
	worker_load(&w);
	links_open(&w);
	if (w.conf.algorithm == PS_ALG_SGD)
		status = sgd_run(&w);
	else if (w.conf.algorithm == PS_ALG_NEWTON)
		status = newton_run(&w);
	else
		status = dbpg_run(&w);
	coordlink_leave(&w);
	links_close(&w);
	coordlink_close(&w);
	failover_release(&w);
	if (w.have_test)
		evaltest_release(&w.test);
	sgd_release(&w.sgd);
	newton_release(&w);
	dbpg_release(&w);
	ps_dataset_release(&w.ds);
	ps_ring_release(&w.ring);
	ps_secret_release(&w.secret);
	event_free(w.tick);
	ps_lifeline_free(lifeline);
	event_base_free(w.base);
	ps_trace_event(w.trace, NULL, 0, "end\t%d", status);
	ps_trace_close(w.trace);
	if (fflush(stdout) != 0 || ferror(stdout))
		fatal(EX_IOERR, "stdout");
	return status;
}
