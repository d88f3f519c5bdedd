/*
 * versions.c: ps-ckpt ls (the versions of a checkpoint directory and their
 * state), verify (exit 1 if anything is corrupt) and seal (write a version
 * directory's MANIFEST).
 *
 * A version is complete (its MANIFEST and parts check out: manifest.h),
 * incomplete (no MANIFEST: being written, or abandoned by a crash) or
 * corrupt (a MANIFEST that its parts do not match, or that does not parse).
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "ckpt.h"
#include "util/xmalloc.h"

/* One line of ls. */
struct ls_row {
	const char	*name;
	uint64_t	 iteration;
	int		 have_manifest;	/* ring_version, nservers are valid */
	uint32_t	 ring_version;
	uint32_t	 nservers;
	size_t		 parts;		/* *.psm files present */
	const char	*state;
	char		 reason[2048];	/* "" when complete */
};

/* The state of version v of ckdir; 0 complete, else a load error. */
static int
version_inspect(const char *ckdir, const struct ps_ckpt_version *v,
    struct ls_row *row)
{
	char *vdir = xasprintf("%s/%s", ckdir, v->name), **names, msg[8];
	struct ps_manifest m;
	struct ps_model merged;
	size_t i;
	int rc;

	memset(row, 0, sizeof *row);
	row->name = v->name;
	row->iteration = v->iteration;
	rc = ps_ckpt_load_version(vdir, &m, &merged, row->reason,
	    sizeof row->reason);
	row->state = rc == 0 ? "complete" : rc == PS_CKPT_EINCOMPLETE ?
	    "incomplete" : "corrupt";
	if (rc == 0)
		row->reason[0] = '\0';
	else if (rc == PS_CKPT_EINCOMPLETE)
		snprintf(row->reason, sizeof row->reason, "no %s",
		    PS_MANIFEST_NAME);
	if (rc == 0 || ps_manifest_read(vdir, &m, msg, sizeof msg) == 0) {
		row->have_manifest = 1;
		row->ring_version = m.ring_version;
		row->nservers = m.nservers;
		ps_manifest_release(&m);
	}
	ps_model_release(&merged);
	if (ps_model_dir_list(vdir, &names, &row->parts, msg, sizeof msg) == 0)
		for (i = 0; i < row->parts; i++)
			free(names[i]);
	free(names);
	free(vdir);
	return rc;
}

/* TSV: the header, then one line per version. */
static void
ls_tsv(const struct ls_row *r)
{
	if (r == NULL) {
		printf("version\titeration\tring_version\tservers\tparts\t"
		    "state\treason\n");
		return;
	}
	printf("%s\t%llu\t", r->name, (unsigned long long)r->iteration);
	if (r->have_manifest)
		printf("%u\t%u\t", r->ring_version, r->nservers);
	else
		printf("-\t-\t");
	printf("%zu\t%s\t%s\n", r->parts, r->state,
	    r->reason[0] ? r->reason : "-");
}

/* s as a JSON string. */
static void
json_string(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned)(unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* JSON lines: one object per version, no header. */
static void
ls_json(const struct ls_row *r)
{
	if (r == NULL)
		return;
	printf("{\"version\":\"%s\",\"iteration\":%llu,", r->name,
	    (unsigned long long)r->iteration);
	if (r->have_manifest)
		printf("\"ring_version\":%u,\"servers\":%u,", r->ring_version,
		    r->nservers);
	else
		printf("\"ring_version\":null,\"servers\":null,");
	printf("\"parts\":%zu,\"state\":\"%s\",\"reason\":", r->parts,
	    r->state);
	if (r->reason[0] != '\0')
		json_string(r->reason);
	else
		printf("null");
	printf("}\n");
}

/*
 * Exit 65 when path, a directory without versions, is a model (parts) or
 * one version rather than a checkpoint directory, which would list empty.
 * An empty directory is a checkpoint directory with no version yet.
 */
static void
ls_refuse_model(const char *path)
{
	const char *what = NULL;
	char **names, msg[8];
	size_t n, i;

	if (ps_ckpt_kind(path) == PS_CKPT_VERSION)
		what = "a checkpoint version";
	else if (ps_model_dir_list(path, &names, &n, msg, sizeof msg) == 0) {
		if (n > 0)
			what = "a model";
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
	if (what != NULL)
		errx(EX_DATAERR, "'%s' is %s, not a checkpoint directory "
		    "(see ps-ckpt info)", path, what);
}

/* ps-ckpt ls: every version of a checkpoint directory. */
int
cmd_ls(int argc, char **argv)
{
	void (*show)(const struct ls_row *) = ls_tsv;
	struct ps_ckpt_version *v;
	struct ls_row row;
	size_t n, i;
	char msg[1024];
	int rc;

	while (ckpt_getopt(argc, argv, "+hj", NULL) != -1)
		show = ls_json;
	if (argc - optind != 1)
		usage(EX_USAGE);
	if ((rc = ps_ckpt_list(argv[optind], &v, &n, msg, sizeof msg)) != 0)
		errx(model_status(rc), "%s", msg);
	if (n == 0)
		ls_refuse_model(argv[optind]);
	show(NULL);
	for (i = 0; i < n; i++) {
		version_inspect(argv[optind], &v[i], &row);
		show(&row);
	}
	ps_ckpt_list_free(v, n);
	return finish_stdout();
}

/* verify a checkpoint directory: no version corrupt, one complete. */
static int
verify_ckdir(const char *ckdir)
{
	struct ps_ckpt_version *v;
	struct ls_row row;
	size_t n, i, complete = 0, corrupt = 0;
	char msg[1024];
	int rc;

	if ((rc = ps_ckpt_list(ckdir, &v, &n, msg, sizeof msg)) != 0)
		errx(model_status(rc), "%s", msg);
	for (i = 0; i < n; i++) {
		rc = version_inspect(ckdir, &v[i], &row);
		if (rc == 0)
			complete++;
		else if (rc == PS_CKPT_EINCOMPLETE)
			warnx("warning: '%s/%s' is incomplete: %s", ckdir,
			    row.name, row.reason);
		else {
			warnx("%s", row.reason);
			corrupt++;
		}
	}
	ps_ckpt_list_free(v, n);
	if (complete == 0 && corrupt == 0)
		warnx("no complete version in '%s'", ckdir);
	return corrupt > 0 || complete == 0;
}

/* ps-ckpt verify: exit 0 if the model is sound, 1 if not. */
int
cmd_verify(int argc, char **argv)
{
	struct ps_ckpt_source src;
	struct ps_model m;
	char msg[2048];
	int rc;

	plain_options(argc, argv);
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage(EX_USAGE);
	if (argc == 1 && ps_ckpt_kind(argv[0]) == PS_CKPT_CKDIR)
		return verify_ckdir(argv[0]);
	rc = ps_ckpt_load((const char *const *)argv, (size_t)argc, &m, &src,
	    msg, sizeof msg);
	if (rc == PS_MODEL_ESYS)
		errx(EX_NOINPUT, "%s", msg);
	if (rc != 0) {
		warnx("%s", msg);
		return 1;
	}
	check_parts(&m, 0);
	ps_ckpt_source_release(&src);
	ps_model_release(&m);
	return 0;
}

/* ps-ckpt seal: write the MANIFEST of a version directory. */
int
cmd_seal(int argc, char **argv)
{
	struct ps_manifest m;
	char msg[2048];
	int rc;

	plain_options(argc, argv);
	if (argc - optind != 1)
		usage(EX_USAGE);
	if ((rc = ps_ckpt_manifest(argv[optind], &m, msg, sizeof msg)) != 0)
		errx(model_status(rc), "%s", msg);
	if (ps_manifest_write(argv[optind], &m, msg, sizeof msg) != 0)
		errx(EX_CANTCREAT, "%s", msg);
	ps_manifest_release(&m);
	return 0;
}
