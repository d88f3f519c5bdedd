/*
 * checkpoint.c: ps-ring checkpoint, which asks every server of a ring (a
 * file's, or the -C coordinator's) for a checkpoint of the job it runs
 * (ps-server -k; cmd/ps-server/checkpoint.c).  Each server answers its
 * "checkpoint" text command at once; the parts are written after worker
 * 0's next round, so the command does not wait for them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "ps-ring.h"
#include "util/xmalloc.h"

int
cmd_checkpoint(int argc, char **argv)
{
	struct coord_target t, server;
	struct ps_ring ring;
	char *body;
	size_t i, len;
	int first = coord_options(argc, argv, &t, NULL, NULL);

	if ((t.addr == NULL) != (argc - first == 1) || argc - first > 1)
		usage(EX_USAGE);
	ring_get(&t, t.addr == NULL ? argv[first] : NULL, &ring);
	server = t;
	for (i = 0; i < ring.nservers; i++) {
		server.addr = ring.servers[i].addr;
		body = client_request(&server, "checkpoint", &len);
		printf("%s\t%s", ring.servers[i].addr, body);
		free(body);
	}
	ps_ring_release(&ring);
	client_release(&t);
	return finish_stdout();
}
