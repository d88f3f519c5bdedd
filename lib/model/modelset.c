/*
 * modelset.c: sets of model parts (model.h): read parts and directories of
 * parts into a set, check that they agree and merge them into one model;
 * and the two helpers that build a model record by record.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "algo/ftrl.h"
#include "model/model.h"
#include "util/errbuf.h"
#include "util/xmalloc.h"

/* Read one part file into the set. */
int
ps_model_set_add(struct ps_model_set *set, const char *path, char *err,
    size_t errlen)
{
	struct ps_model m;
	int rc;

	if ((rc = ps_model_read(path, &m, err, errlen)) != 0)
		return rc;
	set->parts = xreallocarray(set->parts, set->n + 1, sizeof *set->parts);
	set->names = xreallocarray(set->names, set->n + 1, sizeof *set->names);
	set->parts[set->n] = m;
	set->names[set->n++] = xstrdup(path);
	return 0;
}

/* Order file names bytewise, as ls(1) does in the C locale. */
static int
model_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* List dir's *.psm files, sorted. */
int
ps_model_dir_list(const char *dir, char ***names, size_t *n, char *err,
    size_t errlen)
{
	struct dirent *de;
	size_t len;
	DIR *d;

	*names = NULL;
	*n = 0;
	if ((d = opendir(dir)) == NULL)
		return ps_errbuf(err, errlen, PS_MODEL_ESYS,
		    "cannot open '%s': %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 5 ||
		    strcmp(de->d_name + len - 4, ".psm") != 0)
			continue;
		*names = xreallocarray(*names, *n + 1, sizeof **names);
		(*names)[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n > 0)
		qsort(*names, *n, sizeof **names, model_name_cmp);
	return 0;
}

/* Read every *.psm file of a directory into the set. */
int
ps_model_set_add_dir(struct ps_model_set *set, const char *dir, char *err,
    size_t errlen)
{
	char **names, *path;
	size_t n, i;
	int rc;

	if ((rc = ps_model_dir_list(dir, &names, &n, err, errlen)) != 0)
		return rc;
	if (n == 0) {
		errno = ENOENT;
		return ps_errbuf(err, errlen, PS_MODEL_ESYS,
		    "no model parts (*.psm) in '%s'", dir);
	}
	for (i = 0; i < n; i++) {
		path = xasprintf("%s/%s", dir, names[i]);
		if (rc == 0)
			rc = ps_model_set_add(set, path, err, errlen);
		free(path);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* Check that parts a and b (named an, bn) have the same optimiser state. */
static int
model_state_agree(const struct ps_model *a, const struct ps_model *b,
    const char *an, const char *bn, char *err, size_t errlen)
{
	if (a->format != b->format)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "parts disagree: "
		    "'%s' is format %u but '%s' format %u", an, a->format, bn,
		    b->format);
	if (a->optimizer != b->optimizer)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "parts disagree: "
		    "'%s' has optimiser %s but '%s' has %s", an,
		    ps_ftrl_name((int)a->optimizer), bn,
		    ps_ftrl_name((int)b->optimizer));
	if (a->epochs != b->epochs)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "parts disagree: "
		    "'%s' has epochs %.17g but '%s' has %.17g", an, a->epochs,
		    bn, b->epochs);
	return 0;
}

/* Check that part i agrees with part 0 and has its own server id. */
static int
model_set_agree(const struct ps_model_set *set, size_t i, char *err,
    size_t errlen)
{
	const struct ps_model *a = &set->parts[0], *b = &set->parts[i];
	const char *an = set->names[0], *bn = set->names[i];
	size_t j;

	if (a->iteration != b->iteration)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "parts disagree: "
		    "'%s' has iteration %llu but '%s' has %llu", an,
		    (unsigned long long)a->iteration, bn,
		    (unsigned long long)b->iteration);
	if (a->lambda != b->lambda)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "parts disagree: "
		    "'%s' has lambda %.17g but '%s' has %.17g", an, a->lambda,
		    bn, b->lambda);
	if (a->nservers != b->nservers)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "parts disagree: "
		    "'%s' is one of %u servers but '%s' of %u", an, a->nservers,
		    bn, b->nservers);
	if (model_state_agree(a, b, an, bn, err, errlen) != 0)
		return PS_MODEL_EDATA;
	for (j = 0; j < i; j++)
		if (set->parts[j].server_id == b->server_id)
			return ps_errbuf(err, errlen, PS_MODEL_EDATA,
			    "parts disagree: '%s' and '%s' are both server %u",
			    set->names[j], bn, b->server_id);
	return 0;
}

/* Part with the smallest next feature id, or set->n when all are done. */
static size_t
model_set_next(const struct ps_model_set *set, const size_t *pos)
{
	size_t i, best = set->n;

	for (i = 0; i < set->n; i++) {
		if (pos[i] == set->parts[i].n)
			continue;
		if (best == set->n || set->parts[i].fids[pos[i]] <
		    set->parts[best].fids[pos[best]])
			best = i;
	}
	return best;
}

/* Merge the sorted parts into out, refusing a feature id in two parts. */
static int
model_set_union(const struct ps_model_set *set, struct ps_model *out,
    char *err, size_t errlen)
{
	size_t *pos = xcalloc(set->n, sizeof *pos), total = 0, i, k = 0, last = 0;

	for (i = 0; i < set->n; i++)
		total += set->parts[i].n;
	ps_model_alloc(out, total, set->parts[0].z != NULL);
	while ((i = model_set_next(set, pos)) < set->n) {
		uint64_t fid = set->parts[i].fids[pos[i]];

		if (k > 0 && out->fids[k - 1] == fid) {
			free(pos);
			return ps_errbuf(err, errlen, PS_MODEL_EDATA,
			    "parts disagree: feature %llu is in both '%s' and "
			    "'%s'", (unsigned long long)fid, set->names[last],
			    set->names[i]);
		}
		ps_model_copy(out, k++, &set->parts[i], pos[i]++);
		last = i;
	}
	out->n = k;
	free(pos);
	return 0;
}

/* Allocate m's arrays for cap records, zeroed, z and nsq if state. */
void
ps_model_alloc(struct ps_model *m, size_t cap, int state)
{
	m->fids = xcalloc(cap, sizeof *m->fids);
	m->w = xcalloc(cap, sizeof *m->w);
	if (state) {
		m->z = xcalloc(cap, sizeof *m->z);
		m->nsq = xcalloc(cap, sizeof *m->nsq);
	}
}

/* Copy record j of src to record k of dst, with its state if dst has it. */
void
ps_model_copy(struct ps_model *dst, size_t k, const struct ps_model *src,
    size_t j)
{
	dst->fids[k] = src->fids[j];
	dst->w[k] = src->w[j];
	if (dst->z != NULL) {
		dst->z[k] = src->z[j];
		dst->nsq[k] = src->nsq[j];
	}
}

/* Check the parts agree, then merge them into out. */
int
ps_model_set_merge(const struct ps_model_set *set, struct ps_model *out,
    char *err, size_t errlen)
{
	size_t i;
	int rc;

	memset(out, 0, sizeof *out);
	if (set->n == 0)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "no model parts");

	for (i = 1; i < set->n; i++)
		if ((rc = model_set_agree(set, i, err, errlen)) != 0)
			return rc;
	out->server_id = set->parts[0].server_id;
	out->nservers = set->parts[0].nservers;
	out->iteration = set->parts[0].iteration;
	out->lambda = set->parts[0].lambda;
	out->format = set->parts[0].format;
	out->optimizer = set->parts[0].optimizer;
	out->epochs = set->parts[0].epochs;
	for (i = 0; i < set->n; i++)
		if (set->parts[i].ring_version > out->ring_version)
			out->ring_version = set->parts[i].ring_version;
	out->nparts = (uint32_t)set->n;
	if ((rc = model_set_union(set, out, err, errlen)) != 0)
		ps_model_release(out);
	return rc;
}

/* Read every named part or directory and merge them. */
int
ps_model_load(const char *const *paths, size_t npaths,
    struct ps_model *merged, char *err, size_t errlen)
{
	struct ps_model_set set;
	struct stat st;
	size_t i;
	int rc = 0;

	memset(merged, 0, sizeof *merged);
	memset(&set, 0, sizeof set);
	for (i = 0; i < npaths && rc == 0; i++) {
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc = ps_model_set_add_dir(&set, paths[i], err, errlen);
		else
			rc = ps_model_set_add(&set, paths[i], err, errlen);
	}
	if (rc == 0)
		rc = ps_model_set_merge(&set, merged, err, errlen);
	ps_model_set_release(&set);
	return rc;
}

/* Free the parts and their names. */
void
ps_model_set_release(struct ps_model_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		ps_model_release(&set->parts[i]);
		free(set->names[i]);
	}
	free(set->parts);
	free(set->names);
	memset(set, 0, sizeof *set);
}
