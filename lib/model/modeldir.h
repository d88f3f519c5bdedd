/*
 * modeldir.h: where a pskit program may put a model directory (the -o of
 * ps-train, ps-retrain, ps-ckpt reshard and merge): a new directory, or in
 * the place of one that pskit wrote, whose entries are all a model's
 * files (part-N.psm, part-N.psm.chC, ring, MANIFEST, progress.tsv).  Any
 * other path is refused before any work, so nothing of a user's is lost:
 * "'precious' is not a pskit model directory (it holds 'notes.txt')".
 * The parent directory must exist (as for LIBLINEAR's model file).
 *
 * The new model is copied into DEST.tmp.PID beside DEST, synced, and then
 * swapped with DEST in one rename (renameat2 RENAME_EXCHANGE; two renames
 * where the file system lacks it), so a reader of DEST sees the old model
 * or the new one whole; the old one's files are then removed.  On failure
 * the temporary is removed and DEST left as it was; messages name DEST,
 * never the temporary.
 */
#ifndef PS_MODELDIR_H
#define PS_MODELDIR_H

#include <stddef.h>

/* 1 if name is one of a model directory's files. */
int	ps_modeldir_is_model_file(const char *name);

/*
 * 0 if a model may be written to dest, else -1 with the reason in err
 * ("cannot write a model to 'x': ...").
 */
int	ps_modeldir_check(const char *dest, char *err, size_t errlen);

/*
 * Put the model files of directory src (other entries are left out) at
 * dest as above; src is left as it was.  0, or -1 with the reason.
 */
int	ps_modeldir_install(const char *src, const char *dest, char *err,
	    size_t errlen);

#endif
