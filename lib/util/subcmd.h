/*
 * subcmd.h: the main() of a tool with subcommands (ps-ring, ps-ckpt), in
 * the style of git builtins: global -h/--help and -V/--version, then a
 * table of named commands, each a function taking its own argc/argv.
 */
#ifndef PS_SUBCMD_H
#define PS_SUBCMD_H

#include <stddef.h>

struct ps_subcmd {
	const char	*name;
	int		(*fn)(int argc, char **argv);	/* argv[0] is the name */
};

/*
 * Parse the global options, then run the named command and return its
 * status.  usage(status) prints the usage (to stdout for 0) and exits;
 * an unknown command or a bad global option is a usage error (64).
 */
int	ps_subcmd_main(const char *prog, const struct ps_subcmd *cmds,
	    size_t ncmds, void (*usage)(int), int argc, char **argv);

#endif
