/*
 * log.h: diagnostics for pskit programs, in the OpenBSD daemon style.
 *
 * Messages go to stderr prefixed by the program name.  log_init() is called
 * once from main(); its settings are read-only afterwards.  The *_warn
 * variants append strerror(errno); fatal/fatalx exit with the given status.
 */
#ifndef PS_LOG_H
#define PS_LOG_H

#include <stdarg.h>
#include <stdnoreturn.h>

#define PS_LOG_WARN	0
#define PS_LOG_INFO	1
#define PS_LOG_DEBUG	2

/* Set the name printed before each message and the verbosity (0 = warnings). */
void	log_init(const char *procname, int verbosity);
/* Current verbosity, so callers can skip building expensive messages. */
int	log_verbosity(void);
/* Route libevent's own messages through this log. */
void	log_route_libevent(void);

void	log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void fatal(int status, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
noreturn void fatalx(int status, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
