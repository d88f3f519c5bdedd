/*
 * accept.c: the coordinator's accepted connections (ps-ring serve): each
 * with its handshake and dispatch, frames to members.c and text lines to
 * textcmd.c, and what freeing the coordinator's state takes.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "wire/sockname.h"

/*
 * Milliseconds a connection that is not a registered node may stay
 * without sending a whole message (conn.h idle limit), as ps-server's
 * --hello-timeout: silent sockets do not pile up.
 */
#define CLIENT_IDLE_LIMIT	10000

void
client_free(struct client *cl)
{
	TAILQ_REMOVE(&cl->co->clients, cl, entry);
	ps_conn_free(cl->conn);
	free(cl);
}

/* Send an ERROR saying why, then close once it is flushed. */
void
client_cut(struct client *cl, const char *why)
{
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_ERROR;
	m.flags = PS_MSG_F_NOKEYS;
	m.blob = (char *)why;
	m.bloblen = strlen(why);
	ps_conn_send(cl->conn, &m);
	ps_conn_close_after_flush(cl->conn);
}

/* Log and send an ERROR with the reason, then close (client_cut). */
void
client_refuse(struct client *cl, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	log_warnx("%s: %s", ps_conn_peer(cl->conn), why);
	client_cut(cl, why);
}

/*
 * Who owns a message: its dispatcher, client_msg_cb.  It releases each
 * message once, after the handler returned; no handler releases the
 * message it is given, and one that needs its keys, values or blob later
 * copies them (or would take the whole message with ps_msg_take()).
 */
static void
client_msg_cb(struct ps_conn *c, struct ps_msg *m, void *arg)
{
	struct client *cl = arg;

	if (m->type == PS_MSG_REGISTER) {
		member_register(cl, m);
		if (cl->member != NULL)
			ps_conn_set_idle_limit(c, 0);
	}
	else if (m->type == PS_MSG_HEARTBEAT && cl->member != NULL)
		member_heartbeat(cl->member, m);
	else if (m->type == PS_MSG_BYE && cl->member != NULL)
		member_bye(cl->co, cl->member);
	else
		client_refuse(cl, "unexpected %s%s", ps_msg_type_name(m->type),
		    cl->member == NULL ? " before REGISTER" : "");
	ps_msg_release(m);
}

static void
client_text_cb(struct ps_conn *c, const char *line, void *arg)
{
	text_command(arg, line);
}

/*
 * A node's connection dropped: it is dead at once.  A client that failed
 * the handshake (it never registered) is logged with the reason.
 */
static void
client_close_cb(struct ps_conn *c, const char *reason, void *arg)
{
	struct client *cl = arg;
	struct member *mb = cl->member;
	struct coord *co = cl->co;
	char why[256];

	snprintf(why, sizeof why, "%s", reason);	/* freed with c */
	if (ps_conn_is_auth_error(c))
		log_warnx("%s: %s", ps_conn_peer(c), reason);
	else if (ps_conn_idled_out(c))
		log_info("%s: %s", ps_conn_peer(c), reason);
	if (mb != NULL)
		mb->client = NULL;
	client_free(cl);
	if (mb != NULL)
		member_dead(co, mb, "%s", why);
}

/* A new connection; with -a it must first prove the secret. */
void
client_accept_cb(struct evconnlistener *lis, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct coord *co = arg;
	struct client *cl = xcalloc(1, sizeof *cl);
	char name[128], err[256];

	ps_sockaddr_name(sa, name, sizeof name);
	cl->co = co;
	cl->conn = ps_conn_new(co->base, fd, name, client_msg_cb,
	    client_text_cb, client_close_cb, cl);
	TAILQ_INSERT_TAIL(&co->clients, cl, entry);
	ps_conn_set_idle_limit(cl->conn, CLIENT_IDLE_LIMIT);
	if (co->have_secret && ps_conn_set_auth(cl->conn, &co->secret,
	    PS_AUTH_ACCEPTOR, err, sizeof err) != 0) {
		log_warnx("%s", err);
		client_free(cl);
	}
}

/* Close every connection; free the members, the store and the ring. */
void
coord_release(struct coord *co)
{
	struct client *cl;

	while ((cl = TAILQ_FIRST(&co->clients)) != NULL)
		client_free(cl);
	members_free(co);
	publish_release(co);
	co->store->ops->close(co->store);
	ps_ring_release(&co->ring);
	free(co->text);
	free(co->pub_text);
}
