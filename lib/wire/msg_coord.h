/*
 * msg_coord.h: the f64 scalars (aux, wire.h) of the coordinator
 * protocol's messages (lib/cluster/coord.h), as structs with named
 * fields: one encode and one decode per message (msg_coord.c).  Encoders
 * set naux and aux of a message whose header the caller fills.
 *
 *   REGISTER   aux  field
 *                0  role       PS_COORD_SERVER or PS_COORD_WORKER
 *                1  worker_id  the worker's id, 0 .. 65535 (workers)
 *                2  join       1: join the ring now, 0: wait as a standby
 *                              until `ps-ring add` (servers)
 *   RING       aux  field
 *                0  timeout_ms the coordinator's timeout
 *   HEARTBEAT  aux  field      (servers; a worker's carries none)
 *              0-3  count      counters since the start, PS_COORD_HB_*
 *                4  copying    the ring version the server still copies
 *                              segments for (0: none)
 */
#ifndef PS_MSG_COORD_H
#define PS_MSG_COORD_H

#include <stddef.h>
#include <stdint.h>

#include "wire/wire.h"

#define PS_COORD_SERVER		1
#define PS_COORD_WORKER		2

/* A server's HEARTBEAT counters, by index in count[]. */
#define PS_COORD_HB_KEYS	0	/* keys held, all channels */
#define PS_COORD_HB_BYTES_IN	1	/* bytes received from clients */
#define PS_COORD_HB_BYTES_OUT	2	/* bytes sent to clients */
#define PS_COORD_HB_REQUESTS	3	/* pushes and pulls answered */
#define PS_COORD_HB_N		4

struct ps_register {
	int		 role;		/* PS_COORD_SERVER or _WORKER */
	uint32_t	 worker_id;	/* workers */
	int		 join;		/* servers: 1 join now, 0 standby */
};

struct ps_heartbeat {
	int		 ncounts;	/* 0 (none) or PS_COORD_HB_N */
	double		 count[PS_COORD_HB_N];	/* decoded: < 0 when absent
						   or not a count */
	uint32_t	 copying;	/* version still copied for; 0 none */
};

void	ps_register_encode(const struct ps_register *r, struct ps_msg *m);
/*
 * Fill *r; -1 with the reason in err ("malformed REGISTER", "unknown role
 * 3", "invalid worker id 1.5").
 */
int	ps_register_decode(const struct ps_msg *m, struct ps_register *r,
	    char *err, size_t errlen);

void	ps_ring_msg_encode(double timeout_ms, struct ps_msg *m);
/* The coordinator's timeout in *timeout_ms: 0, or -1 when absent. */
int	ps_ring_msg_decode(const struct ps_msg *m, double *timeout_ms);

void	ps_heartbeat_encode(const struct ps_heartbeat *hb, struct ps_msg *m);
void	ps_heartbeat_decode(const struct ps_msg *m, struct ps_heartbeat *hb);

#endif
