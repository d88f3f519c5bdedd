/*
 * usage.c: print a program's usage and exit (usage.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/usage.h"

noreturn void
ps_usage(int status, const char *synopsis, const char *help)
{
	fputs(synopsis, status == 0 ? stdout : stderr);
	if (status == 0)
		fputs(help, stdout);
	exit(status);
}
