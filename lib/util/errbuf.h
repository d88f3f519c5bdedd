/*
 * errbuf.h: the error convention of lib/'s file readers and writers: a
 * message formatted into the caller's buffer, and a return code.
 */
#ifndef PS_ERRBUF_H
#define PS_ERRBUF_H

#include <stddef.h>

#include <stdarg.h>

/* Format fmt into err (errlen bytes, always terminated); return code. */
int	ps_errbuf(char *err, size_t errlen, int code, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));
/* The same for a line of a file: "name:line: " and then fmt. */
int	ps_errbuf_vline(char *err, size_t errlen, int code, const char *name,
	    unsigned long line, const char *fmt, va_list ap)
	    __attribute__((format(printf, 6, 0)));

#endif
