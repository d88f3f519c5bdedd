/*
 * ps-framefuzz.c: drive a live pskit daemon with random frames whose
 * checksums are right, for a bounded time and count, and tell whether it
 * survived.
 *
 *   ps-framefuzz [-H] [-a secret-file] [-c connections] [-n frames]
 *       [-o file] [-r file] [-s seed] [-t seconds] HOST:PORT
 *
 * Frames (framefuzz-gen.c, framefuzz-raw.c) go out in turn on -c
 * connections (default 4); one the daemon closes is opened again on its
 * next turn.  With -H every connection starts with a worker's HELLO, so
 * that frames reach the handlers behind it; without, a connection does so
 * or not at random.  -a runs the handshake (auth.h) on each connection
 * first.  The run stops after -t seconds (default 10) or -n frames,
 * whichever comes first.  A seed (-s, default 1) gives the same frames in
 * the same order; only when the daemon closes a connection, which adds a
 * HELLO on the next one, depends on timing.
 *
 * When a connect() is refused after the start, the daemon is gone: the
 * tool says after how many frames and writes the last frames it sent, one
 * a line as "conn=C seq=S HEX" (C counts connections from 1, S frames on
 * it since its connect, from 1) to -o file or standard error.  One
 * connection's frames replay with
 *
 *   grep '^conn=7 ' file | cut -d' ' -f3 | xxd -r -p | nc 127.0.0.1 PORT
 *
 * and -r file replays such a file (or bare hex lines) as it was sent, a
 * connection per conn=, and checks the daemon is still there.
 *
 * Exit status: 0 if the daemon survived, 1 if it went away, 64 on a bad
 * command line, 69 if it cannot connect at the start.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include <netinet/in.h>

#include "framefuzz.h"
#include "util/clock.h"
#include "wire/auth.h"
#include "wire/conn.h"

#define FF_CONNS_MAX	64
#define FF_KEEP		256	/* frames kept for the report */
#define FF_SETTLE_MS	300	/* wait for the daemon after the last frame */
#define FF_OPEN_TRIES	50	/* failed connects in a row that end the run */

/* A frame sent, kept for the report. */
struct ff_sent {
	uint64_t	 conn;
	uint32_t	 seq;
	struct ff_frame	 f;
};

/* One of the connections frames take in turn. */
struct ff_slot {
	int		 fd;
	uint64_t	 id;		/* 1, 2, ... in connect order */
	uint32_t	 seq;		/* frames sent on it */
};

/* A run: the options, its connections, counters and kept frames. */
struct ff_run {
	struct ff_target t;
	struct ff_gen	 gen;
	uint64_t	 seed;
	int		 hello_all, sgd;
	int		 replay;	/* -r: the file holds the HELLOs */
	size_t		 nslots;
	struct ff_slot	 slots[FF_CONNS_MAX];
	struct ff_sent	 kept[FF_KEEP];
	size_t		 nkept;		/* all kept so far; slot nkept % KEEP */
	uint64_t	 frames, hellos, conns, closes, stalls;
	int		 gone, open_fails;
};

/* Print the usage to f and exit with status. */
static void
usage(FILE *f, int status)
{
	fprintf(f, "usage: ps-framefuzz [-H] [-a secret-file] [-c connections] "
	    "[-n frames]\n"
	    "                    [-o file] [-r file] [-s seed] [-t seconds] "
	    "host:port\n"
	    "example: ps-framefuzz -H -s 7 -t 30 -o crash.hex "
	    "127.0.0.1:7000\n");
	exit(status);
}

/* Forget a connection the daemon closed (or that stalled). */
static void
run_lost(struct ff_run *run, struct ff_slot *s, enum ff_status st)
{
	if (st == FF_STALLED)
		run->stalls++;
	else
		run->closes++;
	close(s->fd);
	s->fd = -1;
}

/* Keep f (which the run now owns) as the frame just sent on s. */
static void
run_keep(struct ff_run *run, const struct ff_slot *s, struct ff_frame *f)
{
	struct ff_sent *k = &run->kept[run->nkept++ % FF_KEEP];

	free(k->f.buf);
	k->conn = s->id;
	k->seq = s->seq;
	k->f = *f;
}

/* Send f on slot s and keep it; a close is counted and s forgotten. */
static enum ff_status
run_send(struct ff_run *run, struct ff_slot *s, struct ff_frame *f)
{
	enum ff_status st;

	s->seq++;
	st = ff_send(s->fd, f);
	run_keep(run, s, f);
	if (st != FF_OK)
		run_lost(run, s, st);
	return st;
}

/* Read what every connection has; count and forget the closed ones. */
static void
run_drain(struct ff_run *run, int wait_ms)
{
	int fds[FF_CONNS_MAX];
	enum ff_status st;
	size_t i;

	for (i = 0; i < run->nslots; i++)
		fds[i] = run->slots[i].fd;
	if (ff_wait_readable(fds, run->nslots, wait_ms) <= 0)
		return;
	for (i = 0; i < run->nslots; i++)
		if (run->slots[i].fd >= 0 &&
		    (st = ff_drain(run->slots[i].fd)) != FF_OK)
			run_lost(run, &run->slots[i], st);
}

/*
 * Open slot i, and send a worker's HELLO first with -H or, without it,
 * for about half the connections; whether one does depends only on the
 * seed and the connection's number.
 */
static enum ff_status
run_open(struct ff_run *run, size_t i)
{
	struct ff_slot *s = &run->slots[i];
	struct ff_rng pick = { run->seed * 31 + run->conns + 1 };
	struct ff_hello h = { (uint32_t)i, (uint32_t)run->nslots, run->sgd };
	struct ff_frame f;
	enum ff_status st;

	if ((st = ff_connect(&run->t, &s->fd)) != FF_OK) {
		run->open_fails++;
		return st;
	}
	run->open_fails = 0;
	s->id = ++run->conns;
	s->seq = 0;
	if (run->replay || (!run->hello_all && ff_chance(&pick, 50)))
		return FF_OK;
	ff_gen_hello(&h, &f);
	run->hellos++;
	return run_send(run, s, &f);
}

/* Write the kept frames, oldest first, to path or standard error. */
static void
run_report(struct ff_run *run, const char *path)
{
	size_t i, b, first = run->nkept > FF_KEEP ? run->nkept - FF_KEEP : 0;
	const struct ff_sent *k;
	FILE *f = stderr;

	if (path != NULL && (f = fopen(path, "w")) == NULL) {
		warn("cannot create '%s'", path);
		f = stderr;
	}
	for (i = first; i < run->nkept; i++) {
		k = &run->kept[i % FF_KEEP];
		fprintf(f, "conn=%llu seq=%u ", (unsigned long long)k->conn,
		    k->seq);
		for (b = 0; b < k->f.len; b++)
			fprintf(f, "%02x", k->f.buf[b]);
		fputc('\n', f);
	}
	if (f != stderr && fclose(f) != 0)
		warn("cannot write '%s'", path);
}

/*
 * After the last frame: let the daemon read it and answer, then check
 * something still listens.
 */
static void
run_settle(struct ff_run *run)
{
	double end = ps_clock_now() + FF_SETTLE_MS / 1000.0;
	int fd;

	while (!run->gone && ps_clock_now() < end)
		run_drain(run, 50);
	if (!run->gone && ff_connect(&run->t, &fd) == FF_REFUSED)
		run->gone = 1;
	else if (!run->gone)
		close(fd);
}

/* Get slot i ready for a frame; 0, or -1 when the run is to stop. */
static int
run_ready(struct ff_run *run, size_t i)
{
	enum ff_status st;
	int tries;

	for (tries = 0; run->slots[i].fd < 0; tries++) {
		st = run_open(run, i);
		if (st == FF_REFUSED || run->open_fails >= FF_OPEN_TRIES ||
		    tries >= FF_OPEN_TRIES) {
			run->gone = 1;
			return -1;
		}
	}
	return 0;
}

/* Fuzz until the time or the frames run out or the daemon is gone. */
static void
run_fuzz(struct ff_run *run, double secs, uint64_t nframes)
{
	double end = ps_clock_now() + secs;
	struct ff_frame f;
	size_t i;

	while (run->frames < nframes && ps_clock_now() < end) {
		i = run->frames % run->nslots;
		if (run_ready(run, i) != 0)
			return;
		ff_gen_frame(&run->gen, &f);
		run->frames++;
		run_send(run, &run->slots[i], &f);
		run_drain(run, 0);
	}
	run_settle(run);
}

/* Decode the hex at the end of line into f; -1 if it is not hex. */
static int
replay_parse(const char *line, struct ff_frame *f)
{
	const char *hex = strrchr(line, ' ');
	size_t i, n;
	unsigned b;

	hex = hex != NULL ? hex + 1 : line;
	n = strspn(hex, "0123456789abcdefABCDEF");
	if (n == 0 || n % 2 != 0 || hex[n] != '\0')
		return -1;
	f->len = n / 2;
	if ((f->buf = malloc(f->len)) == NULL)
		err(1, "malloc");
	for (i = 0; i < f->len; i++) {
		sscanf(hex + 2 * i, "%2x", &b);
		f->buf[i] = (uint8_t)b;
	}
	return 0;
}

/* The slot that carries the frames of conn= tag, opened if need be. */
static struct ff_slot *
replay_slot(struct ff_run *run, uint64_t tag, uint64_t *tags)
{
	size_t i;

	for (i = 0; i < run->nslots && tags[i] != tag; i++)
		;
	if (i == run->nslots) {
		i = run->nslots < FF_CONNS_MAX ? run->nslots++ :
		    (size_t)(tag % FF_CONNS_MAX);
		if (run->slots[i].fd >= 0)
			close(run->slots[i].fd);
		run->slots[i].fd = -1;
		tags[i] = tag;
	}
	if (run->slots[i].fd < 0 && run_ready(run, i) != 0)
		return NULL;
	return &run->slots[i];
}

/* Send the frames of path as they were sent, a connection per conn=. */
static void
run_replay(struct ff_run *run, const char *path)
{
	uint64_t tags[FF_CONNS_MAX], tag;
	struct ff_slot *s;
	struct ff_frame f;
	FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;

	if (in == NULL)
		err(EX_NOINPUT, "cannot open '%s'", path);
	run->nslots = 0;
	while (getline(&line, &cap, in) > 0) {
		line[strcspn(line, "\r\n")] = '\0';
		if (replay_parse(line, &f) != 0)
			continue;
		tag = strncmp(line, "conn=", 5) == 0 ?
		    strtoull(line + 5, NULL, 10) : 0;
		if ((s = replay_slot(run, tag, tags)) == NULL) {
			free(f.buf);
			break;
		}
		run->frames++;
		run_send(run, s, &f);
		run_drain(run, 0);
	}
	free(line);
	if (in != stdin)
		fclose(in);
	run_settle(run);
}

/* A number option in lo .. hi, or exit 64. */
static unsigned long long
ff_number(const char *s, unsigned long long lo, unsigned long long hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 || v < lo ||
	    v > hi) {
		fprintf(stderr, "ps-framefuzz: bad number '%s' (expected %llu "
		    "to %llu)\n", s, lo, hi);
		usage(stderr, EX_USAGE);
	}
	return v;
}

/* Resolve HOST:PORT and load the secret into run; exit 64 or 66. */
static void
ff_target(struct ff_run *run, const char *hostport, const char *secret_path,
    struct ps_secret *secret)
{
	char why[512];
	uint16_t port;

	run->t.name = hostport;
	if (ps_hostport_parse(hostport, &run->t.ss, &run->t.sslen, why,
	    sizeof why) != 0) {
		fprintf(stderr, "ps-framefuzz: %s\n", why);
		usage(stderr, EX_USAGE);
	}
	if (secret_path != NULL) {
		if (ps_secret_load(secret_path, secret, why, sizeof why) != 0)
			errx(EX_NOINPUT, "%s", why);
		run->t.secret = secret;
	}
	port = ntohs(((struct sockaddr_in *)&run->t.ss)->sin_port);
	ff_gen_init(&run->gen, run->seed, port);
	run->sgd = (int)(ff_rand(&(struct ff_rng){ run->seed ^ 0x5a5a }) & 1);
}

/*
 * Check the daemon answers before anything is sent: open the first
 * connection of a run, or connect and close for a replay.  0 or -1.
 */
static int
ff_start(struct ff_run *run)
{
	int fd;

	if (!run->replay)
		return run_open(run, 0) == FF_OK || run->slots[0].fd >= 0 ? 0 :
		    -1;
	if (ff_connect(&run->t, &fd) != FF_OK)
		return -1;
	close(fd);
	return 0;
}

/* The summary line; the exit status. */
static int
ff_summary(struct ff_run *run, double start, const char *out)
{
	if (run->gone) {
		fprintf(stderr, "ps-framefuzz: daemon gone after %llu frames\n",
		    (unsigned long long)run->frames);
		run_report(run, out);
	}
	fprintf(stderr, "ps-framefuzz: %llu frames (%llu hellos), %llu "
	    "connections, %llu closes by the daemon, %llu stalls, %.1f "
	    "seconds\n", (unsigned long long)run->frames,
	    (unsigned long long)run->hellos, (unsigned long long)run->conns,
	    (unsigned long long)run->closes, (unsigned long long)run->stalls,
	    ps_clock_now() - start);
	return run->gone ? 1 : 0;
}

int
main(int argc, char *argv[])
{
	static struct ff_run run;
	struct ps_secret secret;
	const char *secret_path = NULL, *out = NULL, *replay = NULL;
	unsigned long long nframes = UINT64_MAX;
	double secs = 10, start = ps_clock_now();
	size_t i;
	int ch;

	if (argc == 2 && strcmp(argv[1], "--help") == 0)
		usage(stdout, 0);
	run.seed = 1;
	run.nslots = 4;
	while ((ch = getopt(argc, argv, "Ha:c:hn:o:r:s:t:")) != -1) {
		switch (ch) {
		case 'H': run.hello_all = 1; break;
		case 'a': secret_path = optarg; break;
		case 'c': run.nslots = ff_number(optarg, 1, FF_CONNS_MAX); break;
		case 'h': usage(stdout, 0); break;
		case 'n': nframes = ff_number(optarg, 1, UINT64_MAX); break;
		case 'o': out = optarg; break;
		case 'r': replay = optarg; break;
		case 's': run.seed = ff_number(optarg, 0, UINT64_MAX); break;
		case 't': secs = (double)ff_number(optarg, 1, 86400); break;
		default: usage(stderr, EX_USAGE);
		}
	}
	if (argc - optind != 1)
		usage(stderr, EX_USAGE);
	ff_target(&run, argv[optind], secret_path, &secret);
	run.replay = replay != NULL;
	for (i = 0; i < FF_CONNS_MAX; i++)
		run.slots[i].fd = -1;
	if (ff_start(&run) != 0) {
		fprintf(stderr, "ps-framefuzz: cannot connect to '%s'\n",
		    argv[optind]);
		return EX_UNAVAILABLE;
	}
	if (replay != NULL)
		run_replay(&run, replay);
	else
		run_fuzz(&run, secs, nframes);
	return ff_summary(&run, start, out);
}
