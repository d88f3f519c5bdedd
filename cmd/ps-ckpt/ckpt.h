/*
 * ckpt.h: what the files of ps-ckpt share: the usage and loading helpers
 * of ps-ckpt.c, and the commands, grouped by file.
 */
#ifndef PS_CKPT_CMD_H
#define PS_CKPT_CMD_H

#include <getopt.h>
#include <stdio.h>
#include <stdnoreturn.h>

#include "model/ckptdir.h"
#include "model/model.h"

/* ps-ckpt.c */
noreturn void usage(int status);
int	finish_stdout(void);
/*
 * getopt_long(3) for a subcommand: -h and --help print the usage and exit
 * 0, an unknown option or a missing argument exits 64; the rest are
 * returned.  optstring starts with "+h"; longopts, when not NULL, lists
 * "help" (NULL: --help alone).
 */
int	ckpt_getopt(int argc, char **argv, const char *optstring,
	    const struct option *longopts);
void	plain_options(int argc, char **argv);
int	model_status(int rc);
/*
 * Load the model that argv names (ckptdir.h's rules) or exit 64/65/66;
 * src, when not NULL, receives where it came from (the caller releases
 * it).  Warns when parts are missing, or exits 65 if complete is set.
 */
void	load_or_exit(int argc, char **argv, struct ps_model *m,
	    struct ps_ckpt_source *src, int complete);
void	check_parts(const struct ps_model *m, int complete);

/* show.c: a model's summary and weights */
int	cmd_info(int argc, char **argv);
int	cmd_dump(int argc, char **argv);
int	cmd_export(int argc, char **argv);
void	write_tsv(FILE *fp, const struct ps_model *m);

/* versions.c: the versions of a checkpoint directory */
int	cmd_ls(int argc, char **argv);
int	cmd_verify(int argc, char **argv);
int	cmd_seal(int argc, char **argv);

/* diff.c */
int	cmd_diff(int argc, char **argv);

/* reshard.c: models written as new version directories */
int	cmd_reshard(int argc, char **argv);
int	cmd_merge(int argc, char **argv);

/* install.c: putting a model directory in place */
int	cmd_install(int argc, char **argv);

/* score.c: scoring libsvm rows */
int	cmd_predict(int argc, char **argv);
int	cmd_eval(int argc, char **argv);

#endif
