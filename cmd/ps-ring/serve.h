/*
 * serve.h: the parts of the coordinator daemon (ps-ring serve) and what
 * they share.
 *
 * The coordinator holds the authoritative ring (saved through a ring store,
 * ringstore.h) and one record per node it has heard of (members.c).  Every
 * accepted connection is a client (accept.c): a node once it sent REGISTER,
 * else a user of the text commands (textcmd.c); with a secret (-a), only
 * after it passed the handshake (auth.h).  A change of the server set
 * is saved and then published in two phases (publish.c).  One thread, one
 * libevent loop; the protocol is in lib/cluster/coord.h.
 */
#ifndef PS_SERVE_H
#define PS_SERVE_H

#include <sys/queue.h>

#include <stdint.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "cluster/coord.h"
#include "cluster/ring.h"
#include "ringstore.h"
#include "util/clock.h"
#include "wire/auth.h"
#include "wire/conn.h"

struct coord;
struct member;

/* One accepted connection. */
struct client {
	struct coord		*co;
	struct ps_conn		*conn;
	struct member		*member;	/* NULL until REGISTER */
	TAILQ_ENTRY(client)	 entry;
};
TAILQ_HEAD(client_list, client);

enum member_state {
	MEMBER_UNKNOWN,		/* in a loaded ring, not registered yet */
	MEMBER_LIVE,
	MEMBER_DEAD,
	MEMBER_LEFT		/* said BYE */
};

/* A server (by listening address) or a worker (by id). */
struct member {
	int			 role;		/* PS_COORD_SERVER, _WORKER */
	uint32_t		 worker_id;
	char			 addr[PS_RING_MAX_ADDR + 1]; /* a worker's:
						   where it connects from */
	enum member_state	 state;
	struct client		*client;	/* while live */
	double			 last_beat;	/* when it last spoke */
	double			 registered;	/* when it last registered */
	uint32_t		 acked;		/* ring version it holds */
	uint32_t		 copying;	/* version it copies segments for */
	double			 count[PS_COORD_HB_N];	/* last heartbeat's */
	double			 sample[PS_COORD_HB_N];	/* for the rates */
	double			 sample_t;	/* 0: no sample yet */
	double			 rate[PS_COORD_HB_N];	/* per second */
	TAILQ_ENTRY(member)	 entry;
};
TAILQ_HEAD(member_list, member);

struct coord {
	struct event_base	*base;
	struct evconnlistener	*listener;
	char			 bound[128];
	double			 timeout;	/* seconds of silence: dead */
	struct ps_secret	 secret;	/* -a: every client proves it */
	int			 have_secret;
	int			 lifeline;	/* -L: stdin's EOF ends us */
	int			 ready_fd;	/* -r: the listening line goes
						   there too, then it is
						   closed; -1: none */
	uint32_t		 hold_servers;	/* -n: workers get no ring
						   until one names this many
						   servers (once; 0: none) */
	double			 started;
	double			 grace_from;	/* start, or waking (members.c) */
	double			 last_tick;
	double			 last_beat;	/* members_beat() */
	struct ring_store	*store;
	struct zk		*zk;		/* -Z: the ZooKeeper session */
	char			 election[128];	/* -Z: our znode in the queue */
	int			 standby_said;	/* "standby ADDR" printed */
	char			**zk_members;	/* -Z: the nodes' znodes, */
	size_t			 zk_nmembers;	/* as last listed */
	void			(*lead)(struct coord *co);	/* elected */
	int			 listen_fd;	/* bound, until it listens */
	uint32_t		 vnodes, replicas;	/* of a new ring */
	struct event		*tick;		/* timeouts, while leading */
	struct ps_ring		 ring;		/* the latest stored version */
	char			*text;		/* its pskit-ring(5) text */
	size_t			 textlen;
	char			*pub_text;	/* the version workers hold */
	size_t			 pub_len;
	uint32_t		 published;
	int			 publishing;	/* waiting for servers' acks */
	int			 recovering;	/* for the loaded ring's servers:
						   workers are sent no ring */
	double			 pub_started;
	/*
	 * A store whose saves end later (ringstore.h): the version being
	 * saved, and the changes made meanwhile, saved next as one version.
	 */
	struct ps_ring		 saving, staged;
	int			 have_saving, have_staged;
	char			*saving_why, *staged_why;
	struct client_list	 clients;
	struct member_list	 members;
};

/* accept.c */
void	client_free(struct client *cl);
void	client_refuse(struct client *cl, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	client_cut(struct client *cl, const char *why);
void	client_accept_cb(struct evconnlistener *lis, evutil_socket_t fd,
	    struct sockaddr *sa, int salen, void *arg);
void	coord_release(struct coord *co);

/* leader.c: join the coordinators' queue of -Z; co->lead() when first. */
void	leader_elect(struct coord *co);

/* members.c */
void	members_load(struct coord *co);
void	member_register(struct client *cl, const struct ps_msg *m);
void	member_heartbeat(struct member *mb, const struct ps_msg *m);
void	member_dead(struct coord *co, struct member *mb, const char *fmt,
	    ...) __attribute__((format(printf, 3, 4)));
void	member_bye(struct coord *co, struct member *mb);
void	members_tick(struct coord *co);
void	members_beat(struct coord *co);
void	members_woken(struct coord *co, double slept);
struct member *member_server(struct coord *co, const char *addr);
struct member *member_worker(struct coord *co, uint32_t id);
const char *member_state_name(const struct coord *co,
	    const struct member *mb);
void	members_free(struct coord *co);

/* zkmembers.c: -Z, the leader's watch on the nodes' znodes. */
void	zkmembers_watch(struct coord *co);
void	zkmembers_free(struct coord *co);

/* publish.c */
void	publish_init(struct coord *co);
int	publish_change(struct coord *co, struct ps_ring *next,
	    const char *why, char *err, size_t errlen);
void	publish_remove(struct coord *co, const char *addr, const char *why);
void	publish_send(struct member *mb, const char *text, size_t len,
	    uint32_t version);
const struct ps_ring *publish_newest(const struct coord *co);
void	publish_saved(void *arg, uint32_t version, int ok, const char *err);
void	publish_release(struct coord *co);
void	publish_check(struct coord *co);
void	publish_tick(struct coord *co);

/* textcmd.c */
void	text_command(struct client *cl, const char *line);

#endif
