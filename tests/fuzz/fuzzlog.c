/*
 * fuzzlog.c: lib/util/log.c for the worker harness (fuzz_worker.c), linked in
 * its place.  ps-worker ends on every error with fatal() or fatalx(),
 * which exit; a harness cannot exit for each input, so while
 * fuzz_fatal_armed is set these jump back to fuzz_fatal_jmp instead.
 * Messages are dropped unless PSKIT_FUZZ_LOG is set in the environment.
 *
 * The jump is safe only where no libevent callback is on the stack: the
 * harness calls the worker's code outside the event loop.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "util/log.h"

jmp_buf	fuzz_fatal_jmp;
int	fuzz_fatal_armed;

/* Print one message when asked to. */
static void
fuzzlog_print(const char *fmt, va_list ap)
{
	if (getenv("PSKIT_FUZZ_LOG") == NULL)
		return;
	fputs("ps-worker: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* The end of a fatal(): back to the harness, or exit. */
static noreturn void
fuzzlog_end(int status)
{
	if (fuzz_fatal_armed) {
		fuzz_fatal_armed = 0;
		longjmp(fuzz_fatal_jmp, 1);
	}
	exit(status);
}

void
log_init(const char *procname, int verbosity)
{
}

int
log_verbosity(void)
{
	return PS_LOG_WARN;
}

void
log_route_libevent(void)
{
}

#define FUZZLOG(fmt) do {						\
		va_list ap;						\
									\
		va_start(ap, fmt);					\
		fuzzlog_print(fmt, ap);					\
		va_end(ap);						\
	} while (0)

void
log_warn(const char *fmt, ...)
{
	FUZZLOG(fmt);
}

void
log_warnx(const char *fmt, ...)
{
	FUZZLOG(fmt);
}

void
log_info(const char *fmt, ...)
{
}

void
log_debug(const char *fmt, ...)
{
}

void
fatal(int status, const char *fmt, ...)
{
	FUZZLOG(fmt);
	fuzzlog_end(status);
}

void
fatalx(int status, const char *fmt, ...)
{
	FUZZLOG(fmt);
	fuzzlog_end(status);
}
