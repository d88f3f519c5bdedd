/*
 * fuzz_conn.c: libFuzzer harness for the receiving side of a connection
 * (lib/wire/conn.c) as a server's accepted peer has it: the input arrives on a
 * socket, and the conn tells frames from text lines, checks each header
 * against its limit, decodes the frame (lib/wire/wire.c), keeps and resolves
 * key lists by signature (lib/wire/keycache.c, answering KEYS_MISSING) and
 * hands each message or line to its callbacks, until the end of input
 * closes it.
 *
 * Invariants besides "no crash": what reaches the message callback keeps
 * conn.h's promise (no KEYCACHE flag; keys present and ascending unless
 * NOKEYS, or KEYSIG for a signature the conn could not resolve); a text
 * line is at most PS_CONN_LINE_MAX bytes without control characters; the
 * conn closes exactly once, with a reason.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "fuzz.h"
#include "wire/conn.h"

static struct event_base *base;

/* What the callbacks saw of one input. */
struct seen {
	int	closed;
};

/* A decoded message: check conn.h's promises, then free it. */
static void
fuzz_msg_cb(struct ps_conn *c, struct ps_msg *m, void *arg)
{
	int unresolved = (m->flags & PS_MSG_F_KEYSIG) != 0;
	uint32_t i;

	FUZZ_CHECK(!(m->flags & PS_MSG_F_KEYCACHE));
	if (unresolved || (m->flags & PS_MSG_F_NOKEYS) || m->nkeys == 0)
		FUZZ_CHECK(m->keys == NULL);
	else
		FUZZ_CHECK(m->keys != NULL);
	for (i = 1; m->keys != NULL && i < m->nkeys; i++)
		FUZZ_CHECK(m->keys[i] > m->keys[i - 1]);
	ps_msg_release(m);
}

/* A text line: short, printable or tabs. */
static void
fuzz_text_cb(struct ps_conn *c, const char *line, void *arg)
{
	size_t i, len = strlen(line);

	FUZZ_CHECK(len <= PS_CONN_LINE_MAX);
	for (i = 0; i < len; i++)
		FUZZ_CHECK(((unsigned char)line[i] >= 0x20 && line[i] != 0x7f) ||
		    line[i] == '\t');
}

/* The conn is done: once, with a reason. */
static void
fuzz_close_cb(struct ps_conn *c, const char *reason, void *arg)
{
	struct seen *s = arg;

	FUZZ_CHECK(!s->closed && reason != NULL);
	s->closed = 1;
	ps_conn_free(c);
}

/* Give data to a new conn on base and run it until it closes. */
static void
run(const uint8_t *data, size_t size)
{
	struct seen s = { 0 };
	int sv[2];

	fuzz_socketpair(sv);
	fuzz_feed(sv[1], data, size);
	ps_conn_new(base, sv[0], "fuzz", fuzz_msg_cb, fuzz_text_cb,
	    fuzz_close_cb, &s);
	while (!s.closed)
		FUZZ_CHECK(event_base_loop(base, EVLOOP_ONCE) == 0);
	close(sv[1]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (base == NULL)
		FUZZ_CHECK((base = event_base_new()) != NULL);
	fuzz_twice(data, size, run, fuzz_fix_frames);
	return 0;
}
