/*
 * auth.h: the shared secret and the pieces of the connection handshake
 * (conn_auth.c runs it; pskit(7), Security, gives it byte by byte).
 *
 * Every pskit process of a job off loopback reads the same secret file.
 * Each connection proves both ends know it without sending it: the
 * accepting side sends a random nonce Ns, the connecting side answers with
 * its nonce Nc and HMAC-SHA256(secret, "pskit-auth-1 client" Ns Nc), and
 * the acceptor answers HMAC-SHA256(secret, "pskit-auth-1 server" Nc Ns).
 * The labels keep one side's answer from serving as the other's.
 */
#ifndef PS_AUTH_H
#define PS_AUTH_H

#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

#include "util/sha256.h"

#define PS_AUTH_NONCE_LEN	32
#define PS_AUTH_MAC_LEN		PS_SHA256_LEN
#define PS_AUTH_TIMEOUT		5	/* seconds for all of the handshake */
#define PS_SECRET_MIN		16	/* bytes */
#define PS_SECRET_MAX		1024

/* Which end of the connection: who sends the challenge. */
enum ps_auth_role {
	PS_AUTH_ACCEPTOR = 1,		/* accepted the socket: challenges */
	PS_AUTH_CONNECTOR		/* connected: answers */
};

/*
 * A secret: the bytes of the file, one trailing newline (LF or CRLF)
 * left out.  Owned by whoever holds the struct; ps_secret_release() wipes
 * it.  Connections only borrow it (conn.h).
 */
struct ps_secret {
	uint8_t		bytes[PS_SECRET_MAX];
	size_t		len;
};

/*
 * Read the secret in path into *s.  Refused, with the reason in err: a
 * file that cannot be opened or read ("cannot read secret 'path': ..."),
 * that is not a regular file, that group or others may access in any way
 * (its mode is named, as ssh does), or whose secret is shorter than
 * PS_SECRET_MIN or longer than PS_SECRET_MAX bytes.  0 or -1.
 */
int	ps_secret_load(const char *path, struct ps_secret *s, char *err,
	    size_t errlen);
/*
 * Make a new secret in path: 32 random bytes as 64 hex digits and a
 * newline, in a file created with mode 0600 (an existing path is refused,
 * never replaced).  0, or -1 with the reason in err.
 */
int	ps_secret_make(const char *path, char *err, size_t errlen);
/* Wipe the secret. */
void	ps_secret_release(struct ps_secret *s);

/*
 * Whether a listener on sa must authenticate its peers: any address but
 * 127.0.0.1 and ::1 is reachable by others on the host or the network.
 */
int	ps_auth_required(const struct sockaddr *sa);

/* Fill nonce with getrandom(2) bytes; 0, or -1 with errno set. */
int	ps_auth_nonce(uint8_t nonce[PS_AUTH_NONCE_LEN]);
/*
 * The MAC that the side in role sends: the connector's over Ns then Nc,
 * the acceptor's over Nc then Ns, each after its label.
 */
void	ps_auth_mac(const struct ps_secret *s, enum ps_auth_role role,
	    const uint8_t ns[PS_AUTH_NONCE_LEN],
	    const uint8_t nc[PS_AUTH_NONCE_LEN], uint8_t mac[PS_AUTH_MAC_LEN]);
/* 1 when the n bytes at a and b are equal, in time independent of them. */
int	ps_auth_equal(const uint8_t *a, const uint8_t *b, size_t n);

#endif
