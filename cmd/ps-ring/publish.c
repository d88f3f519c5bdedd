/*
 * publish.c: new ring versions, in two phases.  A version is saved to the
 * ring store before anyone sees it, then sent to every live server; only
 * when each of them acknowledged it (a HEARTBEAT carrying it) is it sent
 * to the workers.  A server that does not acknowledge within the timeout
 * is dead, which makes another version.  So no worker ever holds a version
 * that one of its servers does not.  A loaded ring is published again the
 * same way: its servers must come back and hold it before the workers are
 * sent it (the coordinator before may have died publishing it).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "serve.h"
#include "util/log.h"
#include "util/xmalloc.h"

/*
 * The loaded (or new) ring: the workers' version, but sent to them only
 * once its servers are back and hold it (coord.h, rule 5).
 */
void
publish_init(struct coord *co)
{
	ps_ring_format(&co->ring, &co->text, &co->textlen);
	co->pub_text = xstrdup(co->text);
	co->pub_len = co->textlen;
	co->published = co->ring.version;
	co->recovering = co->publishing = co->ring.nservers > 0;
	co->pub_started = co->started;
}

/* Send one node a RING of this version. */
void
publish_send(struct member *mb, const char *text, size_t len,
    uint32_t version)
{
	struct ps_msg m;

	memset(&m, 0, sizeof m);
	m.type = PS_MSG_RING;
	m.flags = PS_MSG_F_NOKEYS;
	m.ring_version = version;
	ps_ring_msg_encode(mb->client->co->timeout * 1e3, &m);
	m.blob = (char *)text;
	m.bloblen = len;
	ps_conn_send(mb->client->conn, &m);
}

/* Phase two: once every live server holds the version, tell the workers. */
void
publish_check(struct coord *co)
{
	struct member *mb;
	int workers = 0;

	if (!co->publishing)
		return;
	TAILQ_FOREACH(mb, &co->members, entry)
		if (mb->role == PS_COORD_SERVER &&
		    ((mb->state == MEMBER_LIVE &&
		    mb->acked < co->ring.version) ||
		    mb->state == MEMBER_UNKNOWN))
			return;
	if (co->ring.nservers < co->hold_servers) {
		co->publishing = 0;
		log_info("ring version %u: %zu of the %u servers; workers wait",
		    co->ring.version, co->ring.nservers, co->hold_servers);
		return;
	}
	co->hold_servers = 0;
	if (co->recovering)
		log_info("ring version %u: every server of it is back (%.0f "
		    "ms)", co->ring.version,
		    (ps_clock_now() - co->started) * 1e3);
	co->publishing = co->recovering = 0;
	free(co->pub_text);
	co->pub_text = xstrdup(co->text);
	co->pub_len = co->textlen;
	co->published = co->ring.version;
	TAILQ_FOREACH(mb, &co->members, entry) {
		if (mb->role != PS_COORD_WORKER || mb->state != MEMBER_LIVE)
			continue;
		publish_send(mb, co->pub_text, co->pub_len, co->published);
		workers++;
	}
	log_info("ring version %u published (%.0f ms; %d workers told)",
	    co->published, (ps_clock_now() - co->pub_started) * 1e3, workers);
}

/* The newest ring, stored or not: what the next change starts from. */
const struct ps_ring *
publish_newest(const struct coord *co)
{
	if (co->have_staged)
		return &co->staged;
	return co->have_saving ? &co->saving : &co->ring;
}

/* Phase one for a stored version (taken over): send it to every server. */
static void
publish_stored(struct coord *co, struct ps_ring *stored, const char *why)
{
	struct member *mb;

	ps_ring_release(&co->ring);
	co->ring = *stored;
	free(co->text);
	ps_ring_format(&co->ring, &co->text, &co->textlen);
	log_info("ring version %u: %s", co->ring.version, why);
	co->publishing = 1;
	co->pub_started = ps_clock_now();
	TAILQ_FOREACH(mb, &co->members, entry)
		if (mb->role == PS_COORD_SERVER && mb->state == MEMBER_LIVE)
			publish_send(mb, co->text, co->textlen,
			    co->ring.version);
	publish_check(co);
}

/* Save next (taken over) as the version after the stored one. */
static int
publish_save(struct coord *co, struct ps_ring *next, const char *why,
    char *err, size_t errlen)
{
	int rc;

	next->version = co->ring.version + 1;
	rc = co->store->ops->save(co->store, next, err, errlen);
	if (rc < 0) {
		ps_ring_release(next);
		return -1;
	}
	if (rc == 0) {
		publish_stored(co, next, why);
		return 0;
	}
	co->saving = *next;
	co->have_saving = 1;
	co->saving_why = xstrdup(why);
	log_debug("ring version %u: saving to %s", next->version,
	    co->store->where);
	return 0;
}

/*
 * Phase one: save next (which this takes over) as the new ring and send it
 * to every live server, or stage it while another version is being saved.
 * -1 with the reason in err if it cannot be saved; the ring is then
 * unchanged.
 */
int
publish_change(struct coord *co, struct ps_ring *next, const char *why,
    char *err, size_t errlen)
{
	char *both;

	if (!co->have_saving)
		return publish_save(co, next, why, err, errlen);
	both = co->have_staged ? xasprintf("%s; %s", co->staged_why, why) :
	    xstrdup(why);
	if (co->have_staged)
		ps_ring_release(&co->staged);
	free(co->staged_why);
	co->staged = *next;
	co->staged_why = both;
	co->have_staged = 1;
	log_info("staged behind the save of ring version %u: %s",
	    co->saving.version, why);
	return 0;
}

/*
 * The store ended the save of a version (ringstore.h).  A version that
 * cannot be stored must not be published, and the coordinator cannot know
 * what the store holds now (another coordinator may have written it), so
 * it gives up: the store's authority fences it.
 */
void
publish_saved(void *arg, uint32_t version, int ok, const char *err)
{
	struct coord *co = arg;
	struct ps_ring stored;
	char reason[512];
	char *why;

	if (!co->have_saving || co->saving.version != version)
		fatalx(EX_SOFTWARE, "%s ended the save of ring version %u, "
		    "which was not being saved", co->store->where, version);
	if (!ok)
		fatalx(EX_CANTCREAT, "cannot save ring version %u to %s: %s",
		    version, co->store->where, err);
	stored = co->saving;
	why = co->saving_why;
	co->have_saving = 0;
	co->saving_why = NULL;
	publish_stored(co, &stored, why);
	free(why);
	if (!co->have_staged)
		return;
	co->have_staged = 0;
	why = co->staged_why;
	co->staged_why = NULL;
	if (publish_save(co, &co->staged, why, reason, sizeof reason) != 0)
		fatalx(EX_CANTCREAT, "cannot save ring version %u to %s: %s",
		    co->ring.version + 1, co->store->where, reason);
	free(why);
}

/* Free the versions being saved or staged. */
void
publish_release(struct coord *co)
{
	if (co->have_saving)
		ps_ring_release(&co->saving);
	if (co->have_staged)
		ps_ring_release(&co->staged);
	free(co->saving_why);
	free(co->staged_why);
	co->have_saving = co->have_staged = 0;
	co->saving_why = co->staged_why = NULL;
}

/*
 * A server left (it died): publish the ring without it.  A version that
 * cannot be saved must not be published, and the dead server must not stay
 * in the ring either, so the coordinator gives up.
 */
void
publish_remove(struct coord *co, const char *addr, const char *why)
{
	struct ps_ring next;
	char err[512];

	ps_ring_copy(&next, publish_newest(co));
	if (ps_ring_remove(&next, addr, err, sizeof err) != 0) {
		ps_ring_release(&next);
		return;
	}
	if (publish_change(co, &next, why, err, sizeof err) != 0)
		fatalx(EX_CANTCREAT, "cannot save ring version %u: %s",
		    co->ring.version + 1, err);
}

/*
 * Servers that did not acknowledge the version in time (counted from the
 * publishing or from their registering, if later) are dead; one that says
 * it is copying segments for it gets PS_COORD_COPY_MAX_MS.
 */
void
publish_tick(struct coord *co)
{
	struct member *mb;
	double waited;
	int again = 1;

	while (again && co->publishing) {
		again = 0;
		TAILQ_FOREACH(mb, &co->members, entry) {
			waited = ps_clock_now() - (mb->registered >
			    co->pub_started ? mb->registered : co->pub_started);
			if (mb->role == PS_COORD_SERVER &&
			    mb->state == MEMBER_LIVE &&
			    mb->acked < co->ring.version &&
			    waited > co->timeout &&
			    (mb->copying != co->ring.version ||
			    waited > PS_COORD_COPY_MAX_MS / 1e3)) {
				member_dead(co, mb, "did not acknowledge ring "
				    "version %u within %.0f ms",
				    co->ring.version, waited * 1e3);
				again = 1;
				break;
			}
		}
	}
}
