/*
 * clock.h: the one clock pskit measures time on: seconds on the monotonic
 * clock, for timeouts, intervals, deadlines and rates (never wall time).
 */
#ifndef PS_CLOCK_H
#define PS_CLOCK_H

/* Seconds on CLOCK_MONOTONIC, from an arbitrary start. */
double	ps_clock_now(void);

#endif
