/*
 * zk.c: ZooKeeper's multi-threaded C client under a libevent loop (see
 * zk.h).  Each call the loop makes gets a note, kept on the struct zk's
 * list until the loop has run its callback (so that nothing the library
 * holds is lost to view); the library's threads only fill the note in and
 * write a record naming it into a pipe (atomic: fewer than PIPE_BUF
 * bytes), and the loop reads the records and runs the callbacks.  A
 * session that stays disconnected for its timeout is taken as lost, as is
 * an expired one.  A read (get, listing, watch) that the library fails
 * because the connection dropped is sent again once the session is
 * connected again, so a pause of the ensemble shorter than the session
 * timeout never reaches the owner's callbacks; so is a create that is
 * not sequential (if the first got through, the second finds the znode:
 * ZNODEEXISTS, which every caller of such a create takes as made).  Sets
 * and sequential creates, whose outcome is then unknown, are the caller's
 * to resolve.
 */
#include "config.h"

#include <sys/queue.h>

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The synchronous calls of the multi-threaded client need this. */
#define THREADED 1
#include <zookeeper/zookeeper.h>

#include "cluster/zk.h"
#include "util/clock.h"
#include "util/sha256.h"
#include "util/xmalloc.h"
#include "wire/auth.h"

#define ZK_PATH_MAX	1024

enum zk_note_kind {
	NOTE_DONE, NOTE_WATCH, NOTE_CHILDREN, NOTE_DATA, NOTE_CREATED
};

/* A call of the loop's, and what the library answered. */
struct zk_note {
	enum zk_note_kind	 kind;
	struct zk		*zk;
	int			 rc;		/* DONE: the call's result */
	int32_t			 version;	/* DONE: a set's new version */
	zk_done_fn		 done;
	zk_watch_fn		 watch;
	zk_children_fn		 children;
	zk_data_fn		 data_done;
	zk_created_fn		 created;
	char			**names;	/* CHILDREN: sorted */
	size_t			 nnames;
	char			*data;		/* DATA: the bytes; CREATED:
						   the name made */
	size_t			 len;
	struct zk_note		*armed;		/* CHILDREN: its watch */
	void			*arg;
	char			*path;		/* absolute, to send it again */
	int			 synced;	/* DATA: a sync goes first */
	char			*payload;	/* CREATED: the data, to send it */
	int			 plen;		/* again (-1: none), and the */
	int			 flags;		/* ZooKeeper flags */
	int			 waiting;	/* failed by the connection's
						   loss: sent again once
						   connected */
	/*
	 * NOTE_WATCH: posted once (an exists() on a znode already gone and
	 * its watch could both post), and kept until zk_close(), since the
	 * library may still hold the pointer, unless the watch itself fired
	 * (fired: the library has dropped it).
	 */
	atomic_int		 posted;
	int			 fired;
	LIST_ENTRY(zk_note)	 entry;		/* zk->notes */
};
LIST_HEAD(zk_note_list, zk_note);

static int	zk_issue(struct zk_note *n);

/* A pipe record: a note answered, or (note NULL) a session state. */
struct zk_record {
	struct zk_note		*note;
	int			 state;
};

struct zk {
	zhandle_t		*zh;
	int			 pipefd[2];
	struct event		*readable;
	struct event		*silence;	/* disconnected too long */
	char			*hosts, *root, *where;
	char			 cred[80];	/* "pskit:password", or "" */
	struct ACL_vector *acl;	/* of the job's znodes */
	int			 session_ms;
	zk_lost_fn		 lost;
	void			*arg;
	zk_watch_fn		 back;		/* zk_renew: once connected */
	void			*back_arg;
	struct zk_note_list	 notes;		/* the loop's calls in flight,
						   and every watch */
};

const char *
zk_strerror(int rc)
{
	return zerror(rc);
}

const char *
zk_where(const struct zk *zk)
{
	return zk->where;
}

int
zk_session_ms(const struct zk *zk)
{
	return zk->session_ms;
}

const char *
zk_connect_check(const char *s)
{
	const char *slash = strchr(s, '/'), *p;
	size_t n;

	if (slash == NULL || slash == s)
		return "expected host:port[,host:port...]/path";
	if (strlen(slash) >= ZK_PATH_MAX / 2)
		return "the path is too long";
	for (p = slash; *p == '/'; p += n + 1) {
		n = strcspn(p + 1, "/");
		if (n == 0 || strncmp(p + 1, ".", n) == 0 ||
		    strncmp(p + 1, "..", n) == 0)
			return "the path must name a znode below /, with no "
			    "empty, . or .. component";
	}
	return NULL;
}

/* Take a note off the list and free it and what it holds. */
static void
zk_note_free(struct zk_note *n)
{
	size_t i;

	LIST_REMOVE(n, entry);
	for (i = 0; i < n->nnames; i++)
		free(n->names[i]);
	free(n->names);
	free(n->data);
	free(n->path);
	free(n->payload);
	free(n);
}

/* A library thread: hand a record to the loop. */
static void
zk_post_record(struct zk *zk, struct zk_note *n, int state)
{
	struct zk_record rec = { n, state };
	ssize_t w;

	do
		w = write(zk->pipefd[1], &rec, sizeof rec);
	while (w < 0 && errno == EINTR);
}

static void
zk_post(struct zk *zk, struct zk_note *n)
{
	zk_post_record(zk, n, 0);
}

int
zk_unsure(int rc)
{
	return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT;
}

/*
 * May the note be sent again after rc?  A read or a plain create that
 * the connection's loss failed (a watch that fired is answered).
 */
static int
zk_resendable(const struct zk_note *n)
{
	return zk_unsure(n->rc) && !n->fired && n->kind != NOTE_DONE &&
	    !(n->kind == NOTE_CREATED && (n->flags & ZOO_SEQUENCE));
}

/*
 * Send a note again; a refusal at once is answered on the loop.  Its rc
 * is cleared first: once sent, a library thread may fill it in.
 */
static void
zk_resend(struct zk *zk, struct zk_note *n)
{
	int rc;

	n->waiting = 0;
	n->rc = 0;
	atomic_store(&n->posted, 0);
	if ((rc = zk_issue(n)) != ZOK) {
		n->rc = rc;
		zk_post(zk, n);
	}
}

/* The session is connected again: send what the loss failed. */
static void
zk_resend_waiting(struct zk *zk)
{
	struct zk_note *n;

	LIST_FOREACH(n, &zk->notes, entry)
		if (n->waiting)
			zk_resend(zk, n);
}

static void
zk_session_watcher(zhandle_t *zh, int type, int state, const char *path,
    void *ctx)
{
	struct zk *zk = ctx;

	if (type == ZOO_SESSION_EVENT && zk->pipefd[1] >= 0)
		zk_post_record(zk, NULL, state);
}

/* The session is lost for good: tell the owner. */
static void
zk_silence_cb(evutil_socket_t fd, short what, void *arg)
{
	struct zk *zk = arg;
	char why[256];

	snprintf(why, sizeof why, "no ZooKeeper server of %s answered for "
	    "%d ms, the session timeout", zk->where, zk->session_ms);
	zk->lost(zk->arg, 0, why);
}

static void
zk_session_note(struct zk *zk, int state)
{
	struct timeval tv;

	zk_watch_fn back = zk->back;

	if (state == ZOO_CONNECTED_STATE) {
		evtimer_del(zk->silence);
		zk_resend_waiting(zk);
		zk->back = NULL;
		if (back != NULL)
			back(zk->back_arg);
	} else if (state == ZOO_EXPIRED_SESSION_STATE ||
	    state == ZOO_AUTH_FAILED_STATE) {
		zk->lost(zk->arg, 1, state == ZOO_EXPIRED_SESSION_STATE ?
		    "the ZooKeeper session expired" :
		    "ZooKeeper refused the session's credentials");
	} else if (!evtimer_pending(zk->silence, NULL)) {
		tv.tv_sec = zk->session_ms / 1000;
		tv.tv_usec = (zk->session_ms % 1000) * 1000;
		evtimer_add(zk->silence, &tv);
	}
}

static void
zk_readable_cb(evutil_socket_t fd, short what, void *arg)
{
	struct zk *zk = arg;
	struct zk_record rec;
	struct zk_note *n;

	while (read(fd, &rec, sizeof rec) == (ssize_t)sizeof rec) {
		if ((n = rec.note) == NULL) {
			zk_session_note(zk, rec.state);
			continue;
		}
		/* Sent again now, or once the session is back. */
		if (zk_resendable(n)) {
			if (zoo_state(zk->zh) == ZOO_CONNECTED_STATE)
				zk_resend(zk, n);
			else
				n->waiting = 1;
			continue;
		}
		if (n->kind == NOTE_WATCH) {
			n->watch(n->arg);
			if (n->fired)
				zk_note_free(n);	/* else zk_close() */
			continue;
		}
		/* A listing that failed left no watch in the library. */
		if (n->kind == NOTE_CHILDREN && n->rc != ZOK &&
		    n->armed != NULL)
			zk_note_free(n->armed);
		if (n->kind == NOTE_CHILDREN)
			n->children(n->arg, n->rc, n->names, n->nnames);
		else if (n->kind == NOTE_DATA)
			n->data_done(n->arg, n->rc, n->data != NULL ? n->data :
			    "", n->len, n->version);
		else if (n->kind == NOTE_CREATED)
			n->created(n->arg, n->rc, n->data != NULL ? n->data :
			    "");
		else
			n->done(n->arg, n->rc, n->version);
		zk_note_free(n);
	}
}

/* Build the absolute path of rel under the job's root. */
static int
zk_abs(const struct zk *zk, const char *rel, char *path, size_t len)
{
	int n = snprintf(path, len, "%s%s%s", zk->root, *rel ? "/" : "", rel);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int
zk_make_path(struct zk *zk, char *err, size_t errlen)
{
	char path[ZK_PATH_MAX], *p, c;
	struct Stat st;
	int rc;

	/* A read first: each create is a write, logged by the ensemble. */
	if (zoo_exists(zk->zh, zk->root, 0, &st) == ZOK)
		return 0;
	snprintf(path, sizeof path, "%s", zk->root);
	for (p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		rc = zoo_create(zk->zh, path, NULL, -1, c == '\0' ? zk->acl :
		    &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
		if (rc != ZOK && rc != ZNODEEXISTS) {
			snprintf(err, errlen, "%s: cannot create %s: %s",
			    zk->where, path, zerror(rc));
			return -1;
		}
		if ((*p = c) == '\0')
			return 0;
	}
}

/* Wait, up to the session timeout, for the first connection. */
static int
zk_wait_connected(struct zk *zk, char *err, size_t errlen)
{
	double until = ps_clock_now() + zk->session_ms / 1e3;

	while (zoo_state(zk->zh) != ZOO_CONNECTED_STATE) {
		if (ps_clock_now() > until) {
			snprintf(err, errlen, "no ZooKeeper server of %s "
			    "answered within %d ms", zk->where,
			    zk->session_ms);
			return -1;
		}
		usleep(2000);
	}
	zk->session_ms = zoo_recv_timeout(zk->zh);
	return 0;
}

/*
 * The digest credentials of a secret: user "pskit", the password the hex
 * SHA-256 of a label and the secret (the secret itself never leaves).
 */
static void
zk_credentials(struct zk *zk, const struct ps_secret *secret)
{
	static const char label[] = "pskit zookeeper digest\n";
	struct ps_sha256 ctx;
	uint8_t md[PS_SHA256_LEN];
	char *p;
	size_t i;

	zk->acl = &ZOO_OPEN_ACL_UNSAFE;
	if (secret == NULL)
		return;
	ps_sha256_init(&ctx);
	ps_sha256_update(&ctx, label, sizeof label - 1);
	ps_sha256_update(&ctx, secret->bytes, secret->len);
	ps_sha256_final(&ctx, md);
	p = zk->cred + snprintf(zk->cred, sizeof zk->cred, "pskit:");
	for (i = 0; i < sizeof md; i++, p += 2)
		snprintf(p, 3, "%02x", md[i]);
	zk->acl = &ZOO_CREATOR_ALL_ACL;
}

/*
 * A new handle for the session (not waiting for it); the credentials are
 * queued, and the client sends them first on every connection.
 */
static int
zk_init(struct zk *zk, char *err, size_t errlen)
{
	zk->zh = zookeeper_init(zk->hosts, zk_session_watcher,
	    zk->session_ms, NULL, zk, 0);
	if (zk->zh == NULL) {
		snprintf(err, errlen, "'%s': %s", zk->where, strerror(errno));
		return -1;
	}
	if (zk->cred[0] != '\0' && zoo_add_auth(zk->zh, "digest", zk->cred,
	    (int)strlen(zk->cred), NULL, NULL) != ZOK) {
		snprintf(err, errlen, "%s: cannot add the credentials",
		    zk->where);
		return -1;
	}
	return 0;
}

struct zk *
zk_open(struct event_base *base, const char *connect, int session_ms,
    const struct ps_secret *secret, zk_lost_fn lost, void *arg, char *err,
    size_t errlen)
{
	struct zk *zk = xcalloc(1, sizeof *zk);
	const char *why = zk_connect_check(connect);
	const char *slash = strchr(connect, '/');

	zk->pipefd[0] = zk->pipefd[1] = -1;
	LIST_INIT(&zk->notes);
	if (why != NULL) {
		snprintf(err, errlen, "'%s': %s", connect, why);
		goto fail;
	}
	zk->lost = lost;
	zk->arg = arg;
	zk->session_ms = session_ms;
	zk->where = xstrdup(connect);
	zk->hosts = xstrdup(connect);
	zk->hosts[slash - connect] = '\0';
	zk->root = xstrdup(slash);
	zk_credentials(zk, secret);
	if (pipe2(zk->pipefd, O_CLOEXEC) != 0 ||
	    fcntl(zk->pipefd[0], F_SETFL, O_NONBLOCK) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto fail;
	}
	zk->readable = event_new(base, zk->pipefd[0], EV_READ | EV_PERSIST,
	    zk_readable_cb, zk);
	zk->silence = evtimer_new(base, zk_silence_cb, zk);
	event_add(zk->readable, NULL);
	zoo_set_debug_level(0);		/* we say what matters ourselves */
	if (zk_init(zk, err, errlen) != 0 ||
	    zk_wait_connected(zk, err, errlen) != 0)
		goto fail;
	return zk;
fail:
	zk_close(zk);
	return NULL;
}

int
zk_renew(struct zk *zk, zk_watch_fn back, void *arg, char *err,
    size_t errlen)
{
	struct zk_note *n;

	zookeeper_close(zk->zh);	/* expired: nothing is sent */
	zk->zh = NULL;
	LIST_FOREACH(n, &zk->notes, entry)
		if (n->waiting) {	/* the old session's: answered */
			n->waiting = 0;
			n->rc = ZSESSIONEXPIRED;
			zk_post(zk, n);
		}
	zk->back = back;
	zk->back_arg = arg;
	return zk_init(zk, err, errlen);
}

void
zk_close(struct zk *zk)
{
	struct zk_note *n;

	if (zk == NULL)
		return;
	if (zk->zh != NULL)
		zookeeper_close(zk->zh);	/* joins the library's threads */
	while ((n = LIST_FIRST(&zk->notes)) != NULL)
		zk_note_free(n);	/* the pipe's records are dropped */
	if (zk->readable != NULL)
		event_free(zk->readable);
	if (zk->silence != NULL)
		event_free(zk->silence);
	if (zk->pipefd[0] >= 0) {
		close(zk->pipefd[0]);
		close(zk->pipefd[1]);
	}
	free(zk->hosts);
	free(zk->root);
	free(zk->where);
	free(zk);
}

static int
zk_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Copy a listing into a sorted array of n strings. */
static void
zk_names(const struct String_vector *sv, char ***names, size_t *n)
{
	int i;

	*names = xcalloc((size_t)sv->count + 1, sizeof **names);
	for (i = 0; i < sv->count; i++)
		(*names)[i] = xstrdup(sv->data[i]);
	*n = (size_t)sv->count;
	qsort(*names, *n, sizeof **names, zk_name_cmp);
}

/* A library thread: the listing came. */
static void
zk_children_done(int rc, const struct String_vector *sv, const void *data)
{
	struct zk_note *n = (struct zk_note *)data;

	n->rc = rc;
	if (rc == ZOK && sv != NULL)
		zk_names(sv, &n->names, &n->nnames);
	zk_post(n->zk, n);
}

/* A note for an asynchronous call on rel, whose absolute path goes in path. */
static struct zk_note *
zk_note_for(struct zk *zk, enum zk_note_kind kind, const char *rel,
    char *path, void *arg)
{
	struct zk_note *n;

	if (zk_abs(zk, rel, path, ZK_PATH_MAX) != 0)
		return NULL;
	n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->zk = zk;
	n->arg = arg;
	n->path = xstrdup(path);
	LIST_INSERT_HEAD(&zk->notes, n, entry);
	return n;
}

static void
zk_stat_done(int rc, const struct Stat *st, const void *data)
{
	struct zk_note *n = (struct zk_note *)data;

	n->rc = rc;
	n->version = rc == ZOK && st != NULL ? st->version : -1;
	zk_post(n->zk, n);
}

int
zk_set_async(struct zk *zk, const char *rel, const char *data, size_t len,
    int32_t version, zk_done_fn done, void *arg)
{
	char path[ZK_PATH_MAX];
	struct zk_note *n = zk_note_for(zk, NOTE_DONE, rel, path, arg);
	int rc;

	if (n == NULL)
		return ZBADARGUMENTS;
	n->done = done;
	if ((rc = zoo_aset(zk->zh, path, data, (int)len, version,
	    zk_stat_done, n)) != ZOK)
		zk_note_free(n);
	return rc;
}

/* A watch's node event (session events leave it armed). */
static void
zk_node_watcher(zhandle_t *zh, int type, int state, const char *path,
    void *ctx)
{
	struct zk_note *n = ctx;

	if (type == ZOO_SESSION_EVENT || atomic_exchange(&n->posted, 1))
		return;
	n->fired = 1;
	zk_post(n->zk, n);
}

/* exists() answered: a znode already gone fires the watch at once. */
static void
zk_exists_done(int rc, const struct Stat *st, const void *data)
{
	struct zk_note *n = (struct zk_note *)data;

	if (rc != ZOK && !atomic_exchange(&n->posted, 1)) {
		n->rc = rc;
		zk_post(n->zk, n);
	}
}

int
zk_watch(struct zk *zk, const char *rel, zk_watch_fn watch, void *arg,
    char *err, size_t errlen)
{
	char path[ZK_PATH_MAX];
	struct zk_note *n = zk_note_for(zk, NOTE_WATCH, rel, path, arg);
	int rc;

	if (n == NULL) {
		snprintf(err, errlen, "%s: path too long", zk->where);
		return -1;
	}
	n->watch = watch;
	if ((rc = zk_issue(n)) != ZOK) {
		zk_note_free(n);
		snprintf(err, errlen, "%s: cannot watch %s: %s", zk->where,
		    path, zerror(rc));
		return -1;
	}
	return 0;
}

int
zk_children_async(struct zk *zk, const char *rel, zk_children_fn done,
    zk_watch_fn watch, void *arg)
{
	char path[ZK_PATH_MAX];
	struct zk_note *n = zk_note_for(zk, NOTE_CHILDREN, rel, path, arg);
	struct zk_note *w = NULL;
	int rc;

	if (n == NULL)
		return ZBADARGUMENTS;
	n->children = done;
	if (watch != NULL) {
		w = zk_note_for(zk, NOTE_WATCH, rel, path, arg);
		w->watch = watch;
		n->armed = w;
	}
	if ((rc = zk_issue(n)) != ZOK) {
		zk_note_free(n);
		if (w != NULL)
			zk_note_free(w);
	}
	return rc;
}

/* A library thread: the read came. */
static void
zk_data_done(int rc, const char *value, int len, const struct Stat *st,
    const void *data)
{
	struct zk_note *n = (struct zk_note *)data;

	n->rc = rc;
	if (rc == ZOK) {
		n->len = len > 0 ? (size_t)len : 0;
		n->data = xmalloc(n->len + 1);
		memcpy(n->data, value, n->len);
		n->data[n->len] = '\0';
		n->version = st != NULL ? st->version : -1;
	}
	zk_post(n->zk, n);
}

/* A read, after a sync when synced (zk_get_latest_async). */
static int
zk_get(struct zk *zk, const char *rel, int synced, zk_data_fn done,
    void *arg)
{
	char path[ZK_PATH_MAX];
	struct zk_note *n = zk_note_for(zk, NOTE_DATA, rel, path, arg);
	int rc;

	if (n == NULL)
		return ZBADARGUMENTS;
	n->data_done = done;
	n->synced = synced;
	if ((rc = zk_issue(n)) != ZOK)
		zk_note_free(n);
	return rc;
}

int
zk_get_async(struct zk *zk, const char *rel, zk_data_fn done, void *arg)
{
	return zk_get(zk, rel, 0, done, arg);
}

int
zk_get_latest_async(struct zk *zk, const char *rel, zk_data_fn done,
    void *arg)
{
	return zk_get(zk, rel, 1, done, arg);
}

/* A sync's end: the read sent after it on the session says the rest. */
static void
zk_sync_done(int rc, const char *value, const void *data)
{
}

/* A library thread: the create ended; keep the name below the root. */
static void
zk_created_done(int rc, const char *name, const void *data)
{
	struct zk_note *n = (struct zk_note *)data;
	size_t rootlen = strlen(n->zk->root) + 1;

	n->rc = rc;
	if (rc == ZOK && name != NULL)
		n->data = xstrdup(strlen(name) > rootlen ? name + rootlen :
		    name);
	zk_post(n->zk, n);
}

/*
 * Send a call that may be sent again (a get, a listing and its watch, a
 * watch, a create) to the library.
 */
static int
zk_issue(struct zk_note *n)
{
	zhandle_t *zh = n->zk->zh;
	int rc;

	if (n->kind == NOTE_CREATED)
		return zoo_acreate(zh, n->path, n->payload, n->plen,
		    n->zk->acl, n->flags, zk_created_done, n);
	if (n->kind == NOTE_DATA && n->synced &&
	    (rc = zoo_async(zh, n->path, zk_sync_done, NULL)) != ZOK)
		return rc;
	if (n->kind == NOTE_DATA)
		return zoo_aget(zh, n->path, 0, zk_data_done, n);
	if (n->kind == NOTE_CHILDREN)
		return zoo_awget_children(zh, n->path, n->armed != NULL ?
		    zk_node_watcher : NULL, n->armed, zk_children_done, n);
	return zoo_awexists(zh, n->path, zk_node_watcher, n, zk_exists_done,
	    n);
}

int
zk_create_async(struct zk *zk, const char *rel, const char *data,
    size_t len, int flags, zk_created_fn done, void *arg)
{
	char path[ZK_PATH_MAX];
	struct zk_note *n = zk_note_for(zk, NOTE_CREATED, rel, path, arg);
	int rc;

	if (n == NULL)
		return ZBADARGUMENTS;
	n->created = done;
	n->flags = flags;
	n->plen = -1;
	if (data != NULL) {
		n->payload = xmalloc(len > 0 ? len : 1);
		memcpy(n->payload, data, len);
		n->plen = (int)len;
	}
	if ((rc = zk_issue(n)) != ZOK)
		zk_note_free(n);
	return rc;
}

int
zk_live_children(struct zk *zk, const char *rel, char *err, size_t errlen)
{
	char path[ZK_PATH_MAX];
	struct String_vector sv;
	int rc, n;

	if (zk_abs(zk, rel, path, sizeof path) != 0) {
		snprintf(err, errlen, "%s: path too long", zk->where);
		return -1;
	}
	rc = zoo_get_children(zk->zh, path, 0, &sv);
	if (rc == ZNONODE)
		return 0;
	if (rc != ZOK) {
		snprintf(err, errlen, "%s: cannot list %s: %s", zk->where,
		    path, zerror(rc));
		return -1;
	}
	n = sv.count;
	deallocate_String_vector(&sv);
	return n;
}

/* Delete the znode at path and all below it, children first. */
static int
zk_delete_path(struct zk *zk, char *path, size_t *removed, char *err,
    size_t errlen)
{
	struct String_vector sv;
	size_t len = strlen(path);
	int rc, i, listed;

	rc = zoo_get_children(zk->zh, path, 0, &sv);
	if (rc == ZNONODE)
		return 0;
	listed = rc == ZOK;
	for (i = 0; rc == ZOK && i < sv.count; i++) {
		if (len + 1 + strlen(sv.data[i]) >= ZK_PATH_MAX) {
			snprintf(err, errlen, "%s: a path below %s is too "
			    "long", zk->where, path);
			rc = ZSYSTEMERROR;
			break;
		}
		snprintf(path + len, ZK_PATH_MAX - len, "/%s", sv.data[i]);
		if (zk_delete_path(zk, path, removed, err, errlen) != 0)
			rc = ZSYSTEMERROR;	/* err says why */
		path[len] = '\0';
	}
	if (listed)
		deallocate_String_vector(&sv);
	if (rc == ZSYSTEMERROR)
		return -1;
	if (rc == ZOK)
		rc = zoo_delete(zk->zh, path, -1);
	if (rc == ZNONODE)
		return 0;
	if (rc != ZOK) {
		snprintf(err, errlen, "%s: cannot delete %s: %s", zk->where,
		    path, zerror(rc));
		return -1;
	}
	(*removed)++;
	return 0;
}

int
zk_delete_tree(struct zk *zk, const char *rel, size_t *removed, char *err,
    size_t errlen)
{
	char path[ZK_PATH_MAX];

	if (zk_abs(zk, rel, path, sizeof path) != 0) {
		snprintf(err, errlen, "%s: path too long", zk->where);
		return -1;
	}
	return zk_delete_path(zk, path, removed, err, errlen);
}
