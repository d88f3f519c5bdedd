/*
 * errbuf.c: format an error message into a caller's buffer (errbuf.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/errbuf.h"

int
ps_errbuf(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

int
ps_errbuf_vline(char *err, size_t errlen, int code, const char *name,
    unsigned long line, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof msg, fmt, ap);
	snprintf(err, errlen, "%s:%lu: %s", name, line, msg);
	return code;
}
