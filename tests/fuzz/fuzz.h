/*
 * fuzz.h: what the fuzz harnesses of tests/fuzz share.
 *
 * Each harness (fuzz_*.c) defines LLVMFuzzerTestOneInput() for one reader
 * of untrusted bytes.  tests/fuzz/run links it with libFuzzer; replay.c
 * gives it a main() that feeds it files, for make check.  A harness
 * returns normally for any input its reader rejects or accepts correctly,
 * and calls fuzz_fail() (through FUZZ_CHECK) when an invariant breaks, so
 * that both libFuzzer and the replay report the input.
 *
 * The file formats carry CRC-32C checksums that random mutations almost
 * never keep right.  So every harness reads each input twice: as it is,
 * which tries the checksum checks, and with its checksums recomputed
 * (fuzz_put_crc), which lets mutations reach the parsing behind them.
 */
#ifndef PS_FUZZ_H
#define PS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Report a broken invariant (file, line, the condition) and abort. */
void	fuzz_fail(const char *file, int line, const char *what)
	    __attribute__((noreturn));
#define FUZZ_CHECK(cond) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))

/*
 * A file in memory holding the size bytes at data, for readers that take
 * a path: returns its descriptor (the caller closes it) and writes its
 * name, "/proc/self/fd/N", into path.  Aborts if it cannot be made.
 */
int	fuzz_memfile(const uint8_t *data, size_t size, char *path,
	    size_t pathlen);
/*
 * Give run the size bytes at data, then a copy of them that fix changed
 * (its checksums recomputed), if fix changed anything.
 */
void	fuzz_twice(const uint8_t *data, size_t size,
	    void (*run)(const uint8_t *, size_t),
	    void (*fix)(uint8_t *, size_t));
/* Little-endian loads (configure insists on a little-endian host). */
uint32_t fuzz_ld32(const uint8_t *p);
uint64_t fuzz_ld64(const uint8_t *p);
/*
 * Store at dst, little-endian, the CRC-32C of the n bytes at p, n cut to
 * what is left before end; nothing when dst + 4 is past end.
 */
void	fuzz_put_crc(uint8_t *dst, const uint8_t *p, uint64_t n,
	    const uint8_t *end);
/*
 * Recompute the payload and header checksums of the frames (wire.h) that
 * the size bytes at p hold one after the other, as far as they go.
 */
void	fuzz_fix_frames(uint8_t *p, size_t size);
/* Whether s starts with prefix. */
int	fuzz_starts(const char *s, const char *prefix);

/*
 * The daemon harnesses (fuzz_server.c, fuzz_worker.c, fuzz_ring.c) and
 * fuzz_conn.c: their input is a selector byte (which opening the harness
 * puts first) and a stream of frames or text lines, fed to the daemon's
 * real connection code on a socketpair.
 */
#include <event2/listener.h>

struct evbuffer;
struct ps_msg;

/* The first time (*base NULL): ignore SIGPIPE, make *base. */
void	fuzz_daemon_base(struct event_base **base);
/* fuzz_fix_frames on all but the first byte (the selector). */
void	fuzz_fix_after_first(uint8_t *p, size_t size);
/* A connected AF_UNIX stream pair; aborts if it cannot be made. */
void	fuzz_socketpair(int sv[2]);
/* Write as much of data as fd takes at once, then shut down writing. */
void	fuzz_feed(int fd, const uint8_t *data, size_t size);
/* fuzz_feed of prefix's bytes and then data's; prefix is left empty. */
void	fuzz_feed_after(int fd, struct evbuffer *prefix, const uint8_t *data,
	    size_t size);
/* Append m as one frame to out (no LZ4); aborts if it cannot be. */
void	fuzz_put_msg(struct evbuffer *out, const struct ps_msg *m);
/*
 * Read and drop whatever arrives on fd while base runs, so that a daemon
 * writing to it never waits; fuzz_sinks_free closes the n sinks' fds and
 * frees their events.
 */
struct event *fuzz_sink_new(struct event_base *base, int fd);
void	fuzz_sinks_free(struct event **ev, int n);
/*
 * Make a socketpair, write prefix's bytes (emptied) and then data's to one
 * end and give the other to accept as if a listener had accepted it (an
 * AF_UNIX address, no listener); return the sink of the first end.
 */
struct event *fuzz_accept(struct event_base *base, evconnlistener_cb accept,
	    void *arg, struct evbuffer *prefix, const uint8_t *data,
	    size_t size);

/*
 * fuzzlog.c, which the worker harness links in place of lib/util/log.c: while
 * fuzz_fatal_armed, fatal() and fatalx() disarm it and longjmp to
 * fuzz_fatal_jmp instead of exiting.
 */
#include <setjmp.h>
extern jmp_buf	fuzz_fatal_jmp;
extern int	fuzz_fatal_armed;

#endif
