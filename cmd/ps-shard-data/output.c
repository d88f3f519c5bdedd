/*
 * output.c: route rows to shard files and write them.
 *
 * Every output is written to a temporary (atomicfile.h) and renamed only
 * once all of them are complete, so an error anywhere leaves no output
 * behind.  Binary shards collect their rows in a dataset builder and are
 * written at the end (the header needs the shard's sorted feature list),
 * two at a time: a second thread writes every other one, as each is
 * independent of the others (its own builder, temporary and buffers);
 * libsvm shards are written as the rows come.
 */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <threads.h>
#include <unistd.h>

#include "data/shard.h"
#include "shard-data.h"
#include "util/crc32c.h"
#include "util/keyhash.h"
#include "util/xmalloc.h"

#define TEST_SALT	UINT64_C(0x7465737473706c74)	/* "testsplt" */

/* The file name of output k. */
static char *
out_path(const struct sd_opts *o, size_t k)
{
	const char *ext = o->format == SD_BIN ? "pss" : "libsvm";

	if (k < (size_t)o->nshards)
		return xasprintf("%s-%zu.%s", o->prefix, k, ext);
	return xasprintf("%s-test.%s", o->prefix, ext);
}

void
sd_outputs_free(struct sd_outputs *os)
{
	size_t k;

	for (k = 0; k < os->n; k++) {
		if (os->out[k].af != NULL)
			ps_atomic_abort(os->out[k].af);
		free(os->out[k].path);
		ps_dataset_builder_release(&os->out[k].b);
		ps_dataset_builder_release(&os->out[k].tail);
		sd_stats_release(&os->out[k].st);
	}
	free(os->out);
	memset(os, 0, sizeof *os);
}

/*
 * Whether path may be replaced: it does not exist, or it is a regular
 * file that starts with the shard magic (shard.h).  A libsvm output has no
 * mark to tell ours from a user's data, so one that exists is kept.
 */
static int
out_replaceable(const struct sd_opts *o, const char *path)
{
	char magic[sizeof PS_SHARD_MAGIC - 1];
	struct stat st;
	FILE *fp;
	int ok;

	if (lstat(path, &st) != 0)
		return errno == ENOENT;
	if (o->format != SD_BIN || !S_ISREG(st.st_mode) ||
	    (fp = fopen(path, "rb")) == NULL)
		return 0;
	ok = fread(magic, 1, sizeof magic, fp) == sizeof magic &&
	    memcmp(magic, PS_SHARD_MAGIC, sizeof magic) == 0;
	fclose(fp);
	return ok;
}

/*
 * Row and non-zero counts to make room for in each output, from the
 * inputs' size: a libsvm non-zero takes at least 4 bytes of text ("7:1 "),
 * most take 5 or more, and rows are rarely under 32 bytes; too little
 * room only means the arrays grow as before.
 */
#define BYTES_A_NNZ	5
#define BYTES_A_ROW	32
#define ROOM_MAX	((uint64_t)1 << 28)

static void
out_reserve(struct ps_dataset_builder *b, uint64_t bytes, size_t n)
{
	uint64_t rows = bytes / BYTES_A_ROW / n, nnz = bytes / BYTES_A_NNZ / n;

	ps_dataset_builder_reserve(b, (size_t)(rows < ROOM_MAX ? rows :
	    ROOM_MAX), (size_t)(nnz < ROOM_MAX ? nnz : ROOM_MAX));
}

void
sd_outputs_open_rows(struct sd_outputs *os, const struct sd_opts *o,
    uint64_t bytes)
{
	struct sd_out *out;
	size_t k;

	memset(os, 0, sizeof *os);
	os->o = o;
	os->n = (size_t)o->nshards + (o->test > 0);
	os->out = xcalloc(os->n, sizeof *os->out);
	for (k = 0; k < os->n; k++) {
		out = &os->out[k];
		if (o->stats)
			sd_stats_init(&out->st);
		if (o->format == SD_BIN) {
			ps_dataset_builder_init(&out->b);
			ps_dataset_builder_init(&out->tail);
			out_reserve(&out->b, bytes, (size_t)o->nshards);
		}
	}
}

int
sd_outputs_open(struct sd_outputs *os, const struct sd_opts *o,
    uint64_t bytes)
{
	struct sd_out *out;
	char err[1024];
	size_t k;

	sd_outputs_open_rows(os, o, bytes);
	for (k = 0; k < os->n; k++) {
		os->out[k].path = out_path(o, k);
		if (!out_replaceable(o, os->out[k].path)) {
			warnx("refusing to overwrite '%s': not a pskit shard "
			    "file", os->out[k].path);
			sd_outputs_free(os);
			return EX_CANTCREAT;
		}
	}
	for (k = 0; k < os->n; k++) {
		out = &os->out[k];
		if ((out->af = ps_atomic_open(out->path, err, sizeof err)) ==
		    NULL) {
			warnx("%s", err);
			sd_outputs_free(os);
			return EX_CANTCREAT;
		}
		out->af->nosync = o->nosync;
	}
	return 0;
}

void
sd_outputs_join(struct sd_outputs *os, struct sd_outputs *later)
{
	size_t k, shift = os->o->hash ? 0 : os->nextrow % os->o->nshards;
	struct sd_out *to;

	for (k = 0; k < later->n; k++) {
		to = &os->out[k < (size_t)os->o->nshards ?
		    (k + shift) % os->o->nshards : k];
		ps_dataset_builder_release(&to->tail);
		to->tail = later->out[k].b;
		ps_dataset_builder_init(&later->out[k].b);
		if (os->o->stats)
			sd_stats_merge(&to->st, &later->out[k].st);
	}
	os->rowno += later->rowno;
	os->nextrow += later->nextrow;
	sd_outputs_free(later);
}

/* A 64-bit hash of a row's text. */
static uint64_t
line_hash(const struct ps_libsvm_row *row)
{
	uint64_t lo = ps_crc32c(0, row->line, row->linelen);
	uint64_t hi = ps_crc32c(0x9e3779b9, row->line, row->linelen);

	return ps_key_mix(lo | hi << 32);
}

/* The output a row goes to: a shard, or os->o->nshards for the test set. */
static size_t
route(struct sd_outputs *os, const struct ps_libsvm_row *row)
{
	const struct sd_opts *o = os->o;
	uint64_t h = o->hash ? line_hash(row) : os->rowno++, u;

	if (o->test > 0) {
		u = ps_key_mix(h ^ ps_key_mix(o->seed ^ TEST_SALT));
		if ((double)(u >> 11) * 0x1p-53 < o->test)
			return (size_t)o->nshards;
	}
	if (o->hash)
		return ps_key_mix(h ^ ps_key_mix(o->seed)) % (uint64_t)o->nshards;
	return os->nextrow++ % (uint64_t)o->nshards;
}

/* Append a row in canonical libsvm form ("+1 3:0.5 7:1"). */
static int
write_text(struct sd_out *out, const struct ps_libsvm_row *row)
{
	FILE *fp = out->af->fp;
	size_t k;

	fputs(row->y > 0 ? "+1" : "-1", fp);
	for (k = 0; k < row->nnz; k++)
		fprintf(fp, " %" PRIu64 ":%.9g", row->fid[k],
		    (double)row->val[k]);
	if (putc('\n', fp) == EOF) {
		warn("cannot write '%s'", out->path);
		return EX_IOERR;
	}
	return 0;
}

int
sd_outputs_add(struct sd_outputs *os, const struct ps_libsvm_row *row)
{
	struct sd_out *out = &os->out[route(os, row)];

	if (os->o->stats)
		sd_stats_add(&out->st, row);
	if (os->o->format == SD_LIBSVM)
		return write_text(out, row);
	ps_dataset_builder_add(&out->b, row->y, row->fid, row->val, row->nnz);
	return 0;
}

/*
 * Write a binary output's rows to its temporary; an exit status, and on
 * failure the message in err (not shown: two threads write at once).
 */
static int
write_bin(struct sd_out *out, char *err, size_t errlen)
{
	struct ps_dataset ds;
	char why[512];
	int rc;

	ps_dataset_builder_append(&out->b, &out->tail);
	if (ps_dataset_builder_finish(&out->b, &ds, why, sizeof why) != 0) {
		snprintf(err, errlen, "%s: %s", out->path, why);
		return EX_DATAERR;
	}
	rc = ps_shard_write_fp(out->af->fp, out->path, &ds, err, errlen);
	ps_dataset_release(&ds);
	ps_dataset_builder_release(&out->b);
	if (rc != 0)
		return rc == PS_SHARD_EIO ? EX_IOERR : EX_DATAERR;
	/* Synced here, beside the other writer, not in turn at commit. */
	return ps_atomic_sync(out->af, err, errlen) != 0 ? EX_IOERR : 0;
}

/* Outputs first, first + 2, ... of a set, written by one thread. */
struct sd_writer {
	struct sd_outputs	*os;
	size_t			 first;
	size_t			 failed;	/* the output that failed, or n */
	int			 rc;
	char			 err[1024];	/* why it failed */
};

static int
write_every_other(void *arg)
{
	struct sd_writer *wr = arg;
	size_t k;

	wr->failed = wr->os->n;
	for (k = wr->first; k < wr->os->n; k += 2)
		if ((wr->rc = write_bin(&wr->os->out[k], wr->err,
		    sizeof wr->err)) != 0) {
			wr->failed = k;
			break;
		}
	return 0;
}

/*
 * Write every binary output, the odd ones in a second thread (in this one
 * when it cannot start); the exit status of the first that failed, or 0,
 * and only its message is shown, as when they were written in turn.
 */
static int
write_all_bin(struct sd_outputs *os)
{
	struct sd_writer even = { .os = os, .first = 0 };
	struct sd_writer odd = { .os = os, .first = 1 }, *first;
	thrd_t helper;
	int threaded;

	threaded = os->n > 1 &&
	    thrd_create(&helper, write_every_other, &odd) == thrd_success;
	write_every_other(&even);
	if (threaded)
		thrd_join(helper, NULL);
	else
		write_every_other(&odd);
	first = even.failed < odd.failed ? &even : &odd;
	if (first->rc != 0)
		warnx("%s", first->err);
	return first->rc;
}

int
sd_outputs_commit(struct sd_outputs *os)
{
	char err[1024];
	size_t k, j;
	int rc;

	if (os->o->format == SD_BIN && (rc = write_all_bin(os)) != 0) {
		sd_outputs_free(os);
		return rc;
	}
	for (k = 0; k < os->n; k++) {
		rc = ps_atomic_commit(os->out[k].af, err, sizeof err);
		os->out[k].af = NULL;
		if (rc != 0) {
			warnx("%s", err);
			for (j = 0; j < k; j++)
				unlink(os->out[j].path);
			sd_outputs_free(os);
			return EX_IOERR;
		}
	}
	return 0;
}

void
sd_outputs_print_stats(const struct sd_outputs *os, FILE *fp)
{
	char name[32];
	size_t k;

	for (k = 0; k < os->n; k++) {
		if (k < (size_t)os->o->nshards)
			snprintf(name, sizeof name, "%zu", k);
		else
			snprintf(name, sizeof name, "test");
		sd_stats_print(fp, name, &os->out[k].st);
	}
}

void
sd_outputs_merge_stats(const struct sd_outputs *os, struct sd_stats *all)
{
	size_t k;

	for (k = 0; k < os->n; k++)
		sd_stats_merge(all, &os->out[k].st);
}
