/*
 * bench-attack.c: load a ps-server as a hostile local peer would, for
 * tests/bench/attack.sh, which watches the server's memory meanwhile.
 *
 *   bench-attack halfframes HOST:PORT CONNS BYTES
 *	open CONNS connections; on each send the header of a frame with the
 *	largest payload (64 MiB) and then BYTES of that payload; a second
 *	after the last, count those the server closed, and close them all.
 *	Prints "conns N sent B closed_by_server C".
 *   bench-attack idle HOST:PORT CONNS SECS
 *	hold CONNS connections that send nothing for SECS seconds, opening
 *	a new one each time the server closes one (its --hello-timeout, -c
 *	making room): a slowloris that never lets go.  Prints "conns N
 *	reopened R" (R: connections the server closed and we opened again).
 *   bench-attack freshkeys HOST:PORT TOTAL PER_PUSH
 *	say HELLO as worker 0 of a one-worker sgd job, then push TOTAL
 *	fresh keys, PER_PUSH at a time, each with gradient 1, waiting for a
 *	CURRENT pull's reply after each push.  Prints "pushed_keys N
 *	refused 0|1 reason ..." and exits 0 either way; 1 if it could not
 *	connect or the server vanished without an ERROR.
 */
#include "config.h"

#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "cluster/hello.h"
#include "util/clock.h"
#include "util/xmalloc.h"
#include "wire/conn.h"
#include "wire/msg_online.h"
#include "wire/wire.h"

/* A blocking TCP connection to hostport, or -1. */
static int
attack_connect(const char *hostport)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256];
	int fd;

	if (ps_hostport_parse(hostport, &ss, &len, err, sizeof err) != 0) {
		fprintf(stderr, "bench-attack: %s\n", err);
		return -1;
	}
	if ((fd = socket(ss.ss_family, SOCK_STREAM, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&ss, len) != 0) {
		fprintf(stderr, "bench-attack: cannot connect to '%s': %s\n",
		    hostport, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Write all of buf; -1 when the peer closed or reset. */
static int
attack_write(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	while (n > 0) {
		if ((w = send(fd, p, n, MSG_NOSIGNAL)) < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Encode m and write it to fd; -1 on failure. */
static int
attack_send(int fd, const struct ps_msg *m)
{
	struct evbuffer *eb = evbuffer_new();
	char err[200];
	int rc = -1;

	if (eb != NULL && ps_msg_encode(m, eb, 0, NULL, err, sizeof err) > 0)
		rc = attack_write(fd, evbuffer_pullup(eb, -1),
		    evbuffer_get_length(eb));
	evbuffer_free(eb);
	return rc;
}

/* The 52-byte header of a HELLO announcing a 64 MiB payload. */
static void
attack_big_header(uint8_t hdr[PS_FRAME_HDR_LEN])
{
	struct evbuffer *eb = evbuffer_new();
	struct ps_msg m;
	char err[200];

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_HELLO;
	m.flags = PS_MSG_F_NOKEYS;
	m.blob = xcalloc(1, PS_FRAME_MAX_PAYLOAD);
	m.bloblen = PS_FRAME_MAX_PAYLOAD;
	if (ps_msg_encode(&m, eb, 0, NULL, err, sizeof err) < 0) {
		fprintf(stderr, "bench-attack: %s\n", err);
		exit(70);
	}
	evbuffer_remove(eb, hdr, PS_FRAME_HDR_LEN);
	evbuffer_free(eb);
	free(m.blob);
}

static int
attack_halfframes(const char *addr, long conns, long bytes)
{
	uint8_t hdr[PS_FRAME_HDR_LEN];
	char *zeros = xcalloc(1, 1 << 20);
	int *fds = xcalloc((size_t)conns, sizeof *fds);
	long i, closed = 0, left;
	uint64_t sent = 0;
	char sink[4096];

	attack_big_header(hdr);
	for (i = 0; i < conns; i++) {
		if ((fds[i] = attack_connect(addr)) < 0)
			return 1;
		if (attack_write(fds[i], hdr, sizeof hdr) != 0)
			continue;
		for (left = bytes; left > 0; left -= 1 << 20) {
			size_t n = left < (1 << 20) ? (size_t)left : 1 << 20;

			if (attack_write(fds[i], zeros, n) != 0)
				break;
			sent += n;
		}
	}
	sleep(1);
	for (i = 0; i < conns; i++) {
		struct pollfd pfd = { fds[i], POLLIN, 0 };

		if (poll(&pfd, 1, 0) > 0 && read(fds[i], sink, sizeof sink) <= 0)
			closed++;
		close(fds[i]);
	}
	printf("conns %ld sent %llu closed_by_server %ld\n", conns,
	    (unsigned long long)sent, closed);
	free(fds);
	free(zeros);
	return 0;
}

static int
attack_idle(const char *addr, long conns, long secs)
{
	struct pollfd *pfd = xcalloc((size_t)conns, sizeof *pfd);
	double end = ps_clock_now() + (double)secs;
	long i, reopened = 0;
	char sink[4096];

	for (i = 0; i < conns; i++) {
		if ((pfd[i].fd = attack_connect(addr)) < 0)
			return 1;
		pfd[i].events = POLLIN;
	}
	while (ps_clock_now() < end) {
		if (poll(pfd, (nfds_t)conns, 100) <= 0)
			continue;
		for (i = 0; i < conns; i++) {
			if (pfd[i].revents == 0 ||
			    read(pfd[i].fd, sink, sizeof sink) > 0)
				continue;
			close(pfd[i].fd);
			if ((pfd[i].fd = attack_connect(addr)) < 0)
				return 1;
			reopened++;
		}
	}
	for (i = 0; i < conns; i++)
		close(pfd[i].fd);
	printf("conns %ld reopened %ld\n", conns, reopened);
	free(pfd);
	return 0;
}

/* Read one frame from fd into m; 0, or -1 at end of stream. */
static int
attack_recv(int fd, struct ps_msg *m)
{
	uint8_t hdr[PS_FRAME_HDR_LEN], *frame;
	size_t len, got = 0;
	char err[200];
	ssize_t n;

	while (got < sizeof hdr && (n = read(fd, hdr + got,
	    sizeof hdr - got)) > 0)
		got += (size_t)n;
	if (got < sizeof hdr ||
	    ps_frame_peek(hdr, PS_FRAME_MAX_PAYLOAD, &len, err, sizeof err))
		return -1;
	frame = xmalloc(len);
	memcpy(frame, hdr, sizeof hdr);
	while (got < len && (n = read(fd, frame + got, len - got)) > 0)
		got += (size_t)n;
	n = got == len ? ps_msg_decode(frame, len, m, err, sizeof err) : -1;
	free(frame);
	return n == 0 ? 0 : -1;
}

/* Say HELLO as worker 0 of a one-worker FTRL job; 0 once it is OK. */
static int
attack_hello(int fd)
{
	struct ps_hello h;
	struct ps_msg m, r;
	int ok;

	memset(&h, 0, sizeof h);
	h.nworkers = 1;		/* worker 0 of 1, server 0 of 1 */
	h.nservers = 1;
	h.algorithm = PS_ALG_SGD;
	h.opt = (struct ps_ftrl){ PS_OPT_FTRL, 0.1, 1, 0, 0 };
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_HELLO;
	m.flags = PS_MSG_F_NOKEYS;
	ps_hello_encode(&h, &m);
	if (attack_send(fd, &m) != 0 || attack_recv(fd, &r) != 0)
		return -1;
	ok = r.type == PS_MSG_HELLO_OK;
	ps_msg_release(&r);
	return ok ? 0 : -1;
}

static int
attack_freshkeys(const char *addr, long total, long per)
{
	uint64_t *keys = xcalloc((size_t)per, sizeof *keys);
	float *vals = xcalloc((size_t)per, sizeof *vals);
	struct ps_msg m, pull, r;
	long pushed = 0, k, t;
	int fd, refused = 0;

	if ((fd = attack_connect(addr)) < 0 || attack_hello(fd) != 0)
		return 1;
	memset(&pull, 0, sizeof pull);
	pull.type = PS_MSG_PULL;
	pull.flags = PS_MSG_F_CURRENT;	/* no keys: a ping, answered at once */
	for (t = 1; pushed < total && !refused; t++) {
		memset(&m, 0, sizeof m);
		m.type = PS_MSG_PUSH;
		m.timestamp = (uint64_t)t;
		m.width = 1;
		m.nkeys = (uint32_t)(total - pushed < per ? total - pushed : per);
		for (k = 0; k < m.nkeys; k++) {
			keys[k] = (uint64_t)(pushed + k) * 7 + 1;
			vals[k] = 1;
		}
		m.keys = keys;
		m.vals = vals;
		ps_sgd_push_encode(0.5, &m);
		if (attack_send(fd, &m) != 0 || attack_send(fd, &pull) != 0 ||
		    attack_recv(fd, &r) != 0)
			return 1;
		if (r.type == PS_MSG_ERROR) {
			refused = 1;
			printf("pushed_keys %ld refused 1 reason %s\n", pushed,
			    r.blob != NULL ? r.blob : "");
		} else {
			pushed += m.nkeys;
		}
		ps_msg_release(&r);
	}
	if (!refused)
		printf("pushed_keys %ld refused 0\n", pushed);
	close(fd);
	free(keys);
	free(vals);
	return 0;
}

int
main(int argc, char **argv)
{
	long a, b;

	if (argc != 5) {
		fprintf(stderr, "usage: bench-attack halfframes host:port conns "
		    "bytes\n       bench-attack idle host:port conns secs\n"
		    "       bench-attack freshkeys host:port total "
		    "per-push\n");
		return 64;
	}
	a = strtol(argv[3], NULL, 10);
	b = strtol(argv[4], NULL, 10);
	if (a < 1 || b < 1)
		return 64;
	if (strcmp(argv[1], "halfframes") == 0)
		return attack_halfframes(argv[2], a, b);
	if (strcmp(argv[1], "idle") == 0)
		return attack_idle(argv[2], a, b);
	if (strcmp(argv[1], "freshkeys") == 0)
		return attack_freshkeys(argv[2], a, b);
	return 64;
}
