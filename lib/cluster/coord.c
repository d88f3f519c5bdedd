/*
 * coord.c: the node side of the coordinator protocol (coord.h): connect,
 * authenticate with a secret, REGISTER, heartbeats, RING in and its
 * acknowledgement, and reconnecting with a bounded backoff when the
 * coordinator goes away, or stays silent through the handshake (it may be
 * hung, or have no secret); but not after it refused ours or asked for
 * one we do not have, which another try would meet the same way.  Each
 * loss is told as the coordinator gone or this node cut off (coord.h,
 * rule 4), and a link lost for longer than its wait gives up (rule 6).
 * Given several coordinators (ps-ring serve -Z), each try goes to the next
 * in turn: the standbys refuse connects, so the link settles on the one
 * that leads.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cluster/coord.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "wire/conn.h"

struct ps_coord_node {
	struct event_base	*base;
	const char		*list;		/* "host:port[,host:port...]" */
	char			**addrs;	/* the list, split */
	size_t			 naddrs, cur;
	int			 following;	/* ps_coord_node_follow() */
	const char		*addr, *self;	/* addr: addrs[cur] */
	int			 role, join;
	uint32_t		 id;
	const struct ps_secret	*secret;	/* NULL: none */
	struct ps_coord_node_cbs cbs;
	void			*arg;
	struct ps_conn		*conn;		/* NULL while disconnected */
	struct event		*beat;		/* heartbeat, while connected */
	struct event		*retry;		/* reconnect, while not */
	struct event		*silence;	/* rule 7: with several addrs */
	double			 silence_ms;
	int			 backoff_ms;
	uint32_t		 version;	/* of the last ring applied */
	uint32_t		 before;	/* the one acknowledged before it */
	int			 holding;	/* version not acknowledged yet */
	int			 leaving;	/* BYE sent: no reconnecting */
	int			 warned;	/* said we cannot connect */
	int			 gone;		/* lost, the coordinator gone */
	double			 lost_at;	/* 0 while it holds a ring */
	double			 wait_s;	/* then give up; 0: never */
	char			 error[640];	/* holds a close callback's why */
};

static void	node_connect(struct ps_coord_node *n);

/* Milliseconds as a timeval. */
static struct timeval
node_tv(int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	return tv;
}

/* Send a HEARTBEAT with the version held and the owner's counters. */
static void
node_heartbeat(struct ps_coord_node *n)
{
	struct ps_heartbeat hb;
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	memset(&hb, 0, sizeof hb);
	m.type = PS_MSG_HEARTBEAT;
	m.flags = PS_MSG_F_NOKEYS;
	m.sender = n->id;
	m.ring_version = n->holding ? n->before : n->version;
	if (n->cbs.counters != NULL) {
		n->cbs.counters(&hb, n->arg);
		hb.ncounts = PS_COORD_HB_N;
		hb.copying = n->holding ? n->version : 0;
	}
	ps_heartbeat_encode(&hb, &m);
	ps_conn_send(n->conn, &m);
}

void
ps_coord_node_hold(struct ps_coord_node *n)
{
	n->holding = 1;
}

void
ps_coord_node_ack(struct ps_coord_node *n)
{
	if (!n->holding)
		return;
	n->holding = 0;
	if (n->conn != NULL)
		node_heartbeat(n);
}

/* Lost for longer than the wait: stop for good and tell the owner. */
static int
node_give_up(struct ps_coord_node *n)
{
	char why[800];
	double lost = ps_clock_now() - n->lost_at;

	if (n->wait_s <= 0 || n->lost_at == 0 || lost <= n->wait_s)
		return 0;
	snprintf(why, sizeof why, "no coordinator at '%s' for %.0f s "
	    "(last: %s); giving up", n->list, lost, n->error);
	n->leaving = 1;
	event_del(n->retry);
	n->cbs.gave_up(why, n->arg);
	return 1;
}

/* The next try goes to the next coordinator of the list. */
static void
node_next_addr(struct ps_coord_node *n)
{
	if (n->naddrs == 0)
		return;
	n->cur = (n->cur + 1) % n->naddrs;
	n->addr = n->addrs[n->cur];
}

/*
 * Drop the connection, tell the owner whether the coordinator is gone or
 * this node cut off (coord.h, rule 4), and try again after the backoff.
 */
static void
node_lost(struct ps_coord_node *n, const char *why, int gone)
{
	struct timeval tv;

	snprintf(n->error, sizeof n->error, "%s", why);
	ps_conn_free(n->conn);
	n->conn = NULL;
	event_del(n->beat);
	event_del(n->silence);
	if (n->leaving)
		return;
	if (n->lost_at == 0)
		n->lost_at = ps_clock_now();
	n->gone = gone;
	n->cbs.lost(n->error, gone, n->arg);
	if (node_give_up(n))
		return;
	if (gone)
		n->backoff_ms = PS_COORD_RETRY_MIN_MS;
	node_next_addr(n);
	tv = node_tv(n->backoff_ms);
	evtimer_add(n->retry, &tv);
}

/*
 * Give the link up when a heartbeat stays unacknowledged for the
 * coordinator's timeout_ms less one heartbeat interval (at least one
 * interval): a node cut off silently must stop acting on its ring (coord.h,
 * rule 1).  The first unacknowledged heartbeat leaves at most an interval
 * after the last one the coordinator heard, so nominally that is no later
 * than the coordinator declares this node dead; the kernel's
 * retransmission timer makes it up to a few hundred milliseconds later.
 */
static void
node_unacked_timeout(struct ps_coord_node *n, double timeout_ms)
{
	double ms = timeout_ms - PS_COORD_HEARTBEAT_MS;

	if (!(ms >= PS_COORD_HEARTBEAT_MS))
		ms = PS_COORD_HEARTBEAT_MS;
	if (ms > PS_COORD_TIMEOUT_MAX_MS)
		ms = PS_COORD_TIMEOUT_MAX_MS;
	if (ps_conn_set_unacked_timeout(n->conn, (unsigned int)ms) != 0)
		log_debug("coordinator '%s': cannot bound unacknowledged "
		    "heartbeats: %s", n->addr, strerror(errno));
}

/* A RING: parse it, hand it over, acknowledge it. */
static void
node_ring(struct ps_coord_node *n, const struct ps_msg *m)
{
	struct ps_ring ring;
	char name[300], err[512];
	double timeout_ms;

	snprintf(name, sizeof name, "coordinator '%s'", n->addr);
	if (ps_ring_parse(m->blob != NULL ? m->blob : "", m->bloblen, name,
	    &ring, err, sizeof err) != 0) {
		node_lost(n, err, 0);
		return;
	}
	if (ring.version != m->ring_version) {
		snprintf(err, sizeof err, "%s sent ring version %u as %u",
		    name, ring.version, m->ring_version);
		ps_ring_release(&ring);
		node_lost(n, err, 0);
		return;
	}
	if (ps_ring_msg_decode(m, &timeout_ms) == 0) {
		node_unacked_timeout(n, timeout_ms);
		n->silence_ms = timeout_ms > 3 * PS_COORD_HEARTBEAT_MS ?
		    timeout_ms : 3 * PS_COORD_HEARTBEAT_MS;
	}
	n->backoff_ms = PS_COORD_RETRY_MIN_MS;
	n->lost_at = 0;
	n->gone = 0;
	n->before = n->holding ? n->before : n->version;
	n->holding = 0;
	n->version = ring.version;
	n->cbs.ring(&ring, n->arg);
	node_heartbeat(n);
}

/* Rule 7: (re)start the wait for the coordinator's next word. */
static void
node_arm_silence(struct ps_coord_node *n)
{
	struct timeval tv = node_tv((int)n->silence_ms);

	if (n->naddrs > 1 || n->following)
		evtimer_add(n->silence, &tv);
}

static void
node_silence_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ps_coord_node *n = arg;
	char why[600];

	snprintf(why, sizeof why, "coordinator '%s' said nothing for %.0f ms",
	    n->addr, n->silence_ms);
	node_lost(n, why, 0);
}

static void
node_msg_cb(struct ps_conn *c, struct ps_msg *m, void *arg)
{
	struct ps_coord_node *n = arg;
	char why[600];

	node_arm_silence(n);
	if (m->type == PS_MSG_HEARTBEAT) {
		/* the coordinator is there (rule 7) */
	} else if (m->type == PS_MSG_RING) {
		node_ring(n, m);
	} else if (m->type == PS_MSG_ERROR) {
		snprintf(why, sizeof why, "coordinator '%s' refused: %s",
		    n->addr, m->blob != NULL ? m->blob : "");
		node_lost(n, why, 0);
	} else {
		snprintf(why, sizeof why, "coordinator '%s' sent an "
		    "unexpected %s", n->addr, ps_msg_type_name(m->type));
		node_lost(n, why, 0);
	}
	ps_msg_release(m);
}

/* The handshake failed: stop the link and tell the owner. */
static void
node_refused(struct ps_coord_node *n, const char *why)
{
	snprintf(n->error, sizeof n->error, "%s", why);
	ps_conn_free(n->conn);
	n->conn = NULL;
	event_del(n->beat);
	event_del(n->silence);
	n->leaving = 1;
	n->cbs.refused(n->error, n->arg);
}

static void
node_close_cb(struct ps_conn *c, const char *reason, void *arg)
{
	struct ps_coord_node *n = arg;
	char why[600];

	snprintf(why, sizeof why, "coordinator '%s': %s", n->addr, reason);
	if (ps_conn_is_auth_refused(c))
		node_refused(n, why);
	else
		node_lost(n, why, ps_conn_peer_closed(c));
}

/* Heartbeat timer. */
static void
node_beat_cb(evutil_socket_t fd, short what, void *arg)
{
	node_heartbeat(arg);
}

/* Reconnect timer. */
static void
node_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	node_connect(arg);
}

/* Send REGISTER on a fresh connection. */
static void
node_register(struct ps_coord_node *n)
{
	struct ps_register reg = { n->role, n->id, n->join };
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_REGISTER;
	m.flags = PS_MSG_F_NOKEYS;
	m.sender = n->id;
	ps_register_encode(&reg, &m);
	if (n->self != NULL) {
		m.blob = (char *)n->self;
		m.bloblen = strlen(n->self);
	}
	ps_conn_send(n->conn, &m);
}

/*
 * A connect failed: while the coordinator is gone, a refusal keeps it
 * gone (nothing listens there) and anything else cuts this node off;
 * give up past the wait, or schedule the next try.
 */
static void
node_connect_failed(struct ps_coord_node *n, int e)
{
	struct timeval tv;
	int max = n->gone ? PS_COORD_RETRY_GONE_MS : PS_COORD_RETRY_MAX_MS;

	if (!n->warned)
		log_warnx("%s; retrying", n->error);
	n->warned = 1;
	if (n->gone && e != ECONNREFUSED) {
		n->gone = 0;
		n->cbs.lost(n->error, 0, n->arg);
	}
	if (node_give_up(n))
		return;
	node_next_addr(n);
	tv = node_tv(n->backoff_ms);
	if ((n->backoff_ms *= 2) > max)
		n->backoff_ms = max;
	evtimer_add(n->retry, &tv);
}

/* Try to connect once; on failure schedule the next try. */
static void
node_connect(struct ps_coord_node *n)
{
	struct timeval beat = node_tv(PS_COORD_HEARTBEAT_MS);
	struct timeval later = node_tv(PS_COORD_RETRY_MAX_MS);

	if (n->naddrs == 0) {	/* no leader named yet: only the wait runs */
		if (!node_give_up(n))
			evtimer_add(n->retry, &later);
		return;
	}
	n->conn = ps_conn_connect(n->base, n->addr, PS_COORD_CONNECT_S,
	    node_msg_cb, node_close_cb, n, n->error, sizeof n->error);
	if (n->conn == NULL) {
		node_connect_failed(n, errno);
		return;
	}
	n->warned = 0;
	n->error[0] = '\0';
	if (n->secret != NULL && ps_conn_set_auth(n->conn, n->secret,
	    PS_AUTH_CONNECTOR, n->error, sizeof n->error) != 0)
		fatalx(EX_OSERR, "coordinator '%s': %s", n->addr, n->error);
	node_register(n);
	event_add(n->beat, &beat);
	n->silence_ms = PS_COORD_SILENCE_FIRST_MS;
	node_arm_silence(n);
}

struct ps_coord_node *
ps_coord_node_new(struct event_base *base, const char *addr, int role,
    uint32_t id, int join, const char *self, const struct ps_secret *secret,
    const struct ps_coord_node_cbs *cbs, void *arg)
{
	struct ps_coord_node *n = xcalloc(1, sizeof *n);

	n->base = base;
	n->list = addr != NULL ? addr : "the leader ZooKeeper names";
	if (addr != NULL) {
		n->addrs = ps_coord_split(addr, &n->naddrs);
		n->addr = n->addrs[0];
	} else {
		n->following = 1;
		n->lost_at = ps_clock_now();
		snprintf(n->error, sizeof n->error, "no coordinator leads");
	}
	n->self = self;
	n->secret = secret;
	n->role = role;
	n->id = id;
	n->join = join;
	n->cbs = *cbs;
	n->arg = arg;
	n->backoff_ms = PS_COORD_RETRY_MIN_MS;
	n->wait_s = PS_COORD_WAIT_S;
	n->beat = event_new(base, -1, EV_PERSIST, node_beat_cb, n);
	n->retry = evtimer_new(base, node_retry_cb, n);
	n->silence = evtimer_new(base, node_silence_cb, n);
	if (n->beat == NULL || n->retry == NULL || n->silence == NULL)
		fatalx(EX_OSERR, "cannot create the coordinator timers");
	node_connect(n);
	return n;
}

void
ps_coord_node_follow(struct ps_coord_node *n, const char *addr)
{
	char why[600];

	if (n->naddrs == 1 && strcmp(n->addr, addr) == 0)
		return;
	ps_coord_split_free(n->addrs, n->naddrs);
	n->addrs = ps_coord_split(addr, &n->naddrs);
	n->cur = 0;
	n->addr = n->addrs[0];
	n->following = 1;
	if (n->leaving)
		return;
	if (n->conn != NULL) {
		/* The one we spoke to leads no more: its ring cannot change
		   but through the new leader (rule 4, gone). */
		snprintf(why, sizeof why, "ZooKeeper names '%s' the leading "
		    "coordinator", addr);
		node_lost(n, why, 1);
		return;
	}
	event_del(n->retry);
	n->backoff_ms = PS_COORD_RETRY_MIN_MS;
	node_connect(n);
}

void
ps_coord_node_set_wait(struct ps_coord_node *n, double secs)
{
	n->wait_s = secs;
}

void
ps_coord_node_leave(struct ps_coord_node *n)
{
	struct ps_msg m;

	n->leaving = 1;
	event_del(n->beat);
	event_del(n->retry);
	event_del(n->silence);
	if (n->conn == NULL)
		return;
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_BYE;
	m.flags = PS_MSG_F_NOKEYS;
	m.sender = n->id;
	ps_conn_send(n->conn, &m);
	ps_conn_close_after_flush(n->conn);
}

const char *
ps_coord_node_error(const struct ps_coord_node *n)
{
	return n->error;
}

void
ps_coord_node_free(struct ps_coord_node *n)
{
	if (n == NULL)
		return;
	ps_conn_free(n->conn);
	event_free(n->beat);
	event_free(n->retry);
	event_free(n->silence);
	ps_coord_split_free(n->addrs, n->naddrs);
	free(n);
}

char **
ps_coord_split(const char *list, size_t *n)
{
	const char *p = list, *comma;
	char **addrs = NULL;

	*n = 0;
	do {
		comma = strchr(p, ',');
		addrs = xreallocarray(addrs, *n + 1, sizeof *addrs);
		addrs[*n] = xstrdup(p);
		if (comma != NULL)
			addrs[*n][comma - p] = '\0';
		(*n)++;
		p = comma + 1;
	} while (comma != NULL);
	return addrs;
}

void
ps_coord_split_free(char **addrs, size_t n)
{
	while (n > 0)
		free(addrs[--n]);
	free(addrs);
}

int
ps_coord_list_check(const char *list, char *err, size_t errlen)
{
	size_t i, n;
	char **addrs = ps_coord_split(list, &n);
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++)
		rc = ps_hostport_check(addrs[i], err, errlen) != 0 ? -1 : 0;
	ps_coord_split_free(addrs, n);
	return rc;
}
