/*
 * ring.h: the consistent-hash ring that maps feature ids to servers, and
 * the versioned text file that stores it (pskit-ring(5)).
 *
 * Placement (the rule pskit-ring(5) documents):
 *   - a feature id fid >= 1 sits at position ps_key_mix(fid);
 *   - server s with address A has vnodes points, point v (0 <= v < vnodes)
 *     at position ps_key_mix(fnv1a64(A) ^ ps_key_mix(v + 1)), where
 *     fnv1a64 is 64-bit FNV-1a over the bytes of A;
 *   - points are sorted by (position, server index); a point owns the
 *     positions in (previous point, this point], wrapping at 2^64;
 *   - the replicas of a segment are the next `replicas` servers clockwise
 *     that differ from its owner and from each other.
 * Point positions depend only on the address and v, so adding a server
 * moves keys only to the new server.
 *
 * A ring may have no servers (a coordinator's before any server joined)
 * and fewer than replicas + 1 servers (a segment then has fewer replicas);
 * only ps_ring_build() insists on both.  Lookups need at least one server.
 *
 * Every change of the server set bumps the version (ps_ring_add,
 * ps_ring_remove), so two rings with the same version are the same ring.
 *
 * A struct ps_ring owns its servers, their addr strings and its points;
 * ps_ring_release() frees them all.
 */
#ifndef PS_RING_H
#define PS_RING_H

#include <stddef.h>
#include <stdint.h>

#define PS_RING_FORMAT		1	/* the "pskit-ring N" this code writes */
#define PS_RING_MAX_SERVERS	4096
#define PS_RING_MAX_VNODES	4096
#define PS_RING_MAX_POINTS	(1u << 20)	/* servers * vnodes */
#define PS_RING_MAX_ADDR	255	/* bytes in "host:port" */

/* Return values of ps_ring_load/ps_ring_save besides 0. */
#define PS_RING_EDATA		(-1)	/* invalid contents or arguments */
#define PS_RING_ESYS		(-2)	/* cannot open/read/write; errno set */

struct ps_ring {
	uint32_t	 format;	/* file format, PS_RING_FORMAT */
	uint32_t	 version;	/* ring version, bumped on each change */
	uint32_t	 vnodes;	/* points per server */
	uint32_t	 replicas;	/* extra copies of each segment */
	size_t		 nservers;
	struct ps_ring_server {
		uint32_t	 id;	/* unique, as in the file */
		char		*addr;	/* "host:port" */
	}		*servers;
	size_t		 npoints;	/* nservers * vnodes */
	struct ps_ring_point {
		uint64_t	 pos;
		uint32_t	 server;	/* index into servers */
		uint32_t	 other;		/* how many points clockwise the
						   next point of another server
						   is (npoints: none) */
	}		*points;	/* sorted by pos */
};

/*
 * Build a ring version 1 over n addresses; server i gets id i.  Returns 0,
 * or PS_RING_EDATA with a message in err (bad address, duplicate, limits).
 */
int	ps_ring_build(struct ps_ring *r, const char *const *addrs, size_t n,
	    uint32_t vnodes, uint32_t replicas, char *err, size_t errlen);
/* An empty ring of version 0 (no servers) with these settings. */
void	ps_ring_empty(struct ps_ring *r, uint32_t vnodes, uint32_t replicas);
/*
 * Parse the pskit-ring(5) text in text[0, len) strictly and place the
 * points; errors read "name:line: reason" (PS_RING_EDATA).
 */
int	ps_ring_parse(const char *text, size_t len, const char *name,
	    struct ps_ring *r, char *err, size_t errlen);
/* The pskit-ring(5) text of r, NUL-terminated; the caller frees *text. */
void	ps_ring_format(const struct ps_ring *r, char **text, size_t *len);
/* Read and parse a ring file (PS_RING_ESYS if it cannot be read). */
int	ps_ring_load(const char *path, struct ps_ring *r, char *err,
	    size_t errlen);
/* Write r to path atomically (temporary, fsync, rename); "-" is stdout. */
int	ps_ring_save(const char *path, const struct ps_ring *r, char *err,
	    size_t errlen);
/*
 * Add a server with the next free id (one above the largest) or remove
 * one by address; either bumps the version.  0, or PS_RING_EDATA with the
 * reason in err and r unchanged.
 */
int	ps_ring_add(struct ps_ring *r, const char *addr, char *err,
	    size_t errlen);
int	ps_ring_remove(struct ps_ring *r, const char *addr, char *err,
	    size_t errlen);
/* Index into r->servers of the server with this address, or -1. */
long	ps_ring_find(const struct ps_ring *r, const char *addr);
/* NULL if addr is a valid ring address, else what is wrong with it. */
const char *ps_ring_addr_check(const char *addr);
/* Make dst a deep copy of src (which stays the caller's). */
void	ps_ring_copy(struct ps_ring *dst, const struct ps_ring *src);
/* Index into r->servers of the primary server of fid. */
size_t	ps_ring_lookup(const struct ps_ring *r, uint64_t fid);
/* Fill out with the primary then up to r->replicas more; returns the count. */
size_t	ps_ring_replicas(const struct ps_ring *r, uint64_t fid, size_t *out,
	    size_t max);
/* Index of the first point at or after position pos (wrapping). */
size_t	ps_ring_point_at(const struct ps_ring *r, uint64_t pos);
/* Replicas of the segment ending at point p: as ps_ring_replicas(). */
size_t	ps_ring_point_replicas(const struct ps_ring *r, size_t p, size_t *out,
	    size_t max);
/* 64-bit FNV-1a of a string, the server half of the point hash. */
uint64_t ps_ring_addr_hash(const char *addr);
/* Free what r owns and zero it. */
void	ps_ring_release(struct ps_ring *r);

#endif
