/*
 * manifest.c: parse, format, build, write and check the MANIFEST of a
 * checkpoint version directory (layout and invariants in manifest.h).
 *
 * The parser takes untrusted bytes: it checks the first line, then the
 * checksum over everything before the last line, then each line in its
 * fixed order, and reports the first problem with its line number.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/manifest.h"
#include "util/atomicfile.h"
#include "util/crc32c.h"
#include "util/errbuf.h"
#include "util/parsenum.h"
#include "util/xmalloc.h"

#define MANIFEST_MAGIC		"pskit-manifest"
#define MANIFEST_MAX_LINE	512
#define MANIFEST_MAX_FIELDS	5

/* The parser's position: one line at a time, split into fields. */
struct mparse {
	const char	*name;		/* for messages */
	const char	*p, *end;	/* what is left of the text */
	const char	*crcline;	/* start of the last line */
	unsigned long	 line;		/* 1-based number of the current line */
	char		 buf[MANIFEST_MAX_LINE + 1];
	char		*f[MANIFEST_MAX_FIELDS];
	int		 nf;
	char		*err;
	size_t		 errlen;
};

/* An error at the current line: "name:LINE: reason". */
static int
mp_error(struct mparse *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
mp_error(struct mparse *p, const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = ps_errbuf_vline(p->err, p->errlen, PS_MANIFEST_EDATA, p->name,
	    p->line, fmt, ap);
	va_end(ap);
	return code;
}

/* Take the next line into p->buf and split it at single spaces. */
static int
mp_next(struct mparse *p)
{
	const char *nl = memchr(p->p, '\n', (size_t)(p->end - p->p));
	size_t n = (size_t)(nl - p->p);
	char *s, *sp;

	p->line++;
	if (n > MANIFEST_MAX_LINE)
		return mp_error(p, "line too long");
	memcpy(p->buf, p->p, n);
	p->buf[n] = '\0';
	p->p = nl + 1;
	for (p->nf = 0, s = p->buf;; s = sp + 1) {
		if (p->nf == MANIFEST_MAX_FIELDS)
			return mp_error(p, "too many fields");
		p->f[p->nf++] = s;
		if ((sp = strchr(s, ' ')) == NULL)
			break;
		*sp = '\0';
	}
	for (n = 0; n < (size_t)p->nf; n++)
		if (p->f[n][0] == '\0')
			return mp_error(p, "empty field (fields are separated "
			    "by one space)");
	return 0;
}

/* Parse a decimal field no larger than max. */
static int
mp_number(struct mparse *p, const char *s, uint64_t max, const char *what,
    uint64_t *out)
{
	if (ps_parsenum_u64_in(s, 0, max, out) != PS_NUM_OK)
		return mp_error(p, "bad %s '%s'", what, s);
	return 0;
}

/* Parse 8 lowercase hex digits. */
static int
mp_hex32(struct mparse *p, const char *s, uint32_t *out)
{
	size_t i;

	*out = 0;
	if (strlen(s) != 8)
		return mp_error(p, "bad checksum '%s' (expected 8 hex digits)",
		    s);
	for (i = 0; i < 8; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			*out = *out << 4 | (uint32_t)(s[i] - '0');
		else if (s[i] >= 'a' && s[i] <= 'f')
			*out = *out << 4 | (uint32_t)(s[i] - 'a' + 10);
		else
			return mp_error(p, "bad checksum '%s' (expected 8 "
			    "lowercase hex digits)", s);
	}
	return 0;
}

/* Take the next line, which must be "key VALUE". */
static int
mp_keyed(struct mparse *p, const char *key)
{
	if (p->p == p->crcline) {
		p->line++;
		return mp_error(p, "expected '%s'", key);
	}
	if (mp_next(p) != 0)
		return PS_MANIFEST_EDATA;
	if (strcmp(p->f[0], key) != 0)
		return mp_error(p, "expected '%s', not '%s'", key, p->f[0]);
	if (p->nf != 2 && strcmp(key, "part") != 0)
		return mp_error(p, "'%s' takes one value", key);
	return 0;
}

/* Check the last line, "crc32c CRC", against every byte before it. */
static int
mp_check_crc(struct mparse *p, const char *text)
{
	struct mparse last = *p;
	const char *q = p->end - 1, *c;
	uint32_t want, have;

	while (q > text && q[-1] != '\n')
		q--;
	p->crcline = q;
	last.p = q;
	for (last.line = 0, c = text; c < q; c++)
		last.line += *c == '\n';
	if (mp_next(&last) != 0)
		return PS_MANIFEST_EDATA;
	if (strcmp(last.f[0], "crc32c") != 0 || last.nf != 2)
		return mp_error(&last, "the last line is not 'crc32c CRC' "
		    "(truncated manifest?)");
	if (mp_hex32(&last, last.f[1], &want) != 0)
		return PS_MANIFEST_EDATA;
	have = ps_crc32c(0, text, (size_t)(q - text));
	if (have != want)
		return mp_error(&last, "checksum mismatch (the manifest says "
		    "%08x, its contents give %08x)", want, have);
	return 0;
}

/* NULL if name may be listed as a part, else what is wrong with it. */
static const char *
manifest_name_problem(const char *name)
{
	size_t len = strlen(name), i;

	if (len < 5 || len > PS_MANIFEST_MAX_NAME ||
	    strcmp(name + len - 4, ".psm") != 0 || name[0] == '.')
		return "a part's name is NAME.psm, at most 255 bytes, "
		    "not starting with '.'";
	for (i = 0; i < len; i++)
		if (name[i] <= ' ' || name[i] > '~' || name[i] == '/')
			return "a part's name is printable ASCII without "
			    "blanks or '/'";
	return NULL;
}

/* The first line: "pskit-manifest 1". */
static int
mp_magic(struct mparse *p)
{
	uint64_t v;

	if (mp_next(p) != 0)
		return PS_MANIFEST_EDATA;
	if (strcmp(p->f[0], MANIFEST_MAGIC) != 0 || p->nf != 2)
		return mp_error(p, "not a manifest (expected '"
		    MANIFEST_MAGIC " %d')", PS_MANIFEST_FORMAT);
	if (mp_number(p, p->f[1], UINT32_MAX, "format", &v) != 0)
		return PS_MANIFEST_EDATA;
	if (v != PS_MANIFEST_FORMAT)
		return mp_error(p, "unsupported format %llu",
		    (unsigned long long)v);
	return 0;
}

/* Lines 2 to 5: iteration, ring_version, servers, lambda. */
static int
mp_header(struct mparse *p, struct ps_manifest *m)
{
	uint64_t v;

	if (mp_keyed(p, "iteration") != 0 ||
	    mp_number(p, p->f[1], UINT64_MAX, "iteration", &m->iteration))
		return PS_MANIFEST_EDATA;
	if (mp_keyed(p, "ring_version") != 0 ||
	    mp_number(p, p->f[1], UINT32_MAX, "ring version", &v) != 0)
		return PS_MANIFEST_EDATA;
	m->ring_version = (uint32_t)v;
	if (mp_keyed(p, "servers") != 0 ||
	    mp_number(p, p->f[1], PS_MANIFEST_MAX_SERVERS, "servers", &v))
		return PS_MANIFEST_EDATA;
	if (v == 0)
		return mp_error(p, "bad servers '0'");
	m->nservers = (uint32_t)v;
	if (mp_keyed(p, "lambda") != 0)
		return PS_MANIFEST_EDATA;
	if (ps_parsenum_double(p->f[1], p->f[1] + strlen(p->f[1]), NULL,
	    &m->lambda) != PS_NUM_OK || !isfinite(m->lambda) || m->lambda < 0)
		return mp_error(p, "bad lambda '%s'", p->f[1]);
	return 0;
}

/* Line 6 + s: "part S NAME SIZE CRC". */
static int
mp_part(struct mparse *p, uint32_t s, struct ps_manifest_part *part)
{
	const char *why;
	uint64_t v;

	if (mp_keyed(p, "part") != 0)
		return PS_MANIFEST_EDATA;
	if (p->nf != 5)
		return mp_error(p, "expected 'part SERVER NAME SIZE CRC'");
	if (mp_number(p, p->f[1], UINT32_MAX, "server id", &v) != 0)
		return PS_MANIFEST_EDATA;
	if (v != s)
		return mp_error(p, "part of server %llu where server %u's was "
		    "expected (parts are listed by server id)",
		    (unsigned long long)v, s);
	if ((why = manifest_name_problem(p->f[2])) != NULL)
		return mp_error(p, "bad part name: %s", why);
	if (mp_number(p, p->f[3], UINT64_MAX, "size", &part->size) != 0 ||
	    mp_hex32(p, p->f[4], &part->crc) != 0)
		return PS_MANIFEST_EDATA;
	part->server = s;
	part->name = xstrdup(p->f[2]);
	return 0;
}

/* Every line, in order; the checksum right after the first. */
static int
mp_all(struct mparse *p, const char *text, struct ps_manifest *m)
{
	uint32_t s;

	if (mp_magic(p) != 0 || mp_check_crc(p, text) != 0 ||
	    mp_header(p, m) != 0)
		return PS_MANIFEST_EDATA;
	m->parts = xcalloc(m->nservers, sizeof *m->parts);
	for (s = 0; s < m->nservers; s++)
		if (mp_part(p, s, &m->parts[s]) != 0)
			return PS_MANIFEST_EDATA;
	if (p->p != p->crcline) {
		if (mp_next(p) != 0)
			return PS_MANIFEST_EDATA;
		return mp_error(p, "'%s' where 'crc32c' was expected (%u "
		    "servers, so %u part lines)", p->f[0], m->nservers,
		    m->nservers);
	}
	return 0;
}

/* Parse a manifest; see manifest.h. */
int
ps_manifest_parse(const char *text, size_t len, const char *name,
    struct ps_manifest *m, char *err, size_t errlen)
{
	struct mparse p;
	const char *nul;
	int rc;

	memset(m, 0, sizeof *m);
	memset(&p, 0, sizeof p);
	p.name = name;
	p.p = text;
	p.end = text + len;
	p.err = err;
	p.errlen = errlen;
	if ((nul = memchr(text, '\0', len)) != NULL)
		len = (size_t)(nul - text);
	for (p.line = 1; p.p < text + len; p.p++)
		p.line += *p.p == '\n';
	if (nul != NULL)
		return mp_error(&p, "NUL byte");
	if (len == 0 || text[len - 1] != '\n')
		return mp_error(&p, "the last line does not end in a newline "
		    "(truncated manifest?)");
	p.p = text;
	p.line = 0;
	if ((rc = mp_all(&p, text, m)) != 0)
		ps_manifest_release(m);
	return rc;
}

/* The text of m; see manifest.h. */
void
ps_manifest_format(const struct ps_manifest *m, char **text, size_t *len)
{
	size_t cap = 256 + (size_t)m->nservers * (PS_MANIFEST_MAX_NAME + 64);
	char *buf = xmalloc(cap);
	size_t n;
	uint32_t s;

	n = (size_t)snprintf(buf, cap, MANIFEST_MAGIC " %d\niteration %llu\n"
	    "ring_version %u\nservers %u\nlambda %.17g\n", PS_MANIFEST_FORMAT,
	    (unsigned long long)m->iteration, m->ring_version, m->nservers,
	    m->lambda);
	for (s = 0; s < m->nservers; s++)
		n += (size_t)snprintf(buf + n, cap - n, "part %u %s %llu %08x\n",
		    s, m->parts[s].name, (unsigned long long)m->parts[s].size,
		    m->parts[s].crc);
	n += (size_t)snprintf(buf + n, cap - n, "crc32c %08x\n",
	    ps_crc32c(0, buf, n));
	*text = buf;
	*len = n;
}

/* Read all of path, a regular file of at most the manifest's limit. */
static int
manifest_slurp(const char *path, char **text, size_t *len, char *err,
    size_t errlen)
{
	struct stat st;
	FILE *fp;
	int saved;

	*text = NULL;
	if ((fp = fopen(path, "rb")) == NULL || fstat(fileno(fp), &st) != 0) {
		saved = errno;
		snprintf(err, errlen, "cannot open '%s': %s", path,
		    strerror(errno));
		if (fp != NULL)
			fclose(fp);
		errno = saved;
		return PS_MANIFEST_ESYS;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)PS_MANIFEST_MAX_SIZE) {
		fclose(fp);
		return ps_errbuf(err, errlen, PS_MANIFEST_EDATA, "%s: not "
		    "a regular file of at most %lu bytes", path,
		    PS_MANIFEST_MAX_SIZE);
	}
	*len = (size_t)st.st_size;
	*text = xmalloc(*len + 1);
	if (fread(*text, 1, *len, fp) != *len) {
		fclose(fp);
		return ps_errbuf(err, errlen, PS_MANIFEST_ESYS,
		    "cannot read '%s': file shrank", path);
	}
	fclose(fp);
	return 0;
}

/* Read and parse dir/MANIFEST. */
int
ps_manifest_read(const char *dir, struct ps_manifest *m, char *err,
    size_t errlen)
{
	char *path = xasprintf("%s/%s", dir, PS_MANIFEST_NAME), *text;
	size_t len = 0;
	int rc, saved;

	memset(m, 0, sizeof *m);
	rc = manifest_slurp(path, &text, &len, err, errlen);
	saved = errno;
	if (rc == 0)
		rc = ps_manifest_parse(text, len, path, m, err, errlen);
	free(text);
	free(path);
	errno = saved;
	return rc;
}

/* Fill m from a set of parts that merge: one per server, one ring. */
static int
manifest_from_set(const struct ps_model_set *set, const char *dir,
    struct ps_manifest *m, char *err, size_t errlen)
{
	const struct ps_model *a = &set->parts[0];
	const char *base, *why;
	size_t i;

	if (a->nservers > PS_MANIFEST_MAX_SERVERS)
		return ps_errbuf(err, errlen, PS_MANIFEST_EDATA, "'%s' is "
		    "one of %u servers; a manifest lists at most %d", set->names[0],
		    a->nservers, PS_MANIFEST_MAX_SERVERS);
	for (i = 1; i < set->n; i++)
		if (set->parts[i].ring_version != a->ring_version)
			return ps_errbuf(err, errlen, PS_MANIFEST_EDATA,
			    "parts disagree: '%s' has ring version %u but '%s' "
			    "has %u", set->names[0], a->ring_version,
			    set->names[i], set->parts[i].ring_version);
	m->iteration = a->iteration;
	m->ring_version = a->ring_version;
	m->nservers = a->nservers;
	m->lambda = a->lambda;
	m->parts = xcalloc(a->nservers, sizeof *m->parts);
	for (i = 0; i < set->n; i++) {
		struct ps_manifest_part *mp = &m->parts[set->parts[i].server_id];

		base = strrchr(set->names[i], '/') + 1;
		if ((why = manifest_name_problem(base)) != NULL)
			return ps_errbuf(err, errlen, PS_MANIFEST_EDATA,
			    "cannot list '%s': %s", set->names[i], why);
		mp->server = set->parts[i].server_id;
		mp->name = xstrdup(base);
		mp->size = set->parts[i].file_size;
		mp->crc = set->parts[i].records_crc;
	}
	for (i = 0; i < m->nservers; i++)
		if (m->parts[i].name == NULL)
			return ps_errbuf(err, errlen, PS_MANIFEST_EDATA,
			    "'%s' has no part of server %zu (%u servers, %zu "
			    "parts)", dir, i, m->nservers, set->n);
	return 0;
}

/* Build the manifest of dir's parts; see manifest.h. */
int
ps_manifest_build(const char *dir, struct ps_manifest *m, char *err,
    size_t errlen)
{
	struct ps_model_set set;
	struct ps_model merged;
	int rc;

	memset(m, 0, sizeof *m);
	memset(&set, 0, sizeof set);
	rc = ps_model_set_add_dir(&set, dir, err, errlen);
	if (rc == 0 && (rc = ps_model_set_merge(&set, &merged, err,
	    errlen)) == 0) {
		ps_model_release(&merged);
		rc = manifest_from_set(&set, dir, m, err, errlen);
	}
	ps_model_set_release(&set);
	if (rc != 0)
		ps_manifest_release(m);
	return rc;
}

/* Write dir/MANIFEST atomically. */
int
ps_manifest_write(const char *dir, const struct ps_manifest *m, char *err,
    size_t errlen)
{
	char *path = xasprintf("%s/%s", dir, PS_MANIFEST_NAME), *text;
	struct ps_atomic *af;
	size_t len;
	int rc = 0;

	if ((af = ps_atomic_open(path, err, errlen)) == NULL) {
		free(path);
		return PS_MANIFEST_ESYS;
	}
	ps_manifest_format(m, &text, &len);
	fwrite(text, 1, len, af->fp);
	if (ps_atomic_commit(af, err, errlen) != 0)
		rc = PS_MANIFEST_ESYS;
	free(text);
	free(path);
	return rc;
}

/* Check a part's header, size and CRC against its manifest entry. */
static int
manifest_part_agrees(const char *path, const struct ps_manifest *m,
    const struct ps_manifest_part *mp, const struct ps_model *part,
    char *err, size_t errlen)
{
	const struct {
		unsigned	 offset;	/* of the header field */
		const char	*what;
		uint64_t	 have, want;
	} f[] = {
		{ 12, "server id", part->server_id, mp->server },
		{ 16, "number of servers", part->nservers, m->nservers },
		{ 20, "ring version", part->ring_version, m->ring_version },
		{ 24, "iteration", part->iteration, m->iteration },
	};
	size_t i;

	for (i = 0; i < sizeof f / sizeof f[0]; i++)
		if (f[i].have != f[i].want)
			return ps_errbuf(err, errlen, PS_MANIFEST_EDATA, "%s: "
			    "offset %u: %s %llu, the manifest says %llu", path,
			    f[i].offset, f[i].what,
			    (unsigned long long)f[i].have,
			    (unsigned long long)f[i].want);
	if (part->lambda != m->lambda)
		return ps_errbuf(err, errlen, PS_MANIFEST_EDATA, "%s: "
		    "offset 32: lambda %.17g, the manifest says %.17g", path,
		    part->lambda, m->lambda);
	if (part->file_size != mp->size)
		return ps_errbuf(err, errlen, PS_MANIFEST_EDATA, "%s: "
		    "size %llu bytes, the manifest says %llu", path,
		    (unsigned long long)part->file_size,
		    (unsigned long long)mp->size);
	if (part->records_crc != mp->crc)
		return ps_errbuf(err, errlen, PS_MANIFEST_EDATA, "%s: "
		    "offset %llu: record checksum %08x, the manifest says %08x "
		    "(rewritten after the manifest?)", path,
		    (unsigned long long)part->file_size - 4, part->records_crc,
		    mp->crc);
	return 0;
}

/* Read the part of server s into set and check it. */
static int
manifest_load_part(const char *dir, const struct ps_manifest *m, uint32_t s,
    struct ps_model_set *set, char *err, size_t errlen)
{
	char *path = xasprintf("%s/%s", dir, m->parts[s].name);
	int rc;

	rc = ps_model_set_add(set, path, err, errlen);
	if (rc == PS_MODEL_ESYS && errno == ENOENT)
		rc = ps_errbuf(err, errlen, PS_MANIFEST_EDATA, "%s: "
		    "missing (the manifest lists it)", path);
	else if (rc == 0)
		rc = manifest_part_agrees(path, m, &m->parts[s],
		    &set->parts[set->n - 1], err, errlen);
	free(path);
	return rc;
}

/* Check a complete version and load it; see manifest.h. */
int
ps_manifest_load(const char *dir, struct ps_manifest *m,
    struct ps_model *merged, char *err, size_t errlen)
{
	struct ps_model_set set;
	uint32_t s;
	int rc;

	memset(merged, 0, sizeof *merged);
	memset(&set, 0, sizeof set);
	if ((rc = ps_manifest_read(dir, m, err, errlen)) != 0)
		return rc;
	for (s = 0; s < m->nservers && rc == 0; s++)
		rc = manifest_load_part(dir, m, s, &set, err, errlen);
	if (rc == 0)
		rc = ps_model_set_merge(&set, merged, err, errlen);
	ps_model_set_release(&set);
	if (rc != 0)
		ps_manifest_release(m);
	return rc;
}

/* Free what m owns. */
void
ps_manifest_release(struct ps_manifest *m)
{
	uint32_t s;

	if (m->parts != NULL)
		for (s = 0; s < m->nservers; s++)
			free(m->parts[s].name);
	free(m->parts);
	memset(m, 0, sizeof *m);
}
