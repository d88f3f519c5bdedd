/*
 * conn.c: framed connections on libevent bufferevents (see conn.h), and
 * the address helpers every program uses to listen and connect.
 *
 * Owner callbacks may free the conn.  So that no code touches a freed conn,
 * every libevent callback here counts itself in c->busy; ps_conn_free()
 * inside that window only marks the conn, and the outermost callback frees
 * it on the way out.  The struct lives in conn_priv.h, shared with the
 * handshake (conn_auth.c).
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "util/log.h"
#include "util/parsenum.h"
#include "util/xmalloc.h"
#include "wire/conn_priv.h"
#include "wire/crash.h"
#include "wire/msg_ctl.h"

#define CONN_CLOSE_TIMEOUT	10	/* seconds to flush before closing */
#define CONN_EAGER_IOV		16	/* chains written by one sendmsg */

static void	conn_process(struct ps_conn *);
static void	conn_flush_cb(evutil_socket_t, short, void *);

/* Release everything; only when no callback of ours is running. */
static void
conn_destroy(struct ps_conn *c)
{
	conn_pool_leave(c);
	conn_pool_trim(c);
	conn_auth_release(c);
	if (c->idle_ev != NULL)
		event_free(c->idle_ev);
	if (c->connect_ev != NULL)
		event_free(c->connect_ev);
	bufferevent_free(c->bev);
	evbuffer_free(c->eager);
	event_free(c->flush_ev);
	ps_keycache_release(&c->sent_lists);
	ps_keycache_release(&c->recv_lists);
	free(c->peer);
	free(c);
}

/* Leave one of our callbacks: free the conn if the owner asked for it. */
void
conn_leave(struct ps_conn *c)
{
	if (--c->busy == 0 && c->free_pending)
		conn_destroy(c);
}

/* Stop all I/O and tell the owner why (once). */
void
conn_fail(struct ps_conn *c, int proto, const char *fmt, ...)
{
	va_list ap;

	if (c->dead)
		return;
	c->dead = 1;
	c->proto_error = proto;
	conn_pool_leave(c);
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof c->reason, fmt, ap);
	va_end(ap);
	conn_auth_closed(c);
	bufferevent_disable(c->bev, EV_READ | EV_WRITE);
	c->close_cb(c, c->reason, c->arg);
}

/* True for bytes that may start or fill a text line. */
static int
conn_is_text(uint8_t b)
{
	return (b >= 0x20 && b < 0x7f) || b == '\t' || b == '\r' || b == '\n';
}

/* Pick binary or text from the first bytes: 0 when decided, 1 for more. */
static int
conn_detect(struct ps_conn *c, struct evbuffer *in)
{
	uint8_t got[4], magic[4] = { 'P', 'S', 'K', '1' };
	size_t n = evbuffer_get_length(in);

	if (n > sizeof got)
		n = sizeof got;
	if (n == 0)
		return 1;
	evbuffer_copyout(in, got, n);
	if (memcmp(got, magic, n) == 0 && n < sizeof got)
		return 1;
	if (memcmp(got, magic, n) != 0 && c->text_cb != NULL &&
	    conn_is_text(got[0]))
		c->mode = CONN_TEXT;
	else
		c->mode = CONN_BINARY;
	if (c->mode == CONN_TEXT && conn_auth_pending(c)) {
		conn_auth_fail(c, "a text line before authenticating");
		return 1;
	}
	return 0;
}

/* Tell the peer it named a key list this conn does not hold. */
static void
conn_keys_missing(struct ps_conn *c, const struct ps_msg *m)
{
	struct ps_msg miss;
	char why[128];

	memset(&miss, 0, sizeof miss);
	miss.type = PS_MSG_KEYS_MISSING;
	miss.flags = PS_MSG_F_KEYSIG;
	miss.channel = m->channel;
	miss.timestamp = m->timestamp;
	miss.ring_version = m->ring_version;
	miss.nkeys = m->nkeys;
	miss.keysig = m->keysig;
	ps_keys_missing_encode(m->type, &miss);
	snprintf(why, sizeof why, "unknown key list %016llx of %u keys",
	    (unsigned long long)m->keysig, m->nkeys);
	miss.blob = why;
	miss.bloblen = strlen(why);
	ps_conn_send(c, &miss);
}

/*
 * Key caching and counting on a decoded message: resolve a signature (or
 * answer KEYS_MISSING), keep a list sent to be cached, forget one the peer
 * lost; count what the filters saved.
 */
static void
conn_keys_in(struct ps_conn *c, struct ps_msg *m, size_t wire_len)
{
	const struct ps_keycache_entry *e;
	struct ps_wire_sizes sz;

	if (m->type == PS_MSG_KEYS_MISSING) {
		ps_keycache_forget(&c->sent_lists, m->keysig);
	} else if (m->flags & PS_MSG_F_KEYSIG) {
		e = ps_keycache_find(&c->recv_lists, m->keysig, m->nkeys);
		if (e != NULL) {
			m->keys = xcalloc(m->nkeys, sizeof *m->keys);
			if (ps_keycache_keys(e, m->keys) != 0) {
				free(m->keys);	/* taken for a miss */
				m->keys = NULL;
				ps_keycache_forget(&c->recv_lists, m->keysig);
				e = NULL;
			}
		}
		if (e != NULL) {
			c->stats.keysig_hits++;
		} else {
			c->stats.keysig_misses++;
			conn_keys_missing(c, m);
		}
	} else if ((m->flags & PS_MSG_F_KEYCACHE) && m->nkeys > 0) {
		ps_keycache_put(&c->recv_lists, ps_keysig(m->keys, m->nkeys),
		    m->keys, m->nkeys);
	}
	ps_wire_sizes_of(m, wire_len, &sz);
	ps_wire_sizes_add(&c->stats.in, &sz);
	if (m->keys != NULL)
		m->flags &= ~PS_MSG_F_KEYSIG;
	m->flags &= ~PS_MSG_F_KEYCACHE;
}

/* Handle one frame: 1 done, 0 when more bytes are needed, -1 failed. */
static int
conn_read_frame(struct ps_conn *c, struct evbuffer *in)
{
	uint8_t hdr[PS_FRAME_HDR_LEN], *frame;
	size_t len = evbuffer_get_length(in), flen;
	struct ps_msg m;
	char err[200];

	if (len < PS_FRAME_HDR_LEN) {
		uint32_t magic;

		if (len >= 4 && evbuffer_copyout(in, &magic, 4) == 4 &&
		    magic != PS_FRAME_MAGIC) {
			conn_fail(c, 1, "bad magic 0x%08x", magic);
			return -1;
		}
		return 0;
	}
	evbuffer_copyout(in, hdr, sizeof hdr);
	if (ps_frame_peek(hdr, c->max_frame, &flen, err, sizeof err) != 0) {
		conn_fail(c, 1, "%s", err);
		return -1;
	}
	if (conn_auth_header(c, hdr, flen) != 0)
		return -1;
	if (len < flen)
		return 0;
	if ((frame = evbuffer_pullup(in, (ssize_t)flen)) == NULL) {
		conn_fail(c, 0, "out of memory for a %zu-byte frame", flen);
		return -1;
	}
	if (ps_msg_decode(frame, flen, &m, err, sizeof err) != 0) {
		conn_fail(c, 1, "%s", err);
		return -1;
	}
	evbuffer_drain(in, flen);
	c->stats.bytes_in += flen;
	c->stats.msgs_in++;
	if (m.type == PS_MSG_AUTH || conn_auth_pending(c)) {
		conn_auth_msg(c, &m);
		return 1;
	}
	conn_keys_in(c, &m, flen - PS_FRAME_HDR_LEN);
	conn_idle_rearm(c);
	ps_crash_note(m.type, m.flags, c->peer);
	c->msg_cb(c, &m, c->arg);
	return 1;
}

/* Check a text line (or the start of one) for control bytes. */
static int
conn_line_ok(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!conn_is_text((uint8_t)s[i]))
			return 0;
	return 1;
}

/* Handle one text line: 1 done, 0 when more bytes are needed, -1 failed. */
static int
conn_read_line(struct ps_conn *c, struct evbuffer *in)
{
	char buf[PS_CONN_LINE_MAX + 2];
	size_t n = evbuffer_get_length(in), len;
	char *nl;

	if (n > sizeof buf)
		n = sizeof buf;
	evbuffer_copyout(in, buf, n);
	if ((nl = memchr(buf, '\n', n)) == NULL) {
		if (!conn_line_ok(buf, n))
			goto binary;
		if (n == sizeof buf)
			goto toolong;
		return 0;
	}
	len = (size_t)(nl - buf);
	evbuffer_drain(in, len + 1);
	c->stats.bytes_in += len + 1;
	c->stats.msgs_in++;
	if (len > 0 && buf[len - 1] == '\r')
		len--;
	if (len > PS_CONN_LINE_MAX)
		goto toolong;
	if (!conn_line_ok(buf, len) || memchr(buf, '\r', len) != NULL)
		goto binary;
	buf[len] = '\0';
	conn_idle_rearm(c);
	c->text_cb(c, buf, c->arg);
	return 1;
binary:
	conn_fail(c, 1, "binary data in text line");
	return -1;
toolong:
	conn_fail(c, 1, "text line too long (limit %d bytes)",
	    PS_CONN_LINE_MAX);
	return -1;
}

/* Stop reading while the output is over the high watermark. */
static void
conn_check_pause(struct ps_conn *c)
{
	if (!c->pausable || c->paused || c->closing || c->dead ||
	    evbuffer_get_length(bufferevent_get_output(c->bev)) +
	    evbuffer_get_length(c->eager) <= PS_CONN_OUT_HIGH)
		return;
	c->paused = 1;
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_setwatermark(c->bev, EV_WRITE, PS_CONN_OUT_LOW, 0);
}

/* Handle every complete frame or line in the input buffer. */
static void
conn_process(struct ps_conn *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	int r;

	while (!c->dead && !c->closing && !c->paused && !c->free_pending) {
		if (c->mode == CONN_DETECT && conn_detect(c, in) != 0)
			break;
		if (c->mode == CONN_TEXT)
			r = conn_read_line(c, in);
		else
			r = conn_read_frame(c, in);
		if (r <= 0)
			break;
		conn_check_pause(c);
	}
}

/* Bytes came in or went out: a pending connect (conn_dial_pending) is done. */
static void
conn_connected(struct ps_conn *c)
{
	if (c->connect_ev != NULL) {
		event_free(c->connect_ev);
		c->connect_ev = NULL;
	}
}

/* libevent: input arrived. */
static void
conn_read_cb(struct bufferevent *bev, void *arg)
{
	struct ps_conn *c = arg;

	c->busy++;
	conn_connected(c);
	conn_process(c);
	conn_pool_account(c);
	conn_leave(c);
}

/* libevent: output drained to the low watermark. */
static void
conn_write_cb(struct bufferevent *bev, void *arg)
{
	struct ps_conn *c = arg;
	struct evbuffer *out = bufferevent_get_output(bev);
	char why[sizeof c->reason];

	c->busy++;
	conn_connected(c);
	if (c->closing && !c->dead && evbuffer_get_length(out) == 0) {
		memcpy(why, c->reason, sizeof why);
		conn_fail(c, c->proto_error, "%s", why);
	} else if (c->paused && !c->closing && !c->dead &&
	    evbuffer_get_length(out) <= PS_CONN_OUT_LOW) {
		c->paused = 0;
		bufferevent_setwatermark(bev, EV_WRITE, 0, 0);
		bufferevent_enable(bev, EV_READ);
		conn_process(c);
	}
	conn_leave(c);
}

/* Begin a graceful close: flush the output, then call the close callback. */
void
conn_start_closing(struct ps_conn *c, const char *reason)
{
	struct timeval tv = { CONN_CLOSE_TIMEOUT, 0 };

	c->closing = 1;
	snprintf(c->reason, sizeof c->reason, "%s", reason);
	evbuffer_add_buffer(bufferevent_get_output(c->bev), c->eager);
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
	bufferevent_set_timeouts(c->bev, NULL, &tv);
	bufferevent_trigger(c->bev, EV_WRITE, BEV_TRIG_DEFER_CALLBACKS);
}

/* The peer closed its side: say why, flushing our answers first. */
static void
conn_eof(struct ps_conn *c)
{
	size_t left = evbuffer_get_length(bufferevent_get_input(c->bev));

	c->peer_closed = 1;
	if (c->mode != CONN_TEXT && left > 0 && !c->paused && !c->closing)
		conn_fail(c, 1, "truncated frame (%zu bytes before end of "
		    "file)", left);
	else if (c->closing)
		return;
	else if (evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
		conn_start_closing(c, "connection closed by peer");
	else
		conn_fail(c, 0, "connection closed by peer");
}

/* libevent: end of file, error or timeout on the socket. */
static void
conn_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct ps_conn *c = arg;
	int e = EVUTIL_SOCKET_ERROR();

	c->busy++;
	if (c->connect_ev != NULL && (what & BEV_EVENT_ERROR))
		conn_fail(c, 0, "cannot connect to '%s': %s", c->peer,
		    evutil_socket_error_to_string(e));
	else if (what & BEV_EVENT_EOF)
		conn_eof(c);
	else if (what & BEV_EVENT_TIMEOUT)
		conn_fail(c, 0, "timed out flushing output");
	else if (what & BEV_EVENT_ERROR) {
		c->peer_closed = e == ECONNRESET || e == EPIPE;
		conn_fail(c, 0, "%s", evutil_socket_error_to_string(e));
	}
	conn_leave(c);
}

/* The pause of a listener that could not accept (listen_error_cb) is over. */
static void
listen_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	evconnlistener_enable(arg);
}

/*
 * accept() failed.  Out of descriptors (EMFILE, ENFILE) or memory, the
 * pending connection stays queued and the listener would wake again at
 * once, spinning: pause it for 100 ms, and say so.  Closed connections
 * free descriptors meanwhile (conn.h idle limits, ps-server -c).
 */
static void
listen_error_cb(struct evconnlistener *l, void *arg)
{
	struct timeval pause = { 0, 100000 };
	int e = EVUTIL_SOCKET_ERROR();

	log_warnx("cannot accept a connection: %s; pausing 100 ms",
	    evutil_socket_error_to_string(e));
	evconnlistener_disable(l);
	if (event_base_once(evconnlistener_get_base(l), -1, EV_TIMEOUT,
	    listen_resume_cb, l, &pause) != 0)
		evconnlistener_enable(l);
}

/* Wrap a connected socket; see conn.h. */
struct ps_conn *
ps_conn_new(struct event_base *base, evutil_socket_t fd, const char *peer,
    ps_conn_msg_cb *msg_cb, ps_conn_text_cb *text_cb,
    ps_conn_close_cb *close_cb, void *arg)
{
	struct ps_conn *c;
	int one = 1;

	c = xcalloc(1, sizeof *c);
	c->peer = xstrdup(peer);
	c->msg_cb = msg_cb;
	c->text_cb = text_cb;
	c->close_cb = close_cb;
	c->arg = arg;
	c->pausable = 1;
	c->max_frame = PS_FRAME_MAX_PAYLOAD;
	ps_keycache_init(&c->sent_lists, 0, 0);
	ps_keycache_init(&c->recv_lists, PS_KEYCACHE_DEFAULT, 1);
	evutil_make_socket_nonblocking(fd);
	/* Fails harmlessly on socketpairs and unix sockets: no Nagle there. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	c->eager = evbuffer_new();
	c->flush_ev = event_new(base, -1, 0, conn_flush_cb, c);
	if (c->bev == NULL || c->eager == NULL || c->flush_ev == NULL)
		fatalx(EX_OSERR, "cannot set up the buffers of '%s'", peer);
	bufferevent_setwatermark(c->bev, EV_READ, 0,
	    PS_FRAME_HDR_LEN + c->max_frame);
	bufferevent_setcb(c->bev, conn_read_cb, conn_write_cb, conn_event_cb,
	    c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	return c;
}

/* The idle limit ran out: nothing whole came in for idle_ms. */
static void
conn_idle_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ps_conn *c = arg;

	c->busy++;
	c->idled_out = 1;
	conn_fail(c, 0, "idle: no whole message in %u ms", c->idle_ms);
	conn_leave(c);
}

/* A whole message came in: the idle limit starts again. */
void
conn_idle_rearm(struct ps_conn *c)
{
	struct timeval tv;

	if (c->idle_ev == NULL)
		return;
	tv.tv_sec = c->idle_ms / 1000;
	tv.tv_usec = (suseconds_t)(c->idle_ms % 1000) * 1000;
	evtimer_add(c->idle_ev, &tv);
}

/* See conn.h. */
void
ps_conn_set_idle_limit(struct ps_conn *c, unsigned int ms)
{
	if (ms == 0) {
		if (c->idle_ev != NULL)
			event_free(c->idle_ev);
		c->idle_ev = NULL;
		c->idle_ms = 0;
		return;
	}
	if (c->idle_ev == NULL) {
		c->idle_ev = evtimer_new(bufferevent_get_base(c->bev),
		    conn_idle_cb, c);
		if (c->idle_ev == NULL)
			fatalx(EX_OSERR, "cannot create a timer for '%s'",
			    c->peer);
	}
	c->idle_ms = ms;
	conn_idle_rearm(c);
}

int
ps_conn_has_idle_limit(const struct ps_conn *c)
{
	return c->idle_ev != NULL;
}

int
ps_conn_idled_out(const struct ps_conn *c)
{
	return c->idled_out;
}

int
ps_conn_peer_closed(const struct ps_conn *c)
{
	return c->peer_closed;
}

/* Give up on unacknowledged data after ms; see conn.h. */
int
ps_conn_set_unacked_timeout(struct ps_conn *c, unsigned int ms)
{
#ifdef TCP_USER_TIMEOUT
	return setsockopt(bufferevent_getfd(c->bev), IPPROTO_TCP,
	    TCP_USER_TIMEOUT, &ms, sizeof ms);
#else
	(void)c;
	(void)ms;
	errno = ENOTSUP;
	return -1;
#endif
}

/*
 * Where a frame or line goes: held for the handshake; else, when nothing
 * is queued before it, c->eager, which conn_flush_cb writes once the
 * callbacks now running are done; else the bufferevent's output, behind
 * what is queued.
 */
static struct evbuffer *
conn_out(struct ps_conn *c)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);

	if (conn_auth_pending(c))
		return conn_auth_output(c);
	if (c->connect_ev == NULL && evbuffer_get_length(out) == 0)
		return c->eager;
	return out;
}

/*
 * libevent, made active by conn_flush_later: write c->eager to the socket,
 * as far as it takes it, and queue the rest on the bufferevent.  Writing
 * at once spares the event loop a round of epoll_ctl and epoll_wait for
 * each frame; MSG_NOSIGNAL, since not every program that uses conns
 * ignores SIGPIPE.  An error is left to the bufferevent, which meets it
 * again and tells conn_event_cb.
 */
static void
conn_flush_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ps_conn *c = arg;
	struct evbuffer_iovec vec[CONN_EAGER_IOV];
	struct iovec iov[CONN_EAGER_IOV];
	struct msghdr mh = { .msg_iov = iov };
	struct evbuffer *out = bufferevent_get_output(c->bev);
	ssize_t n;
	int i, nvec;

	(void)fd;
	(void)what;
	if (c->dead || evbuffer_get_length(c->eager) == 0)
		return;
	nvec = evbuffer_peek(c->eager, -1, NULL, vec, CONN_EAGER_IOV);
	if (nvec > CONN_EAGER_IOV)
		nvec = CONN_EAGER_IOV;
	for (i = 0; i < nvec; i++) {
		iov[i].iov_base = vec[i].iov_base;
		iov[i].iov_len = vec[i].iov_len;
	}
	mh.msg_iovlen = (size_t)nvec;
	n = sendmsg(bufferevent_getfd(c->bev), &mh,
	    MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n > 0)
		evbuffer_drain(c->eager, (size_t)n);
	if (evbuffer_get_length(c->eager) > 0)
		evbuffer_add_buffer(out, c->eager);
	/* Paused on eager bytes that all went: conn_write_cb resumes. */
	if (c->paused && evbuffer_get_length(out) <= PS_CONN_OUT_LOW)
		bufferevent_trigger(c->bev, EV_WRITE,
		    BEV_TRIG_IGNORE_WATERMARKS | BEV_TRIG_DEFER_CALLBACKS);
}

/*
 * Have c->eager written after the callbacks that are ready now, so that
 * what they send to the peer goes in one write (no system call here).
 */
static void
conn_flush_later(struct ps_conn *c)
{
	if (evbuffer_get_length(c->eager) > 0 &&
	    !event_pending(c->flush_ev, EV_TIMEOUT, NULL))
		event_active(c->flush_ev, EV_TIMEOUT, 0);
}

/* Queue one frame; see conn.h. */
int
ps_conn_send(struct ps_conn *c, const struct ps_msg *m)
{
	char err[200];
	struct ps_wire_sizes sz;
	struct ps_msg by_sig;
	struct evbuffer *out;
	uint64_t sig = 0;
	int n, cacheable;

	if (c->dead || c->closing)
		return -1;
	cacheable = c->keycache_send && m->nkeys >= PS_KEYCACHE_MIN_KEYS &&
	    m->keys != NULL &&
	    !(m->flags & (PS_MSG_F_NOKEYS | PS_MSG_F_KEYSIG));
	if (cacheable) {
		sig = ps_keysig(m->keys, m->nkeys);
		by_sig = *m;
		if (ps_keycache_find(&c->sent_lists, sig, m->nkeys) != NULL) {
			by_sig.flags |= PS_MSG_F_KEYSIG;
			by_sig.keysig = sig;
			cacheable = 0;
			c->stats.keysig_out++;
		} else {
			by_sig.flags |= PS_MSG_F_KEYCACHE;
		}
		m = &by_sig;
	}
	out = conn_out(c);
	n = ps_msg_encode(m, out, c->lz4, &sz, err, sizeof err);
	if (n < 0)
		return -1;
	conn_flush_later(c);
	if (cacheable)
		ps_keycache_put(&c->sent_lists, sig, m->keys, m->nkeys);
	c->stats.bytes_out += (uint64_t)n;
	c->stats.msgs_out++;
	ps_wire_sizes_add(&c->stats.out, &sz);
	conn_check_pause(c);
	return n;
}

/* Queue raw text; see conn.h. */
int
ps_conn_send_text(struct ps_conn *c, const char *text)
{
	size_t n = strlen(text);
	struct evbuffer *out;

	if (c->dead || c->closing)
		return -1;
	out = conn_out(c);
	if (evbuffer_add(out, text, n) != 0)
		return -1;
	conn_flush_later(c);
	c->stats.bytes_out += n;
	c->stats.msgs_out++;
	conn_check_pause(c);
	return 0;
}

/* Flush, then close; see conn.h. */
void
ps_conn_close_after_flush(struct ps_conn *c)
{
	if (c->dead || c->closing)
		return;
	conn_start_closing(c, "closed after flush");
}

/* Free now, or when the running callback of ours returns. */
void
ps_conn_free(struct ps_conn *c)
{
	if (c == NULL)
		return;
	if (c->busy > 0) {
		c->free_pending = 1;
		c->dead = 1;
		conn_pool_leave(c);
		bufferevent_disable(c->bev, EV_READ | EV_WRITE);
		return;
	}
	conn_destroy(c);
}

/* Output not yet written, held for the handshake included. */
size_t
ps_conn_pending(const struct ps_conn *c)
{
	size_t n = evbuffer_get_length(bufferevent_get_output(c->bev)) +
	    evbuffer_get_length(c->eager);

	if (c->auth.held != NULL)
		n += evbuffer_get_length(c->auth.held);
	return n;
}

/* Name of the other end. */
const char *
ps_conn_peer(const struct ps_conn *c)
{
	return c->peer;
}

/* Turn LZ4 for outgoing frames on or off. */
void
ps_conn_set_lz4(struct ps_conn *c, int on)
{
	c->lz4 = on != 0;
}

void
ps_conn_set_keycache_send(struct ps_conn *c, size_t max_keys)
{
	ps_keycache_release(&c->sent_lists);
	ps_keycache_init(&c->sent_lists, max_keys, 0);
	c->keycache_send = max_keys > 0;
}

void
ps_conn_set_keycache_recv(struct ps_conn *c, size_t max_keys)
{
	ps_keycache_release(&c->recv_lists);
	ps_keycache_init(&c->recv_lists, max_keys, 1);
}

/* Refuse frames over max_payload; the input buffer holds one at most. */
void
ps_conn_set_max_frame(struct ps_conn *c, size_t max_payload)
{
	if (max_payload < PS_CONN_FRAME_MIN)
		max_payload = PS_CONN_FRAME_MIN;
	if (max_payload > PS_FRAME_MAX_PAYLOAD)
		max_payload = PS_FRAME_MAX_PAYLOAD;
	c->max_frame = max_payload;
	bufferevent_setwatermark(c->bev, EV_READ, 0,
	    PS_FRAME_HDR_LEN + c->max_frame);
}

/* Traffic counters. */
const struct ps_conn_stats *
ps_conn_stats(const struct ps_conn *c)
{
	return &c->stats;
}

/* Whether the close was the peer's protocol error. */
int
ps_conn_is_protocol_error(const struct ps_conn *c)
{
	return c->dead && c->proto_error;
}

/* Split "host:port" / "[v6]:port" into host and port buffers. */
static int
hostport_split(const char *s, char *host, size_t hostlen, char *port,
    size_t portlen)
{
	const char *colon, *h = s, *he;
	uint64_t portnum;

	if (*s == '[') {
		h = s + 1;
		if ((he = strchr(h, ']')) == NULL || he[1] != ':')
			return -1;
		colon = he + 1;
	} else {
		if ((colon = strrchr(s, ':')) == NULL)
			return -1;
		he = colon;
		if (memchr(s, ':', (size_t)(colon - s)) != NULL)
			return -1;
	}
	if ((size_t)(he - h) >= hostlen || strlen(colon + 1) >= portlen ||
	    colon[1] == '\0')
		return -1;
	if (ps_parsenum_u64_in(colon + 1, 0, 65535, &portnum) != PS_NUM_OK)
		return -1;
	memcpy(host, h, (size_t)(he - h));
	host[he - h] = '\0';
	strcpy(port, colon + 1);
	return 0;
}

/* Split s, or return -1 with "bad address 'x': ..." in err. */
static int
hostport_split_or_err(const char *s, char *host, size_t hostlen, char *port,
    size_t portlen, char *err, size_t errlen)
{
	if (hostport_split(s, host, hostlen, port, portlen) == 0)
		return 0;
	snprintf(err, errlen, "bad address '%s': expected host:port or "
	    "[v6addr]:port, port 0-65535", s);
	return -1;
}

/* Check an address's form without resolving it; see conn.h. */
int
ps_hostport_check(const char *s, char *err, size_t errlen)
{
	char host[256], port[8];

	return hostport_split_or_err(s, host, sizeof host, port, sizeof port,
	    err, errlen);
}

/* Parse and resolve an address; see conn.h. */
int
ps_hostport_parse(const char *s, struct sockaddr_storage *ss,
    socklen_t *len, char *err, size_t errlen)
{
	struct addrinfo hints, *res;
	char host[256], port[8];
	int wild, r;

	if (hostport_split_or_err(s, host, sizeof host, port, sizeof port,
	    err, errlen) != 0)
		return -1;
	wild = host[0] == '\0' || strcmp(host, "*") == 0;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = wild ? AF_INET : AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (wild ? AI_PASSIVE : 0);
	if ((r = getaddrinfo(wild ? NULL : host, port, &hints, &res)) != 0) {
		snprintf(err, errlen, "cannot resolve '%s': %s", s,
		    gai_strerror(r));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* Format a socket address as "addr:port" or "[addr]:port". */
static void
conn_addr_format(const struct sockaddr *sa, socklen_t len, char *buf,
    size_t buflen)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	if (getnameinfo(sa, len, host, sizeof host, serv, sizeof serv,
	    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		snprintf(buf, buflen, "?");
	else if (sa->sa_family == AF_INET6)
		snprintf(buf, buflen, "[%s]:%s", host, serv);
	else
		snprintf(buf, buflen, "%s:%s", host, serv);
}

/* Bind without listening yet; see conn.h. */
int
ps_listen_reserve(const char *hostport, int *fd, char *bound,
    size_t boundlen, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1, s;

	if (ps_hostport_parse(hostport, &ss, &len, err, errlen) != 0)
		return -1;
	s = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof one) != 0 || bind(s, (struct sockaddr *)&ss, len) != 0 ||
	    (len = sizeof ss, getsockname(s, (struct sockaddr *)&ss,
	    &len)) != 0) {
		snprintf(err, errlen, "cannot listen on '%s': %s", hostport,
		    strerror(errno));
		if (s >= 0)
			close(s);
		return -1;
	}
	conn_addr_format((struct sockaddr *)&ss, len, bound, boundlen);
	*fd = s;
	return 0;
}

/* Listen on a reserved socket; see conn.h. */
int
ps_listen_start(struct event_base *base, int fd, evconnlistener_cb cb,
    void *arg, struct evconnlistener **out, char *err, size_t errlen)
{
	struct evconnlistener *l;

	if (evutil_make_socket_nonblocking(fd) != 0 ||
	    listen(fd, SOMAXCONN) != 0 ||
	    (l = evconnlistener_new(base, cb, arg, LEV_OPT_CLOSE_ON_FREE |
	    LEV_OPT_CLOSE_ON_EXEC, 0, fd)) == NULL) {
		snprintf(err, errlen, "cannot listen: %s", strerror(errno));
		close(fd);
		return -1;
	}
	evconnlistener_set_error_cb(l, listen_error_cb);
	*out = l;
	return 0;
}

/* Bind and listen; see conn.h. */
int
ps_listen(struct event_base *base, const char *hostport,
    evconnlistener_cb cb, void *arg, struct evconnlistener **out,
    char *bound, size_t boundlen, char *err, size_t errlen)
{
	int fd;

	if (ps_listen_reserve(hostport, &fd, bound, boundlen, err,
	    errlen) != 0)
		return -1;
	if (ps_listen_start(base, fd, cb, arg, out, err, errlen) != 0) {
		snprintf(err, errlen, "cannot listen on '%s': %s", hostport,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * How long ps_conn_connect() blocks the loop for a connect: one that takes
 * longer (a host cut off or dropping packets) goes on in the loop.
 */
#define CONN_CONNECT_BLOCK_S	0.1

/*
 * The connect's deadline (conn_dial_pending): connected by now, or it
 * failed: the conn is closed with the reason.
 */
static void
conn_connect_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ps_conn *c = arg;
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	int e = 0;

	c->busy++;
	event_free(c->connect_ev);
	c->connect_ev = NULL;
	fd = bufferevent_getfd(c->bev);
	if (getpeername(fd, (struct sockaddr *)&ss, &len) != 0) {
		len = sizeof e;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0 ||
		    e == 0)
			e = ETIMEDOUT;
		conn_fail(c, 0, "cannot connect to '%s': %s", c->peer,
		    strerror(e));
	}
	conn_leave(c);
}

/*
 * A connect still in progress after CONN_CONNECT_BLOCK_S: give it the rest
 * of timeout_s in the loop.  What is sent meanwhile waits in the output.
 */
static void
conn_dial_pending(struct ps_conn *c, double timeout_s)
{
	double left = timeout_s - CONN_CONNECT_BLOCK_S;
	struct timeval tv;

	tv.tv_sec = (time_t)left;
	tv.tv_usec = (suseconds_t)((left - (double)tv.tv_sec) * 1e6);
	c->connect_ev = evtimer_new(bufferevent_get_base(c->bev),
	    conn_connect_deadline_cb, c);
	if (c->connect_ev == NULL || evtimer_add(c->connect_ev, &tv) != 0)
		fatalx(EX_OSERR, "cannot time the connect to '%s'", c->peer);
}

/* Wait for a non-blocking connect on fd; 0 or an errno value. */
static int
conn_wait_connect(int fd, double timeout_s)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int r, e = 0;

	do
		r = poll(&pfd, 1, (int)(timeout_s * 1000));
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno;
	if (r == 0)
		return ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
		return errno;
	return e;
}

/*
 * Open a TCP connection, waiting CONN_CONNECT_BLOCK_S at most (timeout_s if
 * shorter): the socket, with *pending set when it is still connecting, or
 * -1 and errno.
 */
static int
conn_dial(const struct sockaddr_storage *ss, socklen_t len, double timeout_s,
    int *pending)
{
	double block = timeout_s < CONN_CONNECT_BLOCK_S ? timeout_s :
	    CONN_CONNECT_BLOCK_S;
	int fd, e;

	if ((fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (evutil_make_socket_nonblocking(fd) != 0) {
		e = errno;
		goto fail;
	}
	if (connect(fd, (const struct sockaddr *)ss, len) == 0)
		return fd;
	e = errno;
	if (e == EINPROGRESS && (e = conn_wait_connect(fd, block)) == 0)
		return fd;
	if (e == ETIMEDOUT && timeout_s > block) {
		*pending = 1;
		return fd;
	}
fail:
	close(fd);
	errno = e;
	return -1;
}

/* Connect with a timeout and wrap the socket; see conn.h. */
struct ps_conn *
ps_conn_connect(struct event_base *base, const char *hostport,
    double timeout_s, ps_conn_msg_cb *msg_cb, ps_conn_close_cb *close_cb,
    void *arg, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct ps_conn *c;
	int fd, e, pending = 0;

	if (ps_hostport_parse(hostport, &ss, &len, err, errlen) != 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((fd = conn_dial(&ss, len, timeout_s, &pending)) < 0) {
		e = errno;
		snprintf(err, errlen, "cannot connect to '%s': %s", hostport,
		    strerror(e));
		errno = e;
		return NULL;
	}
	c = ps_conn_new(base, fd, hostport, msg_cb, NULL, close_cb, arg);
	c->pausable = 0;
	if (pending)
		conn_dial_pending(c, timeout_s);
	return c;
}
