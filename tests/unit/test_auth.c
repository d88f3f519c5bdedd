/*
 * test_auth.c: unit tests of the shared secret and the handshake's pieces:
 * which secret files are refused and why, the trailing newline, the MACs
 * of both roles against values computed independently (Python's hmac),
 * the constant-time compare, the nonces, and which listening addresses
 * need a secret.
 */
#include "config.h"

#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "wire/auth.h"
#include "wire/conn.h"

/* A private directory for the secret files of one test. */
struct dir {
	char	path[64];
	char	file[128];
};

static int
dir_setup(void **state)
{
	struct dir *d = calloc(1, sizeof *d);

	if (d == NULL)
		return -1;
	snprintf(d->path, sizeof d->path, "/tmp/test_auth.XXXXXX");
	if (mkdtemp(d->path) == NULL)
		return -1;
	snprintf(d->file, sizeof d->file, "%s/secret", d->path);
	*state = d;
	return 0;
}

static int
dir_teardown(void **state)
{
	struct dir *d = *state;

	unlink(d->file);
	rmdir(d->path);
	free(d);
	return 0;
}

/* Write len bytes to the test's secret file with the given mode. */
static void
write_secret(const struct dir *d, const char *bytes, size_t len, mode_t mode)
{
	FILE *f;

	unlink(d->file);
	f = fopen(d->file, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(d->file, mode), 0);
}

/* Load the file expecting a refusal whose message contains want. */
static void
expect_refused(const struct dir *d, const char *want)
{
	struct ps_secret s;
	char err[512];

	assert_int_equal(ps_secret_load(d->file, &s, err, sizeof err), -1);
	print_message("%s\n", err);
	assert_non_null(strstr(err, want));
	assert_non_null(strstr(err, d->file));
	assert_int_equal(s.len, 0);
}

static void
test_secret_ok(void **state)
{
	struct dir *d = *state;
	struct ps_secret s;
	char err[512];

	write_secret(d, "0123456789abcdef\n", 17, 0600);
	assert_int_equal(ps_secret_load(d->file, &s, err, sizeof err), 0);
	assert_int_equal(s.len, 16);
	assert_memory_equal(s.bytes, "0123456789abcdef", 16);
	write_secret(d, "0123456789abcdef\r\n", 18, 0400);
	assert_int_equal(ps_secret_load(d->file, &s, err, sizeof err), 0);
	assert_int_equal(s.len, 16);
	write_secret(d, "0123456789abcdef\n\n", 18, 0600);
	assert_int_equal(ps_secret_load(d->file, &s, err, sizeof err), 0);
	assert_int_equal(s.len, 17);	/* only one newline is stripped */
	ps_secret_release(&s);
	assert_int_equal(s.len, 0);
	assert_int_equal(s.bytes[0], 0);
}

static void
test_secret_mode(void **state)
{
	struct dir *d = *state;

	write_secret(d, "0123456789abcdef", 16, 0644);
	expect_refused(d, "mode 0644");
	write_secret(d, "0123456789abcdef", 16, 0640);
	expect_refused(d, "mode 0640");
	write_secret(d, "0123456789abcdef", 16, 0602);
	expect_refused(d, "mode 0602");
}

static void
test_secret_length(void **state)
{
	struct dir *d = *state;
	char big[PS_SECRET_MAX + 1], err[512];
	struct ps_secret s;

	write_secret(d, "0123456789abcde\n", 16, 0600);
	expect_refused(d, "15 bytes; at least 16");
	write_secret(d, "", 0, 0600);
	expect_refused(d, "0 bytes");
	memset(big, 'x', sizeof big);
	write_secret(d, big, sizeof big, 0600);
	expect_refused(d, "longer than 1024");
	write_secret(d, big, PS_SECRET_MAX, 0600);
	assert_int_equal(ps_secret_load(d->file, &s, err, sizeof err), 0);
	assert_int_equal(s.len, PS_SECRET_MAX);
	ps_secret_release(&s);
}

static void
test_secret_unreadable(void **state)
{
	struct dir *d = *state;
	struct ps_secret s;
	char err[512];

	expect_refused(d, "cannot read secret '");
	assert_int_equal(ps_secret_load(d->path, &s, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a regular file"));
}

/* Known answers: secret "0123456789abcdef", Ns 00..1f, Nc 20..3f. */
static void
test_auth_mac(void **state)
{
	static const uint8_t client[] = {
		0x53, 0xbc, 0x0e, 0x33, 0x21, 0x92, 0x5c, 0x6b, 0x16, 0xd2,
		0x25, 0x23, 0xc1, 0x47, 0x55, 0x7d, 0x52, 0xd0, 0x93, 0x21,
		0xd7, 0x50, 0x4f, 0xb3, 0x21, 0x56, 0x7a, 0x28, 0x0b, 0x3b,
		0x35, 0xa7 };
	static const uint8_t server[] = {
		0xbd, 0x62, 0x5c, 0x25, 0x45, 0x1d, 0x64, 0xad, 0x51, 0x4d,
		0x30, 0xba, 0x8f, 0x95, 0x5a, 0xdc, 0x2f, 0x6b, 0x14, 0xd5,
		0x5b, 0x40, 0x05, 0x02, 0x0b, 0xda, 0x7b, 0x17, 0xd7, 0x9d,
		0xf8, 0x42 };
	struct ps_secret s = { .len = 16 };
	uint8_t ns[PS_AUTH_NONCE_LEN], nc[PS_AUTH_NONCE_LEN];
	uint8_t mac[PS_AUTH_MAC_LEN];
	int i;

	memcpy(s.bytes, "0123456789abcdef", 16);
	for (i = 0; i < PS_AUTH_NONCE_LEN; i++) {
		ns[i] = (uint8_t)i;
		nc[i] = (uint8_t)(i + 32);
	}
	ps_auth_mac(&s, PS_AUTH_CONNECTOR, ns, nc, mac);
	assert_memory_equal(mac, client, sizeof mac);
	ps_auth_mac(&s, PS_AUTH_ACCEPTOR, ns, nc, mac);
	assert_memory_equal(mac, server, sizeof mac);
}

static void
test_auth_equal_nonce(void **state)
{
	uint8_t a[PS_AUTH_NONCE_LEN], b[PS_AUTH_NONCE_LEN];

	assert_int_equal(ps_auth_nonce(a), 0);
	assert_int_equal(ps_auth_nonce(b), 0);
	assert_false(ps_auth_equal(a, b, sizeof a));
	memcpy(b, a, sizeof a);
	assert_true(ps_auth_equal(a, b, sizeof a));
	b[31] ^= 0x80;
	assert_false(ps_auth_equal(a, b, sizeof a));
	assert_true(ps_auth_equal(a, b, 0));
}

/* Only 127.0.0.1 and ::1 may go without a secret. */
static void
test_auth_required(void **state)
{
	static const struct { const char *addr; int want; } cases[] = {
		{ "127.0.0.1:7000", 0 }, { "[::1]:0", 0 },
		{ "127.0.0.2:0", 1 }, { "0.0.0.0:0", 1 }, { "*:0", 1 },
		{ "[::]:0", 1 }, { "10.1.2.3:0", 1 },
	};
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		assert_int_equal(ps_hostport_parse(cases[i].addr, &ss, &len,
		    err, sizeof err), 0);
		print_message("%s\n", cases[i].addr);
		assert_int_equal(ps_auth_required((struct sockaddr *)&ss),
		    cases[i].want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_secret_ok, dir_setup,
		    dir_teardown),
		cmocka_unit_test_setup_teardown(test_secret_mode, dir_setup,
		    dir_teardown),
		cmocka_unit_test_setup_teardown(test_secret_length, dir_setup,
		    dir_teardown),
		cmocka_unit_test_setup_teardown(test_secret_unreadable,
		    dir_setup, dir_teardown),
		cmocka_unit_test(test_auth_mac),
		cmocka_unit_test(test_auth_equal_nonce),
		cmocka_unit_test(test_auth_required),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
