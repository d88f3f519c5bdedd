/*
 * ps-ckpt.c: inspect, check, transform and apply models (sets of
 * pskit-model(5) parts, checkpoint versions and directories of
 * pskit-ckpt(5)).
 *
 * Subcommands in a table like git builtins, each in the file of its group
 * (ckpt.h); this file has the usage, main() and the helpers they share,
 * above all the one way a model argument is loaded (load_or_exit).
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

#include "ckpt.h"
#include "util/subcmd.h"
#include "util/usage.h"

static const char usage_text[] =
"usage: ps-ckpt [-hV] command [argument ...]\n"
"       ps-ckpt ls [-j] ckdir\n"
"       ps-ckpt info model ...\n"
"       ps-ckpt verify model ...\n"
"       ps-ckpt seal versiondir\n"
"       ps-ckpt dump model ...\n"
"       ps-ckpt diff [-q] model1 model2\n"
"       ps-ckpt export [-f liblinear | tsv] [-n nr_feature] [-o file] model ...\n"
"       ps-ckpt reshard {-n nparts | -r ringfile} -o outdir model ...\n"
"       ps-ckpt merge -o outdir model ...\n"
"       ps-ckpt install model_dir dest | -n dest\n"
"       ps-ckpt predict [-l] [-o file] [-p positive] model [data ...]\n"
"       ps-ckpt eval [-j] [-p positive] model [data ...]\n";

/* Print the usage (and help for status 0) and exit. */
noreturn void
usage(int status)
{
	ps_usage(status, usage_text, "\n"
	    "A model is part files, a directory of *.psm parts, a version\n"
	    "directory (with a MANIFEST) or a checkpoint directory (its\n"
	    "latest complete version).\n"
	    "  ls       each version: iteration, ring version, servers, parts,\n"
	    "           complete | incomplete | corrupt and why; -j JSON lines\n"
	    "  info     summary as key<TAB>value lines\n"
	    "  verify   exit 1 if anything is corrupt (every version of a ckdir)\n"
	    "  seal     write the MANIFEST of a version directory's parts\n"
	    "  dump     feature_id<TAB>weight for every non-zero weight\n"
	    "  diff     fid<TAB>w1<TAB>w2 where they differ, summary on stderr;\n"
	    "           -q the summary only, on stdout; exit 1 if they differ\n"
	    "  export   -f liblinear (default): LIBLINEAR model file\n"
	    "           -f tsv: the same as dump\n"
	    "           -n nr_feature  at least this many features (liblinear)\n"
	    "           -o file        write here atomically (default stdout)\n"
	    "  reshard  split into nparts by key hash, or by a ring's servers\n"
	    "  merge    one part; both write a new version directory outdir\n"
	    "  install  copy model_dir's model files to dest, a new directory or\n"
	    "           one pskit wrote (replaced atomically); -n only check\n"
	    "  predict  P(y = +1) of each libsvm row (stdin without data);\n"
	    "           -l as liblinear-predict -b 1; -o file atomically;\n"
	    "           -p label  the positive class's label\n"
	    "  eval     rows, positives, auc, logloss, accuracy; -j JSON\n"
	    "  -V, --version  print the version and exit\n"
	    "  -h, --help     print this help and exit\n"
	    "\nexample: xzcat a9a.t.xz | ps-ckpt eval ckdir\n");
}

/* Exit 74 if anything written to stdout was lost. */
int
finish_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		err(EX_IOERR, "cannot write to stdout");
	return 0;
}

/* See ckpt.h: getopt_long that handles -h, --help and bad options. */
int
ckpt_getopt(int argc, char **argv, const char *optstring,
    const struct option *longopts)
{
	static const struct option help_only[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	ch = getopt_long(argc, argv, optstring,
	    longopts != NULL ? longopts : help_only, NULL);
	if (ch == 'h')
		usage(0);
	if (ch == '?' || ch == ':')
		usage(EX_USAGE);
	return ch;
}

/* Parse the options of a subcommand without its own flags. */
void
plain_options(int argc, char **argv)
{
	if (ckpt_getopt(argc, argv, "+h", NULL) != -1)
		usage(EX_USAGE);
}

/* The exit status for a model library error: 66 cannot read, else 65. */
int
model_status(int rc)
{
	return rc == PS_MODEL_ESYS ? EX_NOINPUT : EX_DATAERR;
}

/* Load the model argv names; see ckpt.h. */
void
load_or_exit(int argc, char **argv, struct ps_model *m,
    struct ps_ckpt_source *src, int complete)
{
	struct ps_ckpt_source mine;
	char msg[2048];
	int rc;

	if (argc < 1)
		usage(EX_USAGE);
	rc = ps_ckpt_load((const char *const *)argv, (size_t)argc, m,
	    src != NULL ? src : &mine, msg, sizeof msg);
	if (rc != 0)
		errx(model_status(rc), "%s", msg);
	if (src == NULL)
		ps_ckpt_source_release(&mine);
	check_parts(m, complete);
}

/* Warn, or with complete exit 65, when parts of m are missing. */
void
check_parts(const struct ps_model *m, int complete)
{
	if (m->nparts == m->nservers)
		return;
	if (complete)
		errx(EX_DATAERR, "only %u part%s of a model from %u servers",
		    m->nparts, m->nparts == 1 ? "" : "s", m->nservers);
	warnx("warning: %u part%s of a model from %u servers", m->nparts,
	    m->nparts == 1 ? "" : "s", m->nservers);
}

static const struct ps_subcmd commands[] = {
	{ "ls", cmd_ls },
	{ "info", cmd_info },
	{ "verify", cmd_verify },
	{ "seal", cmd_seal },
	{ "dump", cmd_dump },
	{ "diff", cmd_diff },
	{ "export", cmd_export },
	{ "reshard", cmd_reshard },
	{ "merge", cmd_merge },
	{ "install", cmd_install },
	{ "predict", cmd_predict },
	{ "eval", cmd_eval },
};

int
main(int argc, char **argv)
{
	return ps_subcmd_main("ps-ckpt", commands,
	    sizeof commands / sizeof commands[0], usage, argc, argv);
}
