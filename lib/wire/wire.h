/*
 * wire.h: the pskit wire protocol: frame layout and the message codec.
 *
 * A frame is a 52-byte header followed by wire_len payload bytes.  All
 * integers are little-endian.
 *
 *   off size field
 *     0  u32 magic        0x314b5350, the bytes 'P' 'S' 'K' '1'
 *     4  u8  version      1
 *     5  u8  type         enum ps_msg_type
 *     6  u8  flags        PS_MSG_F_*; unknown bits are rejected
 *     7  u8  width        float32 values per key, 0..PS_MSG_WIDTH_MAX
 *     8  u32 sender       node id of the sender
 *    12  u32 channel      which vector (weights, gradients, ...)
 *    16  u64 timestamp    task id / iteration
 *    24  u32 ring_version ring version the sender acts on
 *    28  u32 nkeys        keys in the message (also with NOKEYS)
 *    32  u16 naux         f64 scalars, 0..PS_MSG_AUX_MAX
 *    34  u16 reserved     0
 *    36  u32 raw_len      payload bytes before compression
 *    40  u32 wire_len     payload bytes that follow the header
 *    44  u32 payload_crc  CRC32C of the wire_len payload bytes
 *    48  u32 header_crc   CRC32C of header bytes 0..47
 *
 * The raw payload (raw_len bytes) is, in order:
 *
 *   keys   unless PS_MSG_F_NOKEYS: nkeys strictly ascending uint64 keys,
 *          the first as a varint (varint.h), each next one as the varint
 *          delta (>= 1) from the one before; with PS_MSG_F_KEYSIG instead
 *          the u64 signature of a key list of nkeys keys that the sender
 *          sent before with PS_MSG_F_KEYCACHE (keycache.h)
 *   aux    naux IEEE-754 doubles, the message's scalars; what each
 *          means is in its type's codec (msg_round.h, msg_online.h,
 *          msg_ctl.h, msg_coord.h, lib/cluster/hello.h), the only code
 *          that indexes them
 *   vals   nkeys * width IEEE-754 floats, key-major: vals[k * width + c];
 *          with PS_MSG_F_FP16 instead width float scales s[c] (powers of
 *          two) followed by nkeys * width binary16 halves h, the value
 *          being h * s[c] (half.h): lossy, half the bytes
 *   blob   every remaining byte (error text, stats text, ...)
 *
 * With PS_MSG_F_LZ4 the wire payload is one LZ4 block that decompresses to
 * exactly raw_len bytes; otherwise wire_len == raw_len.  The encoder sets
 * it only when the block is smaller than the raw payload.
 *
 * Filters on the wire: PS_MSG_F_KEYCACHE asks the receiver to remember the
 * message's key list (so it goes with the keys: never with NOKEYS or
 * KEYSIG); a later PS_MSG_F_KEYSIG names it by signature.  A
 * receiver that does not hold the list drops the message and answers
 * KEYS_MISSING, with the dropped message's timestamp, channel, nkeys and
 * signature (KEYSIG), its type as its scalar (msg_ctl.h) and the reason as
 * blob text; the sender forgets the signature and sends the message again
 * with its keys.
 *
 * Limits, checked from the header before anything is allocated: raw_len
 * and wire_len <= PS_FRAME_MAX_PAYLOAD (or a receiver's lower limit, such
 * as ps-server --max-frame); an LZ4 raw_len at most 255 * wire_len + 64,
 * what an LZ4 block can expand to; width <= PS_MSG_WIDTH_MAX; naux <=
 * PS_MSG_AUX_MAX; the fixed-size sections (a key takes at least one byte)
 * fit in raw_len.
 */
#ifndef PS_WIRE_H
#define PS_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <event2/buffer.h>

#define PS_FRAME_MAGIC		0x314b5350u
#define PS_FRAME_VERSION	1
#define PS_FRAME_HDR_LEN	52
#define PS_FRAME_MAX_PAYLOAD	(64u << 20)
#define PS_FRAME_LZ4_MIN	256	/* smaller payloads are never compressed */

#define PS_MSG_WIDTH_MAX	8
#define PS_MSG_AUX_MAX		18	/* a newton step push: 6 + PS_NEWTON_TRIALS */

#define PS_MSG_F_LZ4		0x01	/* payload is one LZ4 block */
#define PS_MSG_F_NOKEYS		0x02	/* keys omitted: those of my request */
#define PS_MSG_F_CURRENT	0x04	/* PULL: reply with current values now */
#define PS_MSG_F_KEYSIG		0x08	/* keys given by a cached signature */
#define PS_MSG_F_KEYCACHE	0x10	/* receiver: remember this key list */
#define PS_MSG_F_FP16		0x20	/* values as scaled binary16 */
#define PS_MSG_F_ALL		0x3f

enum ps_msg_type {
	PS_MSG_HELLO = 1,
	PS_MSG_HELLO_OK,
	PS_MSG_ERROR,
	PS_MSG_PUSH,
	PS_MSG_PULL,
	PS_MSG_PULL_REPLY,
	PS_MSG_BYE,
	PS_MSG_SAVE,
	PS_MSG_SAVE_OK,
	PS_MSG_STATS,
	PS_MSG_STATS_REPLY,
	PS_MSG_KEYS_MISSING,
	PS_MSG_REGISTER,	/* node -> coordinator: join, with its role */
	PS_MSG_RING,		/* coordinator -> node: a ring version */
	PS_MSG_HEARTBEAT,	/* node -> coordinator: still alive */
	PS_MSG_REPLICATE,	/* primary -> replica: a round's new values */
	PS_MSG_REPLICATE_OK,	/* replica -> primary: they are held */
	PS_MSG_AUTH,		/* challenge or HMAC answer (auth.h) */
	PS_MSG_TYPE_MAX = PS_MSG_AUTH
};

/*
 * One message.  Filled by the caller for ps_msg_encode(), which only reads
 * it.  ps_msg_decode() allocates keys, vals and blob, which the struct then
 * owns until ps_msg_release(); each is NULL when empty.  A decoded blob has
 * a NUL after its bloblen bytes, so text can be printed directly.
 */
struct ps_msg {
	uint8_t		 type;		/* enum ps_msg_type */
	uint8_t		 flags;		/* PS_MSG_F_*; LZ4 is the codec's */
	uint8_t		 width;		/* floats per key */
	uint32_t	 sender;
	uint32_t	 channel;
	uint32_t	 ring_version;
	uint64_t	 timestamp;
	uint32_t	 nkeys;
	uint64_t	*keys;		/* [nkeys] ascending; NULL with NOKEYS */
	uint64_t	 keysig;	/* with KEYSIG: the list's signature */
	uint16_t	 naux;
	double		 aux[PS_MSG_AUX_MAX];
	float		*vals;		/* [nkeys * width] */
	size_t		 bloblen;
	char		*blob;
};

/* "PUSH", "PULL_REPLY", ...; "UNKNOWN" for anything else. */
const char	*ps_msg_type_name(int type);

/* What the filters of frames did to their payloads, in bytes. */
struct ps_wire_sizes {
	uint64_t keys_full, keys_sent;	/* key sections in full, as sent */
	uint64_t vals_full, vals_sent;	/* values as float32, as sent */
	uint64_t raw_len, wire_len;	/* payloads before and after LZ4 */
};

/*
 * The sizes of a frame carrying m with wire_len payload bytes, m's flags
 * saying how it travels (a decoded message keeps FP16 and, until its keys
 * are resolved, KEYSIG); keys_full needs m->keys, else counts as sent.
 */
void	ps_wire_sizes_of(const struct ps_msg *m, size_t wire_len,
	    struct ps_wire_sizes *sz);
/* *sum += *add, field by field. */
void	ps_wire_sizes_add(struct ps_wire_sizes *sum,
	    const struct ps_wire_sizes *add);

/*
 * Append m as one frame to out; LZ4-compress the payload when allow_lz4 and
 * that makes it smaller.  With KEYSIG, m->keys (if not NULL) only serves to
 * count keys_full.  Return the frame's size in bytes and, if sz is not
 * NULL, fill *sz; or -1 with the reason in err (unknown type, width or
 * naux too large, keys not ascending, a value FP16 cannot carry, frame too
 * large); out is then unchanged.
 */
int	ps_msg_encode(const struct ps_msg *m, struct evbuffer *out,
	    int allow_lz4, struct ps_wire_sizes *sz, char *err, size_t errlen);

/*
 * Check a frame header: magic, version, header checksum, type, flags and
 * limits, the raw and wire payload lengths against max_payload (at most
 * PS_FRAME_MAX_PAYLOAD, which larger values mean).  Return 0 and the whole
 * frame's length (header included) in *frame_len, or -1 with the reason in
 * err ("frame too large (N bytes, limit M)" for a payload over the limit).
 */
int	ps_frame_peek(const uint8_t hdr[PS_FRAME_HDR_LEN], size_t max_payload,
	    size_t *frame_len, char *err, size_t errlen);

/*
 * Decode the len-byte frame at frame (header included) into *m, which is
 * overwritten.  Return 0, or -1 with the reason in err and *m zeroed.  On
 * success the caller must ps_msg_release(m).  Allocation is bounded by the
 * checked header: raw_len for an LZ4 payload plus at most 8 * raw_len for
 * the keys and 2 * raw_len for values and blob.  FP16 values come back as
 * floats (the flag stays, to tell how they travelled); with KEYSIG, keys
 * is NULL and keysig holds the signature for the caller to resolve.
 */
int	ps_msg_decode(const uint8_t *frame, size_t len, struct ps_msg *m,
	    char *err, size_t errlen);

/* Free what ps_msg_decode() allocated and zero *m; fine on a zeroed struct. */
void	ps_msg_release(struct ps_msg *m);
/*
 * Keep a decoded message: move *m into *dst, which must own nothing (it
 * is overwritten), and zero *m, so that releasing m frees nothing.  How a
 * handler keeps what its dispatcher is about to release.
 */
void	ps_msg_take(struct ps_msg *dst, struct ps_msg *m);

#endif
