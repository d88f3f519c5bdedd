/*
 * sockname.h: a socket address as text, for logs and peer names.
 */
#ifndef PS_SOCKNAME_H
#define PS_SOCKNAME_H

#include <sys/socket.h>

#include <stddef.h>

/* "addr:port", "[addr]:port" for IPv6, or "local peer" for the rest. */
void	ps_sockaddr_name(const struct sockaddr *sa, char *buf, size_t len);

#endif
