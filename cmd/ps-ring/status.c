/*
 * status.c: ps-ring status, add, remove and watch against a coordinator.
 * status prints the coordinator's TSV lines as they are, or with -j as
 * JSON objects named by the column names below; watch draws them as a
 * table, clearing the screen first when standard output is a terminal.
 */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "ps-ring.h"
#include "util/parsenum.h"
#include "util/xmalloc.h"

#define STATUS_MAX_COLS	10

/* Column names of each kind of status line, after the kind. */
static const struct {
	const char	*kind;
	const char	*cols[STATUS_MAX_COLS];
} status_kinds[] = {
	{ "ring", { "version", "published", "servers", "live_servers",
	    "live_workers" } },
	{ "server", { "id", "addr", "state", "segments", "keys",
	    "bytes_in_per_s", "bytes_out_per_s", "requests_per_s",
	    "ring_version" } },
	{ "worker", { "id", "addr", "state", "ring_version" } },
};

/* Split a TSV line in place; the number of fields (at most max). */
static int
status_split(char *line, char **f, int max)
{
	int n = 0;

	f[n++] = line;
	while (n < max && (line = strchr(line, '\t')) != NULL) {
		*line++ = '\0';
		f[n++] = line;
	}
	return n;
}

/* A value as JSON: numbers as they are, "-" as null, the rest quoted. */
static void
status_json_value(const char *v)
{
	double num;

	if (strcmp(v, "-") == 0)
		fputs("null", stdout);
	else if (ps_parsenum_double(v, v + strlen(v), NULL, &num) == PS_NUM_OK)
		fputs(v, stdout);
	else
		printf("\"%s\"", v);	/* addresses and states: no quoting */
}

/* One status line as a JSON object. */
static void
status_json(char *line)
{
	char *f[STATUS_MAX_COLS + 1];
	int n = status_split(line, f, STATUS_MAX_COLS + 1), i;
	size_t k;

	for (k = 0; k < sizeof status_kinds / sizeof status_kinds[0]; k++)
		if (strcmp(f[0], status_kinds[k].kind) == 0)
			break;
	if (k == sizeof status_kinds / sizeof status_kinds[0])
		errx(EX_PROTOCOL, "unknown status line '%s'", f[0]);
	printf("{\"type\":\"%s\"", f[0]);
	for (i = 1; i < n && status_kinds[k].cols[i - 1] != NULL; i++) {
		printf(",\"%s\":", status_kinds[k].cols[i - 1]);
		status_json_value(f[i]);
	}
	printf("}\n");
}

/* ps-ring status [-j] [-a secret-file] -C addr | [-j] jobdir. */
int
cmd_status(int argc, char **argv)
{
	struct coord_target t;
	char *body, *line, *save;
	size_t len;
	int json = 0, first = coord_options(argc, argv, &t, &json, NULL);

	if (t.addr == NULL && argc - first == 1)
		client_jobdir(&t, argv[first]);
	else if (first != argc || t.addr == NULL)
		usage(EX_USAGE);
	body = client_request(&t, "status", &len);
	client_release(&t);
	if (!json)
		fputs(body, stdout);
	for (line = strtok_r(body, "\n", &save); json && line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		status_json(line);
	free(body);
	return finish_stdout();
}

/* ps-ring add|remove [-a secret-file] -C addr server: the new version. */
int
cmd_change(int argc, char **argv)
{
	struct coord_target t;
	char *cmd, *body;
	size_t len;

	if (argc - coord_options(argc, argv, &t, NULL, NULL) != 1 ||
	    t.addr == NULL)
		usage(EX_USAGE);
	if (strlen(argv[optind]) > PS_RING_MAX_ADDR ||
	    strpbrk(argv[optind], " \t\r\n") != NULL) {
		warnx("invalid server address '%s'", argv[optind]);
		usage(EX_USAGE);
	}
	hostport_or_usage(argv[optind]);
	cmd = xasprintf("%s %s", argv[0], argv[optind]);
	body = client_request(&t, cmd, &len);
	client_release(&t);
	fputs(body, stdout);
	free(body);
	free(cmd);
	return finish_stdout();
}

/* Draw one status line as a row of the watch table. */
static void
watch_row(char *line)
{
	char *f[STATUS_MAX_COLS + 1];
	int n = status_split(line, f, STATUS_MAX_COLS + 1);

	if (strcmp(f[0], "ring") == 0 && n == 6)
		printf("ring version %s (workers hold %s): %s servers in the "
		    "ring, %s live; %s workers live\n\n"
		    "%-7s %-6s %-21s %-8s %8s %10s %10s %10s %9s %5s\n",
		    f[1], f[2], f[3], f[4], f[5], "KIND", "ID", "ADDRESS",
		    "STATE", "SEGMENTS", "KEYS", "IN/S", "OUT/S", "REQ/S",
		    "RING");
	else if (strcmp(f[0], "server") == 0 && n == 10)
		printf("%-7s %-6s %-21s %-8s %8s %10s %10s %10s %9s %5s\n",
		    f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8],
		    f[9]);
	else if (strcmp(f[0], "worker") == 0 && n == 5)
		printf("%-7s %-6s %-21s %-8s %8s %10s %10s %10s %9s %5s\n",
		    f[0], f[1], f[2], f[3], "-", "-", "-", "-", "-", f[4]);
	else
		errx(EX_PROTOCOL, "unknown status line '%s'", f[0]);
}

/* One refresh: clear the screen on a terminal, a title, the table. */
static void
watch_draw(const struct coord_target *t, double secs, int tty)
{
	char *body, *line, *save, when[32];
	time_t now = time(NULL);
	size_t len;

	body = client_request(t, "status", &len);
	strftime(when, sizeof when, "%H:%M:%S", localtime(&now));
	if (tty)
		fputs("\033[H\033[2J", stdout);
	printf("Every %.1fs: ps-ring status -C %s\t%s\n\n", secs, t->addr,
	    when);
	for (line = strtok_r(body, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		watch_row(line);
	if (!tty)
		putchar('\n');
	fflush(stdout);
	free(body);
}

/* ps-ring watch [-i secs] [-n count] [-a secret-file] -C addr | jobdir. */
int
cmd_watch(int argc, char **argv)
{
	const char *secret = NULL;
	struct coord_target t = { NULL };
	uint32_t count = 0, i;
	double secs = 1;
	struct timespec ts;
	int ch;

	while ((ch = getopt(argc, argv, "+a:C:hi:n:")) != -1) {
		switch (ch) {
		case 'a':
			secret = optarg;
			break;
		case 'C':
			t.addr = optarg;
			break;
		case 'h':
			usage(0);
		case 'i':
			if (ps_parsenum_double_in(optarg, 0.1, 86400, &secs) !=
			    PS_NUM_OK) {
				warnx("invalid interval '%s' (expected "
				    "0.1-86400 seconds)", optarg);
				usage(EX_USAGE);
			}
			break;
		case 'n':
			count = parse_count(optarg, "count", 1, UINT32_MAX);
			break;
		default:
			usage(EX_USAGE);
		}
	}
	client_secret(&t, secret);
	if (t.addr == NULL && argc - optind == 1)
		client_jobdir(&t, argv[optind]);
	else if (t.addr == NULL || optind != argc)
		usage(EX_USAGE);
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	for (i = 0; count == 0 || i < count; i++) {
		if (i > 0)
			nanosleep(&ts, NULL);
		watch_draw(&t, secs, isatty(STDOUT_FILENO));
	}
	client_release(&t);
	return finish_stdout();
}
