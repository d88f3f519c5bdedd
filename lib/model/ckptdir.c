/*
 * ckptdir.c: checkpoint directories: version names, listing, the latest
 * complete version, what a model argument names, and writing a whole
 * version at once (layout and rules in ckptdir.h).
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/ckptdir.h"
#include "util/atomicfile.h"
#include "util/errbuf.h"
#include "util/parsenum.h"
#include "util/xmalloc.h"

/* "CKDIR/v" and the iteration in 12 digits or more. */
char *
ps_ckpt_version_path(const char *ckdir, uint64_t iteration)
{
	return xasprintf("%s/v%0*llu", ckdir, PS_CKPT_NAME_DIGITS,
	    (unsigned long long)iteration);
}

/* Whether name is "v" and 12 to 20 digits that fit in 64 bits. */
int
ps_ckpt_version_parse(const char *name, uint64_t *iteration)
{
	size_t len = strlen(name);

	return name[0] == 'v' && len >= 1 + PS_CKPT_NAME_DIGITS && len <= 21 &&
	    ps_parsenum_u64_in(name + 1, 0, UINT64_MAX, iteration) ==
	    PS_NUM_OK;
}

/* The last component of path, trailing slashes ignored; caller frees. */
static char *
ckpt_basename(const char *path)
{
	char *s = xstrdup(path), *slash, *base;
	size_t len = strlen(s);

	while (len > 1 && s[len - 1] == '/')
		s[--len] = '\0';
	slash = strrchr(s, '/');
	base = xstrdup(slash != NULL ? slash + 1 : s);
	free(s);
	return base;
}

/* Whether path names a directory. */
static int
ckpt_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Which rule of ckptdir.h a model argument falls under. */
enum ps_ckpt_kind
ps_ckpt_kind(const char *path)
{
	char *manifest, *base;
	struct ps_ckpt_version *v;
	struct stat st;
	uint64_t it;
	size_t n;
	int version;
	char err[8];

	if (!ckpt_is_dir(path))
		return PS_CKPT_PARTS;
	manifest = xasprintf("%s/%s", path, PS_MANIFEST_NAME);
	base = ckpt_basename(path);
	version = lstat(manifest, &st) == 0 || ps_ckpt_version_parse(base, &it);
	free(manifest);
	free(base);
	if (version)
		return PS_CKPT_VERSION;
	if (ps_ckpt_list(path, &v, &n, err, sizeof err) != 0)
		return PS_CKPT_PARTS;
	ps_ckpt_list_free(v, n);
	return n > 0 ? PS_CKPT_CKDIR : PS_CKPT_PARTS;
}

/* Order versions by iteration, then name. */
static int
ckpt_version_cmp(const void *a, const void *b)
{
	const struct ps_ckpt_version *x = a, *y = b;

	if (x->iteration != y->iteration)
		return x->iteration < y->iteration ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The version subdirectories of ckdir, sorted. */
int
ps_ckpt_list(const char *ckdir, struct ps_ckpt_version **v, size_t *n,
    char *err, size_t errlen)
{
	struct dirent *de;
	uint64_t it;
	char *path;
	DIR *d;

	*v = NULL;
	*n = 0;
	if ((d = opendir(ckdir)) == NULL)
		return ps_errbuf(err, errlen, PS_MODEL_ESYS,
		    "cannot open '%s': %s", ckdir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (!ps_ckpt_version_parse(de->d_name, &it))
			continue;
		path = xasprintf("%s/%s", ckdir, de->d_name);
		if (ckpt_is_dir(path)) {
			*v = xreallocarray(*v, *n + 1, sizeof **v);
			(*v)[*n].name = xstrdup(de->d_name);
			(*v)[(*n)++].iteration = it;
		}
		free(path);
	}
	closedir(d);
	if (*n > 0)
		qsort(*v, *n, sizeof **v, ckpt_version_cmp);
	return 0;
}

/* Free a list of versions. */
void
ps_ckpt_list_free(struct ps_ckpt_version *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* Refuse a version name that is not iteration's. */
static int
ckpt_name_agrees(const char *vdir, uint64_t iteration, char *err,
    size_t errlen)
{
	char *base = ckpt_basename(vdir);
	uint64_t named;
	int rc = 0;

	if (ps_ckpt_version_parse(base, &named) && named != iteration)
		rc = ps_errbuf(err, errlen, PS_MODEL_EDATA, "'%s' is named "
		    "for iteration %llu but holds iteration %llu", vdir,
		    (unsigned long long)named, (unsigned long long)iteration);
	free(base);
	return rc;
}

/* Load a complete version whose name agrees with it. */
int
ps_ckpt_load_version(const char *vdir, struct ps_manifest *m,
    struct ps_model *merged, char *err, size_t errlen)
{
	int rc;

	rc = ps_manifest_load(vdir, m, merged, err, errlen);
	if (rc == PS_MANIFEST_ESYS && errno == ENOENT && ckpt_is_dir(vdir))
		return ps_errbuf(err, errlen, PS_CKPT_EINCOMPLETE, "'%s' is "
		    "incomplete: no %s", vdir, PS_MANIFEST_NAME);
	if (rc == 0 && (rc = ckpt_name_agrees(vdir, m->iteration, err,
	    errlen)) != 0) {
		ps_manifest_release(m);
		ps_model_release(merged);
	}
	return rc;
}

/* Try the versions of ckdir from the latest down; the first complete. */
int
ps_ckpt_load_latest(const char *ckdir, char **vdir, struct ps_manifest *m,
    struct ps_model *merged, char *err, size_t errlen)
{
	struct ps_ckpt_version *v;
	char first[1024] = "";
	size_t n, i;
	int rc;

	*vdir = NULL;
	if ((rc = ps_ckpt_list(ckdir, &v, &n, err, errlen)) != 0)
		return rc;
	for (i = n; i-- > 0;) {
		*vdir = xasprintf("%s/%s", ckdir, v[i].name);
		rc = ps_ckpt_load_version(*vdir, m, merged, err, errlen);
		if (rc == 0)
			break;
		if (first[0] == '\0')
			snprintf(first, sizeof first, "%s", err);
		free(*vdir);
		*vdir = NULL;
	}
	ps_ckpt_list_free(v, n);
	if (*vdir != NULL)
		return 0;
	if (n == 0)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "'%s' holds no "
		    "versions", ckdir);
	return ps_errbuf(err, errlen, PS_MODEL_EDATA, "no complete version "
	    "in '%s' (the latest: %s)", ckdir, first);
}

/* Load what a model argument list names; see ckptdir.h. */
int
ps_ckpt_load(const char *const *paths, size_t n, struct ps_model *merged,
    struct ps_ckpt_source *src, char *err, size_t errlen)
{
	enum ps_ckpt_kind kind = PS_CKPT_PARTS;
	size_t i;

	memset(src, 0, sizeof *src);
	for (i = 0; i < n; i++)
		if ((kind = ps_ckpt_kind(paths[i])) != PS_CKPT_PARTS && n > 1)
			return ps_errbuf(err, errlen, PS_MODEL_EDATA, "'%s' is "
			    "a checkpoint %s: give it alone", paths[i],
			    kind == PS_CKPT_VERSION ? "version" : "directory");
	if (n == 1 && kind == PS_CKPT_CKDIR)
		return ps_ckpt_load_latest(paths[0], &src->version,
		    &src->manifest, merged, err, errlen);
	if (n == 1 && kind == PS_CKPT_VERSION) {
		int rc = ps_ckpt_load_version(paths[0], &src->manifest, merged,
		    err, errlen);

		if (rc == 0)
			src->version = xstrdup(paths[0]);
		return rc;
	}
	return ps_model_load(paths, n, merged, err, errlen);
}

/* Free what src owns. */
void
ps_ckpt_source_release(struct ps_ckpt_source *src)
{
	free(src->version);
	ps_manifest_release(&src->manifest);
	memset(src, 0, sizeof *src);
}

/* The manifest of vdir's parts, checked against vdir's name. */
int
ps_ckpt_manifest(const char *vdir, struct ps_manifest *m, char *err,
    size_t errlen)
{
	int rc;

	if ((rc = ps_manifest_build(vdir, m, err, errlen)) != 0)
		return rc;
	if ((rc = ckpt_name_agrees(vdir, m->iteration, err, errlen)) != 0)
		ps_manifest_release(m);
	return rc;
}

/* Build and write vdir's manifest. */
int
ps_ckpt_seal(const char *vdir, struct ps_manifest *m, char *err,
    size_t errlen)
{
	struct ps_manifest built;
	int rc;

	if ((rc = ps_ckpt_manifest(vdir, &built, err, errlen)) != 0)
		return rc;
	rc = ps_manifest_write(vdir, &built, err, errlen);
	if (rc == 0 && m != NULL)
		*m = built;
	else
		ps_manifest_release(&built);
	return rc;
}

/* Remove what ps_ckpt_write put in its temporary directory, and it. */
static void
ckpt_write_undo(const char *tmp, const struct ps_model *parts, size_t n)
{
	char *path;
	size_t i;

	for (i = 0; i < n; i++) {
		path = xasprintf("%s/part-%u.psm", tmp, parts[i].server_id);
		unlink(path);
		free(path);
	}
	path = xasprintf("%s/%s", tmp, PS_MANIFEST_NAME);
	unlink(path);
	free(path);
	rmdir(tmp);
}

/* Write the parts and their manifest into the directory tmp. */
static int
ckpt_write_into(const char *tmp, const struct ps_model *parts, size_t n,
    char *err, size_t errlen)
{
	char *path;
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		path = xasprintf("%s/part-%u.psm", tmp, parts[i].server_id);
		rc = ps_model_write(path, &parts[i], err, errlen);
		free(path);
	}
	if (rc == 0)
		rc = ps_ckpt_seal(tmp, NULL, err, errlen);
	return rc;
}

/* Write a whole version under a temporary name, then rename it. */
int
ps_ckpt_write(const char *outdir, const struct ps_model *parts, size_t n,
    char *err, size_t errlen)
{
	struct stat st;
	char *tmp;
	int rc;

	if (n == 0)
		return ps_errbuf(err, errlen, PS_MODEL_EDATA, "no model parts");
	if ((rc = ckpt_name_agrees(outdir, parts[0].iteration, err,
	    errlen)) != 0)
		return rc;
	if (lstat(outdir, &st) == 0)
		return ps_errbuf(err, errlen, PS_MODEL_ESYS, "cannot create "
		    "'%s': %s", outdir, strerror(EEXIST));
	tmp = xasprintf("%s.tmp.%ld", outdir, (long)getpid());
	if (mkdir(tmp, 0777) != 0) {
		rc = ps_errbuf(err, errlen, PS_MODEL_ESYS, "cannot create "
		    "'%s': %s", tmp, strerror(errno));
		free(tmp);
		return rc;
	}
	rc = ckpt_write_into(tmp, parts, n, err, errlen);
	if (rc == 0 && rename(tmp, outdir) != 0)
		rc = ps_errbuf(err, errlen, PS_MODEL_ESYS, "cannot rename "
		    "'%s' to '%s': %s", tmp, outdir, strerror(errno));
	if (rc == 0 && ps_atomic_sync_dir(outdir) != 0)
		rc = ps_errbuf(err, errlen, PS_MODEL_ESYS, "cannot sync the "
		    "directory of '%s': %s", outdir, strerror(errno));
	if (rc != 0)
		ckpt_write_undo(tmp, parts, n);
	free(tmp);
	return rc;
}
