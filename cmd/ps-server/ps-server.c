/*
 * ps-server.c: the parameter server daemon: options, the listening socket,
 * signals, and the model written at exit (the stats report: stats.c).
 */
#include "config.h"

#include <getopt.h>
#ifdef HAVE_MALLOPT
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sysexits.h>
#include <unistd.h>

#include <event2/event.h>

#include "cluster/zk.h"
#include "failover/failover.h"
#include "util/fdlimit.h"
#include "util/lifeline.h"
#include "util/log.h"
#include "util/parsenum.h"
#include "util/trace.h"
#include "util/usage.h"
#include "util/xmalloc.h"
#include "wire/crash.h"

static const char usage_text[] =
"usage: ps-server [-hLVv] [-a secret-file] [-c max-conns] [--hello-timeout ms]\n"
"                 [-i model] [-K keys] [-k ckdir [--keep n]] [-l addr:port]\n"
"                 [-m max-frame] [--max-buffered bytes] [--max-keys n]\n"
"                 [--momentum m] [-o model.psm] [--trace file]\n"
"                 [-C host:port[,...] | -Z host:port[,...]/path\n"
"                  [--coordinator-wait secs] [--standby] | -r ring]\n";

static void
usage(int status)
{
	ps_usage(status, usage_text, "\n"
	    "  -l, --listen addr:port  listen here (default 127.0.0.1:0, any free port);\n"
	    "                          any address but 127.0.0.1 and [::1] needs -a\n"
	    "  -a, --auth-secret file  peers must prove they know the secret in file\n"
	    "                          (mode 0600, 16 bytes or more)\n"
	    "  -o, --output file       write this server's model part here on SAVE and at exit\n"
	    "  -k, --checkpoint-dir dir  write checkpoints here (pskit-ckpt(5)) when\n"
	    "                          worker 0 asks, on SIGUSR1 and on `checkpoint`\n"
	    "      --keep n            complete checkpoints kept (default 3)\n"
	    "  -i, --init model        the first job starts from this model (a checkpoint\n"
	    "                          directory's latest complete version, a version,\n"
	    "                          or part files); this server takes its keys\n"
	    "  -r, --ring file         hold only the keys this ring gives this server\n"
	    "                          (read when the first worker says hello)\n"
	    "  -C, --coordinator host:port  register with this coordinator\n"
	    "                          (ps-ring serve), or with whichever of a\n"
	    "                          comma-separated list leads (serve -Z),\n"
	    "                          and hold the rings it sends;\n"
	    "                          with -a, prove the secret to it too\n"
	    "  -Z, --zookeeper host:port[,...]/path  register with the coordinator\n"
	    "                          leading on this ZooKeeper path (ps-ring serve\n"
	    "                          -Z), following the lead as it moves; hold a\n"
	    "                          znode there (its session's end is this server's)\n"
	    "      --coordinator-wait secs  with -C or -Z: end (exit 69) when no coordinator\n"
	    "                          answers for this long after losing it\n"
	    "                          (default 30; 0: never)\n"
	    "      --standby           with -C or -Z: join the ring only on `ps-ring add`\n"
	    "  -c, --max-conns n       at most n connections (default 1024); past it,\n"
	    "                          a new one closes the oldest that has not said\n"
	    "                          HELLO, or is refused when there is none\n"
	    "      --hello-timeout ms  close a connection that is not a worker's or a\n"
	    "                          replica's and sends no whole message for ms\n"
	    "                          (default 10000; 0: never)\n"
	    "  -m, --max-frame bytes   close a connection that sends a frame whose\n"
	    "                          payload is larger (4096 to 67108864; default 67108864)\n"
	    "  -K, --key-cache n       keys of cached key lists kept per connection\n"
	    "                          (default 4194304; 0 keeps none)\n"
	    "      --max-buffered bytes  close the connection holding most when all\n"
	    "                          together hold more in unfinished frames and\n"
	    "                          cached keys (default: 1 GiB, at most 1/4 of RAM)\n"
	    "      --max-keys n        end a job whose push would make a channel hold\n"
	    "                          more keys, at most 2^30 (default: 1/2 of RAM at\n"
	    "                          80 bytes a key)\n"
	    "      --momentum m        extrapolate each weight's proximal step by up to\n"
	    "                          m times its last move, restarting when the\n"
	    "                          gradient turns (0 to 0.99; default 0.8; 0: the\n"
	    "                          plain step of Algorithm 2)\n"
	    "      --trace file        append the rounds and pushes applied to file\n"
	    "                          (for tests/chaos/check-trace)\n"
	    "  -L, --lifeline          shut down when standard input, a pipe from the\n"
	    "                          launcher, reaches end of file (or the parent dies)\n"
	    "  -v, --verbose           more messages on stderr (repeat for debug)\n"
	    "  -V, --version           print the version and exit\n"
	    "  -h, --help              print this help and exit\n"
	    "\nThe first line on stdout is \"listening ADDR:PORT\"; "
	    "`echo stats | nc ADDR PORT` reports counters\n"
	    "(without -a only: with it, text commands follow the handshake).\n");
}

/*
 * A round's scratch (its pushes' keys, slots and values: megabytes at a
 * time on a big job) is freed when the round ends.  glibc raises its
 * mmap threshold to the size of the first such block freed and serves
 * later ones from the heap, which keeps them resident; fixed thresholds
 * give each back at once.  A gen-4m server peaked 6% lower with them
 * (tests/bench/README).
 */
#define SERVER_MMAP_THRESHOLD	(128 * 1024)	/* glibc's first one */

static void
server_malloc_tune(void)
{
#ifdef HAVE_MALLOPT
	mallopt(M_MMAP_THRESHOLD, SERVER_MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, SERVER_MMAP_THRESHOLD);
#endif
}

/*
 * Descriptors beyond the connections: the listener, model and checkpoint
 * files, the coordinator and replica links, the logs.
 */
#define SERVER_SPARE_FDS	64

/* -c needs as many descriptors: raise the limit, or lower -c to fit. */
static void
server_fd_limit(struct server *srv)
{
	long want = (long)srv->max_conns + SERVER_SPARE_FDS;
	long have = ps_fd_limit_raise(want);

	if (have >= want)
		return;
	srv->max_conns = have > SERVER_SPARE_FDS + 1 ?
	    (int)(have - SERVER_SPARE_FDS) : 1;
	log_warnx("-c: only %ld file descriptors (ulimit -n); at most %d "
	    "connections", have, srv->max_conns);
}

/* --lifeline: the launcher is gone; shut down as on SIGTERM. */
static void
server_orphaned_cb(void *arg)
{
	struct server *srv = arg;

	log_warnx("the launcher is gone (standard input closed): shutting "
	    "down");
	event_base_loopbreak(srv->base);
}

/* SIGTERM, SIGINT: leave the loop; main() saves and cleans up. */
static void
server_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;

	log_info("signal %d: shutting down", (int)sig);
	event_base_loopbreak(srv->base);
}

/*
 * SIGUSR1: with -k, ask for a checkpoint (checkpoint.c); else write the
 * model part now, as a SAVE message would.
 */
static void
server_save_cb(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;
	char err[512];

	if (srv->ckpt.dir != NULL) {
		if (ckpt_request(srv, err, sizeof err) != 0)
			log_warnx("SIGUSR1: no checkpoint: %s", err);
		return;
	}
	if (srv->model_path == NULL) {
		log_warnx("SIGUSR1: nothing to do without -o");
		return;
	}
	if (channels_save(srv, err, sizeof err) != 0)
		log_warnx("%s", err);
	else
		log_info("saved %s", srv->model_path);
}

/* A decimal number in [lo, hi] for the option named what, or exit 64. */
static uint64_t
server_parse_num(const char *s, const char *what, uint64_t lo, uint64_t hi)
{
	uint64_t n;

	if (ps_parsenum_u64_in(s, lo, hi, &n) != PS_NUM_OK) {
		fprintf(stderr, "ps-server: bad %s '%s' (expected %llu to %llu)\n",
		    what, s, (unsigned long long)lo, (unsigned long long)hi);
		usage(EX_USAGE);
	}
	return n;
}

/* Seconds from 0 to 1e6 for the option named what, or exit 64. */
static double
server_parse_secs(const char *s, const char *what)
{
	double secs;

	if (ps_parsenum_double_in(s, 0, 1e6, &secs) != PS_NUM_OK) {
		fprintf(stderr, "ps-server: bad %s '%s' (expected 0 to 1000000 "
		    "seconds)\n", what, s);
		usage(EX_USAGE);
	}
	return secs;
}

/* The options without a short form. */
enum {
	OPT_STANDBY = 1, OPT_KEEP, OPT_MAX_BUFFERED, OPT_MAX_KEYS,
	OPT_HELLO_TIMEOUT, OPT_TRACE, OPT_COORD_WAIT, OPT_MOMENTUM
};

static const struct option server_longopts[] = {
	{ "auth-secret", required_argument, NULL, 'a' },
	{ "listen", required_argument, NULL, 'l' },
	{ "output", required_argument, NULL, 'o' },
	{ "max-conns", required_argument, NULL, 'c' },
	{ "max-frame", required_argument, NULL, 'm' },
	{ "key-cache", required_argument, NULL, 'K' },
	{ "ring", required_argument, NULL, 'r' },
	{ "coordinator", required_argument, NULL, 'C' },
	{ "zookeeper", required_argument, NULL, 'Z' },
	{ "standby", no_argument, NULL, OPT_STANDBY },
	{ "coordinator-wait", required_argument, NULL, OPT_COORD_WAIT },
	{ "checkpoint-dir", required_argument, NULL, 'k' },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "init", required_argument, NULL, 'i' },
	{ "max-buffered", required_argument, NULL, OPT_MAX_BUFFERED },
	{ "max-keys", required_argument, NULL, OPT_MAX_KEYS },
	{ "momentum", required_argument, NULL, OPT_MOMENTUM },
	{ "hello-timeout", required_argument, NULL, OPT_HELLO_TIMEOUT },
	{ "lifeline", no_argument, NULL, 'L' },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* The options that exclude or need each other; exit 64 if they clash. */
static void
server_check_args(const struct server *srv)
{
	if (srv->coord_addr != NULL && srv->ring_path != NULL) {
		fprintf(stderr, "ps-server: -%c and -r exclude each other\n",
		    srv->zk_connect != NULL ? 'Z' : 'C');
		usage(EX_USAGE);
	}
	if (srv->standby && srv->coord_addr == NULL) {
		fprintf(stderr, "ps-server: --standby needs -C or -Z\n");
		usage(EX_USAGE);
	}
}

/* Fill srv and the rest from the command line, or exit 64. */
static void
server_parse_args(struct server *srv, int argc, char **argv,
    const char **listen, const char **secret, const char **init,
    int *verbose)
{
	int ch;

	while ((ch = getopt_long(argc, argv, "a:C:c:hi:K:k:Ll:m:o:r:VvZ:",
	    server_longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_STANDBY:
			srv->standby = 1;
			break;
		case OPT_COORD_WAIT:
			srv->coord_wait = server_parse_secs(optarg,
			    "coordinator wait");
			break;
		case OPT_KEEP:
			srv->ckpt.keep = (unsigned)server_parse_num(optarg,
			    "number of checkpoints kept", 1, 1000000);
			break;
		case OPT_MAX_BUFFERED:
			srv->max_buffered = (size_t)server_parse_num(optarg,
			    "buffer limit", 1L << 20, 1L << 48);
			break;
		case OPT_MAX_KEYS:
			srv->max_keys = (uint64_t)server_parse_num(optarg,
			    "key limit", 1, SERVER_KEYS_MAX);
			break;
		case OPT_MOMENTUM:
			if (ps_parsenum_double_in(optarg, 0, 0.99,
			    &srv->momentum) != PS_NUM_OK) {
				fprintf(stderr, "ps-server: bad momentum '%s' "
				    "(expected 0 to 0.99)\n", optarg);
				usage(EX_USAGE);
			}
			break;
		case 'L':
			srv->lifeline = 1;
			break;
		case OPT_TRACE:
			srv->trace_path = optarg;
			break;
		case OPT_HELLO_TIMEOUT:
			srv->hello_timeout = (unsigned)server_parse_num(optarg,
			    "hello timeout", 0, 86400000);
			break;
		case 'i':
			*init = optarg;
			break;
		case 'k':
			srv->ckpt.dir = optarg;
			break;
		case 'a':
			*secret = optarg;
			break;
		case 'C':
		case 'Z':
			if (srv->coord_addr != NULL) {
				fprintf(stderr, "ps-server: one -C or -Z\n");
				usage(EX_USAGE);
			}
			srv->coord_addr = optarg;
			srv->zk_connect = ch == 'Z' ? optarg : NULL;
			break;
		case 'c':
			srv->max_conns = (int)server_parse_num(optarg,
			    "connection limit", 1, 65536);
			break;
		case 'h':
			usage(0);
			break;
		case 'K':
			srv->key_cache = (size_t)server_parse_num(optarg,
			    "key cache size", 0, 1L << 30);
			break;
		case 'l':
			*listen = optarg;
			break;
		case 'm':
			srv->max_frame = (size_t)server_parse_num(optarg,
			    "frame limit", PS_CONN_FRAME_MIN,
			    PS_FRAME_MAX_PAYLOAD);
			break;
		case 'o':
			srv->model_path = optarg;
			break;
		case 'r':
			srv->ring_path = optarg;
			break;
		case 'V':
			printf("ps-server %s\n", PACKAGE_VERSION);
			exit(0);
		case 'v':
			(*verbose)++;
			break;
		default:
			usage(EX_USAGE);
		}
	}
	if (optind != argc)
		usage(EX_USAGE);
	server_check_args(srv);
}

/*
 * Read the secret (-a) or make sure the address needs none: only
 * 127.0.0.1 and [::1] may be served without one.  A malformed -l or -C
 * address is a usage error.
 */
static void
server_auth_setup(struct server *srv, const char *listen, const char *path)
{
	char err[512];
	int rc;

	if (srv->zk_connect != NULL && zk_connect_check(srv->zk_connect)) {
		fprintf(stderr, "ps-server: bad -Z '%s': %s\n",
		    srv->zk_connect, zk_connect_check(srv->zk_connect));
		usage(EX_USAGE);
	}
	if (srv->zk_connect == NULL && srv->coord_addr != NULL &&
	    ps_coord_list_check(srv->coord_addr, err, sizeof err) != 0) {
		fprintf(stderr, "ps-server: %s\n", err);
		usage(EX_USAGE);
	}

	rc = ps_listen_secret(listen, path, &srv->secret, &srv->have_secret,
	    err, sizeof err);
	if (rc == EX_USAGE) {
		fprintf(stderr, "ps-server: %s\n", err);
		usage(EX_USAGE);
	}
	if (rc != 0)
		fatalx(rc, "%s", err);
}

int
main(int argc, char **argv)
{
	struct server srv;
	struct event *sigterm, *sigint, *sigusr1;
	struct ps_lifeline *lifeline = NULL;
	const char *listen = "127.0.0.1:0", *secret = NULL, *init = NULL;
	char err[512];
	int verbose = 0, status;

	server_defaults(&srv);
	server_parse_args(&srv, argc, argv, &listen, &secret, &init, &verbose);
	log_init("ps-server", verbose);
	server_malloc_tune();
	server_fd_limit(&srv);
	server_auth_setup(&srv, listen, secret);
	ckpt_dir_check(&srv);
	if (srv.trace_path != NULL &&
	    (srv.trace = ps_trace_open(srv.trace_path, err, sizeof err)) == NULL)
		fatalx(EX_CANTCREAT, "%s", err);
	if (init != NULL)
		startmodel_load(&srv, init);
	log_route_libevent();
	signal(SIGPIPE, SIG_IGN);
	ps_crash_init("ps-server");
	if ((srv.base = event_base_new()) == NULL)
		fatalx(EX_OSERR, "cannot create event loop");
	if (srv.lifeline && (lifeline = ps_lifeline_watch(srv.base,
	    STDIN_FILENO, server_orphaned_cb, &srv, err, sizeof err)) == NULL)
		fatalx(EX_USAGE, "--lifeline: %s", err);
	server_open(&srv, srv.base, &failover_ops);
	if (ps_listen(srv.base, listen, peer_accept_cb, &srv, &srv.listener,
	    srv.bound, sizeof srv.bound, err, sizeof err) != 0)
		fatalx(EX_UNAVAILABLE, "%s", err);
	/* Before "listening": a launcher may signal the server once it read
	 * that line, and SIGUSR1's default action would kill it. */
	sigterm = evsignal_new(srv.base, SIGTERM, server_signal_cb, &srv);
	sigint = evsignal_new(srv.base, SIGINT, server_signal_cb, &srv);
	sigusr1 = evsignal_new(srv.base, SIGUSR1, server_save_cb, &srv);
	event_add(sigterm, NULL);
	event_add(sigint, NULL);
	event_add(sigusr1, NULL);
	printf("listening %s\n", srv.bound);
	fflush(stdout);
	ps_trace_event(srv.trace, NULL, 0, "start\t%s", srv.bound);
	log_info("listening on %s%s", srv.bound, srv.have_secret ?
	    ", peers must authenticate" : "");
	if (srv.coord_addr != NULL)
		coordlink_start(&srv);
	event_base_dispatch(srv.base);
	status = srv.exit_status;
	if (srv.model_path != NULL &&
	    channels_save(&srv, err, sizeof err) != 0) {
		log_warnx("%s", err);
		if (status == 0)
			status = EX_CANTCREAT;
	}
	coordlink_stop(&srv);
	server_close(&srv);
	evconnlistener_free(srv.listener);
	event_free(sigterm);
	event_free(sigint);
	event_free(sigusr1);
	/* A checkpoint request now has nothing to do, and by default it
	 * would kill the server on its way out (ps-train forwards them). */
	signal(SIGUSR1, SIG_IGN);
	ps_lifeline_free(lifeline);
	event_base_free(srv.base);
	if (srv.have_ring)
		ps_ring_release(&srv.ring);
	if (srv.have_prev_ring)
		ps_ring_release(&srv.prev_ring);
	ps_secret_release(&srv.secret);
	ps_trace_event(srv.trace, NULL, 0, "end\t%d", status);
	ps_trace_close(srv.trace);
	return status;
}
