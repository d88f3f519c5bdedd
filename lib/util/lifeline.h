/*
 * lifeline.h: a daemon's tie to the launcher that started it (ps-train,
 * ps-retrain, a remote shell).  The launcher holds the write end of a
 * pipe on the daemon's standard input and never writes; when the launcher
 * dies, however suddenly (SIGKILL, the OOM killer, a dropped ssh session),
 * the pipe's end of file tells the daemon within one turn of its event
 * loop.  Where Linux offers it, the daemon also asks for SIGTERM when its
 * parent dies (PR_SET_PDEATHSIG), which works without the pipe when the
 * launcher is the parent.
 *
 * The other way, a daemon tells its launcher it is ready (s6's
 * notification-fd): the launcher gives it a descriptor, the write end of a
 * FIFO that it reads, and the daemon writes its "listening ADDR" line
 * there once it listens, then closes it.  The launcher's read returns at
 * once, without polling, or at end of file when the daemon died first.
 */
#ifndef PSKIT_LIFELINE_H
#define PSKIT_LIFELINE_H

#include <stddef.h>

struct event_base;
struct ps_lifeline;

/* Called once, from the event loop, when the launcher is gone. */
typedef void ps_lifeline_cb(void *arg);

/*
 * Watch fd (standard input) on base: bytes that come are read and
 * ignored; end of file or a read error calls cb(arg).  Asks for SIGTERM on
 * the parent's death too.  Returns the watch, for ps_lifeline_free(), or
 * NULL with a message in err: fd cannot be watched (a regular file or
 * /dev/null is not a pipe) or the launcher was gone already.
 */
struct ps_lifeline *ps_lifeline_watch(struct event_base *base, int fd,
		    ps_lifeline_cb *cb, void *arg, char *err, size_t errlen);
/* Stop watching and free; NULL is ignored. */
void		 ps_lifeline_free(struct ps_lifeline *ll);
/*
 * Whether fd may take the readiness note: an open descriptor above
 * standard error.  0, or -1 with a message in err.
 */
int		 ps_ready_check(int fd, char *err, size_t errlen);
/* Write line to fd whole, then close fd.  0, or -1 with errno set. */
int		 ps_ready_note(int fd, const char *line);

#endif
