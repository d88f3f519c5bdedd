/*
 * xmalloc.c: allocation helpers that treat exhaustion as fatal (EX_SOFTWARE).
 *
 * They ask for no huge pages (MADV_HUGEPAGE): on the 2-core VM of
 * 2026-11-30, which hands free memory back to its host, a process's first
 * touch of such memory ran at about 0.5 GB/s in 2 MiB pages against 3
 * GB/s in 4 KiB ones, and a job's processes mostly start on it (an
 * earlier VM measured the reverse; tests/bench/README, twenty-ninth
 * session, and ab.sh -c to check again).
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "util/log.h"
#include "util/xmalloc.h"

void *
xmalloc(size_t size)
{
	void *p = malloc(size == 0 ? 1 : size);

	if (p == NULL)
		fatal(EX_SOFTWARE, "malloc %zu bytes", size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb == 0 ? 1 : nmemb, size == 0 ? 1 : size);

	if (p == NULL)
		fatal(EX_SOFTWARE, "calloc %zu x %zu bytes", nmemb, size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void *p;

	if (size != 0 && nmemb > SIZE_MAX / size)
		fatalx(EX_SOFTWARE, "reallocarray %zu x %zu overflows", nmemb,
		    size);
	p = realloc(ptr, nmemb * size == 0 ? 1 : nmemb * size);
	if (p == NULL)
		fatal(EX_SOFTWARE, "realloc %zu x %zu bytes", nmemb, size);
	return p;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap, ap2;
	char *s;
	int n;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx(EX_SOFTWARE, "xasprintf: bad format");
	s = xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return s;
}
