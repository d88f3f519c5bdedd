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
char	*xstrdup(const char *s);
/* asprintf that cannot fail. */
char	*xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
