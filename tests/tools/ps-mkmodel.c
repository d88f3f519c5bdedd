/*
 * ps-mkmodel.c: test helper that writes a model part file (pskit-model(5))
 * from "fid<TAB>weight" lines on stdin, ascending by feature id; with -o,
 * format 2 from "fid<TAB>weight<TAB>z<TAB>n" lines.
 */
#include "config.h"

#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "algo/ftrl.h"
#include "model/model.h"
#include "util/xmalloc.h"

/* Print the usage and exit. */
static void
usage(void)
{
	fputs("usage: ps-mkmodel [-e epochs] [-i iteration] [-l lambda] "
	    "[-n nservers] [-o adagrad | ftrl] [-r ring_version] "
	    "[-s server_id] file.psm\n", stderr);
	exit(EX_USAGE);
}

/* Make room for record m->n of m; *cap is the arrays' size. */
static void
grow(struct ps_model *m, size_t *cap)
{
	if (m->n < *cap)
		return;
	*cap = *cap ? 2 * *cap : 64;
	m->fids = xreallocarray(m->fids, *cap, sizeof *m->fids);
	m->w = xreallocarray(m->w, *cap, sizeof *m->w);
	if (m->optimizer != 0) {
		m->z = xreallocarray(m->z, *cap, sizeof *m->z);
		m->nsq = xreallocarray(m->nsq, *cap, sizeof *m->nsq);
	}
}

/* Read the records from stdin into m, with z and n if it has an optimiser. */
static void
read_records(struct ps_model *m)
{
	int want = m->optimizer != 0 ? 4 : 2;
	unsigned long long fid;
	size_t cap = 0;
	unsigned long line = 0;
	char buf[256];
	double z, nsq;
	float w;

	while (fgets(buf, sizeof buf, stdin) != NULL) {
		line++;
		if (sscanf(buf, "%llu %f %lf %lf", &fid, &w, &z, &nsq) != want)
			errx(EX_DATAERR, "<stdin>:%lu: expected fid<TAB>weight%s",
			    line, want == 4 ? "<TAB>z<TAB>n" : "");
		grow(m, &cap);
		m->fids[m->n] = fid;
		m->w[m->n] = w;
		if (want == 4) {
			m->z[m->n] = z;
			m->nsq[m->n] = nsq;
		}
		m->n++;
	}
	if (m->optimizer != 0 && m->z == NULL)
		ps_model_alloc(m, 1, 1);	/* no records, still format 2 */
}

int
main(int argc, char **argv)
{
	struct ps_model m;
	char msg[1024];
	int ch;

	memset(&m, 0, sizeof m);
	m.nservers = 1;
	while ((ch = getopt(argc, argv, "e:i:l:n:o:r:s:")) != -1) {
		switch (ch) {
		case 'e':
			m.epochs = strtod(optarg, NULL);
			break;
		case 'i':
			m.iteration = strtoull(optarg, NULL, 10);
			break;
		case 'l':
			m.lambda = strtod(optarg, NULL);
			break;
		case 'n':
			m.nservers = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'o':
			if ((m.optimizer = (uint32_t)ps_ftrl_parse(optarg)) == 0)
				usage();
			break;
		case 'r':
			m.ring_version = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 's':
			m.server_id = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1)
		usage();
	read_records(&m);
	if (ps_model_write(argv[optind], &m, msg, sizeof msg) != 0)
		errx(EX_CANTCREAT, "%s", msg);
	ps_model_release(&m);
	return 0;
}
