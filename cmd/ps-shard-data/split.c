/*
 * split.c: read a large input file as two halves at once, the second in a
 * thread of its own, where the outputs cannot tell: binary shards, rows
 * assigned in turn or by hash (not a held-out set chosen by row number).
 *
 * The second half begins at the first line after the file's middle.  Its
 * rows go to outputs of its own (builders and counts, no files), in turn
 * from its first row.  Once the first half is read, each of those joins
 * the output its rows would have gone to read in one pass (in turn: moved
 * on by the first half's row count), and its reader's lines, labels and
 * rounded values join the first half's (ps_libsvm_absorb).  When the
 * second half cannot join so (an error there, or its labels and the first
 * half's are three values), it is dropped and the first half's reader
 * reads on through it: errors, and the lines they name, are those of a
 * single reader.
 */
#include "config.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <unistd.h>

#include "shard-data.h"
#include "util/xmalloc.h"

/* Smaller files are read in one pass: a thread would not pay. */
#define SPLIT_MIN	((uint64_t)1 << 20)
/* How far past the middle to look for a line's end. */
#define SPLIT_LOOK	((size_t)1 << 16)

struct sd_half {
	struct ps_libsvm_reader	*r;
	struct ps_libsvm_labels	 labels;	/* of this half's rows */
	struct sd_outputs	 os;
	uint64_t		 start;
	thrd_t			 thread;
	int			 rc;		/* of its last ps_libsvm_next */
	char			 err[1024];
	atomic_uint_least64_t	 rows, bytes;	/* read so far */
};

/*
 * The offset just after the first '\n' at or past the middle of a file of
 * size bytes, if one is there within SPLIT_LOOK and before the last byte;
 * else 0.
 */
static uint64_t
split_point(int fd, uint64_t size)
{
	char buf[SPLIT_LOOK];
	uint64_t mid = size / 2;
	ssize_t n;
	char *nl;

	n = pread(fd, buf, sizeof buf, (off_t)mid);
	if (n <= 0 || (nl = memchr(buf, '\n', (size_t)n)) == NULL)
		return 0;
	mid += (uint64_t)(nl - buf) + 1;
	return mid < size ? mid : 0;
}

/* The second half's thread: read its rows into its outputs. */
static int
half_read(void *arg)
{
	struct sd_half *h = arg;
	struct ps_libsvm_row row;
	uint64_t n = 0;

	while ((h->rc = ps_libsvm_next(h->r, &row, h->err,
	    sizeof h->err)) == 1) {
		sd_outputs_add(&h->os, &row);	/* binary: cannot fail */
		if ((++n & 4095) == 0) {
			atomic_store(&h->rows, n);
			atomic_store(&h->bytes, ps_libsvm_tell(h->r) -
			    h->start);
		}
	}
	atomic_store(&h->rows, n);
	return 0;
}

/* Whether input path may be read in halves under o; its size then. */
static int
splittable(const char *path, const struct sd_opts *o, uint64_t *size)
{
	struct stat st;

	if (o->prefix == NULL || o->format != SD_BIN ||
	    (o->test > 0 && !o->hash) || strcmp(path, "-") == 0 ||
	    stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < SPLIT_MIN)
		return 0;
	*size = (uint64_t)st.st_size;
	return 1;
}

/* Free h, its reader and outputs (its thread ended). */
static void
half_free(struct sd_half *h)
{
	ps_libsvm_close(h->r);
	sd_outputs_free(&h->os);
	free(h);
}

struct sd_half *
sd_half_start(struct ps_libsvm_reader *r, const char *path,
    const struct sd_opts *o)
{
	struct ps_libsvm_opts lo = o->lo;
	struct sd_half *h;
	uint64_t size, start;
	int fd;

	if (!splittable(path, o, &size))
		return NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	start = split_point(fd, size);
	close(fd);
	if (start == 0)
		return NULL;
	h = xcalloc(1, sizeof *h);
	lo.labels = &h->labels;
	h->start = start;
	if ((h->r = ps_libsvm_open(path, &lo, h->err, sizeof h->err)) ==
	    NULL) {
		free(h);
		return NULL;
	}
	sd_outputs_open_rows(&h->os, o, size - start);
	ps_libsvm_set_end(h->r, size);	/* a half without rows is no error */
	if (ps_libsvm_seek(h->r, start, h->err, sizeof h->err) != 0 ||
	    thrd_create(&h->thread, half_read, h) != thrd_success) {
		half_free(h);
		return NULL;
	}
	ps_libsvm_set_end(r, start);
	return h;
}

uint64_t
sd_half_rows(struct sd_half *h)
{
	return h != NULL ? atomic_load(&h->rows) : 0;
}

uint64_t
sd_half_bytes(struct sd_half *h)
{
	return h != NULL ? atomic_load(&h->bytes) : 0;
}

void
sd_half_join(struct sd_half *h, struct ps_libsvm_reader *r,
    struct sd_outputs *os)
{
	thrd_join(h->thread, NULL);
	if (h->rc == 0 && ps_libsvm_absorb(r, h->r) == 0)
		sd_outputs_join(os, &h->os);
	else
		ps_libsvm_set_end(r, UINT64_MAX);
	half_free(h);
}

void
sd_half_drop(struct sd_half *h)
{
	if (h == NULL)
		return;
	thrd_join(h->thread, NULL);
	half_free(h);
}
