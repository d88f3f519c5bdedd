/*
 * crash.h: the one line a daemon leaves on stderr when a fatal signal
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) kills it:
 *
 *   ps-server: fatal signal SIGSEGV; last message: PULL flags 0x06 from
 *   127.0.0.1:52558
 *
 * after which the signal takes its default action, so whoever waits for
 * the process still sees it killed by that signal.  The connection layer
 * (conn.c) notes each message before its handler runs.
 *
 * The note and the program name live in static storage here: a signal
 * handler can reach nothing else.  That is the one piece of global
 * mutable state in lib/, written only by the event loop's thread.  Under
 * AddressSanitizer the handlers are not installed, so that its own
 * report is not lost.
 */
#ifndef PS_CRASH_H
#define PS_CRASH_H

#include <stdint.h>

/* Install the handlers for the program prog (a static string). */
void	ps_crash_init(const char *prog);
/* The message about to be handled: its type, flags and peer. */
void	ps_crash_note(uint8_t type, uint8_t flags, const char *peer);

#endif
