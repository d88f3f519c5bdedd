/*
 * atomicfile.c: the durable write recipe: temporary name, fflush, fsync,
 * rename, fsync the directory.  A crash at any point leaves either the old
 * file or the new one, never a mixture.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "xmalloc.h"

struct ps_atomic *
ps_atomic_open(const char *path, char *err, size_t errlen)
{
	struct ps_atomic *af;
	int fd;

	af = xcalloc(1, sizeof *af);
	af->path = xstrdup(path);
	af->tmppath = xasprintf("%s.tmp.%ld", path, (long)getpid());
	fd = open(af->tmppath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1 || (af->fp = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "cannot create '%s': %s", af->tmppath,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		free(af->path);
		free(af->tmppath);
		free(af);
		return NULL;
	}
	return af;
}

/* fsync the directory holding path so the rename itself is durable. */
int
ps_atomic_sync_dir(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int fd, rc;

	if (slash == NULL)
		strcpy(dir, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd == -1)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

static void
atomic_free(struct ps_atomic *af)
{
	free(af->path);
	free(af->tmppath);
	free(af);
}

int
ps_atomic_commit(struct ps_atomic *af, char *err, size_t errlen)
{
	int bad;

	bad = fflush(af->fp) != 0 || ferror(af->fp) || fsync(fileno(af->fp)) != 0;
	if (fclose(af->fp) != 0)
		bad = 1;
	af->fp = NULL;
	if (bad) {
		snprintf(err, errlen, "cannot write '%s': %s", af->tmppath,
		    strerror(errno));
		unlink(af->tmppath);
		atomic_free(af);
		return -1;
	}
	if (rename(af->tmppath, af->path) != 0) {
		snprintf(err, errlen, "cannot rename '%s' to '%s': %s",
		    af->tmppath, af->path, strerror(errno));
		unlink(af->tmppath);
		atomic_free(af);
		return -1;
	}
	if (ps_atomic_sync_dir(af->path) != 0) {
		snprintf(err, errlen, "cannot sync directory of '%s': %s",
		    af->path, strerror(errno));
		atomic_free(af);
		return -1;
	}
	atomic_free(af);
	return 0;
}

void
ps_atomic_abort(struct ps_atomic *af)
{
	if (af == NULL)
		return;
	if (af->fp != NULL)
		fclose(af->fp);
	unlink(af->tmppath);
	atomic_free(af);
}
