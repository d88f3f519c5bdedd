/*
 * atomicfile.h: write a file so that readers see either nothing or all of it.
 *
 * ps_atomic_open() creates "PATH.tmp.PID" beside PATH; ps_atomic_commit()
 * flushes, fsyncs, renames it over PATH and fsyncs the directory;
 * ps_atomic_abort() removes the temporary.  Either of the last two closes
 * the stream and frees the handle.  With nosync set, commit and sync only
 * flush: the rename is still all or nothing for readers, but a crash of
 * the machine may lose the file.
 */
#ifndef PS_ATOMICFILE_H
#define PS_ATOMICFILE_H

#include <stddef.h>
#include <stdio.h>

struct ps_atomic {
	FILE	*fp;		/* write the contents here */
	char	*path;		/* final name */
	char	*tmppath;	/* temporary name */
	int	 nosync;	/* set by the caller: no fsync at all, for
				   scratch files a crash may lose */
};

/*
 * Messages in err name path, never the temporary.  ps_atomic_open returns
 * NULL with "cannot create 'path': reason"; ps_atomic_commit returns -1
 * with "cannot write 'path': reason" (or "cannot replace", "cannot sync
 * directory of") and has removed the temporary.
 */
struct ps_atomic *ps_atomic_open(const char *path, char *err, size_t errlen);
int	ps_atomic_commit(struct ps_atomic *af, char *err, size_t errlen);
/*
 * Flush and fsync the temporary now, so that its commit has little left
 * to wait for: a writer of several files syncs each as it ends, beside
 * the others.  -1 with "cannot write 'path': reason"; the temporary
 * stays, for commit or abort.
 */
int	ps_atomic_sync(struct ps_atomic *af, char *err, size_t errlen);
void	ps_atomic_abort(struct ps_atomic *af);
/* fsync the directory holding path (0, or -1 with errno set). */
int	ps_atomic_sync_dir(const char *path);

#endif
