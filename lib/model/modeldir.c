/*
 * modeldir.c: checking and atomically replacing a model directory; see
 * modeldir.h.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/modeldir.h"
#include "util/atomicfile.h"
#include "util/errbuf.h"
#include "util/xmalloc.h"

/* 1 if s starts with prefix and then has one or more digits; *end after. */
static int
modeldir_number(const char *s, const char *prefix, const char **end)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n) != 0 || s[n] < '0' || s[n] > '9')
		return 0;
	for (s += n; *s >= '0' && *s <= '9'; s++)
		continue;
	*end = s;
	return 1;
}

int
ps_modeldir_is_model_file(const char *name)
{
	const char *p;

	if (strcmp(name, "ring") == 0 || strcmp(name, "MANIFEST") == 0 ||
	    strcmp(name, "progress.tsv") == 0)
		return 1;
	if (!modeldir_number(name, "part-", &p) || strncmp(p, ".psm", 4) != 0)
		return 0;
	p += 4;
	return *p == '\0' || (modeldir_number(p, ".ch", &p) && *p == '\0');
}

/* dest without trailing slashes, allocated. */
static char *
modeldir_clean(const char *dest)
{
	char *d = xstrdup(dest);
	size_t n = strlen(d);

	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	return d;
}

/* 0 if the existing directory d holds only model files, else -1 and why. */
static int
modeldir_only_ours(const char *d, const char *dest, char *err, size_t errlen)
{
	struct dirent *e;
	DIR *dir;
	int rc = 0;

	if ((dir = opendir(d)) == NULL)
		return ps_errbuf(err, errlen, -1, "cannot write a model to "
		    "'%s': %s", dest, strerror(errno));
	while (rc == 0 && (e = readdir(dir)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    ps_modeldir_is_model_file(e->d_name))
			continue;
		rc = ps_errbuf(err, errlen, -1, "'%s' is not a pskit model "
		    "directory (it holds '%s'); not replacing it", dest,
		    e->d_name);
	}
	closedir(dir);
	return rc;
}

/* 0 if the parent directory of dest exists and may be written, else -1. */
static int
modeldir_parent_ok(const char *parent, const char *dest, char *err,
    size_t errlen)
{
	struct stat st;

	if (stat(parent, &st) != 0)
		return ps_errbuf(err, errlen, -1, "cannot write a model to "
		    "'%s': '%s': %s", dest, parent, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ps_errbuf(err, errlen, -1, "cannot write a model to "
		    "'%s': '%s' is not a directory", dest, parent);
	if (access(parent, W_OK | X_OK) != 0)
		return ps_errbuf(err, errlen, -1, "cannot write a model to "
		    "'%s': '%s': %s", dest, parent, strerror(errno));
	return 0;
}

int
ps_modeldir_check(const char *dest, char *err, size_t errlen)
{
	char *d = modeldir_clean(dest), *copy = xstrdup(d), *base;
	struct stat st;
	int rc = 0;

	base = basename(copy);
	if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ||
	    strcmp(d, "/") == 0)
		rc = ps_errbuf(err, errlen, -1, "cannot write a model to "
		    "'%s': name a directory to create or replace", dest);
	else if (lstat(d, &st) == 0 && !S_ISDIR(st.st_mode))
		rc = ps_errbuf(err, errlen, -1, "'%s' is not a pskit model "
		    "directory (it is not a directory); not replacing it",
		    dest);
	else if (lstat(d, &st) == 0)
		rc = modeldir_only_ours(d, dest, err, errlen);
	else if (errno != ENOENT)
		rc = ps_errbuf(err, errlen, -1, "cannot write a model to "
		    "'%s': %s", dest, strerror(errno));
	free(copy);
	if (rc == 0) {
		copy = xstrdup(d);
		rc = modeldir_parent_ok(dirname(copy), dest, err, errlen);
		free(copy);
	}
	free(d);
	return rc;
}

/* Write all n bytes of buf to fd; 0 or -1 with errno. */
static int
modeldir_write(int fd, const char *buf, size_t n)
{
	ssize_t w;

	for (; n > 0; buf += w, n -= (size_t)w)
		if ((w = write(fd, buf, n)) < 0)
			return -1;
	return 0;
}

/*
 * Copy the file from to the new file to, its writeback begun: the caller
 * syncs it (modeldir_sync()) once every file is copied, so that their
 * writes go to the disk together; 0 or -1 with errno.
 */
static int
modeldir_copy(const char *from, const char *to)
{
	char buf[1 << 16];
	ssize_t n;
	int in, out, rc = 0, e = 0;

	if ((in = open(from, O_RDONLY)) < 0)
		return -1;
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0666)) < 0) {
		e = errno;
		close(in);
		errno = e;
		return -1;
	}
	while (rc == 0 && (n = read(in, buf, sizeof buf)) != 0)
		rc = n < 0 ? -1 : modeldir_write(out, buf, (size_t)n);
	/* A hint: modeldir_sync() waits and sees any failure. */
	if (rc == 0)
		(void)sync_file_range(out, 0, 0, SYNC_FILE_RANGE_WRITE);
	e = errno;
	if (close(out) != 0 && rc == 0) {
		e = errno;
		rc = -1;
	}
	close(in);
	errno = e;
	return rc;
}

/* fsync the file at path; 0 or -1 with errno. */
static int
modeldir_sync(const char *path)
{
	int fd, rc, e;

	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	rc = fsync(fd);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* Remove the model files of dir, then dir (best effort). */
static void
modeldir_remove(const char *dir)
{
	struct dirent *e;
	DIR *d;
	char *path;

	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (!ps_modeldir_is_model_file(e->d_name))
				continue;
			path = xasprintf("%s/%s", dir, e->d_name);
			unlink(path);
			free(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

/*
 * Copy src's model files into the new directory stage, then sync each
 * and the directory; 0 or -1, errno.
 */
static int
modeldir_fill(const char *src, const char *stage)
{
	struct dirent *e;
	char **copied = NULL;
	size_t n = 0, k;
	DIR *d;
	int rc = 0, saved = 0;

	if (mkdir(stage, 0777) != 0 || (d = opendir(src)) == NULL)
		return -1;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *from;

		if (!ps_modeldir_is_model_file(e->d_name))
			continue;
		copied = xreallocarray(copied, n + 1, sizeof *copied);
		from = xasprintf("%s/%s", src, e->d_name);
		copied[n] = xasprintf("%s/%s", stage, e->d_name);
		rc = modeldir_copy(from, copied[n++]);
		saved = errno;
		free(from);
	}
	closedir(d);
	for (k = 0; k < n; k++) {
		if (rc == 0 && (rc = modeldir_sync(copied[k])) != 0)
			saved = errno;
		free(copied[k]);
	}
	free(copied);
	if (rc == 0 && ps_atomic_sync_dir(stage) != 0)
		return -1;
	errno = saved;
	return rc;
}

/* Swap the full directory stage in for dest; 0, or -1 with errno. */
static int
modeldir_swap(const char *stage, const char *dest)
{
	struct stat st;
	char *old;
	int rc;

	if (lstat(dest, &st) != 0)
		return rename(stage, dest);
	if (renameat2(AT_FDCWD, stage, AT_FDCWD, dest, RENAME_EXCHANGE) == 0) {
		modeldir_remove(stage);	/* it holds the old model now */
		return 0;
	}
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	old = xasprintf("%s.old.%ld", dest, (long)getpid());
	rc = rename(dest, old);
	if (rc == 0 && (rc = rename(stage, dest)) != 0)
		(void)rename(old, dest);
	if (rc == 0)
		modeldir_remove(old);
	free(old);
	return rc;
}

int
ps_modeldir_install(const char *src, const char *dest, char *err,
    size_t errlen)
{
	char *d, *stage;
	int rc;

	if (ps_modeldir_check(dest, err, errlen) != 0)
		return -1;
	d = modeldir_clean(dest);
	stage = xasprintf("%s.tmp.%ld", d, (long)getpid());
	rc = modeldir_fill(src, stage) == 0 && modeldir_swap(stage, d) == 0 &&
	    ps_atomic_sync_dir(d) == 0 ? 0 : -1;
	if (rc != 0) {
		ps_errbuf(err, errlen, -1, "cannot write the model '%s': %s",
		    dest, strerror(errno));
		modeldir_remove(stage);
	}
	free(stage);
	free(d);
	return rc;
}

