/*
 * sha256.h: SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), enough for
 * the connection handshake (auth.h) without a crypto library.
 *
 * The contexts are plain structs the caller owns (on the stack, usually);
 * nothing is allocated.  *_final() wipes the context.
 */
#ifndef PS_SHA256_H
#define PS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define PS_SHA256_LEN		32	/* digest bytes */
#define PS_SHA256_BLOCK		64	/* block bytes */

struct ps_sha256 {
	uint32_t	h[8];
	uint64_t	nbytes;			/* message bytes so far */
	uint8_t		buf[PS_SHA256_BLOCK];	/* a partial block */
	size_t		nbuf;
};

struct ps_hmac_sha256 {
	struct ps_sha256 inner, outer;
};

void	ps_sha256_init(struct ps_sha256 *ctx);
void	ps_sha256_update(struct ps_sha256 *ctx, const void *data, size_t len);
void	ps_sha256_final(struct ps_sha256 *ctx, uint8_t out[PS_SHA256_LEN]);
/* The digest of len bytes at data, in one call. */
void	ps_sha256(const void *data, size_t len, uint8_t out[PS_SHA256_LEN]);

/* HMAC with a key of any length (longer than a block: hashed first). */
void	ps_hmac_sha256_init(struct ps_hmac_sha256 *ctx, const void *key,
	    size_t keylen);
void	ps_hmac_sha256_update(struct ps_hmac_sha256 *ctx, const void *data,
	    size_t len);
void	ps_hmac_sha256_final(struct ps_hmac_sha256 *ctx,
	    uint8_t out[PS_SHA256_LEN]);
/* The MAC of len bytes at data under key, in one call. */
void	ps_hmac_sha256(const void *key, size_t keylen, const void *data,
	    size_t len, uint8_t out[PS_SHA256_LEN]);

/* Zero n bytes in a way the compiler may not drop (secrets, keys). */
void	ps_wipe(void *p, size_t n);

#endif
