/*
 * clock.c: seconds on the monotonic clock (clock.h).
 */
#include "config.h"

#include <time.h>

#include "util/clock.h"

double
ps_clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
