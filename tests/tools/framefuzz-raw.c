/*
 * framefuzz-raw.c: frames ps-framefuzz builds by hand, byte by byte, where
 * they break what the encoder would never write: header counts that the
 * payload does not back (NOKEYS or KEYSIG with nkeys up to 2^32 - 1),
 * flags the decoder must refuse together, widths and scalar counts over the
 * limits, keys not ascending or in overlong varints, FP16 scales that are
 * zero or not powers of two, LZ4 blocks that are not, raw lengths that
 * lie, random bytes.  The checksums are always right, so every frame gets
 * past the checksum checks to the parts of the daemon that read further.
 *
 * The header is written as wire.h lays it out (little-endian):
 *
 *    0 magic  4 version  5 type  6 flags  7 width  8 sender  12 channel
 *   16 timestamp  24 ring_version  28 nkeys  32 naux  34 reserved
 *   36 raw_len  40 wire_len  44 payload_crc  48 header_crc (of 0..47)
 */
#include "config.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>

#include "framefuzz.h"
#include "util/crc32c.h"
#include "wire/varint.h"
#include "wire/wire.h"

#define RAW_KEYS_MAX	20000	/* keys a payload carries at most */

/* A payload being built. */
struct raw {
	uint8_t		*p;
	size_t		 len, cap;
};

/* Append n bytes to the payload. */
static void
raw_put(struct raw *w, const void *bytes, size_t n)
{
	while (w->len + n > w->cap) {
		w->cap = w->cap == 0 ? 1024 : w->cap * 2;
		if ((w->p = realloc(w->p, w->cap)) == NULL)
			err(1, "realloc");
	}
	memcpy(w->p + w->len, bytes, n);
	w->len += n;
}

/* Append n random bytes. */
static void
raw_noise(struct ff_rng *r, struct raw *w, size_t n)
{
	uint8_t b;

	while (n-- > 0) {
		b = (uint8_t)ff_rand(r);
		raw_put(w, &b, 1);
	}
}

/* Keys as varint deltas, now and then a zero delta or an overlong form. */
static void
raw_keys(struct ff_rng *r, struct raw *w, uint32_t n)
{
	static const uint8_t overlong[] = { 0x80, 0x00 };
	uint8_t v[PS_VARINT_MAX];
	int bad = ff_chance(r, 20);
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (bad && ff_chance(r, 10))
			raw_put(w, overlong, sizeof overlong);
		else
			raw_put(w, v, ps_varint_put(v, i == 0 || !bad ?
			    1 + ff_below(r, 1000) : ff_below(r, 3)));
	}
}

/* An FP16 scale: a power of two, or zero, negative, odd, not finite. */
static float
raw_scale(struct ff_rng *r)
{
	static const float odd[] = { 0, -1, 3, 1e-45f, 1e38f, 0x1p127f };
	float inf;

	if (ff_chance(r, 80))
		return (float)(1u << ff_below(r, 20));
	if (ff_chance(r, 20)) {
		inf = (float)(ff_chance(r, 50) ? 1e39 : -1e39);
		return ff_chance(r, 50) ? inf : inf - inf;
	}
	return odd[ff_below(r, sizeof odd / sizeof odd[0])];
}

/* nval values as floats, or with FP16 width scales and halves. */
static void
raw_vals(struct ff_rng *r, struct raw *w, size_t nval, unsigned width,
    int fp16)
{
	unsigned c;
	float s;

	if (!fp16) {
		raw_noise(r, w, nval * sizeof(float));
		return;
	}
	for (c = 0; c < width; c++) {
		s = raw_scale(r);
		raw_put(w, &s, sizeof s);
	}
	raw_noise(r, w, nval * 2);
}

/* Header fields, mostly within the limits, sometimes far out of them. */
static void
raw_header(struct ff_rng *r, uint8_t *h)
{
	uint32_t magic = PS_FRAME_MAGIC, nkeys, u32;
	uint16_t naux = (uint16_t)ff_below(r, PS_MSG_AUX_MAX + 1), zero = 0;
	uint64_t ts = ff_below(r, 8);

	memset(h, 0, PS_FRAME_HDR_LEN);
	memcpy(h, &magic, 4);
	h[4] = ff_chance(r, 99) ? PS_FRAME_VERSION : (uint8_t)ff_rand(r);
	h[5] = (uint8_t)(ff_chance(r, 92) ? 1 + ff_below(r, PS_MSG_TYPE_MAX) :
	    ff_chance(r, 50) ? 0 : PS_MSG_TYPE_MAX + 1 + ff_below(r, 237));
	h[6] = (uint8_t)(ff_chance(r, 90) ? ff_rand(r) & PS_MSG_F_ALL &
	    ff_rand(r) : ff_rand(r));
	h[7] = (uint8_t)(ff_chance(r, 92) ? ff_below(r, PS_MSG_WIDTH_MAX + 1) :
	    ff_rand(r));
	u32 = ff_below(r, 4);
	memcpy(h + 8, &u32, 4);
	u32 = ff_chance(r, 85) ? 0 : (uint32_t)ff_rand(r);
	memcpy(h + 12, &u32, 4);
	memcpy(h + 16, &ts, 8);
	u32 = ff_chance(r, 85) ? 0 : ff_below(r, 4);
	memcpy(h + 24, &u32, 4);
	switch (ff_below(r, 5)) {
	case 0:
		nkeys = UINT32_MAX - ff_below(r, 2);
		break;
	case 1:
		nkeys = ff_chance(r, 50) ? 1u << (16 + ff_below(r, 16)) :
		    (uint32_t)ff_rand(r);
		break;
	case 2:
		nkeys = 9 + ff_below(r, 300);
		break;
	default:
		nkeys = ff_below(r, 9);
		break;
	}
	memcpy(h + 28, &nkeys, 4);
	if (ff_chance(r, 8))
		naux = ff_chance(r, 50) ? PS_MSG_AUX_MAX + 1 :
		    (uint16_t)ff_rand(r);
	memcpy(h + 32, &naux, 2);
	if (ff_chance(r, 3))
		memcpy(h + 34, &(uint16_t){ 1 }, 2);
	else
		memcpy(h + 34, &zero, 2);
}

/*
 * The raw payload the header's flags call for: keys (or a signature),
 * scalars, values and a blob, for the header's key count or for another
 * one; or random bytes; sometimes cut short or too long.
 */
static void
raw_payload(struct ff_gen *g, const uint8_t *h, struct raw *w)
{
	struct ff_rng *r = &g->rng;
	uint32_t nkeys, i;
	uint16_t naux;
	uint8_t flags = h[6], width = h[7] > PS_MSG_WIDTH_MAX ? 1 : h[7];
	double d;

	if (ff_chance(r, 12)) {
		raw_noise(r, w, ff_below(r, 600));
		return;
	}
	memcpy(&nkeys, h + 28, 4);
	memcpy(&naux, h + 32, 2);
	if (nkeys > RAW_KEYS_MAX || ff_chance(r, 20))
		nkeys = ff_below(r, 10);
	if (flags & PS_MSG_F_KEYSIG)
		raw_put(w, &g->sig, sizeof g->sig);
	else if (!(flags & PS_MSG_F_NOKEYS))
		raw_keys(r, w, nkeys);
	for (i = 0; i < naux && i < PS_MSG_AUX_MAX + 1; i++) {
		d = (double)ff_below(r, 3);
		raw_put(w, &d, sizeof d);
	}
	raw_vals(r, w, (size_t)nkeys * width, width, flags & PS_MSG_F_FP16);
	raw_noise(r, w, ff_chance(r, 70) ? 0 : ff_below(r, 40));
	if (ff_chance(r, 10))
		w->len = ff_below(r, (uint32_t)w->len + 1);
}

/* Compress the payload as one LZ4 block, or leave it as a bad one. */
static void
raw_lz4(struct ff_rng *r, struct raw *w)
{
	struct raw z = { NULL, 0, 0 };
	int bound = LZ4_compressBound((int)w->len), n;

	if (ff_chance(r, 10) || bound <= 0)
		return;
	if ((z.p = malloc((size_t)bound)) == NULL)
		err(1, "malloc");
	n = LZ4_compress_default((const char *)w->p, (char *)z.p,
	    (int)w->len, bound);
	if (n <= 0) {
		free(z.p);
		return;
	}
	free(w->p);
	w->p = z.p;
	w->len = w->cap = (size_t)n;
}

/* Write the payload checksum and the header checksum of a frame. */
void
ff_raw_seal(uint8_t *hdr, const uint8_t *payload, uint32_t wire_len)
{
	uint32_t crc = ps_crc32c(0, payload, wire_len);

	memcpy(hdr + 40, &wire_len, 4);
	memcpy(hdr + 44, &crc, 4);
	crc = ps_crc32c(0, hdr, 48);
	memcpy(hdr + 48, &crc, 4);
}

/* A hand-built frame with valid checksums into f. */
void
ff_raw_frame(struct ff_gen *g, struct ff_frame *f)
{
	struct raw w = { NULL, 0, 0 };
	uint8_t h[PS_FRAME_HDR_LEN];
	uint32_t raw_len;

	raw_header(&g->rng, h);
	raw_payload(g, h, &w);
	raw_len = (uint32_t)w.len;
	if (h[6] & PS_MSG_F_LZ4)
		raw_lz4(&g->rng, &w);
	if (ff_chance(&g->rng, 4))
		raw_len += ff_chance(&g->rng, 50) ? 1 : (uint32_t)-1;
	memcpy(h + 36, &raw_len, 4);
	ff_raw_seal(h, w.p, (uint32_t)w.len);
	f->len = PS_FRAME_HDR_LEN + w.len;
	if ((f->buf = malloc(f->len)) == NULL)
		err(1, "malloc");
	memcpy(f->buf, h, PS_FRAME_HDR_LEN);
	if (w.len > 0)
		memcpy(f->buf + PS_FRAME_HDR_LEN, w.p, w.len);
	free(w.p);
}
