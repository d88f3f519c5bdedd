/*
 * usage.h: the usage() of every pskit program: the synopsis (which equals
 * the man page's SYNOPSIS) to stdout for -h, with the help after it, and
 * to stderr alone for a bad command line; then exit.
 */
#ifndef PS_USAGE_H
#define PS_USAGE_H

#include <stdnoreturn.h>

/* Print synopsis, and help when status is 0, and exit with status. */
noreturn void	ps_usage(int status, const char *synopsis, const char *help);

#endif
