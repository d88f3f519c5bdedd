/*
 * framefuzz.h: the parts of ps-framefuzz, the network frame fuzzer: a
 * seeded generator of frames with valid checksums (framefuzz-gen.c), the
 * connections that carry them to a daemon (framefuzz-net.c), and the run
 * with its history of sent frames (ps-framefuzz.c).
 *
 * Frames are malloc'ed byte strings owned by their struct ff_frame; the
 * caller frees buf.  Nothing here is global: each run holds its state.
 */
#ifndef FRAMEFUZZ_H
#define FRAMEFUZZ_H

#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

#include "wire/auth.h"

/* The answer of an operation on a connection. */
enum ff_status {
	FF_OK = 0,
	FF_CLOSED,	/* the daemon closed (or reset) the connection */
	FF_STALLED,	/* the daemon took no bytes for FF_STALL_MS */
	FF_REFUSED,	/* connect() was refused: nobody listens */
	FF_FAILED	/* anything else, with a message printed */
};

#define FF_STALL_MS	2000

/* A splitmix64 generator: the one source of randomness of a run. */
struct ff_rng {
	uint64_t	 s;
};

/* One frame, header included. */
struct ff_frame {
	uint8_t		*buf;
	size_t		 len;
};

/* The generator: its random stream and what it cached at the daemon. */
struct ff_gen {
	struct ff_rng	 rng;
	uint64_t	 sig;		/* key list last sent with KEYCACHE */
	uint16_t	 port;		/* the daemon's, for plausible blobs */
};

/* A worker HELLO as ps-worker sends it (cmd/ps-worker/links.c). */
struct ff_hello {
	uint32_t	 id, nworkers;
	int		 sgd;		/* algorithm 1 with adagrad, else dbpg */
};

/* The daemon: its address and, with -a, the secret of the handshake. */
struct ff_target {
	struct sockaddr_storage ss;
	socklen_t	 sslen;
	const char	*name;
	struct ps_secret *secret;
};

/* framefuzz-gen.c */
uint64_t	ff_rand(struct ff_rng *r);
uint32_t	ff_below(struct ff_rng *r, uint32_t n);
int		ff_chance(struct ff_rng *r, unsigned percent);
void		ff_gen_init(struct ff_gen *g, uint64_t seed, uint16_t port);
void		ff_gen_frame(struct ff_gen *g, struct ff_frame *f);
void		ff_gen_hello(const struct ff_hello *h, struct ff_frame *f);
struct ps_msg;
void		ff_hello_encode(const struct ff_hello *h, uint64_t resumed,
		    double rejoin, struct ps_msg *m);

/* framefuzz-raw.c */
void		ff_raw_frame(struct ff_gen *g, struct ff_frame *f);
void		ff_raw_seal(uint8_t *hdr, const uint8_t *payload,
		    uint32_t wire_len);

/* framefuzz-net.c */
enum ff_status	ff_connect(const struct ff_target *t, int *fdp);
enum ff_status	ff_send(int fd, const struct ff_frame *f);
enum ff_status	ff_drain(int fd);
int		ff_wait_readable(const int *fds, size_t n, int ms);

#endif
