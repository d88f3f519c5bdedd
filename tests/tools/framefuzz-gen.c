/*
 * framefuzz-gen.c: the frames ps-framefuzz sends that follow the encoder's
 * rules, made by ps_msg_encode() (wire.c): random types, flags, widths,
 * key lists, scalars and values, some shaped like the messages daemons
 * expect (a worker's HELLO, a REGISTER, a HEARTBEAT, a CURRENT pull) so
 * that frames get past the first checks of the handlers.  A quarter of the
 * frames are instead built by hand where they break the encoder's rules
 * (framefuzz-raw.c).  Everything comes from one seeded stream, so a seed
 * gives the same frames in the same order.
 */
#include "config.h"

#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "cluster/hello.h"
#include "framefuzz.h"
#include "wire/keycache.h"
#include "wire/msg_coord.h"
#include "wire/msg_online.h"
#include "wire/wire.h"

#define GEN_KEYS_MAX	20000	/* keys of a frame that carries them */

/* The next number of the stream (splitmix64). */
uint64_t
ff_rand(struct ff_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in 0 .. n - 1; 0 if n is 0. */
uint32_t
ff_below(struct ff_rng *r, uint32_t n)
{
	return n == 0 ? 0 : (uint32_t)(ff_rand(r) % n);
}

/* True with the given probability in percent. */
int
ff_chance(struct ff_rng *r, unsigned percent)
{
	return ff_below(r, 100) < percent;
}

void
ff_gen_init(struct ff_gen *g, uint64_t seed, uint16_t port)
{
	memset(g, 0, sizeof *g);
	g->rng.s = seed;
	g->port = port;
}

/*
 * A scalar: mostly the small integers HELLO and REGISTER fields take, else
 * the values that break careless checks (NaN, infinities, negatives, huge,
 * just over 32 bits) or any bit pattern.
 */
static double
gen_aux(struct ff_rng *r)
{
	static const double odd[] = { -1, -0.0, 0.5, 1e-300, 1e300, 65535,
	    65536, 65537, 86400, 86401, 4294967295.0, 4294967296.0, 0x1p53,
	    0x1p63, 0x1p64, -0x1p63, 1e19 };
	uint64_t bits;
	double d;

	switch (ff_below(r, 10)) {
	case 0:
		return NAN;
	case 1:
		return ff_chance(r, 50) ? INFINITY : -INFINITY;
	case 2:
		return odd[ff_below(r, sizeof odd / sizeof odd[0])];
	case 3:
		bits = ff_rand(r);
		memcpy(&d, &bits, sizeof d);
		return d;
	default:
		return (double)ff_below(r, ff_chance(r, 70) ? 3 : 17);
	}
}

/* A value: small, zero, tiny, huge, or now and then not finite. */
static float
gen_val(struct ff_rng *r)
{
	switch (ff_below(r, 12)) {
	case 0:
		return 0;
	case 1:
		return ff_chance(r, 50) ? 3e38f : -1e-40f;
	case 2:
		return ff_chance(r, 80) ? 1 : NAN;
	default:
		return (float)((double)ff_below(r, 2001) / 100.0 - 10.0);
	}
}

/* A key count: mostly small, sometimes hundreds or thousands. */
static uint32_t
gen_nkeys(struct ff_rng *r)
{
	uint32_t p = ff_below(r, 100);

	if (p < 15)
		return 0;
	if (p < 70)
		return 1 + ff_below(r, 8);
	if (p < 95)
		return 9 + ff_below(r, 248);
	return 257 + ff_below(r, GEN_KEYS_MAX - 257);
}

/* A message type: mostly the ones daemons act on. */
static uint8_t
gen_type(struct ff_rng *r)
{
	static const uint8_t often[] = { PS_MSG_HELLO, PS_MSG_PUSH,
	    PS_MSG_PULL, PS_MSG_PULL, PS_MSG_BYE, PS_MSG_SAVE,
	    PS_MSG_REPLICATE, PS_MSG_REGISTER, PS_MSG_HEARTBEAT, PS_MSG_PUSH };

	if (ff_chance(r, 60))
		return often[ff_below(r, sizeof often)];
	return (uint8_t)(1 + ff_below(r, PS_MSG_TYPE_MAX));
}

/* Flags the encoder accepts: KEYSIG alone, KEYCACHE only with keys. */
static uint8_t
gen_flags(struct ff_rng *r)
{
	uint8_t f = 0;

	if (ff_chance(r, 25))
		f |= PS_MSG_F_NOKEYS;
	if (ff_chance(r, 30))
		f |= PS_MSG_F_CURRENT;
	if (ff_chance(r, 12))
		f |= PS_MSG_F_KEYSIG;
	if (ff_chance(r, 12))
		f |= PS_MSG_F_KEYCACHE;
	if (ff_chance(r, 15))
		f |= PS_MSG_F_FP16;
	if (f & PS_MSG_F_KEYSIG)
		f &= (uint8_t)~(PS_MSG_F_NOKEYS | PS_MSG_F_KEYCACHE);
	if (f & PS_MSG_F_NOKEYS)
		f &= (uint8_t)~PS_MSG_F_KEYCACHE;
	return f;
}

/* nkeys strictly ascending keys into keys, dense, sparse or near 2^64. */
static void
gen_keys(struct ff_rng *r, uint64_t *keys, uint32_t nkeys)
{
	uint64_t k, step;
	uint32_t i;

	switch (ff_below(r, 4)) {
	case 0:
		k = 0, step = 1;
		break;
	case 1:
		k = UINT64_MAX - nkeys * 2ULL, step = 2;
		break;
	default:
		k = ff_below(r, 1000), step = 1 + ff_below(r, 1u << 20);
		break;
	}
	for (i = 0; i < nkeys; i++) {
		keys[i] = k;
		k += 1 + ff_rand(r) % step;
	}
}

/* A blob: none, text, a listening address, or random bytes. */
static void
gen_blob(struct ff_gen *g, struct ps_msg *m)
{
	uint32_t i, n;

	m->bloblen = 0;
	if (ff_chance(&g->rng, 70))
		return;
	n = 1 + ff_below(&g->rng, 64);
	m->blob = malloc(n + 32);
	if (m->blob == NULL)
		err(1, "malloc");
	if (ff_chance(&g->rng, 40)) {
		m->bloblen = (size_t)snprintf(m->blob, 32, "127.0.0.1:%u",
		    ff_chance(&g->rng, 50) ? g->port : 1024 +
		    ff_below(&g->rng, 60000));
		return;
	}
	for (i = 0; i < n; i++)
		m->blob[i] = (char)ff_rand(&g->rng);
	m->bloblen = n;
}

/*
 * Fill m at random within the encoder's rules; keys, vals and blob are
 * malloc'ed for the caller to free.  NOKEYS and KEYSIG frames without
 * values may count any number of keys, up to 2^32 - 1.
 */
static void
gen_msg(struct ff_gen *g, struct ps_msg *m)
{
	struct ff_rng *r = &g->rng;
	size_t i, nval;

	memset(m, 0, sizeof *m);
	m->type = gen_type(r);
	m->flags = gen_flags(r);
	m->width = (uint8_t)(ff_chance(r, 50) ? ff_below(r, 2) :
	    ff_below(r, PS_MSG_WIDTH_MAX + 1));
	m->sender = ff_below(r, 4);
	m->channel = ff_chance(r, 85) ? 0 : ff_chance(r, 80) ?
	    ff_below(r, 4) : (uint32_t)ff_rand(r);
	m->timestamp = ff_chance(r, 90) ? ff_below(r, 8) : ff_rand(r);
	m->ring_version = ff_chance(r, 85) ? 0 : ff_chance(r, 70) ?
	    ff_below(r, 4) : (uint32_t)ff_rand(r);
	m->nkeys = gen_nkeys(r);
	if ((m->flags & (PS_MSG_F_NOKEYS | PS_MSG_F_KEYSIG)) &&
	    ff_chance(r, 20)) {
		m->width = 0;
		m->nkeys = ff_chance(r, 50) ? UINT32_MAX - ff_below(r, 2) :
		    (uint32_t)ff_rand(r);
	}
	m->naux = (uint16_t)ff_below(r, PS_MSG_AUX_MAX + 1);
	for (i = 0; i < m->naux; i++)
		m->aux[i] = gen_aux(r);
	if (m->nkeys <= GEN_KEYS_MAX && !(m->flags & PS_MSG_F_NOKEYS)) {
		if ((m->keys = calloc(m->nkeys + 1, sizeof *m->keys)) == NULL)
			err(1, "calloc");
		gen_keys(r, m->keys, m->nkeys);
	}
	m->keysig = g->sig != 0 && ff_chance(r, 60) ? g->sig : ff_rand(r);
	nval = (size_t)m->nkeys * m->width;
	if (nval > 0 && (m->vals = malloc(nval * sizeof *m->vals)) == NULL)
		err(1, "malloc");
	for (i = 0; i < nval; i++)
		m->vals[i] = gen_val(r);
	gen_blob(g, m);
}

/* The first three scalars of a message shaped below, small whole numbers. */
static void
gen_small_aux(struct ps_msg *m, uint32_t a0, uint32_t a1, uint32_t a2)
{
	m->aux[0] = a0;
	m->aux[1] = a1;
	m->aux[2] = a2;
}

/*
 * Shape m like a message a daemon expects, keeping its keys and values: a
 * worker's HELLO, a server's or a worker's REGISTER, a HEARTBEAT, a
 * CURRENT pull, a push or pull of a worker, a checkpoint SAVE.
 */
static void
gen_shape(struct ff_gen *g, struct ps_msg *m)
{
	struct ff_rng *r = &g->rng;
	struct ff_hello h = { ff_below(r, 2), 1 + ff_below(r, 2),
	    ff_chance(r, 50) };
	uint32_t kind = ff_below(r, 6), a0, a1, a2, resumed;
	struct ps_register reg;
	struct ps_save save;

	m->channel = 0;
	m->ring_version = ff_below(r, 2);
	a0 = ff_below(r, 3);
	a1 = ff_below(r, 3);
	a2 = ff_below(r, 2);
	switch (kind) {
	case 0:
		m->type = PS_MSG_HELLO;
		resumed = ff_below(r, 3);
		ff_hello_encode(&h, resumed, ff_chance(r, 70) ? 0 : 1, m);
		break;
	case 1:
		m->type = PS_MSG_REGISTER;
		reg = (struct ps_register){ 1 + (int)ff_below(r, 2), a1,
		    (int)a2 };
		ps_register_encode(&reg, m);
		break;
	case 2:
		/* Any number of the scalars, as a broken server may send. */
		m->type = PS_MSG_HEARTBEAT;
		m->naux = (uint16_t)ff_below(r, 6);
		gen_small_aux(m, a0, a1, a2);
		break;
	case 3:
		m->type = PS_MSG_SAVE;
		save = (struct ps_save){ 1, a1, a2 };
		ps_save_encode(&save, m);
		break;
	default:
		/* A theta, an epochs or a resume flag, or none. */
		m->type = ff_chance(r, 50) ? PS_MSG_PUSH : PS_MSG_PULL;
		m->naux = (uint16_t)ff_below(r, 2);
		gen_small_aux(m, a0, a1, a2);
		break;
	}
}

/* Move the frame out of eb into f. */
static void
gen_take(struct evbuffer *eb, struct ff_frame *f)
{
	f->len = evbuffer_get_length(eb);
	if ((f->buf = malloc(f->len)) == NULL)
		err(1, "malloc");
	evbuffer_remove(eb, f->buf, f->len);
}

/* Encode m into f; 0, or -1 if the encoder refused it. */
static int
gen_encode(const struct ps_msg *m, int lz4, struct ff_frame *f)
{
	struct evbuffer *eb = evbuffer_new();
	char why[200];
	int rc = -1;

	if (eb == NULL)
		err(1, "evbuffer_new");
	if (ps_msg_encode(m, eb, lz4, NULL, why, sizeof why) >= 0) {
		gen_take(eb, f);
		rc = 0;
	}
	evbuffer_free(eb);
	return rc;
}

/* The next frame of the run into f. */
void
ff_gen_frame(struct ff_gen *g, struct ff_frame *f)
{
	struct ps_msg m;
	int lz4;

	if (ff_chance(&g->rng, 25)) {
		ff_raw_frame(g, f);
		return;
	}
	gen_msg(g, &m);
	if (ff_chance(&g->rng, 20))
		gen_shape(g, &m);
	lz4 = ff_chance(&g->rng, 30);
	if (gen_encode(&m, lz4, f) != 0) {
		/* FP16 cannot carry a value: send them as floats. */
		m.flags &= (uint8_t)~PS_MSG_F_FP16;
		if (gen_encode(&m, lz4, f) != 0)
			ff_raw_frame(g, f);
	}
	if ((m.flags & PS_MSG_F_KEYCACHE) && m.keys != NULL)
		g->sig = ps_keysig(m.keys, m.nkeys);
	free(m.keys);
	free(m.vals);
	free(m.blob);
}

/* The scalars of a worker's HELLO to the only server of a ring. */
void
ff_hello_encode(const struct ff_hello *h, uint64_t resumed, double rejoin,
    struct ps_msg *m)
{
	struct ps_hello hello;

	memset(&hello, 0, sizeof hello);
	hello.worker_id = h->id;
	hello.nworkers = h->nworkers;
	hello.nservers = 1;
	hello.ring_version = m->ring_version;
	hello.lambda = 1;
	hello.algorithm = h->sgd ? PS_ALG_SGD : PS_ALG_DBPG;
	hello.opt.opt = PS_OPT_ADAGRAD;
	hello.opt.alpha = 0.1;
	hello.opt.beta = 1;
	hello.opt.l1 = 1;
	hello.resumed = resumed;
	hello.rejoin = rejoin;
	ps_hello_encode(&hello, m);
}

/* The HELLO a worker opens its connection with. */
void
ff_gen_hello(const struct ff_hello *h, struct ff_frame *f)
{
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_HELLO;
	m.flags = PS_MSG_F_NOKEYS;
	m.sender = h->id;
	ff_hello_encode(h, 0, 0, &m);
	if (gen_encode(&m, 0, f) != 0)
		errx(70, "cannot encode a hello");
}
