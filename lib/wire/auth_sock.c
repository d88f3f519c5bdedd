/*
 * auth_sock.c: the connector's side of the handshake on a blocking socket
 * (auth_sock.h): read the challenge Ns, send Nc and our MAC, read the
 * acceptor's MAC and check it.  As on a ps_conn, each frame is checked
 * from its header (an AUTH, or the ERROR of a refusal, of at most
 * AUTH_SOCK_FRAME_MAX payload bytes) before its payload is read, and the
 * whole exchange has one deadline.
 */
#include "config.h"

#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "util/clock.h"
#include "wire/auth_sock.h"
#include "wire/wire.h"

#define AUTH_SOCK_FRAME_MAX	512	/* payload bytes, as a ps_conn's */

/* One handshake: the socket, its deadline, and where the reason goes. */
struct sock_hs {
	int		 fd;
	double		 end;		/* the deadline, on ps_clock_now() */
	int		 timeout_s;
	char		*err;
	size_t		 errlen;
};

/* Put "authentication failed: " and the reason in err; -1. */
static int
sock_fail(struct sock_hs *hs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
sock_fail(struct sock_hs *hs, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	snprintf(hs->err, hs->errlen, "authentication failed: %s", why);
	return -1;
}

/* Read exactly len bytes by the deadline, waiting for the named step. */
static int
sock_read(struct sock_hs *hs, uint8_t *buf, size_t len, const char *waiting)
{
	struct pollfd pfd = { .fd = hs->fd, .events = POLLIN };
	long long left;
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		if ((left = (long long)((hs->end - ps_clock_now()) * 1000)) <= 0)
			return sock_fail(hs, "no %s within %d s%s", waiting,
			    hs->timeout_s, strcmp(waiting, "challenge") == 0 ?
			    " (does the peer have a secret?)" : "");
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;	/* EINTR or the time ran out */
		n = read(hs->fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sock_fail(hs, "%s", strerror(errno));
		if (n == 0)
			return sock_fail(hs, "connection closed by peer");
		got += (size_t)n;
	}
	return 0;
}

/* Read and decode the next frame into *m: an AUTH, or fail. */
static int
sock_frame(struct sock_hs *hs, const char *waiting, struct ps_msg *m)
{
	uint8_t buf[PS_FRAME_HDR_LEN + AUTH_SOCK_FRAME_MAX];
	char why[200];
	size_t flen;

	if (sock_read(hs, buf, PS_FRAME_HDR_LEN, waiting) != 0)
		return -1;
	if (ps_frame_peek(buf, AUTH_SOCK_FRAME_MAX, &flen, why,
	    sizeof why) != 0)
		return sock_fail(hs, "%s", why);
	if (buf[5] != PS_MSG_AUTH && buf[5] != PS_MSG_ERROR)
		return sock_fail(hs, "%s before authenticating (does the peer "
		    "have the secret?)", ps_msg_type_name(buf[5]));
	if (sock_read(hs, buf + PS_FRAME_HDR_LEN, flen - PS_FRAME_HDR_LEN,
	    waiting) != 0)
		return -1;
	if (ps_msg_decode(buf, flen, m, why, sizeof why) != 0)
		return sock_fail(hs, "%s", why);
	if (m->type == PS_MSG_ERROR) {
		sock_fail(hs, "refused by the peer: %.*s", (int)m->bloblen,
		    m->blob != NULL ? m->blob : "");
		ps_msg_release(m);
		return -1;
	}
	return 0;
}

/* Read the AUTH frame of this step, with len bytes, into buf. */
static int
sock_step(struct sock_hs *hs, int step, const char *waiting, uint8_t *buf,
    size_t len)
{
	struct ps_msg m;
	int ok;

	if (sock_frame(hs, waiting, &m) != 0)
		return -1;
	ok = m.timestamp == (uint64_t)step && m.bloblen == len &&
	    m.nkeys == 0 && m.naux == 0;
	if (ok)
		memcpy(buf, m.blob, len);
	ps_msg_release(&m);
	return ok ? 0 : sock_fail(hs, "malformed AUTH from the peer");
}

/* Send AUTH step 2: Nc and our MAC. */
static int
sock_answer(struct sock_hs *hs, const uint8_t *answer, size_t len)
{
	struct evbuffer *eb = evbuffer_new();
	struct ps_msg m;
	char why[200];
	ssize_t n;
	int rc = 0;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_AUTH;
	m.flags = PS_MSG_F_NOKEYS;
	m.timestamp = 2;
	m.blob = (char *)answer;
	m.bloblen = len;
	if (eb == NULL)
		return sock_fail(hs, "out of memory");
	if (ps_msg_encode(&m, eb, 0, NULL, why, sizeof why) < 0)
		rc = sock_fail(hs, "%s", why);
	while (rc == 0 && evbuffer_get_length(eb) > 0) {
		n = send(hs->fd, evbuffer_pullup(eb, -1),
		    evbuffer_get_length(eb), MSG_NOSIGNAL);
		if (n < 0 && errno != EINTR)
			rc = sock_fail(hs, "%s", strerror(errno));
		else if (n > 0)
			evbuffer_drain(eb, (size_t)n);
	}
	evbuffer_free(eb);
	return rc;
}

/* Run the connector's side; see auth_sock.h. */
int
ps_auth_sock_connect(int fd, const struct ps_secret *secret, int timeout_s,
    char *err, size_t errlen)
{
	struct sock_hs hs = { fd, ps_clock_now() + timeout_s,
	    timeout_s, err, errlen };
	uint8_t ns[PS_AUTH_NONCE_LEN], answer[PS_AUTH_NONCE_LEN +
	    PS_AUTH_MAC_LEN], got[PS_AUTH_MAC_LEN], want[PS_AUTH_MAC_LEN];

	if (sock_step(&hs, 1, "challenge", ns, sizeof ns) != 0)
		return -1;
	if (ps_auth_nonce(answer) != 0)
		return sock_fail(&hs, "cannot draw a nonce: %s",
		    strerror(errno));
	ps_auth_mac(secret, PS_AUTH_CONNECTOR, ns, answer,
	    answer + PS_AUTH_NONCE_LEN);
	if (sock_answer(&hs, answer, sizeof answer) != 0 ||
	    sock_step(&hs, 3, "proof", got, sizeof got) != 0)
		return -1;
	ps_auth_mac(secret, PS_AUTH_ACCEPTOR, ns, answer, want);
	if (!ps_auth_equal(want, got, sizeof want))
		return sock_fail(&hs, "wrong secret (the peer's proof does not "
		    "match)");
	return 0;
}
