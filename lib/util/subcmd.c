/*
 * subcmd.c: global options and dispatch for tools with subcommands.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "util/subcmd.h"

int
ps_subcmd_main(const char *prog, const struct ps_subcmd *cmds, size_t ncmds,
    void (*usage)(int), int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	size_t i;
	int ch;

	while ((ch = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage(0);
			break;
		case 'V':
			printf("%s %s\n", prog, PACKAGE_VERSION);
			if (fflush(stdout) != 0 || ferror(stdout))
				err(EX_IOERR, "cannot write to stdout");
			return 0;
		default:
			usage(EX_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage(EX_USAGE);
	for (i = 0; i < ncmds; i++) {
		if (strcmp(argv[0], cmds[i].name) == 0) {
			optind = 0;	/* the command parses its own options */
			return cmds[i].fn(argc, argv);
		}
	}
	warnx("unknown command '%s'", argv[0]);
	usage(EX_USAGE);
	return EX_USAGE;
}
