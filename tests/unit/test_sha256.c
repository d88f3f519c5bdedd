/*
 * test_sha256.c: unit tests of SHA-256 against the FIPS 180-4 example
 * messages (NIST's "", "abc", the 448-bit and 896-bit messages and a
 * million 'a'), fed whole and in uneven pieces, and of HMAC-SHA256
 * against the seven test cases of RFC 4231.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/sha256.h"

/* Lower-case hex of a digest, for readable failures. */
static void
hex(const uint8_t *d, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

/* The digest of msg hashed whole, then in pieces of 1, 7, 63, 64, 65... */
static void
check_sha256(const uint8_t *msg, size_t len, const char *want)
{
	static const size_t steps[] = { 1, 7, 63, 64, 65, 1000 };
	struct ps_sha256 ctx;
	uint8_t d[PS_SHA256_LEN];
	char got[2 * PS_SHA256_LEN + 1];
	size_t i, off, n;

	ps_sha256(msg, len, d);
	hex(d, sizeof d, got);
	assert_string_equal(got, want);
	for (i = 0; i < sizeof steps / sizeof *steps; i++) {
		ps_sha256_init(&ctx);
		for (off = 0; off < len; off += n) {
			n = len - off < steps[i] ? len - off : steps[i];
			ps_sha256_update(&ctx, msg + off, n);
		}
		ps_sha256_final(&ctx, d);
		hex(d, sizeof d, got);
		assert_string_equal(got, want);
	}
}

static void
test_sha256_short(void **state)
{
	check_sha256((const uint8_t *)"", 0, "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855");
	check_sha256((const uint8_t *)"abc", 3, "ba7816bf8f01cfea414140de5dae"
	    "2223b00361a396177a9cb410ff61f20015ad");
}

/* 448 bits: the padding needs a block of its own (56 bytes + 9 > 64). */
static void
test_sha256_448(void **state)
{
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomno"
	    "pnopq";

	check_sha256((const uint8_t *)m, strlen(m), "248d6a61d20638b8e5c026"
	    "930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void
test_sha256_896(void **state)
{
	const char *m = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghij"
	    "klmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

	check_sha256((const uint8_t *)m, strlen(m), "cf5b16a778af8380036ce5"
	    "9e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void
test_sha256_million(void **state)
{
	size_t n = 1000000;
	uint8_t *m = malloc(n);

	assert_non_null(m);
	memset(m, 'a', n);
	check_sha256(m, n, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a49720"
	    "0e046d39ccc7112cd0");
	free(m);
}

/* One RFC 4231 case: key and data as (byte, count) runs or as text. */
struct hmac_case {
	const char	*key, *data;	/* text, or NULL: the runs below */
	uint8_t		 kbyte;
	size_t		 klen;
	uint8_t		 dbyte;
	size_t		 dlen;
	size_t		 maclen;	/* bytes compared (case 5 truncates) */
	const char	*want;
};

static const struct hmac_case hmac_cases[] = {
	{ NULL, "Hi There", 0x0b, 20, 0, 0, 32,
	    "b0344c61d8db38535ca8afceaf0bf12b"
	    "881dc200c9833da726e9376c2e32cff7" },
	{ "Jefe", "what do ya want for nothing?", 0, 0, 0, 0, 32,
	    "5bdcc146bf60754e6a042426089575c7"
	    "5a003f089d2739839dec58b964ec3843" },
	{ NULL, NULL, 0xaa, 20, 0xdd, 50, 32,
	    "773ea91e36800e46854db8ebd09181a7"
	    "2959098b3ef8c122d9635514ced565fe" },
	{ NULL, NULL, 0, 25, 0xcd, 50, 32,	/* key 0x01 .. 0x19 */
	    "82558a389a443c0ea4cc819899f2083a"
	    "85f0faa3e578f8077a2e3ff46729665b" },
	{ NULL, "Test With Truncation", 0x0c, 20, 0, 0, 16,
	    "a3b6167473100ee06e0c796c2955552b" },
	{ NULL, "Test Using Larger Than Block-Size Key - Hash Key First",
	    0xaa, 131, 0, 0, 32,
	    "60e431591ee0b67f0d8a26aacbf5b77f"
	    "8e0bc6213728c5140546040f0ee37f54" },
	{ NULL, "This is a test using a larger than block-size key and a "
	    "larger than block-size data. The key needs to be hashed before "
	    "being used by the HMAC algorithm.", 0xaa, 131, 0, 0, 32,
	    "9b09ffa71b942fcb27635fbcd5b0e944"
	    "bfdc63644f0713938a7f51535c3a35e2" },
};

/* Fill buf from text, or with n copies of b (b 0: the bytes 1, 2, ...). */
static size_t
case_bytes(uint8_t *buf, const char *text, uint8_t b, size_t n)
{
	size_t i;

	if (text != NULL) {
		memcpy(buf, text, strlen(text));
		return strlen(text);
	}
	for (i = 0; i < n; i++)
		buf[i] = b != 0 ? b : (uint8_t)(i + 1);
	return n;
}

static void
test_hmac_rfc4231(void **state)
{
	uint8_t key[256], data[256], mac[PS_SHA256_LEN];
	char got[2 * PS_SHA256_LEN + 1];
	size_t i, klen, dlen;

	for (i = 0; i < sizeof hmac_cases / sizeof *hmac_cases; i++) {
		const struct hmac_case *c = &hmac_cases[i];

		klen = case_bytes(key, c->key, c->kbyte, c->klen);
		dlen = case_bytes(data, c->data, c->dbyte, c->dlen);
		ps_hmac_sha256(key, klen, data, dlen, mac);
		hex(mac, c->maclen, got);
		print_message("RFC 4231 case %zu\n", i + 1);
		assert_string_equal(got, c->want);
	}
}

static void
test_wipe(void **state)
{
	uint8_t b[19];
	size_t i;

	memset(b, 0x5a, sizeof b);
	ps_wipe(b, sizeof b);
	for (i = 0; i < sizeof b; i++)
		assert_int_equal(b[i], 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_short),
		cmocka_unit_test(test_sha256_448),
		cmocka_unit_test(test_sha256_896),
		cmocka_unit_test(test_sha256_million),
		cmocka_unit_test(test_hmac_rfc4231),
		cmocka_unit_test(test_wipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
