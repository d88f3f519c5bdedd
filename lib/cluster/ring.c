/*
 * ring.c: consistent hashing of feature ids onto servers, and the ring file.
 *
 * The placement rule is spelt out in ring.h and pskit-ring(5); this file
 * builds the sorted point array from the server list, answers lookups by
 * binary search, and reads and writes the text form.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/ring.h"
#include "util/atomicfile.h"
#include "util/errbuf.h"
#include "util/keyhash.h"
#include "util/parsenum.h"
#include "util/xmalloc.h"

#define RING_MAX_LINE	1024
#define RING_MAGIC	"pskit-ring"
#define RING_MAX_FILE	(16 << 20)	/* bytes in a ring file */

/* What the parser has seen so far. */
struct ring_parse {
	const char	*path;
	unsigned long	 line;
	int		 seen_magic, seen_version, seen_vnodes, seen_replicas;
	char		*err;
	size_t		 errlen;
};

/* 64-bit FNV-1a over the address bytes. */
uint64_t
ps_ring_addr_hash(const char *addr)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *addr != '\0'; addr++) {
		h ^= (unsigned char)*addr;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Order points by position, then by server index so ties are stable. */
static int
ring_point_cmp(const void *a, const void *b)
{
	const struct ps_ring_point *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return (x->server > y->server) - (x->server < y->server);
}

/*
 * Set each point's distance to the next point clockwise of another server,
 * walking back twice around the ring (the second lap wraps the distances
 * of the points before the last run); npoints when every point is one
 * server's.  The replica walk jumps over a run of one server's points.
 */
static void
ring_link_others(struct ps_ring *r)
{
	size_t n = r->npoints, i, k;

	for (i = 0; i < n; i++)
		r->points[i].other = (uint32_t)n;
	if (n < 2)
		return;
	for (k = 2 * n; k-- > 0;) {
		size_t p = k % n, q = (p + 1) % n;

		if (r->points[q].server != r->points[p].server)
			r->points[p].other = 1;
		else if (r->points[q].other < n)
			r->points[p].other = r->points[q].other + 1;
	}
}

/* Place vnodes points per server and sort them, replacing any old ones. */
static void
ring_place(struct ps_ring *r)
{
	size_t s, k = 0;
	uint32_t v;

	free(r->points);
	r->npoints = r->nservers * r->vnodes;
	r->points = xcalloc(r->npoints, sizeof *r->points);
	for (s = 0; s < r->nservers; s++) {
		uint64_t h = ps_ring_addr_hash(r->servers[s].addr);

		for (v = 0; v < r->vnodes; v++) {
			r->points[k].pos = ps_key_mix(h ^ ps_key_mix((uint64_t)v + 1));
			r->points[k++].server = (uint32_t)s;
		}
	}
	qsort(r->points, r->npoints, sizeof *r->points, ring_point_cmp);
	ring_link_others(r);
}

/*
 * An address is "host:port": 1-255 bytes from [A-Za-z0-9.:_%[]-], a
 * non-empty host and a decimal port 1-65535 after the last colon.  The
 * narrow alphabet keeps addresses safe in TSV and JSON without quoting.
 */
const char *
ps_ring_addr_check(const char *addr)
{
	const char *colon = strrchr(addr, ':'), *p;
	uint64_t port;
	size_t len = strlen(addr);

	if (len == 0 || len > PS_RING_MAX_ADDR)
		return "length must be 1-255 bytes";
	for (p = addr; *p != '\0'; p++)
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789.:_%[]-", *p) == NULL)
			return "unexpected character";
	if (colon == NULL || colon == addr)
		return "expected host:port";
	if (strlen(colon + 1) > 5 ||
	    ps_parsenum_u64_in(colon + 1, 1, 65535, &port) != PS_NUM_OK)
		return "bad port";
	return NULL;
}

/*
 * Check the limits every ring keeps.  A ring may have no servers (a
 * coordinator's, before any server joined) and fewer servers than
 * replicas + 1 (one that lost servers): a segment then has fewer replicas.
 */
static const char *
ring_limits_problem(size_t nservers, uint32_t vnodes, uint32_t replicas)
{
	if (nservers > PS_RING_MAX_SERVERS)
		return "too many servers (limit 4096)";
	if (vnodes < 1 || vnodes > PS_RING_MAX_VNODES)
		return "vnodes must be 1-4096";
	if (nservers * vnodes > PS_RING_MAX_POINTS)
		return "servers times vnodes exceeds 1048576";
	if (replicas >= PS_RING_MAX_SERVERS)
		return "replicas must be below 4096";
	return NULL;
}

/* What ps_ring_build() asks of a new ring besides the limits. */
static const char *
ring_build_problem(size_t nservers, uint32_t replicas)
{
	if (nservers == 0)
		return "no servers";
	if (replicas >= nservers)
		return "replicas must be below the number of servers";
	return NULL;
}

/* Index of a server with this id or address in r, or -1. */
static long
ring_find_dup(const struct ps_ring *r, uint32_t id, const char *addr,
    int *same_id)
{
	size_t i;

	for (i = 0; i < r->nservers; i++) {
		*same_id = r->servers[i].id == id;
		if (*same_id || strcmp(r->servers[i].addr, addr) == 0)
			return (long)i;
	}
	return -1;
}

/* Append a server; the caller has checked it. */
static void
ring_add_server(struct ps_ring *r, uint32_t id, const char *addr)
{
	r->servers = xreallocarray(r->servers, r->nservers + 1,
	    sizeof *r->servers);
	r->servers[r->nservers].id = id;
	r->servers[r->nservers++].addr = xstrdup(addr);
}

/* Build a version 1 ring; see ring.h. */
int
ps_ring_build(struct ps_ring *r, const char *const *addrs, size_t n,
    uint32_t vnodes, uint32_t replicas, char *err, size_t errlen)
{
	const char *why;
	size_t i;
	int same;

	memset(r, 0, sizeof *r);
	if ((why = ring_build_problem(n, replicas)) != NULL ||
	    (why = ring_limits_problem(n, vnodes, replicas)) != NULL)
		return ps_errbuf(err, errlen, PS_RING_EDATA, "%s", why);
	for (i = 0; i < n; i++) {
		if ((why = ps_ring_addr_check(addrs[i])) != NULL) {
			ps_ring_release(r);
			return ps_errbuf(err, errlen, PS_RING_EDATA,
			    "invalid address '%s': %s", addrs[i], why);
		}
		if (ring_find_dup(r, (uint32_t)i, addrs[i], &same) >= 0) {
			ps_ring_release(r);
			return ps_errbuf(err, errlen, PS_RING_EDATA,
			    "duplicate address '%s'", addrs[i]);
		}
		ring_add_server(r, (uint32_t)i, addrs[i]);
	}
	r->format = PS_RING_FORMAT;
	r->version = 1;
	r->vnodes = vnodes;
	r->replicas = replicas;
	ring_place(r);
	return 0;
}

/* Parse a decimal uint32 with nothing around it. */
static int
ring_parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (ps_parsenum_u64_in(s, 0, UINT32_MAX, &v) != PS_NUM_OK)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Split line into at most max blank-separated fields; -1 if more. */
static int
ring_split(char *line, char **f, int max)
{
	char *tok, *save;
	int n = 0;

	for (tok = strtok_r(line, " \t\r\n", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return -1;
		f[n++] = tok;
	}
	return n;
}

/* Error at the current line. */
static int
ring_perr(struct ring_parse *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
ring_perr(struct ring_parse *p, const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = ps_errbuf_vline(p->err, p->errlen, PS_RING_EDATA, p->path,
	    p->line, fmt, ap);
	va_end(ap);
	return code;
}

/* Parse "keyword N" into *out unless seen before. */
static int
ring_parse_field(struct ring_parse *p, char **f, int nf, int *seen,
    uint32_t *out)
{
	if (*seen)
		return ring_perr(p, "duplicate '%s'", f[0]);
	if (nf != 2)
		return ring_perr(p, "'%s' takes one number", f[0]);
	if (ring_parse_u32(f[1], out) != 0)
		return ring_perr(p, "bad number '%s' for '%s'", f[1], f[0]);
	*seen = 1;
	return 0;
}

/* Parse "server ID ADDR". */
static int
ring_parse_server(struct ring_parse *p, struct ps_ring *r, char **f, int nf)
{
	const char *why;
	uint32_t id;
	long dup;
	int same;

	if (nf != 3)
		return ring_perr(p, "expected 'server ID host:port'");
	if (ring_parse_u32(f[1], &id) != 0)
		return ring_perr(p, "bad server id '%s'", f[1]);
	if ((why = ps_ring_addr_check(f[2])) != NULL)
		return ring_perr(p, "invalid address '%s': %s", f[2], why);
	if ((dup = ring_find_dup(r, id, f[2], &same)) >= 0)
		return same ? ring_perr(p, "duplicate server id %u", id) :
		    ring_perr(p, "duplicate address '%s'", f[2]);
	if (r->nservers == PS_RING_MAX_SERVERS)
		return ring_perr(p, "too many servers (limit 4096)");
	ring_add_server(r, id, f[2]);
	return 0;
}

/* Parse one non-blank, non-comment line. */
static int
ring_parse_line(struct ring_parse *p, struct ps_ring *r, char *line)
{
	char *f[4];
	int nf = ring_split(line, f, 4);

	if (nf < 0)
		return ring_perr(p, "too many fields");
	if (nf == 0)
		return 0;
	if (!p->seen_magic) {
		if (strcmp(f[0], RING_MAGIC) != 0)
			return ring_perr(p, "not a ring file (expected '"
			    RING_MAGIC " 1')");
		if (ring_parse_field(p, f, nf, &p->seen_magic, &r->format))
			return PS_RING_EDATA;
		if (r->format != PS_RING_FORMAT)
			return ring_perr(p, "unsupported format %u", r->format);
		return 0;
	}
	if (strcmp(f[0], "version") == 0)
		return ring_parse_field(p, f, nf, &p->seen_version, &r->version);
	if (strcmp(f[0], "vnodes") == 0)
		return ring_parse_field(p, f, nf, &p->seen_vnodes, &r->vnodes);
	if (strcmp(f[0], "replicas") == 0)
		return ring_parse_field(p, f, nf, &p->seen_replicas,
		    &r->replicas);
	if (strcmp(f[0], "server") == 0)
		return ring_parse_server(p, r, f, nf);
	return ring_perr(p, "unknown keyword '%s'", f[0]);
}

/* After the last line: every field present and within limits. */
static int
ring_parse_finish(struct ring_parse *p, struct ps_ring *r)
{
	const char *why;

	if (p->line == 0)
		p->line = 1;
	if (!p->seen_magic)
		return ring_perr(p, "not a ring file (expected '"
		    RING_MAGIC " 1')");
	if (!p->seen_version)
		return ring_perr(p, "missing 'version'");
	if (!p->seen_vnodes)
		return ring_perr(p, "missing 'vnodes'");
	if (!p->seen_replicas)
		return ring_perr(p, "missing 'replicas'");
	if ((why = ring_limits_problem(r->nservers, r->vnodes,
	    r->replicas)) != NULL)
		return ring_perr(p, "%s", why);
	return 0;
}

/* Parse the lines of text[0, len) into r. */
static int
ring_parse_text(struct ring_parse *p, const char *text, size_t len,
    struct ps_ring *r)
{
	const char *end = text + len, *nl;
	char buf[RING_MAX_LINE + 1];
	size_t n;
	int rc;

	while (text < end) {
		p->line++;
		nl = memchr(text, '\n', (size_t)(end - text));
		n = (size_t)((nl != NULL ? nl : end) - text);
		if (n + (nl != NULL) > RING_MAX_LINE)
			return ring_perr(p, "line too long");
		if (memchr(text, '\0', n) != NULL)
			return ring_perr(p, "NUL byte in line");
		memcpy(buf, text, n);
		buf[n] = '\0';
		text = nl != NULL ? nl + 1 : end;
		if (buf[strspn(buf, " \t\r\n")] == '#')
			continue;
		if ((rc = ring_parse_line(p, r, buf)) != 0)
			return rc;
	}
	return ring_parse_finish(p, r);
}

/* Parse and place a ring from text; see ring.h. */
int
ps_ring_parse(const char *text, size_t len, const char *name,
    struct ps_ring *r, char *err, size_t errlen)
{
	struct ring_parse p;

	memset(r, 0, sizeof *r);
	memset(&p, 0, sizeof p);
	p.path = name;
	p.err = err;
	p.errlen = errlen;
	if (ring_parse_text(&p, text, len, r) != 0) {
		ps_ring_release(r);
		return PS_RING_EDATA;
	}
	ring_place(r);
	return 0;
}

/* Read all of fp (at most RING_MAX_FILE bytes) into *buf, *len. */
static int
ring_slurp(FILE *fp, const char *path, char **buf, size_t *len, char *err,
    size_t errlen)
{
	size_t cap = 4096, n;

	*buf = xmalloc(cap);
	*len = 0;
	while ((n = fread(*buf + *len, 1, cap - *len, fp)) > 0) {
		*len += n;
		if (*len == cap && cap >= RING_MAX_FILE)
			return ps_errbuf(err, errlen, PS_RING_EDATA,
			    "%s: larger than %d bytes", path, RING_MAX_FILE);
		if (*len == cap)
			*buf = xreallocarray(*buf, cap *= 2, 1);
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
		    strerror(errno));
		return PS_RING_ESYS;
	}
	return 0;
}

/* Open, parse and place a ring file. */
int
ps_ring_load(const char *path, struct ps_ring *r, char *err, size_t errlen)
{
	char *text;
	size_t len;
	FILE *fp;
	int rc, saved;

	memset(r, 0, sizeof *r);
	if ((fp = fopen(path, "r")) == NULL) {
		saved = errno;
		snprintf(err, errlen, "cannot open '%s': %s", path,
		    strerror(errno));
		errno = saved;
		return PS_RING_ESYS;
	}
	rc = ring_slurp(fp, path, &text, &len, err, errlen);
	saved = errno;
	fclose(fp);
	if (rc == 0)
		rc = ps_ring_parse(text, len, path, r, err, errlen);
	free(text);
	errno = saved;
	return rc;
}

/* The text form of r; see ring.h. */
void
ps_ring_format(const struct ps_ring *r, char **text, size_t *len)
{
	size_t cap = 128 + r->nservers * (PS_RING_MAX_ADDR + 32), i;
	char *buf = xmalloc(cap);
	int n;

	n = snprintf(buf, cap, "# pskit ring file\n" RING_MAGIC " %u\n"
	    "version %u\nvnodes %u\nreplicas %u\n", r->format, r->version,
	    r->vnodes, r->replicas);
	for (i = 0; i < r->nservers; i++)
		n += snprintf(buf + n, cap - (size_t)n, "server %u %s\n",
		    r->servers[i].id, r->servers[i].addr);
	*text = buf;
	*len = (size_t)n;
}

/* Write r to path atomically, or to stdout for "-". */
int
ps_ring_save(const char *path, const struct ps_ring *r, char *err,
    size_t errlen)
{
	struct ps_atomic *af;
	FILE *fp = stdout;
	char *text;
	size_t len;
	int rc = 0;

	ps_ring_format(r, &text, &len);
	if (strcmp(path, "-") == 0) {
		if (fwrite(text, 1, len, fp) != len || fflush(fp) != 0) {
			snprintf(err, errlen, "cannot write to stdout: %s",
			    strerror(errno));
			rc = PS_RING_ESYS;
		}
	} else if ((af = ps_atomic_open(path, err, errlen)) == NULL) {
		rc = PS_RING_ESYS;
	} else {
		fwrite(text, 1, len, af->fp);
		if (ps_atomic_commit(af, err, errlen) != 0)
			rc = PS_RING_ESYS;
	}
	free(text);
	return rc;
}

/* Index of the server with this address, or -1. */
long
ps_ring_find(const struct ps_ring *r, const char *addr)
{
	size_t i;

	for (i = 0; i < r->nservers; i++)
		if (strcmp(r->servers[i].addr, addr) == 0)
			return (long)i;
	return -1;
}

/* An empty ring of version 0; see ring.h. */
void
ps_ring_empty(struct ps_ring *r, uint32_t vnodes, uint32_t replicas)
{
	memset(r, 0, sizeof *r);
	r->format = PS_RING_FORMAT;
	r->vnodes = vnodes;
	r->replicas = replicas;
}

/* Add addr with the next free id; see ring.h. */
int
ps_ring_add(struct ps_ring *r, const char *addr, char *err, size_t errlen)
{
	const char *why;
	uint32_t id = 0;
	size_t i;

	if ((why = ps_ring_addr_check(addr)) != NULL)
		return ps_errbuf(err, errlen, PS_RING_EDATA,
		    "invalid address '%s': %s", addr, why);
	if (ps_ring_find(r, addr) >= 0)
		return ps_errbuf(err, errlen, PS_RING_EDATA,
		    "'%s' is already in the ring", addr);
	if ((why = ring_limits_problem(r->nservers + 1, r->vnodes,
	    r->replicas)) != NULL)
		return ps_errbuf(err, errlen, PS_RING_EDATA,
		    "cannot add '%s': %s", addr, why);
	for (i = 0; i < r->nservers; i++)
		if (r->servers[i].id >= id)
			id = r->servers[i].id + 1;
	if (r->nservers > 0 && id == 0)
		return ps_errbuf(err, errlen, PS_RING_EDATA, "no free server id");
	ring_add_server(r, id, addr);
	r->version++;
	ring_place(r);
	return 0;
}

/* Remove the server with this address; see ring.h. */
int
ps_ring_remove(struct ps_ring *r, const char *addr, char *err,
    size_t errlen)
{
	long i = ps_ring_find(r, addr);

	if (i < 0)
		return ps_errbuf(err, errlen, PS_RING_EDATA,
		    "'%s' is not in the ring", addr);
	free(r->servers[i].addr);
	memmove(&r->servers[i], &r->servers[i + 1],
	    (r->nservers - (size_t)i - 1) * sizeof *r->servers);
	r->nservers--;
	r->version++;
	ring_place(r);
	return 0;
}

/* A deep copy; see ring.h. */
void
ps_ring_copy(struct ps_ring *dst, const struct ps_ring *src)
{
	size_t i;

	*dst = *src;
	dst->servers = xcalloc(src->nservers, sizeof *dst->servers);
	for (i = 0; i < src->nservers; i++) {
		dst->servers[i].id = src->servers[i].id;
		dst->servers[i].addr = xstrdup(src->servers[i].addr);
	}
	dst->points = xcalloc(src->npoints, sizeof *dst->points);
	if (src->npoints > 0)
		memcpy(dst->points, src->points,
		    src->npoints * sizeof *dst->points);
}

/*
 * The first point with pos >= pos, wrapping to 0: a binary search whose
 * step is a conditional move, not a branch.  Servers run it for every key
 * of every push and replica (owner checks, replica groups), where the
 * branch of a plain search mispredicts half the time.
 */
size_t
ps_ring_point_at(const struct ps_ring *r, uint64_t pos)
{
	const struct ps_ring_point *base = r->points;
	size_t n = r->npoints, at;

	if (n == 0)
		return 0;
	while (n > 1) {
		size_t half = n / 2;

		base = base[half].pos < pos ? base + half : base;
		n -= half;
	}
	at = (size_t)(base - r->points) + (base->pos < pos);
	return at == r->npoints ? 0 : at;
}

/* Primary server index of fid. */
size_t
ps_ring_lookup(const struct ps_ring *r, uint64_t fid)
{
	return r->points[ps_ring_point_at(r, ps_key_mix(fid))].server;
}

/*
 * Walk clockwise from point p collecting distinct servers, jumping over
 * each run of one server's points (its first point's server is taken or
 * already held): the servers come in the order a step-by-step walk meets
 * them.
 */
size_t
ps_ring_point_replicas(const struct ps_ring *r, size_t p, size_t *out,
    size_t max)
{
	size_t want = (size_t)r->replicas + 1, n = 0, dist = 0, j;

	if (want > r->nservers)
		want = r->nservers;
	if (want > max)
		want = max;
	if (want == 0 || r->npoints == 0)
		return 0;
	out[n++] = r->points[p].server;
	while (n < want) {
		dist += r->points[p].other;
		if (dist >= r->npoints)
			break;
		p += r->points[p].other;
		if (p >= r->npoints)
			p -= r->npoints;
		for (j = 0; j < n && out[j] != r->points[p].server; j++)
			;
		if (j == n)
			out[n++] = r->points[p].server;
	}
	return n;
}

/* Primary and replica server indexes of fid. */
size_t
ps_ring_replicas(const struct ps_ring *r, uint64_t fid, size_t *out,
    size_t max)
{
	return ps_ring_point_replicas(r,
	    ps_ring_point_at(r, ps_key_mix(fid)), out, max);
}

/* Free everything r owns. */
void
ps_ring_release(struct ps_ring *r)
{
	size_t i;

	for (i = 0; i < r->nservers; i++)
		free(r->servers[i].addr);
	free(r->servers);
	free(r->points);
	memset(r, 0, sizeof *r);
}
