/*
 * fuzz_wire.c: libFuzzer harness for the frame decoder (ps_frame_peek and
 * ps_msg_decode, lib/wire/wire.c): headers, LZ4 payloads, delta-varint keys,
 * key signatures and fp16 values.  The input is a stream of frames, cut
 * where each header says, as a connection reads them.
 *
 * Invariants besides "no crash": the header check and the decoder agree
 * (a frame whose header peek refuses, or that is cut short, does not
 * decode) and a lower payload limit refuses no more than the default one
 * allows; a decoded message is well formed (keys ascending and present
 * exactly when neither NOKEYS nor KEYSIG, arrays as long as the counts, a
 * NUL after the blob); encoded again without LZ4 it is byte for byte the
 * frame it came from (unless that was compressed or fp16), and encoded
 * with or without LZ4 it decodes to the same message, values bit for bit;
 * fp16 values with finite floats encode as fp16 again, decode, and stay
 * within fp16's error of the column's largest magnitude.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <event2/buffer.h>

#include "fuzz.h"
#include "wire/wire.h"

#define SMALL_LIMIT	4096	/* a receiver's lower limit, as --max-frame */

static struct evbuffer *eb;	/* frames encoded again, reused */

/* Check the shape of a decoded message. */
static void
check_msg(const struct ps_msg *m)
{
	int has_keys = !(m->flags & (PS_MSG_F_NOKEYS | PS_MSG_F_KEYSIG));
	uint32_t i;

	FUZZ_CHECK(m->type >= 1 && m->type <= PS_MSG_TYPE_MAX);
	FUZZ_CHECK(!(m->flags & PS_MSG_F_LZ4));
	FUZZ_CHECK(m->width <= PS_MSG_WIDTH_MAX && m->naux <= PS_MSG_AUX_MAX);
	FUZZ_CHECK((m->keys != NULL) == (has_keys && m->nkeys > 0));
	for (i = 1; m->keys != NULL && i < m->nkeys; i++)
		FUZZ_CHECK(m->keys[i] > m->keys[i - 1]);
	FUZZ_CHECK((m->vals != NULL) == ((uint64_t)m->nkeys * m->width > 0));
	FUZZ_CHECK((m->blob != NULL) == (m->bloblen > 0));
	FUZZ_CHECK(m->blob == NULL || m->blob[m->bloblen] == '\0');
}

/* Whether two messages are the same, values and scalars bit for bit. */
static int
same_msg(const struct ps_msg *a, const struct ps_msg *b)
{
	size_t nval = (size_t)a->nkeys * a->width;

	return a->type == b->type && a->flags == b->flags &&
	    a->width == b->width && a->sender == b->sender &&
	    a->channel == b->channel && a->ring_version == b->ring_version &&
	    a->timestamp == b->timestamp && a->nkeys == b->nkeys &&
	    a->keysig == b->keysig && a->naux == b->naux &&
	    a->bloblen == b->bloblen &&
	    (a->keys == NULL) == (b->keys == NULL) &&
	    (a->keys == NULL ||
	    memcmp(a->keys, b->keys, a->nkeys * sizeof *a->keys) == 0) &&
	    memcmp(a->aux, b->aux, a->naux * sizeof *a->aux) == 0 &&
	    (nval == 0 || memcmp(a->vals, b->vals, nval * sizeof *a->vals) == 0) &&
	    (a->bloblen == 0 || memcmp(a->blob, b->blob, a->bloblen) == 0);
}

/*
 * Encode m (with LZ4 if lz4) and decode the frame into *out; the frame's
 * bytes are left in eb.  Returns the encoder's result (-1: refused).
 */
static int
reencode(const struct ps_msg *m, int lz4, struct ps_msg *out)
{
	char err[256];
	size_t len;
	int n;

	evbuffer_drain(eb, evbuffer_get_length(eb));
	if ((n = ps_msg_encode(m, eb, lz4, NULL, err, sizeof err)) < 0)
		return -1;
	len = evbuffer_get_length(eb);
	FUZZ_CHECK((size_t)n == len);
	FUZZ_CHECK(ps_msg_decode(evbuffer_pullup(eb, -1), len, out, err,
	    sizeof err) == 0);
	return n;
}

/* Plain float values: both encodings decode to m, the plain one is frame. */
static void
check_plain(const struct ps_msg *m, const uint8_t *frame, size_t flen,
    int was_lz4)
{
	struct ps_msg again;
	int lz4;

	for (lz4 = 0; lz4 <= 1; lz4++) {
		FUZZ_CHECK(reencode(m, lz4, &again) >= 0);
		FUZZ_CHECK(same_msg(m, &again));
		if (!lz4 && !was_lz4)
			FUZZ_CHECK(evbuffer_get_length(eb) == flen &&
			    memcmp(evbuffer_pullup(eb, -1), frame, flen) == 0);
		ps_msg_release(&again);
	}
}

/* fp16 values: they travel as float32 exactly, and as fp16 within error. */
static void
check_fp16(const struct ps_msg *m)
{
	size_t k, nval = (size_t)m->nkeys * m->width;
	float max[PS_MSG_WIDTH_MAX] = { 0 };
	struct ps_msg plain = *m, again;

	plain.flags &= ~PS_MSG_F_FP16;
	FUZZ_CHECK(reencode(&plain, 0, &again) >= 0);
	FUZZ_CHECK(same_msg(&plain, &again));
	ps_msg_release(&again);
	for (k = 0; k < nval; k++) {
		if (!isfinite(m->vals[k]))
			return;
		if (fabsf(m->vals[k]) > max[k % m->width])
			max[k % m->width] = fabsf(m->vals[k]);
	}
	FUZZ_CHECK(reencode(m, 0, &again) >= 0);
	for (k = 0; k < nval; k++)
		FUZZ_CHECK(fabsf(again.vals[k] - m->vals[k]) <=
		    ldexpf(max[k % m->width], -10));
	ps_msg_release(&again);
}

/* Decode the frame of flen bytes at p and check it every way above. */
static void
one_frame(const uint8_t *p, size_t flen)
{
	struct ps_msg m;
	char err[256];

	if (ps_msg_decode(p, flen, &m, err, sizeof err) != 0) {
		FUZZ_CHECK(m.keys == NULL && m.vals == NULL && m.blob == NULL);
		return;
	}
	check_msg(&m);
	if (m.flags & PS_MSG_F_FP16)
		check_fp16(&m);
	else
		check_plain(&m, p, flen, p[6] & PS_MSG_F_LZ4);
	ps_msg_release(&m);
}

/* Cut data into frames as a reader would and check each one. */
static void
run(const uint8_t *data, size_t size)
{
	size_t off = 0, rest, flen, small;
	struct ps_msg m;
	char err[256];

	for (; off < size; off += flen) {
		rest = size - off;
		if (rest < PS_FRAME_HDR_LEN ||
		    ps_frame_peek(data + off, PS_FRAME_MAX_PAYLOAD, &flen, err,
		    sizeof err) != 0 || flen > rest) {
			FUZZ_CHECK(ps_msg_decode(data + off, rest, &m, err,
			    sizeof err) != 0);
			return;
		}
		if (ps_frame_peek(data + off, SMALL_LIMIT, &small, err,
		    sizeof err) == 0)
			FUZZ_CHECK(small == flen);
		one_frame(data + off, flen);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (eb == NULL)
		FUZZ_CHECK((eb = evbuffer_new()) != NULL);
	fuzz_twice(data, size, run, fuzz_fix_frames);
	return 0;
}
