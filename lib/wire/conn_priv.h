/*
 * conn_priv.h: the inside of a struct ps_conn and what conn.c and
 * conn_auth.c (the handshake) share.  Not for programs: they use conn.h.
 */
#ifndef PS_CONN_PRIV_H
#define PS_CONN_PRIV_H

#include <sys/queue.h>

#include <stdint.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "wire/auth.h"
#include "wire/conn.h"
#include "wire/keycache.h"

enum conn_mode {
	CONN_DETECT,			/* nothing read yet */
	CONN_BINARY,
	CONN_TEXT
};

/* Where a conn is in the handshake (auth.h); OFF when it has none. */
enum conn_auth_state {
	CONN_AUTH_OFF,
	CONN_AUTH_CHALLENGE,		/* connector: waiting for Ns */
	CONN_AUTH_ANSWER,		/* acceptor: waiting for Nc and MAC */
	CONN_AUTH_PROOF,		/* connector: waiting for the MAC */
	CONN_AUTH_DONE
};

/* The handshake's state; the conn owns timer and held. */
struct conn_auth {
	const struct ps_secret	*secret;	/* borrowed; NULL once done */
	enum ps_auth_role	 role;
	enum conn_auth_state	 state;
	uint8_t			 ns[PS_AUTH_NONCE_LEN];
	uint8_t			 nc[PS_AUTH_NONCE_LEN];
	struct event		*timer;		/* PS_AUTH_TIMEOUT */
	struct evbuffer		*held;		/* owner's output until done */
	int			 failed;	/* closed by or during it */
	int			 refused;	/* failed on its merits, not
						   by silence or a drop */
	char			 why[160];	/* its own reason, if any */
};

/* conn_pool.c: the memory a set of conns hold, and its cap (conn.h). */
struct ps_conn_pool {
	size_t			 max;		/* bytes */
	size_t			 held;		/* sum of the members' held */
	size_t			 evicted;	/* conns closed for the cap */
	struct event		*trim;		/* malloc_trim a little later */
	TAILQ_HEAD(, ps_conn)	 conns;
};

struct ps_conn {
	struct bufferevent	*bev;
	struct evbuffer		*eager;		/* written by flush_ev (conn.c) */
	struct event		*flush_ev;	/* active while eager waits */
	char			*peer;
	ps_conn_msg_cb		*msg_cb;
	ps_conn_text_cb		*text_cb;
	ps_conn_close_cb	*close_cb;
	void			*arg;
	enum conn_mode		 mode;
	int			 lz4;
	int			 pausable;	/* pause while output is full */
	int			 paused;
	int			 closing;	/* flush, then close */
	int			 dead;		/* close callback was called */
	int			 proto_error;
	size_t			 max_frame;	/* payload bytes read at most */
	int			 busy;		/* depth of our callbacks */
	int			 free_pending;
	char			 reason[256];	/* why closing, once known */
	struct ps_conn_stats	 stats;
	int			 keycache_send;
	struct ps_keycache	 sent_lists;	/* signatures the peer holds */
	struct ps_keycache	 recv_lists;	/* lists the peer sent */
	struct conn_auth	 auth;
	struct ps_conn_pool	*pool;		/* or NULL */
	int			 pooled;	/* counted in pool's sum */
	TAILQ_ENTRY(ps_conn)	 pool_entry;
	size_t			 held;		/* bytes counted in the pool */
	size_t			 held_peak;
	struct event		*idle_ev;	/* or NULL: no idle limit */
	unsigned int		 idle_ms;
	int			 idled_out;	/* closed by the idle limit */
	int			 peer_closed;	/* closed by an EOF or a reset */
	struct event		*connect_ev;	/* or NULL: connected (conn.c) */
};

/* conn.c */
void	conn_fail(struct ps_conn *c, int proto, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	conn_leave(struct ps_conn *c);
void	conn_start_closing(struct ps_conn *c, const char *reason);
void	conn_idle_rearm(struct ps_conn *c);

/* conn_pool.c */
void	conn_pool_account(struct ps_conn *c);
void	conn_pool_leave(struct ps_conn *c);
void	conn_pool_trim(struct ps_conn *c);

/* conn_auth.c */
int	conn_auth_pending(const struct ps_conn *c);
struct evbuffer *conn_auth_output(struct ps_conn *c);
int	conn_auth_header(struct ps_conn *c, const uint8_t *hdr, size_t flen);
void	conn_auth_msg(struct ps_conn *c, struct ps_msg *m);
void	conn_auth_fail(struct ps_conn *c, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	conn_auth_closed(struct ps_conn *c);
void	conn_auth_release(struct ps_conn *c);

#endif
