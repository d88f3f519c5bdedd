/*
 * sha256.c: SHA-256 as FIPS 180-4 section 6.2 gives it, and HMAC over it
 * as RFC 2104 does.  Written for clarity, not speed: the handshake hashes
 * a few hundred bytes per connection.
 */
#include "config.h"

#include <string.h>

#include "util/sha256.h"

/* FIPS 180-4 4.2.2: the first 32 bits of the cube roots of the primes. */
static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
	0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
	0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
	0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
	0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
	0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
	0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
	0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

/* FIPS 180-4 5.3.3: the first 32 bits of the square roots of 2..19. */
static const uint32_t sha256_h0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
};

#define ROTR(x, n)	(((x) >> (n)) | ((x) << (32 - (n))))
#define CH(x, y, z)	(((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z)	(((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define BSIG0(x)	(ROTR(x, 2) ^ ROTR(x, 13) ^ ROTR(x, 22))
#define BSIG1(x)	(ROTR(x, 6) ^ ROTR(x, 11) ^ ROTR(x, 25))
#define SSIG0(x)	(ROTR(x, 7) ^ ROTR(x, 18) ^ ((x) >> 3))
#define SSIG1(x)	(ROTR(x, 17) ^ ROTR(x, 19) ^ ((x) >> 10))

/* The big-endian 32-bit word at p. */
static uint32_t
sha256_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Store v big-endian at p. */
static void
sha256_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* FIPS 180-4 6.2.2: fold one 64-byte block into the hash value. */
static void
sha256_block(uint32_t h[8], const uint8_t *block)
{
	uint32_t w[64], v[8], t1, t2;
	int t;

	for (t = 0; t < 16; t++)
		w[t] = sha256_be32(block + 4 * t);
	for (; t < 64; t++)
		w[t] = SSIG1(w[t - 2]) + w[t - 7] + SSIG0(w[t - 15]) +
		    w[t - 16];
	memcpy(v, h, sizeof v);
	for (t = 0; t < 64; t++) {
		t1 = v[7] + BSIG1(v[4]) + CH(v[4], v[5], v[6]) +
		    sha256_k[t] + w[t];
		t2 = BSIG0(v[0]) + MAJ(v[0], v[1], v[2]);
		memmove(v + 1, v, 7 * sizeof *v);
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (t = 0; t < 8; t++)
		h[t] += v[t];
	ps_wipe(w, sizeof w);
	ps_wipe(v, sizeof v);
}

void
ps_sha256_init(struct ps_sha256 *ctx)
{
	memcpy(ctx->h, sha256_h0, sizeof ctx->h);
	ctx->nbytes = 0;
	ctx->nbuf = 0;
}

void
ps_sha256_update(struct ps_sha256 *ctx, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t n;

	ctx->nbytes += len;
	while (len > 0) {
		if (ctx->nbuf == 0 && len >= PS_SHA256_BLOCK) {
			sha256_block(ctx->h, p);
			p += PS_SHA256_BLOCK;
			len -= PS_SHA256_BLOCK;
			continue;
		}
		n = PS_SHA256_BLOCK - ctx->nbuf;
		if (n > len)
			n = len;
		memcpy(ctx->buf + ctx->nbuf, p, n);
		ctx->nbuf += n;
		p += n;
		len -= n;
		if (ctx->nbuf == PS_SHA256_BLOCK) {
			sha256_block(ctx->h, ctx->buf);
			ctx->nbuf = 0;
		}
	}
}

/* FIPS 180-4 5.1.1: a 1 bit, zeros, the message length in bits. */
void
ps_sha256_final(struct ps_sha256 *ctx, uint8_t out[PS_SHA256_LEN])
{
	uint64_t bits = ctx->nbytes * 8;
	int i;

	ctx->buf[ctx->nbuf++] = 0x80;
	if (ctx->nbuf > PS_SHA256_BLOCK - 8) {
		memset(ctx->buf + ctx->nbuf, 0, PS_SHA256_BLOCK - ctx->nbuf);
		sha256_block(ctx->h, ctx->buf);
		ctx->nbuf = 0;
	}
	memset(ctx->buf + ctx->nbuf, 0, PS_SHA256_BLOCK - 8 - ctx->nbuf);
	sha256_put_be32(ctx->buf + 56, (uint32_t)(bits >> 32));
	sha256_put_be32(ctx->buf + 60, (uint32_t)bits);
	sha256_block(ctx->h, ctx->buf);
	for (i = 0; i < 8; i++)
		sha256_put_be32(out + 4 * i, ctx->h[i]);
	ps_wipe(ctx, sizeof *ctx);
}

void
ps_sha256(const void *data, size_t len, uint8_t out[PS_SHA256_LEN])
{
	struct ps_sha256 ctx;

	ps_sha256_init(&ctx);
	ps_sha256_update(&ctx, data, len);
	ps_sha256_final(&ctx, out);
}

/*
 * RFC 2104: H(K ^ opad, H(K ^ ipad, text)), K padded with zeros to a
 * block (hashed first if longer).  Both inner and outer contexts start
 * here, so the key itself is not kept.
 */
void
ps_hmac_sha256_init(struct ps_hmac_sha256 *ctx, const void *key,
    size_t keylen)
{
	uint8_t k[PS_SHA256_BLOCK], pad[PS_SHA256_BLOCK];
	size_t i;

	memset(k, 0, sizeof k);
	if (keylen > PS_SHA256_BLOCK)
		ps_sha256(key, keylen, k);
	else if (keylen > 0)
		memcpy(k, key, keylen);
	for (i = 0; i < sizeof pad; i++)
		pad[i] = k[i] ^ 0x36;
	ps_sha256_init(&ctx->inner);
	ps_sha256_update(&ctx->inner, pad, sizeof pad);
	for (i = 0; i < sizeof pad; i++)
		pad[i] = k[i] ^ 0x5c;
	ps_sha256_init(&ctx->outer);
	ps_sha256_update(&ctx->outer, pad, sizeof pad);
	ps_wipe(k, sizeof k);
	ps_wipe(pad, sizeof pad);
}

void
ps_hmac_sha256_update(struct ps_hmac_sha256 *ctx, const void *data,
    size_t len)
{
	ps_sha256_update(&ctx->inner, data, len);
}

void
ps_hmac_sha256_final(struct ps_hmac_sha256 *ctx, uint8_t out[PS_SHA256_LEN])
{
	uint8_t ihash[PS_SHA256_LEN];

	ps_sha256_final(&ctx->inner, ihash);
	ps_sha256_update(&ctx->outer, ihash, sizeof ihash);
	ps_sha256_final(&ctx->outer, out);
	ps_wipe(ihash, sizeof ihash);
}

void
ps_hmac_sha256(const void *key, size_t keylen, const void *data, size_t len,
    uint8_t out[PS_SHA256_LEN])
{
	struct ps_hmac_sha256 ctx;

	ps_hmac_sha256_init(&ctx, key, keylen);
	ps_hmac_sha256_update(&ctx, data, len);
	ps_hmac_sha256_final(&ctx, out);
}

/* memset through a volatile pointer, so that it is never optimised out. */
static void *(*const volatile sha256_memset)(void *, int, size_t) = memset;

void
ps_wipe(void *p, size_t n)
{
	sha256_memset(p, 0, n);
}
