/*
 * ckptjob.h: whose checkpoints a checkpoint directory holds
 * (pskit-ckpt(5)).  CKDIR/JOB is a short text that names the job writing
 * there (ps-train writes "pskit-job 1", then "data PATH", "algorithm ALG"
 * and "lambda X" lines); each version a server writes carries a copy,
 * CKDIR/vNNN/JOB.  Rotation (ps-server --keep) counts and deletes only
 * versions whose JOB is the directory's, so one job's versions are never
 * rotated away by another's.  The text is compared byte for byte; its
 * lines are for people and for ps-train.
 */
#ifndef PS_CKPTJOB_H
#define PS_CKPTJOB_H

#include <stddef.h>

#define PS_CKPT_JOB_NAME	"JOB"
#define PS_CKPT_JOB_MAX		4096	/* bytes of a JOB file */

/*
 * Read DIR/JOB into *text (NUL-terminated, the caller frees it); *text
 * is NULL when there is none.  0, or -1 with the reason in err (it cannot
 * be read, is over PS_CKPT_JOB_MAX bytes or holds a NUL byte).
 */
int	ps_ckpt_job_read(const char *dir, char **text, char *err,
	    size_t errlen);
/* Write text as DIR/JOB, atomically; 0, or -1 with the reason in err. */
int	ps_ckpt_job_write(const char *dir, const char *text, char *err,
	    size_t errlen);
/* True when a and b name the same job (both NULL, or equal texts). */
int	ps_ckpt_job_same(const char *a, const char *b);

#endif
