/*
 * wire.c: encoding and decoding of the frames described in wire.h.
 *
 * The encoder writes the header and raw payload straight into space
 * reserved in the output evbuffer, so a message is copied once; when LZ4 is
 * worth trying the block is compressed into a temporary buffer and copied
 * back over the raw payload if it came out smaller.  The decoder checks the
 * header before it allocates anything, and every section length against
 * what is left of the payload.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>

#include "util/crc32c.h"
#include "util/errbuf.h"
#include "util/half.h"
#include "wire/varint.h"
#include "wire/wire.h"

/* An LZ4 block decompresses to at most about 255 times its size. */
#define WIRE_LZ4_RATIO_MAX	255

/* The fields of a frame header, in host order. */
struct wire_hdr {
	uint32_t	magic;
	uint8_t		version, type, flags, width;
	uint32_t	sender, channel;
	uint64_t	timestamp;
	uint32_t	ring_version, nkeys;
	uint16_t	naux, reserved;
	uint32_t	raw_len, wire_len, payload_crc, header_crc;
};

static const char *const wire_type_names[] = {
	NULL, "HELLO", "HELLO_OK", "ERROR", "PUSH", "PULL", "PULL_REPLY",
	"BYE", "SAVE", "SAVE_OK", "STATS", "STATS_REPLY", "KEYS_MISSING",
	"REGISTER", "RING", "HEARTBEAT", "REPLICATE", "REPLICATE_OK", "AUTH"
};

/* Format a reason into err and return -1 (errbuf.h). */
#define wire_fail(err, errlen, ...)	ps_errbuf(err, errlen, -1, __VA_ARGS__)

/* Little-endian stores and loads (configure insists on a LE host). */
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* Name of a message type, for logs and errors. */
const char *
ps_msg_type_name(int type)
{
	if (type < 1 || type > PS_MSG_TYPE_MAX)
		return "UNKNOWN";
	return wire_type_names[type];
}

/* Serialise h into the 52 header bytes at p, computing header_crc. */
static void
wire_hdr_put(uint8_t *p, const struct wire_hdr *h)
{
	put32(p, h->magic);
	p[4] = h->version;
	p[5] = h->type;
	p[6] = h->flags;
	p[7] = h->width;
	put32(p + 8, h->sender);
	put32(p + 12, h->channel);
	put64(p + 16, h->timestamp);
	put32(p + 24, h->ring_version);
	put32(p + 28, h->nkeys);
	put16(p + 32, h->naux);
	put16(p + 34, h->reserved);
	put32(p + 36, h->raw_len);
	put32(p + 40, h->wire_len);
	put32(p + 44, h->payload_crc);
	put32(p + 48, ps_crc32c(0, p, 48));
}

/* Parse the 52 header bytes at p into h. */
static void
wire_hdr_get(const uint8_t *p, struct wire_hdr *h)
{
	h->magic = get32(p);
	h->version = p[4];
	h->type = p[5];
	h->flags = p[6];
	h->width = p[7];
	h->sender = get32(p + 8);
	h->channel = get32(p + 12);
	h->timestamp = get64(p + 16);
	h->ring_version = get32(p + 24);
	h->nkeys = get32(p + 28);
	h->naux = get16(p + 32);
	h->reserved = get16(p + 34);
	h->raw_len = get32(p + 36);
	h->wire_len = get32(p + 40);
	h->payload_crc = get32(p + 44);
	h->header_crc = get32(p + 48);
}

/* Check what the encoder needs from m before it writes anything. */
static int
encode_check(const struct ps_msg *m, char *err, size_t errlen)
{
	if (m->type < 1 || m->type > PS_MSG_TYPE_MAX)
		return wire_fail(err, errlen, "unknown message type %u",
		    m->type);
	if (m->flags & ~PS_MSG_F_ALL)
		return wire_fail(err, errlen, "unknown flags 0x%02x", m->flags);
	if (m->width > PS_MSG_WIDTH_MAX)
		return wire_fail(err, errlen, "width %u too large (limit %d)",
		    m->width, PS_MSG_WIDTH_MAX);
	if (m->naux > PS_MSG_AUX_MAX)
		return wire_fail(err, errlen, "naux %u too large (limit %d)",
		    m->naux, PS_MSG_AUX_MAX);
	if (m->nkeys > 0 && m->keys == NULL &&
	    !(m->flags & (PS_MSG_F_NOKEYS | PS_MSG_F_KEYSIG)))
		return wire_fail(err, errlen, "%u keys but no key array",
		    m->nkeys);
	if (m->nkeys > 0 && m->width > 0 && m->vals == NULL)
		return wire_fail(err, errlen, "%u keys but no value array",
		    m->nkeys);
	if (m->bloblen > 0 && m->blob == NULL)
		return wire_fail(err, errlen, "blob length without a blob");
	if ((m->flags & PS_MSG_F_KEYSIG) &&
	    (m->flags & (PS_MSG_F_NOKEYS | PS_MSG_F_KEYCACHE)))
		return wire_fail(err, errlen, "a key signature goes without "
		    "NOKEYS and KEYCACHE");
	if ((m->flags & PS_MSG_F_KEYCACHE) && (m->flags & PS_MSG_F_NOKEYS))
		return wire_fail(err, errlen, "a key list to cache goes with "
		    "its keys, not NOKEYS");
	return 0;
}

/*
 * With FP16, the power-of-two scale of each value column that maps its
 * largest magnitude below 2^15; -1 if a value is not finite.  A column of
 * tiny subnormals (largest below 2^-134) gets the smallest subnormal as
 * its scale: 2^(e - 15) would round to 0, which the decoder refuses.
 */
static int
encode_scales(const struct ps_msg *m, float *scale, char *err, size_t errlen)
{
	size_t k, nval = (size_t)m->nkeys * m->width;
	float max[PS_MSG_WIDTH_MAX] = { 0 };
	int c, e;

	for (k = 0; k < nval; k++) {
		float a = fabsf(m->vals[k]);

		if (!isfinite(a))
			return wire_fail(err, errlen, "value %zu is not finite "
			    "and cannot be sent as fp16", k);
		if (a > max[k % m->width])
			max[k % m->width] = a;
	}
	for (c = 0; c < m->width; c++) {
		frexpf(max[c], &e);	/* max < 2^e */
		if (e - 15 < FLT_MIN_EXP - FLT_MANT_DIG)
			e = FLT_MIN_EXP - FLT_MANT_DIG + 15;
		scale[c] = max[c] > 0 ? ldexpf(1, e - 15) : 1;
	}
	return 0;
}

/* Exact bytes of the keys section, or SIZE_MAX when keys are not ascending. */
static size_t
encode_keys_len(const uint64_t *keys, uint32_t n)
{
	size_t len = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (i > 0 && keys[i] <= keys[i - 1])
			return SIZE_MAX;
		len += ps_varint_len(i > 0 ? keys[i] - keys[i - 1] : keys[0]);
	}
	return len;
}

/* Write the keys section at p; its length, or SIZE_MAX if not ascending. */
static size_t
encode_keys(uint8_t *p, const uint64_t *keys, uint32_t n)
{
	uint8_t *start = p;
	uint64_t prev;
	uint32_t i;

	if (n == 0)
		return 0;
	p += ps_varint_put(p, keys[0]);
	prev = keys[0];
	for (i = 1; i < n; i++) {
		uint64_t k = keys[i];

		if (k <= prev)
			return SIZE_MAX;
		p += ps_varint_put(p, k - prev);
		prev = k;
	}
	return (size_t)(p - start);
}

/* Write the values as FP16 with their column scales at q; return the end. */
static uint8_t *
encode_fp16(const struct ps_msg *m, const float *scale, uint8_t *q)
{
	size_t k, nval = (size_t)m->nkeys * m->width;

	memcpy(q, scale, m->width * sizeof(float));
	q += m->width * sizeof(float);
	for (k = 0; k < nval; k++, q += 2)
		put16(q, ps_half_from_float(m->vals[k] / scale[k % m->width]));
	return q;
}

/* Write the raw payload of m at p; its length, or SIZE_MAX (bad keys). */
static size_t
encode_raw(const struct ps_msg *m, const float *scale, uint8_t *p)
{
	size_t klen = 0, nval = (size_t)m->nkeys * m->width;
	uint8_t *q;

	if (m->flags & PS_MSG_F_KEYSIG) {
		put64(p, m->keysig);
		klen = 8;
	} else if (!(m->flags & PS_MSG_F_NOKEYS) &&
	    (klen = encode_keys(p, m->keys, m->nkeys)) == SIZE_MAX)
		return SIZE_MAX;
	q = p + klen;
	if (m->naux > 0)
		memcpy(q, m->aux, m->naux * sizeof(double));
	q += m->naux * sizeof(double);
	if (m->flags & PS_MSG_F_FP16)
		q = encode_fp16(m, scale, q);
	else if (nval > 0)
		memcpy(q, m->vals, nval * sizeof(float));
	if (!(m->flags & PS_MSG_F_FP16))
		q += nval * sizeof(float);
	if (m->bloblen > 0)
		memcpy(q, m->blob, m->bloblen);
	q += m->bloblen;
	return (size_t)(q - p);
}

/*
 * Replace the raw payload at p by its LZ4 block when that is smaller;
 * return the new length (raw_len when left alone).
 */
static size_t
encode_lz4(uint8_t *p, size_t raw_len)
{
	int cap = LZ4_compressBound((int)raw_len), clen;
	char *tmp;

	if (cap <= 0 || (tmp = malloc((size_t)cap)) == NULL)
		return raw_len;
	clen = LZ4_compress_default((const char *)p, tmp, (int)raw_len, cap);
	if (clen > 0 && (size_t)clen < raw_len) {
		memcpy(p, tmp, (size_t)clen);
		raw_len = (size_t)clen;
	}
	free(tmp);
	return raw_len;
}

/*
 * Upper bound of m's raw payload, or the exact length when the bound is
 * over the limit; SIZE_MAX when the keys are not ascending.
 */
static size_t
encode_vals_len(const struct ps_msg *m)
{
	size_t nval = (size_t)m->nkeys * m->width;

	if (m->flags & PS_MSG_F_FP16)
		return m->width * sizeof(float) + nval * 2;
	return nval * sizeof(float);
}

static size_t
encode_bound(const struct ps_msg *m)
{
	size_t fixed, keys = 0;

	fixed = m->naux * sizeof(double) + encode_vals_len(m) + m->bloblen;
	if (m->flags & PS_MSG_F_KEYSIG)
		return fixed + 8;
	if (!(m->flags & PS_MSG_F_NOKEYS))
		keys = (size_t)m->nkeys * PS_VARINT_MAX;
	if (fixed + keys <= PS_FRAME_MAX_PAYLOAD || keys == 0)
		return fixed + keys;
	keys = encode_keys_len(m->keys, m->nkeys);
	return keys == SIZE_MAX ? SIZE_MAX : fixed + keys;
}

/* Append m to out as one frame; see wire.h. */
void
ps_wire_sizes_of(const struct ps_msg *m, size_t wire_len,
    struct ps_wire_sizes *sz)
{
	memset(sz, 0, sizeof *sz);
	if (m->flags & PS_MSG_F_KEYSIG) {
		sz->keys_sent = 8;
		sz->keys_full = m->keys != NULL ?
		    encode_keys_len(m->keys, m->nkeys) : 8;
	} else if (!(m->flags & PS_MSG_F_NOKEYS) && m->keys != NULL) {
		sz->keys_sent = sz->keys_full = encode_keys_len(m->keys,
		    m->nkeys);
	}
	sz->vals_full = (size_t)m->nkeys * m->width * sizeof(float);
	sz->vals_sent = encode_vals_len(m);
	sz->raw_len = sz->keys_sent + m->naux * sizeof(double) +
	    sz->vals_sent + m->bloblen;
	sz->wire_len = wire_len;
}

void
ps_wire_sizes_add(struct ps_wire_sizes *sum, const struct ps_wire_sizes *add)
{
	sum->keys_full += add->keys_full;
	sum->keys_sent += add->keys_sent;
	sum->vals_full += add->vals_full;
	sum->vals_sent += add->vals_sent;
	sum->raw_len += add->raw_len;
	sum->wire_len += add->wire_len;
}

int
ps_msg_encode(const struct ps_msg *m, struct evbuffer *out, int allow_lz4,
    struct ps_wire_sizes *sz, char *err, size_t errlen)
{
	struct evbuffer_iovec vec;
	struct wire_hdr h;
	size_t bound, raw_len, wire_len;
	float scale[PS_MSG_WIDTH_MAX];
	uint8_t *frame;

	if (encode_check(m, err, errlen) != 0)
		return -1;
	if ((m->flags & PS_MSG_F_FP16) &&
	    encode_scales(m, scale, err, errlen) != 0)
		return -1;
	if (m->bloblen > PS_FRAME_MAX_PAYLOAD)
		return wire_fail(err, errlen, "frame too large (%zu bytes, "
		    "limit %u)", m->bloblen, PS_FRAME_MAX_PAYLOAD);
	if ((bound = encode_bound(m)) == SIZE_MAX)
		return wire_fail(err, errlen, "keys not ascending");
	if (bound > PS_FRAME_MAX_PAYLOAD)
		return wire_fail(err, errlen, "frame too large (%zu bytes, "
		    "limit %u)", bound, PS_FRAME_MAX_PAYLOAD);
	if (evbuffer_reserve_space(out, PS_FRAME_HDR_LEN + bound, &vec, 1) < 1)
		return wire_fail(err, errlen, "out of memory");
	frame = vec.iov_base;
	raw_len = encode_raw(m, scale, frame + PS_FRAME_HDR_LEN);
	if (raw_len == SIZE_MAX)
		return wire_fail(err, errlen, "keys not ascending");
	memset(&h, 0, sizeof h);
	h.flags = m->flags & ~PS_MSG_F_LZ4;
	wire_len = raw_len;
	if (allow_lz4 && raw_len >= PS_FRAME_LZ4_MIN) {
		wire_len = encode_lz4(frame + PS_FRAME_HDR_LEN, raw_len);
		if (wire_len < raw_len)
			h.flags |= PS_MSG_F_LZ4;
	}
	h.magic = PS_FRAME_MAGIC;
	h.version = PS_FRAME_VERSION;
	h.type = m->type;
	h.width = m->width;
	h.sender = m->sender;
	h.channel = m->channel;
	h.timestamp = m->timestamp;
	h.ring_version = m->ring_version;
	h.nkeys = m->nkeys;
	h.naux = m->naux;
	h.raw_len = (uint32_t)raw_len;
	h.wire_len = (uint32_t)wire_len;
	h.payload_crc = ps_crc32c(0, frame + PS_FRAME_HDR_LEN, wire_len);
	wire_hdr_put(frame, &h);
	vec.iov_len = PS_FRAME_HDR_LEN + wire_len;
	if (evbuffer_commit_space(out, &vec, 1) != 0)
		return wire_fail(err, errlen, "cannot commit frame");
	if (sz != NULL)
		ps_wire_sizes_of(m, wire_len, sz);
	return (int)vec.iov_len;
}

/* Check the limits and section sizes a valid header must respect. */
static int
peek_limits(const struct wire_hdr *h, size_t max_payload, char *err,
    size_t errlen)
{
	uint64_t need;

	if (h->width > PS_MSG_WIDTH_MAX)
		return wire_fail(err, errlen, "width %u too large (limit %d)",
		    h->width, PS_MSG_WIDTH_MAX);
	if (h->naux > PS_MSG_AUX_MAX)
		return wire_fail(err, errlen, "naux %u too large (limit %d)",
		    h->naux, PS_MSG_AUX_MAX);
	if (max_payload > PS_FRAME_MAX_PAYLOAD)
		max_payload = PS_FRAME_MAX_PAYLOAD;
	if (h->raw_len > max_payload || h->wire_len > max_payload)
		return wire_fail(err, errlen, "frame too large (%u bytes, "
		    "limit %zu)", h->raw_len > h->wire_len ? h->raw_len :
		    h->wire_len, max_payload);
	if (!(h->flags & PS_MSG_F_LZ4) && h->wire_len != h->raw_len)
		return wire_fail(err, errlen, "payload length mismatch (%u "
		    "bytes on the wire, %u raw)", h->wire_len, h->raw_len);
	if ((h->flags & PS_MSG_F_LZ4) && h->wire_len == 0)
		return wire_fail(err, errlen, "bad lz4 payload");
	/* No LZ4 block expands more: raw_len is not allocated on its word. */
	if ((h->flags & PS_MSG_F_LZ4) &&
	    h->raw_len > (uint64_t)h->wire_len * WIRE_LZ4_RATIO_MAX + 64)
		return wire_fail(err, errlen, "lz4 payload of %u bytes cannot "
		    "expand to %u", h->wire_len, h->raw_len);
	if ((h->flags & PS_MSG_F_KEYSIG) &&
	    (h->flags & (PS_MSG_F_NOKEYS | PS_MSG_F_KEYCACHE)))
		return wire_fail(err, errlen, "key signature with flags 0x%02x",
		    h->flags);
	/* A receiver keeps the keys that come with KEYCACHE: they must come. */
	if ((h->flags & PS_MSG_F_KEYCACHE) && (h->flags & PS_MSG_F_NOKEYS))
		return wire_fail(err, errlen, "key list to cache without keys "
		    "(flags 0x%02x)", h->flags);
	need = (uint64_t)h->naux * sizeof(double) +
	    (uint64_t)h->nkeys * h->width *
	    (h->flags & PS_MSG_F_FP16 ? 2 : sizeof(float));
	if (h->flags & PS_MSG_F_FP16)
		need += h->width * sizeof(float);
	if (h->flags & PS_MSG_F_KEYSIG)
		need += 8;
	else if (!(h->flags & PS_MSG_F_NOKEYS))
		need += h->nkeys;
	if (need > h->raw_len)
		return wire_fail(err, errlen, "payload too short for %u keys "
		    "(%u bytes)", h->nkeys, h->raw_len);
	return 0;
}

/* Validate a parsed header; see ps_frame_peek(). */
static int
peek_hdr(const uint8_t *p, size_t max_payload, struct wire_hdr *h, char *err,
    size_t errlen)
{
	wire_hdr_get(p, h);
	if (h->magic != PS_FRAME_MAGIC)
		return wire_fail(err, errlen, "bad magic 0x%08x", h->magic);
	if (h->version != PS_FRAME_VERSION)
		return wire_fail(err, errlen, "unsupported version %u",
		    h->version);
	if (ps_crc32c(0, p, 48) != h->header_crc)
		return wire_fail(err, errlen, "header checksum mismatch");
	if (h->type < 1 || h->type > PS_MSG_TYPE_MAX)
		return wire_fail(err, errlen, "unknown message type %u",
		    h->type);
	if (h->flags & ~PS_MSG_F_ALL)
		return wire_fail(err, errlen, "unknown flags 0x%02x", h->flags);
	if (h->reserved != 0)
		return wire_fail(err, errlen, "reserved field is 0x%04x, not 0",
		    h->reserved);
	return peek_limits(h, max_payload, err, errlen);
}

/* Validate a frame header and tell the frame's length; see wire.h. */
int
ps_frame_peek(const uint8_t hdr[PS_FRAME_HDR_LEN], size_t max_payload,
    size_t *frame_len, char *err, size_t errlen)
{
	struct wire_hdr h;

	if (peek_hdr(hdr, max_payload, &h, err, errlen) != 0)
		return -1;
	*frame_len = PS_FRAME_HDR_LEN + (size_t)h.wire_len;
	return 0;
}

/* Decode n delta-varint keys from [*pp, end) into keys; advance *pp. */
static int
decode_keys(const uint8_t **pp, const uint8_t *end, uint64_t *keys,
    uint32_t n, char *err, size_t errlen)
{
	const uint8_t *p = *pp;
	uint64_t key = 0, d;
	uint32_t i;
	int r;

	for (i = 0; i < n; i++) {
		if (p < end && *p < 0x80)
			d = *p++;
		else if ((r = ps_varint_get(p, end, &d)) > 0)
			p += r;
		else
			return wire_fail(err, errlen, "%s varint in key %u",
			    r == PS_VARINT_TRUNCATED ? "truncated" : "overlong",
			    i);
		if (i > 0 && (d == 0 || key + d < key))
			return wire_fail(err, errlen, "keys not ascending "
			    "(key %u)", i);
		key += d;
		keys[i] = key;
	}
	*pp = p;
	return 0;
}

/* Allocate n bytes for a decoded section (NULL when n is 0). */
static int
decode_alloc(void **out, size_t n, char *err, size_t errlen)
{
	*out = NULL;
	if (n == 0)
		return 0;
	if ((*out = malloc(n)) == NULL)
		return wire_fail(err, errlen, "out of memory for %zu bytes", n);
	return 0;
}

/* Expand FP16 values at [*pp, end) into m->vals; advance *pp. */
static int
decode_fp16(const uint8_t **pp, struct ps_msg *m, char *err, size_t errlen)
{
	size_t k, nval = (size_t)m->nkeys * m->width;
	const uint8_t *p = *pp;
	float scale[PS_MSG_WIDTH_MAX];
	int c;

	memcpy(scale, p, m->width * sizeof(float));
	p += m->width * sizeof(float);
	for (c = 0; c < m->width; c++)
		if (!isfinite(scale[c]) || !(scale[c] > 0))
			return wire_fail(err, errlen, "bad fp16 scale %g in "
			    "column %d", (double)scale[c], c);
	for (k = 0; k < nval; k++, p += 2)
		m->vals[k] = ps_half_to_float(get16(p)) * scale[k % m->width];
	*pp = p;
	return 0;
}

/* Split the raw payload [p, end) into m's sections. */
static int
decode_raw(const uint8_t *p, const uint8_t *end, struct ps_msg *m,
    char *err, size_t errlen)
{
	size_t nval = (size_t)m->nkeys * m->width, need;
	int fp16 = (m->flags & PS_MSG_F_FP16) != 0;

	if (m->flags & PS_MSG_F_KEYSIG) {
		if (end - p < 8)
			return wire_fail(err, errlen, "truncated key signature");
		m->keysig = get64(p);
		p += 8;
	} else if (!(m->flags & PS_MSG_F_NOKEYS)) {
		if (decode_alloc((void **)&m->keys, m->nkeys * sizeof(uint64_t),
		    err, errlen) != 0 ||
		    decode_keys(&p, end, m->keys, m->nkeys, err, errlen) != 0)
			return -1;
	}
	need = m->naux * sizeof(double) +
	    (fp16 ? m->width * sizeof(float) + nval * 2 : nval * sizeof(float));
	if ((size_t)(end - p) < need)
		return wire_fail(err, errlen, "payload length mismatch "
		    "(%zu bytes left, sections need %zu)", (size_t)(end - p),
		    need);
	memcpy(m->aux, p, m->naux * sizeof(double));
	p += m->naux * sizeof(double);
	if (decode_alloc((void **)&m->vals, nval * sizeof(float), err,
	    errlen) != 0)
		return -1;
	if (fp16) {
		if (decode_fp16(&p, m, err, errlen) != 0)
			return -1;
	} else {
		if (nval > 0)
			memcpy(m->vals, p, nval * sizeof(float));
		p += nval * sizeof(float);
	}
	m->bloblen = (size_t)(end - p);
	if (m->bloblen == 0)
		return 0;
	if (decode_alloc((void **)&m->blob, m->bloblen + 1, err, errlen) != 0)
		return -1;
	memcpy(m->blob, p, m->bloblen);
	m->blob[m->bloblen] = '\0';
	return 0;
}

/* Copy the header fields into m. */
static void
decode_fields(const struct wire_hdr *h, struct ps_msg *m)
{
	memset(m, 0, sizeof *m);
	m->type = h->type;
	m->flags = h->flags & ~PS_MSG_F_LZ4;
	m->width = h->width;
	m->sender = h->sender;
	m->channel = h->channel;
	m->ring_version = h->ring_version;
	m->timestamp = h->timestamp;
	m->nkeys = h->nkeys;
	m->naux = h->naux;
}

/* Decompress an LZ4 payload into a new raw_len buffer, or NULL. */
static uint8_t *
decode_lz4(const uint8_t *src, const struct wire_hdr *h, char *err,
    size_t errlen)
{
	uint8_t *raw;
	int n;

	if (decode_alloc((void **)&raw, h->raw_len, err, errlen) != 0)
		return NULL;
	n = LZ4_decompress_safe((const char *)src, (char *)raw,
	    (int)h->wire_len, (int)h->raw_len);
	if (n < 0 || (uint32_t)n != h->raw_len) {
		free(raw);
		wire_fail(err, errlen, "bad lz4 payload");
		return NULL;
	}
	return raw;
}

/* Decode one whole frame; see wire.h. */
int
ps_msg_decode(const uint8_t *frame, size_t len, struct ps_msg *m,
    char *err, size_t errlen)
{
	const uint8_t *payload = frame + PS_FRAME_HDR_LEN;
	struct wire_hdr h;
	uint8_t *raw = NULL;
	int rc;

	memset(m, 0, sizeof *m);
	if (len < PS_FRAME_HDR_LEN)
		return wire_fail(err, errlen, "truncated frame (%zu of %d "
		    "header bytes)", len, PS_FRAME_HDR_LEN);
	if (peek_hdr(frame, PS_FRAME_MAX_PAYLOAD, &h, err, errlen) != 0)
		return -1;
	if (len != PS_FRAME_HDR_LEN + (size_t)h.wire_len)
		return wire_fail(err, errlen, "%s frame (%zu bytes, header "
		    "says %zu)", len < PS_FRAME_HDR_LEN + (size_t)h.wire_len ?
		    "truncated" : "overlong", len,
		    PS_FRAME_HDR_LEN + (size_t)h.wire_len);
	if (ps_crc32c(0, payload, h.wire_len) != h.payload_crc)
		return wire_fail(err, errlen, "payload checksum mismatch");
	if ((h.flags & PS_MSG_F_LZ4) &&
	    (raw = decode_lz4(payload, &h, err, errlen)) == NULL)
		return -1;
	decode_fields(&h, m);
	rc = raw != NULL ? decode_raw(raw, raw + h.raw_len, m, err, errlen) :
	    decode_raw(payload, payload + h.raw_len, m, err, errlen);
	free(raw);
	if (rc != 0)
		ps_msg_release(m);
	return rc;
}

/* Free the decoded arrays of m and zero it. */
void
ps_msg_release(struct ps_msg *m)
{
	free(m->keys);
	free(m->vals);
	free(m->blob);
	memset(m, 0, sizeof *m);
}

/* Move m, arrays and all, into *dst; m is left zeroed. */
void
ps_msg_take(struct ps_msg *dst, struct ps_msg *m)
{
	*dst = *m;
	memset(m, 0, sizeof *m);
}
