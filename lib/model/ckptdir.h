/*
 * ckptdir.h: checkpoint directories (pskit-ckpt(5)): one subdirectory per
 * model version, and the rules for what a "model" argument names.
 *
 *   CKDIR/v000000000123/part-0.psm   the parts of iteration 123, written
 *   CKDIR/v000000000123/part-1.psm   first, each atomically
 *   CKDIR/v000000000123/MANIFEST     written last, atomically (manifest.h)
 *
 * A version directory is "v" and the iteration in at least 12 decimal
 * digits, so ls(1) sorts versions by iteration.  A version is complete
 * when its MANIFEST and parts pass ps_manifest_load() and its name agrees
 * with the manifest's iteration; only complete versions are loaded.
 *
 * A model argument is, by the first rule that applies:
 *   1. a directory with a MANIFEST, or named like a version: that version;
 *   2. a directory with version subdirectories: its latest complete one;
 *   3. otherwise a part file or a directory of *.psm parts (ps_model_load).
 * A version or checkpoint directory must be the only argument.
 */
#ifndef PS_CKPTDIR_H
#define PS_CKPTDIR_H

#include <stddef.h>
#include <stdint.h>

#include "model/manifest.h"
#include "model/model.h"

#define PS_CKPT_NAME_DIGITS	12

/* Return values besides 0 and those of model.h. */
#define PS_CKPT_EINCOMPLETE	(-3)	/* a version without a MANIFEST */

enum ps_ckpt_kind {
	PS_CKPT_PARTS,		/* a part file or a plain directory of parts */
	PS_CKPT_VERSION,	/* one version directory */
	PS_CKPT_CKDIR		/* a checkpoint directory */
};

struct ps_ckpt_version {
	char		*name;		/* "v000000000123" */
	uint64_t	 iteration;	/* from the name */
};

/* Where a loaded model came from, when a version: its path and manifest. */
struct ps_ckpt_source {
	char			*version;	/* NULL for plain parts */
	struct ps_manifest	 manifest;
};

/* "CKDIR/v000000000123" for this iteration; the caller frees it. */
char	*ps_ckpt_version_path(const char *ckdir, uint64_t iteration);
/* 1 with *iteration if name is a version name, else 0. */
int	ps_ckpt_version_parse(const char *name, uint64_t *iteration);
/* Which rule above path falls under (3 also when it cannot be read). */
enum ps_ckpt_kind ps_ckpt_kind(const char *path);
/*
 * The version subdirectories of ckdir by iteration, then name, in *v (free
 * with ps_ckpt_list_free); PS_MODEL_ESYS if ckdir cannot be read.
 */
int	ps_ckpt_list(const char *ckdir, struct ps_ckpt_version **v, size_t *n,
	    char *err, size_t errlen);
void	ps_ckpt_list_free(struct ps_ckpt_version *v, size_t n);
/*
 * Load a complete version (as ps_manifest_load, and its name must agree
 * with its iteration); PS_CKPT_EINCOMPLETE when it has no MANIFEST.
 */
int	ps_ckpt_load_version(const char *vdir, struct ps_manifest *m,
	    struct ps_model *merged, char *err, size_t errlen);
/*
 * Load the latest complete version of ckdir; *vdir (the caller frees it)
 * is its path.  PS_MODEL_EDATA if no version is complete.
 */
int	ps_ckpt_load_latest(const char *ckdir, char **vdir,
	    struct ps_manifest *m, struct ps_model *merged, char *err,
	    size_t errlen);
/* Load a model argument list by the rules above; src is the caller's. */
int	ps_ckpt_load(const char *const *paths, size_t n,
	    struct ps_model *merged, struct ps_ckpt_source *src, char *err,
	    size_t errlen);
void	ps_ckpt_source_release(struct ps_ckpt_source *src);
/*
 * The manifest of the parts in vdir (ps_manifest_build), refusing a
 * version name that is not their iteration; m is the caller's.
 */
int	ps_ckpt_manifest(const char *vdir, struct ps_manifest *m, char *err,
	    size_t errlen);
/*
 * Seal vdir: ps_ckpt_manifest(), then ps_manifest_write(), the last step
 * of writing a version.  m, when not NULL, receives the manifest (the
 * caller releases it).
 */
int	ps_ckpt_seal(const char *vdir, struct ps_manifest *m, char *err,
	    size_t errlen);
/*
 * Write n parts (each as "part-<server id>.psm") and their MANIFEST as the
 * new version directory outdir, which must not exist: they go to a
 * temporary directory beside it that is renamed into place at the end,
 * and removed on error, so outdir is either complete or absent.
 */
int	ps_ckpt_write(const char *outdir, const struct ps_model *parts,
	    size_t n, char *err, size_t errlen);

#endif
