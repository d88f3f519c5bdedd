/*
 * ringstore_file.c: the coordinator's ring in a pskit-ring(5) file,
 * replaced atomically (temporary, fsync, rename, fsync the directory) for
 * each version.  See ringstore.h for the contract.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ringstore.h"
#include "util/xmalloc.h"

/* The version last loaded or saved; -1 while the file holds none. */
struct file_store {
	int64_t		 stored;
};

static int
file_load(struct ring_store *st, struct ps_ring *r,
    const struct ps_ring *empty, char *err, size_t errlen)
{
	struct file_store *fs = st->state;
	int rc = ps_ring_load(st->where, r, err, errlen);

	if (rc == PS_RING_ESYS && errno == ENOENT) {
		if (ps_ring_save(st->where, empty, err, errlen) != 0)
			return RING_STORE_ECREATE;
		fs->stored = empty->version;
		ps_ring_copy(r, empty);
		return 1;
	}
	if (rc == 0)
		fs->stored = r->version;
	return rc;
}

static int
file_save(struct ring_store *st, const struct ps_ring *r, char *err,
    size_t errlen)
{
	struct file_store *fs = st->state;

	if (fs->stored >= 0 && fs->stored + 1 != (int64_t)r->version) {
		snprintf(err, errlen, "'%s' holds ring version %lld, not the "
		    "one before %u", st->where, (long long)fs->stored,
		    r->version);
		return -1;
	}
	if (ps_ring_save(st->where, r, err, errlen) != 0)
		return -1;
	fs->stored = r->version;
	return 0;
}

static void
file_close(struct ring_store *st)
{
	free(st->state);
	free(st->where);
	free(st);
}

static const struct ring_store_ops file_ops = {
	"file", file_load, file_save, file_close
};

struct ring_store *
ringstore_file_open(const char *path)
{
	struct ring_store *st = xcalloc(1, sizeof *st);
	struct file_store *fs = xcalloc(1, sizeof *fs);

	fs->stored = -1;
	st->ops = &file_ops;
	st->where = xstrdup(path);
	st->state = fs;
	return st;
}
