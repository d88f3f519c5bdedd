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

#include "util/atomicfile.h"
#include "util/xmalloc.h"

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
		snprintf(err, errlen, "cannot create '%s': %s", af->path,
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

/* Remove the temporary, free af, and return -1 with "what 'path': e". */
static int
atomic_fail(struct ps_atomic *af, const char *what, int e, char *err,
    size_t errlen)
{
	snprintf(err, errlen, "cannot %s '%s': %s", what, af->path,
	    strerror(e));
	unlink(af->tmppath);
	atomic_free(af);
	return -1;
}

int
ps_atomic_sync(struct ps_atomic *af, char *err, size_t errlen)
{
	int e;

	errno = 0;
	if (fflush(af->fp) == 0 && !ferror(af->fp) &&
	    (af->nosync || fsync(fileno(af->fp)) == 0))
		return 0;
	e = errno != 0 ? errno : EIO;
	snprintf(err, errlen, "cannot write '%s': %s", af->path, strerror(e));
	return -1;
}

/*
 * Messages name the user's path, never the temporary, whose name means
 * nothing to the user and which is gone when they read the message.
 */
int
ps_atomic_commit(struct ps_atomic *af, char *err, size_t errlen)
{
	int e = 0;

	errno = 0;
	if (fflush(af->fp) != 0 || ferror(af->fp) ||
	    (!af->nosync && fsync(fileno(af->fp)) != 0))
		e = errno != 0 ? errno : EIO;
	if (fclose(af->fp) != 0 && e == 0)
		e = errno;
	af->fp = NULL;
	if (e != 0)
		return atomic_fail(af, "write", e, err, errlen);
	if (rename(af->tmppath, af->path) != 0)
		return atomic_fail(af, "replace", errno, err, errlen);
	if (!af->nosync && ps_atomic_sync_dir(af->path) != 0) {
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
