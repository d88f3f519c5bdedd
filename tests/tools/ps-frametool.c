/*
 * ps-frametool.c: send one good or deliberately malformed frame to a pskit
 * server, for the server's Bats tests.
 *
 *   ps-frametool [-a secret-file] [-n frames] [-s bytes] [-w secs] HOST:PORT KIND
 *
 * With -a it first runs the connector's side of the handshake (auth.h)
 * with the secret in the file, exiting 77 if that fails; -w sets how long
 * it waits for the answer (default 2 seconds).  With "-" for HOST:PORT it
 * writes the frames to standard output instead and exits 0 (the wire
 * fuzzer's seed corpus, tests/fuzz/corpus/wire, is made so).
 *
 * KIND is one of good-hello, bad-magic, bad-version, bad-header-crc,
 * bad-payload-crc, oversize, truncated, unknown-type, bad-keycache (3 keys
 * to cache, with NOKEYS), garbage, script, hex, stats (the text "stats"
 * and "quit" lines), silent (nothing).  Each bad
 * kind starts from a valid HELLO frame and breaks one thing, recomputing
 * the header checksum where needed so that only that one thing is wrong.
 * "oversize" sends just a header announcing a payload over the limit (or
 * of -s bytes);
 * "truncated" sends half a frame and then shuts down its sending side;
 * "garbage" sends 4 KiB of pseudo-random bytes.  "script" sends the frames
 * described on standard input, one a line, in order:
 *
 *   TYPE[,nokeys][,current][,keysig][,keycache][,fp16][,lz4] [ts=N] [ch=N]
 *        [rv=N] [aux=X,...] [keys=K,...] [vals=V,...] [sig=keys] [size=N]
 *
 * "hex" sends the bytes written in hexadecimal on standard input, as they
 * are (whitespace and line ends between them are ignored): the frames a
 * fuzzer found, say.  "script" lines are
 * with TYPE a message type as ps_msg_type_name() names it (HELLO, PUSH,
 * PULL, BYE, SAVE, REPLICATE, ...); ,lz4 compresses the payload when that
 * makes it smaller, the other words set the flags of that name; the width is
 * the number of values over the number of keys (keys=- and vals=- name none, for a NOKEYS
 * frame that still counts nkeys: keys=-3 says 3; keysig sends a key
 * signature the server has never seen in place of the keys; rv= is the
 * ring version the frame is stamped with, 0 by default; sig=keys makes
 * that signature the one of keys=, as if they had been sent with
 * keycache before; size= pads the payload with blob bytes 'x' to exactly
 * N bytes).
 *
 * It then reads whatever the server answers until end of file, for at
 * most 2 seconds (-w), or (-n) until that many whole frames came, and
 * prints it on stdout: one line per frame ("HELLO_OK
 * sender=0 nkeys=0 naux=0", then "vals=V,..." when it has values and the
 * blob text if any), or the raw bytes of a text answer.
 *
 * Exit status: 0 if the peer closed the connection or the -n frames came,
 * 1 if it stayed open for the 2 seconds without them, 64 on a bad command line, 69 if it cannot connect,
 * 70 on an internal error, 77 if the handshake failed.
 */
#include "config.h"

#include <sys/socket.h>

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "cluster/hello.h"
#include "util/clock.h"
#include "util/crc32c.h"
#include "wire/auth.h"
#include "wire/auth_sock.h"
#include "wire/conn.h"
#include "wire/keycache.h"
#include "wire/wire.h"

#define FT_WAIT_MS	2000
#define FT_GARBAGE	4096
#define FT_UNKNOWN_KEYSIG 0x5eedfacecafebeefULL
#define FT_ANSWER_MAX	(1u << 20)
#define FT_SCRIPT_MAX	64	/* keys, values or scalars in one script frame */

/* A frame being built: bytes and length; how much of it to send. */
struct ft_frame {
	uint8_t		*buf;
	size_t		 len;
	size_t		 send_len;
	int		 shut_wr;
};

/* Print the usage line to f and exit with status. */
static void
usage(FILE *f, int status)
{
	fprintf(f, "usage: ps-frametool [-a secret-file] [-n frames] [-s bytes] [-w secs] "
	    "host:port|- kind\n"
	    "kinds: good-hello bad-magic bad-version bad-header-crc "
	    "bad-payload-crc\n       oversize truncated unknown-type "
	    "bad-keycache garbage script hex stats silent\n");
	exit(status);
}

/* Encode the valid HELLO every kind starts from into fr. */
static void
ft_hello(struct ft_frame *fr)
{
	struct evbuffer *eb = evbuffer_new();
	struct ps_hello h;
	struct ps_msg m;
	char err[200];
	int n;

	memset(&h, 0, sizeof h);
	h.nworkers = 1;		/* worker 0 of 1, server 0 of 1, ring 0 */
	h.nservers = 1;
	h.lambda = 1.0;
	memset(&m, 0, sizeof m);
	m.type = PS_MSG_HELLO;
	m.flags = PS_MSG_F_NOKEYS;
	ps_hello_encode(&h, &m);
	if (eb == NULL || (n = ps_msg_encode(&m, eb, 0, NULL, err, sizeof err)) < 0) {
		fprintf(stderr, "ps-frametool: cannot encode hello\n");
		exit(EX_SOFTWARE);
	}
	fr->len = fr->send_len = (size_t)n;
	if ((fr->buf = malloc(fr->len)) == NULL)
		exit(EX_OSERR);
	evbuffer_remove(eb, fr->buf, fr->len);
	evbuffer_free(eb);
}

/* Recompute the header checksum after a change to the header. */
static void
ft_reseal(struct ft_frame *fr)
{
	uint32_t crc = ps_crc32c(0, fr->buf, 48);

	memcpy(fr->buf + 48, &crc, 4);
}

/* Replace fr by FT_GARBAGE deterministic pseudo-random bytes. */
static void
ft_garbage(struct ft_frame *fr)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t i;

	free(fr->buf);
	if ((fr->buf = malloc(FT_GARBAGE)) == NULL)
		exit(EX_OSERR);
	for (i = 0; i < FT_GARBAGE; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		fr->buf[i] = (uint8_t)(x >> 32);
	}
	fr->len = fr->send_len = FT_GARBAGE;
}

/* Parse "a,b,c" into at most max doubles; their count. */
static size_t
ft_list(const char *s, double *out, size_t max)
{
	size_t n = 0;
	char *end;

	if (strcmp(s, "-") == 0)
		return 0;
	while (*s != '\0' && n < max) {
		out[n++] = strtod(s, &end);
		if (end == s || (*end != ',' && *end != '\0')) {
			fprintf(stderr, "ps-frametool: bad list '%s'\n", s);
			exit(EX_USAGE);
		}
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/*
 * The message type named by the first word of a script line, its flags,
 * and in *lz4 whether it asks for compression.
 */
static uint8_t
ft_type(const char *word, uint8_t *flags, int *lz4)
{
	size_t len = strcspn(word, ",");
	const char *name;
	int t;

	*flags = (strstr(word, ",nokeys") ? PS_MSG_F_NOKEYS : 0) |
	    (strstr(word, ",current") ? PS_MSG_F_CURRENT : 0) |
	    (strstr(word, ",keysig") ? PS_MSG_F_KEYSIG : 0) |
	    (strstr(word, ",keycache") ? PS_MSG_F_KEYCACHE : 0) |
	    (strstr(word, ",fp16") ? PS_MSG_F_FP16 : 0);
	*lz4 = strstr(word, ",lz4") != NULL;
	for (t = 1; t <= PS_MSG_TYPE_MAX; t++) {
		name = ps_msg_type_name(t);
		if (strlen(name) == len && strncmp(word, name, len) == 0)
			return (uint8_t)t;
	}
	fprintf(stderr, "ps-frametool: unknown message type '%s'\n", word);
	exit(EX_USAGE);
}

/* Encode m into eb, with LZ4 if lz4 and it helps, or exit 64. */
static void
ft_encode(const struct ps_msg *m, int lz4, struct evbuffer *eb)
{
	char err[200];

	if (ps_msg_encode(m, eb, lz4, NULL, err, sizeof err) < 0) {
		fprintf(stderr, "ps-frametool: cannot encode: %s\n", err);
		exit(EX_USAGE);
	}
}

/* Encode m into eb, its payload padded with blob bytes to size bytes. */
static void
ft_encode_sized(struct ps_msg *m, size_t size, int lz4, struct evbuffer *eb)
{
	struct evbuffer *probe = evbuffer_new();
	size_t raw;

	if (probe == NULL)
		exit(EX_OSERR);
	ft_encode(m, 0, probe);
	raw = evbuffer_get_length(probe) - PS_FRAME_HDR_LEN;
	evbuffer_free(probe);
	if (size < raw) {
		fprintf(stderr, "ps-frametool: size=%zu is below the %zu bytes "
		    "of the payload\n", size, raw);
		exit(EX_USAGE);
	}
	m->bloblen = size - raw;
	if ((m->blob = malloc(m->bloblen + 1)) == NULL)
		exit(EX_OSERR);
	memset(m->blob, 'x', m->bloblen);
	ft_encode(m, lz4, eb);
	free(m->blob);
}

/* Encode one script line's frame into eb. */
static void
ft_script_line(char *line, struct evbuffer *eb)
{
	double keys[FT_SCRIPT_MAX], vals[FT_SCRIPT_MAX];
	uint64_t k64[FT_SCRIPT_MAX];
	float v32[FT_SCRIPT_MAX];
	size_t nk = 0, nv = 0, size = 0, i;
	struct ps_msg m;
	char *word;
	int lz4, own_sig = 0;

	memset(&m, 0, sizeof m);
	m.type = ft_type(strtok(line, " \t\n"), &m.flags, &lz4);
	m.keysig = FT_UNKNOWN_KEYSIG;
	while ((word = strtok(NULL, " \t\n")) != NULL) {
		if (strncmp(word, "ts=", 3) == 0)
			m.timestamp = strtoull(word + 3, NULL, 10);
		else if (strncmp(word, "ch=", 3) == 0)
			m.channel = (uint32_t)strtoul(word + 3, NULL, 10);
		else if (strncmp(word, "rv=", 3) == 0)
			m.ring_version = (uint32_t)strtoul(word + 3, NULL, 10);
		else if (strncmp(word, "aux=", 4) == 0)
			m.naux = (uint16_t)ft_list(word + 4, m.aux, PS_MSG_AUX_MAX);
		else if (strncmp(word, "keys=-", 6) == 0)
			m.nkeys = (uint32_t)strtoul(word + 6, NULL, 10);
		else if (strncmp(word, "keys=", 5) == 0)
			nk = ft_list(word + 5, keys, FT_SCRIPT_MAX);
		else if (strncmp(word, "vals=", 5) == 0)
			nv = ft_list(word + 5, vals, FT_SCRIPT_MAX);
		else if (strncmp(word, "size=", 5) == 0)
			size = strtoul(word + 5, NULL, 10);
		else if (strcmp(word, "sig=keys") == 0)
			own_sig = 1;
	}
	for (i = 0; i < nk; i++)
		k64[i] = (uint64_t)keys[i];
	for (i = 0; i < nv; i++)
		v32[i] = (float)vals[i];
	if (nk > 0) {
		m.nkeys = (uint32_t)nk;
		m.keys = k64;
	}
	if (own_sig)
		m.keysig = ps_keysig(k64, m.nkeys);
	m.width = m.nkeys > 0 ? (uint8_t)(nv / m.nkeys) : 0;
	m.vals = nv > 0 ? v32 : NULL;
	if (size > 0)
		ft_encode_sized(&m, size, lz4, eb);
	else
		ft_encode(&m, lz4, eb);
}

/* The frames of the script on stdin, one after the other, into fr. */
static void
ft_script(struct ft_frame *fr)
{
	struct evbuffer *eb = evbuffer_new();
	char line[4096];

	if (eb == NULL)
		exit(EX_OSERR);
	while (fgets(line, sizeof line, stdin) != NULL)
		if (line[strspn(line, " \t\n")] != '\0')
			ft_script_line(line, eb);
	free(fr->buf);
	fr->len = fr->send_len = evbuffer_get_length(eb);
	if ((fr->buf = malloc(fr->len + 1)) == NULL)
		exit(EX_OSERR);
	evbuffer_remove(eb, fr->buf, fr->len);
	evbuffer_free(eb);
}

/* Read the hex digits on stdin into fr's bytes (whitespace ignored). */
static void
ft_hex(struct ft_frame *fr)
{
	size_t cap = 4096, n = 0;
	unsigned byte;
	int c;

	free(fr->buf);
	if ((fr->buf = malloc(cap)) == NULL)
		exit(EX_OSERR);
	while (scanf(" %2x", &byte) == 1) {
		if (n == cap && (fr->buf = realloc(fr->buf, cap *= 2)) == NULL)
			exit(EX_OSERR);
		fr->buf[n++] = (uint8_t)byte;
	}
	if ((c = getchar()) != EOF) {
		fprintf(stderr, "ps-frametool: not a hex digit: '%c'\n", c);
		exit(EX_USAGE);
	}
	fr->len = fr->send_len = n;
}

/*
 * Build the frame of the given kind, an oversize one announcing a payload
 * of over bytes; -1 for an unknown kind.
 */
static int
ft_build(const char *kind, uint32_t over, struct ft_frame *fr)
{
	uint32_t v;

	ft_hello(fr);
	if (strcmp(kind, "good-hello") == 0)
		return 0;
	if (strcmp(kind, "bad-magic") == 0) {
		v = 0xdeadbeef;
		memcpy(fr->buf, &v, 4);
		ft_reseal(fr);
	} else if (strcmp(kind, "bad-version") == 0) {
		fr->buf[4] = 7;
		ft_reseal(fr);
	} else if (strcmp(kind, "bad-header-crc") == 0) {
		fr->buf[48] ^= 0x01;
	} else if (strcmp(kind, "bad-payload-crc") == 0) {
		fr->buf[PS_FRAME_HDR_LEN] ^= 0x01;
	} else if (strcmp(kind, "oversize") == 0) {
		memcpy(fr->buf + 36, &over, 4);
		memcpy(fr->buf + 40, &over, 4);
		ft_reseal(fr);
		fr->send_len = PS_FRAME_HDR_LEN;
	} else if (strcmp(kind, "truncated") == 0) {
		fr->send_len = PS_FRAME_HDR_LEN + (fr->len - PS_FRAME_HDR_LEN) / 2;
		fr->shut_wr = 1;
	} else if (strcmp(kind, "unknown-type") == 0) {
		fr->buf[5] = 99;
		ft_reseal(fr);
	} else if (strcmp(kind, "bad-keycache") == 0) {
		v = 3;
		fr->buf[6] |= PS_MSG_F_KEYCACHE;
		memcpy(fr->buf + 28, &v, 4);
		ft_reseal(fr);
	} else if (strcmp(kind, "garbage") == 0) {
		ft_garbage(fr);
	} else if (strcmp(kind, "script") == 0) {
		ft_script(fr);
	} else if (strcmp(kind, "hex") == 0) {
		ft_hex(fr);
	} else if (strcmp(kind, "stats") == 0) {
		strcpy((char *)fr->buf, "stats\r\nquit\r\n");
		fr->len = fr->send_len = strlen((char *)fr->buf);
	} else if (strcmp(kind, "silent") == 0) {
		fr->send_len = 0;
	} else
		return -1;
	return 0;
}

/* Connect to hostport with a blocking socket; exit 69 on failure. */
static int
ft_connect(const char *hostport)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[300];
	int fd;

	if (ps_hostport_parse(hostport, &ss, &len, err, sizeof err) != 0) {
		fprintf(stderr, "ps-frametool: %s\n", err);
		exit(EX_USAGE);
	}
	if ((fd = socket(ss.ss_family, SOCK_STREAM, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&ss, len) != 0) {
		fprintf(stderr, "ps-frametool: cannot connect to '%s': %s\n",
		    hostport, strerror(errno));
		exit(EX_UNAVAILABLE);
	}
	return fd;
}

/* Send the chosen bytes; a peer that already closed is not an error. */
static void
ft_send(int fd, const struct ft_frame *fr)
{
	size_t off = 0;
	ssize_t n;

	while (off < fr->send_len) {
		n = write(fd, fr->buf + off, fr->send_len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		off += (size_t)n;
	}
	if (fr->shut_wr)
		shutdown(fd, SHUT_WR);
}

/* Write the frames to stdout instead of sending them; the exit status. */
static int
ft_write(struct ft_frame *fr)
{
	int rc = 0;

	if (fwrite(fr->buf, 1, fr->send_len, stdout) != fr->send_len ||
	    fflush(stdout) != 0) {
		fprintf(stderr, "ps-frametool: cannot write frames: %s\n",
		    strerror(errno));
		rc = EX_IOERR;
	}
	free(fr->buf);
	return rc;
}

/* The whole frames at the start of eb. */
static long
ft_frames(struct evbuffer *eb)
{
	uint8_t *p = evbuffer_pullup(eb, -1);
	size_t len = evbuffer_get_length(eb), flen;
	char err[200];
	long n = 0;

	while (len >= PS_FRAME_HDR_LEN &&
	    ps_frame_peek(p, PS_FRAME_MAX_PAYLOAD, &flen, err, sizeof err) == 0 &&
	    flen <= len) {
		p += flen;
		len -= flen;
		n++;
	}
	return n;
}

/*
 * Read into eb until EOF (return 1), until it holds want whole frames
 * (want > 0; return 2) or until wait_ms passed (return 0).
 */
static int
ft_read(int fd, struct evbuffer *eb, long long wait_ms, long want)
{
	double end = ps_clock_now() + (double)wait_ms / 1000;
	long long left;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint8_t buf[65536];
	ssize_t n;

	while ((left = (long long)((end - ps_clock_now()) * 1000)) > 0) {
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;	/* EOF or reset: the peer closed */
		if (evbuffer_get_length(eb) < FT_ANSWER_MAX)
			evbuffer_add(eb, buf, (size_t)n);
		if (want > 0 && ft_frames(eb) >= want)
			return 2;
	}
	return 0;
}

/* The connector's side of the handshake; exit 77 if it fails. */
static void
ft_auth(int fd, const char *path, long long wait_ms)
{
	struct ps_secret s;
	char err[512];

	if (ps_secret_load(path, &s, err, sizeof err) != 0) {
		fprintf(stderr, "ps-frametool: %s\n", err);
		exit(EX_NOINPUT);
	}
	if (ps_auth_sock_connect(fd, &s, (int)((wait_ms + 999) / 1000), err,
	    sizeof err) != 0) {
		fprintf(stderr, "ps-frametool: %s\n", err);
		exit(EX_NOPERM);
	}
	ps_secret_release(&s);
}

/* Print one decoded frame as a line. */
static void
ft_print_msg(const struct ps_msg *m)
{
	size_t i;

	printf("%s sender=%u nkeys=%u naux=%u", ps_msg_type_name(m->type),
	    m->sender, m->nkeys, m->naux);
	for (i = 0; m->vals != NULL && i < (size_t)m->nkeys * m->width; i++)
		printf("%s%.9g", i == 0 ? " vals=" : ",", (double)m->vals[i]);
	if (m->bloblen > 0)
		printf(" %.*s", (int)m->bloblen, m->blob);
	printf("\n");
}

/* Print the answer: frames one per line, anything else as raw bytes. */
static void
ft_print(struct evbuffer *eb)
{
	uint8_t *p = evbuffer_pullup(eb, -1);
	size_t len = evbuffer_get_length(eb), flen;
	struct ps_msg m;
	char err[200];

	while (len >= PS_FRAME_HDR_LEN &&
	    ps_frame_peek(p, PS_FRAME_MAX_PAYLOAD, &flen, err, sizeof err) == 0 &&
	    flen <= len) {
		if (ps_msg_decode(p, flen, &m, err, sizeof err) == 0) {
			ft_print_msg(&m);
			ps_msg_release(&m);
		} else
			printf("undecodable frame: %s\n", err);
		p += flen;
		len -= flen;
	}
	if (len > 0)
		fwrite(p, 1, len, stdout);
}

int
main(int argc, char *argv[])
{
	struct ft_frame fr;
	struct evbuffer *eb;
	const char *secret = NULL;
	long long wait_ms = FT_WAIT_MS;
	long want = 0;
	uint32_t over = PS_FRAME_MAX_PAYLOAD + 1;
	int fd, closed, ch;

	if (argc == 2 && strcmp(argv[1], "--help") == 0)
		usage(stdout, 0);
	while ((ch = getopt(argc, argv, "a:hn:s:w:")) != -1) {
		switch (ch) {
		case 'a': secret = optarg; break;
		case 'h': usage(stdout, 0); break;
		case 'n': want = atol(optarg); break;
		case 's': over = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'w': wait_ms = (long long)(atof(optarg) * 1000); break;
		default: usage(stderr, EX_USAGE);
		}
	}
	if (argc - optind != 2)
		usage(stderr, EX_USAGE);
	memset(&fr, 0, sizeof fr);
	if (ft_build(argv[optind + 1], over, &fr) != 0) {
		fprintf(stderr, "ps-frametool: unknown kind '%s'\n",
		    argv[optind + 1]);
		usage(stderr, EX_USAGE);
	}
	if (strcmp(argv[optind], "-") == 0)
		return ft_write(&fr);
	signal(SIGPIPE, SIG_IGN);
	fd = ft_connect(argv[optind]);
	if (secret != NULL)
		ft_auth(fd, secret, wait_ms);
	ft_send(fd, &fr);
	if ((eb = evbuffer_new()) == NULL)
		return EX_OSERR;
	closed = ft_read(fd, eb, wait_ms, want);
	ft_print(eb);
	fprintf(stderr, "ps-frametool: %s\n", closed == 2 ? "the frames came" :
	    closed ? "the peer closed the connection" :
	    "the connection stayed open");
	evbuffer_free(eb);
	free(fr.buf);
	close(fd);
	if (fflush(stdout) != 0)
		return EX_IOERR;
	return closed ? 0 : 1;
}
