/*
 * auth_sock.h: the connector's side of the handshake (auth.h, pskit(7)
 * Security) on a plain blocking socket, for the command-line clients that
 * run no event loop: ps-ring's commands that ask a coordinator, and the
 * test tool.  Programs on a libevent loop use ps_conn_set_auth() instead.
 */
#ifndef PS_AUTH_SOCK_H
#define PS_AUTH_SOCK_H

#include <stddef.h>

#include "wire/auth.h"

/*
 * Answer the acceptor's challenge on the connected socket fd with secret
 * and check its proof, all within timeout_s seconds; nothing else may be
 * sent on fd before.  Return 0, or -1 with the reason in err, worded as a
 * ps_conn's: "authentication failed: refused by the peer: wrong secret",
 * "authentication failed: no challenge within 5 s (does the peer have a
 * secret?)", ...  The socket may then carry frames or text lines.
 */
int	ps_auth_sock_connect(int fd, const struct ps_secret *secret,
	    int timeout_s, char *err, size_t errlen);

#endif
