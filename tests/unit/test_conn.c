/*
 * test_conn.c: unit tests of framed connections over loopback TCP and
 * socketpairs: frames both ways, text-mode detection, malformed input
 * closing with its reason, the frame size limit, freeing from a callback,
 * back-pressure, the listen/connect/address helpers, a connect that does
 * not complete (left to the loop), and the authentication handshake.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "util/clock.h"
#include "util/crc32c.h"
#include "wire/conn.h"
#include "wire/wire.h"

/* What one end saw, and how it behaves. */
struct side {
	struct event_base	*base;
	struct ps_conn		*c;
	int			 nmsgs;
	struct ps_msg		 last;
	int			 nlines;
	char			 line[2048];
	int			 closed;
	int			 proto;
	int			 auth;		/* closed by the handshake */
	int			 refused;	/* ... on its merits */
	char			 reason[256];
	int			 echo;		/* answer each PUSH with a PULL_REPLY */
	int			 free_in_msg;	/* free the conn from msg_cb */
};

/* Record a message; echo it or free the conn when asked to. */
static void
side_msg_cb(struct ps_conn *c, struct ps_msg *m, void *arg)
{
	struct side *s = arg;

	s->nmsgs++;
	ps_msg_release(&s->last);
	s->last = *m;
	if (s->echo) {
		m->type = PS_MSG_PULL_REPLY;
		assert_true(ps_conn_send(c, m) > 0);
	}
	if (s->free_in_msg) {
		ps_conn_free(c);
		s->c = NULL;
	}
}

/* Record a line; "quit" closes after flushing "bye", others get STATs. */
static void
side_text_cb(struct ps_conn *c, const char *line, void *arg)
{
	struct side *s = arg;

	s->nlines++;
	snprintf(s->line, sizeof s->line, "%s", line);
	if (strcmp(line, "quit") == 0) {
		ps_conn_send_text(c, "bye\r\n");
		ps_conn_close_after_flush(c);
	} else
		ps_conn_send_text(c, "STAT x 1\r\nEND\r\n");
}

/* Record why the conn closed and free it. */
static void
side_close_cb(struct ps_conn *c, const char *reason, void *arg)
{
	struct side *s = arg;

	s->closed++;
	s->proto = ps_conn_is_protocol_error(c);
	s->auth = ps_conn_is_auth_error(c);
	s->refused = ps_conn_is_auth_refused(c);
	snprintf(s->reason, sizeof s->reason, "%s", reason);
	ps_conn_free(c);
	s->c = NULL;
}

/* Seconds on the monotonic clock. */
/* Run the loop until *count reaches n, failing after 5 seconds. */
static void
run_until_n(struct event_base *base, const int *count, int n)
{
	double end = ps_clock_now() + 5;

	while (*count < n) {
		if (ps_clock_now() > end)
			fail_msg("timed out");
		event_base_loop(base, EVLOOP_NONBLOCK);
		usleep(500);
	}
}

/* Run the loop until *flag is set. */
static void
run_until(struct event_base *base, const int *flag)
{
	run_until_n(base, flag, 1);
}

/* A socketpair: [0] for a conn, [1] non-blocking for the test to use. */
static void
pair(int fds[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	assert_int_equal(fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
}

/* Write all of buf to a non-blocking fd the loop keeps draining. */
static void
write_all(int fd, const void *buf, size_t len)
{
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
}

/* Read what is there from a non-blocking fd; -1 at EOF. */
static ssize_t
read_some(int fd, char *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	if (n == 0)
		return -1;
	return n < 0 ? 0 : n;
}

/* Encode m into a malloc'd buffer; its length in *len. */
static uint8_t *
encode(const struct ps_msg *m, size_t *len)
{
	struct evbuffer *eb = evbuffer_new();
	char err[200];
	uint8_t *buf;

	assert_true(ps_msg_encode(m, eb, 0, NULL, err, sizeof err) > 0);
	*len = evbuffer_get_length(eb);
	buf = malloc(*len);
	evbuffer_remove(eb, buf, *len);
	evbuffer_free(eb);
	return buf;
}

/* A small valid BYE frame. */
static uint8_t *
bye_frame(size_t *len)
{
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_BYE;
	m.flags = PS_MSG_F_NOKEYS;
	m.naux = 1;
	m.aux[0] = 3.25;
	return encode(&m, len);
}

/* Accept into a server-side conn with text support and echo. */
static void
accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int len, void *arg)
{
	struct side *s = arg;

	s->c = ps_conn_new(s->base, fd, "client", side_msg_cb, side_text_cb,
	    side_close_cb, s);
}

static void
test_loopback_frames(void **state)
{
	struct event_base *base = event_base_new();
	struct side srv = { .base = base, .echo = 1 }, cli = { .base = base };
	struct evconnlistener *l;
	char bound[64], err[256];
	struct ps_msg m;
	uint64_t *keys = malloc(5000 * sizeof *keys);
	float *vals = malloc(10000 * sizeof *vals);
	int i;

	assert_int_equal(ps_listen(base, "127.0.0.1:0", accept_cb, &srv, &l,
	    bound, sizeof bound, err, sizeof err), 0);
	assert_non_null(strstr(bound, "127.0.0.1:"));
	cli.c = ps_conn_connect(base, bound, 2, side_msg_cb, side_close_cb,
	    &cli, err, sizeof err);
	assert_non_null(cli.c);
	assert_string_equal(ps_conn_peer(cli.c), bound);
	ps_conn_set_lz4(cli.c, 1);
	for (i = 0; i < 5000; i++)
		keys[i] = (uint64_t)i * 3;
	for (i = 0; i < 10000; i++)
		vals[i] = (float)(i % 10);
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_PUSH;
	m.width = 2;
	m.nkeys = 5000;
	m.keys = keys;
	m.vals = vals;
	assert_true(ps_conn_send(cli.c, &m) > 0);
	run_until(base, &cli.nmsgs);
	assert_int_equal(cli.last.type, PS_MSG_PULL_REPLY);
	assert_int_equal(cli.last.nkeys, 5000);
	assert_memory_equal(cli.last.keys, keys, 5000 * sizeof *keys);
	assert_memory_equal(cli.last.vals, vals, 10000 * sizeof *vals);
	assert_int_equal(ps_conn_stats(cli.c)->msgs_out, 1);
	assert_int_equal(ps_conn_stats(cli.c)->msgs_in, 1);
	assert_true(ps_conn_stats(cli.c)->bytes_out <
	    ps_conn_stats(cli.c)->bytes_in);	/* only the client used LZ4 */
	assert_int_equal(ps_conn_stats(srv.c)->bytes_in,
	    ps_conn_stats(cli.c)->bytes_out);
	ps_conn_free(cli.c);
	run_until(base, &srv.closed);
	assert_string_equal(srv.reason, "connection closed by peer");
	assert_int_equal(srv.proto, 0);
	ps_msg_release(&cli.last);
	ps_msg_release(&srv.last);
	evconnlistener_free(l);
	event_base_free(base);
	free(keys);
	free(vals);
}

static void
test_text_mode(void **state)
{
	struct event_base *base = event_base_new();
	struct side s = { .base = base };
	char buf[256];
	ssize_t n, got = 0;
	int fds[2];

	pair(fds);
	s.c = ps_conn_new(base, fds[0], "nc", side_msg_cb, side_text_cb,
	    side_close_cb, &s);
	write_all(fds[1], "stats\r\n", 7);
	run_until(base, &s.nlines);
	assert_string_equal(s.line, "stats");
	write_all(fds[1], "quit\n", 5);
	run_until(base, &s.closed);
	assert_string_equal(s.line, "quit");
	assert_int_equal(s.proto, 0);
	while ((n = read_some(fds[1], buf + got, sizeof buf - 1 - (size_t)got))
	    >= 0)
		got += n;
	buf[got] = '\0';
	assert_string_equal(buf, "STAT x 1\r\nEND\r\nbye\r\n");
	close(fds[1]);
	event_base_free(base);
}

/* Feed bytes to a fresh conn and expect it to close with reason. */
static void
expect_close(const void *bytes, size_t len, int text, int shut,
    const char *reason)
{
	struct event_base *base = event_base_new();
	struct side s = { .base = base };
	int fds[2];

	pair(fds);
	s.c = ps_conn_new(base, fds[0], "peer", side_msg_cb,
	    text ? side_text_cb : NULL, side_close_cb, &s);
	write_all(fds[1], bytes, len);
	if (shut)
		shutdown(fds[1], SHUT_WR);
	run_until(base, &s.closed);
	if (strstr(s.reason, reason) == NULL)
		fail_msg("reason '%s' lacks '%s'", s.reason, reason);
	assert_int_equal(s.proto, 1);
	assert_int_equal(s.nmsgs, 0);
	close(fds[1]);
	event_base_free(base);
}

static void
test_malformed_closes(void **state)
{
	char line[2000];
	size_t len;
	uint8_t *f = bye_frame(&len);

	f[9] ^= 1;
	expect_close(f, len, 1, 0, "header checksum mismatch");
	f[9] ^= 1;
	f[PS_FRAME_HDR_LEN] ^= 1;
	expect_close(f, len, 1, 0, "payload checksum mismatch");
	f[PS_FRAME_HDR_LEN] ^= 1;
	expect_close(f, len - 3, 1, 1, "truncated frame");
	f[4] = 2;
	expect_close(f, len, 0, 0, "unsupported version 2");
	expect_close("stats\n", 6, 0, 0, "bad magic 0x74617473");
	expect_close("\xef\xbe\xad\xde", 4, 1, 0, "bad magic 0xdeadbeef");
	memset(line, 'a', sizeof line);
	expect_close(line, sizeof line, 1, 0, "text line too long");
	expect_close("sta\x01ts\n", 7, 1, 0, "binary data in text line");
	expect_close("stats\x02", 6, 1, 0, "binary data in text line");
	free(f);
}

/* A BYE whose payload is exactly len bytes of text (len <= 8192). */
static uint8_t *
blob_frame(size_t len, size_t *flen)
{
	static char text[8192];
	struct ps_msg m;

	memset(text, 'x', sizeof text);
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_BYE;
	m.flags = PS_MSG_F_NOKEYS;
	m.blob = text;
	m.bloblen = len;
	return encode(&m, flen);
}

/*
 * ps_conn_set_max_frame(), below its floor (so at PS_CONN_FRAME_MIN): a
 * payload at the limit is read; a header announcing one byte more closes
 * the conn, its payload never sent.
 */
static void
test_max_frame(void **state)
{
	struct event_base *base = event_base_new();
	struct side s = { .base = base };
	uint8_t *f;
	uint32_t over = PS_CONN_FRAME_MIN + 1, crc;
	size_t len;
	int fds[2];

	pair(fds);
	s.c = ps_conn_new(base, fds[0], "peer", side_msg_cb, side_text_cb,
	    side_close_cb, &s);
	ps_conn_set_max_frame(s.c, PS_CONN_FRAME_MIN - 1);
	f = blob_frame(PS_CONN_FRAME_MIN, &len);
	write_all(fds[1], f, len);
	run_until(base, &s.nmsgs);
	assert_int_equal(s.last.bloblen, PS_CONN_FRAME_MIN);
	memcpy(f + 36, &over, 4);
	memcpy(f + 40, &over, 4);
	crc = ps_crc32c(0, f, 48);
	memcpy(f + 48, &crc, 4);
	write_all(fds[1], f, PS_FRAME_HDR_LEN);
	run_until(base, &s.closed);
	assert_string_equal(s.reason, "frame too large (4097 bytes, limit "
	    "4096)");
	assert_int_equal(s.proto, 1);
	assert_int_equal(s.nmsgs, 1);
	ps_msg_release(&s.last);
	close(fds[1]);
	free(f);
	event_base_free(base);
}

static void
test_frames_in_one_write(void **state)
{
	struct event_base *base = event_base_new();
	struct side s = { .base = base };
	uint8_t *f, two[512];
	size_t len;
	int fds[2];

	f = bye_frame(&len);
	memcpy(two, f, len);
	memcpy(two + len, f, len);
	pair(fds);
	s.c = ps_conn_new(base, fds[0], "peer", side_msg_cb, side_text_cb,
	    side_close_cb, &s);
	write_all(fds[1], two, 2 * len);
	run_until_n(base, &s.nmsgs, 2);
	assert_int_equal(s.last.type, PS_MSG_BYE);
	assert_true(s.last.aux[0] == 3.25);
	ps_msg_release(&s.last);
	/* Freeing from inside the message callback stops delivery. */
	s.free_in_msg = 1;
	s.nmsgs = 0;
	write_all(fds[1], two, 2 * len);
	run_until(base, &s.nmsgs);
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(s.nmsgs, 1);
	assert_null(s.c);
	assert_int_equal(s.closed, 0);
	ps_msg_release(&s.last);
	close(fds[1]);
	free(f);
	event_base_free(base);
}

static void
test_back_pressure(void **state)
{
	struct event_base *base = event_base_new();
	struct side s = { .base = base };
	size_t len, total = 0;
	uint8_t *f = bye_frame(&len);
	static char buf[1 << 16];
	struct ps_msg big;
	ssize_t n;
	int fds[2], i, unread;

	pair(fds);
	s.c = ps_conn_new(base, fds[0], "slow", side_msg_cb, NULL,
	    side_close_cb, &s);
	memset(&big, 0, sizeof big);
	big.type = PS_MSG_ERROR;
	big.flags = PS_MSG_F_NOKEYS;
	big.bloblen = 4u << 20;
	big.blob = calloc(1, big.bloblen);
	for (i = 0; i < 17; i++)
		assert_true(ps_conn_send(s.c, &big) > 0);
	write_all(fds[1], f, len);
	for (i = 0; i < 50; i++)
		event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(s.nmsgs, 0);	/* not read while output is full */
	while (s.nmsgs == 0) {
		while ((n = read_some(fds[1], buf, sizeof buf)) > 0)
			total += (size_t)n;
		event_base_loop(base, EVLOOP_NONBLOCK);
	}
	/* Read resumed only once the output was down to the low mark: what
	 * came out, with what still waits in the socket, is all but that. */
	assert_int_equal(ioctl(fds[1], FIONREAD, &unread), 0);
	assert_true(total + (size_t)unread >= 17 * big.bloblen - PS_CONN_OUT_LOW);
	assert_int_equal(s.closed, 0);
	ps_msg_release(&s.last);
	ps_conn_free(s.c);
	close(fds[1]);
	free(big.blob);
	free(f);
	event_base_free(base);
}

static void
test_connect_and_listen_errors(void **state)
{
	struct event_base *base = event_base_new();
	struct side s = { .base = base };
	struct evconnlistener *l, *l2;
	char bound[64], bound2[64], err[256], want[128];

	assert_int_equal(ps_listen(base, "127.0.0.1:0", accept_cb, &s, &l,
	    bound, sizeof bound, err, sizeof err), 0);
	assert_int_equal(ps_listen(base, bound, accept_cb, &s, &l2, bound2,
	    sizeof bound2, err, sizeof err), -1);
	snprintf(want, sizeof want, "cannot listen on '%s': Address already "
	    "in use", bound);
	assert_string_equal(err, want);
	evconnlistener_free(l);
	assert_null(ps_conn_connect(base, bound, 2, side_msg_cb, side_close_cb,
	    &s, err, sizeof err));
	snprintf(want, sizeof want, "cannot connect to '%s': Connection "
	    "refused", bound);
	assert_string_equal(err, want);
	event_base_free(base);
}

/*
 * A listener on 127.0.0.1 with a backlog of 0 that never accepts: once its
 * queue is full the kernel drops further SYNs, as a host cut off does.
 * Returns it and its port; *fillers holds the queued connects (8 at most).
 */
static int
full_listener(int *port, int fillers[8], int *nfillers)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	struct pollfd pfd;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	assert_int_equal(listen(fd, 0), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	for (*nfillers = 0; *nfillers < 8; (*nfillers)++) {
		pfd.fd = fillers[*nfillers] = socket(AF_INET,
		    SOCK_STREAM | SOCK_NONBLOCK, 0);
		pfd.events = POLLOUT;
		(void)connect(pfd.fd, (struct sockaddr *)&sin, sizeof sin);
		if (poll(&pfd, 1, 100) == 0)
			return fd;	/* this one waits: the queue is full */
	}
	fail_msg("a backlog of 0 took 8 connections");
	return -1;
}

/*
 * A connect that does not complete blocks the caller 0.1 s at most; it
 * goes on in the loop and fails there at its timeout, with the reason.
 */
static void
test_connect_pending(void **state)
{
	struct side s = { 0 };
	int lfd, port, fillers[8], nfillers, i;
	char addr[64], err[256], want[128];
	double t0;

	s.base = event_base_new();
	lfd = full_listener(&port, fillers, &nfillers);
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	t0 = ps_clock_now();
	s.c = ps_conn_connect(s.base, addr, 0.6, side_msg_cb, side_close_cb,
	    &s, err, sizeof err);
	assert_non_null(s.c);
	assert_true(ps_clock_now() - t0 < 0.3);
	run_until(s.base, &s.closed);
	assert_true(ps_clock_now() - t0 >= 0.5);
	snprintf(want, sizeof want, "cannot connect to '%s': Connection "
	    "timed out", addr);
	assert_string_equal(s.reason, want);
	for (i = 0; i <= nfillers; i++)
		close(fillers[i]);
	close(lfd);
	ps_msg_release(&s.last);
	event_base_free(s.base);
}

static void
test_hostport_parse(void **state)
{
	static const char *bad[] = { "nohost", "1.2.3.4:99999", "1.2.3.4:",
	    "[::1]7000", "::1:7000", "1.2.3.4:7a", "[::1:7000" };
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256];
	size_t i;

	assert_int_equal(ps_hostport_parse("127.0.0.1:7000", &ss, &len, err,
	    sizeof err), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ps_hostport_parse("[::1]:7000", &ss, &len, err,
	    sizeof err), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(ps_hostport_parse(":0", &ss, &len, err, sizeof err),
	    0);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(ps_hostport_parse(bad[i], &ss, &len, err,
		    sizeof err), -1);
		assert_non_null(strstr(err, bad[i]));
	}
}

/* A secret of 16 bytes or more for the handshake tests. */
static void
secret_set(struct ps_secret *k, const char *text)
{
	memset(k, 0, sizeof *k);
	k->len = strlen(text);
	memcpy(k->bytes, text, k->len);
}

/* Two conns on a socketpair: a (acceptor, text too) and b (connector). */
static void
auth_pair(struct event_base *base, struct side *a, struct side *b,
    const struct ps_secret *ka, const struct ps_secret *kb)
{
	char err[256];
	int fds[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	a->c = ps_conn_new(base, fds[0], "a", side_msg_cb, side_text_cb,
	    side_close_cb, a);
	b->c = ps_conn_new(base, fds[1], "b", side_msg_cb, NULL,
	    side_close_cb, b);
	if (ka != NULL)
		assert_int_equal(ps_conn_set_auth(a->c, ka, PS_AUTH_ACCEPTOR,
		    err, sizeof err), 0);
	if (kb != NULL)
		assert_int_equal(ps_conn_set_auth(b->c, kb, PS_AUTH_CONNECTOR,
		    err, sizeof err), 0);
}

/* Same secret: frames sent before the handshake arrive after it. */
static void
test_auth_handshake(void **state)
{
	struct event_base *base = event_base_new();
	struct side a = { .base = base, .echo = 1 }, b = { .base = base };
	struct ps_secret k;
	struct ps_msg m;

	secret_set(&k, "a secret of some length");
	auth_pair(base, &a, &b, &k, &k);
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_PUSH;
	m.flags = PS_MSG_F_NOKEYS;
	m.timestamp = 7;
	assert_true(ps_conn_send(b.c, &m) > 0);
	assert_true(ps_conn_pending(b.c) > 0);
	assert_false(ps_conn_is_authenticated(b.c));
	run_until(base, &b.nmsgs);
	assert_int_equal(a.nmsgs, 1);
	assert_int_equal(a.last.type, PS_MSG_PUSH);
	assert_int_equal(b.last.type, PS_MSG_PULL_REPLY);
	assert_int_equal(b.last.timestamp, 7);
	assert_true(ps_conn_is_authenticated(a.c));
	assert_true(ps_conn_is_authenticated(b.c));
	assert_int_equal(a.closed + b.closed, 0);
	ps_conn_free(a.c);
	run_until(base, &b.closed);
	assert_false(b.auth);
	assert_string_equal(b.reason, "connection closed by peer");
	ps_msg_release(&a.last);
	ps_msg_release(&b.last);
	event_base_free(base);
}

/* Run until both ends closed; check their reasons and that no frame got by. */
static void
expect_auth_close(struct event_base *base, struct side *a, struct side *b,
    const char *ra, const char *rb)
{
	run_until(base, &a->closed);
	run_until(base, &b->closed);
	print_message("a: %s\nb: %s\n", a->reason, b->reason);
	if (strstr(a->reason, ra) == NULL)
		fail_msg("acceptor's reason '%s' lacks '%s'", a->reason, ra);
	if (strstr(b->reason, rb) == NULL)
		fail_msg("connector's reason '%s' lacks '%s'", b->reason, rb);
	assert_true(a->auth && b->auth);
	assert_true(a->refused && b->refused);
	assert_int_equal(a->nmsgs + b->nmsgs + a->nlines, 0);
}

static void
test_auth_refused(void **state)
{
	struct event_base *base = event_base_new();
	struct side a = { .base = base }, b = { .base = base };
	struct side c = { .base = base }, d = { .base = base };
	struct ps_secret k1, k2;
	struct ps_msg m;

	secret_set(&k1, "the first secret");
	secret_set(&k2, "the other secret");
	auth_pair(base, &a, &b, &k1, &k2);
	expect_auth_close(base, &a, &b, "authentication failed: wrong secret",
	    "authentication failed: refused by the peer: wrong secret");
	/* A connector without a secret is told the peer asks for one. */
	auth_pair(base, &c, &d, &k1, NULL);
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_BYE;
	m.flags = PS_MSG_F_NOKEYS;
	assert_true(ps_conn_send(d.c, &m) > 0);
	expect_auth_close(base, &c, &d, "authentication failed: ",
	    "authentication failed: the peer asks for a secret");
	event_base_free(base);
}

/*
 * A conn for s on a new socketpair's fds[0] (the test uses fds[1]), with
 * the handshake started as role; an acceptor also takes text.
 */
static void
auth_on_pair(struct side *s, int fds[2], const struct ps_secret *k,
    enum ps_auth_role role)
{
	char err[256];

	pair(fds);
	s->c = ps_conn_new(s->base, fds[0], "peer", side_msg_cb,
	    role == PS_AUTH_ACCEPTOR ? side_text_cb : NULL, side_close_cb, s);
	assert_int_equal(ps_conn_set_auth(s->c, k, role, err, sizeof err), 0);
}

/* An acceptor fed bytes (after reading its challenge) closes with why. */
static void
expect_auth_raw(const void *bytes, size_t len, const char *reason)
{
	struct event_base *base = event_base_new();
	struct side s = { .base = base };
	struct ps_secret k;
	char buf[256];
	int fds[2];

	secret_set(&k, "0123456789abcdef");
	auth_on_pair(&s, fds, &k, PS_AUTH_ACCEPTOR);
	write_all(fds[1], bytes, len);
	run_until(base, &s.closed);
	assert_true(read_some(fds[1], buf, sizeof buf) >= PS_FRAME_HDR_LEN +
	    PS_AUTH_NONCE_LEN);
	if (strstr(s.reason, "authentication failed: ") != s.reason ||
	    strstr(s.reason, reason) == NULL)
		fail_msg("reason '%s' lacks '%s'", s.reason, reason);
	assert_true(s.auth && s.refused);
	assert_int_equal(s.nmsgs + s.nlines, 0);
	close(fds[1]);
	event_base_free(base);
}

/* A peer that goes away before challenging: failed, but not refused. */
static void
test_auth_dropped(void **state)
{
	struct event_base *base = event_base_new();
	struct side s = { .base = base };
	struct ps_secret k;
	int fds[2];

	secret_set(&k, "0123456789abcdef");
	auth_on_pair(&s, fds, &k, PS_AUTH_CONNECTOR);
	close(fds[1]);
	run_until(base, &s.closed);
	assert_string_equal(s.reason, "authentication failed: connection "
	    "closed by peer");
	assert_true(s.auth);
	assert_false(s.refused);
	event_base_free(base);
}

static void
test_auth_malformed(void **state)
{
	size_t len;
	uint8_t *f = bye_frame(&len), *g;
	struct ps_msg m;

	expect_auth_raw("stats\r\n", 7, "a text line before authenticating");
	expect_auth_raw(f, len, "BYE before authenticating");
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_AUTH;
	m.flags = PS_MSG_F_NOKEYS;
	m.timestamp = 2;
	m.blob = "too short";
	m.bloblen = 9;
	g = encode(&m, &len);
	expect_auth_raw(g, len, "malformed AUTH");
	free(g);
	m.blob = calloc(1, 4096);
	m.bloblen = 4096;
	g = encode(&m, &len);
	expect_auth_raw(g, PS_FRAME_HDR_LEN, "4148-byte AUTH before");
	free(m.blob);
	free(g);
	free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loopback_frames),
		cmocka_unit_test(test_text_mode),
		cmocka_unit_test(test_malformed_closes),
		cmocka_unit_test(test_max_frame),
		cmocka_unit_test(test_frames_in_one_write),
		cmocka_unit_test(test_back_pressure),
		cmocka_unit_test(test_connect_and_listen_errors),
		cmocka_unit_test(test_connect_pending),
		cmocka_unit_test(test_hostport_parse),
		cmocka_unit_test(test_auth_handshake),
		cmocka_unit_test(test_auth_refused),
		cmocka_unit_test(test_auth_malformed),
		cmocka_unit_test(test_auth_dropped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
