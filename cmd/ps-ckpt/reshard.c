/*
 * reshard.c: ps-ckpt reshard (split a model into other parts) and merge
 * (one part), each written as a new version directory (ps_ckpt_write:
 * complete with its MANIFEST, or absent).
 *
 * With a ring (-r) part i holds the keys whose primary is the ring's
 * server i (ps_ring_lookup, the index servers take as their server id),
 * so each server of that ring finds exactly its keys in its part.  With
 * -n the key's ring position modulo n chooses, which only balances sizes.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "ckpt.h"
#include "cluster/ring.h"
#include "model/manifest.h"
#include "util/keyhash.h"
#include "util/parsenum.h"
#include "util/xmalloc.h"

/* Where each key of a reshard goes. */
struct placement {
	uint32_t	 nparts;
	uint32_t	 ring_version;
	struct ps_ring	*ring;		/* NULL: by hash */
};

/* The part of fid. */
static uint32_t
place(const struct placement *pl, uint64_t fid)
{
	if (pl->ring != NULL)
		return (uint32_t)ps_ring_lookup(pl->ring, fid);
	return (uint32_t)(ps_key_mix(fid) % pl->nparts);
}

/*
 * Split m into pl->nparts parts (the caller releases each and frees),
 * keeping its optimiser state: a resharded online model is one still.
 */
static struct ps_model *
split(const struct ps_model *m, const struct placement *pl)
{
	struct ps_model *parts = xcalloc(pl->nparts, sizeof *parts);
	uint32_t *to = xcalloc(m->n ? m->n : 1, sizeof *to), s;
	size_t i;

	for (i = 0; i < m->n; i++)
		parts[to[i] = place(pl, m->fids[i])].n++;
	for (s = 0; s < pl->nparts; s++) {
		parts[s].server_id = s;
		parts[s].nservers = pl->nparts;
		parts[s].ring_version = pl->ring_version;
		parts[s].iteration = m->iteration;
		parts[s].lambda = m->lambda;
		parts[s].format = m->format;
		parts[s].optimizer = m->optimizer;
		parts[s].epochs = m->epochs;
		ps_model_alloc(&parts[s], parts[s].n, m->z != NULL);
		parts[s].n = 0;
	}
	for (i = 0; i < m->n; i++) {
		struct ps_model *p = &parts[to[i]];

		ps_model_copy(p, p->n++, m, i);
	}
	free(to);
	return parts;
}

/* Write parts as the version directory outdir, or exit 65/73. */
static void
write_or_exit(const char *outdir, struct ps_model *parts, uint32_t n)
{
	char msg[2048];
	uint32_t s;
	int rc;

	rc = ps_ckpt_write(outdir, parts, n, msg, sizeof msg);
	for (s = 0; s < n; s++)
		ps_model_release(&parts[s]);
	free(parts);
	if (rc != 0)
		errx(rc == PS_MODEL_EDATA ? EX_DATAERR : EX_CANTCREAT, "%s", msg);
}

/* Load a ring file for -r, or exit 65/66. */
static struct ps_ring *
ring_or_exit(const char *path)
{
	struct ps_ring *r = xcalloc(1, sizeof *r);
	char msg[1024];
	int rc;

	if ((rc = ps_ring_load(path, r, msg, sizeof msg)) != 0) {
		free(r);
		errx(rc == PS_RING_EDATA ? EX_DATAERR : EX_NOINPUT, "%s", msg);
	}
	if (r->nservers == 0) {
		ps_ring_release(r);
		free(r);
		errx(EX_DATAERR, "%s: the ring has no servers", path);
	}
	return r;
}

/* Parse -n: a number of parts. */
static uint32_t
parse_nparts(const char *s)
{
	uint64_t v;

	if (ps_parsenum_u64_in(s, 1, PS_MANIFEST_MAX_SERVERS, &v) !=
	    PS_NUM_OK) {
		warnx("invalid number of parts '%s' (expected 1-%d)", s,
		    PS_MANIFEST_MAX_SERVERS);
		usage(EX_USAGE);
	}
	return (uint32_t)v;
}

/* ps-ckpt reshard: split by hash (-n) or by a ring (-r). */
int
cmd_reshard(int argc, char **argv)
{
	struct placement pl = { 0 };
	const char *out = NULL, *ringfile = NULL;
	struct ps_model m;
	int ch;

	while ((ch = ckpt_getopt(argc, argv, "+hn:o:r:", NULL)) != -1) {
		switch (ch) {
		case 'n':
			pl.nparts = parse_nparts(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'r':
			ringfile = optarg;
			break;
		}
	}
	if (out == NULL || (pl.nparts != 0) == (ringfile != NULL))
		usage(EX_USAGE);
	load_or_exit(argc - optind, argv + optind, &m, NULL, 1);
	pl.ring_version = m.ring_version;
	if (ringfile != NULL) {
		pl.ring = ring_or_exit(ringfile);
		pl.nparts = (uint32_t)pl.ring->nservers;
		pl.ring_version = pl.ring->version;
	}
	write_or_exit(out, split(&m, &pl), pl.nparts);
	if (pl.ring != NULL)
		ps_ring_release(pl.ring);
	free(pl.ring);
	ps_model_release(&m);
	return 0;
}

/* ps-ckpt merge: the whole model as one part. */
int
cmd_merge(int argc, char **argv)
{
	struct placement pl = { 1, 0, NULL };
	const char *out = NULL;
	struct ps_model m;

	while (ckpt_getopt(argc, argv, "+ho:", NULL) != -1)
		out = optarg;
	if (out == NULL)
		usage(EX_USAGE);
	load_or_exit(argc - optind, argv + optind, &m, NULL, 1);
	pl.ring_version = m.ring_version;
	write_or_exit(out, split(&m, &pl), 1);
	ps_model_release(&m);
	return 0;
}
