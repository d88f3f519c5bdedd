/*
 * stats.c: ps-server's text stats report (memcached-style STAT lines, the
 * answer to "stats").
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cluster/hello.h"
#include "server.h"
#include "util/xmalloc.h"

/* Append one "STAT name value" line. */
static void
stat_line(char **buf, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
stat_line(char **buf, const char *name, const char *fmt, ...)
{
	char val[128], *next;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof val, fmt, ap);
	va_end(ap);
	next = xasprintf("%sSTAT %s %s\r\n", *buf, name, val);
	free(*buf);
	*buf = next;
}

/* What the wire filters did to the frames one way (dir "read", "written"). */
static void
wire_stat_lines(char **buf, const char *dir, const struct ps_wire_sizes *w)
{
	char name[64];

#define WIRE_STAT(what, val) do {					\
		snprintf(name, sizeof name, "%s_%s", what, dir);	\
		stat_line(buf, name, "%llu", (unsigned long long)(val)); \
	} while (0)
	WIRE_STAT("keycache_bytes_in", w->keys_full);
	WIRE_STAT("keycache_bytes_out", w->keys_sent);
	WIRE_STAT("fp16_bytes_in", w->vals_full);
	WIRE_STAT("fp16_bytes_out", w->vals_sent);
	WIRE_STAT("lz4_bytes_in", w->raw_len);
	WIRE_STAT("lz4_bytes_out", w->wire_len);
#undef WIRE_STAT
}

/* A channel's job and store; channel 0's lines carry no prefix. */
static void
channel_stats(char **buf, const struct channel *ch)
{
	const struct job *job = &ch->job;
	char p[32] = "", name[64];

	if (ch->id > 0)
		snprintf(p, sizeof p, "ch%u_", ch->id);
#define CHANNEL_STAT(field, fmt, val) do {				\
		snprintf(name, sizeof name, "%s%s", p, field);		\
		stat_line(buf, name, fmt, val);				\
	} while (0)
	CHANNEL_STAT("job_active", "%d", job->active);
	CHANNEL_STAT("job_algorithm", "%s", ps_algorithm_name(job->algorithm));
	CHANNEL_STAT("job_workers", "%u", job->nworkers);
	CHANNEL_STAT("job_lambda", "%.17g", job->lambda);
	CHANNEL_STAT("rounds_done", "%llu", (unsigned long long)job->rounds_done);
	CHANNEL_STAT("keys", "%zu", ps_keytab_count(&ch->store.keys));
	CHANNEL_STAT("nnz", "%llu", (unsigned long long)ch->store.nnz);
	CHANNEL_STAT("l1_norm", "%.17g", ch->store.l1);
	CHANNEL_STAT("replica_keys", "%zu", ps_keytab_count(&ch->replica.keys));
	CHANNEL_STAT("replica_nnz", "%llu", (unsigned long long)ch->replica.nnz);
	CHANNEL_STAT("replica_l1_norm", "%.17g", ch->replica.l1);
	CHANNEL_STAT("rounds_awaiting_replicas", "%zu", rounds_awaiting_replicas(ch));
#undef CHANNEL_STAT
}

char *
server_stats_text(struct server *srv)
{
	struct server_stats *s = &srv->stats;
	uint32_t i;
	uint64_t bin = s->bytes_in, bout = s->bytes_out;
	uint64_t min = s->msgs_in, mout = s->msgs_out;
	uint64_t hits = s->keysig_hits, misses = s->keysig_misses;
	struct ps_wire_sizes win = s->wire_in, wout = s->wire_out;
	struct peer *p;
	char *buf = xstrdup(""), *out;

	TAILQ_FOREACH(p, &srv->peers, entry) {
		const struct ps_conn_stats *cs = ps_conn_stats(p->conn);

		bin += cs->bytes_in;
		bout += cs->bytes_out;
		min += cs->msgs_in;
		mout += cs->msgs_out;
		ps_wire_sizes_add(&win, &cs->in);
		ps_wire_sizes_add(&wout, &cs->out);
		hits += cs->keysig_hits;
		misses += cs->keysig_misses;
	}
	stat_line(&buf, "pid", "%ld", (long)getpid());
	stat_line(&buf, "uptime", "%lld", (long long)(time(NULL) - srv->started));
	stat_line(&buf, "version", "%s", PACKAGE_VERSION);
	stat_line(&buf, "listen", "%s", srv->bound);
	stat_line(&buf, "curr_connections", "%d", srv->nconns);
	stat_line(&buf, "total_connections", "%llu", (unsigned long long)s->conns_total);
	stat_line(&buf, "rejected_connections", "%llu", (unsigned long long)s->conns_refused);
	stat_line(&buf, "checkpoints_failed", "%llu", (unsigned long long)s->ckpt_failed);
	stat_line(&buf, "idle_closed", "%llu", (unsigned long long)s->conns_idle);
	stat_line(&buf, "evicted_connections", "%llu", (unsigned long long)s->conns_evicted);
	stat_line(&buf, "rejected_frames", "%llu", (unsigned long long)s->frames_rejected);
	stat_line(&buf, "auth_failures", "%llu", (unsigned long long)s->auth_failures);
	stat_line(&buf, "buffered_bytes", "%zu", srv->pool != NULL ? ps_conn_pool_held(srv->pool) : 0);
	stat_line(&buf, "buffered_closed", "%zu", srv->pool != NULL ? ps_conn_pool_evicted(srv->pool) : 0);
	stat_line(&buf, "max_buffered", "%zu", srv->max_buffered);
	stat_line(&buf, "max_keys", "%llu", (unsigned long long)srv->max_keys);
	for (i = 0; i < SERVER_CHANNELS_MAX; i++)
		if (srv->channels[i] != NULL)
			channel_stats(&buf, srv->channels[i]);
	stat_line(&buf, "pushes", "%llu", (unsigned long long)s->pushes);
	stat_line(&buf, "pushes_refused", "%llu", (unsigned long long)s->pushes_refused);
	stat_line(&buf, "pulls", "%llu", (unsigned long long)s->pulls);
	stat_line(&buf, "keys_pushed", "%llu", (unsigned long long)s->keys_pushed);
	stat_line(&buf, "keys_pulled", "%llu", (unsigned long long)s->keys_pulled);
	stat_line(&buf, "bytes_read", "%llu", (unsigned long long)bin);
	stat_line(&buf, "bytes_written", "%llu", (unsigned long long)bout);
	stat_line(&buf, "msgs_read", "%llu", (unsigned long long)min);
	stat_line(&buf, "msgs_written", "%llu", (unsigned long long)mout);
	stat_line(&buf, "sigmod_entries_in", "%llu", (unsigned long long)s->sigmod_in);
	stat_line(&buf, "sigmod_entries_out", "%llu", (unsigned long long)s->sigmod_out);
	stat_line(&buf, "kkt_inactive_sent", "%llu", (unsigned long long)s->kkt_marked);
	stat_line(&buf, "keycache_hits", "%llu", (unsigned long long)hits);
	stat_line(&buf, "keycache_misses", "%llu", (unsigned long long)misses);
	stat_line(&buf, "replicate_msgs_out", "%llu", (unsigned long long)s->replicate_msgs_out);
	stat_line(&buf, "replicate_keys_out", "%llu", (unsigned long long)s->replicate_keys_out);
	stat_line(&buf, "replicate_msgs_in", "%llu", (unsigned long long)s->replicate_msgs_in);
	stat_line(&buf, "replicate_keys_in", "%llu", (unsigned long long)s->replicate_keys_in);
	stat_line(&buf, "stale_dropped", "%llu", (unsigned long long)s->stale_dropped);
	stat_line(&buf, "replays_settled", "%llu", (unsigned long long)s->replays_settled);
	stat_line(&buf, "workers_gone", "%llu", (unsigned long long)s->workers_gone);
	stat_line(&buf, "workers_back", "%llu", (unsigned long long)s->workers_back);
	stat_line(&buf, "handoff_keys_in", "%llu", (unsigned long long)s->handoff_keys_in);
	wire_stat_lines(&buf, "read", &win);
	wire_stat_lines(&buf, "written", &wout);
	out = xasprintf("%sEND\r\n", buf);
	free(buf);
	return out;
}
