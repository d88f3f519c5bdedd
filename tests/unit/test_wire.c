/*
 * test_wire.c: unit tests of varints and the frame codec: round trips of
 * every section combination, every class of corrupt frame (each rejected
 * with its reason), and a robustness loop over random mutations.
 */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/buffer.h>
#include <lz4.h>

#include "util/crc32c.h"
#include "wire/varint.h"
#include "wire/wire.h"

/* A frame held in plain memory. */
struct frame {
	uint8_t		*buf;
	size_t		 len;
};

/* xorshift64: the tests' deterministic random numbers. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Encode m into a new frame, asserting success. */
static struct frame
encode(const struct ps_msg *m, int lz4)
{
	struct evbuffer *eb = evbuffer_new();
	struct frame f;
	char err[200];
	int n;

	n = ps_msg_encode(m, eb, lz4, NULL, err, sizeof err);
	if (n < 0)
		fail_msg("encode: %s", err);
	assert_int_equal((size_t)n, evbuffer_get_length(eb));
	f.len = (size_t)n;
	f.buf = malloc(f.len);
	evbuffer_remove(eb, f.buf, f.len);
	evbuffer_free(eb);
	return f;
}

/* Put a little-endian u32 at p. */
static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Recompute both checksums after a deliberate change. */
static void
reseal(struct frame *f)
{
	uint32_t wire;

	memcpy(&wire, f->buf + 40, 4);
	if (PS_FRAME_HDR_LEN + (size_t)wire <= f->len)
		put32(f->buf + 44, ps_crc32c(0, f->buf + PS_FRAME_HDR_LEN, wire));
	put32(f->buf + 48, ps_crc32c(0, f->buf, 48));
}

/*
 * Build a frame around a hand-made payload: header fields as given,
 * raw_len raw, wire payload p of n bytes, valid checksums.
 */
static struct frame
craft(uint8_t type, uint8_t flags, uint8_t width, uint32_t nkeys,
    uint16_t naux, uint32_t raw_len, const void *p, size_t n)
{
	struct frame f;

	f.len = PS_FRAME_HDR_LEN + n;
	f.buf = calloc(1, f.len);
	put32(f.buf, PS_FRAME_MAGIC);
	f.buf[4] = PS_FRAME_VERSION;
	f.buf[5] = type;
	f.buf[6] = flags;
	f.buf[7] = width;
	put32(f.buf + 28, nkeys);
	memcpy(f.buf + 32, &naux, 2);
	put32(f.buf + 36, raw_len);
	put32(f.buf + 40, (uint32_t)n);
	if (n > 0)
		memcpy(f.buf + PS_FRAME_HDR_LEN, p, n);
	reseal(&f);
	return f;
}

/* Assert that the frame is rejected with a reason containing want. */
static void
expect_reject(const struct frame *f, const char *want)
{
	struct ps_msg m;
	char err[200] = "";
	size_t flen;
	int rc = 0;

	if (f->len >= PS_FRAME_HDR_LEN)
		rc = ps_frame_peek(f->buf, PS_FRAME_MAX_PAYLOAD, &flen, err,
		    sizeof err);
	if (rc == 0) {
		assert_int_equal(ps_msg_decode(f->buf, f->len, &m, err,
		    sizeof err), -1);
		assert_null(m.keys);
		assert_null(m.vals);
		assert_null(m.blob);
	}
	if (strstr(err, want) == NULL)
		fail_msg("reason '%s' lacks '%s'", err, want);
}

/* Fill m with n random ascending keys, values, aux and a blob. */
static void
make_msg(struct ps_msg *m, uint32_t n, uint8_t width, uint64_t *seed)
{
	uint64_t k = rnd(seed) % 1000;
	size_t i;

	memset(m, 0, sizeof *m);
	m->type = PS_MSG_PUSH;
	m->width = width;
	m->sender = (uint32_t)rnd(seed);
	m->channel = 3;
	m->ring_version = 7;
	m->timestamp = rnd(seed);
	m->nkeys = n;
	m->keys = malloc((n + 1) * sizeof *m->keys);
	m->vals = malloc(((size_t)n * width + 1) * sizeof *m->vals);
	for (i = 0; i < n; i++) {
		m->keys[i] = k;
		k += 1 + (rnd(seed) % 4 == 0 ? rnd(seed) >> 20 : rnd(seed) % 300);
	}
	for (i = 0; i < (size_t)n * width; i++)
		m->vals[i] = (float)((int64_t)(rnd(seed) % 2001) - 1000) / 7;
	m->naux = 3;
	m->aux[0] = 1.5;
	m->aux[1] = -2e300;
	m->aux[2] = (double)rnd(seed);
}

/* Free what make_msg() allocated. */
static void
free_msg(struct ps_msg *m)
{
	free(m->keys);
	free(m->vals);
}

/* Assert that decoding f gives back m. */
static void
expect_same(const struct frame *f, const struct ps_msg *m)
{
	struct ps_msg d;
	char err[200];
	size_t flen;

	assert_int_equal(ps_frame_peek(f->buf, PS_FRAME_MAX_PAYLOAD, &flen, err,
	    sizeof err), 0);
	assert_int_equal(flen, f->len);
	if (ps_msg_decode(f->buf, f->len, &d, err, sizeof err) != 0)
		fail_msg("decode: %s", err);
	assert_int_equal(d.type, m->type);
	assert_int_equal(d.flags, m->flags);
	assert_int_equal(d.width, m->width);
	assert_int_equal(d.sender, m->sender);
	assert_int_equal(d.channel, m->channel);
	assert_int_equal(d.ring_version, m->ring_version);
	assert_true(d.timestamp == m->timestamp);
	assert_int_equal(d.nkeys, m->nkeys);
	if (m->flags & PS_MSG_F_NOKEYS)
		assert_null(d.keys);
	else if (m->nkeys > 0)
		assert_memory_equal(d.keys, m->keys, m->nkeys * sizeof *m->keys);
	if ((size_t)m->nkeys * m->width > 0)
		assert_memory_equal(d.vals, m->vals,
		    (size_t)m->nkeys * m->width * sizeof(float));
	else
		assert_null(d.vals);
	assert_int_equal(d.naux, m->naux);
	assert_memory_equal(d.aux, m->aux, m->naux * sizeof(double));
	assert_int_equal(d.bloblen, m->bloblen);
	if (m->bloblen > 0) {
		assert_memory_equal(d.blob, m->blob, m->bloblen);
		assert_int_equal(d.blob[d.bloblen], '\0');
	}
	ps_msg_release(&d);
	assert_null(d.keys);
}

static void
test_varint_round_trip(void **state)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 255, 16383, 16384,
	    (1ULL << 35) - 1, 1ULL << 56, 1ULL << 63, UINT64_MAX };
	uint8_t buf[PS_VARINT_MAX];
	uint64_t v, s = 42;
	size_t i, n;

	for (i = 0; i < 10000 + sizeof vals / sizeof vals[0]; i++) {
		uint64_t x = i < sizeof vals / sizeof vals[0] ? vals[i] :
		    rnd(&s) >> (rnd(&s) % 64);

		n = ps_varint_put(buf, x);
		assert_int_equal(n, ps_varint_len(x));
		assert_int_equal(ps_varint_get(buf, buf + n, &v), (int)n);
		assert_true(v == x);
	}
	assert_int_equal(ps_varint_put(buf, UINT64_MAX), PS_VARINT_MAX);
}

static void
test_varint_truncated(void **state)
{
	static const uint8_t cont[] = { 0x80, 0x81, 0xff };
	uint64_t v;

	assert_int_equal(ps_varint_get(cont, cont, &v), PS_VARINT_TRUNCATED);
	assert_int_equal(ps_varint_get(cont, cont + 1, &v),
	    PS_VARINT_TRUNCATED);
	assert_int_equal(ps_varint_get(cont, cont + 3, &v),
	    PS_VARINT_TRUNCATED);
}

static void
test_varint_overlong(void **state)
{
	static const uint8_t eleven[11] = { 0x80, 0x80, 0x80, 0x80, 0x80,
	    0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
	static const uint8_t big[10] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0x02 };
	static const uint8_t padded[2] = { 0x85, 0x00 };
	uint64_t v;

	assert_int_equal(ps_varint_get(eleven, eleven + 11, &v),
	    PS_VARINT_OVERLONG);
	assert_int_equal(ps_varint_get(big, big + 10, &v), PS_VARINT_OVERLONG);
	assert_int_equal(ps_varint_get(padded, padded + 2, &v),
	    PS_VARINT_OVERLONG);
}

static void
test_round_trips(void **state)
{
	static const uint32_t sizes[] = { 0, 1, 2, 100, 5000 };
	uint64_t s = 7;
	size_t i;
	int width, lz4, nokeys;

	for (width = 0; width <= 4; width++)
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
	for (lz4 = 0; lz4 <= 1; lz4++)
	for (nokeys = 0; nokeys <= 1; nokeys++) {
		struct ps_msg m;
		struct frame f;

		make_msg(&m, sizes[i], (uint8_t)width, &s);
		if (nokeys)
			m.flags = PS_MSG_F_NOKEYS;
		if (i % 2) {
			m.blob = "some error text";
			m.bloblen = strlen(m.blob);
		}
		if (i == 2)
			m.naux = 0;
		f = encode(&m, lz4);
		expect_same(&f, &m);
		free(f.buf);
		free_msg(&m);
	}
}

static void
test_lz4_used_when_smaller(void **state)
{
	struct ps_msg m;
	struct frame raw, packed;
	uint64_t s = 9;
	uint32_t i;

	make_msg(&m, 10000, 2, &s);
	for (i = 0; i < m.nkeys; i++)
		m.keys[i] = i * 4;
	memset(m.vals, 0, 20000 * sizeof(float));
	raw = encode(&m, 0);
	packed = encode(&m, 1);
	assert_int_equal(raw.buf[6] & PS_MSG_F_LZ4, 0);
	assert_int_equal(packed.buf[6] & PS_MSG_F_LZ4, PS_MSG_F_LZ4);
	assert_true(packed.len < raw.len / 4);
	expect_same(&packed, &m);
	free(raw.buf);
	free(packed.buf);
	free_msg(&m);
}

static void
test_lz4_skipped_when_small(void **state)
{
	struct ps_msg m;
	struct frame f;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_ERROR;
	m.flags = PS_MSG_F_NOKEYS;
	m.blob = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	m.bloblen = strlen(m.blob);
	f = encode(&m, 1);
	assert_int_equal(f.buf[6] & PS_MSG_F_LZ4, 0);
	assert_int_equal(f.len, PS_FRAME_HDR_LEN + m.bloblen);
	free(f.buf);
}

static void
test_encode_rejects(void **state)
{
	struct evbuffer *eb = evbuffer_new();
	uint64_t keys[3] = { 5, 9, 9 };
	float vals[3] = { 0 };
	struct ps_msg m;
	char err[200];

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_PUSH;
	m.width = 1;
	m.nkeys = 3;
	m.keys = keys;
	m.vals = vals;
	assert_int_equal(ps_msg_encode(&m, eb, 1, NULL, err, sizeof err), -1);
	assert_string_equal(err, "keys not ascending");
	assert_int_equal(evbuffer_get_length(eb), 0);
	keys[2] = 10;
	m.width = 9;
	assert_int_equal(ps_msg_encode(&m, eb, 1, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "width 9 too large"));
	m.width = 1;
	m.type = 99;
	assert_int_equal(ps_msg_encode(&m, eb, 1, NULL, err, sizeof err), -1);
	assert_string_equal(err, "unknown message type 99");
	m.type = PS_MSG_PUSH;
	m.naux = PS_MSG_AUX_MAX + 1;
	assert_int_equal(ps_msg_encode(&m, eb, 1, NULL, err, sizeof err), -1);
	m.naux = 0;
	m.bloblen = PS_FRAME_MAX_PAYLOAD;
	m.blob = "x";	/* never read: the size check comes first */
	assert_int_equal(ps_msg_encode(&m, eb, 1, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "frame too large"));
	assert_int_equal(evbuffer_get_length(eb), 0);
	evbuffer_free(eb);
}

/* A small valid frame with keys, values, aux and blob. */
static struct frame
good_frame(int lz4)
{
	struct ps_msg m;
	struct frame f;
	uint64_t s = 11;

	make_msg(&m, lz4 ? 3000 : 20, 2, &s);
	if (lz4)
		memset(m.vals, 0, 6000 * sizeof(float));
	m.blob = "blob";
	m.bloblen = 4;
	f = encode(&m, lz4);
	free_msg(&m);
	return f;
}

static void
test_reject_header(void **state)
{
	struct frame f = good_frame(0);
	uint32_t big = PS_FRAME_MAX_PAYLOAD + 1;

	f.buf[0] = 'X';
	expect_reject(&f, "bad magic 0x314b5358");
	free(f.buf);
	f = good_frame(0);
	f.buf[4] = 7;
	reseal(&f);
	expect_reject(&f, "unsupported version 7");
	free(f.buf);
	f = good_frame(0);
	f.buf[10] ^= 0x40;
	expect_reject(&f, "header checksum mismatch");
	free(f.buf);
	f = good_frame(0);
	f.buf[5] = 99;
	reseal(&f);
	expect_reject(&f, "unknown message type 99");
	free(f.buf);
	f = good_frame(0);
	put32(f.buf + 36, big);
	put32(f.buf + 40, big);
	reseal(&f);
	expect_reject(&f, "frame too large (67108865 bytes, limit 67108864)");
	free(f.buf);
}

/* A receiver's lower limit: a payload at it passes, one byte over not. */
static void
test_peek_lower_limit(void **state)
{
	struct frame f = good_frame(0);
	size_t payload = f.len - PS_FRAME_HDR_LEN, flen;
	char err[200], want[100];

	assert_int_equal(ps_frame_peek(f.buf, payload, &flen, err, sizeof err),
	    0);
	assert_int_equal(flen, f.len);
	assert_int_equal(ps_frame_peek(f.buf, payload - 1, &flen, err,
	    sizeof err), -1);
	snprintf(want, sizeof want, "frame too large (%zu bytes, limit %zu)",
	    payload, payload - 1);
	assert_string_equal(err, want);
	free(f.buf);
}

static void
test_reject_header_fields(void **state)
{
	struct frame f = good_frame(0);

	f.buf[7] = 9;
	reseal(&f);
	expect_reject(&f, "width 9 too large");
	free(f.buf);
	f = good_frame(0);
	f.buf[32] = PS_MSG_AUX_MAX + 1;
	reseal(&f);
	expect_reject(&f, "naux 19 too large");
	free(f.buf);
	f = good_frame(0);
	f.buf[6] = 0x80;
	reseal(&f);
	expect_reject(&f, "unknown flags 0x80");
	free(f.buf);
	f = good_frame(0);
	f.buf[34] = 1;
	reseal(&f);
	expect_reject(&f, "reserved field");
	free(f.buf);
	f = good_frame(0);
	put32(f.buf + 28, 1000000);	/* nkeys beyond what raw_len can hold */
	reseal(&f);
	expect_reject(&f, "payload too short for 1000000 keys");
	free(f.buf);
	/* An LZ4 payload claiming more than a block can expand to. */
	f = good_frame(0);
	f.buf[6] |= PS_MSG_F_LZ4;
	put32(f.buf + 36, (f.len - PS_FRAME_HDR_LEN) * 255 + 65);
	reseal(&f);
	expect_reject(&f, "cannot expand to");
	free(f.buf);
}

static void
test_reject_payload(void **state)
{
	struct frame f = good_frame(0);
	size_t len = f.len;

	f.buf[PS_FRAME_HDR_LEN + 3] ^= 1;
	expect_reject(&f, "payload checksum mismatch");
	f.buf[PS_FRAME_HDR_LEN + 3] ^= 1;
	f.len = len - 1;
	expect_reject(&f, "truncated frame");
	f.len = 20;
	expect_reject(&f, "truncated frame");
	f.len = len;
	free(f.buf);
	f = good_frame(1);
	assert_int_equal(f.buf[6] & PS_MSG_F_LZ4, PS_MSG_F_LZ4);
	f.len -= 10;		/* the block ends early */
	put32(f.buf + 40, (uint32_t)(f.len - PS_FRAME_HDR_LEN));
	reseal(&f);
	expect_reject(&f, "bad lz4 payload");
	free(f.buf);
}

static void
test_reject_keys(void **state)
{
	static const uint8_t desc[] = { 0x05, 0x00 };
	static const uint8_t trunc[] = { 0x05, 0x80 };
	static const uint8_t longv[] = { 0x85, 0x00 };
	static const uint8_t wrap[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0x01, 0x01 };
	struct frame f;

	f = craft(PS_MSG_PULL, 0, 0, 2, 0, sizeof desc, desc, sizeof desc);
	expect_reject(&f, "keys not ascending");
	free(f.buf);
	f = craft(PS_MSG_PULL, 0, 0, 2, 0, sizeof wrap, wrap, sizeof wrap);
	expect_reject(&f, "keys not ascending");
	free(f.buf);
	f = craft(PS_MSG_PULL, 0, 0, 2, 0, sizeof trunc, trunc, sizeof trunc);
	expect_reject(&f, "truncated varint");
	free(f.buf);
	f = craft(PS_MSG_PULL, 0, 0, 1, 0, sizeof longv, longv, sizeof longv);
	expect_reject(&f, "overlong varint");
	free(f.buf);
}

static void
test_reject_lengths(void **state)
{
	static const uint8_t keys2[] = { 0x01, 0x01, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t keys3[] = { 0x81, 0x01, 0x01, 0, 0, 0, 0, 0, 0, 0 };
	char src[600], packed[700];
	struct frame f;
	int n;

	/* Two keys of width 2 need 16 value bytes; only 8 follow. */
	f = craft(PS_MSG_PUSH, 0, 2, 2, 0, 10, keys2, sizeof keys2);
	expect_reject(&f, "payload too short");
	free(f.buf);
	/* Varint keys can eat bytes the header counted as values. */
	f = craft(PS_MSG_PUSH, 0, 1, 2, 0, 10, keys3, sizeof keys3);
	expect_reject(&f, "payload length mismatch");
	free(f.buf);
	/* Without LZ4 raw_len must equal wire_len. */
	f = craft(PS_MSG_PULL, 0, 0, 2, 0, 3, keys2, 2);
	expect_reject(&f, "payload length mismatch");
	free(f.buf);
	/* A valid LZ4 block that decompresses to fewer bytes than raw_len. */
	memset(src, 'a', sizeof src);
	n = LZ4_compress_default(src, packed, sizeof src, sizeof packed);
	assert_true(n > 0);
	f = craft(PS_MSG_ERROR, PS_MSG_F_LZ4 | PS_MSG_F_NOKEYS, 0, 0, 0,
	    sizeof src + 1, packed, (size_t)n);
	expect_reject(&f, "bad lz4 payload");
	free(f.buf);
	f = craft(PS_MSG_ERROR, PS_MSG_F_LZ4 | PS_MSG_F_NOKEYS, 0, 0, 0,
	    sizeof src, packed, (size_t)n);
	{
		struct ps_msg m;
		char err[200];

		assert_int_equal(ps_msg_decode(f.buf, f.len, &m, err,
		    sizeof err), 0);
		assert_int_equal(m.bloblen, sizeof src);
		ps_msg_release(&m);
	}
	free(f.buf);
}

/* Apply one random mutation to f (which may change its length). */
static void
mutate(struct frame *f, uint64_t *s)
{
	size_t at = rnd(s) % f->len;

	switch (rnd(s) % 6) {
	case 0:
	case 1:
		f->buf[at] ^= (uint8_t)(1u << (rnd(s) % 8));
		break;
	case 2:
		f->buf[at] = (uint8_t)rnd(s);
		break;
	case 3:		/* a header field set to something extreme */
		f->buf[rnd(s) % 48] = rnd(s) % 2 ? 0xff : 0;
		break;
	case 4:
		f->len = at;
		break;
	default:	/* raw_len off by a little */
		f->buf[36] += (uint8_t)(rnd(s) % 5 - 2);
		break;
	}
}

static void
test_fuzz_mutations(void **state)
{
	struct frame orig[2] = { good_frame(0), good_frame(1) };
	uint64_t s = 12345;
	int i, j, ok = 0, bad = 0;

	for (i = 0; i < 40000; i++) {
		const struct frame *o = &orig[i % 2];
		struct frame f;
		struct ps_msg m;
		char err[200];
		size_t flen;
		int k = 1 + (int)(rnd(&s) % 3);

		f.len = o->len;
		f.buf = malloc(o->len);
		memcpy(f.buf, o->buf, o->len);
		for (j = 0; j < k && f.len > 0; j++)
			mutate(&f, &s);
		if (rnd(&s) % 4 != 0 && f.len >= PS_FRAME_HDR_LEN)
			reseal(&f);
		if (f.len >= PS_FRAME_HDR_LEN &&
		    ps_frame_peek(f.buf, PS_FRAME_MAX_PAYLOAD, &flen, err,
		    sizeof err) == 0 &&
		    ps_msg_decode(f.buf, f.len, &m, err, sizeof err) == 0) {
			ok++;
			ps_msg_release(&m);
		} else
			bad++;
		free(f.buf);
	}
	assert_true(bad > 10000);
	assert_true(ok > 0);
	free(orig[0].buf);
	free(orig[1].buf);
}

static void
test_type_names(void **state)
{
	assert_string_equal(ps_msg_type_name(PS_MSG_HELLO), "HELLO");
	assert_string_equal(ps_msg_type_name(PS_MSG_PULL_REPLY), "PULL_REPLY");
	assert_string_equal(ps_msg_type_name(PS_MSG_STATS_REPLY),
	    "STATS_REPLY");
	assert_string_equal(ps_msg_type_name(0), "UNKNOWN");
	assert_string_equal(ps_msg_type_name(99), "UNKNOWN");
}

/* FP16 values come back within 2^-11 of their column's scaled range. */
static void
test_fp16_round_trip(void **state)
{
	uint64_t keys[300], seed = 7;
	float vals[600];
	struct ps_msg m, d;
	struct frame f;
	char err[200];
	size_t k;

	(void)state;
	memset(&m, 0, sizeof m);
	for (k = 0; k < 300; k++) {
		keys[k] = 10 + 3 * k;
		vals[2 * k] = (float)((int64_t)(rnd(&seed) % 20001) - 10000) * 0.37f;
		vals[2 * k + 1] = (float)(rnd(&seed) % 1000) * 1e-6f;
	}
	m.type = PS_MSG_PUSH;
	m.flags = PS_MSG_F_FP16;
	m.width = 2;
	m.nkeys = 300;
	m.keys = keys;
	m.vals = vals;
	f = encode(&m, 0);
	/* 300 keys: 4-byte values became 2-byte ones plus two scales. */
	assert_true(f.len < PS_FRAME_HDR_LEN + 300 * 2 + 600 * 2 + 8 + 1);
	assert_int_equal(ps_msg_decode(f.buf, f.len, &d, err, sizeof err), 0);
	assert_true(d.flags & PS_MSG_F_FP16);
	for (k = 0; k < 600; k++)
		assert_true(fabsf(d.vals[k] - vals[k]) <=
		    fabsf(vals[k]) * 0x1p-11f + 1e-12f);
	ps_msg_release(&d);
	free(f.buf);
	vals[5] = INFINITY;	/* not representable: refused */
	{
		struct evbuffer *eb = evbuffer_new();

		assert_int_equal(ps_msg_encode(&m, eb, 0, NULL, err, sizeof err), -1);
		assert_non_null(strstr(err, "not finite"));
		assert_int_equal(evbuffer_get_length(eb), 0);
		evbuffer_free(eb);
	}
}

/* A key signature travels instead of the keys; bad FP16 scales are refused. */
static void
test_keysig_and_bad_scale(void **state)
{
	struct ps_msg m, d;
	struct frame f;
	uint8_t raw[8 + 4 + 2];
	float scale = -1;
	char err[200];

	(void)state;
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_PUSH;
	m.flags = PS_MSG_F_KEYSIG;
	m.nkeys = 1000;
	m.keysig = 0x0123456789abcdefULL;
	f = encode(&m, 0);
	assert_int_equal(f.len, PS_FRAME_HDR_LEN + 8);
	assert_int_equal(ps_msg_decode(f.buf, f.len, &d, err, sizeof err), 0);
	assert_true(d.keysig == m.keysig);
	assert_null(d.keys);
	assert_int_equal(d.nkeys, 1000);
	ps_msg_release(&d);
	free(f.buf);
	/* KEYSIG with NOKEYS makes no sense. */
	f = craft(PS_MSG_PUSH, PS_MSG_F_KEYSIG | PS_MSG_F_NOKEYS, 0, 1, 0, 8,
	    raw, 8);
	expect_reject(&f, "key signature with flags");
	free(f.buf);
	/* One key, width 1, FP16: a negative scale. */
	raw[0] = 5;
	memcpy(raw + 1, &scale, 4);
	raw[5] = raw[6] = 0;
	f = craft(PS_MSG_PUSH, PS_MSG_F_FP16, 1, 1, 0, 7, raw, 7);
	expect_reject(&f, "bad fp16 scale");
	free(f.buf);
}

/* A column of tiny subnormals gets a scale the decoder takes, not 0. */
static void
test_fp16_subnormal_column(void **state)
{
	uint64_t keys[2] = { 1, 2 };
	float vals[2] = { 1e-42f, -3e-43f };
	struct ps_msg m, d;
	struct frame f;
	char err[200];

	(void)state;
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_PUSH;
	m.flags = PS_MSG_F_FP16;
	m.width = 1;
	m.nkeys = 2;
	m.keys = keys;
	m.vals = vals;
	f = encode(&m, 0);
	if (ps_msg_decode(f.buf, f.len, &d, err, sizeof err) != 0)
		fail_msg("decode: %s", err);
	/* Multiples of 2^-149 below 2^-138: exact as halves of that scale. */
	assert_true(d.vals[0] == vals[0] && d.vals[1] == vals[1]);
	ps_msg_release(&d);
	free(f.buf);
}

/* KEYCACHE asks the receiver to keep the keys: without them it is refused. */
static void
test_keycache_needs_keys(void **state)
{
	struct evbuffer *eb = evbuffer_new();
	struct ps_msg m;
	struct frame f;
	char err[200];

	(void)state;
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_PUSH;
	m.flags = PS_MSG_F_KEYCACHE | PS_MSG_F_NOKEYS;
	m.nkeys = 3;
	assert_int_equal(ps_msg_encode(&m, eb, 0, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "not NOKEYS"));
	assert_int_equal(evbuffer_get_length(eb), 0);
	evbuffer_free(eb);
	f = craft(PS_MSG_PUSH, PS_MSG_F_KEYCACHE | PS_MSG_F_NOKEYS, 0, 3, 0,
	    0, NULL, 0);
	expect_reject(&f, "key list to cache without keys");
	free(f.buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint_round_trip),
		cmocka_unit_test(test_varint_truncated),
		cmocka_unit_test(test_varint_overlong),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_lz4_used_when_smaller),
		cmocka_unit_test(test_lz4_skipped_when_small),
		cmocka_unit_test(test_encode_rejects),
		cmocka_unit_test(test_reject_header),
		cmocka_unit_test(test_peek_lower_limit),
		cmocka_unit_test(test_reject_header_fields),
		cmocka_unit_test(test_reject_payload),
		cmocka_unit_test(test_reject_keys),
		cmocka_unit_test(test_reject_lengths),
		cmocka_unit_test(test_fuzz_mutations),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_fp16_round_trip),
		cmocka_unit_test(test_keysig_and_bad_scale),
		cmocka_unit_test(test_fp16_subnormal_column),
		cmocka_unit_test(test_keycache_needs_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
