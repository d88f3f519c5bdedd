/*
 * client.c: the commands that ask a running coordinator (-C host:port,
 * or the one named in a ps-train job directory) through its text protocol
 * (textcmd.c): the ring for show and lookup,
 * status (TSV or -j JSON lines), add, remove, and watch, which redraws the
 * status every interval.  One blocking connection per request, with
 * timeouts, which with -a first runs the handshake (auth_sock.h); a
 * coordinator that cannot be reached exits 69, a failed handshake 77.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "cluster/coord.h"
#include "ps-ring.h"
#include "util/xmalloc.h"
#include "wire/auth_sock.h"
#include "wire/conn.h"
#include "wire/wire.h"

#define CLIENT_TIMEOUT_S	5
#define CLIENT_ANSWER_MAX	(16 << 20)

/* Read the secret of -a for the coordinator of -C; exit 64 or 66. */
void
client_secret(struct coord_target *t, const char *path)
{
	char why[512];

	if (path == NULL)
		return;
	if (t->addr == NULL) {
		warnx("-a needs -C");
		usage(EX_USAGE);
	}
	if (ps_secret_load(path, &t->secret, why, sizeof why) != 0)
		errx(EX_NOINPUT, "%s", why);
	t->have_secret = 1;
}

/* Wipe the secret; forget an address read from a job directory. */
void
client_release(struct coord_target *t)
{
	ps_secret_release(&t->secret);
	t->have_secret = 0;
	free(t->addr_mem);
	t->addr_mem = NULL;
}

/*
 * The coordinator of a ps-train job directory: its address from the file
 * "coordinator" there and the secret of "secret" if there is one.  Exit
 * 64 if dir is not a directory, 66 without the address (no job runs
 * there), 65 if it is malformed.
 */
void
client_jobdir(struct coord_target *t, const char *dir)
{
	char *path = xasprintf("%s/coordinator", dir);
	char line[8 * (PS_RING_MAX_ADDR + 1) + 2], why[512];
	FILE *fp;

	if ((fp = fopen(path, "r")) == NULL && errno == ENOTDIR) {
		warnx("'%s' is not a job directory", dir);
		usage(EX_USAGE);
	}
	if (fp == NULL)
		errx(EX_NOINPUT, "%s: %s: no ps-train job runs in '%s'",
		    path, strerror(errno), dir);
	if (fgets(line, sizeof line, fp) == NULL)
		line[0] = '\0';
	fclose(fp);
	line[strcspn(line, "\r\n")] = '\0';
	if (ps_coord_list_check(line, why, sizeof why) != 0)
		errx(EX_DATAERR, "%s: %s", path, why);
	t->addr = t->addr_mem = xstrdup(line);
	free(path);
	path = xasprintf("%s/secret", dir);
	if (access(path, F_OK) == 0)
		client_secret(t, path);
	free(path);
}

/* Connect to addr with send and receive timeouts; -1 with errno. */
static int
client_dial(const char *addr)
{
	struct timeval tv = { CLIENT_TIMEOUT_S, 0 };
	struct sockaddr_storage ss;
	socklen_t len;
	char why[512];
	int fd, e;

	if (ps_hostport_parse(addr, &ss, &len, why, sizeof why) != 0)
		errx(EX_UNAVAILABLE, "%s", why);
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		err(EX_OSERR, "socket");
	/* On Linux SO_SNDTIMEO also bounds a blocking connect. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
		err(EX_OSERR, "setsockopt");
	if (connect(fd, (struct sockaddr *)&ss, len) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * Connect to the coordinator, or to the first of a list that takes the
 * connection (standbys refuse it), and with a secret prove it; exit 69 if
 * none can be reached, 77 if the handshake fails.  *addr: the one.
 */
static int
client_connect(const struct coord_target *t, char **addr)
{
	char **addrs, why[512];
	size_t i, n;
	int fd = -1;

	addrs = ps_coord_split(t->addr, &n);
	for (i = 0; i < n && fd < 0; i++)
		if ((fd = client_dial(addrs[i])) < 0 && n == 1)
			err(EX_UNAVAILABLE, "cannot connect to '%s'", t->addr);
	if (fd < 0)
		err(EX_UNAVAILABLE, "cannot connect to any of '%s'", t->addr);
	*addr = xstrdup(addrs[i - 1]);
	ps_coord_split_free(addrs, n);
	if (t->have_secret && ps_auth_sock_connect(fd, &t->secret,
	    CLIENT_TIMEOUT_S, why, sizeof why) != 0)
		errx(EX_NOPERM, "coordinator '%s': %s", *addr, why);
	return fd;
}

/*
 * Exit 77 if the answer is a frame: the coordinator's challenge, sent to
 * a client that has no secret to answer it with.
 */
static void
client_check_challenge(const char *buf, size_t len, const char *addr)
{
	uint32_t magic = PS_FRAME_MAGIC;

	if (len >= sizeof magic && memcmp(buf, &magic, sizeof magic) == 0)
		errx(EX_NOPERM, "coordinator '%s' asks for a secret and none "
		    "was given (-a secret-file)", addr);
}

/* Length of the answer in buf[0, len) when complete, else 0. */
static size_t
client_complete(const char *buf, size_t len)
{
	const char *line = buf, *nl;

	while ((nl = memchr(line, '\n', len - (size_t)(line - buf))) != NULL) {
		if (strncmp(line, "END\r\n", 5) == 0 ||
		    strncmp(line, "ERROR", 5) == 0 ||
		    strncmp(line, "CLIENT_ERROR ", 13) == 0 ||
		    strncmp(line, "SERVER_ERROR ", 13) == 0)
			return (size_t)(nl + 1 - buf);
		line = nl + 1;
	}
	return 0;
}

/* Read until the answer is complete; exit 69 on EOF or timeout. */
static char *
client_read(int fd, const char *addr, size_t *len)
{
	size_t cap = 4096, done;
	char *buf = xmalloc(cap + 1);
	ssize_t n;

	*len = 0;
	while ((done = client_complete(buf, *len)) == 0) {
		if (*len == cap && cap >= CLIENT_ANSWER_MAX)
			errx(EX_PROTOCOL, "coordinator '%s': answer too long",
			    addr);
		if (*len == cap)
			buf = xreallocarray(buf, (cap *= 2) + 1, 1);
		n = read(fd, buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err(EX_UNAVAILABLE, "coordinator '%s'", addr);
		*len += (size_t)n;
		client_check_challenge(buf, *len, addr);
		if (n == 0)
			errx(EX_UNAVAILABLE, "coordinator '%s' closed the "
			    "connection", addr);
	}
	*len = done;
	buf[done] = '\0';
	return buf;
}

/*
 * Strip the CRs and the final line; exit 1 for a refusal, 76 for an
 * unknown command.  What is left is the answer's lines.
 */
static void
client_body(char *buf, size_t *len, const char *addr)
{
	char *last, *in, *out;

	buf[*len - 2] = '\0';		/* the final CR LF */
	last = strrchr(buf, '\n');
	last = last != NULL ? last + 1 : buf;
	if (strncmp(last, "CLIENT_ERROR ", 13) == 0 ||
	    strncmp(last, "SERVER_ERROR ", 13) == 0)
		errx(1, "%s", strchr(last, ' ') + 1);
	if (strcmp(last, "END") != 0)
		errx(EX_PROTOCOL, "coordinator '%s' answered '%s'", addr,
		    last);
	*last = '\0';
	for (in = out = buf; *in != '\0'; in++)
		if (*in != '\r')
			*out++ = *in;
	*out = '\0';
	*len = (size_t)(out - buf);
}

/* Send one command and return the lines of its answer (caller frees). */
char *
client_request(const struct coord_target *t, const char *command,
    size_t *len)
{
	char *addr, *line = xasprintf("%s\r\n", command), *buf;
	int fd = client_connect(t, &addr);
	size_t n = strlen(line), off = 0;
	ssize_t w;

	while (off < n) {
		if ((w = write(fd, line + off, n - off)) < 0 && errno == EINTR)
			continue;
		if (w < 0)
			err(EX_UNAVAILABLE, "coordinator '%s'", addr);
		off += (size_t)w;
	}
	free(line);
	buf = client_read(fd, addr, len);
	close(fd);
	client_body(buf, len, addr);
	free(addr);
	return buf;
}

/* The coordinator's ring, or exit 65 if its text is not a valid ring. */
void
client_ring(const struct coord_target *t, struct ps_ring *r)
{
	char *text, *name, msg[1024];
	size_t len;

	text = client_request(t, "show", &len);
	name = xasprintf("coordinator '%s'", t->addr);
	if (ps_ring_parse(text, len, name, r, msg, sizeof msg) != 0)
		errx(EX_DATAERR, "%s", msg);
	free(name);
	free(text);
}
