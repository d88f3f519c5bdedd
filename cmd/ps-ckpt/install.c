/*
 * install.c: ps-ckpt install, the one way a script puts a model directory
 * in place (modeldir.h): a new directory, or one pskit wrote replaced
 * atomically; anything else is refused.  With -n it only checks, so a job
 * can refuse a bad -o before it starts.
 */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <getopt.h>
#include <sysexits.h>
#include <unistd.h>

#include "ckpt.h"
#include "model/modeldir.h"

int
cmd_install(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "check", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct stat st;
	char msg[2048];
	int check = 0;

	while (ckpt_getopt(argc, argv, "+hn", longopts) != -1)
		check = 1;
	argc -= optind;
	argv += optind;
	if (argc != (check ? 1 : 2))
		usage(EX_USAGE);
	if (check) {
		if (ps_modeldir_check(argv[0], msg, sizeof msg) != 0)
			errx(EX_CANTCREAT, "%s", msg);
		return 0;
	}
	if (stat(argv[0], &st) != 0 || !S_ISDIR(st.st_mode))
		errx(EX_NOINPUT, "'%s' is not a model directory", argv[0]);
	if (ps_modeldir_install(argv[0], argv[1], msg, sizeof msg) != 0)
		errx(EX_CANTCREAT, "%s", msg);
	return 0;
}
