/*
 * conn.h: framed pskit connections on libevent bufferevents.
 *
 * A struct ps_conn owns one TCP socket and its bufferevent.  Incoming
 * frames are checked and decoded (wire.h) and handed to the owner's
 * message callback; outgoing messages are encoded straight into the output
 * buffer.  A connection made with a text callback (a server's accepted
 * connection) also speaks a line protocol: when the first bytes are not the
 * frame magic, every line (CRLF or LF, at most PS_CONN_LINE_MAX bytes, no
 * control characters) goes to the text callback instead.
 *
 * Life cycle: the owner creates a conn with ps_conn_new() or
 * ps_conn_connect() and frees it with ps_conn_free().  On EOF, a socket
 * error, a malformed frame or after ps_conn_close_after_flush() has
 * flushed, the conn stops reading and writing and calls the close callback,
 * which must call ps_conn_free() (possibly after looking at the conn).  The
 * conn never logs; the reason goes to the close callback.  Calling
 * ps_conn_free() from inside any of the callbacks is safe.
 *
 * Back-pressure: the conn never buffers more input than one maximal frame
 * (PS_FRAME_MAX_PAYLOAD, or less after ps_conn_set_max_frame()).
 * An accepted conn (ps_conn_new) whose output exceeds PS_CONN_OUT_HIGH
 * stops reading until the output drains below PS_CONN_OUT_LOW, so a peer
 * that does not read cannot make the server queue without bound.  A conn
 * from ps_conn_connect() always keeps reading, so two peers that both
 * stopped reading cannot deadlock.
 *
 * Authentication (conn_auth.c): after ps_conn_set_auth() the conn first
 * runs the HMAC handshake of auth.h with the peer.  Until this side is
 * done it hands nothing to the message or text callbacks, and whatever
 * the owner sends is held and written once it is done, so the owner may
 * send at once (a worker's HELLO) and never needs to wait.  A handshake
 * that fails or is not done within PS_AUTH_TIMEOUT seconds closes the conn
 * with a reason such as "authentication failed: wrong secret"; so does an
 * AUTH frame on a conn without a secret.
 */
#ifndef PS_CONN_H
#define PS_CONN_H

#include <sys/socket.h>

#include <stdint.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "wire/auth.h"
#include "wire/keycache.h"
#include "wire/wire.h"

#define PS_CONN_LINE_MAX	1024
#define PS_CONN_FRAME_MIN	4096	/* lowest ps_conn_set_max_frame() */
#define PS_CONN_OUT_HIGH	(64u << 20)
#define PS_CONN_OUT_LOW		(16u << 20)

struct ps_conn;

/*
 * Traffic counted by a conn: whole frames and text lines, what the wire
 * filters did to the frames each way, and the key cache's work.
 */
struct ps_conn_stats {
	uint64_t	bytes_in, bytes_out;
	uint64_t	msgs_in, msgs_out;
	struct ps_wire_sizes in, out;
	uint64_t	keysig_out;	/* messages sent by key signature */
	uint64_t	keysig_hits;	/* signatures received and resolved */
	uint64_t	keysig_misses;	/* received, unknown: KEYS_MISSING sent */
};

/* A decoded message; the callback owns m and must ps_msg_release() it. */
typedef void ps_conn_msg_cb(struct ps_conn *c, struct ps_msg *m, void *arg);
/* One text line without its end of line; valid during the call only. */
typedef void ps_conn_text_cb(struct ps_conn *c, const char *line, void *arg);
/* The conn is finished (reason says why); the callback must free it. */
typedef void ps_conn_close_cb(struct ps_conn *c, const char *reason,
    void *arg);

/*
 * Wrap the connected socket fd (which the conn then owns and closes) and
 * start reading.  peer names the other end in reasons and logs.  text_cb
 * NULL means binary frames only.  Never fails (exits on OOM).
 */
struct ps_conn	*ps_conn_new(struct event_base *base, evutil_socket_t fd,
		    const char *peer, ps_conn_msg_cb *msg_cb,
		    ps_conn_text_cb *text_cb, ps_conn_close_cb *close_cb,
		    void *arg);

/*
 * Connect to hostport ("127.0.0.1:7000", "[::1]:7000", "localhost:7000");
 * return a binary-only conn, or NULL with e.g. "cannot connect to
 * '127.0.0.1:7000': Connection refused" in err and errno set (ECONNREFUSED
 * there: nothing listens; EINVAL: a bad hostport).  It blocks 0.1 s at
 * most: a connect still in progress then (a host cut off, or dropping
 * packets) goes on in the loop, what is sent meanwhile waits, and if it
 * fails or is not done within timeout_s seconds the close callback gets
 * "cannot connect to '...': ...".
 */
struct ps_conn	*ps_conn_connect(struct event_base *base, const char *hostport,
		    double timeout_s, ps_conn_msg_cb *msg_cb,
		    ps_conn_close_cb *close_cb, void *arg, char *err,
		    size_t errlen);

/* Queue m as one frame; return its size, or -1 (closing, or unencodable). */
int		 ps_conn_send(struct ps_conn *c, const struct ps_msg *m);
/* Queue text as is (the caller supplies line ends); 0 or -1 if closing. */
int		 ps_conn_send_text(struct ps_conn *c, const char *text);
/*
 * Stop reading, flush the output, then call the close callback (also if
 * the peer has not taken the output within 10 seconds).
 */
void		 ps_conn_close_after_flush(struct ps_conn *c);
/* Close the socket and free the conn; NULL is fine. */
void		 ps_conn_free(struct ps_conn *c);

/* The peer name given at creation; owned by the conn. */
const char	*ps_conn_peer(const struct ps_conn *c);
/* LZ4-compress outgoing payloads when that makes them smaller (default off). */
void		 ps_conn_set_lz4(struct ps_conn *c, int on);
/*
 * Key caching (keycache.h).  Sending (default off): a key list of at
 * least PS_KEYCACHE_MIN_KEYS keys goes once with KEYCACHE and then as its
 * signature, assuming the peer keeps max_keys keys.  Receiving (default
 * PS_KEYCACHE_DEFAULT keys; 0 keeps none): lists sent with KEYCACHE are
 * kept and signatures resolved before the message callback.  A signature
 * the conn cannot resolve is answered with KEYS_MISSING, and the message
 * is still handed over with KEYSIG set and keys NULL so that the owner
 * knows it must wait for the resend; it must not act on it otherwise.  A
 * KEYS_MISSING received makes the conn forget that signature before it is
 * handed over; the owner then sends the message again.
 */
void		 ps_conn_set_keycache_send(struct ps_conn *c, size_t max_keys);
void		 ps_conn_set_keycache_recv(struct ps_conn *c, size_t max_keys);
/*
 * Read frames of at most max_payload payload bytes (default and at most
 * PS_FRAME_MAX_PAYLOAD; at least PS_CONN_FRAME_MIN, so that a text line
 * still fits): a header announcing more closes the conn as a protocol
 * error, "frame too large (N bytes, limit M)", before its payload is
 * read.  Values outside the range are taken as its nearer end.
 */
void		 ps_conn_set_max_frame(struct ps_conn *c, size_t max_payload);
/*
 * Run the handshake on this conn, as the side in role, proving knowledge
 * of secret, which the conn borrows: it must stay valid until the
 * handshake is done or the conn freed.  Call it once, right after
 * ps_conn_new() or ps_conn_connect(), before the loop runs again.  An
 * acceptor sends its challenge at once.  0, or -1 with the reason in err
 * (no random bytes, out of memory); the caller then frees the conn.
 */
int		 ps_conn_set_auth(struct ps_conn *c,
		    const struct ps_secret *secret, enum ps_auth_role role,
		    char *err, size_t errlen);
/* True once this side's handshake has completed. */
int		 ps_conn_is_authenticated(const struct ps_conn *c);
/* True when the conn closed because the handshake failed or timed out. */
int		 ps_conn_is_auth_error(const struct ps_conn *c);
/*
 * True when it failed on its merits, so that another try would fail the
 * same way: a wrong secret (either side's), a peer that asks for a secret
 * this side was not given, or one that does not run the handshake.  Not
 * for a peer that was silent for PS_AUTH_TIMEOUT or went away, which may
 * be a peer without a secret but also a hung or restarting one.
 */
int		 ps_conn_is_auth_refused(const struct ps_conn *c);
/*
 * Fail the conn, as a reset would, when data it sent stays unacknowledged
 * for ms milliseconds (TCP_USER_TIMEOUT): a peer cut off silently, with no
 * RST or FIN, is then noticed as long as something is being sent.  0, or
 * -1 with errno (ENOTSUP where the system has no such option).
 */
/*
 * Close the conn, as a protocol error would ("idle: ..."), when no whole
 * message (frame or text line, the handshake's frames not counted) comes
 * in for ms milliseconds from now, and again after each one that does: a
 * peer that connects and sends nothing, or half a frame, or only the
 * handshake, does not keep its slot.  0 turns the limit off, as when the
 * peer has proved what it is (a HELLO taken).
 */
void		 ps_conn_set_idle_limit(struct ps_conn *c, unsigned int ms);
/* True while an idle limit is set on the conn (ps_conn_set_idle_limit). */
int		 ps_conn_has_idle_limit(const struct ps_conn *c);
/* True once the idle limit has closed the conn. */
int		 ps_conn_idled_out(const struct ps_conn *c);
/*
 * True when the conn closed because the peer closed or reset it (end of
 * file, ECONNRESET, EPIPE): its process went away or closed on purpose;
 * not after a timeout, a protocol error or a close of this side.
 */
int		 ps_conn_peer_closed(const struct ps_conn *c);
int		 ps_conn_set_unacked_timeout(struct ps_conn *c,
		    unsigned int ms);
/*
 * A cap on what a set of conns hold between them (a server's peers): the
 * bytes read and not yet handled (unfinished frames) plus 8 a key of the
 * lists they cached.  Each read counts its conn again; while the sum is
 * over max_bytes the conn holding most is closed as a protocol error,
 * "memory limit: connections hold N bytes ... (limit M), this one K", and
 * when it is freed, memory it held (1 MiB or more) goes back to the
 * system (a little later, on base's loop).  A conn joins with
 * ps_conn_set_pool() and leaves when it fails or is freed; free the pool
 * after its conns.
 */
struct ps_conn_pool;
struct ps_conn_pool *ps_conn_pool_new(struct event_base *base,
		    size_t max_bytes);
void		 ps_conn_pool_free(struct ps_conn_pool *pool);
void		 ps_conn_set_pool(struct ps_conn *c, struct ps_conn_pool *pool);
/* Bytes its conns hold now; conns it closed so far. */
size_t		 ps_conn_pool_held(const struct ps_conn_pool *pool);
size_t		 ps_conn_pool_evicted(const struct ps_conn_pool *pool);

/* Counters so far; the pointer stays valid until ps_conn_free(). */
const struct ps_conn_stats *ps_conn_stats(const struct ps_conn *c);
/* Bytes queued for sending and not yet written to the socket. */
size_t		 ps_conn_pending(const struct ps_conn *c);
/* True when the conn closed because the peer broke the protocol. */
int		 ps_conn_is_protocol_error(const struct ps_conn *c);

/*
 * Parse "host:port" or "[v6addr]:port" (an empty host or "*" is the IPv4
 * wildcard) into *ss and *len.  Host names are resolved.  0, or -1 with
 * the reason in err.
 */
int		 ps_hostport_parse(const char *s, struct sockaddr_storage *ss,
		    socklen_t *len, char *err, size_t errlen);
/*
 * Check only the form of s as ps_hostport_parse() takes it (a port of
 * 0-65535), resolving nothing, so that a tool can call a malformed
 * address a usage error (64) before any work.  0, or -1 with "bad
 * address 'x': expected ..." in err.
 */
int		 ps_hostport_check(const char *s, char *err, size_t errlen);

/*
 * The secret of a daemon that will listen on hostport: with path, read it
 * into *s and set *have; without, make sure hostport is 127.0.0.1 or [::1]
 * (a host that does not resolve is left to ps_listen() to report).
 * Return 0, or an exit status with the reason in err: EX_USAGE for a
 * malformed hostport (ps_hostport_check), EX_NOINPUT for a secret file
 * ps_secret_load() refuses, EX_USAGE for "listening on 'x' needs a secret
 * (-a file): ...".
 */
int		 ps_listen_secret(const char *hostport, const char *path,
		    struct ps_secret *s, int *have, char *err, size_t errlen);

/*
 * Listen on hostport (port 0: any free port), accepting with cb(arg).  On
 * success store the listener (the caller frees it with evconnlistener_free)
 * in *out, the bound "addr:port" in bound, and return 0; else -1 with
 * "cannot listen on 'x': reason" in err.
 */
int		 ps_listen(struct event_base *base, const char *hostport,
		    evconnlistener_cb cb, void *arg, struct evconnlistener **out,
		    char *bound, size_t boundlen, char *err, size_t errlen);
/*
 * ps_listen() in two steps, for a daemon that must own its address before
 * it may serve there (a standby coordinator): ps_listen_reserve() binds
 * hostport into *fd and says the address in bound, and connects there are
 * refused until ps_listen_start() listens on fd (which it then owns, also
 * on failure).  0, or -1 with the reason in err.
 */
int		 ps_listen_reserve(const char *hostport, int *fd, char *bound,
		    size_t boundlen, char *err, size_t errlen);
int		 ps_listen_start(struct event_base *base, int fd,
		    evconnlistener_cb cb, void *arg, struct evconnlistener **out,
		    char *err, size_t errlen);

#endif
