/*
 * trace.h: a daemon's event trace (--trace file): one TSV line per event,
 * "SECS<TAB>EVENT<TAB>fields...", SECS on the monotonic clock, appended
 * and flushed line by line so that a process killed with SIGKILL leaves
 * every event it wrote whole.  Off (NULL) unless asked for; the pushes a
 * server applies and a worker saw acknowledged, for tests/chaos/check-trace.
 */
#ifndef PS_TRACE_H
#define PS_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct ps_trace;

/* Open path for appending; NULL with the reason in err. */
struct ps_trace *ps_trace_open(const char *path, char *err, size_t errlen);
/* One event; keys (n of them, may be 0) end the line, comma-separated. */
void	ps_trace_event(struct ps_trace *tr, const uint64_t *keys, size_t n,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void	ps_trace_close(struct ps_trace *tr);

#endif
