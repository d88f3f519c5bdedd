/*
 * textcmd.c: the coordinator's text commands, memcached style: one command
 * per line, answered by lines that end with "END", or by one line
 * "CLIENT_ERROR reason" (refused), "SERVER_ERROR reason" (the ring could
 * not be saved) or "ERROR unknown command".  Lines end with CR LF.
 *
 *   show               the ring's pskit-ring(5) text
 *   status             "ring" VERSION PUBLISHED SERVERS LIVE_SERVERS
 *                      LIVE_WORKERS, then per server "server" ID ADDR STATE
 *                      SEGMENTS KEYS BYTES_IN/S BYTES_OUT/S REQUESTS/S
 *                      ACKED, then per worker "worker" ID ADDR STATE ACKED,
 *                      tab-separated; ID "-" for a server not in the ring
 *   add host:port      a registered standby server joins the ring
 *   remove host:port   a server leaves the ring
 *   quit               close the connection
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "serve.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* A growing answer. */
struct answer {
	FILE	*fp;
	char	*buf;
	size_t	 len;
};

static void
answer_open(struct answer *a)
{
	if ((a->fp = open_memstream(&a->buf, &a->len)) == NULL)
		fatal(EX_OSERR, "open_memstream");
}

/* Finish with END, send the answer, and free it. */
static void
answer_send(struct client *cl, struct answer *a)
{
	fputs("END\r\n", a->fp);
	if (fclose(a->fp) != 0)
		fatal(EX_OSERR, "open_memstream");
	ps_conn_send_text(cl->conn, a->buf);
	free(a->buf);
}

/* show: the ring text, one line per line. */
static void
text_show(struct client *cl)
{
	const char *p = cl->co->text, *nl;
	struct answer a;

	answer_open(&a);
	for (; (nl = strchr(p, '\n')) != NULL; p = nl + 1)
		fprintf(a.fp, "%.*s\r\n", (int)(nl - p), p);
	answer_send(cl, &a);
}

/* Non-empty segments a server owns as primary (0 when not in the ring). */
static size_t
text_segments(const struct ps_ring *r, long s)
{
	size_t i, n = 0;

	for (i = 0; s >= 0 && i < r->npoints; i++)
		if (r->points[i].server == (uint32_t)s && (r->npoints == 1 ||
		    r->points[i].pos != r->points[(i + r->npoints - 1) %
		    r->npoints].pos))
			n++;
	return n;
}

/* One status line for a member. */
static void
text_member(FILE *fp, const struct coord *co, const struct member *mb)
{
	long s;
	char id[16] = "-";

	if (mb->role == PS_COORD_WORKER) {
		fprintf(fp, "worker\t%u\t%s\t%s\t%u\r\n", mb->worker_id,
		    mb->addr, member_state_name(co, mb), mb->acked);
		return;
	}
	if ((s = ps_ring_find(&co->ring, mb->addr)) >= 0)
		snprintf(id, sizeof id, "%u", co->ring.servers[s].id);
	fprintf(fp, "server\t%s\t%s\t%s\t%zu\t%.0f\t%.1f\t%.1f\t%.1f\t%u\r\n",
	    id, mb->addr, member_state_name(co, mb),
	    text_segments(&co->ring, s), mb->count[PS_COORD_HB_KEYS],
	    mb->rate[PS_COORD_HB_BYTES_IN], mb->rate[PS_COORD_HB_BYTES_OUT],
	    mb->rate[PS_COORD_HB_REQUESTS], mb->acked);
}

/* status: the ring, then the servers, then the workers. */
static void
text_status(struct client *cl)
{
	struct coord *co = cl->co;
	struct member *mb;
	int live[3] = { 0, 0, 0 }, role;
	struct answer a;

	TAILQ_FOREACH(mb, &co->members, entry)
		if (mb->state == MEMBER_LIVE)
			live[mb->role]++;
	answer_open(&a);
	fprintf(a.fp, "ring\t%u\t%u\t%zu\t%d\t%d\r\n", co->ring.version,
	    co->published, co->ring.nservers, live[PS_COORD_SERVER],
	    live[PS_COORD_WORKER]);
	for (role = PS_COORD_SERVER; role <= PS_COORD_WORKER; role++)
		TAILQ_FOREACH(mb, &co->members, entry)
			if (mb->role == role)
				text_member(a.fp, co, mb);
	answer_send(cl, &a);
}

/* Publish next (taken over) and answer with its version or the error. */
static void
text_publish(struct client *cl, struct ps_ring *next, const char *why)
{
	struct coord *co = cl->co;
	char err[512], *line;

	if (publish_change(co, next, why, err, sizeof err) != 0) {
		line = xasprintf("SERVER_ERROR cannot save the ring: %s\r\n",
		    err);
		ps_conn_send_text(cl->conn, line);
	} else {
		line = xasprintf("version\t%u\r\nEND\r\n",
		    publish_newest(co)->version);
		ps_conn_send_text(cl->conn, line);
	}
	free(line);
}

/* Send "CLIENT_ERROR why". */
static void
text_refuse(struct client *cl, const char *why)
{
	char *line = xasprintf("CLIENT_ERROR %s\r\n", why);

	ps_conn_send_text(cl->conn, line);
	free(line);
}

/* add ADDR: a live standby server joins; remove ADDR: a server leaves. */
static void
text_change(struct client *cl, const char *verb, const char *addr)
{
	struct coord *co = cl->co;
	struct member *mb = member_server(co, addr);
	struct ps_ring next;
	char err[512], *why;
	int add = strcmp(verb, "add") == 0, rc;

	if (add && (mb == NULL || mb->state != MEMBER_LIVE)) {
		why = xasprintf("'%s' is not a registered server", addr);
		text_refuse(cl, why);
		free(why);
		return;
	}
	ps_ring_copy(&next, publish_newest(co));
	rc = add ? ps_ring_add(&next, addr, err, sizeof err) :
	    ps_ring_remove(&next, addr, err, sizeof err);
	if (rc != 0) {
		ps_ring_release(&next);
		text_refuse(cl, err);
		return;
	}
	why = xasprintf("server %s %s by %s", addr, add ? "added" : "removed",
	    ps_conn_peer(cl->conn));
	text_publish(cl, &next, why);
	free(why);
}

void
text_command(struct client *cl, const char *line)
{
	char copy[PS_CONN_LINE_MAX + 1], *verb, *arg, *extra, *save;

	snprintf(copy, sizeof copy, "%s", line);
	verb = strtok_r(copy, " \t", &save);
	arg = verb != NULL ? strtok_r(NULL, " \t", &save) : NULL;
	extra = arg != NULL ? strtok_r(NULL, " \t", &save) : NULL;
	if (verb == NULL || extra != NULL)
		ps_conn_send_text(cl->conn, "ERROR unknown command\r\n");
	else if (strcmp(verb, "show") == 0 && arg == NULL)
		text_show(cl);
	else if (strcmp(verb, "status") == 0 && arg == NULL)
		text_status(cl);
	else if ((strcmp(verb, "add") == 0 || strcmp(verb, "remove") == 0) &&
	    arg != NULL)
		text_change(cl, verb, arg);
	else if (strcmp(verb, "quit") == 0 && arg == NULL)
		ps_conn_close_after_flush(cl->conn);
	else
		ps_conn_send_text(cl->conn, "ERROR unknown command\r\n");
}
