/*
 * failover.c: what a worker does when the coordinator publishes a new ring
 * version during its job (a server died, joined or was removed).  The
 * servers refuse requests stamped with the old version, so the worker
 * cannot go on as it is.  For now it stops; moving the job to the new ring
 * is later work and belongs here.
 */
#include "config.h"

#include <sysexits.h>

#include "log.h"
#include "worker.h"

/* The ring changed to *ring, which this takes over; see worker.h. */
void
worker_ring_changed(struct worker *w, struct ps_ring *ring)
{
	uint32_t version = ring->version;

	ps_ring_release(ring);
	fatalx(EX_UNAVAILABLE, "ring changed to version %u during the job "
	    "(failover is not supported yet)", version);
}
