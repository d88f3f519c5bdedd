/*
 * ps-ring.c: create, show and query rings (pskit-ring(5)), in files or
 * held by a running coordinator (-C).
 *
 * A table of subcommands in the style of git builtins; each parses its own
 * options and calls into lib/cluster/ring.c.  show separates what is shown from how
 * through a small output vtable (TSV or JSON lines).  The coordinator
 * daemon is serve.c; the commands that talk to it are client.c and
 * status.c.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdnoreturn.h>
#include <sysexits.h>

#include "cluster/coord.h"
#include "cluster/ring.h"
#include "ps-ring.h"
#include "util/parsenum.h"
#include "util/subcmd.h"
#include "util/usage.h"
#include "wire/conn.h"

static const char usage_text[] =
"usage: ps-ring [-hV] command [argument ...]\n"
"       ps-ring init [-v vnodes] [-k replicas] [-o ringfile] host:port ...\n"
"       ps-ring show [-j | -r] ringfile | [-a secret-file] -C host:port\n"
"       ps-ring lookup ringfile | [-a secret-file] -C host:port [fid ...]\n"
"       ps-ring serve [-L] [-a secret-file | -A secret-file] [-k replicas] [-l addr:port]"
    " [-n servers] [-r fd] [-t timeout-ms] [-v vnodes] ringfile\n"
"       ps-ring serve [-L] [-a secret-file | -A secret-file] [-k replicas] [-l addr:port]"
    " [-n servers] [-r fd] [-t timeout-ms] [-v vnodes] [-s session-ms]"
    " -Z host:port[,host:port...]/path\n"
"       ps-ring status [-j] [-a secret-file] -C host:port\n"
"       ps-ring status [-j] jobdir\n"
"       ps-ring add [-a secret-file] -C host:port server\n"
"       ps-ring remove [-a secret-file] -C host:port server\n"
"       ps-ring watch [-i secs] [-n count] [-a secret-file] -C host:port\n"
"       ps-ring watch [-i secs] [-n count] jobdir\n"
"       ps-ring checkpoint ringfile | [-a secret-file] -C host:port\n"
"       ps-ring forget [-a secret-file] -Z host:port[,host:port...]/path\n";

/* Print the usage (and help for status 0) and exit. */
noreturn void
usage(int status)
{
	ps_usage(status, usage_text, "\n"
	    "  init    write a ring over these servers (to stdout without -o)\n"
	    "          -v vnodes   points per server (default 64)\n"
	    "          -k replicas extra copies of each segment (default 0)\n"
	    "  show    print segments and each server's share; -j for JSON lines,\n"
	    "          -r for the ring's file (pskit-ring(5))\n"
	    "  lookup  print fid, server id and address for each feature id\n"
	    "          (read one per line from stdin when none are given)\n"
	    "  -C host:port  ask the coordinator at host:port for its ring; or a\n"
	    "                comma-separated list: the first that answers\n"
	    "  -a file       prove to the coordinator that we know the secret in file\n"
	    "                (its -a file; mode 0600, 16 bytes or more)\n"
	    "  serve   run the coordinator, keeping its ring in ringfile\n"
	    "          -a file     nodes and clients must prove the secret in file\n"
	    "          -A file     the same, with a new random secret made in file\n"
	    "                      (mode 0600; an existing file is refused)\n"
	    "          -l addr:port listen here (default 127.0.0.1:0); any address\n"
	    "                      but 127.0.0.1 and [::1] needs -a\n"
	    "          -n servers  send workers no ring until one names this\n"
	    "                      many servers (once)\n"
	    "          -r fd       write the listening line to descriptor fd\n"
	    "                      too, then close it (a launcher's readiness note)\n"
	    "          -t ms       heartbeat silence before a node is dead\n"
	    "                      (default 300)\n"
	    "          -v, -k      vnodes and replicas of a new ring\n"
	    "          -Z connect  keep the ring in ZooKeeper instead, in the znode\n"
	    "                      path/ring of this ensemble; a save that another\n"
	    "                      coordinator overtook stops this one (exit 73)\n"
	    "          -s ms       the ZooKeeper session timeout (default 2000): a\n"
	    "                      coordinator that has no ZooKeeper server for it\n"
	    "                      stops (exit 69)\n"
	    "          -L          shut down when standard input, a pipe from the\n"
	    "                      launcher, reaches end of file (or the parent dies)\n"
	    "  status  each server's and worker's state, keys and rates\n"
	    "  jobdir  a ps-train job directory: ask the coordinator of its\n"
	    "          running job (the address and secret ps-train wrote there)\n"
	    "  add     a registered standby server joins the ring\n"
	    "  remove  a server leaves the ring\n"
	    "  watch   redraw the status every -i secs (default 1),\n"
	    "          -n times (default: until interrupted)\n"
	    "  checkpoint  ask every server of the ring for a checkpoint of its\n"
	    "          job (ps-server -k); it follows worker 0's next iteration\n"
	    "  forget  delete a finished job's znodes from ZooKeeper (the -Z\n"
	    "          path and all below it); refused (exit 75) while a\n"
	    "          coordinator, server or worker of it holds one there\n"
	    "  -V, --version  print the version and exit\n"
	    "  -h, --help     print this help and exit\n"
	    "\nexample: ps-ring init -o ring 127.0.0.1:7001 127.0.0.1:7002\n");
}

/* Parse a decimal number in [lo, hi] or exit with a usage error. */
uint32_t
parse_count(const char *s, const char *what, uint32_t lo, uint32_t hi)
{
	uint64_t v;

	if (ps_parsenum_u64_in(s, lo, hi, &v) != PS_NUM_OK) {
		warnx("invalid %s '%s' (expected %u-%u)", what, s, lo, hi);
		usage(EX_USAGE);
	}
	return (uint32_t)v;
}

/* Exit 74 if anything written to stdout was lost. */
int
finish_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		err(EX_IOERR, "cannot write to stdout");
	return 0;
}

/* Exit 64 with the usage if s is not a well-formed host:port. */
void
hostport_or_usage(const char *s)
{
	char msg[512];

	if (ps_hostport_check(s, msg, sizeof msg) != 0) {
		warnx("%s", msg);
		usage(EX_USAGE);
	}
}

/* The same for -C, which may list coordinators: host:port[,host:port...]. */
static void
coordlist_or_usage(const char *s)
{
	char msg[512];

	if (ps_coord_list_check(s, msg, sizeof msg) != 0) {
		warnx("%s", msg);
		usage(EX_USAGE);
	}
}

/*
 * The options of the commands that may ask a coordinator: -C host:port
 * (or a list), -a secret-file (read into *t), -h, -j where json is not
 * NULL and -r where raw is not NULL.  Return optind.
 */
int
coord_options(int argc, char **argv, struct coord_target *t, int *json,
    int *raw)
{
	const char *secret = NULL;
	int ch;

	memset(t, 0, sizeof *t);
	while ((ch = getopt(argc, argv, raw != NULL ? "+a:C:hjr" :
	    json != NULL ? "+a:C:hj" : "+a:C:h")) != -1) {
		switch (ch) {
		case 'a':
			secret = optarg;
			break;
		case 'C':
			t->addr = optarg;
			break;
		case 'h':
			usage(0);
		case 'j':
			*json = 1;
			break;
		case 'r':
			*raw = 1;
			break;
		default:
			usage(EX_USAGE);
		}
	}
	if (t->addr != NULL)
		coordlist_or_usage(t->addr);
	client_secret(t, secret);
	return optind;
}

/*
 * The coordinator's ring (with -C) or a file's; exit 65 (bad contents),
 * 66 (cannot open), 69 (coordinator unreachable) or 77 (refused).
 */
void
ring_get(const struct coord_target *t, const char *path, struct ps_ring *r)
{
	char msg[1024];
	int rc;

	if (t->addr != NULL)
		client_ring(t, r);
	else if ((rc = ps_ring_load(path, r, msg, sizeof msg)) != 0)
		errx(rc == PS_RING_EDATA ? EX_DATAERR : EX_NOINPUT, "%s", msg);
}

/* ps-ring init: build a ring over the given addresses and write it. */
static int
cmd_init(int argc, char **argv)
{
	uint32_t vnodes = 64, replicas = 0;
	const char *out = "-";
	struct ps_ring r;
	char msg[1024];
	int ch;

	while ((ch = getopt(argc, argv, "+hk:o:v:")) != -1) {
		switch (ch) {
		case 'h':
			usage(0);
		case 'k':
			replicas = parse_count(optarg, "replicas", 0,
			    PS_RING_MAX_SERVERS - 1);
			break;
		case 'o':
			out = optarg;
			break;
		case 'v':
			vnodes = parse_count(optarg, "vnodes", 1,
			    PS_RING_MAX_VNODES);
			break;
		default:
			usage(EX_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage(EX_USAGE);
	if (ps_ring_build(&r, (const char *const *)argv, (size_t)argc, vnodes,
	    replicas, msg, sizeof msg) != 0) {
		warnx("%s", msg);
		usage(EX_USAGE);
	}
	if (ps_ring_save(out, &r, msg, sizeof msg) != 0)
		errx(EX_CANTCREAT, "%s", msg);
	ps_ring_release(&r);
	return finish_stdout();
}

/* How show prints: one callback per kind of line. */
struct show_ops {
	void	(*ring)(const struct ps_ring *);
	void	(*segment)(const struct ps_ring *, uint64_t, uint64_t, size_t,
		    const size_t *, size_t);
	void	(*server)(const struct ps_ring *, size_t, size_t, double);
};

/* TSV: "ring VERSION VNODES REPLICAS SERVERS". */
static void
tsv_ring(const struct ps_ring *r)
{
	printf("ring\t%u\t%u\t%u\t%zu\n", r->version, r->vnodes, r->replicas,
	    r->nservers);
}

/* TSV: "segment START END ID ADDR REPLICA-IDS". */
static void
tsv_segment(const struct ps_ring *r, uint64_t start, uint64_t end,
    size_t server, const size_t *rep, size_t nrep)
{
	size_t i;

	printf("segment\t%016llx\t%016llx\t%u\t%s\t",
	    (unsigned long long)start, (unsigned long long)end,
	    r->servers[server].id, r->servers[server].addr);
	for (i = 0; i < nrep; i++)
		printf("%s%u", i ? "," : "", r->servers[rep[i]].id);
	printf("%s\n", nrep ? "" : "-");
}

/* TSV: "server ID ADDR POINTS SHARE". */
static void
tsv_server(const struct ps_ring *r, size_t s, size_t points, double share)
{
	printf("server\t%u\t%s\t%zu\t%.6f\n", r->servers[s].id,
	    r->servers[s].addr, points, share);
}

/* JSON line for the ring itself. */
static void
json_ring(const struct ps_ring *r)
{
	printf("{\"type\":\"ring\",\"format\":%u,\"version\":%u,\"vnodes\":%u,"
	    "\"replicas\":%u,\"servers\":%zu}\n", r->format, r->version,
	    r->vnodes, r->replicas, r->nservers);
}

/* JSON line for a segment; addresses need no escaping (see ring.c). */
static void
json_segment(const struct ps_ring *r, uint64_t start, uint64_t end,
    size_t server, const size_t *rep, size_t nrep)
{
	size_t i;

	printf("{\"type\":\"segment\",\"start\":\"%016llx\",\"end\":\"%016llx\","
	    "\"server\":%u,\"addr\":\"%s\",\"replicas\":[",
	    (unsigned long long)start, (unsigned long long)end,
	    r->servers[server].id, r->servers[server].addr);
	for (i = 0; i < nrep; i++)
		printf("%s%u", i ? "," : "", r->servers[rep[i]].id);
	printf("]}\n");
}

/* JSON line for a server's summary. */
static void
json_server(const struct ps_ring *r, size_t s, size_t points, double share)
{
	printf("{\"type\":\"server\",\"id\":%u,\"addr\":\"%s\",\"points\":%zu,"
	    "\"share\":%.6f}\n", r->servers[s].id, r->servers[s].addr, points,
	    share);
}

static const struct show_ops show_tsv = { tsv_ring, tsv_segment, tsv_server };
static const struct show_ops show_json = { json_ring, json_segment,
    json_server };

/* Print every non-empty segment and add its size to its owner's share. */
static void
show_segments(const struct ps_ring *r, const struct show_ops *ops,
    double *share)
{
	size_t i, nrep, rep[PS_RING_MAX_SERVERS];

	for (i = 0; i < r->npoints; i++) {
		const struct ps_ring_point *pt = &r->points[i];
		uint64_t prev = r->points[(i + r->npoints - 1) % r->npoints].pos;
		double size = r->npoints == 1 ? 18446744073709551616.0 :
		    (double)(pt->pos - prev);

		if (r->npoints > 1 && pt->pos == prev)
			continue;
		nrep = ps_ring_point_replicas(r, i, rep, PS_RING_MAX_SERVERS);
		ops->segment(r, prev + 1, pt->pos, pt->server, rep + 1,
		    nrep - 1);
		share[pt->server] += size / 18446744073709551616.0;
	}
}

/* ps-ring show: segments and per-server shares. */
static int
cmd_show(int argc, char **argv)
{
	const struct show_ops *ops;
	struct coord_target t;
	struct ps_ring r;
	double *share;
	size_t s, len;
	int json = 0, raw = 0;
	char *text;

	if (argc - coord_options(argc, argv, &t, &json, &raw) !=
	    (t.addr == NULL) || (json && raw))
		usage(EX_USAGE);
	ops = json ? &show_json : &show_tsv;
	ring_get(&t, argv[optind], &r);
	client_release(&t);
	if (raw) {	/* the ring's file, pskit-ring(5) */
		ps_ring_format(&r, &text, &len);
		fwrite(text, 1, len, stdout);
		free(text);
		ps_ring_release(&r);
		return finish_stdout();
	}
	if ((share = calloc(r.nservers, sizeof *share)) == NULL)
		err(EX_OSERR, "calloc");
	ops->ring(&r);
	show_segments(&r, ops, share);
	for (s = 0; s < r.nservers; s++)
		ops->server(&r, s, r.vnodes, share[s]);
	free(share);
	ps_ring_release(&r);
	return finish_stdout();
}

/* Parse a feature id: decimal, 1 to 2^64-1. */
static int
parse_fid(const char *s, uint64_t *fid)
{
	return ps_parsenum_u64_in(s, 1, UINT64_MAX, fid) == PS_NUM_OK ? 0 : -1;
}

/* Print one lookup result. */
static void
lookup_print(const struct ps_ring *r, uint64_t fid)
{
	size_t s = ps_ring_lookup(r, fid);

	printf("%llu\t%u\t%s\n", (unsigned long long)fid, r->servers[s].id,
	    r->servers[s].addr);
}

/* Look up feature ids read from stdin, one per line. */
static void
lookup_stdin(const struct ps_ring *r)
{
	char buf[64];
	unsigned long line = 0;
	uint64_t fid;
	size_t len;

	while (fgets(buf, sizeof buf, stdin) != NULL) {
		line++;
		len = strlen(buf);
		if (len > 0 && buf[len - 1] != '\n' && !feof(stdin))
			errx(EX_DATAERR, "<stdin>:%lu: line too long", line);
		buf[strcspn(buf, "\r\n")] = '\0';
		if (parse_fid(buf, &fid) != 0)
			errx(EX_DATAERR, "<stdin>:%lu: invalid feature id '%s'",
			    line, buf);
		lookup_print(r, fid);
	}
	if (ferror(stdin))
		err(EX_IOERR, "cannot read stdin");
}

/* ps-ring lookup: map feature ids to servers. */
static int
cmd_lookup(int argc, char **argv)
{
	struct coord_target t;
	const char *name;
	struct ps_ring r;
	uint64_t fid;
	int i, first;

	first = coord_options(argc, argv, &t, NULL, NULL) +
	    (t.addr == NULL);
	if (first > argc)
		usage(EX_USAGE);
	for (i = first; i < argc; i++)
		if (parse_fid(argv[i], &fid) != 0) {
			warnx("invalid feature id '%s'", argv[i]);
			usage(EX_USAGE);
		}
	ring_get(&t, argv[optind], &r);
	client_release(&t);
	name = t.addr != NULL ? t.addr : argv[optind];
	if (r.nservers == 0)
		errx(EX_DATAERR, "%s: the ring has no servers", name);
	if (first == argc)
		lookup_stdin(&r);
	for (i = first; i < argc; i++) {
		parse_fid(argv[i], &fid);
		lookup_print(&r, fid);
	}
	ps_ring_release(&r);
	return finish_stdout();
}

static const struct ps_subcmd commands[] = {
	{ "init", cmd_init },
	{ "show", cmd_show },
	{ "lookup", cmd_lookup },
	{ "serve", cmd_serve },
	{ "status", cmd_status },
	{ "add", cmd_change },
	{ "remove", cmd_change },
	{ "watch", cmd_watch },
	{ "checkpoint", cmd_checkpoint },
	{ "forget", cmd_forget },
};

int
main(int argc, char **argv)
{
	return ps_subcmd_main("ps-ring", commands,
	    sizeof commands / sizeof commands[0], usage, argc, argv);
}
