/*
 * fuzz.c: the helpers the fuzz harnesses share (see fuzz.h).
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "util/crc32c.h"
#include "wire/wire.h"

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/listener.h>

void
fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
	abort();
}

int
fuzz_memfile(const uint8_t *data, size_t size, char *path, size_t pathlen)
{
	size_t off = 0;
	ssize_t n;
	int fd;

	if ((fd = memfd_create("fuzz", MFD_CLOEXEC)) == -1) {
		perror("memfd_create");
		abort();
	}
	for (; off < size; off += (size_t)n)
		if ((n = write(fd, data + off, size - off)) <= 0) {
			perror("write to memfd");
			abort();
		}
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

void
fuzz_twice(const uint8_t *data, size_t size,
    void (*run)(const uint8_t *, size_t), void (*fix)(uint8_t *, size_t))
{
	uint8_t *fixed;

	run(data, size);
	if (size == 0)
		return;
	if ((fixed = malloc(size)) == NULL)
		abort();
	memcpy(fixed, data, size);
	fix(fixed, size);
	if (memcmp(fixed, data, size) != 0)
		run(fixed, size);
	free(fixed);
}

uint32_t
fuzz_ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

uint64_t
fuzz_ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

void
fuzz_put_crc(uint8_t *dst, const uint8_t *p, uint64_t n, const uint8_t *end)
{
	uint32_t crc;

	if (dst > end || end - dst < 4 || p > end)
		return;
	if (n > (uint64_t)(end - p))
		n = (uint64_t)(end - p);
	crc = ps_crc32c(0, p, (size_t)n);
	memcpy(dst, &crc, 4);
}

int
fuzz_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

void
fuzz_fix_frames(uint8_t *p, size_t size)
{
	const uint8_t *end = p + size;
	uint32_t wire_len;
	size_t off;

	for (off = 0; size - off >= PS_FRAME_HDR_LEN;
	    off += PS_FRAME_HDR_LEN + (size_t)wire_len) {
		wire_len = fuzz_ld32(p + off + 40);
		fuzz_put_crc(p + off + 44, p + off + PS_FRAME_HDR_LEN,
		    wire_len, end);
		fuzz_put_crc(p + off + 48, p + off, 48, end);
		if (wire_len > size - off - PS_FRAME_HDR_LEN)
			break;
	}
}

void
fuzz_fix_after_first(uint8_t *p, size_t size)
{
	if (size > 1)
		fuzz_fix_frames(p + 1, size - 1);
}

void
fuzz_socketpair(int sv[2])
{
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
}

void
fuzz_feed(int fd, const uint8_t *data, size_t size)
{
	ssize_t n;

	FUZZ_CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0);
	while (size > 0 && (n = write(fd, data, size)) > 0) {
		data += n;
		size -= (size_t)n;
	}
	shutdown(fd, SHUT_WR);
}

void
fuzz_put_msg(struct evbuffer *out, const struct ps_msg *m)
{
	char err[256];

	if (ps_msg_encode(m, out, 0, NULL, err, sizeof err) < 0) {
		fprintf(stderr, "cannot encode a harness message: %s\n", err);
		abort();
	}
}

void
fuzz_feed_after(int fd, struct evbuffer *prefix, const uint8_t *data,
    size_t size)
{
	FUZZ_CHECK(evbuffer_add(prefix, data, size) == 0);
	fuzz_feed(fd, evbuffer_pullup(prefix, -1), evbuffer_get_length(prefix));
	evbuffer_drain(prefix, evbuffer_get_length(prefix));
}

/* Read and drop what the daemon wrote, so that it never waits on us. */
static void
fuzz_sink_cb(evutil_socket_t fd, short what, void *arg)
{
	char buf[65536];

	while (read(fd, buf, sizeof buf) > 0)
		continue;
}

struct event *
fuzz_sink_new(struct event_base *base, int fd)
{
	struct event *ev;

	FUZZ_CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0);
	ev = event_new(base, fd, EV_READ | EV_PERSIST, fuzz_sink_cb, NULL);
	FUZZ_CHECK(ev != NULL && event_add(ev, NULL) == 0);
	return ev;
}

void
fuzz_sinks_free(struct event **ev, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		close(event_get_fd(ev[i]));
		event_free(ev[i]);
	}
}

void
fuzz_daemon_base(struct event_base **base)
{
	if (*base != NULL)
		return;
	signal(SIGPIPE, SIG_IGN);
	FUZZ_CHECK((*base = event_base_new()) != NULL);
}

struct event *
fuzz_accept(struct event_base *base, evconnlistener_cb accept, void *arg,
    struct evbuffer *prefix, const uint8_t *data, size_t size)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int sv[2];

	fuzz_socketpair(sv);
	fuzz_feed_after(sv[1], prefix, data, size);
	accept(NULL, sv[0], (struct sockaddr *)&sun, sizeof sun, arg);
	return fuzz_sink_new(base, sv[1]);
}
