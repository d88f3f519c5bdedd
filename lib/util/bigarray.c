/*
 * bigarray.c: arrays of anonymous pages that grow in place or move whole
 * (bigarray.h).  Without mremap (not Linux), a move is a copy.
 */
#include "config.h"

#include <sys/mman.h>

#include <stdint.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "util/bigarray.h"
#include "util/log.h"

/* Bytes of n entries of size bytes, rounded up to whole pages. */
static size_t
bigarray_bytes(size_t n, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes;

	if (size != 0 && n > (SIZE_MAX - page) / size)
		fatalx(EX_SOFTWARE, "array of %zu x %zu bytes overflows", n,
		    size);
	bytes = n * size;
	return bytes == 0 ? page : (bytes + page - 1) / page * page;
}

static void *
bigarray_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fatal(EX_SOFTWARE, "mmap %zu bytes", bytes);
	return p;
}

void *
ps_bigarray_resize(void *p, size_t oldn, size_t newn, size_t size)
{
	size_t ob = bigarray_bytes(oldn, size), nb = bigarray_bytes(newn, size);
	void *q;

	if (p == NULL)
		return bigarray_map(nb);
	if (nb == ob)
		return p;
#ifdef HAVE_MREMAP
	q = mremap(p, ob, nb, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		fatal(EX_SOFTWARE, "mremap %zu to %zu bytes", ob, nb);
#else
	q = bigarray_map(nb);
	memcpy(q, p, ob < nb ? ob : nb);
	(void)munmap(p, ob);
#endif
	return q;
}

void
ps_bigarray_free(void *p, size_t n, size_t size)
{
	if (p != NULL)
		(void)munmap(p, bigarray_bytes(n, size));
}
