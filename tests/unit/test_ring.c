/*
 * test_ring.c: unit tests of lib/ring: building, lookup against a linear
 * scan, replicas, the ring file round trip and its parse errors, the text
 * form and the mutators, balance, and how few keys move when a server
 * joins.
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
#include <unistd.h>

#include <cmocka.h>

#include "cluster/ring.h"
#include "util/clock.h"
#include "util/keyhash.h"

static const char *const addrs[] = {
	"127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003",
	"127.0.0.1:7004", "127.0.0.1:7005",
};

/* A fresh temporary file name under TMPDIR or /tmp; caller frees. */
static char *
tmp_path(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *p = malloc(strlen(dir) + 32);
	int fd;

	assert_non_null(p);
	sprintf(p, "%s/test_ring.XXXXXX", dir);
	fd = mkstemp(p);
	assert_true(fd >= 0);
	close(fd);
	return p;
}

/* Write text to a temporary file; caller unlinks and frees the name. */
static char *
write_tmp(const char *text)
{
	char *p = tmp_path();
	FILE *fp = fopen(p, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	return p;
}

/* Primary by linear scan: first point at or after the key's position. */
static size_t
lookup_linear(const struct ps_ring *r, uint64_t fid)
{
	uint64_t pos = ps_key_mix(fid);
	size_t i;

	for (i = 0; i < r->npoints; i++)
		if (r->points[i].pos >= pos)
			return r->points[i].server;
	return r->points[0].server;
}

static void
test_build_places_points(void **state)
{
	struct ps_ring r;
	char err[256];
	size_t i, count[3] = { 0 };

	assert_int_equal(ps_ring_build(&r, addrs, 3, 16, 1, err, sizeof err), 0);
	assert_int_equal(r.npoints, 48);
	assert_int_equal(r.version, 1);
	assert_int_equal(r.servers[2].id, 2);
	for (i = 0; i < r.npoints; i++) {
		count[r.points[i].server]++;
		if (i > 0)
			assert_true(r.points[i - 1].pos <= r.points[i].pos);
	}
	assert_int_equal(count[0], 16);
	assert_int_equal(count[1], 16);
	assert_int_equal(count[2], 16);
	/* The documented hash rule, point 0 of server 0. */
	for (i = 0; i < r.npoints; i++)
		if (r.points[i].pos == ps_key_mix(
		    ps_ring_addr_hash(addrs[0]) ^ ps_key_mix(1)))
			break;
	assert_true(i < r.npoints);
	assert_int_equal(r.points[i].server, 0);
	ps_ring_release(&r);
}

static void
test_lookup_matches_linear_scan(void **state)
{
	struct ps_ring r;
	char err[256];
	uint64_t fid;

	assert_int_equal(ps_ring_build(&r, addrs, 5, 7, 0, err, sizeof err), 0);
	for (fid = 1; fid < 20000; fid++)
		assert_int_equal(ps_ring_lookup(&r, fid), lookup_linear(&r, fid));
	assert_int_equal(ps_ring_lookup(&r, UINT64_MAX),
	    lookup_linear(&r, UINT64_MAX));
	/* A key exactly at a point belongs to that point. */
	assert_int_equal(ps_ring_point_at(&r, r.points[3].pos), 3);
	/* Past the last point wraps to the first. */
	if (r.points[r.npoints - 1].pos != UINT64_MAX)
		assert_int_equal(ps_ring_point_at(&r,
		    r.points[r.npoints - 1].pos + 1), 0);
	ps_ring_release(&r);
}

static void
test_replicas_distinct_clockwise(void **state)
{
	struct ps_ring r;
	char err[256];
	size_t out[8], n, i, j;
	uint64_t fid;

	assert_int_equal(ps_ring_build(&r, addrs, 4, 8, 2, err, sizeof err), 0);
	for (fid = 1; fid < 2000; fid++) {
		n = ps_ring_replicas(&r, fid, out, 8);
		assert_int_equal(n, 3);
		assert_int_equal(out[0], ps_ring_lookup(&r, fid));
		for (i = 0; i < n; i++)
			for (j = 0; j < i; j++)
				assert_true(out[i] != out[j]);
	}
	/* The second replica is the owner of the next point of another server. */
	n = ps_ring_point_replicas(&r, 0, out, 8);
	for (i = 1; r.points[i].server == r.points[0].server; i++)
		;
	assert_int_equal(out[1], r.points[i].server);
	assert_int_equal(ps_ring_replicas(&r, 5, out, 2), 2);
	ps_ring_release(&r);
}

/* Replicas by a step-by-step walk from point p: distinct servers, in order. */
static size_t
replicas_walk(const struct ps_ring *r, size_t p, size_t *out, size_t want)
{
	size_t n = 0, step, j;

	for (step = 0; step < r->npoints && n < want; step++) {
		uint32_t s = r->points[(p + step) % r->npoints].server;

		for (j = 0; j < n && out[j] != s; j++)
			;
		if (j == n)
			out[n++] = s;
	}
	return n;
}

/* Every point, its position, the one after and a fid's, on one ring. */
static void
check_ring_walks(const struct ps_ring *r)
{
	size_t out[8], want[8], n, m, p, i, max;
	uint64_t fid;

	for (p = 0; p < r->npoints; p++) {
		assert_int_equal(ps_ring_point_at(r, r->points[p].pos),
		    p > 0 && r->points[p - 1].pos == r->points[p].pos ?
		    p - 1 : p);
		if (r->points[p].pos != UINT64_MAX)
			assert_int_equal(ps_ring_point_at(r,
			    r->points[p].pos + 1), (p + 1) % r->npoints);
		for (max = 1; max <= 8; max++) {
			n = ps_ring_point_replicas(r, p, out, max);
			m = replicas_walk(r, p, want, max < r->replicas + 1 ?
			    max : r->replicas + 1);
			assert_int_equal(n, m);
			for (i = 0; i < n; i++)
				assert_int_equal(out[i], want[i]);
		}
	}
	assert_int_equal(ps_ring_point_at(r, 0), 0);
	assert_int_equal(ps_ring_point_at(r, UINT64_MAX),
	    r->points[r->npoints - 1].pos == UINT64_MAX ? r->npoints - 1 : 0);
	for (fid = 1; fid < 3000; fid++)
		assert_int_equal(ps_ring_lookup(r, fid), lookup_linear(r, fid));
}

/*
 * The search (a conditional-move binary search) and the replica walk (which
 * jumps over runs of one server's points) agree with the plain definitions
 * on rings of 1 to 5 servers, 1 to 64 points each, 0 to 4 replicas, and
 * after servers leave and join.
 */
static void
test_walks_match_definitions(void **state)
{
	static const uint32_t vnodes[] = { 1, 2, 3, 7, 64 };
	struct ps_ring r;
	char err[256];
	size_t n, v;
	uint32_t k;

	for (n = 1; n <= 5; n++)
		for (v = 0; v < sizeof vnodes / sizeof *vnodes; v++)
			for (k = 0; k < n && k <= 4; k++) {
				assert_int_equal(ps_ring_build(&r, addrs, n,
				    vnodes[v], k, err, sizeof err), 0);
				check_ring_walks(&r);
				if (n > 1) {
					assert_int_equal(ps_ring_remove(&r,
					    addrs[0], err, sizeof err), 0);
					check_ring_walks(&r);
					assert_int_equal(ps_ring_add(&r,
					    "127.0.0.1:7999", err, sizeof err),
					    0);
					check_ring_walks(&r);
				}
				ps_ring_release(&r);
			}
}

static void
test_build_rejects(void **state)
{
	static const char *const dup[] = { "a:1", "b:2", "a:1" };
	static const char *const bad[] = { "a:1", "nohost" };
	static const char *const badport[] = { "a:70000" };
	static const char *const space[] = { "a b:1" };
	struct ps_ring r;
	char err[256];

	assert_int_equal(ps_ring_build(&r, dup, 3, 4, 0, err, sizeof err),
	    PS_RING_EDATA);
	assert_non_null(strstr(err, "duplicate address 'a:1'"));
	assert_int_equal(ps_ring_build(&r, bad, 2, 4, 0, err, sizeof err),
	    PS_RING_EDATA);
	assert_non_null(strstr(err, "invalid address 'nohost'"));
	assert_int_equal(ps_ring_build(&r, badport, 1, 4, 0, err, sizeof err),
	    PS_RING_EDATA);
	assert_int_equal(ps_ring_build(&r, space, 1, 4, 0, err, sizeof err),
	    PS_RING_EDATA);
	assert_int_equal(ps_ring_build(&r, addrs, 2, 4, 2, err, sizeof err),
	    PS_RING_EDATA);
	assert_non_null(strstr(err, "replicas"));
	assert_int_equal(ps_ring_build(&r, addrs, 2, 0, 0, err, sizeof err),
	    PS_RING_EDATA);
	assert_int_equal(ps_ring_build(&r, addrs, 2, 4097, 0, err, sizeof err),
	    PS_RING_EDATA);
	assert_int_equal(ps_ring_build(&r, addrs, 0, 4, 0, err, sizeof err),
	    PS_RING_EDATA);
	assert_non_null(strstr(err, "no servers"));
}

static void
test_save_load_round_trip(void **state)
{
	struct ps_ring a, b;
	char err[256], *path = tmp_path();
	size_t i;

	assert_int_equal(ps_ring_build(&a, addrs, 3, 32, 1, err, sizeof err), 0);
	a.version = 7;
	assert_int_equal(ps_ring_save(path, &a, err, sizeof err), 0);
	assert_int_equal(ps_ring_load(path, &b, err, sizeof err), 0);
	assert_int_equal(b.format, 1);
	assert_int_equal(b.version, 7);
	assert_int_equal(b.vnodes, 32);
	assert_int_equal(b.replicas, 1);
	assert_int_equal(b.nservers, 3);
	assert_int_equal(b.npoints, a.npoints);
	for (i = 0; i < 3; i++) {
		assert_int_equal(b.servers[i].id, a.servers[i].id);
		assert_string_equal(b.servers[i].addr, a.servers[i].addr);
	}
	for (i = 0; i < a.npoints; i++) {
		assert_true(a.points[i].pos == b.points[i].pos);
		assert_int_equal(a.points[i].server, b.points[i].server);
	}
	ps_ring_release(&a);
	ps_ring_release(&b);
	unlink(path);
	free(path);
}

static void
test_load_accepts_comments_and_any_order(void **state)
{
	char err[256], *path = write_tmp("# a ring\n\npskit-ring 1\n"
	    "server 9 10.0.0.1:80\n  # indented comment\nreplicas 0\n"
	    "vnodes 2\r\nversion 4\nserver 3 [::1]:7000\n");
	struct ps_ring r;

	assert_int_equal(ps_ring_load(path, &r, err, sizeof err), 0);
	assert_int_equal(r.nservers, 2);
	assert_int_equal(r.servers[0].id, 9);
	assert_string_equal(r.servers[1].addr, "[::1]:7000");
	assert_int_equal(r.npoints, 4);
	ps_ring_release(&r);
	unlink(path);
	free(path);
}

static void
test_load_errors(void **state)
{
	static const char head[] = "pskit-ring 1\nversion 1\nvnodes 4\n";
	static const struct { const char *text, *want; } cases[] = {
		{ "pskit-ring 1\nversion 1\nvnodes 4\nreplicas 0\nbogus 1\n",
		    ":5: unknown keyword 'bogus'" },
		{ "version 1\n", ":1: not a ring file" },
		{ "", ":1: not a ring file" },
		{ "pskit-ring 2\n", ":1: unsupported format 2" },
		{ "pskit-ring 1\nversion x1\n", ":2: bad number 'x1'" },
		{ "pskit-ring 1\nversion 4294967296\n", ":2: bad number" },
		{ "pskit-ring 1\nversion -1\n", ":2: bad number" },
		{ "pskit-ring 1\nversion 1 2\n", ":2: 'version' takes one number" },
		{ "pskit-ring 1\nversion 1\nversion 2\n", ":3: duplicate 'version'" },
		{ "pskit-ring 1\nvnodes 4\nreplicas 0\nserver 0 a:1\n",
		    ":4: missing 'version'" },
		{ "pskit-ring 1\nversion 1\nreplicas 0\nserver 0 a:1\n",
		    ":4: missing 'vnodes'" },
		{ "pskit-ring 1\nversion 1\nvnodes 4\nserver 0 a:1\n",
		    ":4: missing 'replicas'" },
		{ "pskit-ring 1\nversion 1\nvnodes 0\nreplicas 0\nserver 0 a:1\n",
		    ":5: vnodes must be 1-4096" },
		{ "pskit-ring 1\nversion 1\nvnodes 4\nreplicas 4096\n",
		    ":4: replicas must be below 4096" },
		{ "pskit-ring 1\nserver 0 a:1\nserver 0 b:1\n",
		    ":3: duplicate server id 0" },
		{ "pskit-ring 1\nserver 0 a:1\nserver 1 a:1\n",
		    ":3: duplicate address 'a:1'" },
		{ "pskit-ring 1\nserver 0\n", ":2: expected 'server ID host:port'" },
		{ "pskit-ring 1\nserver 0 a:0\n", ":2: invalid address 'a:0'" },
		{ "pskit-ring 1\nserver 0 a\"b:1\n", ":2: invalid address" },
		{ "pskit-ring 1\nserver z a:1\n", ":2: bad server id 'z'" },
		{ "pskit-ring 1\nserver 0 a:1 extra\n", ":2: expected 'server" },
		{ "pskit-ring 1\na b c d e\n", ":2: too many fields" },
	};
	struct ps_ring r;
	char err[512], *path, *long_line;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		path = write_tmp(cases[i].text);
		assert_int_equal(ps_ring_load(path, &r, err, sizeof err),
		    PS_RING_EDATA);
		if (strstr(err, cases[i].want) == NULL ||
		    strncmp(err, path, strlen(path)) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, err,
			    cases[i].want);
		assert_null(r.servers);
		unlink(path);
		free(path);
	}
	long_line = calloc(1, sizeof head + 3000);
	assert_non_null(long_line);
	strcpy(long_line, head);
	memset(long_line + strlen(head), 'x', 2000);
	path = write_tmp(long_line);
	assert_int_equal(ps_ring_load(path, &r, err, sizeof err), PS_RING_EDATA);
	assert_non_null(strstr(err, ":4: line too long"));
	unlink(path);
	free(path);
	free(long_line);
	assert_int_equal(ps_ring_load("/nonexistent/ring", &r, err, sizeof err),
	    PS_RING_ESYS);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "cannot open '/nonexistent/ring'"));
}

static void
test_parse_format_round_trip(void **state)
{
	struct ps_ring a, b;
	char err[256], *text;
	size_t len, i;

	assert_int_equal(ps_ring_build(&a, addrs, 4, 8, 2, err, sizeof err), 0);
	a.version = 12;
	ps_ring_format(&a, &text, &len);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "version 12\n"));
	assert_int_equal(ps_ring_parse(text, len, "mem", &b, err, sizeof err),
	    0);
	assert_int_equal(b.version, 12);
	assert_int_equal(b.nservers, 4);
	for (i = 0; i < a.npoints; i++)
		assert_true(a.points[i].pos == b.points[i].pos);
	free(text);
	ps_ring_release(&b);
	/* Errors name the given name and the line; NUL bytes are refused. */
	assert_int_equal(ps_ring_parse("pskit-ring 1\nvnodes x\n", 22,
	    "coordinator 'h:1'", &b, err, sizeof err), PS_RING_EDATA);
	assert_string_equal(err, "coordinator 'h:1':2: bad number 'x' for "
	    "'vnodes'");
	assert_int_equal(ps_ring_parse("pskit-ring 1\n\0x\n", 16, "m", &b,
	    err, sizeof err), PS_RING_EDATA);
	assert_non_null(strstr(err, "m:2: NUL byte"));
	assert_null(b.servers);
	ps_ring_release(&a);
}

static void
test_empty_ring_and_few_servers(void **state)
{
	static const char few[] = "pskit-ring 1\nversion 3\nvnodes 4\n"
	    "replicas 2\nserver 5 a:1\n";
	struct ps_ring r, back;
	size_t rep[4], len;
	char err[256], *text;

	ps_ring_empty(&r, 16, 1);
	assert_int_equal(r.version, 0);
	assert_int_equal(r.nservers, 0);
	ps_ring_format(&r, &text, &len);
	assert_int_equal(ps_ring_parse(text, len, "e", &back, err, sizeof err),
	    0);
	assert_int_equal(back.nservers, 0);
	assert_int_equal(back.npoints, 0);
	assert_int_equal(back.vnodes, 16);
	free(text);
	ps_ring_release(&back);
	ps_ring_release(&r);
	/* Two replicas wanted, one server: each segment has just its owner. */
	assert_int_equal(ps_ring_parse(few, strlen(few), "f", &r, err,
	    sizeof err), 0);
	assert_int_equal(ps_ring_replicas(&r, 42, rep, 4), 1);
	ps_ring_release(&r);
}

static void
test_add_remove(void **state)
{
	struct ps_ring r, copy;
	char err[256];
	size_t fid, moved = 0;

	ps_ring_empty(&r, 32, 0);
	assert_int_equal(ps_ring_add(&r, addrs[0], err, sizeof err), 0);
	assert_int_equal(ps_ring_add(&r, addrs[1], err, sizeof err), 0);
	assert_int_equal(r.version, 2);
	assert_int_equal(r.servers[1].id, 1);
	assert_int_equal(r.npoints, 64);
	assert_int_equal(ps_ring_add(&r, addrs[1], err, sizeof err),
	    PS_RING_EDATA);
	assert_non_null(strstr(err, "already in the ring"));
	assert_int_equal(ps_ring_add(&r, "nope", err, sizeof err),
	    PS_RING_EDATA);
	assert_int_equal(r.version, 2);
	ps_ring_copy(&copy, &r);
	assert_int_equal(ps_ring_remove(&r, addrs[0], err, sizeof err), 0);
	assert_int_equal(r.version, 3);
	assert_int_equal(r.nservers, 1);
	assert_string_equal(r.servers[0].addr, addrs[1]);
	assert_int_equal(r.npoints, 32);
	assert_int_equal(ps_ring_remove(&r, addrs[0], err, sizeof err),
	    PS_RING_EDATA);
	assert_non_null(strstr(err, "not in the ring"));
	/* Only the removed server's keys moved; the copy is untouched. */
	for (fid = 1; fid <= 10000; fid++)
		if (copy.servers[ps_ring_lookup(&copy, fid)].id !=
		    r.servers[ps_ring_lookup(&r, fid)].id)
			moved++;
	assert_true(moved > 0);
	for (fid = 1; fid <= 10000; fid++)
		if (ps_ring_lookup(&copy, fid) == 1)
			assert_int_equal(r.servers[ps_ring_lookup(&r, fid)].id,
			    1);
	/* The next id is one above the largest, never reused below it. */
	assert_int_equal(ps_ring_add(&r, addrs[2], err, sizeof err), 0);
	assert_int_equal(r.servers[1].id, 2);
	assert_int_equal(ps_ring_find(&r, addrs[2]), 1);
	assert_int_equal(ps_ring_find(&r, addrs[0]), -1);
	ps_ring_release(&copy);
	ps_ring_release(&r);
}

static void
test_too_many_servers(void **state)
{
	char err[256], *path = tmp_path();
	struct ps_ring r;
	FILE *fp = fopen(path, "w");
	int i;

	assert_non_null(fp);
	fputs("pskit-ring 1\nversion 1\nvnodes 1\nreplicas 0\n", fp);
	for (i = 0; i < 4097; i++)
		fprintf(fp, "server %d h:%d\n", i, i + 1);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(ps_ring_load(path, &r, err, sizeof err), PS_RING_EDATA);
	assert_non_null(strstr(err, ":4101: too many servers"));
	unlink(path);
	free(path);
}

/* Share of keys 1..n per server, in percent. */
static void
ring_shares(const struct ps_ring *r, uint64_t n, double *pct)
{
	uint64_t fid;
	size_t s;

	for (s = 0; s < r->nservers; s++)
		pct[s] = 0;
	for (fid = 1; fid <= n; fid++)
		pct[ps_ring_lookup(r, fid)] += 100.0 / (double)n;
}

static void
test_balance_64_vnodes(void **state)
{
	struct ps_ring r;
	char err[256];
	double pct[4];
	size_t s;

	assert_int_equal(ps_ring_build(&r, addrs, 4, 64, 0, err, sizeof err), 0);
	ring_shares(&r, 1000000, pct);
	for (s = 0; s < 4; s++) {
		print_message("server %zu: %.2f%% of 1M keys\n", s, pct[s]);
		assert_true(pct[s] > 21 && pct[s] < 29);
	}
	ps_ring_release(&r);
}

static void
test_join_moves_few_keys(void **state)
{
	struct ps_ring a, b;
	char err[256];
	uint64_t fid, moved = 0, n = 1000000;

	assert_int_equal(ps_ring_build(&a, addrs, 4, 64, 0, err, sizeof err), 0);
	assert_int_equal(ps_ring_build(&b, addrs, 5, 64, 0, err, sizeof err), 0);
	for (fid = 1; fid <= n; fid++) {
		size_t x = ps_ring_lookup(&a, fid), y = ps_ring_lookup(&b, fid);

		if (x != y) {
			assert_int_equal(y, 4);	/* only to the new server */
			moved++;
		}
	}
	print_message("adding a 5th server moved %.2f%% of keys (ideal 20%%)\n",
	    100.0 * (double)moved / (double)n);
	assert_true(moved > n / 10 && moved < n * 3 / 10);
	ps_ring_release(&a);
	ps_ring_release(&b);
}

static void
test_lookup_speed(void **state)
{
	struct ps_ring r;
	char err[256];
	uint64_t fid, sum = 0, n = 4000000;
	double secs;

	assert_int_equal(ps_ring_build(&r, addrs, 5, 128, 0, err, sizeof err), 0);
	secs = ps_clock_now();
	for (fid = 1; fid <= n; fid++)
		sum += ps_ring_lookup(&r, fid);
	secs = ps_clock_now() - secs;
	print_message("%.1f M lookups/s over %zu points\n",
	    (double)n / secs / 1e6, r.npoints);
	assert_true(sum > 0);
	ps_ring_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_places_points),
		cmocka_unit_test(test_lookup_matches_linear_scan),
		cmocka_unit_test(test_replicas_distinct_clockwise),
		cmocka_unit_test(test_walks_match_definitions),
		cmocka_unit_test(test_build_rejects),
		cmocka_unit_test(test_save_load_round_trip),
		cmocka_unit_test(test_load_accepts_comments_and_any_order),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_parse_format_round_trip),
		cmocka_unit_test(test_empty_ring_and_few_servers),
		cmocka_unit_test(test_add_remove),
		cmocka_unit_test(test_too_many_servers),
		cmocka_unit_test(test_balance_64_vnodes),
		cmocka_unit_test(test_join_moves_few_keys),
		cmocka_unit_test(test_lookup_speed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
