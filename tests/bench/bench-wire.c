/*
 * bench-wire.c: throughput of the frame codec on the hot path: encode and
 * decode a PUSH of 1M keys of width 2, with and without LZ4, and print
 * keys/s and MB/s (of frame bytes) for each.
 *
 *   bench-wire [nkeys [rounds]]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "util/clock.h"
#include "wire/wire.h"

/* Fill m with n keys spread like hashed feature ids, and small values. */
static void
bench_msg(struct ps_msg *m, uint32_t n)
{
	uint64_t k = 0, step = UINT64_MAX / n, s = 88172645463325252ULL;
	uint32_t i;

	memset(m, 0, sizeof *m);
	m->type = PS_MSG_PUSH;
	m->width = 2;
	m->nkeys = n;
	m->naux = 1;
	m->keys = malloc((size_t)n * sizeof *m->keys);
	m->vals = malloc((size_t)n * 2 * sizeof *m->vals);
	if (m->keys == NULL || m->vals == NULL)
		exit(1);
	for (i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		k += 1 + s % step;
		m->keys[i] = k;
		m->vals[2 * i] = (float)(s % 1000) / 1000;
		m->vals[2 * i + 1] = 0.25f;
	}
}

/* Time rounds encode+decode cycles; print one result line. */
static int
bench_run(const struct ps_msg *m, int lz4, int rounds)
{
	struct evbuffer *eb = evbuffer_new();
	double t0, tenc = 0, tdec = 0;
	size_t wire = 0;
	struct ps_msg d;
	char err[200];
	int r, n;

	for (r = 0; r < rounds; r++) {
		uint8_t *p;

		t0 = ps_clock_now();
		if ((n = ps_msg_encode(m, eb, lz4, NULL, err, sizeof err)) < 0) {
			fprintf(stderr, "bench-wire: %s\n", err);
			return 1;
		}
		tenc += ps_clock_now() - t0;
		wire = (size_t)n;
		p = evbuffer_pullup(eb, -1);
		t0 = ps_clock_now();
		if (ps_msg_decode(p, wire, &d, err, sizeof err) != 0) {
			fprintf(stderr, "bench-wire: %s\n", err);
			return 1;
		}
		tdec += ps_clock_now() - t0;
		ps_msg_release(&d);
		evbuffer_drain(eb, wire);
	}
	printf("lz4=%d keys=%u frame=%zu bytes (%.2f bytes/key)  "
	    "encode %.1f Mkeys/s %.0f MB/s  decode %.1f Mkeys/s %.0f MB/s  "
	    "both %.1f Mkeys/s\n", lz4, m->nkeys, wire,
	    (double)wire / m->nkeys,
	    m->nkeys * rounds / tenc / 1e6, wire * rounds / tenc / 1e6,
	    m->nkeys * rounds / tdec / 1e6, wire * rounds / tdec / 1e6,
	    m->nkeys * rounds / (tenc + tdec) / 1e6);
	evbuffer_free(eb);
	return 0;
}

int
main(int argc, char *argv[])
{
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 10;
	struct ps_msg m;
	int rc;

	if (n == 0 || rounds <= 0) {
		fprintf(stderr, "usage: bench-wire [nkeys [rounds]]\n");
		return 64;
	}
	bench_msg(&m, n);
	rc = bench_run(&m, 0, rounds) || bench_run(&m, 1, rounds);
	free(m.keys);
	free(m.vals);
	return rc;
}
