/*
 * conn_auth.c: the HMAC challenge-response on a conn (auth.h for the
 * MACs, pskit(7) Security for the bytes).
 *
 * Three AUTH frames, each with NOKEYS, its step in the timestamp and its
 * bytes as the blob:
 *
 *   1  acceptor -> connector   Ns                      32 bytes
 *   2  connector -> acceptor   Nc || MAC_client        64 bytes
 *   3  acceptor -> connector   MAC_server              32 bytes
 *
 * Invariants while the handshake is pending:
 *   1. Only AUTH frames (and, to a connector, an ERROR saying why it was
 *      refused) of at most AUTH_FRAME_MAX payload bytes are read; any
 *      other frame, a text line or a bad MAC ends the conn, checked from
 *      the header before the payload is waited for.
 *   2. Nothing reaches the owner's callbacks but the close callback.
 *   3. What the owner sends is held in auth.held and written after the
 *      last frame of this side's handshake, in order.
 *   4. The whole handshake has PS_AUTH_TIMEOUT seconds.
 * Any close before this side is done (an EOF too) is an authentication
 * failure, its reason prefixed "authentication failed: ".
 *
 * Also here: which listeners must have a secret (ps_listen_secret).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "wire/conn_priv.h"

#define AUTH_FRAME_MAX		512	/* payload bytes before done */

/* True while this side's handshake is under way. */
int
conn_auth_pending(const struct ps_conn *c)
{
	return c->auth.state != CONN_AUTH_OFF &&
	    c->auth.state != CONN_AUTH_DONE;
}

/* Where the owner's output goes: held until the handshake is done. */
struct evbuffer *
conn_auth_output(struct ps_conn *c)
{
	if (conn_auth_pending(c))
		return c->auth.held;
	return bufferevent_get_output(c->bev);
}

/*
 * End the conn for a handshake reason (prefixed by conn_auth_closed):
 * refused unless the handshake merely ran out of time.
 */
static void
auth_end(struct ps_conn *c, int refused, const char *why)
{
	snprintf(c->auth.why, sizeof c->auth.why, "%s", why);
	c->auth.failed = 1;
	c->auth.refused = refused;
	conn_fail(c, 1, "%s", c->auth.why);
}

/* End the conn: the handshake failed on its merits. */
void
conn_auth_fail(struct ps_conn *c, const char *fmt, ...)
{
	char why[sizeof c->auth.why];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	auth_end(c, 1, why);
}

/* The conn closes: stop the clock; blame the handshake if not done. */
void
conn_auth_closed(struct ps_conn *c)
{
	char was[sizeof c->reason];

	if (c->auth.timer != NULL)
		evtimer_del(c->auth.timer);
	if (!conn_auth_pending(c) && !c->auth.failed)
		return;
	c->auth.failed = 1;
	memcpy(was, c->reason, sizeof was);
	snprintf(c->reason, sizeof c->reason, "authentication failed: %.200s",
	    c->auth.why[0] != '\0' ? c->auth.why : was);
}

/* Free the handshake's timer and held output, wipe the nonces. */
void
conn_auth_release(struct ps_conn *c)
{
	if (c->auth.timer != NULL)
		event_free(c->auth.timer);
	if (c->auth.held != NULL)
		evbuffer_free(c->auth.held);
	ps_wipe(&c->auth, sizeof c->auth);
}

/*
 * Queue a frame of the handshake (AUTH, or ERROR from the acceptor): type,
 * step and len bytes of blob, ahead of held output; 0, or -1 with the
 * reason in err (the conn is left as it was).
 */
static int
auth_send(struct ps_conn *c, int type, int step, const void *blob,
    size_t len, char *err, size_t errlen)
{
	struct ps_msg m;
	int n;

	memset(&m, 0, sizeof m);
	m.type = (uint8_t)type;
	m.flags = PS_MSG_F_NOKEYS;
	m.timestamp = (uint64_t)step;
	m.blob = (char *)blob;
	m.bloblen = len;
	n = ps_msg_encode(&m, bufferevent_get_output(c->bev), 0, NULL, err,
	    errlen);
	if (n < 0)
		return -1;
	c->stats.bytes_out += (uint64_t)n;
	c->stats.msgs_out++;
	return 0;
}

/*
 * The acceptor's verdict on a bad answer: tell the peer, then close.  A
 * short ERROR always encodes; were it not to, the close alone would do.
 */
static void
auth_refuse(struct ps_conn *c, const char *why)
{
	char err[200];

	snprintf(c->auth.why, sizeof c->auth.why, "%s", why);
	c->auth.failed = 1;
	c->auth.refused = 1;
	if (auth_send(c, PS_MSG_ERROR, 0, why, strlen(why), err,
	    sizeof err) != 0)
		conn_start_closing(c, err);
	else
		conn_start_closing(c, why);
}

/* This side is done: release what the owner queued, allow text again. */
static void
auth_done(struct ps_conn *c)
{
	evtimer_del(c->auth.timer);
	c->auth.state = CONN_AUTH_DONE;
	c->auth.secret = NULL;
	ps_wipe(c->auth.ns, sizeof c->auth.ns);
	ps_wipe(c->auth.nc, sizeof c->auth.nc);
	evbuffer_add_buffer(bufferevent_get_output(c->bev), c->auth.held);
	c->mode = CONN_DETECT;
}

/* PS_AUTH_TIMEOUT passed before this side was done. */
static void
auth_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	static const char *waiting[] = {
		[CONN_AUTH_CHALLENGE] = "challenge",
		[CONN_AUTH_ANSWER] = "answer",
		[CONN_AUTH_PROOF] = "proof",
	};
	struct ps_conn *c = arg;
	int first = c->auth.state == CONN_AUTH_CHALLENGE;
	char why[sizeof c->auth.why];

	c->busy++;
	if (conn_auth_pending(c)) {
		snprintf(why, sizeof why, "no %s within %d s%s",
		    waiting[c->auth.state], PS_AUTH_TIMEOUT, first ?
		    " (does the peer have a secret?)" : "");
		auth_end(c, 0, why);
	}
	conn_leave(c);
}

/* Start the handshake on a new conn; see conn.h. */
int
ps_conn_set_auth(struct ps_conn *c, const struct ps_secret *secret,
    enum ps_auth_role role, char *err, size_t errlen)
{
	struct timeval tv = { PS_AUTH_TIMEOUT, 0 };

	if (c->auth.state != CONN_AUTH_OFF || c->dead) {
		snprintf(err, errlen, "%s: handshake already started",
		    c->peer);
		return -1;
	}
	c->auth.secret = secret;
	c->auth.role = role;
	c->auth.held = evbuffer_new();
	c->auth.timer = evtimer_new(bufferevent_get_base(c->bev),
	    auth_timer_cb, c);
	if (c->auth.held == NULL || c->auth.timer == NULL) {
		snprintf(err, errlen, "%s: out of memory", c->peer);
		return -1;
	}
	if (role == PS_AUTH_ACCEPTOR && ps_auth_nonce(c->auth.ns) != 0) {
		snprintf(err, errlen, "%s: cannot draw a nonce: %s", c->peer,
		    strerror(errno));
		return -1;
	}
	if (role == PS_AUTH_ACCEPTOR && auth_send(c, PS_MSG_AUTH, 1, c->auth.ns,
	    sizeof c->auth.ns, err, errlen) != 0)
		return -1;
	c->auth.state = role == PS_AUTH_ACCEPTOR ? CONN_AUTH_ANSWER :
	    CONN_AUTH_CHALLENGE;
	if (evtimer_add(c->auth.timer, &tv) != 0) {
		snprintf(err, errlen, "%s: cannot start the clock", c->peer);
		return -1;
	}
	return 0;
}

/*
 * Invariant 1, from the header: 0 to read the frame, -1 (conn failed)
 * for anything but a small AUTH (or ERROR, to a connector).
 */
int
conn_auth_header(struct ps_conn *c, const uint8_t *hdr, size_t flen)
{
	uint8_t type = hdr[5];

	if (!conn_auth_pending(c))
		return 0;
	if (type != PS_MSG_AUTH && !(type == PS_MSG_ERROR &&
	    c->auth.role == PS_AUTH_CONNECTOR)) {
		conn_auth_fail(c, "%s before authenticating (does the peer "
		    "have the secret?)", ps_msg_type_name(type));
		return -1;
	}
	if (flen > PS_FRAME_HDR_LEN + AUTH_FRAME_MAX) {
		conn_auth_fail(c, "%zu-byte %s before authenticating", flen,
		    ps_msg_type_name(type));
		return -1;
	}
	return 0;
}

/* True when m is the AUTH frame of this step with len bytes. */
static int
auth_is_step(const struct ps_msg *m, int step, size_t len)
{
	return m->type == PS_MSG_AUTH && m->timestamp == (uint64_t)step &&
	    m->bloblen == len && m->nkeys == 0 && m->naux == 0;
}

/* Connector, step 1 received: answer with Nc and our MAC. */
static void
auth_answer(struct ps_conn *c, const struct ps_msg *m)
{
	uint8_t out[PS_AUTH_NONCE_LEN + PS_AUTH_MAC_LEN];
	char err[128];

	memcpy(c->auth.ns, m->blob, PS_AUTH_NONCE_LEN);
	if (ps_auth_nonce(c->auth.nc) != 0) {
		conn_auth_fail(c, "cannot draw a nonce: %s", strerror(errno));
		return;
	}
	memcpy(out, c->auth.nc, PS_AUTH_NONCE_LEN);
	ps_auth_mac(c->auth.secret, PS_AUTH_CONNECTOR, c->auth.ns,
	    c->auth.nc, out + PS_AUTH_NONCE_LEN);
	if (auth_send(c, PS_MSG_AUTH, 2, out, sizeof out, err,
	    sizeof err) != 0)
		conn_auth_fail(c, "%s", err);
	else
		c->auth.state = CONN_AUTH_PROOF;
}

/* Acceptor, step 2 received: check the MAC, send ours, done. */
static void
auth_check_answer(struct ps_conn *c, const struct ps_msg *m)
{
	uint8_t want[PS_AUTH_MAC_LEN];
	const uint8_t *got = (const uint8_t *)m->blob + PS_AUTH_NONCE_LEN;
	char err[128];

	memcpy(c->auth.nc, m->blob, PS_AUTH_NONCE_LEN);
	ps_auth_mac(c->auth.secret, PS_AUTH_CONNECTOR, c->auth.ns,
	    c->auth.nc, want);
	if (!ps_auth_equal(want, got, sizeof want)) {
		auth_refuse(c, "wrong secret");
		return;
	}
	ps_auth_mac(c->auth.secret, PS_AUTH_ACCEPTOR, c->auth.ns,
	    c->auth.nc, want);
	if (auth_send(c, PS_MSG_AUTH, 3, want, sizeof want, err,
	    sizeof err) != 0)
		conn_auth_fail(c, "%s", err);
	else
		auth_done(c);
}

/* Connector, step 3 received: check the acceptor's MAC, done. */
static void
auth_check_proof(struct ps_conn *c, const struct ps_msg *m)
{
	uint8_t want[PS_AUTH_MAC_LEN];

	ps_auth_mac(c->auth.secret, PS_AUTH_ACCEPTOR, c->auth.ns,
	    c->auth.nc, want);
	if (!ps_auth_equal(want, (const uint8_t *)m->blob, sizeof want))
		conn_auth_fail(c, "wrong secret (the peer's proof does not "
		    "match)");
	else
		auth_done(c);
}

/* One step of the handshake, when the message is the one expected. */
static void
auth_step(struct ps_conn *c, const struct ps_msg *m)
{
	if (c->auth.state == CONN_AUTH_CHALLENGE &&
	    auth_is_step(m, 1, PS_AUTH_NONCE_LEN))
		auth_answer(c, m);
	else if (c->auth.state == CONN_AUTH_ANSWER &&
	    auth_is_step(m, 2, PS_AUTH_NONCE_LEN + PS_AUTH_MAC_LEN))
		auth_check_answer(c, m);
	else if (c->auth.state == CONN_AUTH_PROOF &&
	    auth_is_step(m, 3, PS_AUTH_MAC_LEN))
		auth_check_proof(c, m);
	else if (c->auth.role == PS_AUTH_ACCEPTOR)
		auth_refuse(c, "malformed AUTH");
	else
		conn_auth_fail(c, "malformed AUTH from the peer");
}

/*
 * A decoded AUTH, or any frame while pending (invariant 1 let only AUTH
 * and ERROR through): the conn's, never the owner's.  Releases m.
 */
void
conn_auth_msg(struct ps_conn *c, struct ps_msg *m)
{
	if (c->auth.state == CONN_AUTH_OFF)
		conn_auth_fail(c, "the peer asks for a secret and none was "
		    "given");
	else if (c->auth.state == CONN_AUTH_DONE)
		conn_fail(c, 1, "unexpected AUTH after authentication");
	else if (m->type == PS_MSG_ERROR)
		conn_auth_fail(c, "refused by the peer: %.*s",
		    (int)m->bloblen, m->blob != NULL ? m->blob : "");
	else
		auth_step(c, m);
	ps_msg_release(m);
}

/* Whether the handshake completed; see conn.h. */
int
ps_conn_is_authenticated(const struct ps_conn *c)
{
	return c->auth.state == CONN_AUTH_DONE;
}

/* Whether the conn closed for want of authentication; see conn.h. */
int
ps_conn_is_auth_error(const struct ps_conn *c)
{
	return c->dead && c->auth.failed;
}

/* Whether another try would fail the same way; see conn.h. */
int
ps_conn_is_auth_refused(const struct ps_conn *c)
{
	return c->dead && c->auth.failed && c->auth.refused;
}

/* Read a listener's secret, or check that it needs none; see conn.h. */
int
ps_listen_secret(const char *hostport, const char *path, struct ps_secret *s,
    int *have, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;

	*have = 0;
	if (ps_hostport_check(hostport, err, errlen) != 0)
		return EX_USAGE;
	if (path != NULL) {
		if (ps_secret_load(path, s, err, errlen) != 0)
			return EX_NOINPUT;
		*have = 1;
		return 0;
	}
	if (ps_hostport_parse(hostport, &ss, &len, err, errlen) == 0 &&
	    ps_auth_required((struct sockaddr *)&ss)) {
		snprintf(err, errlen, "listening on '%s' needs a secret (-a "
		    "file): only 127.0.0.1 and [::1] are served without one",
		    hostport);
		return EX_USAGE;
	}
	return 0;
}
