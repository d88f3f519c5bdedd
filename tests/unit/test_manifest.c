/*
 * test_manifest.c: unit tests of lib/manifest and lib/ckptdir: the text
 * layout, every bit flip and truncation of a manifest, each parse error
 * with its line, building, sealing and loading versions from real parts,
 * and the checkpoint directory rules (names, latest complete version,
 * atomic writes of a whole version).
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tmpdir.h"

#include "algo/ftrl.h"
#include "model/ckptdir.h"
#include "model/manifest.h"
#include "model/model.h"
#include "util/crc32c.h"

/* Remove a test's directory and all it holds. */
static void
rm_tree(char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

/* printf into a static path buffer (one at a time). */
static const char *
pathf(const char *fmt, ...)
{
	static char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return buf;
}

/* body followed by its "crc32c" line, in a static buffer. */
static const char *
with_crc(const char *body)
{
	static char buf[4096];

	snprintf(buf, sizeof buf, "%scrc32c %08x\n", body,
	    ps_crc32c(0, body, strlen(body)));
	return buf;
}

/* Expect parsing text to fail with this text in the message. */
static void
expect_bad(const char *text, size_t len, const char *want)
{
	struct ps_manifest m;
	char err[512];

	assert_int_equal(ps_manifest_parse(text, len, "M", &m, err,
	    sizeof err), PS_MANIFEST_EDATA);
	if (strncmp(err, "M:", 2) != 0 || strstr(err, want) == NULL)
		fail_msg("got '%s', want '%s'", err, want);
	assert_null(m.parts);
}

/* A manifest of n servers with made-up sizes and CRCs. */
static void
manifest_fill(struct ps_manifest *m, uint32_t n)
{
	uint32_t s;
	char name[32];

	memset(m, 0, sizeof *m);
	m->iteration = 123;
	m->ring_version = 7;
	m->nservers = n;
	m->lambda = 0.1;
	m->parts = calloc(n, sizeof *m->parts);
	assert_non_null(m->parts);
	for (s = 0; s < n; s++) {
		snprintf(name, sizeof name, "part-%u.psm", s);
		m->parts[s].server = s;
		m->parts[s].name = strdup(name);
		m->parts[s].size = 56 + 12 * (uint64_t)s;
		m->parts[s].crc = 0xdeadbeefu + s;
	}
}

static void
test_layout_is_as_documented(void **state)
{
	struct ps_manifest m, back;
	char *text, err[256];
	size_t len;
	uint32_t s;

	manifest_fill(&m, 2);
	ps_manifest_format(&m, &text, &len);
	assert_string_equal(text, with_crc("pskit-manifest 1\niteration 123\n"
	    "ring_version 7\nservers 2\nlambda 0.10000000000000001\n"
	    "part 0 part-0.psm 56 deadbeef\npart 1 part-1.psm 68 deadbef0\n"));
	assert_int_equal(len, strlen(text));
	assert_int_equal(ps_manifest_parse(text, len, "M", &back, err,
	    sizeof err), 0);
	assert_int_equal(back.iteration, 123);
	assert_int_equal(back.ring_version, 7);
	assert_int_equal(back.nservers, 2);
	assert_true(back.lambda == 0.1);
	for (s = 0; s < 2; s++) {
		assert_int_equal(back.parts[s].server, s);
		assert_string_equal(back.parts[s].name, m.parts[s].name);
		assert_int_equal(back.parts[s].size, m.parts[s].size);
		assert_int_equal(back.parts[s].crc, m.parts[s].crc);
	}
	free(text);
	ps_manifest_release(&m);
	ps_manifest_release(&back);
}

static void
test_every_bit_flip_and_truncation_fails(void **state)
{
	struct ps_manifest m;
	char *text, err[256];
	size_t len, i;
	int bit;

	manifest_fill(&m, 3);
	ps_manifest_format(&m, &text, &len);
	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit++) {
			text[i] ^= (char)(1 << bit);
			expect_bad(text, len, "");
			text[i] ^= (char)(1 << bit);
		}
		expect_bad(text, i, "");
	}
	ps_manifest_release(&m);
	assert_int_equal(ps_manifest_parse(text, len, "M", &m, err,
	    sizeof err), 0);
	free(text);
	ps_manifest_release(&m);
}

static void
test_errors_name_the_line(void **state)
{
	const char *head = "pskit-manifest 1\niteration 5\nring_version 1\n"
	    "servers 1\nlambda 1\n";
	char buf[1024];

	expect_bad("hello\n", 6, "M:1: not a manifest");
	expect_bad(with_crc("pskit-manifest 2\n"), strlen(with_crc(
	    "pskit-manifest 2\n")), "M:1: unsupported format 2");
	snprintf(buf, sizeof buf, "%s", with_crc("pskit-manifest 1\n"
	    "ring_version 1\n"));
	expect_bad(buf, strlen(buf), "M:2: expected 'iteration', not "
	    "'ring_version'");
#define BAD(body, want) do {						\
	snprintf(buf, sizeof buf, "%s", with_crc(body));		\
	expect_bad(buf, strlen(buf), want);				\
} while (0)
	BAD("pskit-manifest 1\niteration 12x\n", "M:2: bad iteration '12x'");
	BAD("pskit-manifest 1\niteration  5\n", "M:2: empty field");
	BAD("pskit-manifest 1\niteration 5\nring_version 4294967296\n",
	    "M:3: bad ring version");
	BAD("pskit-manifest 1\niteration 5\nring_version 1\nservers 0\n",
	    "M:4: bad servers '0'");
	BAD("pskit-manifest 1\niteration 5\nring_version 1\nservers 4097\n",
	    "M:4: bad servers");
	BAD("pskit-manifest 1\niteration 5\nring_version 1\nservers 1\n"
	    "lambda nan\n", "M:5: bad lambda 'nan'");
	BAD("pskit-manifest 1\niteration 5\nring_version 1\nservers 1\n"
	    "lambda -1\n", "M:5: bad lambda");
	snprintf(buf, sizeof buf, "%spart 1 p.psm 56 00000000\n", head);
	BAD(buf, "M:6: part of server 1 where server 0's was expected");
	snprintf(buf, sizeof buf, "%spart 0 ../p.psm 56 00000000\n", head);
	BAD(buf, "M:6: bad part name");
	snprintf(buf, sizeof buf, "%spart 0 p.txt 56 00000000\n", head);
	BAD(buf, "M:6: bad part name");
	snprintf(buf, sizeof buf, "%spart 0 p.psm 56 0000000G\n", head);
	BAD(buf, "M:6: bad checksum '0000000G'");
	snprintf(buf, sizeof buf, "%spart 0 p.psm 56\n", head);
	BAD(buf, "M:6: expected 'part SERVER NAME SIZE CRC'");
	BAD(head, "M:6: expected 'part'");
	snprintf(buf, sizeof buf, "%spart 0 p.psm 56 00000000\n"
	    "part 1 q.psm 56 00000000\n", head);
	BAD(buf, "M:7: 'part' where 'crc32c' was expected");
#undef BAD
	expect_bad("pskit-manifest 1\nxx\0yy\n", 22, "M:2: NUL byte");
	expect_bad("pskit-manifest 1\niteration 5", 28, "M:2: the last line "
	    "does not end in a newline");
	snprintf(buf, sizeof buf, "%s", with_crc(head));
	buf[strlen("pskit-manifest 1\niteration ")] = '6';
	expect_bad(buf, strlen(buf), "M:6: checksum mismatch");
	snprintf(buf, sizeof buf, "%scrc32c 0000000\n", head);
	expect_bad(buf, strlen(buf), "M:6: bad checksum");
	snprintf(buf, sizeof buf, "%s", head);
	expect_bad(buf, strlen(buf), "M:5: the last line is not 'crc32c CRC'");
}

/* Write part s of nservers with fids s+1, s+1+nservers, ... */
static void
write_part(const char *path, uint32_t s, uint32_t nservers, uint64_t it,
    uint32_t ring, float scale)
{
	struct ps_model m;
	char err[256];
	size_t i;

	memset(&m, 0, sizeof m);
	m.server_id = s;
	m.nservers = nservers;
	m.ring_version = ring;
	m.iteration = it;
	m.lambda = 0.5;
	m.n = 4;
	m.fids = calloc(m.n, sizeof *m.fids);
	m.w = calloc(m.n, sizeof *m.w);
	assert_non_null(m.fids);
	assert_non_null(m.w);
	for (i = 0; i < m.n; i++) {
		m.fids[i] = s + 1 + i * nservers;
		m.w[i] = scale * (float)(i + 1);
	}
	assert_int_equal(ps_model_write(path, &m, err, sizeof err), 0);
	ps_model_release(&m);
}

/* Write a version of 3 parts at iteration it into dir/name, unsealed. */
static const char *
write_version(const char *dir, const char *name, uint64_t it)
{
	static char vdir[4096];
	uint32_t s;

	snprintf(vdir, sizeof vdir, "%s/%s", dir, name);
	assert_int_equal(mkdir(vdir, 0777), 0);
	for (s = 0; s < 3; s++)
		write_part(pathf("%s/part-%u.psm", vdir, s), s, 3, it, 2, 1);
	return vdir;
}

/* Expect loading vdir to fail with code and this text in the message. */
static void
expect_load_fails(const char *vdir, int code, const char *want)
{
	struct ps_manifest m;
	struct ps_model merged;
	char err[1024];

	assert_int_equal(ps_ckpt_load_version(vdir, &m, &merged, err,
	    sizeof err), code);
	if (strstr(err, want) == NULL)
		fail_msg("got '%s', want '%s'", err, want);
	assert_null(m.parts);
	assert_null(merged.fids);
}

static void
test_seal_and_load(void **state)
{
	char *dir = test_tmp_dir("test_manifest"), err[1024];
	const char *vdir = write_version(dir, "v000000000009", 9);
	struct ps_manifest m, back;
	struct ps_model merged;

	expect_load_fails(vdir, PS_CKPT_EINCOMPLETE, "incomplete: no MANIFEST");
	assert_int_equal(ps_ckpt_seal(vdir, &m, err, sizeof err), 0);
	assert_int_equal(m.nservers, 3);
	assert_int_equal(m.iteration, 9);
	assert_int_equal(m.ring_version, 2);
	assert_int_equal(m.parts[1].size, 56 + 4 * 12);
	assert_string_equal(m.parts[2].name, "part-2.psm");
	assert_int_equal(ps_manifest_read(vdir, &back, err, sizeof err), 0);
	assert_int_equal(back.parts[2].crc, m.parts[2].crc);
	ps_manifest_release(&back);
	assert_int_equal(ps_ckpt_load_version(vdir, &back, &merged, err,
	    sizeof err), 0);
	assert_int_equal(merged.n, 12);
	assert_int_equal(merged.nparts, 3);
	assert_int_equal(merged.fids[11], 12);
	ps_model_release(&merged);
	ps_manifest_release(&back);
	ps_manifest_release(&m);
	rm_tree(dir);
}

static void
test_incomplete_and_changed_parts(void **state)
{
	char *dir = test_tmp_dir("test_manifest"), err[1024];
	const char *vdir = write_version(dir, "v000000000009", 9);
	char part2[4096];

	snprintf(part2, sizeof part2, "%s/part-2.psm", vdir);
	/* A part rewritten validly, same size, other weights. */
	assert_int_equal(ps_ckpt_seal(vdir, NULL, err, sizeof err), 0);
	write_part(part2, 2, 3, 9, 2, 2);
	expect_load_fails(vdir, PS_MODEL_EDATA, "part-2.psm: offset 100: "
	    "record checksum ");
	write_part(part2, 2, 3, 10, 2, 1);
	expect_load_fails(vdir, PS_MODEL_EDATA, "part-2.psm: offset 24: "
	    "iteration 10, the manifest says 9");
	write_part(part2, 2, 3, 9, 3, 1);
	expect_load_fails(vdir, PS_MODEL_EDATA, "part-2.psm: offset 20: "
	    "ring version 3");
	/* Sealing refuses parts of two rings, then a missing part. */
	assert_int_equal(ps_ckpt_seal(vdir, NULL, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_non_null(strstr(err, "parts disagree: "));
	assert_non_null(strstr(err, "ring version 2 but"));
	write_part(part2, 2, 3, 9, 2, 1);
	assert_int_equal(ps_ckpt_seal(vdir, NULL, err, sizeof err), 0);
	assert_int_equal(unlink(part2), 0);
	expect_load_fails(vdir, PS_MODEL_EDATA, "part-2.psm: missing (the "
	    "manifest lists it)");
	assert_int_equal(ps_ckpt_seal(vdir, NULL, err, sizeof err),
	    PS_MODEL_EDATA);
	assert_non_null(strstr(err, "has no part of server 2 (3 servers, 2 "
	    "parts)"));
	/* A truncated part: the model reader's offset. */
	write_part(part2, 2, 3, 9, 2, 1);
	assert_int_equal(truncate(part2, 70), 0);
	expect_load_fails(vdir, PS_MODEL_EDATA, "part-2.psm: offset 70: "
	    "truncated");
	rm_tree(dir);
}

/* Write the one part of a version, in format 2 with opt and epochs. */
static void
write_part2(const char *path, uint32_t opt, double epochs)
{
	static uint64_t fids[2] = { 3, 8 };
	static float w[2] = { 0, 1.5f };
	static double z[2] = { 0.25, -2 }, nsq[2] = { 1, 4 };
	struct ps_model m;
	char err[256];

	memset(&m, 0, sizeof m);
	m.nservers = 1;
	m.iteration = 9;
	m.lambda = 0.5;
	m.optimizer = opt;
	m.epochs = epochs;
	m.n = 2;
	m.fids = fids;
	m.w = w;
	m.z = z;
	m.nsq = nsq;
	assert_int_equal(ps_model_write(path, &m, err, sizeof err), 0);
}

/*
 * A format 2 part's optimiser and epochs are not in the manifest, but its
 * trailer covers them: a part rewritten validly with other ones is caught.
 */
static void
test_format2_parts_are_pinned(void **state)
{
	char *dir = test_tmp_dir("test_manifest"), err[1024], part[4096];
	const char *vdir = pathf("%s/v000000000009", dir);
	struct ps_manifest m;
	struct ps_model merged;

	assert_int_equal(mkdir(vdir, 0777), 0);
	snprintf(part, sizeof part, "%s/part-0.psm", vdir);
	write_part2(part, PS_OPT_FTRL, 1.5);
	assert_int_equal(ps_ckpt_seal(vdir, NULL, err, sizeof err), 0);
	assert_int_equal(ps_ckpt_load_version(vdir, &m, &merged, err,
	    sizeof err), 0);
	assert_int_equal(m.parts[0].size, 68 + 2 * 28);
	assert_int_equal(merged.format, 2);
	assert_int_equal(merged.optimizer, PS_OPT_FTRL);
	assert_true(merged.epochs == 1.5);
	assert_true(merged.z[1] == -2 && merged.nsq[1] == 4);
	ps_model_release(&merged);
	ps_manifest_release(&m);
	write_part2(part, PS_OPT_FTRL, 2.5);
	expect_load_fails(vdir, PS_MODEL_EDATA, "part-0.psm: offset 120: "
	    "record checksum ");
	write_part2(part, PS_OPT_ADAGRAD, 1.5);
	expect_load_fails(vdir, PS_MODEL_EDATA, "part-0.psm: offset 120: "
	    "record checksum ");
	rm_tree(dir);
}

static void
test_version_names(void **state)
{
	uint64_t it;
	char *p;

	p = ps_ckpt_version_path("ck", 123);
	assert_string_equal(p, "ck/v000000000123");
	free(p);
	assert_true(ps_ckpt_version_parse("v000000000123", &it));
	assert_int_equal(it, 123);
	assert_true(ps_ckpt_version_parse("v18446744073709551615", &it));
	assert_true(it == UINT64_MAX);
	assert_false(ps_ckpt_version_parse("v18446744073709551616", &it));
	assert_false(ps_ckpt_version_parse("v00000000012", &it));
	assert_false(ps_ckpt_version_parse("v00000000012x", &it));
	assert_false(ps_ckpt_version_parse("w000000000123", &it));
	assert_false(ps_ckpt_version_parse("v000000000123.tmp.5", &it));
}

static void
test_checkpoint_directory(void **state)
{
	char *dir = test_tmp_dir("test_manifest"), *vdir, err[1024];
	struct ps_ckpt_version *v;
	struct ps_manifest m;
	struct ps_model merged;
	size_t n;

	assert_int_equal(ps_ckpt_kind(dir), PS_CKPT_PARTS);
	write_version(dir, "v000000000010", 10);
	assert_int_equal(ps_ckpt_seal(pathf("%s/v000000000010", dir), NULL,
	    err, sizeof err), 0);
	write_version(dir, "v000000000200", 200);
	assert_int_equal(ps_ckpt_seal(pathf("%s/v000000000200", dir), NULL,
	    err, sizeof err), 0);
	write_version(dir, "v000000000030", 30);	/* never sealed */
	write_version(dir, "v000000000300", 301);
	assert_int_equal(ps_ckpt_seal(pathf("%s/v000000000300", dir), NULL,
	    err, sizeof err), PS_MODEL_EDATA);
	assert_non_null(strstr(err, "is named for iteration 300 but holds "
	    "iteration 301"));
	assert_int_equal(ps_ckpt_kind(dir), PS_CKPT_CKDIR);
	assert_int_equal(ps_ckpt_kind(pathf("%s/v000000000030/", dir)),
	    PS_CKPT_VERSION);
	assert_int_equal(ps_ckpt_list(dir, &v, &n, err, sizeof err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0].name, "v000000000010");
	assert_string_equal(v[1].name, "v000000000030");
	assert_int_equal(v[3].iteration, 300);
	ps_ckpt_list_free(v, n);
	/* The latest complete version skips 300 (unsealed). */
	assert_int_equal(ps_ckpt_load_latest(dir, &vdir, &m, &merged, err,
	    sizeof err), 0);
	assert_string_equal(vdir, pathf("%s/v000000000200", dir));
	assert_int_equal(merged.iteration, 200);
	free(vdir);
	ps_model_release(&merged);
	ps_manifest_release(&m);
	/* With 200 corrupt, 10 is the latest complete one. */
	assert_int_equal(truncate(pathf("%s/v000000000200/part-1.psm", dir),
	    60), 0);
	assert_int_equal(ps_ckpt_load_latest(dir, &vdir, &m, &merged, err,
	    sizeof err), 0);
	assert_int_equal(merged.iteration, 10);
	free(vdir);
	ps_model_release(&merged);
	ps_manifest_release(&m);
	rm_tree(dir);
}

static void
test_write_is_all_or_nothing(void **state)
{
	char *dir = test_tmp_dir("test_manifest"), err[1024];
	struct ps_model parts[2];
	struct ps_manifest m;
	struct ps_model merged;
	const char *out;
	uint32_t s;

	for (s = 0; s < 2; s++) {
		write_part(pathf("%s/in-%u.psm", dir, s), s, 2, 77, 5, 1);
		assert_int_equal(ps_model_read(pathf("%s/in-%u.psm", dir, s),
		    &parts[s], err, sizeof err), 0);
	}
	out = pathf("%s/v000000000077", dir);
	assert_int_equal(ps_ckpt_write(out, parts, 2, err, sizeof err), 0);
	assert_int_equal(ps_ckpt_load_version(pathf("%s/v000000000077", dir),
	    &m, &merged, err, sizeof err), 0);
	assert_int_equal(merged.n, 8);
	ps_model_release(&merged);
	ps_manifest_release(&m);
	/* It exists now; and a misnamed or inconsistent set leaves nothing. */
	assert_int_equal(ps_ckpt_write(pathf("%s/v000000000077", dir), parts,
	    2, err, sizeof err), PS_MODEL_ESYS);
	assert_non_null(strstr(err, "File exists"));
	assert_int_equal(ps_ckpt_write(pathf("%s/v000000000078", dir), parts,
	    2, err, sizeof err), PS_MODEL_EDATA);
	parts[1].ring_version = 6;
	assert_int_equal(ps_ckpt_write(pathf("%s/out", dir), parts, 2, err,
	    sizeof err), PS_MODEL_EDATA);
	assert_int_equal(access(pathf("%s/out", dir), F_OK), -1);
	assert_int_equal(rmdir(pathf("%s/v000000000077", dir)), -1);
	for (s = 0; s < 2; s++)
		ps_model_release(&parts[s]);
	assert_int_equal(system(pathf("test $(ls -a '%s' | wc -l) -eq 5",
	    dir)), 0);
	rm_tree(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_is_as_documented),
		cmocka_unit_test(test_every_bit_flip_and_truncation_fails),
		cmocka_unit_test(test_errors_name_the_line),
		cmocka_unit_test(test_seal_and_load),
		cmocka_unit_test(test_incomplete_and_changed_parts),
		cmocka_unit_test(test_format2_parts_are_pinned),
		cmocka_unit_test(test_version_names),
		cmocka_unit_test(test_checkpoint_directory),
		cmocka_unit_test(test_write_is_all_or_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
