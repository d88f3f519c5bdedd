/*
 * ps-shard-data.c: split libsvm input into binary (or libsvm) shards for the
 * workers, holding out a test set on request, and print its statistics.
 *
 * main() parses the options and reads every input row once; output.c
 * decides where each row goes and writes the files; stats.c counts.
 */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdnoreturn.h>
#include <sysexits.h>
#include <unistd.h>

#include "data/libsvm.h"
#include "shard-data.h"
#include "util/clock.h"
#include "util/parsenum.h"
#include "util/usage.h"

#define MAX_SHARDS	65536

static const char usage_text[] =
"usage: ps-shard-data [-hVqs] [-n shards] [-o prefix] [-f bin|libsvm] [--hash]\n"
"                     [--test fraction] [--seed n] [--strict] [--zero-based]\n"
"                     [--no-sync] [-p label] [file ...]\n";

enum {
	OPT_HASH = 256, OPT_TEST, OPT_SEED, OPT_STRICT, OPT_ZERO,
	OPT_NOSYNC
};

static const struct option longopts[] = {
	{ "shards",	required_argument,	NULL,	'n' },
	{ "output",	required_argument,	NULL,	'o' },
	{ "format",	required_argument,	NULL,	'f' },
	{ "stats",	no_argument,		NULL,	's' },
	{ "quiet",	no_argument,		NULL,	'q' },
	{ "help",	no_argument,		NULL,	'h' },
	{ "version",	no_argument,		NULL,	'V' },
	{ "hash",	no_argument,		NULL,	OPT_HASH },
	{ "test",	required_argument,	NULL,	OPT_TEST },
	{ "seed",	required_argument,	NULL,	OPT_SEED },
	{ "strict",	no_argument,		NULL,	OPT_STRICT },
	{ "zero-based",	no_argument,		NULL,	OPT_ZERO },
	{ "no-sync",	no_argument,		NULL,	OPT_NOSYNC },
	{ "positive",	required_argument,	NULL,	'p' },
	{ NULL,		0,			NULL,	0 }
};

/* Print the usage (and help for status 0) and exit. */
static noreturn void
usage(int status)
{
	ps_usage(status, usage_text, "\n"
	    "  -n, --shards n       write n shards, PREFIX-0 .. PREFIX-(n-1) (default 1)\n"
	    "  -o, --output prefix  write shards here; without -o nothing is written;\n"
	    "                       an existing output is replaced only if it is a\n"
	    "                       pskit shard (never with -f libsvm), else exit 73\n"
	    "  -f, --format fmt     bin (.pss, default) or libsvm (.libsvm)\n"
	    "  -s, --stats          print counts as TSV on stdout\n"
	    "  -q, --quiet          no progress on stderr\n"
	    "      --hash           assign rows by a hash of their text, not in turn\n"
	    "      --test fraction  hold out this fraction of rows in PREFIX-test\n"
	    "      --seed n         seed of the held-out choice and of --hash\n"
	    "      --strict         LIBLINEAR's rules: no comments, qid or blank lines\n"
	    "      --zero-based     feature ids in the input start at 0\n"
	    "      --no-sync        no fsync of the shards: scratch files, which a\n"
	    "                       crash of the machine may lose (ps-train's own)\n"
	    "  -p, --positive label this label is +1, every other one -1\n"
	    "  -V, --version        print the version and exit\n"
	    "  -h, --help           print this help and exit\n"
	    "\nexample: xzcat a9a.xz | ps-shard-data -n 4 -o job/train -\n");
}

/* Parse a number for option what or exit with a usage error. */
static double
parse_number(const char *s, const char *what, double lo, double hi)
{
	double v;

	if (ps_parsenum_double_in(s, lo, hi, &v) != PS_NUM_OK) {
		warnx("invalid %s '%s'", what, s);
		usage(EX_USAGE);
	}
	return v;
}

/* Parse an unsigned integer for option what or exit with a usage error. */
static uint64_t
parse_u64(const char *s, const char *what, uint64_t lo, uint64_t hi)
{
	uint64_t v;

	if (ps_parsenum_u64_in(s, lo, hi, &v) != PS_NUM_OK) {
		warnx("invalid %s '%s'", what, s);
		usage(EX_USAGE);
	}
	return v;
}

/* Fill o from the command line; returns the index of the first file. */
static int
parse_opts(int argc, char **argv, struct sd_opts *o)
{
	int ch;

	memset(o, 0, sizeof *o);
	o->nshards = 1;
	while ((ch = getopt_long(argc, argv, "hVqsn:o:f:p:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage(0);
		case 'V':
			printf("ps-shard-data %s\n", PACKAGE_VERSION);
			exit(0);
		case 'q':
			o->quiet = 1;
			break;
		case 's':
			o->stats = 1;
			break;
		case 'n':
			o->nshards = (int)parse_u64(optarg, "shard count", 1,
			    MAX_SHARDS);
			break;
		case 'o':
			o->prefix = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "bin") == 0)
				o->format = SD_BIN;
			else if (strcmp(optarg, "libsvm") == 0)
				o->format = SD_LIBSVM;
			else {
				warnx("invalid format '%s' (bin or libsvm)",
				    optarg);
				usage(EX_USAGE);
			}
			break;
		case OPT_HASH:
			o->hash = 1;
			break;
		case OPT_TEST:
			o->test = parse_number(optarg, "test fraction", 0, 1);
			if (o->test <= 0 || o->test >= 1) {
				warnx("invalid test fraction '%s' (0 < f < 1)",
				    optarg);
				usage(EX_USAGE);
			}
			break;
		case OPT_SEED:
			o->seed = parse_u64(optarg, "seed", 0, UINT64_MAX);
			break;
		case OPT_STRICT:
			o->lo.strict = 1;
			break;
		case OPT_ZERO:
			o->lo.zero_based = 1;
			break;
		case OPT_NOSYNC:
			o->nosync = 1;
			break;
		case 'p':
			o->lo.has_positive = 1;
			o->lo.positive = parse_number(optarg, "label",
			    -HUGE_VAL, HUGE_VAL);
			break;
		default:
			usage(EX_USAGE);
		}
	}
	return optind;
}

/* Progress on stderr, only when it is a terminal. */
struct progress {
	int		on, shown;
	double		start, last;
	uint64_t	rows, done;	/* done: bytes of finished inputs */
};

/* Show rows, megabytes and speed if half a second has passed. */
static void
progress_show(struct progress *pg, uint64_t rows, uint64_t bytes)
{
	double t = ps_clock_now(), mb = (double)bytes / 1e6;

	if (t - pg->last < 0.5)
		return;
	pg->last = t;
	fprintf(stderr, "\rps-shard-data: %llu rows, %.1f MB, %.1f MB/s ",
	    (unsigned long long)rows, mb, mb / (t - pg->start));
	pg->shown = 1;
}

/* Say once how many values of input r float32 did not keep. */
static void
report_rounding(const struct ps_libsvm_reader *r)
{
	const struct ps_libsvm_rounding *rd = ps_libsvm_rounding(r);
	double v;
	char num[64];
	int digits;

	if (rd->count == 0)
		return;
	v = (double)rd->value;
	if (v == floor(v) && fabs(v) < 1e17)	/* whole: every digit */
		snprintf(num, sizeof num, "%.0f", v);
	else			/* the shortest text that reads back as v */
		for (digits = 1; digits <= 9; digits++) {
			snprintf(num, sizeof num, "%.*g", digits, v);
			if (strtof(num, NULL) == rd->value)
				break;
		}
	warnx("%s: %llu value%s rounded to float32 (first at line %zu: %s -> "
	    "%s)", ps_libsvm_name(r), (unsigned long long)rd->count,
	    rd->count == 1 ? "" : "s", rd->line, rd->text, num);
}

/*
 * Read every row of one input; 0 or an exit status.  A large file's
 * second half is read by a second thread meanwhile (split.c).
 */
static int
read_input(const char *path, const struct sd_opts *o, struct sd_outputs *os,
    struct sd_stats *all, struct progress *pg)
{
	struct ps_libsvm_reader *r;
	struct ps_libsvm_row row;
	struct sd_half *half;
	char err[1024];
	int rc, status = 0;

	if ((r = ps_libsvm_open(path, &o->lo, err, sizeof err)) == NULL) {
		warnx("%s", err);
		return EX_NOINPUT;
	}
	half = sd_half_start(r, path, o);
	for (;;) {
		while ((rc = ps_libsvm_next(r, &row, err, sizeof err)) == 1) {
			if (o->stats && o->prefix == NULL) /* else run() merges */
				sd_stats_add(all, &row);
			if (o->prefix != NULL &&
			    (status = sd_outputs_add(os, &row)))
				break;
			if (pg->on && (++pg->rows & 4095) == 0)
				progress_show(pg, pg->rows + sd_half_rows(half),
				    pg->done + ps_libsvm_tell(r) +
				    sd_half_bytes(half));
		}
		if (half == NULL || rc != 0 || status != 0)
			break;
		pg->rows += sd_half_rows(half);
		sd_half_join(half, r, os);
		half = NULL;
	}
	sd_half_drop(half);
	if (rc < 0) {
		warnx("%s", err);
		status = rc == PS_LIBSVM_EIO ? EX_IOERR : EX_DATAERR;
	} else
		report_rounding(r);
	pg->done += ps_libsvm_tell(r);
	ps_libsvm_close(r);
	return status;
}

/* The size of the inputs that are regular files (0 for standard input). */
static uint64_t
inputs_size(char **files, int nfiles)
{
	uint64_t bytes = 0;
	struct stat st;
	int i;

	for (i = 0; i < nfiles; i++)
		if (strcmp(files[i], "-") != 0 && stat(files[i], &st) == 0 &&
		    S_ISREG(st.st_mode))
			bytes += (uint64_t)st.st_size;
	return bytes;
}

/* Read all inputs and write the outputs; 0 or an exit status. */
static int
run(const struct sd_opts *o, char **files, int nfiles, struct sd_stats *all)
{
	struct sd_outputs os;
	struct progress pg;
	int i, status = 0;

	memset(&os, 0, sizeof os);
	if (o->prefix != NULL &&
	    (status = sd_outputs_open(&os, o, inputs_size(files, nfiles))) != 0)
		return status;
	memset(&pg, 0, sizeof pg);
	pg.on = !o->quiet && isatty(STDERR_FILENO);
	pg.start = pg.last = ps_clock_now();
	for (i = 0; i < nfiles && status == 0; i++)
		status = read_input(files[i], o, &os, all, &pg);
	if (pg.shown)
		fputc('\n', stderr);
	if (status == 0 && o->prefix != NULL)
		status = sd_outputs_commit(&os);
	if (status == 0 && o->stats) {
		if (o->prefix != NULL)	/* every row went to one output */
			sd_outputs_merge_stats(&os, all);
		sd_stats_print_header(stdout);
		sd_stats_print(stdout, "all", all);
		if (o->prefix != NULL)
			sd_outputs_print_stats(&os, stdout);
	}
	sd_outputs_free(&os);
	return status;
}

int
main(int argc, char **argv)
{
	static char *stdin_only[] = { "-", NULL };
	struct ps_libsvm_labels labels;
	struct sd_opts o;
	struct sd_stats all;
	char **files;
	int first, nfiles, status;

	first = parse_opts(argc, argv, &o);
	memset(&labels, 0, sizeof labels);
	o.lo.labels = &labels;		/* labels are checked across inputs */
	files = argv + first;
	if ((nfiles = argc - first) == 0) {
		files = stdin_only;
		nfiles = 1;
	}
	sd_stats_init(&all);
	status = run(&o, files, nfiles, &all);
	sd_stats_release(&all);
	if (status == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
		warn("cannot write to stdout");
		status = EX_IOERR;
	}
	return status;
}
