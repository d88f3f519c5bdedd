/*
 * ps-mkmodel.c: test helper that writes a model part file (pskit-model(5))
 * from "fid<TAB>weight" lines on stdin, ascending by feature id.
 */
#include "config.h"

#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "model.h"
#include "xmalloc.h"

/* Print the usage and exit. */
static void
usage(void)
{
	fputs("usage: ps-mkmodel [-i iteration] [-l lambda] [-n nservers] "
	    "[-r ring_version] [-s server_id] file.psm\n", stderr);
	exit(EX_USAGE);
}

/* Read the records from stdin into m. */
static void
read_records(struct ps_model *m)
{
	unsigned long long fid;
	size_t cap = 0;
	unsigned long line = 0;
	char buf[256];
	float w;

	while (fgets(buf, sizeof buf, stdin) != NULL) {
		line++;
		if (sscanf(buf, "%llu %f", &fid, &w) != 2)
			errx(EX_DATAERR, "<stdin>:%lu: expected fid<TAB>weight",
			    line);
		if (m->n == cap) {
			cap = cap ? 2 * cap : 64;
			m->fids = xreallocarray(m->fids, cap, sizeof *m->fids);
			m->w = xreallocarray(m->w, cap, sizeof *m->w);
		}
		m->fids[m->n] = fid;
		m->w[m->n++] = w;
	}
}

int
main(int argc, char **argv)
{
	struct ps_model m;
	char msg[1024];
	int ch;

	memset(&m, 0, sizeof m);
	m.nservers = 1;
	while ((ch = getopt(argc, argv, "i:l:n:r:s:")) != -1) {
		switch (ch) {
		case 'i':
			m.iteration = strtoull(optarg, NULL, 10);
			break;
		case 'l':
			m.lambda = strtod(optarg, NULL);
			break;
		case 'n':
			m.nservers = (uint32_t)strtoul(optarg, NULL, 10);
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
