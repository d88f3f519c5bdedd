/*
 * trace.c: a daemon's event trace (trace.h).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/errbuf.h"
#include "util/trace.h"
#include "util/xmalloc.h"

struct ps_trace {
	FILE	*fp;
};

struct ps_trace *
ps_trace_open(const char *path, char *err, size_t errlen)
{
	struct ps_trace *tr;
	FILE *fp = fopen(path, "a");

	if (fp == NULL) {
		ps_errbuf(err, errlen, -1, "cannot open trace '%s': %s", path,
		    strerror(errno));
		return NULL;
	}
	tr = xcalloc(1, sizeof *tr);
	tr->fp = fp;
	return tr;
}

void
ps_trace_event(struct ps_trace *tr, const uint64_t *keys, size_t n,
    const char *fmt, ...)
{
	va_list ap;
	size_t k;

	if (tr == NULL)
		return;
	fprintf(tr->fp, "%.6f\t", ps_clock_now());
	va_start(ap, fmt);
	vfprintf(tr->fp, fmt, ap);
	va_end(ap);
	for (k = 0; k < n; k++)
		fprintf(tr->fp, "%s%llu", k == 0 ? "\t" : ",",
		    (unsigned long long)keys[k]);
	fputc('\n', tr->fp);
	fflush(tr->fp);
}

void
ps_trace_close(struct ps_trace *tr)
{
	if (tr == NULL)
		return;
	fclose(tr->fp);
	free(tr);
}
