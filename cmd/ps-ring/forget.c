/*
 * forget.c: ps-ring forget, which deletes a finished job's znodes from
 * ZooKeeper (the -Z path of ps-ring serve and all below it), once no
 * coordinator, server or worker holds one there: their ephemeral znodes
 * under coord/ and members/ say that one still runs.  With -a, it
 * authenticates as the job's processes did, whose znodes no one else may
 * touch.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>
#include <unistd.h>

#include <event2/event.h>

#include "cluster/zk.h"
#include "cluster/zkmember.h"
#include "ps-ring.h"
#include "util/log.h"
#include "wire/auth.h"

/* The session is gone before the work is done. */
static void
forget_lost(void *arg, int expired, const char *why)
{
	fatalx(EX_UNAVAILABLE, "%s", why);
}

/* Exit 75 when a coordinator or node of the job still holds a znode. */
static void
forget_check_idle(struct zk *zk)
{
	static const char *const held[] = { "coord", "members" };
	char err[1024];
	size_t i;
	int n;

	for (i = 0; i < sizeof held / sizeof held[0]; i++) {
		if ((n = zk_live_children(zk, held[i], err, sizeof err)) < 0)
			fatalx(EX_UNAVAILABLE, "%s", err);
		if (n > 0)
			fatalx(EX_TEMPFAIL, "%s: %d znode%s in %s: a job still "
			    "runs there; nothing deleted", zk_where(zk), n,
			    n > 1 ? "s" : "", held[i]);
	}
}

int
cmd_forget(int argc, char **argv)
{
	struct ps_secret secret;
	struct event_base *base;
	struct zk *zk;
	const char *connect = NULL, *why;
	char err[1024];
	size_t removed = 0;
	int ch, have_secret = 0;

	while ((ch = getopt(argc, argv, "+a:hZ:")) != -1) {
		switch (ch) {
		case 'a':
			if (ps_secret_load(optarg, &secret, err,
			    sizeof err) != 0)
				fatalx(EX_NOINPUT, "-a: %s", err);
			have_secret = 1;
			break;
		case 'Z':
			connect = optarg;
			break;
		case 'h':
			usage(0);
		default:
			usage(EX_USAGE);
		}
	}
	if (connect == NULL || optind != argc)
		usage(EX_USAGE);
	if ((why = zk_connect_check(connect)) != NULL) {
		fprintf(stderr, "ps-ring: -Z '%s': %s\n", connect, why);
		usage(EX_USAGE);
	}
	log_init("ps-ring", PS_LOG_WARN);
	if ((base = event_base_new()) == NULL)
		fatalx(EX_OSERR, "cannot create event loop");
	zk = zk_open(base, connect, PS_ZK_SESSION_MS, have_secret ? &secret :
	    NULL, forget_lost, NULL, err, sizeof err);
	if (zk == NULL)
		fatalx(EX_UNAVAILABLE, "-Z: %s", err);
	forget_check_idle(zk);
	if (zk_delete_tree(zk, "", &removed, err, sizeof err) != 0)
		fatalx(EX_UNAVAILABLE, "%s (%zu znodes deleted before)", err,
		    removed);
	printf("forgot\t%s\t%zu\n", zk_where(zk), removed);
	zk_close(zk);
	event_base_free(base);
	if (have_secret)
		ps_secret_release(&secret);
	return finish_stdout();
}
