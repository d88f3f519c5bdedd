/*
 * channel.c: a server's weight vectors.  Each channel has its own key store
 * and job; a message names its channel in the frame header.  Channel 0 is
 * saved to the -o path, channel c > 0 to that path with ".ch<c>" appended.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "util/xmalloc.h"

/* The channel id, created empty if asked to; NULL if out of range or absent. */
struct channel *
channel_get(struct server *srv, uint32_t id, int create)
{
	struct channel *ch;

	if (id >= SERVER_CHANNELS_MAX)
		return NULL;
	if (srv->channels[id] != NULL || !create)
		return srv->channels[id];
	ch = xcalloc(1, sizeof *ch);
	ch->srv = srv;
	ch->id = id;
	store_init(&ch->store);
	store_init(&ch->replica);
	TAILQ_INIT(&ch->job.rounds);
	srv->channels[id] = ch;
	return ch;
}

void
channels_free(struct server *srv)
{
	uint32_t i;

	for (i = 0; i < SERVER_CHANNELS_MAX; i++) {
		struct channel *ch = srv->channels[i];

		if (ch == NULL)
			continue;
		rounds_clear(ch);
		online_clear(ch);
		/* A job still running (the server ends without the
		 * coordinator, say): what failover/ keeps for it. */
		if (srv->failover != NULL)
			srv->failover->job_end(ch);
		free(ch->job.workers);
		store_release(&ch->store);
		store_release(&ch->replica);
		free(ch);
		srv->channels[i] = NULL;
	}
}

/* Write every channel's model part; -1 with the first failure in err. */
/*
 * Write ch's model part to path, placed in the ring the server holds (a
 * ring that changed after the job ended moved keys too).  A server that
 * joined an sgd job late (its end barrier did not pass here, so it holds
 * no sums of its own) says what the server that handed it the keys would:
 * the epochs, the iteration, lambda.
 */
static int
channel_save(struct channel *ch, const char *path, char *err, size_t errlen)
{
	const struct server *srv = ch->srv;
	struct job job = ch->job;
	uint64_t iteration = job.iter_base + job.rounds_done;

	if (ch->handed) {
		ch->store.epochs = ch->handed_epochs;
		iteration = ch->handed_iteration;
		job.lambda = ch->handed_lambda;
	}
	if (srv->have_ring && srv->in_ring) {
		job.server_index = (uint32_t)srv->ring_index;
		job.nservers = (uint32_t)srv->ring.nservers;
		job.ring_version = srv->ring.version;
	}
	return store_save(&ch->store, &job, iteration, path, err, errlen);
}

int
channels_save(struct server *srv, char *err, size_t errlen)
{
	char path[4096], why[512];
	uint32_t i;
	int rc = 0;

	if (channel_get(srv, 0, 1) == NULL)	/* channel 0 is always saved */
		return -1;
	for (i = 0; i < SERVER_CHANNELS_MAX; i++) {
		struct channel *ch = srv->channels[i];

		if (ch == NULL)
			continue;
		if (i == 0)
			snprintf(path, sizeof path, "%s", srv->model_path);
		else
			snprintf(path, sizeof path, "%s.ch%u", srv->model_path, i);
		if (channel_save(ch, path, why, sizeof why) != 0 &&
		    rc == 0) {
			snprintf(err, errlen, "%s", why);
			rc = -1;
		}
	}
	return rc;
}
