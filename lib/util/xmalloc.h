/*
 * xmalloc.h: allocators for internal state that exit(70) on exhaustion.
 *
 * Use them for memory whose size the program controls.  Parsers of untrusted
 * input check sizes first and report errors instead of relying on these.
 * Whoever receives the pointer frees it with free(3).
 */
#ifndef PS_XMALLOC_H
#define PS_XMALLOC_H

#include <stddef.h>

void	*xmalloc(size_t size);
void	*xcalloc(size_t nmemb, size_t size);
void	*xreallocarray(void *ptr, size_t nmemb, size_t size);
/*
 * xreallocarray for an array that grows as it fills, whose first used
 * bytes matter: a large one moves to a new xmalloc block (huge pages, see
 * xmalloc.c), copying them, where realloc would keep a block that gets
 * only some; the rest is not set.
 */
void	*xgrow(void *ptr, size_t used, size_t nmemb, size_t size);
/*
 * How many entries of size bytes to ask xmalloc for when about nmemb are
 * wanted and the array is filled once: nmemb rounded up to whole huge
 * pages when they take a quarter of one or more (the rounding costs
 * nothing a large block did not get anyway, and saves a fault a 4 KiB
 * page), else nmemb.
 */
size_t	 xhuge_room(size_t nmemb, size_t size);
char	*xstrdup(const char *s);
/* asprintf that cannot fail. */
char	*xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
