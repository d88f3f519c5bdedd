/*
 * crash.c: the fatal-signal line of crash.h.  The handler only copies
 * bytes and calls write(2), sigaction(2) and raise(3), which are
 * async-signal-safe, and runs on its own stack so that a stack overflow
 * is reported too.
 */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "wire/crash.h"
#include "wire/wire.h"

#if defined(__SANITIZE_ADDRESS__)
#define CRASH_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CRASH_UNDER_ASAN 1
#endif
#endif

#define CRASH_PEER_MAX	128

static const char *crash_prog = "pskit";
static volatile sig_atomic_t crash_type, crash_flags;
static char crash_peer[CRASH_PEER_MAX];
static char crash_stack[64 * 1024];

/* Append s to buf at *at, within len. */
static void
crash_put(char *buf, size_t len, size_t *at, const char *s)
{
	while (*s != '\0' && *at + 1 < len)
		buf[(*at)++] = *s++;
}

static const char *
crash_signame(int sig)
{
	switch (sig) {
	case SIGSEGV:	return "SIGSEGV";
	case SIGBUS:	return "SIGBUS";
	case SIGFPE:	return "SIGFPE";
	case SIGILL:	return "SIGILL";
	case SIGABRT:	return "SIGABRT";
	}
	return "a fatal signal";
}

static void
crash_handler(int sig)
{
	static const char hex[] = "0123456789abcdef";
	char line[512], fl[5] = { '0', 'x', 0, 0, 0 };
	size_t at = 0;

	fl[2] = hex[(crash_flags >> 4) & 0xf];
	fl[3] = hex[crash_flags & 0xf];
	crash_put(line, sizeof line, &at, crash_prog);
	crash_put(line, sizeof line, &at, ": fatal signal ");
	crash_put(line, sizeof line, &at, crash_signame(sig));
	if (crash_type == 0) {
		crash_put(line, sizeof line, &at, "; no message handled yet");
	} else {
		crash_put(line, sizeof line, &at, "; last message: ");
		crash_put(line, sizeof line, &at,
		    ps_msg_type_name(crash_type));
		crash_put(line, sizeof line, &at, " flags ");
		crash_put(line, sizeof line, &at, fl);
		crash_put(line, sizeof line, &at, " from ");
		crash_put(line, sizeof line, &at, crash_peer);
	}
	line[at++] = '\n';
	(void)!write(STDERR_FILENO, line, at);
	signal(sig, SIG_DFL);
	raise(sig);
}

void
ps_crash_init(const char *prog)
{
#ifndef CRASH_UNDER_ASAN
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa;
	stack_t ss;
	size_t i;

	crash_prog = prog;
	memset(&ss, 0, sizeof ss);
	ss.ss_sp = crash_stack;
	ss.ss_size = sizeof crash_stack;
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = crash_handler;
	sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
#else
	(void)prog;
	(void)crash_stack;
	(void)crash_handler;
#endif
}

void
ps_crash_note(uint8_t type, uint8_t flags, const char *peer)
{
	size_t n = strlen(peer);

	if (n >= sizeof crash_peer)
		n = sizeof crash_peer - 1;
	crash_type = 0;		/* the handler reads no half-copied peer */
	memcpy(crash_peer, peer, n);
	crash_peer[n] = '\0';
	crash_flags = flags;
	crash_type = type;
}
