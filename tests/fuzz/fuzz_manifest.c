/*
 * fuzz_manifest.c: libFuzzer harness for the MANIFEST parser, the text
 * that ties a checkpoint version's parts together (ps_manifest_parse,
 * lib/model/manifest.c; pskit-ckpt(5)).
 *
 * Invariants besides "no crash": an error is PS_MANIFEST_EDATA with a
 * message "NAME:LINE: reason" and the manifest zeroed; an accepted one
 * keeps manifest.h's rules (1 to PS_MANIFEST_MAX_SERVERS servers, parts
 * listed by server id with names of NAME.psm, finite lambda >= 0), and
 * formatted again (ps_manifest_format) it parses to the same manifest and
 * formats to the same text, so what a writer produces a reader takes back.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/manifest.h"
#include "util/crc32c.h"

#define NAME	"fuzz/MANIFEST"

/* Check that a and b are the same manifest. */
static void
check_same(const struct ps_manifest *a, const struct ps_manifest *b)
{
	uint32_t s;

	FUZZ_CHECK(a->iteration == b->iteration);
	FUZZ_CHECK(a->ring_version == b->ring_version);
	FUZZ_CHECK(a->nservers == b->nservers);
	FUZZ_CHECK(memcmp(&a->lambda, &b->lambda, sizeof a->lambda) == 0);
	for (s = 0; s < a->nservers; s++) {
		FUZZ_CHECK(b->parts[s].server == a->parts[s].server);
		FUZZ_CHECK(strcmp(b->parts[s].name, a->parts[s].name) == 0);
		FUZZ_CHECK(b->parts[s].size == a->parts[s].size);
		FUZZ_CHECK(b->parts[s].crc == a->parts[s].crc);
	}
}

/* Check an accepted manifest m, then its formatted text. */
static void
check_manifest(const struct ps_manifest *m)
{
	struct ps_manifest back;
	char *text, *again, err[512];
	size_t len, len2, n;
	uint32_t s;

	FUZZ_CHECK(m->nservers >= 1 && m->nservers <= PS_MANIFEST_MAX_SERVERS);
	FUZZ_CHECK(isfinite(m->lambda) && m->lambda >= 0);
	FUZZ_CHECK(m->parts != NULL);
	for (s = 0; s < m->nservers; s++) {
		n = strlen(m->parts[s].name);
		FUZZ_CHECK(m->parts[s].server == s);
		FUZZ_CHECK(n >= 5 && n <= PS_MANIFEST_MAX_NAME);
		FUZZ_CHECK(strcmp(m->parts[s].name + n - 4, ".psm") == 0);
		FUZZ_CHECK(strchr(m->parts[s].name, '/') == NULL);
	}
	ps_manifest_format(m, &text, &len);
	FUZZ_CHECK(strlen(text) == len);
	FUZZ_CHECK(ps_manifest_parse(text, len, NAME, &back, err,
	    sizeof err) == 0);
	check_same(m, &back);
	ps_manifest_format(&back, &again, &len2);
	FUZZ_CHECK(len2 == len && memcmp(again, text, len) == 0);
	ps_manifest_release(&back);
	free(again);
	free(text);
}

/* Parse one input as a manifest and check what comes back. */
static void
run(const uint8_t *data, size_t size)
{
	struct ps_manifest m;
	char err[512];
	int rc;

	rc = ps_manifest_parse((const char *)data, size, NAME, &m, err,
	    sizeof err);
	if (rc == 0) {
		check_manifest(&m);
		ps_manifest_release(&m);
		return;
	}
	FUZZ_CHECK(rc == PS_MANIFEST_EDATA);
	FUZZ_CHECK(fuzz_starts(err, NAME ":"));
	FUZZ_CHECK(err[sizeof NAME] >= '1' && err[sizeof NAME] <= '9');
	FUZZ_CHECK(m.parts == NULL && m.nservers == 0);
}

/*
 * Make the last line's checksum right: when the input ends in a line of
 * "crc32c " and 8 or more characters, the first 8 become the CRC-32C, in
 * lowercase hex, of every byte before that line.
 */
static void
fixup(uint8_t *p, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t end = size, last;
	uint32_t crc;
	int i;

	if (p[end - 1] == '\n')
		end--;
	for (last = end; last > 0 && p[last - 1] != '\n'; last--)
		continue;
	if (end - last < 15 || memcmp(p + last, "crc32c ", 7) != 0)
		return;
	crc = ps_crc32c(0, p, last);
	for (i = 0; i < 8; i++)
		p[last + 7 + (size_t)i] = (uint8_t)hex[crc >> (28 - 4 * i) & 15];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_twice(data, size, run, fixup);
	return 0;
}
