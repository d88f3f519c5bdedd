/*
 * xmalloc.c: allocation helpers that treat exhaustion as fatal (EX_SOFTWARE),
 * and that ask for huge pages under large arrays.
 */
#include "config.h"

#include <sys/mman.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "util/log.h"
#include "util/xmalloc.h"

/*
 * A large block asks the kernel for transparent huge pages.  A fresh 4 KiB
 * page costs a fault at its first touch, and faults are dear on virtual
 * machines: on the 2-vCPU development VM a first pass over fresh memory
 * runs at 0.27 GB/s in 4 KiB pages and at 9.7 GB/s in 2 MiB ones, and a
 * shard, a worker's blocks or a server's key table are filled once.  The
 * advice covers every page the block touches, so that a block malloc got
 * from mmap stays one mapping that realloc can still move with mremap (the
 * kernel puts huge pages on its 2 MiB-aligned stretches).  It is only
 * advice: a kernel without THP, or with it off, refuses and nothing
 * changes, so its result is not checked.
 */
#define PAGE_MASK	((uintptr_t)4095)
#define HUGE_MIN	((size_t)2 << 20)

/*
 * xmalloc's large blocks, which the caller fills (it gets no zeros), are
 * also aligned to 2 MiB and a whole number of 2 MiB long: the kernel puts
 * huge pages only on whole aligned stretches, and a block merely
 * page-aligned lost one at each end (a worker's 5 MiB block arrays of a
 * 1M-row shard took 8,000 faults of 4 KiB where they now take some 30 of 2
 * MiB; about 12 us a fault of 4 KiB on the VM against 2.3 ms a 2 MiB one).
 * The pages past the block's end are only reserved, not touched, unless
 * the last huge page covers them.
 */
static void *
huge_block(size_t size)
{
	size_t len = (size + HUGE_MIN - 1) & ~(HUGE_MIN - 1);
	void *p;

	if (len < size)
		return NULL;		/* size near SIZE_MAX */
	p = aligned_alloc(HUGE_MIN, len);
#ifdef MADV_HUGEPAGE
	if (p != NULL)
		(void)madvise(p, len, MADV_HUGEPAGE);
#endif
	return p;
}

static void *
huge_advice(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
	uintptr_t lo = (uintptr_t)p & ~PAGE_MASK;
	uintptr_t hi = ((uintptr_t)p + size + PAGE_MASK) & ~PAGE_MASK;

	if (size >= HUGE_MIN)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
	return p;
}

void *
xmalloc(size_t size)
{
	void *p;

	if (size >= HUGE_MIN)
		p = huge_block(size);
	else
		p = malloc(size == 0 ? 1 : size);
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
	return huge_advice(p, nmemb * size);
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
	return huge_advice(p, nmemb * size);
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

void *
xgrow(void *ptr, size_t used, size_t nmemb, size_t size)
{
	void *p;

	if (size != 0 && nmemb > SIZE_MAX / size)
		fatalx(EX_SOFTWARE, "grow %zu x %zu overflows", nmemb, size);
	if (nmemb * size < HUGE_MIN)
		return xreallocarray(ptr, nmemb, size);
	p = xmalloc(nmemb * size);
	if (used > 0)
		memcpy(p, ptr, used);
	free(ptr);
	return p;
}

size_t
xhuge_room(size_t nmemb, size_t size)
{
	size_t bytes;

	if (size == 0 || nmemb > (SIZE_MAX - HUGE_MIN) / size)
		return nmemb;
	bytes = nmemb * size;
	if (bytes < HUGE_MIN / 4)
		return nmemb;
	return (bytes + HUGE_MIN - 1) / HUGE_MIN * HUGE_MIN / size;
}
