/*
 * ps-tap.c: a TCP proxy that records what passes, for the daemon fuzz
 * harnesses' seed corpus (tests/fuzz/mkcorpus).
 *
 *   ps-tap [-n conns] listen-addr:port target-host:port prefix
 *
 * It listens (port 0: any free port), prints "listening ADDR:PORT" on
 * stdout, and relays each connection it accepts to the target, writing
 * the bytes the client sent to PREFIX.N.up and those the target sent
 * back to PREFIX.N.down, N counting connections from 0.  When either
 * side closes, it closes the other.  It exits 0 once conns connections
 * (default 1) have closed.
 *
 * Exit status: 0, 64 on a bad command line, 69 if it cannot listen,
 * 73 if it cannot create a file, 74 on a write error.
 */
#include "config.h"

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sysexits.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "util/xmalloc.h"
#include "wire/conn.h"

/* The proxy: where to, where the records go, connections left. */
struct tap {
	struct event_base	*base;
	const char		*target, *prefix;
	int			 accepted, left;
};

/* One direction of one connection. */
struct half {
	struct bufferevent	*from, *to;
	FILE			*log;
	struct pair		*pair;
};

/* One relayed connection. */
struct pair {
	struct tap		*tap;
	struct half		 up, down;	/* client to target, back */
};

static void
usage(void)
{
	fputs("usage: ps-tap [-n conns] listen-addr:port target-host:port "
	    "prefix\n", stderr);
	exit(EX_USAGE);
}

/* Open PREFIX.N.WHICH for writing, or exit 73. */
static FILE *
tap_open(const struct tap *t, int n, const char *which)
{
	char *path = xasprintf("%s.%d.%s", t->prefix, n, which);
	FILE *fp;

	if ((fp = fopen(path, "wb")) == NULL)
		err(EX_CANTCREAT, "cannot create '%s'", path);
	free(path);
	return fp;
}

/* Close both sides and both records; the last connection ends the loop. */
static void
pair_close(struct pair *p)
{
	struct tap *t = p->tap;

	bufferevent_free(p->up.from);
	bufferevent_free(p->down.from);
	if (fclose(p->up.log) != 0 || fclose(p->down.log) != 0)
		err(EX_IOERR, "cannot write the records of '%s'", t->prefix);
	free(p);
	if (--t->left == 0)
		event_base_loopexit(t->base, NULL);
}

/* Bytes arrived on one side: record them, pass them on. */
static void
half_read_cb(struct bufferevent *bev, void *arg)
{
	struct half *h = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t len = evbuffer_get_length(in);

	if (fwrite(evbuffer_pullup(in, -1), 1, len, h->log) != len)
		err(EX_IOERR, "cannot write the records of '%s'",
		    h->pair->tap->prefix);
	bufferevent_write_buffer(h->to, in);
}

/* A side closed or failed: the connection is over. */
static void
half_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct half *h = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		half_read_cb(bev, h);
		pair_close(h->pair);
	}
}

/* A client: connect to the target and relay. */
static void
tap_accept_cb(struct evconnlistener *lis, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct tap *t = arg;
	struct pair *p = xcalloc(1, sizeof *p);
	struct sockaddr_storage ss;
	socklen_t sslen;
	char why[256];

	if (ps_hostport_parse(t->target, &ss, &sslen, why, sizeof why) != 0)
		errx(EX_USAGE, "%s", why);
	p->tap = t;
	p->up.pair = p->down.pair = p;
	p->up.from = bufferevent_socket_new(t->base, fd, BEV_OPT_CLOSE_ON_FREE);
	p->down.from = bufferevent_socket_new(t->base, -1,
	    BEV_OPT_CLOSE_ON_FREE);
	p->up.to = p->down.from;
	p->down.to = p->up.from;
	p->up.log = tap_open(t, t->accepted, "up");
	p->down.log = tap_open(t, t->accepted++, "down");
	bufferevent_setcb(p->up.from, half_read_cb, NULL, half_event_cb,
	    &p->up);
	bufferevent_setcb(p->down.from, half_read_cb, NULL, half_event_cb,
	    &p->down);
	bufferevent_enable(p->up.from, EV_READ | EV_WRITE);
	bufferevent_enable(p->down.from, EV_READ | EV_WRITE);
	if (bufferevent_socket_connect(p->down.from, (struct sockaddr *)&ss,
	    (int)sslen) != 0)
		errx(EX_UNAVAILABLE, "cannot connect to '%s'", t->target);
}

int
main(int argc, char **argv)
{
	struct tap t = { .left = 1 };
	struct evconnlistener *lis;
	char bound[128], why[256];
	int ch;

	while ((ch = getopt(argc, argv, "n:")) != -1)
		if (ch != 'n' || (t.left = atoi(optarg)) < 1)
			usage();
	if (argc - optind != 3)
		usage();
	t.target = argv[optind + 1];
	t.prefix = argv[optind + 2];
	if ((t.base = event_base_new()) == NULL)
		errx(EX_OSERR, "cannot create event loop");
	if (ps_listen(t.base, argv[optind], tap_accept_cb, &t, &lis, bound,
	    sizeof bound, why, sizeof why) != 0)
		errx(EX_UNAVAILABLE, "%s", why);
	printf("listening %s\n", bound);
	fflush(stdout);
	event_base_dispatch(t.base);
	evconnlistener_free(lis);
	event_base_free(t.base);
	return 0;
}
