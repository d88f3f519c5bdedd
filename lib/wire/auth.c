/*
 * auth.c: reading the shared secret, nonces and the handshake's MACs
 * (auth.h).
 */
#include "config.h"

#include <sys/random.h>
#include <sys/stat.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wire/auth.h"

#define AUTH_LABEL_CLIENT	"pskit-auth-1 client"
#define AUTH_LABEL_SERVER	"pskit-auth-1 server"

/* Refuse what is not a regular file or that group or others may access. */
static int
secret_check_mode(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "cannot read secret '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "secret '%s' is not a regular file",
		    path);
		return -1;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err, errlen, "secret '%s' is open to group or others "
		    "(mode %04o); chmod 600 it", path,
		    (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

/* Read at most cap bytes of fd into buf; their count, or -1 and errno. */
static ssize_t
secret_read(int fd, uint8_t *buf, size_t cap)
{
	size_t got = 0;
	ssize_t n;

	while (got < cap) {
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Strip one trailing LF or CRLF from buf, check the length, keep it in s. */
static int
secret_take(struct ps_secret *s, const uint8_t *buf, size_t n,
    const char *path, char *err, size_t errlen)
{
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	if (n > PS_SECRET_MAX) {
		snprintf(err, errlen, "secret in '%s' is longer than %d "
		    "bytes", path, PS_SECRET_MAX);
		return -1;
	}
	if (n < PS_SECRET_MIN) {
		snprintf(err, errlen, "secret in '%s' is %zu bytes; at least "
		    "%d are needed", path, n, PS_SECRET_MIN);
		return -1;
	}
	memcpy(s->bytes, buf, n);
	s->len = n;
	return 0;
}

/* Load and check a secret file; see auth.h. */
int
ps_secret_load(const char *path, struct ps_secret *s, char *err,
    size_t errlen)
{
	uint8_t buf[PS_SECRET_MAX + 3];
	ssize_t n;
	int fd, r = -1;

	memset(s, 0, sizeof *s);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot read secret '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	if (secret_check_mode(fd, path, err, errlen) != 0)
		goto out;
	if ((n = secret_read(fd, buf, sizeof buf)) < 0) {
		snprintf(err, errlen, "cannot read secret '%s': %s", path,
		    strerror(errno));
		goto out;
	}
	r = secret_take(s, buf, (size_t)n, path, err, errlen);
out:
	ps_wipe(buf, sizeof buf);
	close(fd);
	if (r != 0)
		ps_secret_release(s);
	return r;
}

int
ps_secret_make(const char *path, char *err, size_t errlen)
{
	uint8_t raw[PS_AUTH_NONCE_LEN];
	char hex[2 * PS_AUTH_NONCE_LEN + 1];
	size_t i;
	ssize_t n;
	int fd, r = -1;

	if (ps_auth_nonce(raw) != 0) {
		snprintf(err, errlen, "cannot make secret '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof raw; i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	hex[2 * sizeof raw] = '\n';
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0) {
		snprintf(err, errlen, "cannot make secret '%s': %s", path,
		    strerror(errno));
		goto out;
	}
	n = write(fd, hex, sizeof hex);
	if (n >= 0 && n != (ssize_t)sizeof hex)
		errno = ENOSPC;		/* a short write: the disk is full */
	r = n == (ssize_t)sizeof hex ? 0 : -1;
	if (close(fd) != 0)
		r = -1;
	if (r != 0) {
		snprintf(err, errlen, "cannot write secret '%s': %s", path,
		    strerror(errno));
		unlink(path);
	}
out:
	ps_wipe(raw, sizeof raw);
	ps_wipe(hex, sizeof hex);
	return r;
}

void
ps_secret_release(struct ps_secret *s)
{
	ps_wipe(s, sizeof *s);
}

/* Only 127.0.0.1 and ::1 are served without a secret; see auth.h. */
int
ps_auth_required(const struct sockaddr *sa)
{
	const struct sockaddr_in *s4 = (const void *)sa;
	const struct sockaddr_in6 *s6 = (const void *)sa;

	if (sa->sa_family == AF_INET)
		return s4->sin_addr.s_addr != htonl(INADDR_LOOPBACK);
	if (sa->sa_family == AF_INET6)
		return !IN6_ARE_ADDR_EQUAL(&s6->sin6_addr, &in6addr_loopback);
	return 1;
}

/* getrandom(2) never returns short for 32 bytes, but may be interrupted. */
int
ps_auth_nonce(uint8_t nonce[PS_AUTH_NONCE_LEN])
{
	ssize_t n;

	do
		n = getrandom(nonce, PS_AUTH_NONCE_LEN, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n != PS_AUTH_NONCE_LEN) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* label || first || second under the secret; see auth.h. */
void
ps_auth_mac(const struct ps_secret *s, enum ps_auth_role role,
    const uint8_t ns[PS_AUTH_NONCE_LEN], const uint8_t nc[PS_AUTH_NONCE_LEN],
    uint8_t mac[PS_AUTH_MAC_LEN])
{
	struct ps_hmac_sha256 h;
	const char *label = role == PS_AUTH_CONNECTOR ? AUTH_LABEL_CLIENT :
	    AUTH_LABEL_SERVER;

	ps_hmac_sha256_init(&h, s->bytes, s->len);
	ps_hmac_sha256_update(&h, label, strlen(label));
	if (role == PS_AUTH_CONNECTOR) {
		ps_hmac_sha256_update(&h, ns, PS_AUTH_NONCE_LEN);
		ps_hmac_sha256_update(&h, nc, PS_AUTH_NONCE_LEN);
	} else {
		ps_hmac_sha256_update(&h, nc, PS_AUTH_NONCE_LEN);
		ps_hmac_sha256_update(&h, ns, PS_AUTH_NONCE_LEN);
	}
	ps_hmac_sha256_final(&h, mac);
}

/* OR of the XORs: no early exit, so timing does not leak the first miss. */
int
ps_auth_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint8_t d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}
