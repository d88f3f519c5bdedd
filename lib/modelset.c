/*
 * modelset.c: sets of model parts (model.h): read parts and directories of
 * parts into a set, check that they agree and merge them into one model.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "model.h"
#include "xmalloc.h"

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
	out->fids = xcalloc(total ? total : 1, sizeof *out->fids);
	out->w = xcalloc(total ? total : 1, sizeof *out->w);
	while ((i = model_set_next(set, pos)) < set->n) {
		uint64_t fid = set->parts[i].fids[pos[i]];

		if (k > 0 && out->fids[k - 1] == fid) {
			free(pos);
			return ps_errbuf(err, errlen, PS_MODEL_EDATA,
			    "parts disagree: feature %llu is in both '%s' and "
			    "'%s'", (unsigned long long)fid, set->names[last],
			    set->names[i]);
		}
		out->fids[k] = fid;
		out->w[k++] = set->parts[i].w[pos[i]++];
		last = i;
	}
	out->n = k;
	free(pos);
	return 0;
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
