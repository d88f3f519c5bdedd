/*
 * serve.c: ps-ring serve, the coordinator daemon: options, the secret, the
 * ring store, the listening socket, signals and the failure-detection
 * tick (each accepted connection: accept.c).
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sysexits.h>

#include <event2/event.h>

#include "ps-ring.h"
#include "serve.h"
#include "util/lifeline.h"
#include "util/log.h"
#include "wire/crash.h"

#define SERVE_TICK_MS	20	/* how often timeouts are checked */

/*
 * Every SERVE_TICK_MS: heartbeat timeouts and acknowledgement timeouts;
 * first, if this tick comes over half the timeout late, the coordinator
 * itself did not run (members_woken).
 */
static void
serve_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct coord *co = arg;
	double now = ps_clock_now();

	if (now - co->last_tick > co->timeout / 2)
		members_woken(co, now - co->last_tick);
	co->last_tick = now;
	members_tick(co);
	publish_tick(co);
}

static void
serve_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct coord *co = arg;

	log_info("signal %d: shutting down", (int)sig);
	event_base_loopbreak(co->base);
}

/* Load the stored ring, or store a new empty one; exit on failure. */
static void
serve_load(struct coord *co, uint32_t vnodes, uint32_t replicas)
{
	char err[1024];
	int rc;

	rc = co->store->ops->load(co->store, &co->ring, err, sizeof err);
	if (rc == PS_RING_EDATA)
		fatalx(EX_DATAERR, "%s", err);
	if (rc == PS_RING_ESYS)
		fatalx(EX_NOINPUT, "%s", err);
	if (rc == 0) {
		log_info("ring version %u with %zu servers from %s",
		    co->ring.version, co->ring.nservers, co->store->where);
		return;
	}
	ps_ring_empty(&co->ring, vnodes, replicas);
	if (co->store->ops->save(co->store, &co->ring, err, sizeof err) != 0)
		fatalx(EX_CANTCREAT, "%s", err);
	log_info("new empty ring in %s", co->store->where);
}

/*
 * Read the secret (-a) or make sure the address needs none: only
 * 127.0.0.1 and [::1] may be served without one.
 */
static void
serve_secret(struct coord *co, const char *listen, const char *path)
{
	char err[512];
	int rc;

	rc = ps_listen_secret(listen, path, &co->secret, &co->have_secret,
	    err, sizeof err);
	if (rc == EX_USAGE) {
		warnx("%s", err);
		usage(EX_USAGE);
	}
	if (rc != 0)
		errx(rc, "%s", err);
}

/* Parse serve's options into co and the listen address. */
static void
serve_args(struct coord *co, int argc, char **argv, const char **listen,
    uint32_t *vnodes, uint32_t *replicas)
{
	const char *secret = NULL;
	int ch;

	while ((ch = getopt(argc, argv, "+a:hk:Ll:t:v:")) != -1) {
		switch (ch) {
		case 'a':
			secret = optarg;
			break;
		case 'L':
			co->lifeline = 1;
			break;
		case 'h':
			usage(0);
		case 'k':
			*replicas = parse_count(optarg, "replicas", 0,
			    PS_RING_MAX_SERVERS - 1);
			break;
		case 'l':
			*listen = optarg;
			break;
		case 't':
			co->timeout = parse_count(optarg, "timeout",
			    PS_COORD_TIMEOUT_MIN_MS, PS_COORD_TIMEOUT_MAX_MS) /
			    1e3;
			break;
		case 'v':
			*vnodes = parse_count(optarg, "vnodes", 1,
			    PS_RING_MAX_VNODES);
			break;
		default:
			usage(EX_USAGE);
		}
	}
	if (argc - optind != 1)
		usage(EX_USAGE);
	serve_secret(co, *listen, secret);
	co->store = ringstore_file_open(argv[optind]);
}

/* Close every connection and free what co holds. */
static void
serve_release(struct coord *co)
{
	coord_release(co);
	evconnlistener_free(co->listener);
	ps_secret_release(&co->secret);
}

/* -L: the launcher is gone; shut down as on SIGTERM. */
static void
serve_orphaned_cb(void *arg)
{
	struct coord *co = arg;

	log_warnx("the launcher is gone (standard input closed): shutting "
	    "down");
	event_base_loopbreak(co->base);
}

/* ps-ring serve: the coordinator daemon. */
int
cmd_serve(int argc, char **argv)
{
	struct coord co;
	struct event *sigterm, *sigint, *tick;
	struct ps_lifeline *lifeline = NULL;
	struct timeval tv = { 0, SERVE_TICK_MS * 1000 };
	const char *listen = "127.0.0.1:0";
	uint32_t vnodes = 64, replicas = 0;
	char err[512];

	memset(&co, 0, sizeof co);
	co.timeout = PS_COORD_TIMEOUT_MS / 1e3;
	TAILQ_INIT(&co.clients);
	TAILQ_INIT(&co.members);
	serve_args(&co, argc, argv, &listen, &vnodes, &replicas);
	log_init("ps-ring", PS_LOG_INFO);
	log_route_libevent();
	signal(SIGPIPE, SIG_IGN);
	ps_crash_init("ps-ring serve");
	co.started = co.grace_from = ps_clock_now();
	if ((co.base = event_base_new()) == NULL)
		fatalx(EX_OSERR, "cannot create event loop");
	if (co.lifeline && (lifeline = ps_lifeline_watch(co.base,
	    STDIN_FILENO, serve_orphaned_cb, &co, err, sizeof err)) == NULL)
		fatalx(EX_USAGE, "-L: %s", err);
	/*
	 * Bind before the ring store is touched, so that a coordinator that
	 * cannot listen writes nothing; nobody is accepted until the loop
	 * runs, after the ring is loaded.
	 */
	if (ps_listen(co.base, listen, client_accept_cb, &co, &co.listener,
	    co.bound, sizeof co.bound, err, sizeof err) != 0)
		fatalx(EX_UNAVAILABLE, "%s", err);
	serve_load(&co, vnodes, replicas);
	members_load(&co);
	publish_init(&co);
	printf("listening %s\n", co.bound);
	if (fflush(stdout) != 0)
		fatal(EX_IOERR, "stdout");
	log_info("listening on %s, timeout %.0f ms%s", co.bound,
	    co.timeout * 1e3, co.have_secret ?
	    ", clients must authenticate" : "");
	sigterm = evsignal_new(co.base, SIGTERM, serve_signal_cb, &co);
	sigint = evsignal_new(co.base, SIGINT, serve_signal_cb, &co);
	tick = event_new(co.base, -1, EV_PERSIST, serve_tick_cb, &co);
	event_add(sigterm, NULL);
	event_add(sigint, NULL);
	event_add(tick, &tv);
	co.last_tick = ps_clock_now();
	event_base_dispatch(co.base);
	serve_release(&co);
	event_free(sigterm);
	event_free(sigint);
	event_free(tick);
	ps_lifeline_free(lifeline);
	event_base_free(co.base);
	return 0;
}
