/*
 * serve.c: ps-ring serve, the coordinator daemon: options, the secret, the
 * ring store, the listening socket, signals and the failure-detection
 * tick (each accepted connection: accept.c).
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <limits.h>
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
#include "cluster/zk.h"

#define SERVE_TICK_MS	20	/* how often timeouts are checked */
#define SERVE_ZK_SESSION_MS	2000	/* default ZooKeeper session timeout */
#define SERVE_STOP_S	10	/* a shutdown's limit: then SIGALRM ends it */

/* serve's options beyond what struct coord keeps. */
struct serve_opts {
	const char	*listen;	/* -l */
	const char	*ringfile;	/* the operand, without -Z */
	const char	*zk_connect;	/* -Z */
	uint32_t	 zk_session_ms;	/* -s */
};

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
	if (now - co->last_beat >= PS_COORD_HEARTBEAT_MS / 1e3) {
		co->last_beat = now;
		members_beat(co);
	}
}

/*
 * Leave the loop and shut down; should that take SERVE_STOP_S (a ZooKeeper
 * that does not answer the session's close), SIGALRM's default action
 * ends the process, so that whoever stopped it need not stand guard.
 */
static void
serve_stop(struct coord *co)
{
	(void)signal(SIGALRM, SIG_DFL);
	(void)alarm(SERVE_STOP_S);
	event_base_loopbreak(co->base);
}

static void
serve_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct coord *co = arg;

	log_info("signal %d: shutting down", (int)sig);
	serve_stop(co);
}

static void	serve_listen(struct coord *co);

/* -r: the listening line for the launcher too (lifeline.h). */
static void
serve_ready(struct coord *co)
{
	char line[sizeof co->bound + 16];

	if (co->ready_fd < 0)
		return;
	snprintf(line, sizeof line, "listening %s\n", co->bound);
	if (ps_ready_note(co->ready_fd, line) != 0)
		log_warn("-r: descriptor %d", co->ready_fd);
	co->ready_fd = -1;
}

/* The ring is loaded (rc: what the store's load says); exit on failure. */
static void
serve_loaded(struct coord *co, int rc, const char *err)
{
	if (rc == PS_RING_EDATA)
		fatalx(EX_DATAERR, "%s", err);
	if (rc == PS_RING_ESYS)
		fatalx(EX_NOINPUT, "%s", err);
	if (rc == RING_STORE_ECREATE)
		fatalx(EX_CANTCREAT, "%s", err);
	if (rc == 1)
		log_info("new empty ring in %s", co->store->where);
	else
		log_info("ring version %u with %zu servers from %s",
		    co->ring.version, co->ring.nservers, co->store->where);
	co->store->saved = publish_saved;
	co->store->saved_arg = co;
	serve_listen(co);
}

/* The store's load ended on the loop. */
static void
serve_loaded_cb(void *arg, int rc, const char *err)
{
	serve_loaded(arg, rc, err);
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

/* Parse serve's options into co and o. */
static void
serve_args(struct coord *co, int argc, char **argv, struct serve_opts *o)
{
	const char *secret = NULL, *why;
	char err[PATH_MAX + 128];
	int ch, make = 0;

	while ((ch = getopt(argc, argv, "+A:a:hk:Ll:n:r:s:t:v:Z:")) != -1) {
		switch (ch) {
		case 'A':
		case 'a':
			secret = optarg;
			make = ch == 'A';
			break;
		case 'L':
			co->lifeline = 1;
			break;
		case 'h':
			usage(0);
		case 'k':
			co->replicas = parse_count(optarg, "replicas", 0,
			    PS_RING_MAX_SERVERS - 1);
			break;
		case 'l':
			o->listen = optarg;
			break;
		case 'n':
			co->hold_servers = parse_count(optarg, "servers", 1,
			    PS_RING_MAX_SERVERS);
			break;
		case 'r':
			co->ready_fd = (int)parse_count(optarg,
			    "ready descriptor", 0, 65535);
			if (ps_ready_check(co->ready_fd, err, sizeof err) != 0) {
				warnx("-r: %s", err);
				usage(EX_USAGE);
			}
			break;
		case 's':
			o->zk_session_ms = parse_count(optarg,
			    "session timeout", 100, 600000);
			break;
		case 't':
			co->timeout = parse_count(optarg, "timeout",
			    PS_COORD_TIMEOUT_MIN_MS, PS_COORD_TIMEOUT_MAX_MS) /
			    1e3;
			break;
		case 'v':
			co->vnodes = parse_count(optarg, "vnodes", 1,
			    PS_RING_MAX_VNODES);
			break;
		case 'Z':
			if ((why = zk_connect_check(optarg)) != NULL) {
				warnx("-Z '%s': %s", optarg, why);
				usage(EX_USAGE);
			}
			o->zk_connect = optarg;
			break;
		default:
			usage(EX_USAGE);
		}
	}
	if (argc - optind != (o->zk_connect == NULL))
		usage(EX_USAGE);
	o->ringfile = argv[optind];
	if (make && ps_secret_make(secret, err, sizeof err) != 0)
		errx(EX_CANTCREAT, "-A: %s", err);
	serve_secret(co, o->listen, secret);
}

/* -Z: the session is gone, and with it the right to publish. */
static void
serve_zk_lost(void *arg, int expired, const char *why)
{
	fatalx(EX_UNAVAILABLE, "%s: this coordinator stops, since another "
	    "may lead now", why);
}

/* Open the ring store: the ring file, or -Z's ZooKeeper. */
static void
serve_store(struct coord *co, const struct serve_opts *o)
{
	char err[1024];

	if (o->zk_connect == NULL) {
		co->store = ringstore_file_open(o->ringfile);
		return;
	}
	co->zk = zk_open(co->base, o->zk_connect, (int)o->zk_session_ms,
	    co->have_secret ? &co->secret : NULL, serve_zk_lost, co, err,
	    sizeof err);
	if (co->zk == NULL || zk_make_path(co->zk, err, sizeof err) != 0)
		fatalx(EX_UNAVAILABLE, "-Z: %s", err);
	log_info("ZooKeeper session with %s, timeout %d ms",
	    zk_where(co->zk), zk_session_ms(co->zk));
	co->store = ringstore_zk_open(co->zk);
}

/* Close every connection and free what co holds. */
static void
serve_release(struct coord *co)
{
	coord_release(co);
	zk_close(co->zk);
	zkmembers_free(co);
	if (co->listener != NULL)
		evconnlistener_free(co->listener);
	if (co->listen_fd >= 0)
		close(co->listen_fd);
	ps_secret_release(&co->secret);
}

/* -L: the launcher is gone; shut down as on SIGTERM. */
static void
serve_orphaned_cb(void *arg)
{
	struct coord *co = arg;

	log_warnx("the launcher is gone (standard input closed): shutting "
	    "down");
	serve_stop(co);
}

/* Serve the loaded ring: listen, and check timeouts. */
static void
serve_listen(struct coord *co)
{
	struct timeval tv = { 0, SERVE_TICK_MS * 1000 };
	char err[512];

	co->started = co->grace_from = ps_clock_now();
	members_load(co);
	publish_init(co);
	if (ps_listen_start(co->base, co->listen_fd, client_accept_cb, co,
	    &co->listener, err, sizeof err) != 0)
		fatalx(EX_UNAVAILABLE, "%s: %s", co->bound, err);
	co->listen_fd = -1;
	printf("listening %s\n", co->bound);
	if (fflush(stdout) != 0)
		fatal(EX_IOERR, "stdout");
	serve_ready(co);
	log_info("listening on %s, timeout %.0f ms%s", co->bound,
	    co->timeout * 1e3, co->have_secret ?
	    ", clients must authenticate" : "");
	co->last_tick = ps_clock_now();
	event_add(co->tick, &tv);
	if (co->zk != NULL)
		zkmembers_watch(co);
}

/*
 * Lead: load the ring, or store a new empty one (the file store at once,
 * ZooKeeper's on the loop), then serve it.
 */
static void
serve_lead(struct coord *co)
{
	struct ps_ring empty;
	char err[1024];
	int rc;

	ps_ring_empty(&empty, co->vnodes, co->replicas);
	co->store->loaded = serve_loaded_cb;
	co->store->loaded_arg = co;
	rc = co->store->ops->load(co->store, &co->ring, &empty, err,
	    sizeof err);
	ps_ring_release(&empty);
	if (rc != RING_STORE_LATER)
		serve_loaded(co, rc, err);
}

/* ps-ring serve: the coordinator daemon. */
int
cmd_serve(int argc, char **argv)
{
	struct coord co;
	struct event *sigterm, *sigint;
	struct ps_lifeline *lifeline = NULL;
	struct serve_opts o = { "127.0.0.1:0", NULL, NULL,
	    SERVE_ZK_SESSION_MS };
	char err[512];

	memset(&co, 0, sizeof co);
	co.timeout = PS_COORD_TIMEOUT_MS / 1e3;
	co.vnodes = 64;
	co.listen_fd = -1;
	co.ready_fd = -1;
	TAILQ_INIT(&co.clients);
	TAILQ_INIT(&co.members);
	serve_args(&co, argc, argv, &o);
	co.lead = serve_lead;
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
	 * cannot listen writes nothing; connects are refused until it leads
	 * and has loaded the ring.
	 */
	if (ps_listen_reserve(o.listen, &co.listen_fd, co.bound,
	    sizeof co.bound, err, sizeof err) != 0)
		fatalx(EX_UNAVAILABLE, "%s", err);
	sigterm = evsignal_new(co.base, SIGTERM, serve_signal_cb, &co);
	sigint = evsignal_new(co.base, SIGINT, serve_signal_cb, &co);
	co.tick = event_new(co.base, -1, EV_PERSIST, serve_tick_cb, &co);
	event_add(sigterm, NULL);
	event_add(sigint, NULL);
	serve_store(&co, &o);
	if (co.zk != NULL)
		leader_elect(&co);
	else
		serve_lead(&co);
	event_base_dispatch(co.base);
	serve_release(&co);
	event_free(sigterm);
	event_free(sigint);
	event_free(co.tick);
	ps_lifeline_free(lifeline);
	event_base_free(co.base);
	return 0;
}
