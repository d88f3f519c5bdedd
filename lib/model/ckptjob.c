/*
 * ckptjob.c: the JOB file of a checkpoint directory and of its versions
 * (ckptjob.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ckptjob.h"
#include "util/atomicfile.h"
#include "util/errbuf.h"
#include "util/xmalloc.h"

int
ps_ckpt_job_read(const char *dir, char **text, char *err, size_t errlen)
{
	char *path = xasprintf("%s/%s", dir, PS_CKPT_JOB_NAME);
	char *buf = xmalloc(PS_CKPT_JOB_MAX + 2);
	size_t n;
	FILE *fp;
	int rc = 0;

	*text = NULL;
	if ((fp = fopen(path, "r")) == NULL) {
		if (errno != ENOENT)
			rc = ps_errbuf(err, errlen, -1, "cannot read '%s': %s",
			    path, strerror(errno));
		free(buf);
		free(path);
		return rc;
	}
	n = fread(buf, 1, PS_CKPT_JOB_MAX + 1, fp);
	if (ferror(fp))
		rc = ps_errbuf(err, errlen, -1, "cannot read '%s': %s", path,
		    strerror(errno));
	else if (n > PS_CKPT_JOB_MAX)
		rc = ps_errbuf(err, errlen, -1, "'%s': over %d bytes", path,
		    PS_CKPT_JOB_MAX);
	else if (memchr(buf, '\0', n) != NULL)
		rc = ps_errbuf(err, errlen, -1, "'%s': not text", path);
	fclose(fp);
	free(path);
	if (rc != 0) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*text = buf;
	return 0;
}

int
ps_ckpt_job_write(const char *dir, const char *text, char *err,
    size_t errlen)
{
	char *path = xasprintf("%s/%s", dir, PS_CKPT_JOB_NAME);
	struct ps_atomic *af;
	int rc;

	if ((af = ps_atomic_open(path, err, errlen)) == NULL) {
		free(path);
		return -1;
	}
	fputs(text, af->fp);
	rc = ps_atomic_commit(af, err, errlen);
	free(path);
	return rc;
}

int
ps_ckpt_job_same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}
