/*
 * framefuzz-net.c: the connections of ps-framefuzz.  A connection is
 * opened blocking (with the handshake first when the run has a secret) and
 * then made non-blocking: a frame is written while whatever the daemon
 * answers is read and thrown away, so neither side can block the other on
 * a full socket buffer.  A daemon that closes or resets a connection is
 * expected (it drops peers that break the protocol); a refused connect()
 * means nothing listens any more.
 */
#include "config.h"

#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "framefuzz.h"
#include "wire/auth_sock.h"

#define NET_AUTH_SECS	5

/* Connect to the daemon, with the handshake if there is a secret. */
enum ff_status
ff_connect(const struct ff_target *t, int *fdp)
{
	char why[512];
	int fd;

	*fdp = -1;
	if ((fd = socket(t->ss.ss_family, SOCK_STREAM, 0)) < 0) {
		fprintf(stderr, "ps-framefuzz: socket: %s\n", strerror(errno));
		return FF_FAILED;
	}
	if (connect(fd, (const struct sockaddr *)&t->ss, t->sslen) != 0) {
		if (errno == ECONNREFUSED) {
			close(fd);
			return FF_REFUSED;
		}
		fprintf(stderr, "ps-framefuzz: cannot connect to '%s': %s\n",
		    t->name, strerror(errno));
		close(fd);
		return FF_FAILED;
	}
	if (t->secret != NULL && ps_auth_sock_connect(fd, t->secret,
	    NET_AUTH_SECS, why, sizeof why) != 0) {
		fprintf(stderr, "ps-framefuzz: %s: %s\n", t->name, why);
		close(fd);
		return FF_FAILED;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
		close(fd);
		return FF_FAILED;
	}
	*fdp = fd;
	return FF_OK;
}

/* Read and discard what is there; FF_CLOSED at end of file or a reset. */
enum ff_status
ff_drain(int fd)
{
	uint8_t buf[65536];
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof buf);
		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return FF_OK;
		return FF_CLOSED;
	}
}

/*
 * Write the frame, reading answers while the socket is full; FF_STALLED
 * if the daemon took nothing for FF_STALL_MS.
 */
enum ff_status
ff_send(int fd, const struct ff_frame *f)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	size_t off = 0;
	ssize_t n;
	int rc;

	while (off < f->len) {
		n = send(fd, f->buf + off, f->len - off, MSG_NOSIGNAL);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return FF_CLOSED;
		if ((rc = poll(&pfd, 1, FF_STALL_MS)) == 0)
			return FF_STALLED;
		if (rc > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)) &&
		    ff_drain(fd) == FF_CLOSED)
			return FF_CLOSED;
	}
	return FF_OK;
}

/* Wait up to ms for one of the n sockets (-1 skipped) to be readable. */
int
ff_wait_readable(const int *fds, size_t n, int ms)
{
	struct pollfd pfd[64];
	size_t i, k = 0;

	for (i = 0; i < n && k < 64; i++)
		if (fds[i] >= 0)
			pfd[k++] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	return poll(pfd, k, ms);
}
