/*
 * log.c: stderr logging with verbosity levels, shared by every program.
 *
 * The two settings below are written once by log_init() from main() before
 * any other code runs, and only read afterwards.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "util/log.h"

static const char *log_procname = "pskit";
static int log_level = PS_LOG_WARN;

void
log_init(const char *procname, int verbosity)
{
	log_procname = procname;
	log_level = verbosity;
}

int
log_verbosity(void)
{
	return log_level;
}

/* Print one line: "procname: message[: strerror]". */
static void
log_vprint(const char *fmt, va_list ap, int errnum)
{
	char msg[1024];

	vsnprintf(msg, sizeof msg, fmt, ap);
	if (errnum != 0)
		fprintf(stderr, "%s: %s: %s\n", log_procname, msg,
		    strerror(errnum));
	else
		fprintf(stderr, "%s: %s\n", log_procname, msg);
	fflush(stderr);
}

void
log_warn(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vprint(fmt, ap, saved);
	va_end(ap);
	errno = saved;
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(fmt, ap, 0);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	if (log_level < PS_LOG_INFO)
		return;
	va_start(ap, fmt);
	log_vprint(fmt, ap, 0);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (log_level < PS_LOG_DEBUG)
		return;
	va_start(ap, fmt);
	log_vprint(fmt, ap, 0);
	va_end(ap);
}

void
fatal(int status, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vprint(fmt, ap, saved);
	va_end(ap);
	exit(status);
}

void
fatalx(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(fmt, ap, 0);
	va_end(ap);
	exit(status);
}

/* libevent callback: map its severities onto ours. */
static void
log_libevent_cb(int severity, const char *msg)
{
	if (severity >= EVENT_LOG_WARN)
		log_warnx("libevent: %s", msg);
	else
		log_debug("libevent: %s", msg);
}

void
log_route_libevent(void)
{
	event_set_log_callback(log_libevent_cb);
}
